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
from companion.core.move import (
    PlacedTile, Placement, format_square, notation_of, parse_position, placement_from_notation, readable_word,
)
from companion.core.tiles import BLANK, TileSet, get_tileset
from companion.core.words import placement_direction
from companion.rules import classic
from companion.rules.classic import ChallengeMode, ClassicOptions, ClassicState, Verdict, VerdictKind, result_text
from companion.table.entries import Acted, Corrected, LogEntry, Started, Undone
from companion.table.computer import Shown, deal, parse_computers
from companion.table.inference import Ask, answered, infer_move
from companion.table.session import (
    FEED_KEPT,
    MAX_NAME,
    display_name,
    stored_name,
    TILESETS,
    UNREADABLE,
    ActionError,
    LoggedGame,
    time_control,
)
from companion.table.snapshot import words_json
from companion.table.store import GameStore, StoredEvent, entry_from_json, entry_to_json
from companion.vision.reading import BLANK_FACE, BoardReading, CellReading


class Ruling:
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
    # Computer seats' racks (seat -> tiles) and the tiles last dealt to each (the page names them).
    racks: dict[int, list[str]] = field(default_factory=dict)
    dealt: dict[int, list[str]] = field(default_factory=dict)


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
        computers: Any = None,
    ) -> None:
        """A new classic game: this session started again (another game is
        :func:`companion.table.games.new_game`'s)."""
        if computers:
            raise ActionError("computers: computer seats play at a table with its game log (companion run or serve)")
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
        self._append(now_ms, "admin", correction(self.state.board, self.state.tileset, self.seen, square, letter, blank))

    def rule_challenge(self, now_ms: int, decision: str, by: int | None = None) -> None:
        """A challenge of the pending play, decided by the house list (``dictionary``) or by the
        director (``valid``: the words stand, ``phony``: the play comes off); the challenge mode
        decides what a failed challenge costs."""
        state = self.state
        if decision not in DECISIONS:
            raise ActionError("decision: dictionary, valid or phony")
        if state.options.challenge is ChallengeMode.VOID:
            raise ActionError("every word is checked when played: there is nothing to challenge", 409)
        if state.pending is None:
            raise ActionError("there is no play to challenge", 409)
        by = challenger(by, state.pending.player, len(state.players))
        self._append(now_ms, "admin", Acted(classic.Challenge(by), None if decision == "dictionary" else decision))

    def challenge(self, now_ms: int, by: Any) -> None:
        """A player challenges the last play (its window is open until the next player acts):
        the house word list decides, the challenge mode says what a failed challenge costs."""
        self.rule_challenge(now_ms, "dictionary", by)

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
        if state.over and events:
            events[-1] = replace(events[-1], notes=events[-1].notes + (f"Result: {result_text(state)}",))
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
        if not 2 <= len(names) <= 4:
            raise ActionError(f"classic Scrabble is for 2 to 4 players, not {len(names)}")
        if any(display_name(n) is None for n in names):
            raise ActionError(f"a display name has 1 to {MAX_NAME} characters, none of them a control character")
        names = tuple(" ".join(n.split()) for n in names)
        if len({n.casefold() for n in names}) != len(names):
            raise ActionError("two players have the same name")
        label, control_value = time_control(control)
        self.configured: dict[str, Any] | None = None  # the configuration's next game, when it differs
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
        fold = _Fold(self._fold.state, list(self._fold.history), self._fold.last_move, dict(self._fold.corrections),
                     {k: list(v) for k, v in self._fold.racks.items()}, {k: list(v) for k, v in self._fold.dealt.items()})
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
            lexicon = Ruling(lexicon, words, event.ruling == "valid")
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
                words = words_json(v.score.words, lambda sq, t, w: tileset.value(t.letter, t.blank),
                                   before.board.layout.premium)
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


DECISIONS = ("dictionary", "valid", "phony")  # a challenge decided by the house list, or by the director


def challenger(by: Any, player: int, players: int) -> int:
    """Who challenges ``player``'s play: ``by`` (None: the next player), an opponent."""
    if by is None:
        by = (player + 1) % players
    if not isinstance(by, int) or isinstance(by, bool) or not 0 <= by < players or by == player:
        raise ActionError("by: the number of an opponent of the player who made the play")
    return by


