"""`companion run`: the service the Pi starts: the whole table from the configuration file.

It reads the configuration, opens the camera ([camera]), builds the buttons, LEDs and buzzer
([pins]), resumes the game in progress from the game log in the data folder (or starts one with
the [game] and [clock] settings), serves the live page ([web]) and runs the table loop: a
player's button switches the clock and the table reads the board (:mod:`companion.table.table`);
the pause button pauses or resumes the game. The session's clocks are the truth: the LEDs show
the player on move from them (blinking in overtime). It tells systemd it is ready (Type=notify)
once the page is served and the loop runs, and pings the watchdog from the table's loop, so a
hung loop is restarted. SIGTERM or Ctrl-C stop it cleanly. ``--mock`` runs on gpiozero's mock
pins, on any machine.

The game is game.name's, else the first of the registry (:mod:`companion.table.games`) that
seats game.players at game.boards: one player, the solo dungeon (its set-up rolled from
[dice]); four at two boards, Scrabble House (two cameras, [camera] and [camera2], one table loop
per board in one process, four buttons, two clocks). The game starts as its registry entry says.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.table.config import CameraConfig, Config, default_path, load_config
from companion.core.errors import CompanionError, ConfigError
from companion.pi.notify import notify, watchdog_interval_s


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="run the table: camera, buttons, game log and live page (the service systemd starts)",
        description="Run the table from the configuration file (camera, pins, game, time control, "
        "live page), as the systemd service does.",
    )
    p.add_argument("--config", type=Path, help=f"the configuration file (default {default_path()})")
    p.add_argument("--fresh-log", action="store_true",
                   help="a game log that cannot be read is moved aside whole (kept, never deleted) and a new "
                   "game begins; without it such a log is refused and left as it is")
    p.add_argument("--mock", action="store_true", help="use gpiozero's mock pins (no Pi needed)")
    p.add_argument("--keys", action="store_true",
                   help="with --mock: presses from the keyboard, one a line (1-4 a player, p pause, r roll, q stop)")
    p.add_argument("--step", action="store_true",
                   help="with a folder camera: one photo per player press (the first press shows the first)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    cfg = load_config(args.config)
    return _table(args, cfg, preflight(cfg, service=os.environ.get(SERVICE_ENV) == "1"))


# The service's view of the files (systemd/companion.service): its configuration, the variable
# its unit sets, and the folders ProtectHome=yes hides from it.
SERVICE_CONFIG = Path("/etc/companion/config.toml")
SERVICE_ENV = "COMPANION_SERVICE"
SERVICE_HOME = "/var/lib/companion"
HIDDEN_FROM_SERVICE = ("/home", "/root", "/run/user")


@dataclass(frozen=True)
class Preflight:
    """What the checks found that the table then uses."""

    game: Any  # the registry's game (companion.table.games)
    profiles: list[Any]  # one per camera: a calibration profile or None


def preflight(cfg: Config, service: bool = False) -> Preflight:
    """Every check ``run`` makes before it opens the pins, the cameras and the page; ``config
    check`` makes the same ones. ``service``: as the systemd service sees the files."""
    from companion.table.games import find_game

    game = find_game(cfg.game)
    # The game's own checks of the configuration (its time control, ...): the registry raises
    # them from from_config; the game it would start is made again, on the store, by the table.
    game.from_config(cfg, None)
    profiles = [_camera_ready(cfg, key, cam, service) for key, cam in cameras_of(cfg, game.boards)]
    return Preflight(game, profiles)


def cameras_of(cfg: Config, boards: int | None = None) -> list[tuple[str, CameraConfig]]:
    """The configuration's cameras by their table's name: [camera], and [camera2] at a table of
    two boards."""
    boards = cfg.boards if boards is None else boards
    return [(k, c) for k, c in (("camera", cfg.camera), ("camera2", cfg.camera2))[:boards] if c is not None]


def _camera_ready(cfg: Config, key: str, cam: CameraConfig, service: bool) -> Any:
    """The camera's profile, loaded; its source checked without opening it (the service may hold
    the camera while this runs): the folder and its photos, the device's path, Picamera2's import."""
    from companion.vision.profile import load_profile
    from companion.pi.sources import FolderSource, check_device_path, load_picamera2

    paths = [("profile", cam.profile)] + ([("folder", cam.folder)] if cam.source == "folder" else [])
    for what, path in paths:
        if path and service:
            _seen_by_service(cfg, f"{key}.{what}", path)
    try:
        profile = load_profile(Path(cam.profile).expanduser()) if cam.profile else None
    except CompanionError as exc:
        raise ConfigError(f"{cfg.source}: {key}.profile: {exc}") from None
    try:
        if cam.source == "folder":
            FolderSource(Path(cam.folder).expanduser()).close()
        elif cam.source == "device":
            check_device_path(cam.device)
        elif cam.source == "picamera2":
            load_picamera2()
    except CompanionError as exc:
        what = cam.source if cam.source in ("folder", "device") else "source"
        raise CompanionError(f"{cfg.source}: {key}.{what}: {exc}") from None
    return profile


def _seen_by_service(cfg: Config, key: str, path: str) -> None:
    if path.startswith("~"):
        raise ConfigError(f"{cfg.source}: {key}: {path}: the service's ~ is {SERVICE_HOME}, not yours: "
                             "write the whole path")
    if not os.path.isabs(path):
        raise ConfigError(f"{cfg.source}: {key}: {path}: the service would look for it in {SERVICE_HOME}: "
                             "write the whole path")
    hidden = next((h for h in HIDDEN_FROM_SERVICE if path == h or path.startswith(h + "/")), None)
    if hidden is not None:
        raise ConfigError(f"{cfg.source}: {key}: {path} is under {hidden}, which the service cannot see "
                             "(ProtectHome=yes): move it to /etc/companion or /var/lib/companion")


def open_camera(cam: CameraConfig, seed: int = 0, step: bool = False) -> Any:
    """A configured camera, opened; a camera that cannot open is one line. ``seed``: the
    synthetic camera's board (one per board at a House table)."""
    from companion.sim.camera import SyntheticSource
    from companion.pi.sources import FolderSource, OpenCVDeviceSource, Picamera2Source, picamera2_controls

    if cam.source == "picamera2":
        controls = picamera2_controls(cam.focus_cm, cam.exposure_ms, cam.gain)
        return Picamera2Source(int(cam.device), size=cam.size, controls=controls)
    if cam.source == "device":
        return OpenCVDeviceSource(cam.device, size=cam.size, exposure_ms=cam.exposure_ms)
    if cam.source == "folder":
        if step:
            from companion.sim.presses import StepFolder

            return StepFolder(Path(cam.folder).expanduser())
        return FolderSource(Path(cam.folder).expanduser(), loop=True)
    return SyntheticSource(seed=seed, loop=True)


