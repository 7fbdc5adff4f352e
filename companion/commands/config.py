"""`companion config`: check the configuration file, or print the documented example.

    companion config check [FILE]    # exit 0 and a summary, or one line naming the bad key
    companion config example         # every key with its default and what it means
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from companion.clock.engine import format_ms
from companion.config import EXAMPLE, default_path, load_config


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("config", help="check the configuration file or print an example")
    csub = p.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    c = csub.add_parser("check", help="validate the configuration and summarise it")
    c.add_argument("file", nargs="?", type=Path, help=f"default: $COMPANION_CONFIG, else {default_path()}")
    c.add_argument("--service", action="store_true",
                   help="check the paths as the systemd service sees them (the default for /etc/companion/config.toml)")
    c.set_defaults(func=check)
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
