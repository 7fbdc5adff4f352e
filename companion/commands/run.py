"""`companion run`: the service the Pi starts. For now the clocks and their pins; the table
(camera, rules, game log, live page) joins them in issue 6.

It reads the configuration, builds the buttons, LEDs and buzzer, tells systemd it is ready
(Type=notify) and pings the watchdog from the loop that serves the presses, so a hung loop is
restarted. Each clock event is printed as a line (the journal keeps them). SIGTERM or Ctrl-C
stop it cleanly. ``--mock`` runs on gpiozero's mock pins, on any machine.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from companion.clock.dice import dice_rng, placement
from companion.clock.engine import Lockout, format_ms
from companion.config import default_path, load_config
from companion.notify import notify, watchdog_interval_s


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="run the clocks on the GPIO pins (the service systemd starts)",
        description="Run the clocks on the buttons, LEDs and buzzer of the configuration file, "
        "as the systemd service does.",
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
    from companion.clock.gpio import ClockDriver, Panel

    cfg = load_config(args.config)
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

    interval = watchdog_interval_s()
    last_ping = [0.0]

    def each_round() -> None:
        if interval is not None and time.monotonic() - last_ping[0] >= interval:
            notify("WATCHDOG=1")
            last_ping[0] = time.monotonic()

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
