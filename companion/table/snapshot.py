"""The page's one document: a game at the table as the JSON the page renders.

The server-sent stream and the polling API send this same document; the hub adds
``version`` (goes up with every change, never down) and ``server_time`` (the table's
monotonic milliseconds when it was made). A clock's ``remaining_ms`` is its time at
``server_time``; the page counts down from there on its own.

Everything here is a pure function of what it is given: no clock, no lock, no request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.core.board import Board, Coord, Layout, Premium
from companion.core.tiles import BLANK

if TYPE_CHECKING:  # pragma: no cover
    from companion.table.classic import ClassicSession

SCHEMA = 1
VERDICTS_SHOWN = 40

PREMIUM_NAMES = {p.value: p.name for p in Premium if p is not Premium.NONE}


def layout_json(layout: Layout) -> dict[str, Any]:
    return {
        "name": layout.name,
        "rows": layout.rows,
        "cols": layout.cols,
        "centre": list(layout.centre),
        # One string a row, a character a square: "." plain, else a key of `legend`.
        "premiums": ["".join(p.value for p in row) for row in layout.premiums],
        "legend": PREMIUM_NAMES,
    }


def squares_json(
    board: Board,
    values: dict[str, int],
    seen: dict[Coord, dict[str, Any]] | None = None,
    heights: dict[Coord, int] | None = None,
) -> list[dict[str, Any]]:
    """Every square that shows something: a tile face up (letter, blank, value, rotation, set,
    body colour), a tile face down, a token, a stack's height."""
    seen = seen or {}
    heights = heights or {}
    out = []
    for coord in sorted(set(dict(board.items())) | set(seen) | set(heights)):
        tile = board[coord]
        extra = seen.get(coord, {})
        sq: dict[str, Any] = {"row": coord[0], "col": coord[1]}
        if tile is not None:
            sq.update(
                kind="tile",
                letter=tile.letter,
                blank=tile.blank,
                value=0 if tile.blank else values.get(tile.letter, 0),
                rotation=extra.get("rotation", tile.rotation) if not tile.blank else 0,
                set=extra.get("set", tile.set),
                rgb=extra.get("rgb"),
            )
        elif extra.get("back"):
            sq.update(kind="back", set=extra.get("set"), rgb=extra.get("rgb"))
        else:
            sq.update(kind="empty")
        sq["token"] = bool(extra.get("token"))
        sq["height"] = heights.get(coord, 1 if sq["kind"] != "empty" else 0)
        if sq["kind"] == "empty" and not sq["token"]:
            continue
        out.append(sq)
    return out


def unseen_tiles(board: Board, counts: dict[str, int], blank: str) -> str:
    """The tiles not on the board (in the bag and on the racks, as a player counts them), in
    alphabetical order, blanks last: the set's counts less the board's tiles."""
    left = dict(counts)
    for _, tile in board.items():
        key = blank if tile.blank else tile.letter
        if left.get(key, 0) > 0:
            left[key] -= 1
    letters = sorted(k for k in left if k != blank)
    return "".join(k * left[k] for k in letters) + blank * left.get(blank, 0)


def classic_document(session: "ClassicSession", now_ms: int) -> dict[str, Any]:
    """The classic game: board, players with scores and clocks, the last move, verdicts, history."""

    state = session.state
    tileset = state.tileset
    clock = session.clock_view(now_ms)
    winners = list(state.winners())
    players = []
    for i, p in enumerate(state.players):
        players.append({
            "index": i,
            "name": p.name,
            "score": p.score,
            "rack_size": p.rack_size,
            # Racks are private while the game is on; at the end they are on the table.
            "rack": "".join(p.rack) if state.over and p.rack is not None else None,
            "end_adjustment": p.end_adjustment if state.over else 0,
            "on_move": not state.over and state.to_move == i,
            "winner": i in winners,
            "clock": clock["players"][i],
        })
    pending = None
    if state.pending is not None:
        pending = {
            "player": state.pending.player,
            "words": [w.word.text for w in state.pending.score.words],
            "score": state.pending.score.total,
        }
    last = session.last_move()
    highlight = [list(s) for s in last["squares"]] if last is not None else []
    return {
        "schema": SCHEMA,
        "game": {
            "id": session.game_id,
            "name": "classic",
            "title": "Classic Scrabble",
            "tileset": tileset.name,
            "challenge": state.options.challenge.value,
            "turn": state.turn,
            "to_move": None if state.over else state.to_move,
            "bag": state.bag_size,
            # The pool as the board leaves it: bag and racks together (what players track).
            "unseen": unseen_tiles(state.board, dict(tileset.counts), BLANK),
            "over": state.over,
            "awaiting_racks": state.awaiting_racks,
            "winners": winners,
            "pending": pending,
            "stacking": False,
        },
        "board": {
            **layout_json(state.board.layout),
            "squares": squares_json(state.board, dict(tileset.values), session.seen, session.heights),
            "highlight": highlight,
            # "withdrawn": the last play came off; its squares are outlined empty.
            "highlight_kind": (last or {}).get("kind", "play"),
            "corrected": [list(c) for c in sorted(session.corrected_squares())],
            # Another game's preview (the explosion a play would set off): squares and a label.
            "preview": session.preview,
        },
        "players": players,
        "clock": {k: v for k, v in clock.items() if k != "players"},
        "last_move": last,
        "verdicts": list(reversed(session.feed[-VERDICTS_SHOWN:])),
        # The racks before each move are the players' secret until the game is over.
        "history": session.history() if state.over else [
            {k: v for k, v in row.items() if k != "rack"} for row in session.history()],
    }


