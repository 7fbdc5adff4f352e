"""The table as `companion run` runs it: threads, not one caller. Buttons on gpiozero's mock pins
go through the panel to the table's own thread, which reads rendered frames with the real reader
and hands the verdict to the hub's game thread; the LEDs follow the clocks, the buzzer beeps on a
question and at a flag fall. Nothing here calls the
table directly: only pins are driven, as a player's hand would."""

from __future__ import annotations

import threading
import time
from importlib import resources

from gpiozero.pins.mock import MockFactory

from companion.pi.gpio import BEEPS, Beep, Panel
from companion.clock.pins import DEFAULT_PINS, PinMap
from companion.core.gcg import decode_gcg, parse_gcg
from companion.sim.tabledemo import Demo
from companion.table.table import serve_panel
from companion.web.hub import Hub
from companion.sim.record import names_of

WAIT_S = 120.0  # only a guard against a hang: each wait ends as soon as the state shows the move


def _wait(hub: Hub, what, until) -> object:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        got = hub.call(what)
        if until(got):
            return got
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting; last seen {got!r}")


def _press(factory: MockFactory, bcm: int) -> None:
    pin = factory.pin(bcm)
    pin.drive_low()
    time.sleep(0.02)
    pin.drive_high()


def test_buttons_on_mock_pins_make_moves_through_the_tables_thread(tmp_path):
    data = resources.files("companion").joinpath("data", "sample.gcg").read_bytes()
    record = parse_gcg(decode_gcg(data, "sample"), "sample")
    demo = Demo(record, "en", names_of(record), data_dir=tmp_path, truth=False, hands_every=0, sim_time=True)
    factory = MockFactory()
    pins = PinMap(DEFAULT_PINS.player_buttons[:2], DEFAULT_PINS.player_leds[:2], DEFAULT_PINS.pause_button,
                  None, DEFAULT_PINS.buzzer, DEFAULT_PINS.bounce_ms)
    buzzer = factory.pin(DEFAULT_PINS.buzzer)
    # Short beeps, so that one has ended before the next is listened for.
    panel = Panel(pins, pin_factory=factory, now_ms=demo.clock, beeps={k: Beep(0.01, 0.01, 1) for k in BEEPS})
    hub = Hub(demo.session, now_ms=demo.clock).start()
    stop = threading.Event()
    said: list[str] = []
    table = demo.table(hub).start(stop)
    buttons = threading.Thread(target=serve_panel, args=(panel, [table], hub, stop, said.append), daemon=True)
    buttons.start()
    button, led = pins.player_buttons, pins.player_leds
    try:
        start, first, second = demo.steps[:3]
        assert start.kind == "start" and first.kind == second.kind == "turn"
        # The press before the first move starts the first player's clock; their LED lights.
        to_move = hub.call(lambda s, now: s.state.to_move)
        _press(factory, button[(to_move + 1) % 2])
        _wait(hub, lambda s, now: sorted(s.clocks.on_move()), lambda on: on == [to_move])
        _wait(hub, lambda s, now: factory.pin(led[to_move]).state, bool)
        assert not factory.pin(led[(to_move + 1) % 2]).state
        # A button not on move is ignored: nothing changes.
        _press(factory, button[(to_move + 1) % 2])
        # Each move: the tiles laid, the player's button; the table's thread reads the board.
        for step in (first, second):
            demo.world.board = step.board
            mover = hub.call(lambda s, now: s.state.to_move)
            plays_before = hub.call(lambda s, now: len(s.history()))
            _press(factory, button[mover])
            _wait(hub, lambda s, now: len(s.history()), lambda n, b=plays_before: n > b)
            _wait(hub, lambda s, now: factory.pin(led[1 - mover]).state, bool)
            assert not factory.pin(led[mover]).state
        history = hub.call(lambda s, now: s.history())
        # A tile taken off the board: the press is a question, the buzzer beeps, the clock
        # goes back to the player.
        assert not any(st.state for st in buzzer.states)
        mover = hub.call(lambda s, now: s.state.to_move)
        vanished = next(iter(second.board.items()))[0]
        demo.world.board = second.board.without([vanished])
        _press(factory, button[mover])
        _wait(hub, lambda s, now: s.questions, bool)
        _wait(hub, lambda s, now: any(st.state for st in buzzer.states), bool)
        assert hub.call(lambda s, now: sorted(s.clocks.on_move())) == [mover]
        demo.world.board = second.board
        # The player's time runs out: the flag's beep, the LED blinks (overtime).
        time.sleep(0.3)
        beeps = len(buzzer.states)
        assert not buzzer.state
        demo.clock.set(demo.clock() + 26 * 60_000)
        _wait(hub, lambda s, now: len(buzzer.states) > beeps, bool)
        # The pause button pauses the running clock, and again resumes it.
        _press(factory, pins.pause_button)
        _wait(hub, lambda s, now: s.clocks.paused, bool)
        _press(factory, pins.pause_button)
        _wait(hub, lambda s, now: s.clocks.paused, lambda p: not p)
    finally:
        stop.set()
        table.stop()
        buttons.join(timeout=10)
        hub.stop()
        panel.close()
        demo.close()
    plays = [(h["position"], h["word"]) for h in history if h["kind"] == "play"]
    assert plays == [("8D", "HOUSE"), ("E7", "B.AT")]
    assert [v["kind"] for v in table.verdicts] == ["move", "move", "question"]
    assert sum(line.startswith("press player") for line in said) == 5
    assert [line for line in said if line.startswith("pause")] == ["pause: paused", "pause: resumed"]
