"""The page's document as plain text pieces the server puts in the HTML itself: what a phone
without JavaScript shows (scores, clocks as last known, the moves, the board as text), and what
a screen reader reads of the board (a line a row). The page's script draws over the same
elements as documents arrive.

A pure function of the document and the time it is looked at.
"""

from __future__ import annotations

from typing import Any

from companion.clock.engine import format_ms

HISTORY_WORDS = {
    "pass": "pass",
    "turn-lost": "turn lost",
    "challenge-bonus": "challenge bonus",
}


def square_name(row: int, col: int) -> str:
    return f"{chr(65 + col)}{row + 1}"


def board_rows(board: dict[str, Any]) -> list[str]:
    """The board a row a line, for a screen reader and a page without script:
    ``"Row 8: D8 H, E8 O, F8 U"``; a row without tiles says so."""
    by_row: dict[int, list[str]] = {}
    for sq in board.get("squares", []):
        if sq["kind"] == "tile":
            what = f"blank as {sq['letter']}" if sq.get("blank") else sq["letter"]
        elif sq["kind"] == "back":
            what = "a tile face down"
        else:
            what = "a token" if sq.get("token") else ""
        if what:
            by_row.setdefault(sq["row"], []).append(f"{square_name(sq['row'], sq['col'])} {what}")
    return [f"Row {r + 1}: " + (", ".join(by_row[r]) if r in by_row else "empty") for r in range(board["rows"])]


def remaining_ms(doc: dict[str, Any], player: dict[str, Any], now_ms: int) -> int | None:
    """A player's clock at ``now_ms``, from the document made at its ``server_time``."""
    c = player.get("clock")
    if not c:
        return None
    running = c["running"] if "running" in c else (doc["clock"].get("running") and
                                                    doc["clock"].get("on_move") == player["index"])
    return int(c["remaining_ms"] - (max(0, now_ms - doc["server_time"]) if running else 0))


def move_text(row: dict[str, Any]) -> str:
    if "what" in row:
        return str(row["what"])
    kind = row["kind"]
    if kind == "play":
        return f"{row['position']} {row.get('shown') or row['word']}"
    if kind == "withdrawn":
        return f"{row['position']} {row['shown']} withdrawn" if "position" in row else "play withdrawn"
    if kind == "exchange":
        return f"exchange {row.get('tiles') or row.get('count')}"
    if kind in ("end-rack-points", "last-rack-penalty"):
        return f"racks ({row['tiles']})" if kind == "end-rack-points" else f"own rack ({row['tiles']})"
    return HISTORY_WORDS.get(kind, row.get("message") or kind)


def plain_view(doc: dict[str, Any], now_ms: int) -> dict[str, Any]:
    """What the template writes: players (name, score, clock), the moves, the last verdicts, the
    board as rows of text (each board of a game that has two)."""
    players = []
    for p in doc.get("players", []):
        ms = remaining_ms(doc, p, now_ms)
        players.append({"index": p["index"], "name": p["name"], "score": p.get("score"),
                        "on_move": p.get("on_move"), "clock": "–" if ms is None else format_ms(ms)})
    names = [p["name"] for p in doc.get("players", [])]
    moves = []
    for n, row in enumerate(doc.get("history", []), 1):
        points = row.get("points")
        moves.append({"n": n, "player": names[row["player"]] if row.get("player") is not None else "",
                      "what": move_text(row), "points": "" if points is None else f"{points:+d}",
                      "total": row.get("total", "")})
    boards = doc.get("boards") or [doc["board"]]
    return {
        "title": doc.get("game", {}).get("title", "companion"),
        "players": players,
        "moves": moves,
        "verdicts": [v["message"] for v in reversed(doc.get("verdicts", []))][-10:],
        "boards": [{"title": b.get("title") or "The board", "rows": board_rows(b)} for b in boards],
    }
