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


def classic_document(session: "ClassicSession", now_ms: int) -> dict[str, Any]:
    """The classic game: board, players with scores and clocks, the last move, verdicts, history."""
    from companion.table.session import GAMES, PRESETS

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
            "corrected": [list(c) for c in sorted(session.corrected_squares())],
            # Another game's preview (the explosion a play would set off): squares and a label.
            "preview": session.preview,
        },
        "players": players,
        "clock": {k: v for k, v in clock.items() if k != "players"},
        "last_move": last,
        "verdicts": list(reversed(session.feed[-VERDICTS_SHOWN:])),
        "history": session.history(),
        "options": {
            "games": [{"name": n, "title": t, "available": a} for n, t, a in GAMES],
            "time_controls": [{"name": k, "label": v[0]} for k, v in PRESETS.items()],
            "challenge_modes": ["void", "single", "double", "five-points"],
            "tilesets": ["en", "de"],
        },
    }


def dungeon_document(session: Any, now_ms: int) -> dict[str, Any]:
    """The solo dungeon (:class:`companion.table.dungeon.DungeonSession`): the classic document's
    shape (so the page draws board, player, referee and moves as for every game) plus
    ``dungeon``: the phase, the plan (where every obstacle goes), the last set-up check's
    differences, the rack, the bag and the reveals banked."""
    from companion.core.board import STANDARD, Board
    from companion.core.tiles import get_tileset
    from companion.table.dungeon import plan_json, state_json
    from companion.table.session import GAMES, PRESETS

    tileset = get_tileset(session.tileset)
    state = session.state
    seen: dict[Coord, dict[str, Any]] = {}
    if state is not None:
        # The rules' board: the letters face up, the walls and monsters face down, tokens on
        # the treasures and monsters still standing.
        board = state.letters
        for s in state.backs:
            seen[s] = {"back": True}
        for s in state.treasures | state.monsters:
            seen.setdefault(s, {})["token"] = True
    else:
        # Before the set-up stands: the board as the camera last saw it.
        tiles = {}
        if session.board is not None:
            from companion.core.board import Tile

            for cell in session.board.cells:
                if cell.kind == "tile" and cell.letter:
                    tiles[(cell.row, cell.col)] = Tile(cell.letter)
                elif cell.kind == "back":
                    seen[(cell.row, cell.col)] = {"back": True}
                if cell.token:
                    seen.setdefault((cell.row, cell.col), {})["token"] = True
        board = Board(STANDARD, tiles)
    last = state.result if state is not None else None
    score = state.score if state is not None else 0
    highlight = []
    if session.last_verdicts:
        highlight = session.last_verdicts[0]["squares"]
    player = {
        "index": 0,
        "name": session.name,
        "score": score,
        "rack_size": state.rack_size if state is not None else 0,
        # One player: the rack is no secret.
        "rack": "".join(state.rack) if state is not None and state.rack is not None else None,
        "end_adjustment": 0,
        "on_move": state is not None and not state.over,
        "winner": last == "escaped",
        "clock": None,
    }
    return {
        "schema": SCHEMA,
        "game": {
            "id": session.game_id,
            "name": "dungeon",
            "title": "The solo dungeon",
            "tileset": tileset.name,
            "challenge": "void",
            "turn": state.turn if state is not None else 0,
            "to_move": 0 if state is not None and not state.over else None,
            "bag": state.bag_size if state is not None else tileset.size - session.setup.tiles,
            "over": state is not None and state.over,
            "awaiting_racks": False,
            "winners": [0] if last == "escaped" else [],
            "pending": None,
            "stacking": False,
        },
        "board": {
            **layout_json(STANDARD),
            "squares": squares_json(board, dict(tileset.values), seen),
            "highlight": highlight,
            "corrected": [],
            "preview": None,
        },
        "players": [player],
        "clock": {"control": "no clock", "started": False, "paused": False, "running": False, "on_move": None,
                  "over": False},
        "last_move": None,
        "verdicts": list(reversed(session.feed[-VERDICTS_SHOWN:])),
        "history": [{"player": 0, **row} for row in session.history],
        "dungeon": {
            "phase": session.phase,
            "plan": plan_json(session.setup),
            "problems": list(session.problems),
            "questions": list(session.questions),
            "rack_entered": session.rack_entered,
            "state": state_json(state),
            "pressed": session.pending_press is not None,
        },
        "options": {
            "games": [{"name": n, "title": t, "available": a} for n, t, a in GAMES],
            "time_controls": [{"name": k, "label": v[0]} for k, v in PRESETS.items()],
            "challenge_modes": ["void", "single", "double", "five-points"],
            "tilesets": ["en", "de"],
        },
    }
