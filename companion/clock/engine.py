"""Game clocks as a tournament clock keeps them, driven by explicit times: no wall clock inside.

Every method that changes or reads a clock takes ``now_ms``, a monotonic time in milliseconds
that the caller supplies (``time.monotonic_ns() // 1_000_000`` at the table, plain numbers in
tests); it must never go backwards. Methods return the :class:`ClockEvent` values that happened
up to ``now_ms``, in order, so that the table can append them to the game log.

Time controls (:class:`TimeControl`) are a tuple of :class:`Stage` values and an optional
:class:`Overtime`:

- sudden death: one stage, no bonus;
- Fischer increment: ``increment_ms`` is added after each move of the stage;
- Bronstein delay: after each move the time the move used is given back, up to ``bronstein_ms``;
- simple (US) delay: each turn the clock waits ``delay_ms`` before it starts counting down;
- multi-stage: a stage with ``moves`` lasts that many of the side's moves; after the last of
  them the next stage's time is added (40 moves in 90 minutes, then 30 minutes + 30 s a move);
- Scrabble overtime: time runs on below zero; the penalty is ``points_per_minute`` for every
  started minute below zero (0:00 costs nothing, -0:01 costs 10, -1:01 costs 20), and at
  ``cap_ms`` below zero the side loses on time. Without overtime the side loses at 0:00.

Decisions a rules text leaves open, made as a tournament director would expect:

- The flag falls at the exact millisecond the time reaches 0:00 (or the cap), not when it is
  next looked at: a press that comes after that moment is too late, and the events carry the
  exact time of the fall, computed from the turn's own arithmetic.
- An overtime penalty counts the deepest the side has been below zero: an increment cannot buy
  back a minute already started. A correction, being the director's word, sets it anew.
- A loss on time stops the clock (all clocks of a :class:`ClockGroup`); a director's correction
  that gives the side time again lifts the loss and leaves the clock paused.
- Before the start, a side's press starts the *next* side's clock (the opponents of those who
  play first start the clocks, as Scrabble House and chess have it). A press from a side that
  is not on move is ignored, which also makes a pressed button's bounces after its switch
  harmless; :class:`Lockout` makes repeated edges of one button within a window one press.
- While paused, presses are ignored; the turn's time so far is kept, so a simple delay is not
  given twice and a Bronstein delay gives back only time really used.
- ``moves`` counts completed moves (presses that passed the turn on) per side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import NamedTuple, Sequence, Union

MINUTE_MS = 60_000


# --- time controls ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Stage:
    """A period of play: ``time_ms`` is added when it begins; it lasts ``moves`` of the side's
    moves, or the rest of the game when ``moves`` is None. At most one bonus."""

    time_ms: int
    moves: int | None = None
    increment_ms: int = 0  # Fischer: added after each move
    bronstein_ms: int = 0  # Bronstein: the move's time given back, up to this
    delay_ms: int = 0  # simple delay: the clock waits this long each turn before counting

    def __post_init__(self) -> None:
        if self.time_ms < 0:
            raise ValueError("a stage's time cannot be negative")
        if self.moves is not None and self.moves < 1:
            raise ValueError("a stage lasts at least one move")
        bonuses = [b for b in (self.increment_ms, self.bronstein_ms, self.delay_ms) if b]
        if any(b < 0 for b in bonuses):
            raise ValueError("an increment or delay cannot be negative")
        if len(bonuses) > 1:
            raise ValueError("a stage has one of increment, Bronstein delay or simple delay")


@dataclass(frozen=True)
class Overtime:
    """Scrabble's overtime: time runs below zero at a cost, until a cap."""

    points_per_minute: int = 10
    cap_ms: int = 10 * MINUTE_MS

    def __post_init__(self) -> None:
        if self.points_per_minute < 0:
            raise ValueError("overtime points cannot be negative")
        if self.cap_ms <= 0:
            raise ValueError("the overtime cap must be above zero")


@dataclass(frozen=True)
class TimeControl:
    stages: tuple[Stage, ...]
    overtime: Overtime | None = None

    def __post_init__(self) -> None:
        if not self.stages:
            raise ValueError("a time control needs a stage")
        if self.stages[-1].moves is not None:
            raise ValueError("the last stage lasts the rest of the game (no moves)")
        if any(s.moves is None for s in self.stages[:-1]):
            raise ValueError("every stage but the last lasts a number of moves")
        if self.stages[0].time_ms <= 0:
            raise ValueError("the first stage needs time")


def sudden_death(minutes: float) -> TimeControl:
    return TimeControl((Stage(round(minutes * MINUTE_MS)),))


