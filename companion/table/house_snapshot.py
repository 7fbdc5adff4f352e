"""The page's one document for Scrabble House: both boards, four players, the explosion preview.

Pure, as :mod:`companion.table.snapshot` (whose pieces it uses): the session in, JSON out. The
document keeps the classic document's keys where the page draws them the same way (``players``
with their clocks, ``verdicts``, ``history``, ``board`` as the first board) and adds
``boards``: each board with its squares, its players and, while an explosion waits for the
players, its ``preview``: the squares turned to the mover (step a), the squares taken off step
by step (b, then each examination of c/d) with why, and the tiles passed to the mover's partner,
before anything is removed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.core.move import format_square
from companion.core.tiles import get_tileset
from companion.rules import house
from companion.table.snapshot import SCHEMA, VERDICTS_SHOWN, layout_json, squares_json

if TYPE_CHECKING:  # pragma: no cover
    from companion.table.house import HouseSession


def preview_json(x: house.Explosion, names: tuple[str, ...], index: int) -> dict[str, Any]:
    """An explosion as the page shows it before anything is removed."""
    mover = house.player_at(index, x.mover)
    partner = house.partner_of(mover)
    steps = []
    for step in x.steps:
        steps.append({
            "rule": step.rule,
            "squares": [list(s) for s in step.squares],
            "removals": [{"squares": [list(s) for s in r.squares], "text": r.text, "letters": r.letters,
                          "owner": house.player_at(index, r.owner), "reason": r.reason.value,
                          "describe": r.describe()} for r in step.removals],
        })
    passed = [{"letter": "?" if t.blank else t.letter, "set": t.set} for t in x.passed]
    turned = ", ".join(format_square(s) for s in x.turned)
    label = f"{names[mover]}: {', '.join(x.words)}"
    if x.turned:
        label += f"; turn {turned}"
    if x.removed:
        label += f"; take off {len(x.removed)}, to {names[partner]}"
    return {
        "mover": mover,
        "partner": partner,
        "words": list(x.words),
        "turned": [list(s) for s in x.turned],
        "removed": [list(s) for s in x.removed],
        "steps": steps,
        "passed": passed,
        # What the board's drawing marks (as another game's preview): the squares that change.
        "squares": [list(s) for s in sorted(set(x.turned) | set(x.removed))],
        "label": label,
    }


def house_document(session: HouseSession, now_ms: int) -> dict[str, Any]:

    state = session.state
    values = dict(get_tileset(state.options.tileset).values)
    clocks = session.clocks
    started = any(c.on_move is not None for c in clocks.clocks)
    running = started and not clocks.paused and not clocks.over and not state.over
    on = clocks.on_move()
    players = []
    for p, name in enumerate(state.names):
        at = house.board_of(p)
        players.append({
            "index": p,
            "name": name,
            "board": at,
            "seat": house.SEAT_NAMES[house.seat(p)],
            "team": house.team_of(p),
            "score": None,  # House has no score: the notes say what each player holds
            "rack_size": len(state.racks[p]),
            "own_tiles": state.own_count(p),
            "bonus": "".join(sorted(k[0] for k in state.bonus(p))),
            "rack": None,
            "end_adjustment": 0,
            "on_move": not state.over and state.to_move(at) == p,
            "winner": state.winner is not None and house.team_of(p) == state.winner,
            "clock": {
                "remaining_ms": clocks.remaining_ms(p, now_ms),
                "penalty": 0,
                "flagged": clocks.remaining_ms(p, now_ms) <= 0,
                "lost": False,
                "running": running and p in on,
            },
        })
    boards = []
    for i, b in enumerate(state.boards):
        names = [state.names[house.player_at(i, s)] for s in (house.BOTTOM, house.TOP)]
        boards.append({
            "index": i,
            "colour": b.colour,
            "title": f"Board {i + 1} ({b.colour} tiles): {names[0]} at the bottom, {names[1]} at the top",
            "to_move": None if state.over else state.to_move(i),
            "bag": len(state.bags[i]),
            **layout_json(b.board.layout),
            "squares": squares_json(b.board, values, session.seen[i]),
            "highlight": [list(s) for s in session.last_play[i] if s in b.board],
            "corrected": [],
            "preview": preview_json(b.pending, state.names, i) if b.pending is not None else None,
            "questions": session.questions[i],
            "home_rows": {"bottom": house.home_row(house.BOTTOM, b.board), "top": house.home_row(house.TOP, b.board)},
        })
    pending = None
    plays = [row["board"] for row in session.history if row["kind"] == "play"]
    if state.options.challenges and plays and not state.over:
        # Rule 9: the latest play can be challenged (until its board's next play); the word list
        # decides and the match is over.
        board = plays[-1]
        last = state.boards[board].last
        if last is not None:
            mover, words = last
            pending = {"player": mover, "words": list(words), "score": 0, "board": board,
                       "challengers": [p for p in range(4) if house.team_of(p) != house.team_of(mover)],
                       "closes_with": state.to_move(board)}
    return {
        "schema": SCHEMA,
        "game": {
            "id": session.game_id,
            "name": "house",
            "title": "Scrabble House",
            "tileset": state.options.tileset,
            "challenge": "consent" if state.options.challenges else "void",
            "turn": len(session.history),
            "to_move": None,
            "on_move": [] if state.over else [state.to_move(i) for i in range(2)],
            "bag": sum(len(b) for b in state.bags),
            "over": state.over,
            "winners": [p for p in range(4) if state.winner is not None and house.team_of(p) == state.winner],
            "reason": state.reason,
            "awaiting_racks": False,
            "pending": pending,
            "stacking": False,
        },
        "board": boards[0],
        "boards": boards,
        "players": players,
        "clock": {
            "control": f"{state.options.minutes:g} min each, sudden death",
            "started": started,
            "paused": clocks.paused,
            "running": running,
            "on_move": None,  # two clocks: each player's own "running" says whose time runs
            "over": clocks.over or state.over,
        },
        "last_move": last_move_json(session.history),
        "verdicts": list(reversed(session.feed[-VERDICTS_SHOWN:])),
        "history": session.history,
    }


def last_move_json(history: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The match's last move for the page's *Last move*: who, on which board, and what (a play's
    position and word, an explosion's tiles passed, a pass or a challenge). House scores no
    points, so there is no breakdown: ``summary`` is the whole line."""
    for row in reversed(history):
        if row["kind"] not in ("play", "explosion", "pass", "challenge"):
            continue
        # A play as its position and the words it made (OPERA, not .PER.: the page's words).
        what = f"{row['position']} {row['what']}" if row["kind"] == "play" and "position" in row else row["what"]
        return {"player": row["player"], "board": row["board"], "kind": row["kind"],
                "summary": f"board {row['board'] + 1}: {what}"}
    return None
