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


def stored_name(raw: str, seat: int) -> str:
    """A name as a game log written before names were checked may hold it (a NUL, a newline,
    too long), made a display name so the game resumes instead of being refused as damaged:
    control characters become spaces, cut at MAX_NAME, ``Player N`` when nothing is left."""
    from companion.core.gcg import printable_name

    return " ".join(printable_name(raw).split())[:MAX_NAME].strip() or f"Player {seat + 1}"


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
    # One of each thing the clock engine does, so the page's form reaches them all.
    "bronstein": ("15 min, Bronstein 10 s", TimeControl((Stage(15 * MINUTE_MS, bronstein_ms=10_000),))),
    "delay": ("15 min, delay 5 s", TimeControl((Stage(15 * MINUTE_MS, delay_ms=5_000),))),
    "classical": ("90 min for 40 moves, then 30 min + 30 s a move",
                  TimeControl((Stage(90 * MINUTE_MS, moves=40), Stage(30 * MINUTE_MS, increment_ms=30_000)))),
    "overtime-5": ("25 min, overtime 5 points a minute up to 5 min",
                   TimeControl((Stage(25 * MINUTE_MS),), Overtime(5, 5 * MINUTE_MS))),
    "untimed": ("no clock", None),
}


def time_control(spec: Any) -> tuple[str, TimeControl | None]:
    """A preset's name; ``{"minutes": M, "increment_seconds": S, "overtime": bool}``; or any
    control the clock engine has: ``{"stages": [{"minutes", "moves", "increment_seconds" |
    "bronstein_seconds" | "delay_seconds"}, ...], "overtime": false | {"points_per_minute",
    "cap_minutes"}}`` (the last stage without ``moves``)."""
    if isinstance(spec, str):
        if spec not in PRESETS:
            raise ActionError(f"time control {spec!r} is not one of {', '.join(PRESETS)}")
        return PRESETS[spec]
    if isinstance(spec, dict) and "stages" in spec:
        return _staged(spec)
    if not isinstance(spec, dict) or set(spec) - {"minutes", "increment_seconds", "overtime"}:
        raise ActionError("time control: a preset name, {minutes, increment_seconds, overtime} or {stages, overtime}")
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


BONUSES = {"increment_seconds": "+ {:g} s a move", "bronstein_seconds": "Bronstein {:g} s", "delay_seconds": "delay {:g} s"}


def _staged(spec: dict[str, Any]) -> tuple[str, TimeControl]:
    if set(spec) - {"stages", "overtime"}:
        raise ActionError("time control: stages and overtime")
    stages, parts = [], []
    raw = spec["stages"]
    if not isinstance(raw, list) or not 1 <= len(raw) <= 5:
        raise ActionError("time control: stages, a list of 1 to 5")
    for i, st in enumerate(raw):
        if not isinstance(st, dict) or set(st) - {"minutes", "moves", *BONUSES}:
            raise ActionError(f"time control: stages[{i}]: minutes, moves and one of {', '.join(BONUSES)}")
        minutes, moves = st.get("minutes"), st.get("moves")
        if not _number(minutes) or not 0 <= minutes <= 600 or (i == 0 and minutes <= 0):
            raise ActionError(f"time control: stages[{i}].minutes from {'above ' if i == 0 else ''}0 to 600")
        if moves is not None and (not isinstance(moves, int) or isinstance(moves, bool) or not 1 <= moves <= 1000):
            raise ActionError(f"time control: stages[{i}].moves from 1 to 1000")
        bonus = {k: st.get(k, 0) for k in BONUSES}
        if any(not _number(v) or not 0 <= v <= 600 for v in bonus.values()):
            raise ActionError(f"time control: stages[{i}]: a bonus from 0 to 600 seconds")
        try:
            stages.append(Stage(round(minutes * MINUTE_MS), moves, round(bonus["increment_seconds"] * 1000),
                                round(bonus["bronstein_seconds"] * 1000), round(bonus["delay_seconds"] * 1000)))
        except ValueError as exc:
            raise ActionError(f"time control: stages[{i}]: {exc}") from None
        given = [("" if k == "increment_seconds" else ",") + " " + BONUSES[k].format(v) for k, v in bonus.items() if v]
        parts.append(f"{minutes:g} min" + (f" for {moves} moves" if moves else "") + "".join(given))
    overtime = spec.get("overtime", False)
    ot = None
    if isinstance(overtime, dict):
        if set(overtime) - {"points_per_minute", "cap_minutes"}:
            raise ActionError("time control: overtime: points_per_minute and cap_minutes")
        points, cap = overtime.get("points_per_minute", 10), overtime.get("cap_minutes", 10)
        if not isinstance(points, int) or isinstance(points, bool) or not 0 <= points <= 1000 or not _number(cap) \
                or not 0 < cap <= 600:
            raise ActionError("time control: overtime: points_per_minute 0 to 1000, cap_minutes above 0 to 600")
        ot = Overtime(points, round(cap * MINUTE_MS))
    elif overtime is True:
        ot = Overtime()
    elif overtime is not False:
        raise ActionError("time control: overtime is false, true or {points_per_minute, cap_minutes}")
    try:
        control = TimeControl(tuple(stages), ot)
    except ValueError as exc:
        raise ActionError(f"time control: {exc}") from None
    label = ", then ".join(parts)
    if ot is not None:
        label += f", overtime {ot.points_per_minute} points a minute up to {ot.cap_ms / MINUTE_MS:g} min"
    return label, control


def control_spec(control: TimeControl) -> dict[str, Any]:
    """A control as :func:`time_control` takes it (and the game log keeps it)."""
    stages = []
    for st in control.stages:
        d: dict[str, Any] = {"minutes": st.time_ms / MINUTE_MS}
        if st.moves is not None:
            d["moves"] = st.moves
        for key, ms in (("increment_seconds", st.increment_ms), ("bronstein_seconds", st.bronstein_ms),
                        ("delay_seconds", st.delay_ms)):
            if ms:
                d[key] = ms / 1000
        stages.append(d)
    ot = control.overtime
    overtime: Any = False if ot is None else {"points_per_minute": ot.points_per_minute,
                                              "cap_minutes": ot.cap_ms / MINUTE_MS}
    return {"stages": stages, "overtime": overtime}


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

    # The turn at the table, one skeleton for both games (each a LoggedGame): a press is logged
    # and then judged from the camera's stable board; what differs is who may press
    # (``_press_refused``), what the logged press says (``_press_payload``) and how a reading is
    # judged (``_judge_reading``).

    def press(self, player: int, at_ms: int) -> str:
        """A player's button: ``judge`` (look at the board now) or ``ignored: why``."""
        refused = self._press_refused(player)
        if refused is not None:
            return f"ignored: {refused}"
        self.pending_press = {"player": player, "at": self._at(at_ms)}
        self._store_event(self.KIND, self._press_payload(player), self._latest)
        self.revision += 1
        return "judge"

    def judge(self, now_ms: int, reading: Any) -> dict[str, Any]:
        """The verdict on the pending press, from the stable board the camera gave (None: none)."""
        if self.pending_press is None:
            return {"kind": "nothing to judge"}
        at = self._at(now_ms)
        if reading is None:
            return self._question(at, [UNREADABLE])
        return self._judge_reading(at, reading)


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
