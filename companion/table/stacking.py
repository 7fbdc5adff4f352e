"""The stacking game at the table (rules/003): the companion deals, sells and keeps the stacks.

The online game's pool, marketplace and rainbow draws are hidden or shared state no one at a
real table can see, so the companion runs them (:mod:`companion.rules.stacking`, dealt from the
game's seed) and the page says what to do with the tiles: which to take from a sorted supply
(wilds are blanks), which of them to mark with a token (a rainbow tile), what goes out in the
marketplace. :class:`StackingSession` is what :class:`companion.table.table.Table` and the hub
need of a game (``press``, ``judge``, ``pending_press``, ``tick``, ``revision``); the page's view
is :func:`companion.table.stacking_snapshot.stacking_document`.

A press by the player to move starts a look at the board. The camera sees only top tiles: the
board is compared with the top tiles the game holds (:func:`companion.table.inference.infer_move`
with ``stacking``: a square whose letter changed is a tile put on top; in the other games it is a
question), the tokens with the rainbow tiles (:func:`companion.rules.stacking.read_tokens`), and
the rules judge the play; no new tile is a pass. Stack heights come from the game, never from
the camera. Purchases, a redraw and a concession come from the page (the organiser's actions
``buy``, ``redraw``, ``concede``), as a tap or a button would. There is no clock: the text has
none.

The game log holds one event per action, kind ``stacking``, appended before the state is
published: the start (names, options, seed), each press, each board judged (what the camera
saw), each purchase, redraw and concession. The state is their fold: :meth:`restore` judges the
same boards again through the same rules.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from typing import Any

from companion.core.errors import CompanionError
from companion.core.gcg import write_gcg
from companion.core.move import parse_position
from companion.core.tiles import BLANK, get_tileset
from companion.rules import stacking as rules
from companion.rules.stacking import GameLength, StackingOptions, VerdictKind
from companion.rules.stacking_record import options_text, parse_options, rack_text, write_record
from companion.table.dungeon import reading_from_json, reading_to_json
from companion.table.inference import infer_move
from companion.table.session import (
    FEED_KEPT,
    MAX_NAME,
    TILESETS,
    ActionError,
    CameraOnly,
    LoggedGame,
)
from companion.table.store import GameStore, StoredEvent
from companion.vision.reading import BoardReading

KIND = "stacking"  # the game log's event kind for every stacking event


def tiles_to_take(tiles: Sequence[str], rainbows: Sequence[str] = ()) -> str:
    """What a player takes from the sorted supply, in its order: ``A, E, E, R, blank``, and
    which to mark: ``(mark the E with a token)``."""
    letters = sorted(t for t in tiles if t != BLANK) + ["blank"] * sum(1 for t in tiles if t == BLANK)
    text = ", ".join(letters) if letters else "nothing"
    if rainbows:
        marks = " and ".join(f"the {r}" for r in sorted(rainbows))
        text += f" (mark {marks} with a token: rainbow)"
    return text


class StackingSession(CameraOnly, LoggedGame):
    """One stacking game with its log. ``store`` None: nothing is logged (a page without a table)."""

    KIND = KIND  # the log's kind, for CameraOnly's press

    game = "stacking"

    def __init__(
        self,
        store: GameStore | None,
        names: Sequence[str],
        *,
        options: StackingOptions = StackingOptions(),
        seed: int = 0,
        now_ms: int = 0,
        lexicon_for: Callable[[str], Container[str]] | None = None,
        randomness: rules.Randomness | None = None,
        _replaying: bool = False,
    ) -> None:
        if options.tileset not in TILESETS:
            raise ActionError(f"tile set: one of {', '.join(TILESETS)}")
        if lexicon_for is None:
            from companion.lexicon import load_lexicon

            lexicon_for = load_lexicon
        try:
            self.start_state = rules.new_game(list(names), options, seed=seed, randomness=randomness)
        except CompanionError as exc:
            raise ActionError(str(exc)) from None
        self.store = store
        self.names = list(names)
        self.options = options
        self.seed = seed
        self.lexicon_for = lexicon_for
        self._lexicon: Container[str] | None = None
        self._replaying = _replaying
        self.state = self.start_state
        self.steps: list[tuple[rules.Action, rules.Outcome]] = []
        self.revision = 0
        self.feed: list[dict[str, Any]] = []
        self._feed_seq = 0
        self.ref: int | None = None
        self.last_ref = -1
        self.pending_press: dict[str, Any] | None = None
        self.questions: list[str] = []
        self.history: list[dict[str, Any]] = []
        self.last_play: rules.Verdict | None = None
        self.last_squares: list[tuple[int, int]] = []
        self.named: dict[tuple[int, int], str] = {}  # the letters the players said their wilds stand for
        self.clocks = None  # the text has no clock: a press starts the look at once
        self.game_id = f"stacking-{seed}-{now_ms:x}"
        self._latest = now_ms
        self._store_event(
            KIND,
            {
                "op": "start",
                "names": self.names,
                "options": options_text(options),
                "tileset": options.tileset,
                "seed": seed,
            },
            now_ms,
        )
        area = f"; play on {options.area_text}" if options.area is not None else ""
        self._say(
            "new-game",
            f"New stacking game ({options.length.value}): {len(self.state.pool)} tiles in the "
            f"pool; the marketplace shows {', '.join(self.state.market)}{area}",
        )
        for i, p in enumerate(self.state.players):
            self._say("deal", f"{p.name}: take {tiles_to_take(p.rack, p.rainbows)}", player=i)

    # -- what the table needs --

    @property
    def tileset_name(self) -> str:
        return self.options.tileset

    @property
    def seats(self) -> int:  # type: ignore[override]
        return len(self.names)

    def tick(self, now_ms: int) -> None:
        """No clock runs out: the text has none."""

    def gcg(self) -> str:
        return write_gcg(write_record(self.start_state, self.steps, title=self.game_id))

    def lexicon(self) -> Container[str]:
        if self._lexicon is None:
            try:
                self._lexicon = self.lexicon_for(self.options.tileset)
            except CompanionError as exc:
                raise ActionError(str(exc), 409) from None
        return self._lexicon

    def _at(self, now_ms: int) -> int:
        self._latest = max(self._latest, int(now_ms))
        return self._latest

    def _say(self, kind: str, message: str, player: int | None = None, **more: Any) -> None:
        self._feed_seq += 1
        who = self.state.to_move if player is None else player
        self.feed.append({"id": self._feed_seq, "kind": kind, "player": who, "message": message, **more})
        del self.feed[:-FEED_KEPT]
        self.revision += 1

    # -- the table's turn --

    def _press_refused(self, player: int) -> str | None:
        if self.state.over:
            return "the game is over"
        if not 0 <= player < len(self.names):
            return f"there is no player {player + 1}"
        if player != self.state.to_move:
            return f"{self.names[self.state.to_move]} is to move"
        if self.pending_press is not None:
            return "the last press is still being judged"
        return None

    def _press_payload(self, player: int) -> dict[str, Any]:
        return {"op": "press", "player": player}

    def _judge_reading(self, at: int, reading: BoardReading) -> dict[str, Any]:
        self._store_event(KIND, {"op": "look", "reading": reading_to_json(reading)}, at)
        return self._look(at, reading)

    def _look(self, at: int, reading: BoardReading) -> dict[str, Any]:
        state = self.state
        tileset = get_tileset(self.options.tileset)
        inferred = infer_move(
            state.board.top, reading.cells, tileset, self.lexicon(), named=self.named, stacking=True
        )
        if inferred.placement is None and inferred.questions:
            return self._question(at, list(inferred.questions), logged=True)
        tokens = [(c.row, c.col) for c in reading.cells if c.token and c.kind == "tile"]
        laid, token_questions = rules.read_tokens(state, inferred.placement, tokens)
        questions = list(inferred.questions) + list(token_questions)
        if inferred.placement is not None and inferred.questions:
            questions.append("Say what the wild stands for on the page (Name a wild: H8 I) and press again")
        if questions:
            return self._question(at, questions, logged=True)
        action: rules.Action = (
            rules.Pass() if inferred.placement is None else rules.Play(inferred.placement, laid)
        )
        out = rules.apply(state, action, self.lexicon())
        if out.verdict.kind is VerdictKind.REFUSED:
            return self._question(at, [out.verdict.message], logged=True)
        self.pending_press = None
        self.questions = []
        self.named = {}
        return self._commit(action, out)

    def _question(self, at: int, questions: list[str], logged: bool = False) -> dict[str, Any]:
        self.pending_press = None
        self.questions = list(questions)
        for q in questions:
            self._say("question", q)
        if not logged:
            self._store_event(KIND, {"op": "question", "questions": questions}, at)
        return {"kind": "question", "questions": questions}

    def _commit(self, action: rules.Action, out: rules.Outcome) -> dict[str, Any]:
        before = self.state
        self.state = out.state
        self.steps.append((action, out))
        for v in out.verdicts:
            self._say(
                v.kind.value,
                self._message(before, action, v),
                player=v.player,
                points=v.points,
                words=list(v.words),
            )
        v = out.verdict
        if isinstance(action, rules.Play):
            self.last_play = v
            self.last_squares = [t.coord for t in action.placement.tiles]
        if v.kind is not VerdictKind.BOUGHT:
            self.history.append(
                {
                    "turn": len(self.history) + 1,
                    "player": v.player,
                    "kind": v.kind.value,
                    "message": v.message,
                    "points": v.points,
                    "total": out.state.players[v.player].score,
                }
            )
        return {"kind": v.kind.value, "verdicts": [x.kind.value for x in out.verdicts], "points": v.points}

    def _message(self, before: rules.StackingState, action: rules.Action, v: rules.Verdict) -> str:
        name = before.players[v.player].name
        tileset = get_tileset(self.options.tileset)
        if v.kind is VerdictKind.PLAYED and v.score is not None:
            words = "; ".join(rules.explain(w, tileset) for w in v.score.words)
            return f"{name}: {v.points} ({words}); take {tiles_to_take(v.drawn, v.drawn_rainbows)}"
        if v.kind is VerdictKind.BOUGHT:
            out = f"; put out {tiles_to_take(v.restocked)} in the marketplace" if v.restocked else ""
            return f"{v.message}{out}"
        if v.kind is VerdictKind.REDRAWN:
            back = rack_text(before.players[v.player].rack)
            take = tiles_to_take(v.drawn, v.drawn_rainbows)
            return f"{name} redraws for 5 points: put {back} back; take {take}"
        if v.kind is VerdictKind.CONCEDED:
            return f"{v.message}: put the rack back in the supply"
        return v.message

    # -- the page's actions (the players' hands off the board) --

    def name_wild(self, now_ms: int, tiles: Any) -> None:
        """The letter a wild stands for, said before the press: ``tiles`` is ``H8 I`` (the square,
        the letter). The camera sees a blank; the word list settles its letter only when one fits."""
        square, _, letter = str(tiles or "").strip().upper().partition(" ")
        letter = letter.strip()
        try:
            coord = parse_position(square, self.state.board.layout)[0]
        except CompanionError:
            raise ActionError("name: the wild's square and its letter, like H8 I") from None
        if len(letter) != 1 or letter not in get_tileset(self.options.tileset).alphabet:
            raise ActionError("name: the wild's square and its letter, like H8 I")
        self.named[coord] = letter
        self._store_event(KIND, {"op": "name", "square": square, "letter": letter}, self._at(now_ms))
        self._say("name", f"The wild on {square} stands for {letter}")

    def buy(self, now_ms: int, tiles: Any) -> None:
        """The player to move buys ``tiles`` (one letter) from the marketplace."""
        letter = str(tiles or "").strip().upper()
        if len(letter) != 1:
            raise ActionError("buy: the one letter to buy from the marketplace")
        self._page_action(now_ms, rules.Buy(letter), {"op": "buy", "letter": letter})

    def buy_for(self, now_ms: int, player: Any, tiles: Any) -> None:
        """A tap on ``player``'s own page (no PIN, as a tap on the online game's screen): that
        player buys ``tiles``. Purchases are made before one's own play (finalised score only),
        so it is refused on another player's turn."""
        self._own_turn(player, "buy before your own play")
        self.buy(now_ms, tiles)

    def redraw_for(self, now_ms: int, player: Any) -> None:
        """The redraw button of ``player``'s own page: on their turn, for 5 points."""
        self._own_turn(player, "redraw on your own turn")
        self.redraw(now_ms)

    def _own_turn(self, player: Any, what: str) -> None:
        """Refuses an own page's action unless ``player`` (0-based) is the one to move."""
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < len(self.names):
            raise ActionError(f"player: a number from 0 to {len(self.names) - 1}")
        if self.state.over:
            raise ActionError("the game is over", 409)
        if self.state.players[player].conceded:
            raise ActionError(f"{self.names[player]} has conceded", 409)
        if player != self.state.to_move:
            raise ActionError(f"it is {self.names[self.state.to_move]}'s turn: {what}", 409)

    def redraw(self, now_ms: int, tiles: Any = None) -> None:
        self._page_action(now_ms, rules.Redraw(), {"op": "redraw"})

    def pass_turn(self, now_ms: int, tiles: Any = None) -> None:
        self._page_action(now_ms, rules.Pass(), {"op": "pass"})

    def concede(self, now_ms: int, tiles: Any) -> None:
        """``tiles``: the conceding player's name or number (1 to 4)."""
        who = str(tiles or "").strip()
        if who.isdigit() and 1 <= int(who) <= len(self.names):
            player = int(who) - 1
        elif who in self.names:
            player = self.names.index(who)
        else:
            raise ActionError(f"concede: a player's name or number ({', '.join(self.names)})")
        self._page_action(now_ms, rules.Concede(player), {"op": "concede", "player": player})

    def _page_action(self, now_ms: int, action: rules.Action, payload: dict[str, Any]) -> None:
        if self.pending_press is not None:
            raise ActionError("a press is being judged: try again in a moment", 409)
        out = rules.apply(self.state, action, self.lexicon())
        if out.verdict.kind is VerdictKind.REFUSED:
            raise ActionError(out.verdict.message, 409)
        self._store_event(KIND, payload, self._at(now_ms))
        self._commit(action, out)

    # -- the organiser's actions the page offers every game --

    def new_game(self, now_ms: int, **settings: Any) -> StackingSession:
        settings.setdefault("names", self.names)
        settings.setdefault("tileset", self.options.tileset)
        settings.setdefault("length", self.options.length.value)
        settings.setdefault("area", self.options.area)
        return start_stacking(self.store, now_ms, lexicon_for=self.lexicon_for, **settings)

    def rule_challenge(self, now_ms: int, decision: str, by: int | None = None) -> None:
        raise ActionError("every word is checked when played: there is nothing to challenge", 409)

    def undo(self, now_ms: int) -> None:
        raise ActionError("the stacking game has no undo: the pool has been dealt", 409)

    # -- restoring --

    @classmethod
    def restore(
        cls,
        store: GameStore,
        game: str | None = None,
        *,
        lexicon_for: Callable[[str], Container[str]] | None = None,
    ) -> StackingSession | None:
        """The current game (or ``game``) folded from the log; None when the log has none."""
        game = store.current_game() if game is None else game
        if game is None:
            return None
        events = store.events(game)
        first = events[0]
        if first.kind != KIND or first.payload.get("op") != "start":
            raise CompanionError(f"{store.path}: game {game} is not a stacking game")
        p = first.payload
        options = parse_options(p["options"], p["tileset"])
        s = cls(
            store,
            p["names"],
            options=options,
            seed=int(p["seed"]),
            now_ms=first.at_ms,
            lexicon_for=lexicon_for,
            _replaying=True,
        )
        s.game_id = game
        s._replay_events(events[1:])
        return s

    def _replay_event(self, e: StoredEvent) -> None:
        p = e.payload
        op = p.get("op")
        at = self._at(e.at_ms)
        if op == "press":
            self.pending_press = {"player": int(p["player"]), "at": at}
        elif op == "look":
            self._look(at, reading_from_json(p["reading"]))
        elif op == "question":
            self._question(at, list(p["questions"]))
        elif op == "name":
            self.name_wild(at, f"{p['square']} {p['letter']}")
        elif op == "buy":
            self.buy(at, p["letter"])
        elif op == "redraw":
            self.redraw(at)
        elif op == "pass":
            self.pass_turn(at)
        elif op == "concede":
            self.concede(at, str(int(p["player"]) + 1))
        else:
            where = self.store.path if self.store else "log"
            raise CompanionError(f"{where}: event {e.seq}: unknown stacking event {op!r}")


