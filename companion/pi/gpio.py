"""The clock's buttons, LEDs and buzzer through gpiozero, and the loop that applies presses.

:class:`Panel` builds the devices from a :class:`~companion.clock.pins.PinMap` against a pin
factory: gpiozero's default on a Pi (lgpio), its ``MockFactory`` in tests and demos. A button's
callback does one thing: put ``(button_name, monotonic_ms)`` on a queue. gpiozero calls it on
its own thread, so it must not touch the clocks; the name is ``player1`` ... ``player4``,
``pause`` or ``roll``.

:class:`ClockDriver` is the consumer, on the one thread that owns the clocks: it takes presses
off the queue, lets :class:`~companion.clock.engine.Lockout` make each button's bouncy edges
one press, applies it to the :class:`~companion.clock.engine.ClockGroup` (which ignores a press
from a side not on move), polls for flag falls between presses, and shows the result: the LED of
each player on move lit (blinking in overtime), the buzzer on a flag fall or a loss on time.

Why the engine's lock-out and not gpiozero's ``bounce_time``: how a backend filters bounces
depends on real time and differs between backends (the mock does not filter at all), so
``bounce_time`` is set for the Pi's sake, and the guarantee that one press is one switch comes
from the lock-out on the times the presses were stamped with, which a test can give exactly.
"""

from __future__ import annotations

import queue
import threading
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Protocol

from companion.clock.engine import ClockEvent, ClockGroup, FlagFell, Lockout, LostOnTime
from companion.clock.now import monotonic_ms
from companion.clock.pins import PinMap
from companion.core.errors import CompanionError

Press = tuple[str, int]  # (button name, monotonic milliseconds)


@dataclass(frozen=True)
class Beep:
    on_s: float
    off_s: float
    n: int


# What the buzzer says: a flag is a long tone, a loss three, a refused move two short ones.
BEEPS = {
    "flag": Beep(1.0, 0.2, 1),
    "lost": Beep(0.6, 0.3, 3),
    "invalid": Beep(0.12, 0.1, 2),
    "roll": Beep(0.05, 0.05, 1),
}


class Outputs(Protocol):
    def show(self, on_move: set[int], overtime: set[int]) -> None: ...

    def beep(self, kind: str) -> None: ...


class Panel:
    """The devices on the pins; presses arrive on :attr:`presses`."""

    def __init__(
        self,
        pins: PinMap,
        pin_factory: Any = None,
        now_ms: Callable[[], int] = monotonic_ms,
        beeps: dict[str, Beep] = BEEPS,
    ) -> None:
        from gpiozero.exc import BadPinFactory, GPIOZeroError, PinFactoryFallback

        # A Queue, not a SimpleQueue: the main thread waits on it with a time-out (serve_panel),
        # and on Python 3.11 a SimpleQueue.get(timeout=...) that a signal interrupts just as
        # its time runs out waits for ever (its remaining time comes out negative, which the
        # C code takes as "no time-out"). SIGTERM then stopped nothing: systemd had to kill.
        self.presses: queue.Queue[Press] = queue.Queue()
        self._now_ms = now_ms
        self._beeps = beeps
        self.buttons: dict[str, Any] = {}
        self.leds: list[Any] = []
        self.buzzer: Any = None
        self._blinking: set[int] = set()
        self._current = ""
        skipped: list[str] = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                # Each backend gpiozero tries and skips is a warning ("Falling back from lgpio:
                # why"): kept, since lgpio's reason is the one the user needs when none loads.
                warnings.simplefilter("always", PinFactoryFallback)
                try:
                    self._build(pins, pin_factory)
                finally:
                    skipped = [str(w.message) for w in caught if issubclass(w.category, PinFactoryFallback)]
        except BadPinFactory:
            self.close()
            raise CompanionError(_no_pins(skipped)) from None
        except GPIOZeroError as exc:
            self.close()
            raise CompanionError(f"GPIO: cannot use the {self._current}: {exc}") from None

    def _build(self, pins: PinMap, pin_factory: Any) -> None:
        from gpiozero import LED, Button, Buzzer

        bounce = pins.bounce_ms / 1000 if pins.bounce_ms else None
        named = [(f"player{i + 1}", p) for i, p in enumerate(pins.player_buttons)]
        named += [(n, p) for n, p in (("pause", pins.pause_button), ("roll", pins.roll_button)) if p is not None]
        for name, pin in named:
            self._current = f"{name} button on GPIO{pin}"
            # Wired between the pin and ground, the internal pull-up holding it high.
            button = Button(pin, pull_up=True, bounce_time=bounce, pin_factory=pin_factory)
            button.when_pressed = self._enqueuer(name)
            self.buttons[name] = button
        for i, pin in enumerate(pins.player_leds):
            self._current = f"LED {i + 1} on GPIO{pin}"
            self.leds.append(LED(pin, pin_factory=pin_factory))
        if pins.buzzer is not None:
            self._current = f"buzzer on GPIO{pins.buzzer}"
            self.buzzer = Buzzer(pins.buzzer, pin_factory=pin_factory)

    def _enqueuer(self, name: str) -> Callable[[], None]:
        def pressed() -> None:
            self.presses.put((name, self._now_ms()))

        return pressed

    def press(self, name: str) -> None:
        """A press that comes from elsewhere than its pin (the page's buttons, where the
        configuration allows them on real pins): queued as the pin's callback queues it."""
        if name not in self.buttons:
            raise ValueError(f"no {name!r} button here ({', '.join(self.buttons)})")
        self.presses.put((name, self._now_ms()))

    def show(self, on_move: set[int], overtime: set[int]) -> None:
        for i, led in enumerate(self.leds):
            blink = i in on_move and i in overtime
            if blink:
                if i not in self._blinking:
                    led.blink(on_time=0.25, off_time=0.25)
                    self._blinking.add(i)
                continue
            self._blinking.discard(i)
            led.value = i in on_move  # setting a value stops a blink

    def beep(self, kind: str) -> None:
        if self.buzzer is not None:
            b = self._beeps[kind]
            self.buzzer.beep(on_time=b.on_s, off_time=b.off_s, n=b.n, background=True)

    def close(self) -> None:
        for device in [*self.buttons.values(), *self.leds, self.buzzer]:
            if device is not None:
                device.close()


