"""Buttons, LEDs and the buzzer driven through gpiozero's MockFactory: real device code, mock pins.

Time is a number the test sets: the buttons' callbacks stamp presses with it, so bouncy edges
1 ms apart are 1 ms apart whatever the machine's speed.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
import types

import pytest
from gpiozero.pins.mock import MockFactory

from companion.clock.engine import (
    MINUTE_MS,
    ClockGroup,
    FlagFell,
    Lockout,
    LostOnTime,
    Paused,
    Resumed,
    Started,
    Switched,
    scrabble,
    sudden_death,
)
from companion.pi.gpio import Beep, ClockDriver, Panel
from companion.clock.pins import DEFAULT_PINS, PinMap
from companion.core.errors import CompanionError

FAST_BEEPS = {k: Beep(0.01, 0.01, 1) for k in ("flag", "lost", "invalid", "roll")}


class Table:
    """A panel on mock pins with a hand-set clock, and the driver that consumes it."""

    def __init__(self, control=sudden_death(10), players=2, boards=1, pins=DEFAULT_PINS, roll=None):
        self.factory = MockFactory()
        self.now = 0
        self.panel = Panel(
            PinMap(pins.player_buttons[:players], pins.player_leds[:players], pins.pause_button,
                   pins.roll_button, pins.buzzer, pins.bounce_ms),
            pin_factory=self.factory, now_ms=lambda: self.now, beeps=FAST_BEEPS,
        )
        self.clocks = ClockGroup.of(control, players, boards)
        self.driver = ClockDriver(self.clocks, Lockout(150), self.panel, roll)
        self.pins = pins

    def pin(self, bcm):
        return self.factory.pin(bcm)

    def bouncy_press(self, bcm, at, edges=5):
        """A press whose contact bounces: ``edges`` falling edges 1 ms apart, then released."""
        pin = self.pin(bcm)
        for k in range(edges):
            self.now = at + 2 * k
            pin.drive_low()
            self.now = at + 2 * k + 1
            pin.drive_high()
        # Release bounces too.
        for k in range(3):
            self.now = at + 2 * edges + 40 + 2 * k
            pin.drive_low()
            self.now += 1
            pin.drive_high()

    def close(self):
        self.panel.close()
        self.factory.reset()


@pytest.fixture
def table():
    tables = []

    def make(**kw):
        t = Table(**kw)
        tables.append(t)
        return t

    yield make
    for t in tables:
        t.close()


def test_callbacks_only_enqueue_the_button_and_its_time(table):
    t = table()
    t.now = 1234
    t.pin(17).drive_low()
    assert t.panel.presses.get_nowait() == ("player1", 1234)
    assert t.clocks.on_move() == set()  # nothing applied until the consumer takes it


def test_every_bouncy_press_yields_exactly_one_switch(table):
    t = table()
    buttons = t.pins.player_buttons
    # Player 2 starts player 1's clock; then they alternate, eight moves each.
    t.bouncy_press(buttons[1], 0)
    events = t.driver.drain(t.panel.presses)
    assert events == [Started(0, 0)]
    at = 5_000
    for move in range(16):
        player = move % 2
        t.bouncy_press(buttons[player], at)
        presses = []
        while True:
            try:
                presses.append(t.panel.presses.get_nowait())
            except queue.Empty:
                break
        assert len(presses) == 8  # five bouncing edges down, three on the way up
        assert [p[1] for p in presses[:5]] == [at, at + 2, at + 4, at + 6, at + 8]
        events = [e for b, ms in presses for e in t.driver.handle(b, ms)]
        assert events == [Switched(player, 1 - player, at, move // 2 + 1, events[0].used_ms, events[0].remaining_ms, 0)]
        assert t.clocks.on_move() == {1 - player}
        at += 3_000
    assert (t.clocks.clocks[0].moves(0), t.clocks.clocks[0].moves(1)) == (8, 8)


def test_a_press_by_the_player_not_on_move_switches_nothing(table):
    t = table()
    t.bouncy_press(17, 0)  # player 1 starts player 2
    t.driver.drain(t.panel.presses)
    t.bouncy_press(17, 1000)
    events = t.driver.drain(t.panel.presses)
    assert [type(e).__name__ for e in events] == ["Ignored"]
    assert t.clocks.on_move() == {1}


def test_without_the_lockout_the_bounces_would_be_presses(table):
    # The stopwatch has one side: every accepted press is a lap, so only the lock-out stands
    # between a bouncing contact and extra moves.
    t = table(control=None, players=1)
    t.driver.lockout = Lockout(0)
    t.bouncy_press(17, 0)
    assert len([e for e in t.driver.drain(t.panel.presses) if type(e).__name__ == "Lap"]) == 7
    t2 = table(control=None, players=1, pins=PinMap((18,), (20,), 21, 16, 26))
    t2.bouncy_press(18, 0)
    assert [type(e).__name__ for e in t2.driver.drain(t2.panel.presses)] == ["Started"]
    t2.bouncy_press(18, 1000)
    assert [type(e).__name__ for e in t2.driver.drain(t2.panel.presses)] == ["Lap"]


def test_the_led_of_the_player_on_move_is_lit(table):
    t = table()
    leds = t.pins.player_leds
    assert [t.pin(p).state for p in leds[:2]] == [False, False]
    t.bouncy_press(27, 0)
    t.driver.drain(t.panel.presses)
    assert [t.pin(p).state for p in leds[:2]] == [True, False]
    t.bouncy_press(17, 2000)
    t.driver.drain(t.panel.presses)
    assert [t.pin(p).state for p in leds[:2]] == [False, True]


def test_the_pause_button_pauses_and_resumes_once_per_press(table):
    t = table()
    t.bouncy_press(27, 0)
    t.driver.drain(t.panel.presses)
    t.bouncy_press(DEFAULT_PINS.pause_button, 10_000)
    assert t.driver.drain(t.panel.presses) == [Paused(10_000)]
    t.bouncy_press(DEFAULT_PINS.pause_button, 60_000)
    assert t.driver.drain(t.panel.presses) == [Resumed(60_000)]
    assert t.clocks.remaining_ms(0, 70_000) == 10 * MINUTE_MS - 20_000


def test_the_roll_button_rolls_once_per_press(table):
    rolls = []
    t = table(roll=lambda: rolls.append(len(rolls)) or ("roll", len(rolls)))
    t.bouncy_press(DEFAULT_PINS.roll_button, 0)
    assert t.driver.drain(t.panel.presses) == [("roll", 1)]
    assert rolls == [0]


def wait_for(predicate, seconds=5.0):
    """Waits for a background beep or blink thread; the deadline only guards against a hang."""
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def test_a_flag_fall_sounds_the_buzzer_and_overtime_blinks_the_led(table):
    t = table(control=scrabble(minutes=1))
    t.bouncy_press(27, 0)
    t.driver.drain(t.panel.presses)
    buzzer = t.pin(DEFAULT_PINS.buzzer)
    assert not any(s.state for s in buzzer.states)
    assert t.driver.tick(MINUTE_MS + 500) == [FlagFell(0, MINUTE_MS)]
    assert wait_for(lambda: [s.state for s in buzzer.states][-3:] == [False, True, False])
    led = t.pin(DEFAULT_PINS.player_leds[0])
    assert wait_for(lambda: sum(s.state for s in led.states) >= 2)  # on, off, on: blinking


def test_a_loss_on_time_sounds_the_buzzer(table):
    t = table(control=sudden_death(1))
    t.bouncy_press(27, 0)
    t.driver.drain(t.panel.presses)
    assert t.driver.tick(2 * MINUTE_MS) == [FlagFell(0, MINUTE_MS), LostOnTime(0, MINUTE_MS)]
    buzzer = t.pin(DEFAULT_PINS.buzzer)
    assert wait_for(lambda: [s.state for s in buzzer.states][-2:] == [True, False])
    assert not any(t.pin(p).state for p in DEFAULT_PINS.player_leds[:2])


def test_an_invalid_move_beeps(table):
    t = table()
    t.panel.beep("invalid")
    assert wait_for(lambda: [s.state for s in t.pin(DEFAULT_PINS.buzzer).states][-2:] == [True, False])


def test_scrabble_house_four_buttons_two_clocks(table):
    t = table(players=4, boards=2)
    b = DEFAULT_PINS.player_buttons
    t.bouncy_press(b[1], 0)
    t.bouncy_press(b[3], 100)
    t.driver.drain(t.panel.presses)
    assert t.clocks.on_move() == {0, 2}
    assert [t.pin(p).state for p in DEFAULT_PINS.player_leds] == [True, False, True, False]
    t.bouncy_press(b[2], 1000)
    [sw] = t.driver.drain(t.panel.presses)
    assert (sw.side, sw.next_side) == (2, 3)


def test_the_run_loop_serves_presses_and_ticks_until_stopped(table):
    t = table(control=scrabble(minutes=1))
    seen, rounds = [], []
    stop = threading.Event()
    clock = iter(range(0, 10 * MINUTE_MS, 1000))

    def each_round():
        rounds.append(1)
        if any(isinstance(e, FlagFell) for e in seen):
            stop.set()

    t.bouncy_press(27, 0)
    t.driver.run(t.panel.presses, stop, seen.extend, now_ms=lambda: next(clock), tick_ms=1, each_round=each_round)
    assert seen[0] == Started(0, 0) and FlagFell(0, MINUTE_MS) in seen
    assert len(rounds) >= 8


def test_a_pin_in_use_is_one_line(table):
    with pytest.raises(CompanionError, match="GPIO: cannot use the buzzer on GPIO17"):
        Panel(PinMap((17, 27), (), None, None, 17), pin_factory=MockFactory())


_WAIT_UNDER_SIGNALS = """
import os, queue, signal, threading, time
from gpiozero.pins.mock import MockFactory
from companion.pi.gpio import Panel
from companion.clock.pins import PinMap

