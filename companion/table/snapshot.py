"""The page's one document: a game at the table as the JSON the page renders.

The server-sent stream and the polling API send this same document; the hub adds
``version`` (goes up with every change, never down) and ``server_time`` (the table's
monotonic milliseconds when it was made). A clock's ``remaining_ms`` is its time at
``server_time``; the page counts down from there on its own.

Everything here is a pure function of what it is given: no clock, no lock, no request.
"""

from __future__ import annotations

from typing import Any

from companion.core.board import Board, Coord, Layout, Premium
from companion.core.move import format_square
from companion.core.tiles import BLANK

from companion.rules.classic import result_text

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


def words_json(words: Any, value: Any, premium: Any) -> list[dict[str, Any]]:
    """The words of a play as the page breaks them down: each letter with its value and the
    premium under it (new tiles only), the letter sum, the multiplier, the score. ``value(square,
    tile, word)`` (a core.words.LetterValue) and ``premium(square)`` are the game's (Scrabble III caps small words' letters and
    gives no premium again under a picked-off tile)."""
    out = []
    for w in words:
        letters = []
        for sq, tile, new in zip(w.word.squares, w.word.tiles, w.word.new):
            p = premium(sq) if new else None
            letters.append({"letter": tile.letter, "blank": tile.blank, "value": value(sq, tile, w.word),
                            "premium": p.name if p is not None and p.name != "NONE" else None})
        out.append({"word": w.word.text, "gcg": w.word.gcg, "letters": letters,
                    "letter_sum": w.letters, "multiplier": w.multiplier, "score": w.score})
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


# ``session`` is a table.classic.ClassicSession; not imported, even for type checking, since the
# session imports this module's words_json (the layers contract counts that as a cycle).
def classic_document(session: Any, now_ms: int) -> dict[str, Any]:
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
        n = len(state.players)
        pending = {
            "player": state.pending.player,
            "words": [w.word.text for w in state.pending.score.words],
            "score": state.pending.score.total,
            # Who may challenge, and whose action closes the window (the next player's).
            "challengers": [i for i in range(n) if i != state.pending.player],
            "closes_with": state.to_move,
        }
    asking = getattr(session, "asking", None)
    question = None
    if asking is not None and asking.asks:
        # The squares asked about, marked on the board; each with the answers it allows.
        question = {
            "player": asking.player,
            "asks": [{"square": format_square(a.square), "row": a.square[0], "col": a.square[1], "kind": a.kind,
                      "text": a.text, "empty": "" in a.choices, "blank": "?" in a.choices,
                      "letters": [c for c in a.choices if c not in ("", "?")]} for a in asking.asks],
        }
    computer = None
    if getattr(session, "computers", None):
        shown = session.computer_move()
        racks = session.computer_racks()
        dealt = session._fold.dealt
        computer = {
            "seats": [{"seat": k, "name": state.players[k].name, "skill": v, "rack": "".join(racks.get(k, [])),
                       "take": "".join(dealt.get(k, []))} for k, v in sorted(session.computers.items())],
            "move": shown.to_json() if shown is not None else None,
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
            "result": result_text(state) if state.over else None,
            "resigned": state.resigned,
            "declared": getattr(session, "declared", None),
            "adjourned": getattr(session, "adjourned", False),
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
            "asked": [[a["row"], a["col"]] for a in question["asks"]] if question else [],
        },
        "question": question,
        "computer": computer,
        "players": players,
        "clock": {k: v for k, v in clock.items() if k != "players"},
        "last_move": last,
        "verdicts": list(reversed(session.feed[-VERDICTS_SHOWN:])),
        # The racks before each move are the players' secret until the game is over.
        "history": session.history() if state.over else [
            {k: v for k, v in row.items() if k != "rack"} for row in session.history()],
    }