def correction(board: Board, tileset: TileSet, seen: Container[Coord], square: Any, letter: Any,
               blank: Any = False) -> Corrected:
    """The page's correction of a misread square (``H8``; a letter, a blank standing for it,
    or empty) checked against the board: every game that lets the organiser set a square right
    takes it so. ``seen``: squares the camera shows something on beyond the board's tiles."""
    if not isinstance(square, str):
        raise ActionError("square: like H8 (column letter, row number)")
    coord = _square(square, board)
    if letter is None or letter == "":
        if coord not in board and coord not in seen:
            raise ActionError(f"{format_square(coord)} is already empty", 409)
        return Corrected(coord, None)
    if not isinstance(letter, str) or not isinstance(blank, bool):
        raise ActionError("letter: one letter of the tile set; blank: true or false")
    letter = letter.strip().upper()
    if letter not in tileset.alphabet:
        raise ActionError(f"{letter!r} is not a letter of the {tileset.name} tile set")
    tile = Tile(letter, blank)
    if board[coord] == tile:
        raise ActionError(f"{format_square(coord)} already holds {tile.gcg}", 409)
    return Corrected(coord, tile)


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
                 lexicon_for: Callable[[str], Container[str]] | None = None, _replaying: bool = False,
                 computers: Any = None, generator_for: Callable[[str], Any] | None = None) -> None:
        self.store = store
        try:
            self.computers = parse_computers(computers, len(names) if isinstance(names, (list, tuple)) else 0)
        except ValueError as exc:
            raise ActionError(str(exc)) from None
        self._generator_for = generator_for
        self._generators: dict[str, Any] = {}
        self._shown: tuple[int, Shown | None] | None = None
        self._replaying = _replaying
        self._latest = now_ms
        self.ref: int | None = None  # the caller's mark for the events stored next
        self.last_ref = -1
        self.pending_press: dict[str, int] | None = None  # a press not judged yet
        self.questions: list[str] = []  # what the table asks now
        # The open question about squares (:class:`Asking`): the move that asked it, completed
        # by the players' answer on the page.
        self.asking: Asking | None = None
        # The player on move told the page their next turn without tiles is an exchange of
        # this many tiles (the board cannot tell an exchange from a pass): {"player", "count"}.
        self.declared: dict[str, int] | None = None
        self.adjourned = False
        self.last_event_wall: int | None = None
        super().__init__(names, control=control, challenge=challenge, tileset=tileset, seed=seed, now_ms=now_ms,
                         lexicon_for=lexicon_for)
        if self.computers:
            # The move generator built now (its word graph, from the disk cache or built once),
            # not at the computer's first turn inside the game thread.
            self._generator(self.state.options.tileset)

    # -- the log --

    def _at(self, now_ms: int) -> int:
        """Time never runs backwards for the clocks: a press stamped before the last tick
        counts at the tick."""
        self._latest = max(self._latest, int(now_ms))
        return self._latest

    def _start(self, now_ms: int, *, names: Any, control: Any, challenge: Any, tileset: Any, seed: Any, by: str) -> None:
        super()._start(now_ms, names=names, control=control, challenge=challenge, tileset=tileset, seed=seed, by=by)
        self._latest = max(self._latest, now_ms)
        self.pending_press, self.questions, self.asking, self.declared = None, [], None, None
        self.adjourned = False
        settings: dict[str, Any] = {"control": control}
        if self.computers:
            settings["computers"] = {str(k): v for k, v in self.computers.items()}
        self._store_event("entry", {"entry": entry_to_json(self._log[0]), "settings": settings}, now_ms)
        if self.computers:
            self._announce()

    def _append(self, now_ms: int, by: str, event: Any) -> Any:
        now_ms = self._at(now_ms)
        n = len(self._log)
        verdicts = super()._append(now_ms, by, event)
        for entry in self._log[n:]:
            self._store_event("entry", {"entry": entry_to_json(entry)}, now_ms)
        if self.computers and len(self._log) > n:
            self._announce()
        if any(v.kind is VerdictKind.GAME_OVER for v in verdicts):
            # The result as the log's last word on the game (the state folds to it as well).
            state = self.state
            self._store_event("result", {"winners": list(state.winners()), "scores": [p.score for p in state.players],
                                         "tie_break": state.tie_broken(), "resigned": state.resigned,
                                         "text": result_text(state)}, now_ms)
        return verdicts

    def tick(self, now_ms: int) -> None:
        super().tick(self._at(now_ms))

    # -- computer seats --

    def new_game(self, now_ms: int, *, computers: Any = None, **settings: Any) -> None:
        names = settings.get("names") or [p.name for p in self.state.players]
        before = self.computers
        try:
            self.computers = parse_computers(computers, len(names) if isinstance(names, (list, tuple)) else 0)
        except ValueError as exc:
            raise ActionError(str(exc)) from None
        try:
            super().new_game(now_ms, **settings)  # (the seats are this table's: set above)
        except ActionError:
            self.computers = before
            raise

    def _replay(self) -> _Fold:
        fold = super()._replay()
        self._top_up(fold, len(self._log) - 1)
        return fold

    def _apply(self, fold: _Fold, entry: LogEntry) -> tuple[Verdict, ...]:
        if not getattr(self, "computers", None):
            return super()._apply(fold, entry)
        self._top_up(fold, entry.seq - 1)
        racks, rows = {seat: "".join(rack) for seat, rack in fold.racks.items()}, len(fold.history)
        verdicts = super()._apply(fold, entry)
        for row in fold.history[rows:]:
            # A computer seat's rack is known: the GCG writes all of it before its turn, not
            # only the tiles it played (the people's racks are private).
            if row["player"] in racks and row["kind"] in ("play", "exchange", "pass"):
                row["rack"] = racks[row["player"]]
        event = entry.event
        action = event.action if isinstance(event, Acted) else None
        for v in verdicts:
            if v.player not in self.computers:
                continue
            rack = fold.racks[v.player]
            used: list[str] = []
            if v.kind is VerdictKind.PLAYED and isinstance(action, classic.Play):
                used = classic.placement_tiles(action.placement)
            elif v.kind is VerdictKind.EXCHANGED and isinstance(action, classic.Exchange):
                used = list(action.tiles)
            for t in used:
                if t in rack:
                    rack.remove(t)
        self._top_up(fold, entry.seq)
        return verdicts

    def _top_up(self, fold: _Fold, seq: int) -> None:
        """Each computer seat's rack filled to the size the rules say it holds."""
        state = fold.state
        start = self._log[0].event
        assert isinstance(start, Started)
        for seat in sorted(self.computers):
            rack = fold.racks.setdefault(seat, [])
            need = state.players[seat].rack_size - len(rack)
            if need > 0:
                new = deal(state.tileset, state.board, fold.racks, seat, need, f"{start.seed}:{seq}:{seat}")
                rack.extend(new)
                rack.sort()
                fold.dealt[seat] = new
            elif need < 0:
                del rack[need:]

    def computer_racks(self) -> dict[int, list[str]]:
        return {k: list(v) for k, v in self._fold.racks.items()}

    def _generator(self, tileset: str) -> Any:
        if tileset not in self._generators:
            if self._generator_for is not None:
                self._generators[tileset] = self._generator_for(tileset)
            else:
                from companion.engine.movegen import generator_for

                self._generators[tileset] = generator_for(tileset, self._lexicon(tileset))
        return self._generators[tileset]

    def computer_move(self) -> Shown | None:
        """The move of the computer seat on move, as the page shows it (None: a person is)."""
        state = self.state
        seat = state.to_move
        if seat not in self.computers or state.over or state.awaiting_racks:
            return None
        if self._shown is not None and self._shown[0] == len(self._log):
            return self._shown[1]
        from companion.engine.player import ComputerPlayer

        start = self._log[0].event
        assert isinstance(start, Started)
        player = ComputerPlayer(self._generator(state.options.tileset), self.computers[seat], seed=f"{start.seed}:{seat}")
        decision = player.decide(state.board, self._fold.racks.get(seat, []), state.bag_size, turn=state.turn,
                                 exchange_min_bag=state.options.exchange_min_bag)
        if decision.move is not None:
            placement = decision.move.placement
            direction = placement_direction(placement) or Direction.ACROSS
            position, word = notation_of(state.board, placement, direction)
            score = classic.score_play(state.board, placement, state.tileset).total
            shown = Shown(seat, "play", position, word, score,
                          tuple((t.row, t.col, t.letter, t.blank) for t in placement.tiles))
        elif decision.exchange:
            shown = Shown(seat, "exchange", tiles=decision.exchange)
        else:
            shown = Shown(seat, "pass")
        self._shown = (len(self._log), shown)
        return shown

    def _announce(self) -> None:
        """The computer's move, said once when it comes on move."""
        shown = self.computer_move()
        if shown is None:
            return
        name = self.state.players[shown.seat].name
        if shown.kind == "play":
            where = ", ".join(f"{format_square((r, c))} {'?' if b else ch}" for r, c, ch, b in shown.squares)
            self._say("computer", shown.seat, f"{name} plays {shown.position} {shown.word} ({shown.score}): "
                      f"lay {where}, then press {name}'s button")
        elif shown.kind == "exchange":
            self._say("computer", shown.seat, f"{name} exchanges {shown.tiles}: put them back, take the tiles "
                      "named, press its button")
        else:
            self._say("computer", shown.seat, f"{name} passes: press its button")

    def _computer_action(self, inferred: Any) -> tuple[classic.Action | None, list[str]]:
        """The computer's move checked against the board: the action, or what is not as shown."""
        shown = self.computer_move()
        assert shown is not None
        laid = {t.coord: (BLANK_FACE if t.blank else t.letter) for t in inferred.placement.tiles} \
            if inferred.placement is not None else {}
        if shown.kind != "play":
            if laid:
                where = " ".join(format_square(c) for c in sorted(laid))
                return None, [f"the computer {'passes' if shown.kind == 'pass' else 'exchanges'}: take the tiles "
                              f"off {where}"]
            return (classic.Pass() if shown.kind == "pass" else classic.Exchange(shown.tiles)), []
        want = {(r, c): (BLANK_FACE if b else ch) for r, c, ch, b in shown.squares}
        wrong = []
        for sq, face in sorted(want.items()):
            if laid.get(sq) != face:
                got = laid.get(sq)
                wrong.append(f"{format_square(sq)} should hold {face}" + (f", not {got}" if got else ""))
        for sq in sorted(set(laid) - set(want)):
            wrong.append(f"{format_square(sq)}: no tile of the computer's move goes there")
        if wrong:
            return None, [f"the computer plays {shown.position} {shown.word}: " + "; ".join(wrong)]
        placement = Placement.of(PlacedTile(r, c, ch, b) for r, c, ch, b in shown.squares)
        return classic.Play(placement), []

    # -- clock actions, each logged --

    def _clock(self, op: str, at: int, player: int | None = None, ms: int | None = None,
               moves: int | None = None) -> None:
        at = self._at(at)
        if op == "start" or op == "resume":
            if self.adjourned and self.clocks is None:
                self._say("resumed", None, "The game goes on")
            else:
                super().resume(at)
            self.adjourned = False
        elif op == "adjourn":
            self.adjourned = True
            if self.clocks is not None and not self.clocks.paused and any(c.on_move is not None for c in self.clocks.clocks):
                ClassicSession.pause(self, at)
            name = " v ".join(p.name for p in self.state.players)
            self._say("adjourned", None, f"Adjourned: {name}. The game is kept; Start / resume goes on with it")
        elif op == "pause":
            super().pause(at)
        elif op == "press":
            assert self.clocks is not None and player is not None
            before = [[self.clocks.remaining_ms(i, at), self._moves(i)] for i in range(len(self.state.players))]
            self.clocks.press(player, at)
            self.pending_press = {"player": player, "at": at, "before": before}
        elif op == "sync":
            self._sync_clock(at)
            self.pending_press = None
        elif op == "restore":
            # A press that ended in a question is undone on the clocks: each player's time and
            # moves as they were before it (the judging time is nobody's; no increment, delay or
            # stage is earned by a move not made).
            assert self.clocks is not None and player is not None and ms is not None and moves is not None
            self.clocks.correct(player, at, "table", "a press that ended in a question", remaining_ms=ms, moves=moves)
        else:
            raise ValueError(f"unknown clock action {op!r}")
        more = {k: v for k, v in (("ms", ms), ("moves", moves)) if v is not None}
        self._store_event("clock", {"op": op, "player": player, **more}, at)

    def _moves(self, player: int) -> int:
        assert self.clocks is not None
        c, side = self.clocks.seats[player]
        return self.clocks.clocks[c].moves(side)

    def pause(self, now_ms: int) -> None:
        self._clock("pause", now_ms)

    def resume(self, now_ms: int) -> None:
        self._clock("resume", now_ms)

    # -- the table's turn --

    def press(self, player: int, at_ms: int) -> str:
        """A player's clock button: ``start`` (the clock started), ``judge`` (the clock switched:
        now look at the board) or ``ignored: why``."""
        state, clocks = self.state, self.clocks
        ignored = press_ignored(state, self.pending_press, player)
        if ignored:
            return ignored
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
        self.observe(reading)
        self.asking = None
        return self._settle(at, player, Asking(player, tuple(reading.cells), press["at"]), lexicon)

    def _settle(self, at: int, player: int, asking: Asking, lexicon: Container[str] | None = None) -> dict[str, Any]:
        """The move the board shows (``asking``: the reading, with the squares answered so far),
        or the questions it leaves open."""
        state = self.state
        tileset = get_tileset(state.options.tileset)
        lexicon = self._lexicon(state.options.tileset) if lexicon is None else lexicon
        inferred = infer_move(state.board, asking.cells, tileset, lexicon, named=asking.named)
        if inferred.placement is None and inferred.questions:
            return self._question(at, player, list(inferred.questions), asking=asking if inferred.asks else None,
                                  asks=inferred.asks)
        later = list(inferred.questions)  # which letter a blank stands for, asked with the move
        if state.to_move in self.computers:
            computed, wrong = self._computer_action(inferred)
            if computed is None:
                return self._question(at, player, wrong)
            action: classic.Action = computed
            later = []  # the computer knows its blanks' letters
        elif inferred.placement is not None:
            too_many = over_counts(state.board, inferred.placement, tileset)
            if too_many:
                return self._question(at, player, too_many)
            action = classic.Play(inferred.placement)
        else:
            action = self._no_tiles()
        verdicts = self._append(at, "table", _acted(action))
        if len(verdicts) == 1 and verdicts[0].kind is VerdictKind.REFUSED:
            return self._question(at, player, [verdicts[0].message], said=True)
        self.pending_press = None
        self.questions = []
        self.asking = None
        self.declared = None
        if later:  # the move stands; which letter a blank stands for is asked
            self._ask(at, player, later)
        kinds = [v.kind.value for v in verdicts]
        return {"kind": "move" if inferred.placement is not None else "no tiles", "verdicts": kinds,
                "questions": later}

    def _no_tiles(self) -> classic.Action:
        """A turn without tiles: an exchange when its player said so on the page, else a pass
        (the board cannot tell them apart). With private racks only the number is known."""
        d = self.declared
        if d is not None and d["player"] == self.state.to_move:
            return classic.Exchange(BLANK * d["count"])
        return classic.Pass()

    def declare_exchange(self, now_ms: int, count: Any) -> None:
        """The player on move: "my turn is an exchange of ``count`` tiles" (0: it is not)."""
        state = self.state
        if state.over or state.awaiting_racks:
            raise ActionError("the game is over", 409)
        if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= state.players[state.to_move].rack_size:
            raise ActionError(f"count: 0 to {state.players[state.to_move].rack_size} tiles")
        if count and state.bag_size < count:
            raise ActionError(f"only {state.bag_size} tiles in the bag: no exchange of {count}", 409)
        self.declared = {"player": state.to_move, "count": count} if count else None
        self._store_event("declare", {"player": state.to_move, "count": count}, self._at(now_ms))
        name = state.players[state.to_move].name
        self._say("declared", state.to_move, f"{name} exchanges {count} tiles: put them back in the bag, "
                  "draw, and press" if count else f"{name} does not exchange")

    def enter_racks(self, now_ms: int, racks: Any) -> None:
        """The tiles left on each rack at the end of a game with private racks (one string a
        player, in seat order; empty for an empty rack)."""
        if not isinstance(racks, list) or not all(isinstance(r, str) for r in racks):
            raise ActionError("racks: one string of tiles a player, like [\"AEI\", \"\"] (? for a blank)")
        if not self.state.awaiting_racks:
            raise ActionError("the racks are told only when the game is over and the companion asks", 409)
        verdicts = self._append(now_ms, "admin", Acted(classic.RevealRacks(tuple(r.strip().upper() for r in racks))))
        if len(verdicts) == 1 and verdicts[0].kind is VerdictKind.REFUSED:
            raise ActionError(verdicts[0].message)

    def resign(self, now_ms: int, player: Any) -> None:
        """``player`` resigns: the game ends now."""
        n = len(self.state.players)
        if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < n:
            raise ActionError(f"player: 0 to {n - 1}")
        if self.state.over:
            raise ActionError("the game is over", 409)
        verdicts = self._append(now_ms, "admin", Acted(classic.Resign(player)))
        if len(verdicts) == 1 and verdicts[0].kind is VerdictKind.REFUSED:
            raise ActionError(verdicts[0].message, 409)

    def adjourn(self, now_ms: int) -> None:
        """The game stops for now, its clock paused; it is kept in the log and goes on with
        Start / resume (after a restart too)."""
        if self.state.over:
            raise ActionError("the game is over", 409)
        if self.adjourned:
            raise ActionError("the game is adjourned already", 409)
        self._clock("adjourn", now_ms)

    def answer(self, now_ms: int, square: Any, letter: Any, blank: Any = False) -> dict[str, Any]:
        """The players' answer to the open question about ``square``: the tile there (``letter``;
        ``blank``: a blank, ``letter`` then the letter it stands for, or empty when the word
        list is to tell) or none (``letter`` empty). It completes the move that asked, scored
        as if the camera had read it so."""
        asking = self.asking
        if asking is None or not asking.asks:
            raise ActionError("there is no question about a square to answer", 409)
        if not isinstance(square, str):
            raise ActionError("square: like H8 (column letter, row number)")
        coord = _square(square, self.state.board)
        ask = next((a for a in asking.asks if a.square == coord), None)
        if ask is None:
            raise ActionError(f"{format_square(coord)} is not asked about "
                              f"(asked: {', '.join(format_square(a.square) for a in asking.asks)})", 409)
        if letter is None:
            letter = ""
        if not isinstance(letter, str) or not isinstance(blank, bool):
            raise ActionError("letter: one letter of the tile set, or empty for no tile; blank: true or false")
        letter = letter.strip().upper()
        face = BLANK_FACE if blank or letter == BLANK_FACE else letter
        named = letter if blank and letter not in ("", BLANK_FACE) else None
        if face not in ask.choices:
            allowed = ", ".join("no tile" if c == "" else ("a blank" if c == BLANK_FACE else c) for c in ask.choices)
            raise ActionError(f"{format_square(coord)}: one of {allowed}")
        if named is not None and named not in self.state.tileset.alphabet:
            raise ActionError(f"{named!r} is not a letter of the {self.state.tileset.name} tile set")
        at = self._at(now_ms)
        self._store_event("answer", {"square": list(coord), "letter": letter, "blank": bool(blank)}, at)
        told = "no tile" if face == "" else (f"a blank as {named}" if named else ("a blank" if face == BLANK_FACE else face))
        self._say("answer", asking.player, f"Answered: {format_square(coord)} is {told}")
        self.asking = asking.answered(coord, face, named)
        return self._settle(at, asking.player, self.asking)

    def _question(self, at: int, player: int, questions: list[str], said: bool = False,
                  asking: Asking | None = None, asks: Sequence[Ask] = ()) -> dict[str, Any]:
        """The turn is not over: the clock goes back to the player, who answers on the page (a
        question about squares) or sets the board right and presses again. The press is undone
        on the clocks: every player's time and moves as before it, so the time the table took to
        judge it is charged to no one (and no increment is earned by a move not made)."""
        self.asking = replace(asking, asks=tuple(asks)) if asking is not None else None
        self._ask(at, player, questions, said=said)
        if self.clocks is not None and self.pending_press is not None and "before" in self.pending_press:
            before = self.pending_press["before"]
            self._clock("sync", at)
            for i, (remaining, moves) in enumerate(before):
                if (self.clocks.remaining_ms(i, at), self._moves(i)) != (remaining, moves):
                    self._clock("restore", at, i, remaining, moves)
        elif self.clocks is not None:
            self._clock("sync", at)
        self.pending_press = None
        return {"kind": "question", "questions": questions}

    def _ask(self, at: int, player: int, questions: list[str], said: bool = False) -> None:
        self.questions = list(questions)
        if not said:
            for q in questions:
                self._say("question", player, q)
        payload: dict[str, Any] = {"player": player, "questions": questions, "said": said}
        if self.asking is not None:
            payload["asking"] = self.asking.to_json()
        self._store_event("question", payload, at)

    # -- restoring --

    @classmethod
    def restore(cls, store: GameStore, game: str | None = None, *,
                lexicon_for: Callable[[str], Container[str]] | None = None,
                generator_for: Callable[[str], Any] | None = None) -> TableSession | None:
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
        names = [stored_name(n, i) for i, n in enumerate(ev.names)]  # type: ignore[union-attr]
        s = cls(store, names, control=first.payload["settings"]["control"],  # type: ignore[union-attr]
                computers=first.payload["settings"].get("computers"),
                challenge=ev.options.challenge.value, tileset=ev.options.tileset,  # type: ignore[union-attr]
                seed=ev.seed, now_ms=start.at_ms, lexicon_for=lexicon_for, _replaying=True,  # type: ignore[union-attr]
                generator_for=generator_for)
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
                self.pending_press, self.questions, self.asking, self.declared = None, [], None, None
        elif e.kind == "clock":
            op, player = e.payload["op"], e.payload.get("player")
            if op == "press" and self.clocks is None:
                self.pending_press = {"player": player, "at": self._at(e.at_ms)}
            else:
                self._clock(op, e.at_ms, player, e.payload.get("ms"), e.payload.get("moves"))
        elif e.kind == "question":
            asking = e.payload.get("asking")
            self.asking = Asking.from_json(asking) if asking is not None else None
            self._ask(e.at_ms, e.payload["player"], e.payload["questions"], said=e.payload.get("said", False))
            if self.clocks is None:
                self.pending_press = None
        elif e.kind == "declare":
            count = int(e.payload["count"])
            self.declared = {"player": int(e.payload["player"]), "count": count} if count else None
        elif e.kind == "answer":
            # What the answer settled follows as its own events (the move, or the next question).
            self._say("answer", self.asking.player if self.asking else None,
                      f"Answered: {format_square(tuple(e.payload['square']))}")