panel = Panel(PinMap((17, 27), (), None, None, None), pin_factory=MockFactory())
signal.signal(signal.SIGUSR1, lambda *_: None)
done = threading.Event()

def pester():  # signals as a stop request brings them: at any moment of the main thread's wait
    while not done.is_set():
        os.kill(os.getpid(), signal.SIGUSR1)
        time.sleep(0.0002)

threading.Thread(target=pester, daemon=True).start()
start = time.monotonic()
while time.monotonic() - start < 2:
    try:
        panel.presses.get(timeout=0.001)
    except queue.Empty:
        pass
done.set()
print("served")
"""


def test_waiting_for_a_press_ends_when_signals_interrupt_it():
    """serve_panel waits for presses on the main thread, where SIGTERM lands. A wait with a
    time-out that a signal interrupts must still end: on Python 3.11 a SimpleQueue's did not
    (it waited for ever), and `companion run` did not stop on SIGTERM."""
    import subprocess
    import sys

    try:
        proc = subprocess.run([sys.executable, "-c", _WAIT_UNDER_SIGNALS], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("a wait for a press under signals never ended")
    assert proc.returncode == 0, proc.stderr
    assert "served" in proc.stdout


# ---------------------------------------------------------------------------------------------
# No pins: the reason lgpio gave, not a guess


def no_default_factory(monkeypatch: pytest.MonkeyPatch) -> None:
    """gpiozero's own search for a pin library, from scratch, on this machine."""
    from gpiozero import Device

    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)