def _table(args: argparse.Namespace, cfg: Config, pre: Preflight) -> int:
    from companion.pi.gpio import Panel
    from companion.commands.serve import serving
    from companion.table.house import BoardHub
    from companion.lexicon.store import data_dir
    from companion.table.store import open_store
    from companion.table.games import configuration_note, resume_or_start
    from companion.table.table import Table, reader_analyser, serve_panel
    from companion.vision.overlay import LatestView

    game = pre.game
    cams = [cam for _, cam in cameras_of(cfg, game.boards)]
    profiles = pre.profiles
    factory = _factory(args)
    if getattr(args, "keys", False) and factory is None:
        raise CompanionError("--keys: presses from the keyboard drive the mock pins: add --mock")
    step = bool(getattr(args, "step", False))
    if step and any(c is not None and c.source != "folder" for c in cams):
        raise CompanionError("--step: one photo per press is for a folder camera ([camera] source = \"folder\")")
    with ExitStack() as stack:
        cameras = []
        for i, cam in enumerate(c for c in cams if c is not None):
            cameras.append(open_camera(cam, seed=i, step=step))
            stack.callback(cameras[-1].close)
        store = open_store(data_dir(), fresh_log=args.fresh_log)
        stack.callback(store.close)
        session, clock = resume_or_start(store, start=game.from_config(cfg, store))
        if store.notice:
            print(f"companion: {store.notice}", file=sys.stderr, flush=True)
        if cfg.venue is not None:
            from companion.table.publish.publisher import publish_table

            stack.callback(publish_table(cfg.venue, store, session, lambda line: print(line, flush=True)).stop)
        note = configuration_note(session, cfg)
        if note is not None:
            # Never silently: the game in progress goes on (it is in the log); the configuration's
            # settings are for the next game, which the page's New game starts with them.
            session.configured = note
            what = ", ".join(f"{k} {note['settings'][k]!r}" if note["settings"] and k in note["settings"] else k
                             for k in note["differs"])
            print(f"companion: the game in progress goes on; the configuration asks for {note['title']} with "
                  f"other settings ({what}): they apply to the next game (New game on the page)", flush=True)
        # The game in progress (a dungeon started from the page, a House match) has its own
        # tile set and board.
        tileset = session.tileset_name
        panel = Panel(cfg.used_pins(), pin_factory=factory, now_ms=clock)
        stack.callback(panel.close)

        def say(line: str) -> None:
            print(line, flush=True)

        presses = _presses(factory, panel, cfg, session, cameras if step else None, say)
        view = LatestView()  # the organiser's camera view: what each table last read
        web = argparse.Namespace(host=cfg.web.host, port=cfg.web.port, max_clients=cfg.web.max_clients,
                                 pin_hash=cfg.web.pin_hash, camera_view=view.jpeg, presses=presses)
        live = stack.enter_context(serving(session, web, now_ms=clock))
        stopping = threading.Event()

        def stop_now(*_: object) -> None:
            # Tell systemd at once, from the signal itself: what follows (the table's thread,
            # the page's server) may take a while to wind down.
            if not stopping.is_set():
                stopping.set()
                notify("STOPPING=1")
            live.stop.set()

        # Before READY=1 and the table's first watchdog ping: a SIGTERM that came between them
        # and the handlers (a loaded machine can leave that gap open) would kill the process
        # with Python's default action, without STOPPING=1 and without closing the game log.
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, stop_now)
        stack.callback(stop_now)
        # One table per board, each with its own camera and thread; at a table of two boards
        # through its board's face of the one hub.
        hubs = [BoardHub(live.hub, i) for i in range(session.boards)] if session.boards > 1 else [live.hub]
        if len(hubs) != len(cameras):
            raise ConfigError(f"{cfg.source}: game.boards: the game in progress ({session.game}) is not what the "
                                 "configuration's cameras are for")
        tables = [Table(hub, camera, view.wrap(i, reader_analyser(tileset, session.grid, profile)),
                        trace=lambda line, i=i: print(f"table{'' if len(hubs) == 1 else i + 1}: {line}", flush=True))
                  for i, (hub, camera, profile) in enumerate(zip(hubs, cameras, profiles))]
        each_round = _watchdog()
        players = session.seats
        where = " and ".join(c.source for c in cams)
        print(f"companion: table ready ({players} player{'s' if players != 1 else ''}, {where} camera"
              f"{'s' if len(cams) > 1 else ''}, game log in {store.path})", flush=True)
        notify(f"READY=1\nSTATUS=table ready, {players} players")
        for table in tables:
            table.start(live.stop, each_round)
            stack.callback(table.stop)

        if getattr(args, "keys", False):
            from companion.sim.presses import keyboard

            threading.Thread(target=keyboard, args=(sys.stdin, presses, live.stop, say),
                             name="companion-keys", daemon=True).start()
        serve_panel(panel, tables, live.hub, live.stop, lambda line: print(line, flush=True),
                    table_of=session.board_of)
    print("companion: stopped", file=sys.stderr)
    return 0


