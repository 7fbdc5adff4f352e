"""What the venue's screen knows: every table's games folded from what the broker delivers.

Pure: messages in (with the time they arrived), a document out. Each table's events form one
chain (``prev`` names the event published before, see :mod:`companion.table.publish.topics`): an
event whose ``prev`` is the last one applied is appended; one already applied (a repeat after a
reconnection) is dropped; one that arrives early waits until the chain reaches it. A game's
retained state carries the game's whole log, so a screen that joined late, or missed events
while the broker was down, fills its gaps from it. So every game's log here holds each event
of the table's log once, in the log's order.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from dataclasses import dataclass, field
from typing import Any

MAX_WAITING = 10_000  # events held for a gap, per table (a gap never filled must not eat memory)


@dataclass
class GameView:
    id: str
    table: int
    state: dict[str, Any] = field(default_factory=dict)  # the latest state, without its log
    state_seq: int = 0
    log: list[dict[str, Any]] = field(default_factory=list)  # the game's events, in order, once
    heard_ms: dict[int, int] = field(default_factory=dict)  # seq -> when the screen applied it (wall ms)

    @property
    def last_seq(self) -> int:
        return self.log[-1]["seq"] if self.log else 0

    def append(self, body: dict[str, Any], now_ms: int) -> None:
        if body["seq"] > self.last_seq:
            self.log.append(body)
            self.heard_ms.setdefault(body["seq"], now_ms)

    def merge(self, events: list[dict[str, Any]], now_ms: int) -> None:
        have = {e["seq"] for e in self.log}
        new = [e for e in events if isinstance(e, dict) and isinstance(e.get("seq"), int) and e["seq"] not in have]
        if new:
            self.log = sorted(self.log + new, key=lambda e: e["seq"])
            for e in new:
                self.heard_ms.setdefault(e["seq"], now_ms)

    @property
    def round(self) -> int:
        return int(self.state.get("round") or 0)

    def summary(self) -> dict[str, Any]:
        s = self.state
        return {"id": self.id, "table": self.table, "round": self.round, "kind": s.get("kind"),
                "players": s.get("players", []), "over": bool(s.get("over")), "moves": s.get("moves", []),
                "seqs": [e["seq"] for e in self.log], "seq": self.last_seq}


@dataclass
class TableView:
    number: int
    seq: int = 0  # the chain: the last event applied
    status: str = "unknown"
    games: dict[str, GameView] = field(default_factory=dict)
    waiting: dict[int, dict[str, Any]] = field(default_factory=dict)  # prev -> event
    repeats: int = 0  # events heard again and dropped

    def game(self, gid: str) -> GameView:
        if gid not in self.games:
            self.games[gid] = GameView(gid, self.number)
        return self.games[gid]

    def current(self) -> GameView | None:
        if not self.games:
            return None
        return max(self.games.values(), key=lambda g: max(g.last_seq, g.state_seq))


class Screen:
    """The venue's document for ``event``. Not thread-safe: the subscriber serialises."""

    def __init__(self, event: str) -> None:
        self.event = event
        self.tables: dict[int, TableView] = {}
        self.version = 0

    def table(self, n: int) -> TableView:
        if n not in self.tables:
            self.tables[n] = TableView(n)
        return self.tables[n]

    # -- what the broker delivers --

    def heard_log(self, n: int, body: Any, now_ms: int) -> None:
        if not _is_event(body):
            return
        t = self.table(n)
        if body["seq"] <= t.seq:
            t.repeats += 1
            return
        if body["prev"] != t.seq:
            if len(t.waiting) < MAX_WAITING:
                t.waiting[body["prev"]] = body
            return
        self._apply(t, body, now_ms)
        self._drain(t, now_ms)

    def heard_game(self, n: int, gid: str, state: Any, now_ms: int) -> None:
        if not isinstance(state, dict) or not isinstance(state.get("seq"), int) or state.get("game") != gid:
            return
        t = self.table(n)
        g = t.game(gid)
        if state["seq"] >= g.state_seq:
            g.state = {k: v for k, v in state.items() if k != "log"}
            g.state_seq = state["seq"]
            self.version += 1
        log = state.get("log")
        if isinstance(log, list):
            g.merge([e for e in log if _is_event(e)], now_ms)
            if state["seq"] > t.seq:
                t.seq = state["seq"]
                t.waiting = {p: e for p, e in t.waiting.items() if e["seq"] > t.seq}
                self._drain(t, now_ms)
            self.version += 1

    def heard_status(self, n: int, payload: bytes) -> None:
        self.table(n).status = payload.decode("utf-8", "replace")[:20]
        self.version += 1

    def _apply(self, t: TableView, body: dict[str, Any], now_ms: int) -> None:
        t.game(body["game"]).append(body, now_ms)
        t.seq = body["seq"]
        self.version += 1

    def _drain(self, t: TableView, now_ms: int) -> None:
        while t.seq in t.waiting:
            body = t.waiting.pop(t.seq)
            if body["seq"] > t.seq:
                self._apply(t, body, now_ms)

    # -- what the screen shows --

    def games(self) -> list[GameView]:
        return sorted((g for t in self.tables.values() for g in t.games.values() if g.state),
                      key=lambda g: (g.round, g.table, g.id))

    def document(self) -> dict[str, Any]:
        boards = []
        for n in sorted(self.tables):
            t = self.tables[n]
            g = t.current()
            s = g.state if g else {}
            boards.append({"table": n, "status": t.status, "game": g.id if g else None, "round": g.round if g else 0,
                           "players": s.get("players", []), "clock": s.get("clock"), "wall_ms": s.get("wall_ms"),
                           "board": s.get("board", []), "last_move": s.get("last_move"), "over": bool(s.get("over")),
                           "title": s.get("title", ""), "moves": len(s.get("moves", [])),
                           "waiting": len(t.waiting), "repeats": t.repeats})
        return {"event": self.event, "version": self.version, "boards": boards,
                "standings": standings(self.games()), "games": [g.summary() for g in self.games()]}

    def game_detail(self, n: int, gid: str) -> dict[str, Any] | None:
        t = self.tables.get(n)
        g = t.games.get(gid) if t else None
        if g is None:
            return None
        return {**g.summary(), "state": g.state, "log": g.log,
                "delays_ms": {str(e["seq"]): g.heard_ms[e["seq"]] - e["wall_ms"]
                              for e in g.log if e["seq"] in g.heard_ms and isinstance(e.get("wall_ms"), int)}}

    def export_zip(self) -> bytes:
        """Every game's GCG and the results as CSV, in one zip."""
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            for g in self.games():
                z.writestr(f"{self.event}/{gcg_name(g)}", g.state.get("gcg") or "")
            z.writestr(f"{self.event}/results.csv", results_csv(self.games()))
        return buf.getvalue()