def press_ignored(state: Any, pending_press: dict[str, int] | None, player: int) -> str | None:
    """Why a clock press is ignored before any game's own rule, or None: no such player, the game
    over, or the last press still being judged (classic and Scrabble III alike)."""
    if not 0 <= player < len(state.players):
        return "ignored: no such player"
    if state.over:
        return "ignored: the game is over"
    if pending_press is not None:
        return "ignored: the last press is still being judged"
    return None


@dataclass(frozen=True)
class Asking:
    """A press whose board left questions about squares: the reading it judged, the squares
    answered since (``cells`` carries them as sure readings; ``named``: letters said for
    blanks), the questions still open, and when the press was."""

    player: int
    cells: tuple[CellReading, ...]
    press_at: int
    named: dict[Coord, str] = field(default_factory=dict)
    asks: tuple[Ask, ...] = ()

    def answered(self, square: Coord, face: str, named: str | None) -> Asking:
        names = {**self.named, square: named} if named else {k: v for k, v in self.named.items() if k != square}
        return replace(self, cells=answered(self.cells, square, face), named=names)

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "press_at": self.press_at, "cells": [c.to_json() for c in self.cells],
                "named": [[r, c, ch] for (r, c), ch in self.named.items()],
                "asks": [{"square": list(a.square), "kind": a.kind, "text": a.text, "choices": list(a.choices)}
                         for a in self.asks]}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Asking:
        return cls(int(d["player"]), tuple(CellReading.from_json(c) for c in d["cells"]), int(d["press_at"]),
                   {(int(r), int(c)): str(ch) for r, c, ch in d.get("named", [])},
                   tuple(Ask((int(a["square"][0]), int(a["square"][1])), a["kind"], a["text"], tuple(a["choices"]))
                         for a in d.get("asks", [])))


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


