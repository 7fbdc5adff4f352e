"""The solo dungeon at the table: the set-up rolled and checked by the camera, each press judged.

:class:`DungeonSession` is what :class:`companion.table.Table` and the hub need of a game
(``press``, ``judge``, ``pending_press``, ``document``, ``tick``, ``revision``), for the rules of
:mod:`companion.rules.dungeon`. One player, no clocks to switch: a press starts a capture burst
and the stable board the camera gives is judged.

The game goes through three phases:

1. **set-up**: the plan (where every obstacle goes) is on the page; the player lays it out and
   presses; the camera's board is checked square by square against the plan
   (:func:`~companion.rules.dungeon.check_setup`) and every difference is a question;
2. **rack**: the set-up stands; the player draws seven tiles and enters them on the page;
3. **play**: every press is a :class:`~companion.rules.dungeon.Move` of the board as the camera
   sees it; refills and burns come from the page with the tiles drawn.

The game log (:mod:`companion.table.store`) holds one event per action, kind ``dungeon``, appended
before the state is published: the start (the whole set-up), each press, each judged board
(its squares: what the rules saw), the rack, refills and burns, and each question. The state is
their fold: :meth:`DungeonSession.restore` replays them through the same rules, so a press
logged but not judged is judged after a restart (the board as it lies then).
"""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import Any

from companion.clock.engine import Stopwatch
from companion.core.board import STANDARD
from companion.core.move import format_square, parse_position
from companion.core.tiles import get_tileset
from companion.core.errors import CompanionError
from companion.rules import dungeon as rules
from companion.rules.dungeon import (
    DungeonState,
    Setup,
    check_setup,
    expected_view,
    setup_from_json,
)
from companion.table.store import GameStore, StoredEvent
from companion.table.session import CameraOnly, LoggedGame
from companion.vision.reading import BoardReading, CellReading
from companion.table.session import FEED_KEPT, MAX_NAME, TILESETS, ActionError, display_name

KIND = "dungeon"  # the game log's event kind for every dungeon event
SETUP, RACK, PLAY, OVER = "set-up", "rack", "play", "over"


def reading_to_json(reading: BoardReading) -> dict[str, Any]:
    """What the rules see of a reading, compactly: every square that is not empty."""
    cells = [[c.row, c.col, c.kind, c.letter, int(bool(c.token))] for c in reading.cells if c.kind != "empty" or c.token]
    return {"rows": reading.rows, "cols": reading.cols, "cells": cells}


def reading_from_json(doc: dict[str, Any]) -> BoardReading:
    rows, cols = int(doc["rows"]), int(doc["cols"])
    seen = {(int(r), int(c)): (kind, letter, bool(tok)) for r, c, kind, letter, tok in doc["cells"]}
    cells = []
    for r in range(rows):
        for c in range(cols):
            kind, letter, token = seen.get((r, c), ("empty", None, False))
            cells.append(CellReading(r, c, kind, letter, 0 if kind == "tile" else None, token=token))
    return BoardReading(rows, cols, ((0.0, 0.0),) * 4, tuple(cells))


