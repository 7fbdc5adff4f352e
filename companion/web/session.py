"""The game the live page shows, behind a small protocol the table (issue 6) will implement.

A :class:`GameSession` is driven by one thread (the hub's game thread): every method takes the
table's monotonic time ``now_ms`` and either changes the session (its ``revision`` goes up)
or raises :class:`ActionError` and changes nothing. :class:`ClassicSession` is the classic
game (:mod:`companion.rules.classic`) with its clocks (:mod:`companion.clock.engine`).

Its log is the truth, as DESIGN.md asks: an append-only list of :class:`LogEntry` (game
started, actions, corrections of a misread square, the director's challenge rulings, undo).
The state is the fold of the entries not undone; an undo is a new entry that marks the latest
effective one undone, never an erase. The referee's verdicts as the players saw them (the
feed) are append-only too: an undo adds a line, it does not rewrite what was said.

The clocks are not folded: time spent is spent, as at a real table. After every entry the
clock is brought to the player the rules say is on move.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Container, Protocol, Sequence

from companion.clock.engine import (
    ClockGroup,
    FlagFell,
    LostOnTime,
    MINUTE_MS,
    Overtime,
    Stage,
    TimeControl,
)
from companion.core.board import Board, Coord, Direction, Tile
from companion.core.gcg import (
    EndRackPoints,
    Exchange as GcgExchange,
    GameRecord,
    LastRackPenalty,
    Pass as GcgPass,
    Play as GcgPlay,
    Player as GcgPlayer,
    TimePenalty,
    Withdrawn as GcgWithdrawn,
    ChallengeBonus,
    write_gcg,
)
from companion.core.move import format_square, notation_of, parse_position, placement_from_notation
from companion.core.words import placement_direction
from companion.errors import CompanionError
from companion.rules import classic
from companion.rules.classic import ChallengeMode, ClassicOptions, ClassicState, Verdict, VerdictKind

# Every game of rules/README.md, so the page can offer them; only those with rules code can start.
GAMES: tuple[tuple[str, str, bool], ...] = (
    ("classic", "Classic Scrabble (2-4 players)", True),
    ("super3", "Scrabble III (extended board)", False),
    ("stacking", "The stacking game", False),
    ("house", "Scrabble House (two boards, four players)", False),
    ("dungeon", "The solo dungeon", True),
)
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

    def document(self, now_ms: int) -> dict[str, Any]: ...  # the page's JSON (snapshot.py)
    def tick(self, now_ms: int) -> None: ...  # clocks: flags falling, losses on time
    def gcg(self) -> str: ...
    def new_game(self, now_ms: int, **settings: Any) -> None: ...
    def pause(self, now_ms: int) -> None: ...
    def resume(self, now_ms: int) -> None: ...
    def correct(self, now_ms: int, square: str, letter: str | None, blank: bool = False) -> None: ...
    def rule_challenge(self, now_ms: int, decision: str, by: int | None = None) -> None: ...
    def undo(self, now_ms: int) -> None: ...


# --- the log ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Started:
    names: tuple[str, ...]
    options: ClassicOptions
    seed: int
    first: int
    control: str  # the time control's label


@dataclass(frozen=True)
class Acted:
    action: classic.Action
    ruling: str | None = None  # a director's challenge ruling: "valid" or "phony"


@dataclass(frozen=True)
class Corrected:
    square: Coord
    tile: Tile | None  # None: the square is empty


@dataclass(frozen=True)
class Undone:
    target: int  # seq of the entry undone


@dataclass(frozen=True)
class LogEntry:
    seq: int
    at_ms: int
    by: str  # "table" or "admin"
    event: Started | Acted | Corrected | Undone


class _Ruling:
    """The lexicon as the director rules on a challenge: the challenged words valid or not."""

    def __init__(self, base: Container[str], words: Sequence[str], valid: bool) -> None:
        self.base, self.words, self.valid = base, set(words), valid

    def __contains__(self, word: object) -> bool:
        if word in self.words:
            return self.valid
        return word in self.base


@dataclass
class _Fold:
    """What the effective entries add up to."""

    state: ClassicState
    history: list[dict[str, Any]] = field(default_factory=list)
    last_move: dict[str, Any] | None = None
    corrections: dict[Coord, int] = field(default_factory=dict)  # square -> seq


class ClassicSession:
    """Classic Scrabble at one table: the rules, the clocks, the log, the names."""

    game = "classic"

    def __init__(
        self,
        names: Sequence[str] = ("Player 1", "Player 2"),
        *,
        control: str | dict[str, Any] = "tournament",
        challenge: str = "single",
        tileset: str = "en",
        seed: int | None = None,
        now_ms: int = 0,
        lexicon_for: Callable[[str], Container[str]] | None = None,
    ) -> None:
        if lexicon_for is None:
            from companion.lexicon import load_lexicon

            lexicon_for = load_lexicon
        self._lexicon_for = lexicon_for
        self._lexicons: dict[str, Container[str]] = {}
        self.revision = 0
        self.feed: list[dict[str, Any]] = []
        self._feed_seq = 0
        self.seen: dict[Coord, dict[str, Any]] = {}  # what the camera saw beyond the rules' board
        self.preview: dict[str, Any] | None = None
        # Stack heights, for a game that stacks tiles (classic does not: every tile is 1 high).
        self.heights: dict[Coord, int] = {}
        self._start(now_ms, names=names, control=control, challenge=challenge, tileset=tileset, seed=seed, by="table")

    # -- reading --

    @property
    def state(self) -> ClassicState:
        return self._fold.state

    @property
    def log(self) -> tuple[LogEntry, ...]:
        return tuple(self._log)

    def document(self, now_ms: int) -> dict[str, Any]:
        from companion.web.snapshot import classic_document

        return classic_document(self, now_ms)

    def clock_view(self, now_ms: int) -> dict[str, Any]:
        clocks = self.clocks
        players = []
        for i in range(len(self.state.players)):
            if clocks is None:
                players.append(None)
                continue
            players.append({
                "remaining_ms": clocks.remaining_ms(i, now_ms),
                "penalty": clocks.penalty(i, now_ms),
                "flagged": clocks.remaining_ms(i, now_ms) <= 0,
                "lost": getattr(clocks.clocks[clocks.seats[i].clock], "loser", None) == clocks.seats[i].side,
            })
        started = clocks is not None and any(c.on_move is not None for c in clocks.clocks)
        on_move = sorted(clocks.on_move()) if clocks is not None else []
        paused = clocks is not None and clocks.paused
        return {
            "control": self.control_label,
            "started": started,
            "paused": paused,
            "running": started and not paused and not (clocks.over if clocks else False),
            "on_move": on_move[0] if on_move else None,
            "over": clocks.over if clocks is not None else False,
            "players": players,
        }

    def history(self) -> list[dict[str, Any]]:
        return self._fold.history

    def last_move(self) -> dict[str, Any] | None:
        return self._fold.last_move

    def corrected_squares(self) -> dict[Coord, int]:
        return self._fold.corrections

    # -- the table's actions (the camera and the buttons; the demo) --

    def act(self, now_ms: int, action: classic.Action, by: str = "table") -> tuple[Verdict, ...]:
        verdicts = self._append(now_ms, by, Acted(action))
        return verdicts

    def play(self, now_ms: int, position: str, word: str) -> tuple[Verdict, ...]:
        try:
            placement = placement_from_notation(self.state.board, position, word)
        except CompanionError as exc:
            raise ActionError(str(exc)) from None
        return self.act(now_ms, classic.Play(placement))

    def observe(self, reading: Any) -> None:
        """What a :class:`~companion.vision.reading.BoardReading` shows beyond the rules' board:
        rotations, sets and body colours of tiles, face-down tiles, tokens."""
        seen: dict[Coord, dict[str, Any]] = {}
        for cell in reading.cells:
            extra: dict[str, Any] = {}
            if cell.kind == "back":
                extra["back"] = True
            if cell.kind in ("tile", "back"):
                if cell.rotation:
                    extra["rotation"] = cell.rotation
                if cell.set is not None:
                    extra["set"] = cell.set
                if cell.rgb is not None:
                    extra["rgb"] = list(cell.rgb)
            if cell.token:
                extra["token"] = True
            if extra:
                seen[(cell.row, cell.col)] = extra
        if seen != self.seen:
            self.seen = seen
            self.revision += 1

    def tick(self, now_ms: int) -> None:
        if self.clocks is None:
            return
        for e in self.clocks.poll(now_ms):
            name = self.state.players[e.side].name if hasattr(e, "side") else ""
            if isinstance(e, FlagFell):
                overtime = self.clocks.clocks[0].control.overtime is not None
                self._say("flag", e.side, f"{name}'s flag fell" + (": overtime costs points" if overtime else ""))
            elif isinstance(e, LostOnTime):
                self._say("lost-on-time", e.side, f"{name} loses on time")

    # -- the organiser's actions --

    def new_game(
        self,
        now_ms: int,
        *,
        game: str = "classic",
        names: Any = None,
        control: Any = "tournament",
        challenge: Any = "single",
        tileset: Any = "en",
        seed: Any = None,
        objects: Any = None,
        dice: Any = None,
    ) -> Any:
        """A new game: this session started again, or (another game) the session that holds it,
        which the hub then serves (:meth:`Hub.replace_session`)."""
        known = {g[0]: g for g in GAMES}
        if game not in known:
            raise ActionError(f"no game {game!r} (known: {', '.join(known)})")
        if not known[game][2]:
            raise ActionError(f"{known[game][1]} is not available yet", 409)
        if game == "dungeon":
            from companion.dungeon_table import start_dungeon

            return start_dungeon(getattr(self, "store", None), now_ms, names=names, tileset=tileset, seed=seed,
                                 objects=objects, dice=dice, lexicon_for=self._lexicon_for)
        if objects is not None or dice is not None:
            raise ActionError("objects and dice are the solo dungeon's settings")
        if names is None:
            names = [p.name for p in self.state.players]
        self._start(now_ms, names=names, control=control, challenge=challenge, tileset=tileset, seed=seed, by="admin")

    def pause(self, now_ms: int) -> None:
        if self.clocks is None:
            raise ActionError("this game has no clock", 409)
        if self.clocks.over or self.state.over:
            raise ActionError("the game is over", 409)
        if self.clocks.paused:
            raise ActionError("the clock is already paused", 409)
        if not any(c.on_move is not None for c in self.clocks.clocks):
            raise ActionError("the clock has not started", 409)
        self.clocks.toggle_pause(now_ms)
        self._say("paused", None, "The clock is paused")

    def resume(self, now_ms: int) -> None:
        """Resume a paused clock, or start the clock of a game that has not started."""
        clocks = self.clocks
        if clocks is None:
            raise ActionError("this game has no clock", 409)
        if clocks.over or self.state.over:
            raise ActionError("the game is over", 409)
        if not any(c.on_move is not None for c in clocks.clocks):
            n = len(self.state.players)
            clocks.press((self.state.to_move - 1) % n, now_ms)
            self._say("started", self.state.to_move, f"The clock starts: {self.state.players[self.state.to_move].name} to play")
            return
        if not clocks.paused:
            raise ActionError("the clock is running", 409)
        clocks.toggle_pause(now_ms)
        self._say("resumed", None, "The clock runs again")

    def correct(self, now_ms: int, square: str, letter: str | None, blank: bool = False) -> None:
        """A misread square set right: a letter (a blank standing for it), or empty."""
        if not isinstance(square, str):
            raise ActionError("square: like H8 (column letter, row number)")
        coord = _square(square, self.state.board)
        if letter is None or letter == "":
            if coord not in self.state.board and coord not in self.seen:
                raise ActionError(f"{format_square(coord)} is already empty", 409)
            tile = None
        else:
            if not isinstance(letter, str) or not isinstance(blank, bool):
                raise ActionError("letter: one letter of the tile set; blank: true or false")
            letter = letter.strip().upper()
            if letter not in self.state.tileset.alphabet:
                raise ActionError(f"{letter!r} is not a letter of the {self.state.tileset.name} tile set")
            tile = Tile(letter, blank)
            if self.state.board[coord] == tile:
                raise ActionError(f"{format_square(coord)} already holds {tile.gcg}", 409)
        self._append(now_ms, "admin", Corrected(coord, tile))

    def rule_challenge(self, now_ms: int, decision: str, by: int | None = None) -> None:
        """A challenge of the pending play, decided by the house list (``dictionary``) or by the
        director (``valid``: the words stand, ``phony``: the play comes off); the challenge mode
        decides what a failed challenge costs."""
        state = self.state
        if decision not in ("dictionary", "valid", "phony"):
            raise ActionError("decision: dictionary, valid or phony")
        if state.options.challenge is ChallengeMode.VOID:
            raise ActionError("every word is checked when played: there is nothing to challenge", 409)
        if state.pending is None:
            raise ActionError("there is no play to challenge", 409)
        n = len(state.players)
        if by is None:
            by = (state.pending.player + 1) % n
        if not isinstance(by, int) or isinstance(by, bool) or not 0 <= by < n or by == state.pending.player:
            raise ActionError("by: the number of an opponent of the player who made the play")
        self._append(now_ms, "admin", Acted(classic.Challenge(by), None if decision == "dictionary" else decision))

    def undo(self, now_ms: int) -> None:
        undone = {e.event.target for e in self._log if isinstance(e.event, Undone)}
        for entry in reversed(self._log):
            if isinstance(entry.event, Started):
                break
            if isinstance(entry.event, (Acted, Corrected)) and entry.seq not in undone:
                self._append(now_ms, "admin", Undone(entry.seq))
                return
        raise ActionError("nothing to undo in this game", 409)

    # -- GCG --

    def gcg(self) -> str:
        state = self.state
        players = tuple(GcgPlayer(i + 1, _nick(p.name, i), p.name) for i, p in enumerate(state.players))
        events = []
        for row in self._fold.history:
            nick = players[row["player"]].nick
            kind = row["kind"]
            common = dict(nick=nick, score=row["points"], total=row["total"], rack=row.get("rack") or "")
            if kind == "play":
                events.append(GcgPlay(position=row["position"], word=row["word"], **common))
            elif kind in ("pass", "turn-lost"):
                events.append(GcgPass(**common))
            elif kind == "exchange":
                events.append(GcgExchange(tiles=row.get("tiles", ""), count=row["count"], **common))
            elif kind == "withdrawn":
                events.append(GcgWithdrawn(**common))
            elif kind == "challenge-bonus":
                events.append(ChallengeBonus(**common))
            elif kind == "end-rack-points":
                events.append(EndRackPoints(tiles=row["tiles"], **common))
            elif kind == "last-rack-penalty":
                events.append(LastRackPenalty(tiles=row["tiles"], **{**common, "rack": row["tiles"]}))
        if state.over and self.clocks is not None:
            totals = {i: 0 for i in range(len(state.players))}
            for row in self._fold.history:
                totals[row["player"]] = row["total"]
            for i, p in enumerate(players):
                penalty = self._final_penalty(i)
                if penalty:
                    totals[i] -= penalty
                    events.append(TimePenalty(nick=p.nick, score=-penalty, total=totals[i]))
        record = GameRecord(
            players=players,
            events=tuple(events),
            title="Classic Scrabble at the companion's table",
            lexicon=state.options.tileset,
            tile_set=state.options.tileset,
            incomplete=None if state.over else "",
        )
        return write_gcg(record)

    def _final_penalty(self, player: int) -> int:
        assert self.clocks is not None
        return self.clocks.penalty(player, self._clock_now)

    # -- inside --

    def _start(self, now_ms: int, *, names: Any, control: Any, challenge: Any, tileset: Any, seed: Any, by: str) -> None:
        if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
            raise ActionError("names: a list of 2 to 4 display names")
        if not 2 <= len(names) <= 4:
            raise ActionError(f"classic Scrabble is for 2 to 4 players, not {len(names)}")
        if any(display_name(n) is None for n in names):
            raise ActionError(f"a display name has 1 to {MAX_NAME} characters, none of them a control character")
        names = tuple(" ".join(n.split()) for n in names)
        if len({n.casefold() for n in names}) != len(names):
            raise ActionError("two players have the same name")
        label, control_value = time_control(control)
        if challenge not in [m.value for m in ChallengeMode]:
            raise ActionError(f"challenge: one of {', '.join(m.value for m in ChallengeMode)}")
        if tileset not in TILESETS:
            raise ActionError(f"tile set: one of {', '.join(TILESETS)}")
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
            raise ActionError("seed: a whole number")
        options = ClassicOptions(tileset=tileset, challenge=ChallengeMode(challenge))
        self._lexicon(tileset)  # a list that cannot load fails here, before anything changes
        # Racks are private at a real board: only their sizes follow from the draws.
        self.clocks = ClockGroup.of(control_value, len(names)) if control_value is not None else None
        self.control_label = label
        self._clock_now = now_ms
        self._log: list[LogEntry] = []
        self.seen = {}
        self.preview = None
        self.game_id = f"{seed:x}-{now_ms:x}"
        entry = LogEntry(0, now_ms, by, Started(names, options, seed, 0, label))
        self._log.append(entry)
        self._fold = self._replay()
        self.revision += 1
        self._say("new-game", None, f"New game: {' v '.join(names)} ({label})")

    def _lexicon(self, tileset: str) -> Container[str]:
        if tileset not in self._lexicons:
            try:
                self._lexicons[tileset] = self._lexicon_for(tileset)
            except CompanionError as exc:
                raise ActionError(str(exc), 409) from None
        return self._lexicons[tileset]

    def _append(self, now_ms: int, by: str, event: Acted | Corrected | Undone) -> tuple[Verdict, ...]:
        entry = LogEntry(len(self._log), now_ms, by, event)
        if isinstance(event, Undone):
            self._log.append(entry)
            target = self._log[event.target]
            self._fold = self._replay()
            self._say("undo", None, f"Undone: {self._describe(target)}")
            self._sync_clock(now_ms)
            return ()
        fold = _Fold(self._fold.state, list(self._fold.history), self._fold.last_move, dict(self._fold.corrections))
        verdicts = self._apply(fold, entry)
        if isinstance(event, Acted) and len(verdicts) == 1 and verdicts[0].kind is VerdictKind.REFUSED:
            # The rules refused: nothing changed but what the players are told.
            v = verdicts[0]
            self._say("refused", v.player, v.message, words=list(v.words))
            return verdicts
        self._log.append(entry)
        self._fold = fold
        for v in verdicts:
            self._say(v.kind.value, v.player, v.message, words=list(v.words), points=v.points)
        if isinstance(event, Corrected):
            what = event.tile.gcg if event.tile is not None else "empty"
            self._say("correction", None, f"Correction: {format_square(event.square)} is {what}")
        self._sync_clock(now_ms)
        return verdicts

    def _replay(self) -> _Fold:
        start = self._log[0].event
        assert isinstance(start, Started)
        state = classic.new_game(start.names, start.options, seed=start.seed, first=start.first, track_tiles=False)
        fold = _Fold(state)
        undone = {e.event.target for e in self._log if isinstance(e.event, Undone)}
        for entry in self._log[1:]:
            if isinstance(entry.event, Undone) or entry.seq in undone:
                continue
            self._apply(fold, entry)
        return fold

    def _apply(self, fold: _Fold, entry: LogEntry) -> tuple[Verdict, ...]:
        """One entry onto the fold (in place); the rules' verdicts."""
        event = entry.event
        state = fold.state
        if isinstance(event, Corrected):
            board = state.board.without([event.square])
            if event.tile is not None:
                board = board.with_tiles([(event.square, event.tile)])
            fold.state = replace(state, board=board)
            fold.corrections[event.square] = entry.seq
            return ()
        assert isinstance(event, Acted)
        lexicon = self._lexicon(state.options.tileset)
        action = event.action
        if event.ruling is not None and state.pending is not None:
            words = [w.word.text for w in state.pending.score.words]
            lexicon = _Ruling(lexicon, words, event.ruling == "valid")
        before = state
        out = classic.apply(state, action, lexicon)
        if len(out.verdicts) == 1 and out.verdict.kind is VerdictKind.REFUSED:
            return out.verdicts
        fold.state = out.state
        self._record(fold, entry, before, action, out.verdicts)
        return out.verdicts

    def _record(self, fold: _Fold, entry: LogEntry, before: ClassicState, action: classic.Action,
                verdicts: Sequence[Verdict]) -> None:
        """The move list (and so the GCG) from the rules' verdicts."""
        state = fold.state
        totals = {i: 0 for i in range(len(state.players))}
        for row in fold.history:
            totals[row["player"]] = row["total"]

        def add(player: int, kind: str, points: int, **more: Any) -> dict[str, Any]:
            totals[player] += points
            row = {"seq": entry.seq, "player": player, "kind": kind, "points": points, "total": totals[player], **more}
            fold.history.append(row)
            return row

        for v in verdicts:
            if v.kind is VerdictKind.PLAYED and isinstance(action, classic.Play):
                placement = action.placement
                assert v.score is not None
                direction = placement_direction(placement)
                if direction is None:
                    main = v.score.main
                    direction = main.word.direction if main is not None else Direction.ACROSS
                position, word = notation_of(before.board, placement, direction)
                tileset = before.tileset
                words = []
                for w in v.score.words:
                    letters = []
                    for sq, tile, new in zip(w.word.squares, w.word.tiles, w.word.new):
                        premium = before.board.layout.premium(sq) if new else None
                        letters.append({
                            "letter": tile.letter,
                            "blank": tile.blank,
                            "value": tileset.value(tile.letter, tile.blank),
                            "premium": premium.name if premium is not None and premium.name != "NONE" else None,
                        })
                    words.append({"word": w.word.text, "gcg": w.word.gcg, "letters": letters,
                                  "letter_sum": w.letters, "multiplier": w.multiplier, "score": w.score})
                row = add(v.player, "play", v.points, position=position, word=word, words=words,
                          bonus=v.score.bonus, squares=[list(c) for c in placement.coords])
                fold.last_move = row
            elif v.kind is VerdictKind.PASSED:
                add(v.player, "pass", 0)
            elif v.kind is VerdictKind.TURN_LOST:
                add(v.player, "turn-lost", 0, note=v.message)
            elif v.kind is VerdictKind.EXCHANGED and isinstance(action, classic.Exchange):
                # With private racks the exchanged tiles are not known, only their number.
                add(v.player, "exchange", 0, count=len(action.tiles), tiles=action.tiles if before.tracked else "")
            elif v.kind is VerdictKind.WITHDRAWN:
                add(v.player, "withdrawn", v.points, note=v.message)
                fold.last_move = None
            elif v.kind is VerdictKind.CHALLENGE_FAILED:
                if v.points:
                    add(v.player, "challenge-bonus", v.points)
            elif v.kind is VerdictKind.GAME_OVER:
                values = [p.end_adjustment for p in state.players]
                for i, p in enumerate(state.players):
                    if state.went_out == i:
                        others = "".join("".join(q.rack or ()) for j, q in enumerate(state.players) if j != i)
                        add(i, "end-rack-points", values[i], tiles=others)
                    elif values[i]:
                        add(i, "last-rack-penalty", values[i], tiles="".join(p.rack or ()))

    def _sync_clock(self, now_ms: int) -> None:
        """The clock follows the rules: the player on move is the one whose time runs."""
        clocks = self.clocks
        self._clock_now = max(self._clock_now, now_ms)
        if clocks is None or clocks.over:
            return
        started = any(c.on_move is not None for c in clocks.clocks)
        if not started:
            return
        state = self.state
        if state.over:
            if not clocks.paused:
                clocks.toggle_pause(now_ms)
            return
        for _ in range(len(state.players)):
            on = clocks.on_move()
            if not on or state.to_move in on:
                break
            (side,) = on
            if clocks.paused:
                # The turn passes while paused: the press is honoured as the table's own.
                clocks.toggle_pause(now_ms)
                clocks.press(side, now_ms)
                clocks.toggle_pause(now_ms)
            else:
                clocks.press(side, now_ms)

    def _say(self, kind: str, player: int | None, message: str, **more: Any) -> None:
        self._feed_seq += 1
        self.feed.append({"id": self._feed_seq, "kind": kind, "player": player, "message": message, **more})
        del self.feed[:-FEED_KEPT]
        self.revision += 1

    def _describe(self, entry: LogEntry) -> str:
        event = entry.event
        if isinstance(event, Corrected):
            return f"the correction of {format_square(event.square)}"
        if isinstance(event, Acted):
            action = event.action
            if isinstance(action, classic.Challenge):
                return "the challenge"
            return f"the {type(action).__name__.lower()}"
        return "the last entry"


def _square(text: str, board: Board) -> Coord:
    """``H8`` (GCG's square name: column letter, row number) or ``8H``."""
    try:
        coord, _ = parse_position(text, board.layout)
    except CompanionError:
        raise ActionError(f"square {text!r}: like H8 (column letter, row number)") from None
    return coord


def _nick(name: str, i: int) -> str:
    nick = "".join(ch for ch in name if not ch.isspace())
    return nick or f"P{i + 1}"