def scrabble(minutes: float = 25, points_per_minute: int = 10, cap_minutes: float = 10) -> TimeControl:
    """The tournament Scrabble clock: sudden death with overtime penalties."""
    return TimeControl(
        (Stage(round(minutes * MINUTE_MS)),),
        Overtime(points_per_minute, round(cap_minutes * MINUTE_MS)),
    )


def overtime_penalty(overtime_ms: int, points_per_minute: int) -> int:
    """Points lost for ``overtime_ms`` below zero: every started minute costs the same."""
    if overtime_ms <= 0:
        return 0
    return points_per_minute * math.ceil(overtime_ms / MINUTE_MS)


def format_ms(ms: int) -> str:
    """A clock face: 25:00, 0:07, -1:01, 1:30:00 past an hour; whole seconds towards zero, and
    any time below zero shows its sign (-0:00 is already overtime)."""
    sign = "-" if ms < 0 else ""
    s = abs(ms) // 1000
    h, m, sec = s // 3600, s // 60 % 60, s % 60
    return f"{sign}{h}:{m:02d}:{sec:02d}" if h else f"{sign}{m}:{sec:02d}"


# --- events ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Started:
    side: int  # the side whose clock now runs
    at_ms: int


@dataclass(frozen=True)
class Switched:
    """``side`` finished its move ``move``; ``next_side`` is on move."""

    side: int
    next_side: int
    at_ms: int
    move: int  # the side's completed moves, this one included
    used_ms: int  # the move's time on the clock (pauses excluded)
    remaining_ms: int  # the side's time after its bonus and any new stage
    stage: int  # the side's stage from now on (0-based)


@dataclass(frozen=True)
class Ignored:
    side: int
    at_ms: int
    reason: str


@dataclass(frozen=True)
class Paused:
    at_ms: int


@dataclass(frozen=True)
class Resumed:
    at_ms: int


@dataclass(frozen=True)
class FlagFell:
    """The side's time reached 0:00. With overtime the game goes on at a cost."""

    side: int
    at_ms: int


@dataclass(frozen=True)
class LostOnTime:
    side: int
    at_ms: int


@dataclass(frozen=True)
class Corrected:
    """A director's correction: who made it and why are part of the record."""

    side: int
    at_ms: int
    who: str
    why: str
    remaining_before_ms: int
    remaining_ms: int
    moves_before: int
    moves: int


@dataclass(frozen=True)
class Lap:
    """The stopwatch's press: a move finished after ``split_ms`` (``total_ms`` in all)."""

    side: int
    at_ms: int
    move: int
    split_ms: int
    total_ms: int


ClockEvent = Union[Started, Switched, Ignored, Paused, Resumed, FlagFell, LostOnTime, Corrected, Lap]


# --- the clock ---------------------------------------------------------------------------------


@dataclass
class _Side:
    remaining_ms: int  # for the side on move: at the start of its turn (bonus applied at the end)
    moves: int = 0
    stage: int = 0
    flagged: bool = False
    deepest_ms: int = 0  # the most time below zero so far


class _Now:
    """Guards the one rule of injected time: it never runs backwards."""

    def __init__(self) -> None:
        self.last: int | None = None

    def check(self, now_ms: int) -> None:
        if self.last is not None and now_ms < self.last:
            raise ValueError(f"time ran backwards: {now_ms} ms after {self.last} ms")
        self.last = now_ms