def _is_event(body: Any) -> bool:
    return (isinstance(body, dict) and isinstance(body.get("seq"), int) and isinstance(body.get("prev"), int)
            and isinstance(body.get("game"), str) and body["seq"] > body["prev"] >= 0)


def gcg_name(g: GameView) -> str:
    names = "-".join(re.sub(r"[^A-Za-z0-9]+", "_", p.get("name", "")) for p in g.state.get("players", []))
    return f"round{g.round:02d}-table{g.table:03d}-{names or g.id}.gcg"


def results_csv(games: list[GameView]) -> str:
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["round", "table", "game", "player", "score", "opponent", "opponent_score", "result", "spread", "over"])
    for g in games:
        players = g.state.get("players", [])
        for i, p in enumerate(players):
            for j, q in enumerate(players):
                if i != j:
                    spread = p["score"] - q["score"]
                    result = "win" if spread > 0 else "loss" if spread < 0 else "draw"
                    w.writerow([g.round, g.table, g.id, p["name"], p["score"], q["name"], q["score"],
                                result if g.state.get("over") else "", spread, int(bool(g.state.get("over")))])
    return out.getvalue()


def standings(games: list[GameView]) -> list[dict[str, Any]]:
    """Wins (a draw half), spread and each round's result, over finished two-player games;
    games in progress show in the rounds but count for nothing yet."""
    rows: dict[str, dict[str, Any]] = {}
    for g in games:
        players = g.state.get("players", [])
        if len(players) != 2:
            continue
        for i in (0, 1):
            me, them = players[i], players[1 - i]
            row = rows.setdefault(me["name"], {"name": me["name"], "wins": 0.0, "losses": 0.0, "spread": 0,
                                               "played": 0, "rounds": {}})
            spread = me["score"] - them["score"]
            over = bool(g.state.get("over"))
            mark = ("W" if spread > 0 else "L" if spread < 0 else "D") if over else "…"
            row["rounds"][str(g.round)] = {"result": mark, "score": me["score"], "against": them["name"],
                                           "against_score": them["score"], "table": g.table}
            if over:
                row["played"] += 1
                row["spread"] += spread
                row["wins"] += 1.0 if spread > 0 else 0.5 if spread == 0 else 0.0
                row["losses"] += 1.0 if spread < 0 else 0.5 if spread == 0 else 0.0
    ranked = sorted(rows.values(), key=lambda r: (-r["wins"], -r["spread"], r["name"].casefold()))
    for place, r in enumerate(ranked, 1):
        r["place"] = place
    return ranked
