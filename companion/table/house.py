"""Scrabble House at the table: one session for two boards, each read by its own camera.

The rules are :mod:`companion.rules.house` (pure). This module is what the table loop
(:class:`companion.table.Table`) and the hub need around them, as
:class:`companion.table.TableSession` is for the classic game:

- :class:`HouseSession`: the match, its two clocks (sudden death, :func:`house_clocks`), the
  feed the page shows, and the game log (:mod:`companion.table.store`): every clock action and every
  board reading judged is appended before the state is published, and :meth:`HouseSession.restore`
  folds the log back to the same match. The readings, not the verdicts, are logged: replaying
  them through the same rules gives the same verdicts (as the classic log replays its actions).
- :class:`HouseBoard` and :class:`BoardHub`: one board's face of the session and of the hub,
  so that an unchanged :class:`~companion.table.Table` drives each board: two Tables (two
  camera sources, two threads) share one hub, whose game thread alone touches the session.

A turn at the table. The player on move lays his tiles and presses his clock: the clock
switches and the camera looks. A plain play ends the turn. A play that explodes is shown on the
page (turned squares, squares taken off step by step, the tiles that go to the partner) and the
clock goes back to the mover: the explosion is done on his time (rule 6). He turns and takes off
the tiles as shown and presses again; the camera confirms the board matches the preview (or
names the squares that do not, and the clock goes back again). A press with the board unchanged
passes the turn. A refused play or a question sends the clock back to the mover too.
Starting: the opponent of the player who starts a board presses first, which starts that board's
clock (rule 3).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from typing import Any

from dataclasses import replace

from companion.core.board import Coord, Direction
from companion.core.errors import CompanionError
from companion.core.gcg import Event, GameRecord, nick_of, with_racks, write_gcg
from companion.core.gcg import Pass as GcgPass
from companion.core.gcg import Play as GcgPlay
from companion.core.gcg import Player as GcgPlayer
from companion.core.move import Placement, PlacedTile, format_square, notation_of
from companion.core.words import placement_direction
from companion.rules import house
from companion.rules.house import HouseOptions, HouseState, VerdictKind
from companion.table.store import GameStore, StoredEvent
from companion.table.session import UNREADABLE, LoggedGame
from companion.vision.reading import BoardReading, CellReading
from companion.table.session import FEED_KEPT, ActionError

KIND = "house"  # the game log's event kind for everything of this game
# Verdicts after which the board's turn is not over: the clock goes back to the mover.
NOT_DONE = {VerdictKind.EXPLOSION, VerdictKind.WAITING, VerdictKind.REFUSED, VerdictKind.QUESTION}


class HouseSession(LoggedGame):
    """Scrabble House at one table of two boards (see the module's doc)."""

    game = "house"
    boards = 2
    seats = 4  # type: ignore[assignment]

    def board_of(self, player: int) -> int:
        return house.board_of(player)

    @property
    def tileset_name(self) -> str:
        return self.state.options.tileset

    def __init__(self, store: GameStore, names: Sequence[str] = ("Player 1", "Player 2", "Player 3", "Player 4"), *,
                 options: HouseOptions = HouseOptions(), first: int = 0, seed: int = 0, now_ms: int = 0,
                 lexicon_for: Callable[[str], Container[str]] | None = None, _replaying: bool = False) -> None:
        if lexicon_for is None:
            from companion.lexicon import load_lexicon

            lexicon_for = load_lexicon
        self.store = store
        self._replaying = _replaying
        self.lexicon = lexicon_for(options.tileset)
        self.revision = 0
        self.feed: list[dict[str, Any]] = []
        self._feed_seq = 0
        self.ref: int | None = None  # the caller's mark for the events stored next
        self.last_ref = -1
        self.pending: list[dict[str, int] | None] = [None, None]  # a press not judged yet, per board
        self.questions: list[list[str]] = [[], []]
        self.seen: list[dict[Coord, dict[str, Any]]] = [{}, {}]
        self.last_play: list[tuple[Coord, ...]] = [(), ()]
        self.history: list[dict[str, Any]] = []
        self._latest = now_ms
        self.state: HouseState = house.new_match(names, options, first=first, seed=seed, track_tiles=False)
        self.clocks = house.house_clocks(options.minutes)
        self.game_id = f"house-{seed:x}-{now_ms:x}"
        self.settings = {"names": list(names), "tileset": options.tileset, "colours": list(options.colours),
                         "minutes": options.minutes, "first": first, "seed": seed}
        if options.challenges:  # (only then: a log without the key is a match without challenges)
            self.settings["challenges"] = True
        self._store_event(KIND, {"type": "started", **self.settings}, now_ms)
        self._say("new-game", None, f"Scrabble House: {names[0]} and {names[2]} v {names[1]} and {names[3]}")

    # -- the hub's protocol --

    def tick(self, now_ms: int) -> None:
        """The clocks: a flag fall loses the match for the player's team."""
        if self.state.over:
            return
        for action in house.clock_actions(self.clocks.poll(self._at(now_ms))):
            out = house.apply(self.state, action, self.lexicon)
            self.state = out.state
            for v in out.verdicts:
                self._say("flag" if v.kind is VerdictKind.WON else v.kind.value, action.player, v.message)
            if self.state.over:
                self._stop_clocks(self._latest)

    def board(self, index: int) -> HouseBoard:
        return HouseBoard(self, index)

    def gcg(self, board: int = 0) -> str:
        """One board's game as GCG (a GCG file holds one board): its two players, every play
        at its square with the tiles played as the rack, passes, and each explosion as a note
        after the play that set it off (GCG has no event that takes tiles off the board).
        House scores no points: every event is +0; the tiles each player owns are in the notes,
        and the match's result (a win, a flag fall, a challenge) in the last event's."""
        if board not in (0, 1):
            raise ActionError("board: 1 or 2 (Scrabble House has two boards)", 404)
        seats = [p for p in range(4) if house.board_of(p) == board]
        nicks = {p: nick_of(self.state.names[p], p) for p in seats}
        players = tuple(GcgPlayer(i + 1, nicks[p], self.state.names[p]) for i, p in enumerate(seats))
        events: list[Event] = []
        for row in self.history:
            if row["board"] != board or row["player"] not in nicks:
                continue
            nick = nicks[row["player"]]
            if row["kind"] == "play" and "position" in row:
                events.append(GcgPlay(nick=nick, position=row["position"], word=row["word"], score=0, total=0))
            elif row["kind"] == "pass":
                events.append(GcgPass(nick=nick))
            elif row["kind"] == "explosion" and events:
                squares = " ".join(format_square(tuple(s)) for s in row["removed"])  # type: ignore[arg-type]
                turned = " ".join(format_square(tuple(s)) for s in row["turned"])  # type: ignore[arg-type]
                note = f"{row['what']}; taken off: {squares or 'none'}; turned: {turned or 'none'}"
                events[-1] = replace(events[-1], notes=events[-1].notes + (note,))
        ended: tuple[str, ...] = ()
        if self.state.over:
            # The match's end in both boards' records, as the classic game's last event says it.
            team = " and ".join(self.state.names[p] for p in range(4) if house.team_of(p) == self.state.winner)
            ended = (f"Result: {team} win ({self.state.reason})",)
            if events:
                events[-1], ended = replace(events[-1], notes=events[-1].notes + ended), ()
        b = self.state.boards[board]
        own = ", ".join(f"{self.state.names[p]} {self.state.own_count(p)}" for p in seats)
        record = GameRecord(
            players=players,
            events=with_racks(tuple(events)),
            title=f"Scrabble House at the companion's table ({self.game_id}), board {board + 1} ({b.colour})",
            tile_set="en",
            notes=((f"own tiles: {own}",) if own else ()) + ended,
            incomplete=None if self.state.over else "",
        )
        return write_gcg(record)

    def new_game(self, now_ms: int, **settings: Any) -> None:
        raise ActionError("a new Scrabble House match starts with `companion run` (two cameras)", 409)

    def pause(self, now_ms: int) -> None:
        self._clock_op("pause", now_ms)

    def resume(self, now_ms: int) -> None:
        self._clock_op("resume", now_ms)

    def correct(self, now_ms: int, square: str, letter: str | None, blank: bool = False) -> None:
        raise ActionError("in Scrabble House the camera's board is corrected at the table: set the tiles right and press", 409)

    def rule_challenge(self, now_ms: int, decision: str, by: int | None = None) -> None:
        raise ActionError("Scrabble House has no challenges: words are judged by the house list as they are played", 409)

    def undo(self, now_ms: int) -> None:
        raise ActionError("Scrabble House has no undo", 409)

    def challenge(self, now_ms: int, by: Any, board: Any = None) -> None:
        """Rule 9: ``by`` challenges the last play on ``board`` (default: the board of the
        latest play); the word list decides, and the match is over."""
        if not isinstance(by, int) or isinstance(by, bool) or not 0 <= by < 4:
            raise ActionError("by: the number of the challenging player, 0 to 3")
        if board is None:
            plays = [row["board"] for row in self.history if row["kind"] == "play"]
            if not plays:
                raise ActionError("there is no play to challenge", 409)
            board = plays[-1]
        if board not in (0, 1):
            raise ActionError("board: 0 or 1")
        at = self._at(now_ms)
        self._challenge(by, board, at)

    def _challenge(self, by: int, board: int, at: int) -> None:
        out = house.apply(self.state, house.Challenge(by, board), self.lexicon)
        if out.verdicts[0].kind is VerdictKind.REFUSED:
            raise ActionError(out.verdicts[0].message, 409)
        self._store_event(KIND, {"type": "challenge", "player": by, "board": board}, at)
        self.state = out.state
        for v in out.verdicts:
            self._say(v.kind.value, v.player, v.message)
        self.history.append({"board": board, "player": by, "kind": "challenge", "what": out.verdicts[0].message})
        if self.state.over:
            self._stop_clocks(at)

    # -- the table's turn, one board at a time --

    def press(self, index: int, player: int, at_ms: int) -> str:
        """A player's clock button at board ``index``: ``start``, ``judge`` (look at the board)
        or ``ignored: why``."""
        if not 0 <= player < 4 or house.board_of(player) != index:
            return "ignored: no such player at this board"
        if self.state.over:
            return "ignored: the match is over"
        if self.pending[index] is not None:
            return "ignored: the last press is still being judged"
        clock = self.clocks.clocks[index]
        mover = self.state.to_move(index)
        if clock.on_move is None:
            if player != house.opponent_of(mover):
                return f"ignored: {self.state.names[house.opponent_of(mover)]} starts {self.state.names[mover]}'s clock"
            self._clock("start", index, player, at_ms)
            return "start"
        if clock.paused:
            return "ignored: the clock is paused"
        if player != mover:
            return "ignored: not on move"
        self._clock("press", index, player, at_ms)
        return "judge"

    def judge(self, index: int, now_ms: int, reading: BoardReading | None) -> dict[str, Any]:
        """The verdict on board ``index``'s pending press, from the stable board the camera gave
        (None: it gave none)."""
        press = self.pending[index]
        if press is None:
            return {"kind": "nothing to judge"}
        at = self._at(now_ms)
        player = press["player"]
        if reading is None:
            self._store_event(KIND, {"type": "unread", "index": index, "player": player}, at)
            return self._unread(index, player, at)
        self._observe(index, reading)
        tiles = [_cell_json(c) for c in reading.cells if c.kind != "empty"]
        self._store_event(KIND, {"type": "reading", "index": index, "player": player, "tiles": tiles}, at)
        return self._judged(index, player, tiles, at)

    # -- inside --

    def _unread(self, index: int, player: int, at: int) -> dict[str, Any]:
        self.questions[index] = [UNREADABLE]
        self._say("question", player, f"Board {index + 1}: {UNREADABLE}")
        self.pending[index] = None
        self._sync(index, at)
        return {"kind": "question", "verdicts": ["question"], "questions": [UNREADABLE]}

    def _judged(self, index: int, player: int, tiles: list[list[Any]], at: int) -> dict[str, Any]:
        cells = _cells(tiles)
        out = house.judge_reading(self.state, index, cells, self.lexicon)
        if [v.kind for v in out.verdicts] == [VerdictKind.NOTHING]:
            out = house.apply(self.state, house.Pass(player), self.lexicon)  # a press with no play passes
        before = self.state
        self.state = out.state
        self.pending[index] = None
        self.questions[index] = [v.message for v in out.verdicts if v.kind is VerdictKind.QUESTION]
        for v in out.verdicts:
            self._say(v.kind.value, v.player, f"Board {index + 1}: {v.message}", words=list(v.words),
                      squares=[list(s) for s in v.squares])
            self._record(index, before, v)
        if self.state.over:
            self._stop_clocks(at)
        else:
            self._sync(index, at)
        kinds = [v.kind.value for v in out.verdicts]
        return {"kind": kinds[0], "verdicts": kinds, "questions": self.questions[index]}

    def _record(self, index: int, before: HouseState, v: house.Verdict) -> None:
        """The moves list and the last play's squares (the page's highlight)."""
        x = v.explosion
        if v.kind in (VerdictKind.PLAYED, VerdictKind.EXPLOSION) and x is not None:
            self.last_play[index] = x.placed
            what = ", ".join(x.words)
            self.history.append({"board": index, "player": v.player, "kind": "play", "what": what,
                                 "words": list(x.words), "squares": [list(s) for s in x.placed],
                                 **self._notation(index, before, x.placed)})
        elif v.kind is VerdictKind.CONFIRMED and x is not None:
            partner = house.partner_of(v.player)  # type: ignore[arg-type]
            self.history.append({"board": index, "player": v.player, "kind": "explosion",
                                 "what": f"explosion: {len(x.passed)} tiles to {self.state.names[partner]}",
                                 "removed": [list(s) for s in x.removed], "turned": [list(s) for s in x.turned]})
        elif v.kind is VerdictKind.PASSED:
            self.history.append({"board": index, "player": v.player, "kind": "pass", "what": "pass"})

    def _notation(self, index: int, before: HouseState, placed: Sequence[Coord]) -> dict[str, str]:
        """A play's GCG position and word (``.`` for the tiles it played through), from the board
        before it and the tiles it put down; {} when the tiles are not on the board."""
        after = self.state.boards[index].board
        tiles = [(coord, after[coord]) for coord in placed]
        if not tiles or any(t is None for _, t in tiles):
            return {}
        placement = Placement(tuple(PlacedTile(r, c, t.letter, t.blank) for (r, c), t in tiles))  # type: ignore[union-attr]
        direction = placement_direction(placement)
        old = before.boards[index].board
        if direction is None:  # one tile: the line it joins
            r, c = placement.tiles[0].coord
            direction = Direction.DOWN if (r - 1, c) in old or (r + 1, c) in old else Direction.ACROSS
        position, word = notation_of(old, placement, direction)
        return {"position": position, "word": word}

    def _observe(self, index: int, reading: BoardReading) -> None:
        seen: dict[Coord, dict[str, Any]] = {}
        for cell in reading.cells:
            if cell.kind in ("tile", "back") and cell.rgb is not None:
                seen[(cell.row, cell.col)] = {"rgb": list(cell.rgb)}
        if seen != self.seen[index]:
            self.seen[index] = seen
            self.revision += 1

    def _at(self, now_ms: int) -> int:
        """Time never runs backwards for the clocks."""
        self._latest = max(self._latest, int(now_ms))
        return self._latest

    def _clock(self, op: str, index: int, player: int, at_ms: int) -> None:
        at = self._at(at_ms)
        self.clocks.press(player, at)
        if op == "press":
            self.pending[index] = {"player": player, "at": at}
        elif op == "start":
            mover = self.state.to_move(index)
            self._say("started", mover, f"Board {index + 1}: {self.state.names[mover]} to play")
        self.revision += 1
        self._store_event(KIND, {"type": "clock", "op": op, "index": index, "player": player}, at)

    def _clock_op(self, op: str, now_ms: int) -> None:
        at = self._at(now_ms)
        if self.state.over:
            raise ActionError("the match is over", 409)
        if not any(c.on_move is not None for c in self.clocks.clocks):
            raise ActionError("the clocks start when a starting player's opponent presses", 409)
        if self.clocks.paused != (op == "resume"):
            raise ActionError("the clocks are already " + ("running" if op == "resume" else "paused"), 409)
        self.clocks.toggle_pause(at)
        self._store_event(KIND, {"type": "clock", "op": op}, at)
        self._say("paused" if op == "pause" else "resumed", None, "The clocks are paused" if op == "pause" else "The clocks run again")

    def _sync(self, index: int, at: int) -> None:
        """Board ``index``'s clock runs for the player the rules say is on move."""
        clock = self.clocks.clocks[index]
        want = self.state.boards[index].to_move
        if clock.on_move is not None and clock.on_move != want and not clock.over:
            self.clocks.press(house.player_at(index, clock.on_move), at)
            self.revision += 1

    def _stop_clocks(self, at: int) -> None:
        if not self.clocks.paused and any(c.on_move is not None and not c.over for c in self.clocks.clocks):
            self.clocks.toggle_pause(at)

    def _say(self, kind: str, player: int | None, message: str, **more: Any) -> None:
        self._feed_seq += 1
        self.feed.append({"id": self._feed_seq, "kind": kind, "player": player, "message": message, **more})
        del self.feed[:-FEED_KEPT]
        self.revision += 1

    # -- restoring --

    @classmethod
    def restore(cls, store: GameStore, *, lexicon_for: Callable[[str], Container[str]] | None = None) -> HouseSession | None:
        """The last House match of the log, folded back; None when the log has none."""
        events = [e for e in store.events() if e.kind == KIND]
        starts = [i for i, e in enumerate(events) if e.payload.get("type") == "started"]
        if not starts:
            return None
        first, *rest = events[starts[-1]:]
        p = first.payload
        options = HouseOptions(tileset=p["tileset"], colours=tuple(p["colours"]), minutes=p["minutes"],  # type: ignore[arg-type]
                               challenges=bool(p.get("challenges", False)))
        s = cls(store, p["names"], options=options, first=p["first"], seed=p["seed"], now_ms=first.at_ms,
                lexicon_for=lexicon_for, _replaying=True)
        if s.game_id != first.game:
            raise CompanionError(f"{store.path}: match {first.game} does not replay to itself")
        s._replay_events(rest)
        return s

    def _replay_event(self, e: StoredEvent) -> None:
        p = e.payload
        kind = p.get("type")
        if kind == "clock":
            if p["op"] in ("pause", "resume"):
                self.clocks.toggle_pause(self._at(e.at_ms))
            else:
                self._clock(p["op"], p["index"], p["player"], e.at_ms)
        elif kind == "reading":
            self.pending[p["index"]] = None
            self._judged(p["index"], p["player"], p["tiles"], self._at(e.at_ms))
        elif kind == "unread":
            self._unread(p["index"], p["player"], self._at(e.at_ms))
        elif kind == "challenge":
            self._challenge(p["player"], p["board"], self._at(e.at_ms))
        else:
            raise CompanionError(f"{self.store.path}: event {e.seq} of {e.game} is not one this companion knows")


class HouseBoard:
    """One board's face of the session: what :class:`companion.table.Table` calls."""

    def __init__(self, session: HouseSession, index: int) -> None:
        self.session, self.index = session, index

    @property
    def ref(self) -> int | None:
        return self.session.ref

    @ref.setter
    def ref(self, value: int | None) -> None:
        self.session.ref = value

    @property
    def pending_press(self) -> dict[str, int] | None:
        return self.session.pending[self.index]

    def press(self, player: int, at_ms: int) -> str:
        return self.session.press(self.index, player, at_ms)

    def judge(self, now_ms: int, reading: BoardReading | None) -> dict[str, Any]:
        return self.session.judge(self.index, now_ms, reading)


class BoardHub:
    """The hub as one board's Table sees it: the same game thread, the session's board face."""

    def __init__(self, hub: Any, index: int) -> None:
        self.hub, self.index = hub, index

    def call(self, fn: Callable[[Any, int], Any], timeout: float = 10.0) -> Any:
        return self.hub.call(lambda s, now: fn(s.board(self.index), now), timeout=timeout)


def _cell_json(cell: CellReading) -> list[Any]:
    return [cell.row, cell.col, cell.kind, cell.letter, cell.rotation, cell.set]


def _cells(tiles: list[list[Any]]) -> tuple[CellReading, ...]:
    """A logged reading back as cells (empty squares left out: the rules read only the tiles)."""
    return tuple(CellReading(r, c, kind, letter, rotation, set=set_) for r, c, kind, letter, rotation, set_ in tiles)
