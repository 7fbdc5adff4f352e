"""A whole table for the browser's game tests: the game log on disk, the hub and the page
served on a loopback port, the table's loop on its own thread (one a board: Scrabble House has
two, each with its camera), and the buttons on gpiozero's mock pins read by the panel loop, as
`companion run --mock` wires them, the page's buttons included (they press the same pins). The
camera gives the board's truth as the players leave it (squares in ``unsure`` read without
confidence: the camera question), or another camera and its analyser (rendered photos read by
the real reader); time is simulated (it moves when the test says)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, Callable

from gpiozero.pins.mock import MockFactory

from companion.pi.gpio import BEEPS, Beep, Panel
from companion.clock.pins import DEFAULT_PINS, PinMap
from companion.sim.presses import MockPresses, press_pin
from companion.sim.truth import SimClock, TruthCamera, truth_analyser
from companion.table.house import BoardHub
from companion.table.store import open_store
from companion.table.table import Table, serve_panel
from companion.web.app import create_app
from companion.web.auth import Auth
from companion.web.hub import Hub
from companion.web.server import ServerThread
from tests.web.conftest import PIN

WAIT_S = 20.0  # a guard against a hang: each wait ends as soon as the state shows the change


class SimTable:
    def __init__(self, tmp: Path, start: Callable[[Any, int], Any], players: int = 2, camera: Any = None,
                 analyser: Callable[[Any], Any] = truth_analyser, table_clock: Callable[[], float] | None = None,
                 cameras: list[Any] | None = None) -> None:
        self.clock = SimClock(1_000)
        self.store = open_store(tmp)
        self.session = start(self.store, self.clock())
        boards = getattr(self.session, "boards", 1)
        grid = getattr(self.session, "grid", 15)
        self.cameras = cameras or [camera if camera is not None else TruthCamera(grid)] + \
            [TruthCamera(grid) for _ in range(boards - 1)]
        self.camera = self.cameras[0]
        self.hub = Hub(self.session, now_ms=self.clock).start()
        self.factory = MockFactory()
        self.pins = PinMap(DEFAULT_PINS.player_buttons[:players], DEFAULT_PINS.player_leds[:players],
                           DEFAULT_PINS.pause_button, DEFAULT_PINS.roll_button, DEFAULT_PINS.buzzer, 0)
        self.panel = Panel(self.pins, pin_factory=self.factory, now_ms=self.clock,
                           beeps={k: Beep(0.01, 0.01, 1) for k in BEEPS})
        self.said: list[str] = []
        self.presses = MockPresses(self.factory, self.pins.named(), players, say=self.said.append)
        self.app = create_app(self.hub, auth=Auth(PIN), presses=self.presses)
        self.server = ServerThread(self.app, self.hub).start()
        self.url = self.server.url + "/"
        self.stop = threading.Event()
        self.traced: list[str] = []
        # ``analyser``: the real reader for rendered photos; ``table_clock``: the camera's own time
        # (a burst's bound in frames, not in a loaded machine's seconds).
        timing = {} if table_clock is None else {"clock": table_clock}
        hubs = [BoardHub(self.hub, i) for i in range(boards)] if boards > 1 else [self.hub]
        self.tables = [Table(hub, cam, analyser, trace=self.traced.append, **timing).start(self.stop)
                       for hub, cam in zip(hubs, self.cameras)]
        self.table = self.tables[0]
        table_of = self.session.board_of if boards > 1 else (lambda player: 0)
        self._buttons = threading.Thread(target=serve_panel, args=(self.panel, self.tables, self.hub, self.stop,
                                                                   self.said.append, table_of), daemon=True)
        self._buttons.start()

    def call(self, fn: Callable[[Any, int], Any]) -> Any:
        return self.hub.call(fn)

    def wait(self, what: Callable[[Any, int], Any], until: Callable[[Any], bool] = bool) -> Any:
        deadline = time.monotonic() + WAIT_S
        got = None
        while time.monotonic() < deadline:
            got = self.hub.call(what)
            if until(got):
                return got
            time.sleep(0.02)
        raise AssertionError(f"gave up waiting; last seen {got!r}")

    def press(self, button: int | str, think_ms: int = 0, tap: Callable[[str], None] | None = None) -> None:
        """A press of player ``button``'s clock button (0-based), or a named one (pause, roll),
        after ``think_ms`` of simulated time; returns once the table has dealt with it. ``tap``:
        the press made by that (a tap on the page's button of that name), not by a hand on the pin."""
        self.clock.set(self.clock() + think_ms)
        name = f"player{button + 1}" if isinstance(button, int) else button
        said, traced = len(self.said), len(self.traced)
        if tap is not None:
            tap(name)
        else:
            press_pin(self.factory, self.pins.named()[name])
        if not name.startswith("player"):
            self._until(lambda: len(self.said) > said)
            return
        # The table's thread takes the press, then judges it (a press it ignores ends there).
        self._until(lambda: any(t.startswith(("press ", "press not judged")) for t in self.traced[traced:]))
        took = next(t for t in self.traced[traced:] if t.startswith(("press ", "press not judged")))
        if took.endswith(" judge"):
            self._until(lambda: any(t.startswith("judged ") for t in self.traced[traced:]))

    def _until(self, done: Callable[[], bool]) -> None:
        deadline = time.monotonic() + WAIT_S
        while not done():
            if time.monotonic() > deadline:
                raise AssertionError(f"gave up waiting: said {self.said[-3:]}, traced {self.traced[-3:]}")
            time.sleep(0.01)

    def close(self) -> None:
        self.stop.set()
        for table in self.tables:
            table.stop()
        self._buttons.join(timeout=5)
        self.panel.close()
        self.server.stop()
        self.store.close()