class DungeonSession(CameraOnly, LoggedGame):
    """One solo dungeon game with its log. ``store`` None: nothing is logged (a page without a
    table). ``generator_for(tileset)``: the move generator of the word list, for the trapped
    check (default: the engine's for the lexicon)."""

    KIND = KIND  # the log's kind, for CameraOnly's press

    game = "dungeon"
    seats = 1  # type: ignore[assignment]

    @property
    def tileset_name(self) -> str:
        return self.tileset

    def __init__(self, store: GameStore | None, setup: Setup, *, name: str = "Player", tileset: str = "en",
                 now_ms: int = 0, lexicon_for: Callable[[str], Container[str]] | None = None,
                 generator_for: Callable[[str], Any] | None = None, _replaying: bool = False) -> None:
        if tileset not in TILESETS:
            raise ActionError(f"tile set: one of {', '.join(TILESETS)}")
        if lexicon_for is None:
            from companion.lexicon import load_lexicon

            lexicon_for = load_lexicon
        self.store = store
        self.setup = setup
        self.name = name
        self.tileset = tileset
        self.lexicon_for = lexicon_for
        self._generator_for = generator_for
        self._lexicon: Container[str] | None = None
        self._generator: Any = None
        self._replaying = _replaying
        self.revision = 0
        self.feed: list[dict[str, Any]] = []
        self._feed_seq = 0
        self.ref: int | None = None  # the caller's mark for the events stored next
        self.last_ref = -1
        self.pending_press: dict[str, Any] | None = None
        self.questions: list[str] = []
        self.problems: list[str] = []  # the last set-up check's differences
        self.laid_out: BoardReading | None = None  # the set-up as the camera accepted it
        self.rack_entered: str | None = None
        self.state: DungeonState | None = None
        self.board: BoardReading | None = None  # the last board judged
        self.last_verdicts: list[dict[str, Any]] = []
        self.history: list[dict[str, Any]] = []
        self.clocks = None  # no clock to switch: the table's press starts the look at once
        # The game's stopwatch: it starts when the dungeon is set (set-up standing, rack
        # entered), each judged move is a lap, it stops when the game is over.
        self.watch = Stopwatch()
        self.dice: Any = None  # the roll button's generator (None: the system's; a test's seeded one)
        self.game_id = f"dungeon-{setup.seed or 'table'}-{now_ms:x}"
        self._latest = now_ms
        self._store_event(KIND, {"op": "start", "setup": setup.to_json(), "tileset": tileset, "name": name}, now_ms)
        self._say("new-game", f"New dungeon: {setup.counted} objects, {setup.tiles} tiles to lay out as the plan shows")

    # -- reading --

    @property
    def phase(self) -> str:
        if self.state is not None and self.state.over:
            return OVER
        if self.laid_out is None:
            return SETUP
        if self.state is None:
            return RACK
        return PLAY

    def tick(self, now_ms: int) -> None:
        """No clock runs out in the dungeon (its stopwatch counts up)."""

    def watch_view(self, now_ms: int) -> dict[str, Any]:
        """The stopwatch as the page shows it: the time so far, whether it runs, the moves."""
        w = self.watch
        started = w.on_move is not None
        now_ms = max(now_ms, self._latest)
        return {"elapsed_ms": w.elapsed_ms(now_ms) if started else 0, "started": started,
                "running": started and not w.paused, "moves": w.moves()}

    def reroll(self, now_ms: int) -> str:
        """The roll button: the set-up rolled again (the same number of objects and dice), while
        nothing of it has been accepted yet."""
        if self.laid_out is not None or self.state is not None:
            return "ignored: the set-up stands: the dice roll only before it is laid out and accepted"
        if self.pending_press is not None:
            return "ignored: a press is being judged"
        try:
            setup = rules.roll_setup(self.setup.objects, self.setup.dice, None, rng=self.dice)
        except CompanionError as exc:
            raise ActionError(str(exc)) from None
        self._rolled(setup)
        self._store_event(KIND, {"op": "roll", "setup": setup.to_json()}, self._at(now_ms))
        return f"rolled: {setup.counted} objects, {setup.tiles} tiles"

    def _rolled(self, setup: Setup) -> None:
        self.setup = setup
        self.problems, self.questions = [], []
        self._say("rolled", f"The dice are rolled again: a new plan, {setup.counted} objects, "
                  f"{setup.tiles} tiles to lay out")

    def gcg(self) -> str:
        raise ActionError("the solo dungeon has no GCG record: its log is the game log", 409)

    # -- the log --

    def _at(self, now_ms: int) -> int:
        self._latest = max(self._latest, int(now_ms))
        return self._latest

    def _say(self, kind: str, message: str, **more: Any) -> None:
        self._feed_seq += 1
        self.feed.append({"id": self._feed_seq, "kind": kind, "player": 0, "message": message, **more})
        del self.feed[:-FEED_KEPT]
        self.revision += 1

    # -- the rules' word list --

    def lexicon(self) -> Container[str]:
        if self._lexicon is None:
            try:
                self._lexicon = self.lexicon_for(self.tileset)
            except CompanionError as exc:
                raise ActionError(str(exc), 409) from None
        return self._lexicon

    def generator(self) -> Any:
        if self._generator is None:
            if self._generator_for is not None:
                self._generator = self._generator_for(self.tileset)
            else:
                from companion.engine.movegen import generator_for

                self._generator = generator_for(self.tileset, self.lexicon())
        return self._generator

    # -- the table's turn --

    def _press_refused(self, player: int) -> str | None:
        if player != 0:
            return "the dungeon has one player"
        if self.phase == OVER:
            return "the game is over"
        if self.pending_press is not None:
            return "the last press is still being judged"
        if self.phase == RACK:
            self._say("question", "Draw seven tiles and enter them on the page before you press")
            return "the rack is not entered"
        return None

    def _press_payload(self, player: int) -> dict[str, Any]:
        return {"op": "press"}  # one player: the stored press names none

    def _judge_reading(self, at: int, reading: BoardReading) -> dict[str, Any]:
        if self.phase == SETUP:
            return self._check_setup(at, reading)
        return self._move(at, reading, {}, {})

    def _question(self, at: int, questions: list[str], said: bool = False) -> dict[str, Any]:
        self.pending_press = None
        self.questions = list(questions)
        if not said:
            for q in questions:
                self._say("question", q)
        self._store_event(KIND, {"op": "question", "questions": questions, "said": said}, at)
        return {"kind": "question", "questions": questions}

    def _check_setup(self, at: int, reading: BoardReading) -> dict[str, Any]:
        problems = check_setup(expected_view(self.setup), reading)
        self.problems = problems
        self.board = reading
        if problems:
            return self._question(at, [f"The set-up differs from the plan on {len(problems)} square"
                                       f"{'s' if len(problems) != 1 else ''}: " + "; ".join(problems)])
        self._store_event(KIND, {"op": "setup", "reading": reading_to_json(reading)}, at)
        self._set_up(reading)
        return {"kind": "set-up", "verdicts": ["set-up"]}

    def _set_up(self, reading: BoardReading) -> None:
        self.laid_out, self.board = reading, reading
        self.pending_press, self.questions, self.problems = None, [], []
        if self.rack_entered is None:
            self._say("set-up", "The set-up is as planned: draw seven tiles and enter them on the page")
        else:
            self._begin()

    def _begin(self) -> None:
        assert self.laid_out is not None and self.rack_entered is not None
        try:
            self.state = rules.new_game(self.setup, self.laid_out, tileset=self.tileset, rack=self.rack_entered)
        except CompanionError as exc:
            self.rack_entered = None
            raise ActionError(str(exc)) from None
        self.watch.press(0, self._latest)
        self._say("set-up", f"The dungeon is set: your first word begins at A1. Rack {self.rack_entered}")

    def _move(self, at: int, reading: BoardReading, monsters: dict[Any, str], blanks: dict[Any, str]) -> dict[str, Any]:
        assert self.state is not None
        out = rules.apply(self.state, rules.Move(reading, monsters, blanks), self.lexicon(), generator=self.generator())
        payload: dict[str, Any] = {"op": "move", "reading": reading_to_json(reading)}
        if monsters:
            payload["monsters"] = {format_square(k): v for k, v in monsters.items()}
        if blanks:
            payload["blanks"] = {format_square(k): v for k, v in blanks.items()}
        self._store_event(KIND, payload, at)
        self.board = reading
        return self._outcome(out, "move")

    def _outcome(self, out: rules.Outcome, what: str) -> dict[str, Any]:
        self.state = out.state
        if what == "move" and out.verdict.kind not in (rules.REFUSED, rules.ASK):
            self.watch.press(0, self._latest)  # a move ends a lap
        if out.state.over and not self.watch.paused and self.watch.on_move is not None:
            self.watch.pause(self._latest)
        self.pending_press = None
        verdicts = [{"kind": v.kind, "message": v.message, "points": v.points, "words": list(v.words),
                     "squares": [list(s) for s in v.squares]} for v in out.verdicts]
        self.last_verdicts = verdicts
        refused = out.verdict.kind in (rules.REFUSED, rules.ASK)
        self.questions = [out.verdict.message] if refused else []
        for v in out.verdicts:
            self._say(v.kind, v.message, points=v.points, words=list(v.words))
        if not refused:
            self.history.append({"turn": len(self.history) + 1, "what": what, "kind": out.verdict.kind,
                                 "message": out.verdict.message, "points": out.verdict.points,
                                 "total": out.state.score})
        return {"kind": what if not refused else "question", "verdicts": [v["kind"] for v in verdicts],
                "questions": list(self.questions)}

    # -- the page's actions (the player's hands on the rack) --

    def enter_rack(self, now_ms: int, tiles: Any) -> None:
        """The seven tiles first drawn."""
        if self.state is not None:
            raise ActionError("the rack is entered: refill or burn to change it", 409)
        text = self._tiles(tiles)
        if len(text) != rules.RACK_SIZE:
            raise ActionError(f"the first rack has {rules.RACK_SIZE} tiles, not {len(text)}")
        self.rack_entered = text
        self._store_event(KIND, {"op": "rack", "tiles": text}, self._at(now_ms))
        if self.laid_out is not None:
            self._begin()
        else:
            self._say("rack", f"Rack {text}: now lay out the set-up and press")

    def refill(self, now_ms: int, drawn: Any) -> None:
        self._rack_action(now_ms, "refill", rules.Refill(self._tiles(drawn)))

    def burn(self, now_ms: int, drawn: Any) -> None:
        self._rack_action(now_ms, "burn", rules.Burn(self._tiles(drawn)))

    def _rack_action(self, now_ms: int, op: str, action: rules.Refill | rules.Burn) -> None:
        if self.state is None:
            raise ActionError("the game has not begun: check the set-up and enter the rack first", 409)
        if self.pending_press is not None:
            raise ActionError("a press is being judged: try again in a moment", 409)
        out = rules.apply(self.state, action, self.lexicon(), generator=self.generator())
        if out.verdict.kind == rules.REFUSED:
            raise ActionError(out.verdict.message, 409)
        self._store_event(KIND, {"op": op, "drawn": action.drawn}, self._at(now_ms))
        self._outcome(out, op)

    def _tiles(self, tiles: Any) -> str:
        if not isinstance(tiles, str) or not 0 < len(tiles.strip()) <= 2 * rules.RACK_SIZE:
            raise ActionError("tiles: the letters drawn, like AEINRST (? for a blank)")
        try:
            drawn = get_tileset(self.tileset).parse_rack(tiles.strip().upper())
        except CompanionError as exc:
            raise ActionError(str(exc)) from None
        return "".join(sorted(drawn.elements()))

    # -- the organiser's actions the page offers every game --

    def new_game(self, now_ms: int, *, names: Any = None, tileset: Any = "en", seed: Any = None, objects: Any = None,
                 dice: Any = None) -> Any:
        """A new dungeon at the table (another game is :func:`companion.table.games.new_game`'s)."""
        return start_dungeon(self.store, now_ms, names=names if names is not None else [self.name],
                             tileset=tileset, seed=seed, objects=objects, dice=dice, lexicon_for=self.lexicon_for)

    def rule_challenge(self, now_ms: int, decision: str, by: int | None = None) -> None:
        raise ActionError("there is nothing to challenge in the solo dungeon", 409)

    def undo(self, now_ms: int) -> None:
        raise ActionError("the dungeon has no undo: set the board as it was and press", 409)

    # -- restoring --

    @classmethod
    def restore(cls, store: GameStore, game: str | None = None, *,
                lexicon_for: Callable[[str], Container[str]] | None = None,
                generator_for: Callable[[str], Any] | None = None) -> DungeonSession | None:
        """The current game (or ``game``) folded from the log; None when the log has none."""
        game = store.current_game() if game is None else game
        if game is None:
            return None
        events = store.events(game)
        first = events[0]
        if first.kind != KIND or first.payload.get("op") != "start":
            raise CompanionError(f"{store.path}: game {game} is not a dungeon game")
        p = first.payload
        s = cls(store, setup_from_json(p["setup"]), name=p.get("name", "Player"), tileset=p["tileset"],
                now_ms=first.at_ms, lexicon_for=lexicon_for, generator_for=generator_for, _replaying=True)
        s.game_id = game
        s._replay_events(events[1:])
        return s

    def _replay_event(self, e: StoredEvent) -> None:
        p = e.payload
        op = p.get("op")
        at = self._at(e.at_ms)
        if op == "press":
            self.pending_press = {"player": 0, "at": at}
        elif op == "question":
            self._question(at, list(p["questions"]), said=bool(p.get("said")))
        elif op == "setup":
            self._set_up(reading_from_json(p["reading"]))
        elif op == "roll":
            self._rolled(setup_from_json(p["setup"]))
        elif op == "rack":
            self.enter_rack(at, p["tiles"])
        elif op == "move":
            squares = {k: _coord(k) for k in (*p.get("monsters", {}), *p.get("blanks", {}))}
            self._move(at, reading_from_json(p["reading"]),
                       {squares[k]: v for k, v in p.get("monsters", {}).items()},
                       {squares[k]: v for k, v in p.get("blanks", {}).items()})
        elif op in ("refill", "burn"):
            self.pending_press = None
            getattr(self, op)(at, p["drawn"])
        else:
            raise CompanionError(f"{self.store.path if self.store else 'log'}: event {e.seq}: unknown dungeon event {op!r}")


