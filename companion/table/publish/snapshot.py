"""A table's game as the venue sees it: a compact, self-contained JSON state.

Made on the table (the game thread, right after an event is logged) from the session, so the
venue needs no rules, lexicon or clock arithmetic of its own: scores, clocks and the GCG come
from the table that judged them. Classic sessions (and any that share their surface: ``state``
with players and a board, ``history``, ``gcg``) give everything; another game gives what its
page's document has (players, scores) and its log.
"""

from __future__ import annotations

from typing import Any

from companion.table.games import game_of

# What of a history row the venue keeps (the page's rows also carry each letter's premium).
_ROW_KEYS = ("seq", "player", "kind", "points", "total", "position", "word", "count", "bonus", "tiles", "squares")


def compact_row(row: dict[str, Any]) -> dict[str, Any]:
    return {k: row[k] for k in _ROW_KEYS if k in row}


def venue_state(session: Any, now_ms: int) -> dict[str, Any]:
    """The game of ``session`` at the table's time ``now_ms``."""
    game = game_of(session)
    out: dict[str, Any] = {"game": session.game_id, "kind": game.name if game else type(session).__name__,
                           "title": game.title if game else ""}
    state = getattr(session, "state", None)
    if state is not None and hasattr(state, "players") and hasattr(state, "board"):
        clocks = session.clock_view(now_ms) if hasattr(session, "clock_view") else {"players": []}
        clock_players = clocks.get("players") or []
        winners = _winners(state) if state.over else []
        out["players"] = [
            {"name": p.name, "score": p.score,
             "clock_ms": (clock_players[i] or {}).get("remaining_ms") if i < len(clock_players) else None,
             "on_move": not state.over and state.to_move == i, "winner": i in winners}
            for i, p in enumerate(state.players)]
        out["clock"] = {"running": bool(clocks.get("running")), "on_move": clocks.get("on_move"),
                        "at_ms": now_ms, "control": clocks.get("control")}
        out["board"] = state.board.to_text().splitlines()
        out["over"] = bool(state.over)
        history = session.history()
        out["moves"] = [compact_row(r) for r in history]
        last = session.last_move()
        out["last_move"] = compact_row(last) if last else None
        out["gcg"] = session.gcg()
        return out
    # Another game: what its page shows of the players.
    doc = game.view(session, now_ms) if game else {}
    out["players"] = [{"name": p.get("name", ""), "score": p.get("score", 0), "clock_ms": None,
                       "on_move": bool(p.get("on_move")), "winner": bool(p.get("winner"))}
                      for p in doc.get("players", []) if isinstance(p, dict)]
    out["clock"] = {"running": False, "on_move": None, "at_ms": now_ms, "control": None}
    out["board"], out["moves"], out["last_move"] = [], [], None
    out["over"] = bool((doc.get("game") or {}).get("over"))
    out["gcg"] = session.gcg() if hasattr(session, "gcg") else ""
    return out


def _winners(state: Any) -> list[int]:
    best = max(p.score for p in state.players)
    return [i for i, p in enumerate(state.players) if p.score == best]
