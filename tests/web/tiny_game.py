"""A made-up game for the registry's test: its rules (tiny_rules.py), its session, its page view
and its registry entry, all outside companion/. Registering :class:`Tiny` is all it takes for
`companion serve`'s page to offer and play it."""

from __future__ import annotations

from typing import Any

from companion.core.board import STANDARD, Board, Tile
from companion.core.tiles import get_tileset
from companion.table.games import Game
from companion.table.session import ActionError
from companion.table.snapshot import SCHEMA, layout_json, squares_json
from tests.web import tiny_rules

WORDS = frozenset({"CAT", "TEA", "APE", "EAR", "RAT", "DOG"})


class TinySession:
    """Two players say words in turn; the page's organiser enters each ("say")."""

    game = "tiny"

    def __init__(self, names: list[str], now_ms: int = 0) -> None:
        if len(names) != 2:
            raise ActionError("the word chain is for two players")
        self.names = list(names)
        self.game_id = f"tiny-{now_ms}"
        self.words: list[str] = []
        self.scores = [0, 0]
        self.feed: list[dict[str, Any]] = []
        self.revision = 0

    @property
    def to_move(self) -> int:
        return len(self.words) % 2

    def say(self, now_ms: int, tiles: Any) -> None:
        word = str(tiles or "").strip().upper()
        why = tiny_rules.refusal(self.words, word, WORDS)
        if why is not None:
            raise ActionError(why)
        player = self.to_move
        self.words.append(word)
        self.scores[player] += tiny_rules.score(word)
        self.feed.append({"kind": "move", "player": player, "message": f"{self.names[player]}: {word}"})
        self.revision += 1

    def new_game(self, now_ms: int, names: Any = None) -> TinySession:
        return TinySession(names or self.names, now_ms)

    def tick(self, now_ms: int) -> None:
        pass

    def gcg(self) -> str:
        return "".join(f"#note {w}\n" for w in self.words)

    def _no(self, *args: Any, **kwargs: Any) -> None:
        raise ActionError("the word chain has no clock, board or challenges", 409)

    pause = resume = correct = rule_challenge = undo = _no


def tiny_document(session: TinySession, now_ms: int) -> dict[str, Any]:
    """The page's document: the words laid across the board, one a row."""
    tiles = {(r, c): Tile(letter) for r, word in enumerate(session.words) for c, letter in enumerate(word)}
    board = Board(STANDARD, tiles)
    players = [{"index": i, "name": n, "score": session.scores[i], "rack_size": 0, "rack": None, "end_adjustment": 0,
                "on_move": session.to_move == i, "winner": False, "clock": None} for i, n in enumerate(session.names)]
    return {
        "schema": SCHEMA,
        "game": {"id": session.game_id, "name": "tiny", "title": Tiny.title, "tileset": "en", "challenge": "void",
                 "turn": len(session.words), "to_move": session.to_move, "bag": 0, "over": False,
                 "awaiting_racks": False, "winners": [], "pending": None, "stacking": False},
        "board": {**layout_json(STANDARD), "squares": squares_json(board, dict(get_tileset("en").values)), "highlight": [], "corrected": [],
                  "preview": None},
        "players": players,
        "clock": {"control": "no clock", "started": False, "paused": False, "running": False, "on_move": None,
                  "over": False},
        "last_move": None,
        "verdicts": list(reversed(session.feed)),
        "history": [],
        "actions": [{"name": "say", "label": "Say the word", "done": "Said."}],
    }


class Tiny(Game):
    name = "tiny"
    title = "Word chain (a made-up game)"
    rules = tiny_rules
    session = TinySession
    view = staticmethod(tiny_document)
    log_kind = "tiny"
    seats = (2, 2)
    clocks = False
    settings = ("names",)
    actions = {"say": "say"}

    @classmethod
    def start(cls, store: Any, now_ms: int, *, lexicon_for: Any = None, **settings: Any) -> TinySession:
        return TinySession(settings.get("names") or ["Player 1", "Player 2"], now_ms)