def _presses(factory: Any, panel: Any, cfg: Config, session: Any, stepped: list[Any] | None,
             say: Callable[[str], None]) -> Any:
    """What presses the buttons other than their pins (the page's buttons, the keyboard): on
    mock pins, the pins themselves driven (the stepped folder camera of the player's board
    advanced before a player's press); on real pins, the panel's queue, only where
    [web] page_buttons allows it; else None."""
    if factory is not None:
        from companion.sim.presses import MockPresses

        def advance(name: str) -> str:
            board = session.board_of(int(name.removeprefix("player")) - 1) if len(stepped or ()) > 1 else 0
            return stepped[board].advance()  # type: ignore[index]

        return MockPresses(factory, cfg.used_pins().named(), session.seats, advance if stepped else None, say)
    return panel if cfg.web.page_buttons else None


def _factory(args: argparse.Namespace) -> Any:
    if not args.mock:
        return None
    from gpiozero.pins.mock import MockFactory

    return MockFactory()


def _watchdog() -> Callable[[], None]:
    interval = watchdog_interval_s()
    last_ping = [0.0]

    def each_round() -> None:
        if interval is not None and time.monotonic() - last_ping[0] >= interval:
            notify("WATCHDOG=1")
            last_ping[0] = time.monotonic()

    return each_round