class Clock:
    """A countdown clock of ``sides`` sides (one, two, or as many as the game has players)."""

    def __init__(self, control: TimeControl, sides: int = 2) -> None:
        if sides < 1:
            raise ValueError("a clock has at least one side")
        self.control = control
        self.sides = sides
        self._s = [_Side(control.stages[0].time_ms) for _ in range(sides)]
        self.on_move: int | None = None  # None until started
        self.paused = False
        self.over = False
        self.loser: int | None = None
        self.corrections: list[Corrected] = []
        self._turn_used = 0  # the turn's time before the running segment
        self._segment_start: int | None = None  # when the running segment began
        self._now = _Now()

    # -- reading --

    @property
    def running(self) -> bool:
        return self._segment_start is not None

    def moves(self, side: int) -> int:
        return self._s[side].moves

    def stage(self, side: int) -> int:
        return self._s[side].stage

    def remaining_ms(self, side: int, now_ms: int) -> int:
        """The side's time on the clock at ``now_ms`` (negative in overtime)."""
        if side == self.on_move and not self.over:
            return self._s[side].remaining_ms - self._charged(self._used(now_ms))
        return self._s[side].remaining_ms

    def overtime_ms(self, side: int, now_ms: int) -> int:
        """The most time the side has been below zero (0 without overtime)."""
        if self.control.overtime is None:
            return 0
        return max(self._s[side].deepest_ms, -self.remaining_ms(side, now_ms))

    def penalty(self, side: int, now_ms: int) -> int:
        ot = self.control.overtime
        return 0 if ot is None else overtime_penalty(self.overtime_ms(side, now_ms), ot.points_per_minute)

    def flagged(self, side: int, now_ms: int) -> bool:
        self.poll(now_ms)
        return self._s[side].flagged

    # -- acting --

    def poll(self, now_ms: int) -> list[ClockEvent]:
        """Events due by ``now_ms`` without anyone pressing: a flag falling, a loss on time."""
        self._now.check(now_ms)
        side = self.on_move
        if side is None or self.over or not self.running:
            return []
        events: list[ClockEvent] = []
        st = self._s[side]
        if not st.flagged and self.remaining_ms(side, now_ms) <= 0:
            st.flagged = True
            events.append(FlagFell(side, self._when_remaining_is(0, now_ms)))
        ot = self.control.overtime
        limit = 0 if ot is None else -ot.cap_ms
        if self.remaining_ms(side, now_ms) <= limit:
            at = self._when_remaining_is(limit, now_ms)
            # The clock stops at the limit: the face shows it, the penalty counts to it.
            self._bank(at)
            st.remaining_ms = limit
            st.deepest_ms = max(st.deepest_ms, -limit)
            self._turn_used = 0
            self.over, self.loser = True, side
            events.append(LostOnTime(side, at))
        return events

    def press(self, side: int, now_ms: int) -> list[ClockEvent]:
        """``side`` says its turn is over (or, before the start, starts the next side's clock)."""
        self._check_side(side)
        events = self.poll(now_ms)
        if self.over:
            return [*events, Ignored(side, now_ms, "the game is over")]
        if self.on_move is None:
            first = (side + 1) % self.sides
            self.on_move, self._segment_start, self._turn_used = first, now_ms, 0
            return [*events, Started(first, now_ms)]
        if self.paused:
            return [*events, Ignored(side, now_ms, "the clock is paused")]
        if side != self.on_move:
            return [*events, Ignored(side, now_ms, "not on move")]
        st = self._s[side]
        used = self._used(now_ms)
        stage = self.control.stages[st.stage]
        st.remaining_ms -= self._charged(used)
        st.deepest_ms = max(st.deepest_ms, -st.remaining_ms) if self.control.overtime else 0
        st.remaining_ms += stage.increment_ms + min(used, stage.bronstein_ms)
        st.moves += 1
        if stage.moves is not None and st.moves >= self._stage_end(st.stage):
            st.stage += 1
            st.remaining_ms += self.control.stages[st.stage].time_ms
        nxt = (side + 1) % self.sides
        self.on_move, self._segment_start, self._turn_used = nxt, now_ms, 0
        return [*events, Switched(side, nxt, now_ms, st.moves, used, st.remaining_ms, st.stage)]

    def pause(self, now_ms: int) -> list[ClockEvent]:
        events = self.poll(now_ms)
        if self.on_move is None or self.over or self.paused:
            return events
        self._bank(now_ms)
        self.paused = True
        return [*events, Paused(now_ms)]

    def resume(self, now_ms: int) -> list[ClockEvent]:
        self._now.check(now_ms)
        if not self.paused or self.over:
            return []
        self.paused = False
        self._segment_start = now_ms
        return [Resumed(now_ms)]

    def correct(
        self,
        side: int,
        now_ms: int,
        who: str,
        why: str,
        remaining_ms: int | None = None,
        moves: int | None = None,
    ) -> list[ClockEvent]:
        """A director sets a side's time and/or move count; the clock keeps the record."""
        self._check_side(side)
        if not who.strip() or not why.strip():
            raise ValueError("a correction names who made it and why")
        if moves is not None and moves < 0:
            raise ValueError("a move count cannot be negative")
        events = self.poll(now_ms)
        st = self._s[side]
        before = self.remaining_ms(side, now_ms)
        moves_before = st.moves
        if remaining_ms is not None:
            # Only the side's time moves: the turn's own arithmetic (its delay, its Bronstein
            # give-back) goes on as before.
            st.remaining_ms += remaining_ms - before
            st.deepest_ms = max(0, -remaining_ms) if self.control.overtime else 0
            st.flagged = remaining_ms <= 0
            ot = self.control.overtime
            if self.over and self.loser == side and remaining_ms > (0 if ot is None else -ot.cap_ms):
                self.over, self.loser, self.paused = False, None, True
        if moves is not None:
            st.moves = moves
            st.stage = self._stage_for(moves)
        c = Corrected(side, now_ms, who, why, before, self.remaining_ms(side, now_ms), moves_before, st.moves)
        self.corrections.append(c)
        return [*events, c]

    # -- arithmetic --

    def _check_side(self, side: int) -> None:
        if not 0 <= side < self.sides:
            raise ValueError(f"no side {side} on a clock of {self.sides}")

    def _used(self, now_ms: int) -> int:
        return self._turn_used + (now_ms - self._segment_start if self._segment_start is not None else 0)

    def _bank(self, now_ms: int) -> None:
        self._turn_used = self._used(now_ms)
        self._segment_start = None

    def _delay(self) -> int:
        assert self.on_move is not None
        return self.control.stages[self._s[self.on_move].stage].delay_ms

    def _charged(self, used: int) -> int:
        return max(0, used - self._delay())

    def _when_remaining_is(self, target: int, now_ms: int) -> int:
        """The moment in the running segment when the side on move showed ``target``."""
        assert self.on_move is not None
        used_then = self._s[self.on_move].remaining_ms - target + self._delay()
        return now_ms - (self._used(now_ms) - used_then)

    def _stage_end(self, stage: int) -> int:
        """The side's move count at which ``stage`` ends."""
        return sum(s.moves or 0 for s in self.control.stages[: stage + 1])

    def _stage_for(self, moves: int) -> int:
        stage = 0
        while self.control.stages[stage].moves is not None and moves >= self._stage_end(stage):
            stage += 1
        return stage


