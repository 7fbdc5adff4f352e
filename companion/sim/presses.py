"""Presses for a table without buttons (`companion run --mock`): keys typed at the terminal drive
gpiozero's mock pins, so each press goes the way a real one goes (the pin, the panel, the
table's thread). A folder camera (:class:`StepFolder`) shows one photo per player press: a game
photographed move by move plays by hand, a key per move.

Keys, one a line: ``1`` to ``4`` a player's clock button, ``p`` the pause button, ``r`` the roll
button (the dungeon's dice), ``q`` stop."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import IO, Any

import numpy as np

from companion.vision.sources import FolderSource

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


def keyboard(stream: IO[str], factory: Any, pins: dict[str, int], players: int, stop: threading.Event,
             say: Callable[[str], None], before_player: Callable[[], str | None] | None = None) -> None:
    """Presses from the lines of ``stream`` until ``q`` (which stops the table), its end (which
    does not: the page and the pins go on), or ``stop``. ``before_player``: called before a
    player's press (the step folder's advance); what it returns is said."""
    say(f"keys: 1-{players} a player's button, p pause, r roll, q stop")
    for line in stream:
        if stop.is_set():
            return
        key = line.strip().lower()
        if key == "q":
            stop.set()
            return
        name = name_of(key, players)
        if name is None or name not in pins:
            if key:
                say(f"companion: {key!r} is no key here (1-{players}, p, r, q)")
            continue
        if name.startswith("player") and before_player is not None:
            shown = before_player()
            if shown:
                say(f"camera: {shown}")
        press_pin(factory, pins[name])
