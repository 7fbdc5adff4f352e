"""Presses for a table without buttons (`companion run --mock`): keys typed at the terminal, or
buttons tapped on the page, drive gpiozero's mock pins, so each press goes the way a real one
goes (the pin, the panel, the table's thread). A folder camera (:class:`StepFolder`) shows one
photo per player press: a game photographed move by move plays by hand, a press per move.

Keys, one a line: ``1`` to ``4`` a player's clock button, ``p`` the pause button, ``r`` the roll
button (the dungeon's dice), ``q`` stop. The page's buttons (:class:`MockPresses`, served by
`companion run --mock`) press the same pins."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import IO, Any

import numpy as np

from companion.pi.sources import FolderSource

KEYS = {"p": "pause", "r": "roll"}


class StepFolder(FolderSource):
    """A folder's photos, one per player press: the camera sees the current photo until
    :meth:`advance` (the first press shows the first photo)."""

    def __init__(self, folder: Any, **kw: Any) -> None:
        super().__init__(folder, loop=False, **kw)
        self._shown: tuple[np.ndarray, Any] | None = None
        self.index = -1  # no photo before the first press: the camera sees nothing

    def advance(self) -> str:
        """The next photo (the last stays once the folder is used up); its name."""
        if self.index + 1 < len(self.paths):
            self.index += 1
            self._next = self.index
            self._shown = super()._grab()
        return self.paths[max(self.index, 0)].name

    def _grab(self) -> tuple[np.ndarray, Any] | None:
        return self._shown


def name_of(key: str, players: int) -> str | None:
    """The button a key stands for, or None."""
    key = key.strip().lower()
    if key.isdigit() and 1 <= int(key) <= players:
        return f"player{key}"
    return KEYS.get(key)


def press_pin(factory: Any, pin: int) -> None:
    """A press of the button on ``pin`` (wired to ground, pulled up): low, then high again."""
    p = factory.pin(pin)
    p.drive_low()
    time.sleep(0.02)
    p.drive_high()


class MockPresses:
    """The table's buttons pressed by name on gpiozero's mock pins, from the keyboard or from
    the page's buttons (`companion run --mock`): each press drives its pin low and high, so it
    goes the way a real one goes (the panel, the table's thread, the log, the page).
    ``before_player``: called with the button's name before a player's press (the step folder's
    advance); what it returns is said. Thread-safe: the keyboard's thread and the page's
    requests press alike, one press at a time."""

    def __init__(self, factory: Any, pins: dict[str, int], players: int,
                 before_player: Callable[[str], str | None] | None = None,
                 say: Callable[[str], None] = lambda line: None) -> None:
        self.factory, self.players, self.before_player, self.say = factory, players, before_player, say
        self.pins = {name: pin for name, pin in pins.items()
                     if name in ("pause", "roll") or (name.startswith("player") and int(name[6:]) <= players)}
        self._lock = threading.Lock()

    @property
    def buttons(self) -> list[str]:
        """The buttons there are, players first: ``player1`` ..., ``pause``, ``roll``."""
        return sorted(self.pins, key=lambda n: (not n.startswith("player"), n))

    def press(self, name: str) -> None:
        if name not in self.pins:
            raise ValueError(f"no {name!r} button here ({', '.join(self.buttons)})")
        with self._lock:
            if name.startswith("player") and self.before_player is not None:
                shown = self.before_player(name)
                if shown:
                    self.say(f"camera: {shown}")
            press_pin(self.factory, self.pins[name])


def keyboard(stream: IO[str], presses: MockPresses, stop: threading.Event,
             say: Callable[[str], None]) -> None:
    """Presses from the lines of ``stream`` until ``q`` (which stops the table), its end (which
    does not: the page and the pins go on), or ``stop``."""
    players = presses.players
    say(f"keys: 1-{players} a player's button, p pause, r roll, q stop")
    for line in stream:
        if stop.is_set():
            return
        key = line.strip().lower()
        if key == "q":
            stop.set()
            return
        name = name_of(key, players)
        if name is None or name not in presses.pins:
            if key:
                say(f"companion: {key!r} is no key here (1-{players}, p, r, q)")
            continue
        presses.press(name)
