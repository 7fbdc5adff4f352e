"""`companion config`: check the configuration file, or print the documented example.

    companion config check [FILE]    # exit 0 and a summary, or one line naming the bad key
    companion config example         # every key with its default and what it means
    companion config pin [FILE]      # the organiser's fixed PIN, kept as a salted hash
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from companion.clock.engine import format_ms
from companion.core.errors import CompanionError
from companion.table.config import EXAMPLE, default_path, load_config, parse_config


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("config", help="check the configuration file or print an example")
    csub = p.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    c = csub.add_parser("check", help="validate the configuration and summarise it")
    c.add_argument("file", nargs="?", type=Path, help=f"default: $COMPANION_CONFIG, else {default_path()}")
    c.add_argument("--service", action="store_true",
                   help="check the paths as the systemd service sees them (the default for /etc/companion/config.toml)")
    c.set_defaults(func=check)
    s = csub.add_parser("pin", help="set the organiser's fixed PIN (its salted hash goes into [web] pin_hash)",
                        description="Set the organiser's fixed PIN: read from the terminal (asked twice) or from "
                        "standard input, or made with --random; its salted hash is written into the file's [web] "
                        "table, the rest of the file kept as it is. --clear goes back to a new PIN at each start.")
    s.add_argument("file", nargs="?", type=Path, help=f"default: $COMPANION_CONFIG, else {default_path()}")
    how = s.add_mutually_exclusive_group()
    how.add_argument("--random", action="store_true", help="make six random digits and print them once")
    how.add_argument("--clear", action="store_true", help="no fixed PIN: a new one at each start")
    s.set_defaults(func=set_pin)
    e = csub.add_parser("example", help="print a configuration with every default, documented")
    e.set_defaults(func=lambda args: print(EXAMPLE, end="") or 0)


def check(args: argparse.Namespace) -> int:
    """Every check `companion run` makes before it starts (the same code: run.preflight), as the
    service would make them when the file is the service's."""
    from companion.commands.run import SERVICE_CONFIG, SERVICE_ENV, cameras_of, preflight

    cfg = load_config(args.file)
    path = Path(cfg.source)
    service = args.service or os.environ.get(SERVICE_ENV) == "1" or (
        path.exists() and SERVICE_CONFIG.exists() and path.resolve() == SERVICE_CONFIG.resolve())
    preflight(cfg, service=service)
    print(f"{cfg.source}: ok{' (as the service sees the files)' if service else ''}")
    print(f"  {cfg.players} player(s) at {cfg.boards} board(s)")
    if cfg.control is None:
        print("  clock: a stopwatch")
    else:
        for i, s in enumerate(cfg.control.stages):
            length = f"{s.moves} moves" if s.moves else "rest of the game"
            bonus = (
                f" + {s.increment_ms / 1000:g} s a move" if s.increment_ms
                else f", Bronstein {s.bronstein_ms / 1000:g} s" if s.bronstein_ms
                else f", delay {s.delay_ms / 1000:g} s" if s.delay_ms else ""
            )
            print(f"  stage {i + 1}: {format_ms(s.time_ms)}{bonus}, {length}")
        ot = cfg.control.overtime
        print(
            f"  overtime: {ot.points_per_minute} points a started minute, lost at -{format_ms(ot.cap_ms)}"
            if ot else "  overtime: none (the flag at 0:00 loses)"
        )
    pins = ", ".join(f"{k} GPIO{v}" for k, v in cfg.used_pins().named().items())
    print(f"  pins: {pins}")
    for key, cam in cameras_of(cfg):
        where = {"folder": f" {cam.folder}", "device": f" {cam.device}", "picamera2": f" {cam.device}"}.get(cam.source, "")
        size = f"{cam.size[0]}x{cam.size[1]}" if cam.size else "its own size"
        focus = "autofocus" if cam.focus_cm is None else f"focus {cam.focus_cm:g} cm"
        exposure = "auto exposure" if cam.exposure_ms is None else f"exposure {cam.exposure_ms:g} ms"
        gain = "" if cam.gain is None else f", gain {cam.gain:g}"
        settings = f", {size}, {focus}, {exposure}{gain}" if cam.source in ("picamera2", "device") else ""
        print(f"  {key}: {cam.source}{where}{settings}, profile {cam.profile or 'none'}")
    return 0


PIN_LINE = re.compile(r"^\s*pin_hash\s*=.*$", re.M)
TABLE_LINE = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.\-]+)\s*\]\]?\s*(#.*)?$", re.M)


def set_pin(args: argparse.Namespace) -> int:
    from companion.core.atomic import write_atomic
    from companion.web.auth import PIN_DIGITS, new_pin
    from companion.core.pin_hash import hash_pin

    path = args.file if args.file is not None else default_path()
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else EXAMPLE
    except (OSError, UnicodeDecodeError) as exc:
        raise CompanionError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    parse_config(text, str(path))  # a broken file is said, not edited
    if args.clear:
        value, pin = "", None
    else:
        pin = new_pin() if args.random else _read_pin(PIN_DIGITS)
        value = hash_pin(pin)
    updated = with_pin_hash(text, value)
    if parse_config(updated, str(path)).web.pin_hash != value:
        raise CompanionError(f"{path}: the PIN could not be written into the file's [web] table")
    try:
        write_atomic(path, updated.encode("utf-8"))
    except OSError as exc:
        raise CompanionError(f"{path}: cannot write ({exc.strerror or exc}): as root, sudo companion config pin") from None
    if args.clear:
        print(f"{path}: no fixed PIN; a new one at each start")
    elif args.random:
        print(f"{path}: the organiser's PIN is now {pin} (only its hash is kept: note it)")
    else:
        print(f"{path}: the organiser's PIN is set (only its hash is kept)")
    print("restart the service to use it: sudo systemctl restart companion")
    return 0


def with_pin_hash(text: str, value: str) -> str:
    """``text`` with ``[web] pin_hash = value``: the line replaced where there is one, added
    under [web] where the table is, the table added where it is not; nothing else changed."""
    line = f'pin_hash = "{value}"'
    tables = list(TABLE_LINE.finditer(text))
    for i, m in enumerate(tables):
        if m[1] != "web":
            continue
        end = tables[i + 1].start() if i + 1 < len(tables) else len(text)
        section = text[m.end():end]
        if PIN_LINE.search(section):
            section = PIN_LINE.sub(lambda _: line, section, count=1)
        else:
            section = "\n" + line + section
        return text[:m.end()] + section + text[end:]
    return text + ("" if text.endswith("\n") or not text else "\n") + f"\n[web]\n{line}\n"


def _read_pin(digits: int) -> str:
    if sys.stdin.isatty():
        import getpass

        pin = getpass.getpass(f"the organiser's PIN ({digits} digits): ").strip()
        if getpass.getpass("again: ").strip() != pin:
            raise CompanionError("the two PINs differ: nothing changed")
    else:
        pin = sys.stdin.readline().strip()
    if not (pin.isascii() and pin.isdigit() and len(pin) == digits):
        raise CompanionError(f"a PIN is {digits} digits (the page's keypad takes no more): nothing changed")
    return pin