def start_stacking(
    store: GameStore | None,
    now_ms: int,
    *,
    names: Any = None,
    tileset: Any = "en",
    seed: Any = None,
    length: Any = "normal",
    area: Any = None,
    lexicon_for: Callable[[str], Container[str]] | None = None,
) -> StackingSession:
    """A new stacking game from the page's (or ``companion serve``'s) settings."""
    if names is None:
        names = ["Player 1", "Player 2"]
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise ActionError("names: a list of the players' names")
    names = [" ".join(n.split()) for n in names]
    if not 2 <= len(names) <= 4:
        raise ActionError(f"the stacking game at a table is for 2 to 4 players, not {len(names)}")
    if any(not 0 < len(n) <= MAX_NAME for n in names):
        raise ActionError(f"a display name has 1 to {MAX_NAME} characters")
    if len(set(names)) != len(names):
        raise ActionError("two players have the same name")
    if seed is None:
        import secrets

        seed = secrets.randbelow(2**31)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise ActionError("seed: a whole number")
    try:
        game_length = GameLength(length)
    except ValueError:
        raise ActionError(f"length: one of {', '.join(g.value for g in GameLength)}") from None
    # A play area smaller than the board: a short game whose end by a covered board is reachable.
    bad_area = rules.area_error(area, StackingOptions().layout)
    if bad_area is not None:
        raise ActionError(f"area: {bad_area}")
    # A tile on a tile of the same letter is legal by the text but no camera can see it: at the
    # table it is refused, and the player is told so.
    options = StackingOptions(tileset=tileset, length=game_length, same_letter=False, area=area)
    return StackingSession(store, names, options=options, seed=seed, now_ms=now_ms, lexicon_for=lexicon_for)