class Stopwatch:
    """The solo dungeon's clock: it counts up, each press ends a move (a lap)."""

    sides = 1

    def __init__(self) -> None:
        self.on_move: int | None = None
        self.paused = False
        self.over = False
        self._moves = 0
        self._banked = 0  # time before the running segment
        self._segment_start: int | None = None
        self._lap_start = 0  # total time at which the current move began
        self._now = _Now()

    def moves(self, side: int = 0) -> int:
        return self._moves

    def elapsed_ms(self, now_ms: int) -> int:
        return self._banked + (now_ms - self._segment_start if self._segment_start is not None else 0)

    def remaining_ms(self, side: int, now_ms: int) -> int:
        """The face a display shows: a stopwatch's is the time so far."""
        return self.elapsed_ms(now_ms)

    def overtime_ms(self, side: int, now_ms: int) -> int:
        return 0

    def penalty(self, side: int, now_ms: int) -> int:
        return 0

    def poll(self, now_ms: int) -> list[ClockEvent]:
        self._now.check(now_ms)
        return []

    def press(self, side: int, now_ms: int) -> list[ClockEvent]:
        self._now.check(now_ms)
        if side != 0:
            raise ValueError("a stopwatch has one side")
        if self.on_move is None:
            self.on_move, self._segment_start = 0, now_ms
            return [Started(0, now_ms)]
        if self.paused:
            return [Ignored(0, now_ms, "the clock is paused")]
        total = self.elapsed_ms(now_ms)
        self._moves += 1
        lap = Lap(0, now_ms, self._moves, total - self._lap_start, total)
        self._lap_start = total
        return [lap]

    def pause(self, now_ms: int) -> list[ClockEvent]:
        self._now.check(now_ms)
        if self.on_move is None or self.paused:
            return []
        self._banked = self.elapsed_ms(now_ms)
        self._segment_start, self.paused = None, True
        return [Paused(now_ms)]

    def resume(self, now_ms: int) -> list[ClockEvent]:
        self._now.check(now_ms)
        if not self.paused:
            return []
        self._segment_start, self.paused = now_ms, False
        return [Resumed(now_ms)]


Timer = Union[Clock, Stopwatch]


# --- several clocks at one table ---------------------------------------------------------------


class Seat(NamedTuple):
    clock: int
    side: int


