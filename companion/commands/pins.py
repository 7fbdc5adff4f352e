"""`companion pins`: check the clock box's wiring before the first game.

    companion pins list      # each button, LED and the buzzer: BCM number and header pin
    companion pins test      # light each LED, sound the buzzer, then press each button

``test`` builds the same devices ``companion run`` does (:class:`~companion.pi.gpio.Panel`,
from the configuration's [pins]), lights each player's LED in turn, beeps the buzzer once, and
then names every button pressed (lighting its player's LED while it is held) until each has been
pressed once, or ``--seconds`` have passed: exit 0 when every button was seen, 1 naming those
that were not. The service holds the pins while it runs: stop it first.
"""

from __future__ import annotations

import argparse
import queue
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.clock.engine import Lockout
from companion.clock.pins import HEADER, PinMap
from companion.table.config import default_path, load_config
from companion.core.errors import CompanionError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("pins", help="list the pins, or test the buttons, LEDs and buzzer",
                       description=__doc__.split("\n\n")[0].split(": ", 1)[1])
    psub = p.add_subparsers(dest="pins_command", metavar="ACTION", required=True)
    ls = psub.add_parser("list", help="each button, LED and the buzzer with its BCM number and header pin")
    ls.add_argument("--config", type=Path, help=f"the configuration file (default {default_path()})")
    ls.set_defaults(func=list_pins)
    t = psub.add_parser("test", help="light each LED, sound the buzzer, name each button pressed")
    t.add_argument("--config", type=Path, help=f"the configuration file (default {default_path()})")
    t.add_argument("--seconds", type=float, default=120.0, help="how long to wait for the presses (default 120)")
    t.add_argument("--mock", action="store_true", help="gpiozero's mock pins (no Pi; nobody presses)")
    t.set_defaults(func=test_pins)


def list_pins(args: argparse.Namespace) -> int:
    cfg = load_config(args.config)
    for name, pin in cfg.used_pins().named().items():
        print(f"{DESCRIBED.get(name, name):<22} GPIO{pin:<3} header pin {HEADER[pin]}")
    return 0


def test_pins(args: argparse.Namespace) -> int:
    if not 0 < args.seconds <= 3600:
        raise CompanionError("--seconds: more than 0, at most 3600")
    cfg = load_config(args.config)
    factory = None
    if args.mock:
        from gpiozero.pins.mock import MockFactory

        factory = MockFactory()
    return check_wiring(cfg.used_pins(), factory, lambda line: print(line, flush=True), args.seconds,
                        lockout_ms=cfg.lockout_ms)


DESCRIBED = {**{f"player{i}": f"player {i} button" for i in range(1, 5)},
             **{f"led{i}": f"player {i} LED" for i in range(1, 5)},
             "pause": "pause button", "roll": "roll button", "buzzer": "buzzer"}


def check_wiring(pins: PinMap, factory: Any, out: Callable[[str], None], seconds: float, *,
                 led_s: float = 0.7, lockout_ms: int = 150, now: Callable[[], float] = time.monotonic) -> int:
    """The wiring test on ``factory``'s pins (None: the Pi's); 0 when every button was pressed."""
    from companion.pi.gpio import Panel

    try:
        panel = Panel(pins, pin_factory=factory)
    except CompanionError as exc:
        raise CompanionError(f"{exc} (is the service running? sudo systemctl stop companion)") from None
    try:
        for i, (led, pin) in enumerate(zip(panel.leds, pins.player_leds)):
            out(f"LED {i + 1} (GPIO{pin}, header pin {HEADER[pin]}): on")
            led.on()
            time.sleep(led_s)
            led.off()
        if panel.buzzer is not None:
            out(f"buzzer (GPIO{pins.buzzer}, header pin {HEADER[pins.buzzer]}): beep")
            panel.buzzer.on()
            time.sleep(led_s / 2)
            panel.buzzer.off()
        wired = pins.named()
        waiting = [name for name in panel.buttons]
        out(f"press each button: {', '.join(waiting)} ({seconds:g} s)")
        lockout = Lockout(lockout_ms)
        deadline = now() + seconds
        while waiting and now() < deadline:
            try:
                name, at_ms = panel.presses.get(timeout=min(0.2, max(0.0, deadline - now())))
            except queue.Empty:
                continue
            if not lockout.accept(name, at_ms):
                continue  # a bounce of the press just named
            out(f"pressed: {DESCRIBED[name]} (GPIO{wired[name]}, header pin {HEADER[wired[name]]})")
            if name.startswith("player") and int(name[6:]) <= len(panel.leds):
                panel.leds[int(name[6:]) - 1].blink(on_time=0.1, off_time=0.1, n=2)
            if name in waiting:
                waiting.remove(name)
        if waiting:
            missing = ", ".join(f"{DESCRIBED[n]} (GPIO{wired[n]}, header pin {HEADER[wired[n]]})" for n in waiting)
            out(f"not pressed: {missing}: check its wires (one leg to the GPIO pin, the other to ground)")
            return 1
        out(f"every button works ({len(panel.buttons)})")
        return 0
    finally:
        panel.close()