def _no_pins(skipped: list[str]) -> str:
    """One line for "no pin library loaded": lgpio's own reason when it was there and failed
    (on a Pi 5 under systemd, a read-only working directory for its pipes: gpiozero issue
    1106), the missing package only when that is what it was."""
    lgpio = next((s.split(":", 1)[1].strip() for s in skipped if s.startswith("Falling back from lgpio:")), None)
    if lgpio is None or "No module named 'lgpio'" in lgpio:
        return ("GPIO: no pins here: a Raspberry Pi with lgpio is needed (apt install python3-lgpio, or "
                "sudo make install); `companion run --mock` runs without")
    return (f"GPIO: lgpio cannot start: {' '.join(lgpio.split())[:200]} (it needs /dev/gpiochip*, the gpio "
            "group, and a writable working directory or $LG_WD: see docs/pi.md)")


class ClockDriver:
    """Presses in, clock events out, the outputs kept in step. Not thread-safe: one owner."""

    def __init__(
        self,
        clocks: ClockGroup,
        lockout: Lockout,
        outputs: Outputs | None = None,
        roll: Callable[[], Any] | None = None,
    ) -> None:
        self.clocks = clocks
        self.lockout = lockout
        self.outputs = outputs
        self.roll = roll
        self._last_ms: int | None = None

    def handle(self, button: str, at_ms: int) -> list[Any]:
        """Apply one press; what it caused (nothing when the lock-out took it for a bounce)."""
        at_ms = self._in_order(at_ms)
        if not self.lockout.accept(button, at_ms):
            return []
        events: list[Any]
        if button.startswith("player"):
            events = self.clocks.press(int(button.removeprefix("player")) - 1, at_ms)
        elif button == "pause":
            events = self.clocks.toggle_pause(at_ms)
        elif button == "roll":
            events = [] if self.roll is None else [self.roll()]
            if events and self.outputs is not None:
                self.outputs.beep("roll")
        else:
            raise ValueError(f"no button {button!r}")
        self._show(events, at_ms)
        return events

    def tick(self, now_ms: int) -> list[ClockEvent]:
        """Flag falls and losses due by ``now_ms``."""
        now_ms = self._in_order(now_ms)
        events = self.clocks.poll(now_ms)
        self._show(events, now_ms)
        return events

    def drain(self, presses: "queue.Queue[Press]") -> list[Any]:
        """Apply every press waiting on the queue."""
        events: list[Any] = []
        while True:
            try:
                button, at = presses.get_nowait()
            except queue.Empty:
                return events
            events += self.handle(button, at)

    def run(
        self,
        presses: "queue.Queue[Press]",
        stop: threading.Event,
        on_events: Callable[[list[Any]], None],
        now_ms: Callable[[], int] = monotonic_ms,
        tick_ms: int = 50,
        each_round: Callable[[], None] | None = None,
    ) -> None:
        """Serve presses until ``stop`` is set; ``each_round`` runs at least every ``tick_ms``."""
        while not stop.is_set():
            try:
                button, at = presses.get(timeout=tick_ms / 1000)
                events = self.handle(button, at)
            except queue.Empty:
                events = self.tick(now_ms())
            if events:
                on_events(events)
            if each_round is not None:
                each_round()

    def _in_order(self, at_ms: int) -> int:
        # A press stamped just before a tick the loop already made is applied at that tick's
        # time: the clocks' time never runs backwards.
        if self._last_ms is not None and at_ms < self._last_ms:
            at_ms = self._last_ms
        self._last_ms = at_ms
        return at_ms

    def _show(self, events: Iterable[Any], now_ms: int) -> None:
        if self.outputs is None:
            return
        events = list(events)
        if any(isinstance(e, LostOnTime) for e in events):
            self.outputs.beep("lost")
        elif any(isinstance(e, FlagFell) for e in events):
            self.outputs.beep("flag")
        on_move = self.clocks.on_move()
        overtime = {p for p in on_move if self.clocks.remaining_ms(p, now_ms) < 0}
        self.outputs.show(on_move, overtime)