def start_dungeon(store: GameStore | None, now_ms: int, *, names: Any = None, tileset: Any = "en", seed: Any = None,
                  objects: Any = None, dice: Any = None,
                  lexicon_for: Callable[[str], Container[str]] | None = None) -> DungeonSession:
    """A new dungeon from the page's settings: the dice rolled (``seed``: the same set-up again)."""
    if names is None:
        names = ["Player"]
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise ActionError("names: a list with the one player's name")
    if len(names) != 1:
        raise ActionError(f"the solo dungeon has one player, not {len(names)}")
    name = display_name(names[0])
    if name is None:
        raise ActionError(f"a display name has 1 to {MAX_NAME} characters, none of them a control character")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63):
        raise ActionError("seed: a whole number")
    objects = rules.DEFAULT_OBJECTS if objects is None else objects
    dice = 2 if dice is None else dice
    if not isinstance(objects, int) or isinstance(objects, bool) or not isinstance(dice, int) or isinstance(dice, bool):
        raise ActionError("objects and dice: whole numbers")
    try:
        setup = rules.roll_setup(objects, dice, None if seed is None else str(seed))
    except CompanionError as exc:
        raise ActionError(str(exc)) from None
    return DungeonSession(store, setup, name=name, tileset=tileset, now_ms=now_ms, lexicon_for=lexicon_for)




def _coord(name: str) -> tuple[int, int]:
    coord, _ = parse_position(name, STANDARD)
    return coord