class ClockGroup:
    """The clocks of one table, their sides numbered as the table's players.

    Classic Scrabble and chess: one clock, a side per player. Scrabble House: two clocks of two
    sides, players 0 and 1 at the first board, 2 and 3 at the second. The solo dungeon: one
    stopwatch. Events come out with ``side`` (and ``next_side``) as player numbers. The pause
    button pauses every clock; a loss on time at any clock stops them all.
    """

    def __init__(self, clocks: Sequence[Timer]) -> None:
        if not clocks:
            raise ValueError("a table has at least one clock")
        self.clocks = list(clocks)
        self.seats = [Seat(c, s) for c, clock in enumerate(self.clocks) for s in range(clock.sides)]
        self._offsets = [sum(c.sides for c in self.clocks[:i]) for i in range(len(self.clocks))]

    @classmethod
    def of(cls, control: TimeControl | None, players: int, boards: int = 1) -> "ClockGroup":
        """``boards`` clocks sharing ``players`` evenly; ``control`` None makes a stopwatch."""
        if control is None:
            if players != 1 or boards != 1:
                raise ValueError("a stopwatch is for one player at one board")
            return cls([Stopwatch()])
        if boards < 1 or players % boards:
            raise ValueError(f"{players} players cannot share {boards} boards evenly")
        return cls([Clock(control, players // boards) for _ in range(boards)])

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def over(self) -> bool:
        return any(c.over for c in self.clocks)

    @property
    def paused(self) -> bool:
        started = [c for c in self.clocks if c.on_move is not None and not c.over]
        return bool(started) and all(c.paused for c in started)

    def on_move(self) -> set[int]:
        """The players whose clocks run (or stand paused on their turn)."""
        return {
            self._offsets[i] + c.on_move for i, c in enumerate(self.clocks) if c.on_move is not None and not c.over
        }

    def remaining_ms(self, player: int, now_ms: int) -> int:
        c, s = self.seats[player]
        return self.clocks[c].remaining_ms(s, now_ms)

    def overtime_ms(self, player: int, now_ms: int) -> int:
        c, s = self.seats[player]
        return self.clocks[c].overtime_ms(s, now_ms)

    def penalty(self, player: int, now_ms: int) -> int:
        c, s = self.seats[player]
        return self.clocks[c].penalty(s, now_ms)

    def press(self, player: int, now_ms: int) -> list[ClockEvent]:
        if not 0 <= player < self.players:
            raise ValueError(f"no player {player} at a table of {self.players}")
        events = self.poll(now_ms)
        if self.over:
            return [*events, Ignored(player, now_ms, "the game is over")]
        c, s = self.seats[player]
        return [*events, *self._number(c, self.clocks[c].press(s, now_ms))] + self._stop_if_lost(now_ms)

    def toggle_pause(self, now_ms: int) -> list[ClockEvent]:
        """The pause button: pause every running clock, or resume them all."""
        events = self.poll(now_ms)
        if self.over:
            return events
        running = [c for c in self.clocks if c.on_move is not None and not c.over and not c.paused]
        if running:
            for c in running:
                c.pause(now_ms)
            return [*events, Paused(now_ms)]
        resumed = False
        for c in self.clocks:
            resumed = bool(c.resume(now_ms)) or resumed
        return [*events, Resumed(now_ms)] if resumed else events

    def poll(self, now_ms: int) -> list[ClockEvent]:
        events: list[ClockEvent] = []
        for i, c in enumerate(self.clocks):
            events += self._number(i, c.poll(now_ms))
        return events + self._stop_if_lost(now_ms)

    def correct(self, player: int, now_ms: int, who: str, why: str, **change: int | None) -> list[ClockEvent]:
        c, s = self.seats[player]
        clock = self.clocks[c]
        if not isinstance(clock, Clock):
            raise ValueError("a stopwatch is not corrected")
        return self._number(c, clock.correct(s, now_ms, who, why, **change))

    def _stop_if_lost(self, now_ms: int) -> list[ClockEvent]:
        if not self.over:
            return []
        for c in self.clocks:
            if not c.over and c.on_move is not None and not c.paused:
                c.pause(now_ms)
        return []

    def _number(self, clock: int, events: list[ClockEvent]) -> list[ClockEvent]:
        off = self._offsets[clock]
        if not off:
            return events
        out: list[ClockEvent] = []
        for e in events:
            if hasattr(e, "side"):
                e = replace(e, side=e.side + off)  # type: ignore[type-var]
            if isinstance(e, Switched):
                e = replace(e, next_side=e.next_side + off)
            out.append(e)
        return out


# --- buttons -----------------------------------------------------------------------------------


@dataclass
class Lockout:
    """One press per button per ``window_ms``: a contact's bounces (edges a millisecond or two
    apart) and a nervous double press are one press. The window runs from the button's last
    edge, so a contact that chatters on stays one press until it has been quiet for the window.
    The times are those the presses were stamped with, so the outcome never depends on how
    fast they are handled."""

    window_ms: int = 150
    _last: dict[str, int] = field(default_factory=dict)

    def accept(self, button: str, at_ms: int) -> bool:
        last = self._last.get(button)
        self._last[button] = at_ms
        return last is None or at_ms - last >= self.window_ms