def test_an_lgpio_that_fails_to_start_is_named_with_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    # A Pi 5 under ProtectSystem=strict with / as the working directory: lgpio is there but
    # cannot make its notification pipe (gpiozero issue 1106). The error must say so, not
    # "install lgpio".
    import gpiozero.pins.local

    no_default_factory(monkeypatch)
    monkeypatch.setattr(gpiozero.pins.local, "get_pi_revision", lambda: 0xD04170)  # a Pi 5 (4 GB)

    class error(Exception):
        pass

    def gpiochip_open(chip: int) -> int:
        raise error("'can not open gpiochip'")

    lgpio = types.ModuleType("lgpio")
    lgpio.__dict__.update(gpiochip_open=gpiochip_open, error=error, __getattr__=lambda name: 0)
    monkeypatch.setitem(sys.modules, "lgpio", lgpio)
    with pytest.raises(CompanionError) as exc:
        Panel(DEFAULT_PINS)
    line = str(exc.value)
    assert "\n" not in line and "lgpio cannot start: 'can not open gpiochip'" in line and "LG_WD" in line


def test_no_lgpio_at_all_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    if importlib.util.find_spec("lgpio") is not None:
        pytest.skip("lgpio is installed here: the message for its absence cannot be seen")
    no_default_factory(monkeypatch)
    with pytest.raises(CompanionError) as exc:
        Panel(DEFAULT_PINS)
    assert "no pins here" in str(exc.value) and "python3-lgpio" in str(exc.value)
