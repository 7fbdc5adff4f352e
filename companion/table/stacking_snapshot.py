"""The stacking game's page view: the classic document's shape (so the page draws board,
players, referee and moves as for every game) plus ``stacking``: the marketplace with each
player's purchase count and next price, the pool, the racks to deal, and the last play's words,
each with its stack multipliers, premiums and rainbow doubles spelled out."""

from __future__ import annotations

from typing import Any

from companion.core.board import Coord
from companion.core.tiles import get_tileset
from companion.rules import stacking as rules
from companion.rules.stacking_record import rack_text
from companion.table.snapshot import SCHEMA, VERDICTS_SHOWN, layout_json, squares_json

# The organiser's actions (the registry's Stacking.actions): a purchase (the letter typed, or a
# tap on a marketplace tile), a redraw, a pass without a press, a concession (a name or number).
ACTIONS = [
    {"name": "buy", "label": "Buy", "done": "Bought."},
    {"name": "redraw", "label": "Redraw (5 points)", "done": "Redrawn."},
    {"name": "pass", "label": "Pass", "done": "Passed."},
    {"name": "concede", "label": "Concede", "done": "Conceded."},
    {"name": "name", "label": "Name a wild (H8 I)", "done": "Named."},
]


def words_json(verdict: rules.Verdict | None, tileset_name: str) -> list[dict[str, Any]]:
    """Each word of a play with how it scored."""
    if verdict is None or verdict.score is None:
        return []
    tileset = get_tileset(tileset_name)
    return [
        {
            "word": w.word.gcg,
            "score": w.score,
            "explain": rules.explain(w, tileset),
            "heights": list(w.heights),
            "points": list(w.base.points),
            "multiplier": w.base.multiplier,
            "rainbows": w.rainbows,
            "doubling": w.doubling,
            "squares": [list(s) for s in w.word.squares],
        }
        for w in verdict.score.words
    ]


def stacking_document(session: Any, now_ms: int) -> dict[str, Any]:
    """The stacking game (:class:`companion.table.stacking.StackingSession`)."""
    state: rules.StackingState = session.state
    tileset = state.tileset
    values = dict(tileset.values)
    winners = list(state.winners())
    # A rainbow tile on top of its stack carries a token at the table: the page draws it.
    seen: dict[Coord, dict[str, Any]] = {s: {"token": True} for s in state.rainbow}
    players = []
    for i, p in enumerate(state.players):
        players.append(
            {
                "index": i,
                "name": p.name,
                "score": p.score,
                "rack_size": len(p.rack),
                # The companion deals: the rack each player holds, rainbow tiles named.
                "rack": rack_text(p.rack),
                "rainbows": "".join(p.rainbows),
                "purchases": p.purchases,
                "next_price": state.next_price(i),
                "conceded": p.conceded,
                "end_adjustment": 0,
                "on_move": not state.over and state.to_move == i,
                "winner": i in winners,
                "clock": None,
            }
        )
    last = session.last_play
    last_move = None
    if last is not None:
        last_move = {
            "player": last.player,
            "points": last.points,
            "message": last.message,
            "squares": [list(s) for s in session.last_squares],
            "words": words_json(last, state.options.tileset),
        }
    return {
        "schema": SCHEMA,
        "game": {
            "id": session.game_id,
            "name": "stacking",
            "title": "The stacking game",
            "tileset": tileset.name,
            "challenge": "void",
            "turn": state.turn,
            "to_move": None if state.over else state.to_move,
            "bag": len(state.pool),
            "over": state.over,
            "awaiting_racks": False,
            "winners": winners,
            "reason": state.end.text if state.end is not None else None,
            "pending": None,
            "stacking": True,
        },
        "board": {
            **layout_json(state.board.layout),
            "squares": squares_json(state.board.top, values, seen, state.board.heights()),
            "highlight": [list(s) for s in session.last_squares],
            "corrected": [],
            "preview": None,
            "questions": list(session.questions),
        },
        "players": players,
        "clock": {
            "control": "no clock",
            "started": False,
            "paused": False,
            "running": False,
            "on_move": None,
            "over": state.over,
        },
        "last_move": last_move,
        "stacking": {
            "length": state.options.length.value,
            "pool": len(state.pool),
            "market": [{"letter": t, "value": values.get(t, 0)} for t in state.market],
            "prices": [state.next_price(i) for i in range(len(state.players))],
            "purchases": [p.purchases for p in state.players],
            "rainbow": [list(s) for s in sorted(state.rainbow)],
            "end": state.end.value if state.end is not None else None,
            # A play area smaller than the board (None: the whole board), as the players read it.
            "area": state.options.area_text if state.options.area is not None else None,
            "bounds": list(state.options.bounds) if state.options.area is not None else None,
        },
        "verdicts": list(reversed(session.feed[-VERDICTS_SHOWN:])),
        "history": session.history,
        "actions": [] if state.over else ACTIONS,
    }
