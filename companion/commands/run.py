"""`companion run`: the service the Pi starts: the whole table from the configuration file.

It reads the configuration, opens the camera ([camera]), builds the buttons, LEDs and buzzer
([pins]), resumes the game in progress from the game log in the data folder (or starts one with
the [game] and [clock] settings), serves the live page ([web]) and runs the table loop: a
player's button switches the clock and the table reads the board (:mod:`companion.table`);
the pause button pauses or resumes the game. The session's clocks are the truth: the LEDs show
the player on move from them (blinking in overtime). It tells systemd it is ready (Type=notify)
once the page is served and the loop runs, and pings the watchdog from the table's loop, so a
hung loop is restarted. SIGTERM or Ctrl-C stop it cleanly. ``--mock`` runs on gpiozero's mock
pins, on any machine.

The solo dungeon (game.players = 1) and Scrabble House (game.boards = 2) have no table loop
yet: for them it runs the clocks alone, each clock event printed as a line.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from companion.clock.dice import dice_rng, placement
from companion.clock.engine import MINUTE_MS, Lockout, Overtime, format_ms
from companion.config import Config, default_path, load_config
from companion.errors import CompanionError
from companion.notify import notify, watchdog_interval_s


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="run the table: camera, buttons, game log and live page (the service systemd starts)",
        description="Run the table from the configuration file (camera, pins, game, time control, "
        "live page), as the systemd service does.",
    )
    p.add_argument("--config", type=Path, help=f"the configuration file (default {default_path()})")
    p.add_argument("--mock", action="store_true", help="use gpiozero's mock pins (no Pi needed)")
    p.set_defaults(func=run)


def describe(event: Any) -> str:
    """An event as a journal line: its kind and its fields, times as clock faces."""
    if not hasattr(event, "__dataclass_fields__"):
        return repr(event)
    parts = []
    for name in event.__dataclass_fields__:
        value = getattr(event, name)
        if name.endswith("_ms") and name != "at_ms":
            value = format_ms(value)
        parts.append(f"{name}={value}")
    return f"{type(event).__name__} " + " ".join(parts)


def run(args: argparse.Namespace) -> int:
    cfg = load_config(args.config)
    if cfg.boards != 1:
        return _clocks(args, cfg)
    return _table(args, cfg)


def session_control(cfg: Config) -> str | dict[str, Any]:
    """The configuration's time control as the table's game takes it (a preset's terms: one
    stage, an increment or Scrabble's overtime at 10 points a minute for up to 10 minutes)."""
    c = cfg.control
    if c is None:
        raise CompanionError(f"{cfg.source}: clock.kind: a stopwatch is for the solo dungeon (game.players = 1)")
    if len(c.stages) != 1:
        raise CompanionError(f"{cfg.source}: clock.stages: the table plays one stage for now, not {len(c.stages)}")
    st = c.stages[0]
    if st.bronstein_ms or st.delay_ms:
        raise CompanionError(f"{cfg.source}: clock.stages[0]: the table plays an increment or none for now")
    if c.overtime is not None and c.overtime != Overtime():
        raise CompanionError(f"{cfg.source}: clock.overtime_points_per_minute: the table plays Scrabble's overtime "
                             "(10 points a minute, 10 minutes at most) for now")
    if c.overtime is not None and st.increment_ms:
        raise CompanionError(f"{cfg.source}: clock.overtime: overtime or an increment, not both")
    minutes = st.time_ms / MINUTE_MS
    if not 1 <= minutes <= 180:
        raise CompanionError(f"{cfg.source}: clock.stages[0].minutes: the table plays 1 to 180 minutes, not {minutes:g}")
    return {"minutes": minutes, "increment_seconds": st.increment_ms / 1000, "overtime": c.overtime is not None}


def open_camera(cfg: Config) -> Any:
    """The configuration's camera, opened; a camera that cannot open is one line."""
    from companion.vision.sources import (
        FolderSource,
        OpenCVDeviceSource,
        Picamera2Source,
        SyntheticSource,
    )

    cam = cfg.camera
    if cam.source == "picamera2":
        return Picamera2Source(int(cam.device))
    if cam.source == "device":
        return OpenCVDeviceSource(cam.device)
    if cam.source == "folder":
        return FolderSource(Path(cam.folder).expanduser(), loop=True)
    return SyntheticSource(seed=0, loop=True)


def _table(args: argparse.Namespace, cfg: Config) -> int:
    from companion.clock.gpio import Panel
    from companion.commands.serve import serving
    from companion.lexicon.store import data_dir
    from companion.store import open_store
    from companion.table import Table, reader_analyser, resume_or_start, serve_panel

    control = session_control(cfg) if cfg.players > 1 else "untimed"  # the dungeon keeps no clock at the table yet
    profile = None
    if cfg.camera.profile:
        from companion.vision.profile import load_profile

        profile = load_profile(Path(cfg.camera.profile).expanduser())
    factory = _factory(args)
    with ExitStack() as stack:
        camera = open_camera(cfg)
        stack.callback(camera.close)
        store = open_store(data_dir())
        stack.callback(store.close)
        session, clock = resume_or_start(store, cfg.player_names(), control=control, challenge=cfg.challenge,
                                         tileset=cfg.tileset, seed=None, start=_dungeon_start(cfg, store))
        # A dungeon in progress (started from the page) has its own tile set and board.
        tileset = session.tileset if session.game == "dungeon" else session.state.tileset.name
        panel = Panel(cfg.used_pins(), pin_factory=factory, now_ms=clock)
        stack.callback(panel.close)
        web = argparse.Namespace(host=cfg.web.host, port=cfg.web.port, max_clients=cfg.web.max_clients)
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
        grid = 15 if session.game == "dungeon" else session.state.board.layout.rows
        table = Table(live.hub, camera, reader_analyser(tileset, grid, profile),
                      trace=lambda line: print(f"table: {line}", flush=True))
        each_round = _watchdog()
        players = 1 if session.game == "dungeon" else len(session.state.players)
        print(f"companion: table ready ({players} player{'s' if players != 1 else ''}, {cfg.camera.source} camera, game log in {store.path})",
              flush=True)
        notify(f"READY=1\nSTATUS=table ready, {players} players")
        table.start(live.stop, each_round)
        stack.callback(table.stop)

        serve_panel(panel, table, live.hub, live.stop, lambda line: print(line, flush=True))
    print("companion: stopped", file=sys.stderr)
    return 0


def _dungeon_start(cfg: Config, store: Any) -> Callable[[int], Any] | None:
    """With one player, a new game is the solo dungeon: its set-up rolled with [dice] (count,
    seed), shown on the page, checked by the camera when the player presses."""
    if cfg.players != 1:
        return None
    from companion.dungeon_table import DungeonSession
    from companion.rules.dungeon import roll_setup

    def start(now_ms: int) -> Any:
        return DungeonSession(store, roll_setup(dice=cfg.dice, seed=cfg.seed), name=cfg.player_names()[0],
                              tileset=cfg.tileset, now_ms=now_ms)

    return start


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


def _clocks(args: argparse.Namespace, cfg: Config) -> int:
    """The clocks alone (the solo dungeon, Scrabble House): no table loop for them yet."""
    from companion.clock.gpio import ClockDriver, Panel

    factory = None
    if args.mock:
        from gpiozero.pins.mock import MockFactory

        factory = MockFactory()
    panel = Panel(cfg.used_pins(), pin_factory=factory)
    rng = dice_rng(cfg.seed)
    driver = ClockDriver(cfg.clocks(), Lockout(cfg.lockout_ms), panel, roll=lambda: placement(cfg.dice, rng))
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())

    each_round = _watchdog()

    def on_events(events: list[Any]) -> None:
        for e in events:
            print(describe(e), flush=True)

    print(f"companion: clocks ready ({cfg.players} players, {cfg.source})", flush=True)
    notify(f"READY=1\nSTATUS=clocks ready, {cfg.players} players")
    try:
        driver.run(panel.presses, stop, on_events, each_round=each_round)
    finally:
        notify("STOPPING=1")
        panel.close()
    print("companion: stopped", file=sys.stderr)
    return 0
