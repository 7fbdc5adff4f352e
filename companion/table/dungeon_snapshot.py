"""The solo dungeon's page view: the classic document's shape (so the page draws board, player,
referee and moves as for every game) plus ``dungeon``: the phase, the plan, the set-up check's
differences, the rack, the bag and the reveals banked."""

from __future__ import annotations

from typing import Any

from companion.core.board import STANDARD, Board, Coord
from companion.core.move import format_square
from companion.core.tiles import get_tileset
from companion.rules.dungeon import DungeonState, Setup
from companion.table.snapshot import SCHEMA, VERDICTS_SHOWN, layout_json, squares_json

# The organiser's actions the page offers in each phase (the registry's Dungeon.actions): the
# tiles drawn entered as the rack, a refill or a burn.
_RACK = {"name": "rack", "label": "Enter the rack", "done": "Rack entered."}
ACTIONS: dict[str, list[dict[str, str]]] = {
    "set-up": [_RACK],
    "rack": [_RACK],
    "play": [{"name": "refill", "label": "Refill", "done": "Refilled."}, {"name": "burn", "label": "Burn", "done": "Burnt."}],
}


def dungeon_document(session: Any, now_ms: int) -> dict[str, Any]:
    """The solo dungeon (:class:`companion.table.dungeon.DungeonSession`): the classic document's
    shape (so the page draws board, player, referee and moves as for every game) plus
    ``dungeon``: the phase, the plan (where every obstacle goes), the last set-up check's
    differences, the rack, the bag and the reveals banked."""
    tileset = get_tileset(session.tileset)
    state = session.state
    watch = session.watch_view(now_ms) if hasattr(session, "watch_view") else {
        "elapsed_ms": 0, "started": False, "running": False, "moves": 0}
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
        "clock": {"remaining_ms": watch["elapsed_ms"], "stopwatch": True, "running": watch["running"]},
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
        "clock": {"control": "stopwatch", "started": watch["started"], "paused": False, "running": watch["running"],
                  "on_move": 0 if watch["running"] else None, "over": False, "elapsed_ms": watch["elapsed_ms"],
                  "moves": watch["moves"]},
        "last_move": None,
        "verdicts": list(reversed(session.feed[-VERDICTS_SHOWN:])),
        "history": [{"player": 0, **row} for row in session.history],
        "actions": ACTIONS.get(session.phase, []),
        "dungeon": {
            "phase": session.phase,
            "plan": plan_json(session.setup),
            "problems": list(session.problems),
            "questions": list(session.questions),
            "rack_entered": session.rack_entered,
            "state": state_json(state),
            "pressed": session.pending_press is not None,
        },
    }


def plan_json(setup: Setup) -> dict[str, Any]:
    """The plan for the page: every obstacle, its squares and how its tiles lie."""
    return {
        "rows": [line for line in setup.plan()],
        "legend": {"W": "wall (face down)", "M": "monster (face down, token)", "T": "treasure (face up, token)",
                   "F": "fixed letter (face up)"},
        "objects": [o.to_json() for o in setup.obstacles],
        "counted": setup.counted,
        "asked": setup.objects,
        "tiles": setup.tiles,
    }


def state_json(state: DungeonState | None) -> dict[str, Any] | None:
    if state is None:
        return None
    return {
        "score": state.score,
        "rack": "".join(state.rack) if state.rack is not None else None,
        "rack_size": state.rack_size,
        "bag": state.bag_size,
        "reveals": state.reveals,
        "turn": state.turn,
        "result": state.result,
        "over": state.over,
        "treasures": [format_square(s) for s in sorted(state.treasures)],
        "monsters": [format_square(s) for s in sorted(state.monsters)],
        "walls": [[format_square(s) for s in sorted(w)] for w in state.walls],
        "known_monsters": {format_square(k): v for k, v in sorted(state.known.items())},
    }
