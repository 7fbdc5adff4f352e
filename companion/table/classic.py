"""The classic game at the table: :class:`ClassicSession` (the rules of
:mod:`companion.rules.classic` with their clocks, :mod:`companion.clock.engine`) and
:class:`TableSession`, the same with its game log on disk and the table's press and verdict.

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
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Container, Sequence

from companion.clock.engine import ClockGroup, FlagFell, LostOnTime
from companion.core.board import Board, Coord, Direction, Tile
from companion.core.errors import CompanionError
from companion.core.gcg import (
    ChallengeBonus,
    EndRackPoints,
    GameRecord,
    LastRackPenalty,
    TimePenalty,
    nick_of,
    with_racks,
    write_gcg,
)
from companion.core.gcg import (
    Exchange as GcgExchange,
)
from companion.core.gcg import (
    Pass as GcgPass,
)
from companion.core.gcg import (
    Play as GcgPlay,
)
from companion.core.gcg import (
    Player as GcgPlayer,
)
from companion.core.gcg import (
    Withdrawn as GcgWithdrawn,
)
from companion.core.move import format_square, notation_of, parse_position, placement_from_notation, readable_word
from companion.core.tiles import BLANK, get_tileset
from companion.core.words import placement_direction
from companion.rules import classic
from companion.rules.classic import ChallengeMode, ClassicOptions, ClassicState, Verdict, VerdictKind
from companion.table.entries import Acted, Corrected, LogEntry, Started, Undone
from companion.table.inference import infer_move
from companion.table.session import (
    FEED_KEPT,
    MAX_NAME,
    TILESETS,
    UNREADABLE,
    ActionError,
    LoggedGame,
    time_control,
)
from companion.table.store import GameStore, StoredEvent, entry_from_json, entry_to_json
from companion.vision.reading import BoardReading


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
        self.lexicon_for = lexicon_for
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
        names: Any = None,
        control: Any = "tournament",
        challenge: Any = "single",
        tileset: Any = "en",
        seed: Any = None,
    ) -> None:
        """A new classic game: this session started again (another game is
        :func:`companion.table.games.new_game`'s)."""
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
        players = tuple(GcgPlayer(i + 1, nick_of(p.name, i), p.name) for i, p in enumerate(state.players))
        events = []
        for row in self._fold.history:
            nick = players[row["player"]].nick
            kind = row["kind"]
            # A rack is written once the game is over: before, the tiles left on it are still
            # on the player's rack, and the download is public.
            rack = (row.get("rack") or "") if state.over else ""
            common = dict(nick=nick, score=row["points"], total=row["total"], rack=rack)
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
            events=with_racks(tuple(events)),
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
        names = tuple(" ".join(n.split()) for n in names)
        if not 2 <= len(names) <= 4:
            raise ActionError(f"classic Scrabble is for 2 to 4 players, not {len(names)}")
        if any(not n or len(n) > MAX_NAME for n in names):
            raise ActionError(f"a display name has 1 to {MAX_NAME} characters")
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
                self._lexicons[tileset] = self.lexicon_for(tileset)
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
            row = {"seq": entry.seq, "player": player, "kind": kind, "points": points, "total": totals[player],
                   "at_ms": entry.at_ms, **more}
            # The rack before the turn, when the racks are tracked (the GCG writes it).
            rack = before.players[player].rack if player < len(before.players) else None
            if rack is not None and "rack" not in row:
                row["rack"] = "".join(rack)
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
                          shown=readable_word(before.board, position, word),
                          # The tiles as they lie (the page shows the board after any move).
                          tiles=[[t.row, t.col, t.letter, t.blank] for t in placement.tiles],
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
                # The play that came off stays the last move, its squares shown empty now.
                withdrawn = fold.last_move
                add(v.player, "withdrawn", v.points, note=v.message,
                    **({"position": withdrawn["position"], "shown": withdrawn["shown"],
                        "squares": withdrawn["squares"]} if withdrawn is not None else {}))
                fold.last_move = None if withdrawn is None else {**withdrawn, "kind": "withdrawn",
                                                                 "withdrawn_points": v.points}
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


class TableSession(LoggedGame, ClassicSession):
    """:class:`ClassicSession` whose every log entry and clock action is appended to the game
    log before the state is published, restorable by :meth:`restore` to the same state and
    clocks. Adds what the table does: a press (:meth:`press`) and the verdict on what the camera
    then saw (:meth:`judge`)."""

    @property
    def grid(self) -> int:  # type: ignore[override]
        return self.state.board.layout.rows

    @property
    def tileset_name(self) -> str:
        return self.state.tileset.name

    @property
    def seats(self) -> int:
        return len(self.state.players)

    def __init__(self, store: GameStore, names: Sequence[str] = ("Player 1", "Player 2"), *,
                 control: Any = "tournament", challenge: str = "single", tileset: str = "en",
                 seed: int | None = None, now_ms: int = 0,
                 lexicon_for: Callable[[str], Container[str]] | None = None, _replaying: bool = False) -> None:
        self.store = store
        self._replaying = _replaying
        self._latest = now_ms
        self.ref: int | None = None  # the caller's mark for the events stored next
        self.last_ref = -1
        self.pending_press: dict[str, int] | None = None  # a press not judged yet
        self.questions: list[str] = []  # what the table asks now
        self.last_event_wall: int | None = None
        super().__init__(names, control=control, challenge=challenge, tileset=tileset, seed=seed, now_ms=now_ms,
                         lexicon_for=lexicon_for)

    # -- the log --

    def _at(self, now_ms: int) -> int:
        """Time never runs backwards for the clocks: a press stamped before the last tick
        counts at the tick."""
        self._latest = max(self._latest, int(now_ms))
        return self._latest

    def _start(self, now_ms: int, *, names: Any, control: Any, challenge: Any, tileset: Any, seed: Any, by: str) -> None:
        super()._start(now_ms, names=names, control=control, challenge=challenge, tileset=tileset, seed=seed, by=by)
        self._latest = max(self._latest, now_ms)
        self.pending_press, self.questions = None, []
        self._store_event("entry", {"entry": entry_to_json(self._log[0]), "settings": {"control": control}}, now_ms)

    def _append(self, now_ms: int, by: str, event: Any) -> Any:
        now_ms = self._at(now_ms)
        n = len(self._log)
        verdicts = super()._append(now_ms, by, event)
        for entry in self._log[n:]:
            self._store_event("entry", {"entry": entry_to_json(entry)}, now_ms)
        return verdicts

    def tick(self, now_ms: int) -> None:
        super().tick(self._at(now_ms))

    # -- clock actions, each logged --

    def _clock(self, op: str, at: int, player: int | None = None) -> None:
        at = self._at(at)
        if op == "start" or op == "resume":
            super().resume(at)
        elif op == "pause":
            super().pause(at)
        elif op == "press":
            assert self.clocks is not None and player is not None
            self.clocks.press(player, at)
            self.pending_press = {"player": player, "at": at}
        elif op == "sync":
            self._sync_clock(at)
            self.pending_press = None
        else:
            raise ValueError(f"unknown clock action {op!r}")
        self._store_event("clock", {"op": op, "player": player}, at)

    def pause(self, now_ms: int) -> None:
        self._clock("pause", now_ms)

    def resume(self, now_ms: int) -> None:
        self._clock("resume", now_ms)

    # -- the table's turn --

    def press(self, player: int, at_ms: int) -> str:
        """A player's clock button: ``start`` (the clock started), ``judge`` (the clock switched:
        now look at the board) or ``ignored: why``."""
        state, clocks = self.state, self.clocks
        if not 0 <= player < len(state.players):
            return "ignored: no such player"
        if state.over:
            return "ignored: the game is over"
        if self.pending_press is not None:
            return "ignored: the last press is still being judged"
        if clocks is None:
            if player != state.to_move:
                return "ignored: not on move"
            self.pending_press = {"player": player, "at": self._at(at_ms)}
            self._store_event("clock", {"op": "press", "player": player}, self._latest)
            return "judge"
        if clocks.over:
            return "ignored: the clock has stopped"
        if not any(c.on_move is not None for c in clocks.clocks):
            self._clock("start", at_ms)
            return "start"
        if clocks.paused:
            return "ignored: the clock is paused"
        if player not in clocks.on_move():
            return "ignored: not on move"
        self._clock("press", at_ms, player)
        self.revision += 1
        return "judge"

    def judge(self, now_ms: int, reading: BoardReading | None, lexicon: Container[str] | None = None) -> dict[str, Any]:
        """The verdict on the pending press, from the stable board the camera gave (None: it
        gave none)."""
        press = self.pending_press
        if press is None:
            return {"kind": "nothing to judge"}
        at = self._at(now_ms)
        player = press["player"]
        if reading is None:
            return self._question(at, player, [UNREADABLE])
        state = self.state
        tileset = get_tileset(state.options.tileset)
        lexicon = self._lexicon(state.options.tileset) if lexicon is None else lexicon
        self.observe(reading)
        inferred = infer_move(state.board, reading.cells, tileset, lexicon)
        if inferred.placement is None and inferred.questions:
            return self._question(at, player, list(inferred.questions))
        if inferred.placement is not None:
            too_many = over_counts(state.board, inferred.placement, tileset)
            if too_many:
                return self._question(at, player, too_many)
            action: classic.Action = classic.Play(inferred.placement)
        else:
            action = classic.Pass()
        verdicts = self._append(at, "table", _acted(action))
        if len(verdicts) == 1 and verdicts[0].kind is VerdictKind.REFUSED:
            return self._question(at, player, [verdicts[0].message], said=True)
        self.pending_press = None
        self.questions = []
        if inferred.questions:  # the move stands; which letter a blank stands for is asked
            self._ask(at, player, list(inferred.questions))
        kinds = [v.kind.value for v in verdicts]
        return {"kind": "move" if inferred.placement is not None else "no tiles", "verdicts": kinds,
                "questions": list(inferred.questions)}

    def _question(self, at: int, player: int, questions: list[str], said: bool = False) -> dict[str, Any]:
        self._ask(at, player, questions, said=said)
        # The turn is not over: the clock goes back to the player, who sets it right and presses again.
        if self.clocks is not None:
            self._clock("sync", at)
        self.pending_press = None
        return {"kind": "question", "questions": questions}

    def _ask(self, at: int, player: int, questions: list[str], said: bool = False) -> None:
        self.questions = list(questions)
        if not said:
            for q in questions:
                self._say("question", player, q)
        self._store_event("question", {"player": player, "questions": questions, "said": said}, at)

    # -- restoring --

    @classmethod
    def restore(cls, store: GameStore, game: str | None = None, *,
                lexicon_for: Callable[[str], Container[str]] | None = None) -> TableSession | None:
        """The current game (or ``game``) folded from the log; None when the log has none."""
        game = store.current_game() if game is None else game
        if game is None:
            return None
        events = store.events(game)
        first = events[0]
        if first.kind != "entry":
            return None  # another game's (the dungeon's): a classic table starts a game of its own
        start = entry_from_json(first.payload["entry"])
        ev = start.event
        s = cls(store, ev.names, control=first.payload["settings"]["control"],  # type: ignore[union-attr]
                challenge=ev.options.challenge.value, tileset=ev.options.tileset,  # type: ignore[union-attr]
                seed=ev.seed, now_ms=start.at_ms, lexicon_for=lexicon_for, _replaying=True)  # type: ignore[union-attr]
        if s.game_id != game:
            raise CompanionError(f"{store.path}: game {game} does not replay to itself")
        s._replay_events(events[1:])
        s.last_event_wall = events[-1].wall_ms
        return s

    def _replay_event(self, e: StoredEvent) -> None:
        if e.kind == "entry":
            entry = entry_from_json(e.payload["entry"])
            self._append(entry.at_ms, entry.by, entry.event)
            if self._log[-1] != entry:
                raise CompanionError(
                    f"{self.store.path}: event {e.seq} no longer replays (has the word list changed?); the log is kept")
            if entry.by == "table":
                self.pending_press, self.questions = None, []
        elif e.kind == "clock":
            op, player = e.payload["op"], e.payload.get("player")
            if op == "press" and self.clocks is None:
                self.pending_press = {"player": player, "at": self._at(e.at_ms)}
            else:
                self._clock(op, e.at_ms, player)
        elif e.kind == "question":
            self._ask(e.at_ms, e.payload["player"], e.payload["questions"], said=e.payload.get("said", False))
            if self.clocks is None:
                self.pending_press = None



def _acted(action: classic.Action) -> Any:
    return Acted(action)


def over_counts(board: Board, placement: Any, tileset: Any) -> list[str]:
    """Questions when the board with ``placement`` holds more of a tile than the set has."""
    held: Counter[str] = Counter()
    for _, tile in board.items():
        held[BLANK if tile.blank else tile.letter] += 1
    for t in placement.tiles:
        held[BLANK if t.blank else t.letter] += 1
    out = []
    for letter, n in sorted(held.items()):
        have = tileset.counts.get(letter, 0)
        if n > have:
            name = "blanks" if letter == BLANK else f"{letter} tiles"
            out.append(f"{n} {name} on the board, but the set has {have}: which is misread?")
    return out


