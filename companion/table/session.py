"""What every game at the table shares: the protocol the page drives, the error an action is
refused with, the time controls, and the game log's side of a session (:class:`LoggedGame`).

A :class:`GameSession` is driven by one thread (the hub's game thread): every method takes the
table's monotonic time ``now_ms`` and either changes the session (its ``revision`` goes up)
or raises :class:`ActionError` and changes nothing. Each game's session is its own module
(:mod:`companion.table.classic`, :mod:`companion.table.house`, :mod:`companion.table.dungeon`),
registered in :mod:`companion.table.games`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from companion.clock.engine import MINUTE_MS, Overtime, Stage, TimeControl
from companion.core.errors import CompanionError
from companion.table.store import GameStore, StoredEvent

# Tile sets that have a word list to judge by.
TILESETS = ("en", "de")
MAX_NAME = 24
FEED_KEPT = 200  # verdict lines kept for the page (the log keeps everything)


def display_name(raw: str) -> str | None:
    """``raw`` as a display name (runs of white space made one space), or None when it cannot
    be one: empty, longer than MAX_NAME, or holding a control character (a NUL in a name made
    the game's GCG unreadable, by our own rescore too)."""
    name = " ".join(raw.split())
    return name if 0 < len(name) <= MAX_NAME and name.isprintable() else None


class ActionError(Exception):
    """An action the session refuses: nothing changed. ``status`` is the HTTP status it means."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


# --- time controls ---------------------------------------------------------------------------

PRESETS: dict[str, tuple[str, TimeControl | None]] = {
    "tournament": ("25 min, overtime 10 points a minute", TimeControl((Stage(25 * MINUTE_MS),), Overtime())),
    "club": ("30 min, overtime 10 points a minute", TimeControl((Stage(30 * MINUTE_MS),), Overtime())),
    "rapid": ("10 min + 5 s a move", TimeControl((Stage(10 * MINUTE_MS, increment_ms=5000),))),
    "blitz": ("5 min sudden death", TimeControl((Stage(5 * MINUTE_MS),))),
    "untimed": ("no clock", None),
}


def time_control(spec: Any) -> tuple[str, TimeControl | None]:
    """A preset's name, or ``{"minutes": M, "increment_seconds": S, "overtime": bool}``."""
    if isinstance(spec, str):
        if spec not in PRESETS:
            raise ActionError(f"time control {spec!r} is not one of {', '.join(PRESETS)}")
        return PRESETS[spec]
    if not isinstance(spec, dict) or set(spec) - {"minutes", "increment_seconds", "overtime"}:
        raise ActionError("time control: a preset name or {minutes, increment_seconds, overtime}")
    minutes = spec.get("minutes")
    inc = spec.get("increment_seconds", 0)
    overtime = spec.get("overtime", False)
    if not _number(minutes) or not 1 <= minutes <= 180:
        raise ActionError("time control: minutes from 1 to 180")
    if not _number(inc) or not 0 <= inc <= 60:
        raise ActionError("time control: increment_seconds from 0 to 60")
    if not isinstance(overtime, bool):
        raise ActionError("time control: overtime is true or false")
    if inc and overtime:
        raise ActionError("time control: overtime or an increment, not both")
    stage = Stage(round(minutes * MINUTE_MS), increment_ms=round(inc * 1000))
    label = f"{minutes:g} min" + (f" + {inc:g} s a move" if inc else "") + (", overtime 10 points a minute" if overtime else "")
    return label, TimeControl((stage,), Overtime() if overtime else None)


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v


# --- the protocol ----------------------------------------------------------------------------


class GameSession(Protocol):
    """What the web layer needs from a game at the table."""

    revision: int  # goes up with every change; the hub turns it into the page's version

    def tick(self, now_ms: int) -> None: ...  # clocks: flags falling, losses on time
    def gcg(self) -> str: ...
    def new_game(self, now_ms: int, **settings: Any) -> None: ...
    def pause(self, now_ms: int) -> None: ...
    def resume(self, now_ms: int) -> None: ...
    def correct(self, now_ms: int, square: str, letter: str | None, blank: bool = False) -> None: ...
    def rule_challenge(self, now_ms: int, decision: str, by: int | None = None) -> None: ...
    def undo(self, now_ms: int) -> None: ...


class CameraOnly:
    """A game whose board only the camera says and that has no clock (the solo dungeon, the
    stacking game): the page's pause, resume and square corrections are refused."""

    def pause(self, now_ms: int) -> None:
        raise ActionError("this game has no clock", 409)

    def resume(self, now_ms: int) -> None:
        raise ActionError("this game has no clock", 409)

    def correct(self, now_ms: int, square: str, letter: str | None, blank: bool = False) -> None:
        raise ActionError("set the tile right on the board and press again: the camera reads it", 409)


UNREADABLE = "the board could not be read: is a hand over it? Clear the board's view and press again"


# --- the session with its log on disk -----------------------------------------------------------


class LoggedGame:
    """What every game at the table shares with the game log: each change appended before it is
    published (with the caller's ``ref``, the demo's step, so that a restart knows how far it
    got), and the log folded back by the game's own ``_replay_event``."""

    store: GameStore | None
    game_id: str
    ref: int | None
    last_ref: int
    _replaying: bool
    # What the table is built for: how many boards (one camera and one loop each), at which of
    # them a player sits, their grid, the tiles on them, and how many players press buttons.
    boards = 1
    grid = 15

    def board_of(self, player: int) -> int:
        return 0

    @property
    def tileset_name(self) -> str:
        raise NotImplementedError

    @property
    def seats(self) -> int:
        raise NotImplementedError

    def _store_event(self, kind: str, payload: dict[str, Any], at_ms: int) -> None:
        if self._replaying or self.store is None:
            return
        if self.ref is not None:
            payload = {**payload, "ref": self.ref}
            self.last_ref = max(self.last_ref, self.ref)
        try:
            seq = self.store.append(self.game_id, kind, payload, at_ms)
        except CompanionError as exc:
            self._refold()
            raise ActionError(f"not saved: {exc}", 503) from None
        # Only once the event is on disk: whoever follows the table (the venue's publisher)
        # hears of it, with the session as it now stands (the change is applied before it is
        # logged). A listener never fails the game: it keeps its own troubles.
        for listener in self.store.listeners:
            listener(self, StoredEvent(seq, self.game_id, kind, payload, int(self.store.wall()), at_ms))

    def _refold(self) -> None:
        """After a write that failed (a full disk), the game as its log has it: the change the
        write was for (already made in memory) is dropped, so that what the page shows and what
        comes next never part from the log. Once there is room again the game goes on from it."""
        try:
            fresh = type(self).restore(self.store, lexicon_for=getattr(self, "_lexicon_for", None))  # type: ignore
        except Exception:  # noqa: BLE001 - the failed write's own error is the one to report
            return
        if fresh is not None and fresh.game_id == self.game_id:
            revision = getattr(self, "revision", 0)
            self.__dict__.update(fresh.__dict__)
            if hasattr(self, "revision"):
                self.revision = revision + 1  # the page shows the game as it is now

    def _replay_event(self, e: StoredEvent) -> None:
        raise NotImplementedError

    def _replay_events(self, events: Sequence[StoredEvent]) -> None:
        """The events after the game's start, replayed; then the game is live again."""
        for e in events:
            self._replay_event(e)
            if "ref" in e.payload:
                self.last_ref = max(self.last_ref, int(e.payload["ref"]))
        self._replaying = False
