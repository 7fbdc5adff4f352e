"""What a table has to tell the venue, on disk until the broker has acknowledged it.

A SQLite file beside the game log (``venue-outbox-<event>-table<n>.sqlite``): the log's events in the log's order
(the log's own ``seq``), each marked sent once the broker acknowledged it (QoS 1 PUBACK), and
each game's latest state (only the latest matters: it is retained, so it replaces the one
before). A table that cannot reach the broker keeps playing and the outbox grows; when the
broker returns, the events go out oldest first, then the states.

WAL with ``synchronous=NORMAL``: the game log (synchronous=FULL) is the truth; after a power cut
an event the outbox lost is taken again from the log
(:meth:`companion.table.publish.publisher.TablePublisher.attach`).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any, Iterable

from companion.core.errors import CompanionError

def outbox_name(event: str, table: int) -> str:
    """The outbox's file for table ``table`` of ``event`` (both already checked as topic levels)."""
    return f"venue-outbox-{event}-table{table}.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    body TEXT NOT NULL,
    sent INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS events_unsent ON events (sent, seq);
CREATE INDEX IF NOT EXISTS events_game ON events (game, seq);
CREATE TABLE IF NOT EXISTS states (
    game TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    sent_seq INTEGER NOT NULL DEFAULT 0,
    ordinal INTEGER NOT NULL
);
"""


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


class Outbox:
    """The outbox at ``path``. Used by the game thread (adding) and the publisher's thread
    (sending): one lock around the connection."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(_SCHEMA)
        except (OSError, sqlite3.DatabaseError) as exc:
            raise CompanionError(f"{self.path}: not a venue outbox ({exc}); left as it is") from None

    def close(self) -> None:
        with self._lock:
            self.db.close()

    # -- the game thread --

    def add(self, seq: int, game: str, body: dict[str, Any]) -> None:
        """One event of the log (again: a repeat of a seq is ignored)."""
        with self._lock:
            self.db.execute("INSERT OR IGNORE INTO events (seq, game, body) VALUES (?, ?, ?)", (seq, game, _dumps(body)))

    def last_seq(self) -> int:
        with self._lock:
            row = self.db.execute("SELECT MAX(seq) FROM events").fetchone()
        return int(row[0] or 0)

    def set_state(self, game: str, seq: int, body: dict[str, Any]) -> None:
        """The game's state as of the log's ``seq`` (an older one never replaces a newer)."""
        with self._lock:
            ordinal = self.db.execute(
                "SELECT COALESCE((SELECT ordinal FROM states WHERE game = ?), "
                "(SELECT COUNT(*) + 1 FROM states))", (game,)).fetchone()[0]
            self.db.execute(
                "INSERT INTO states (game, seq, body, ordinal) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(game) DO UPDATE SET seq = excluded.seq, body = excluded.body "
                "WHERE excluded.seq >= states.seq", (game, seq, _dumps(body), ordinal))

    def ordinal(self, game: str) -> int:
        """The game's place among the games this table has played (1 for its first)."""
        with self._lock:
            row = self.db.execute("SELECT ordinal FROM states WHERE game = ?", (game,)).fetchone()
            if row is not None:
                return int(row[0])
            return int(self.db.execute("SELECT COUNT(*) + 1 FROM states").fetchone()[0])

    def game_log(self, game: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self.db.execute("SELECT body FROM events WHERE game = ? ORDER BY seq", (game,)).fetchall()
        return [json.loads(b) for (b,) in rows]

    # -- the publisher's thread --

    def unsent(self, limit: int = 100) -> list[tuple[int, dict[str, Any]]]:
        with self._lock:
            rows = self.db.execute("SELECT seq, body FROM events WHERE sent = 0 ORDER BY seq LIMIT ?", (limit,)).fetchall()
        return [(s, json.loads(b)) for s, b in rows]

    def mark_sent(self, seqs: Iterable[int]) -> None:
        with self._lock:
            self.db.executemany("UPDATE events SET sent = 1 WHERE seq = ?", [(s,) for s in seqs])

    def states(self, unsent_only: bool = True) -> list[tuple[str, int, dict[str, Any]]]:
        """(game, seq, body) of each game's latest state, oldest game first."""
        where = "WHERE seq > sent_seq" if unsent_only else ""
        with self._lock:
            rows = self.db.execute(f"SELECT game, seq, body FROM states {where} ORDER BY ordinal").fetchall()
        return [(g, s, json.loads(b)) for g, s, b in rows]

    def mark_state_sent(self, game: str, seq: int) -> None:
        with self._lock:
            self.db.execute("UPDATE states SET sent_seq = MAX(sent_seq, ?) WHERE game = ?", (seq, game))

    def counts(self) -> dict[str, int]:
        with self._lock:
            unsent = self.db.execute("SELECT COUNT(*) FROM events WHERE sent = 0").fetchone()[0]
            total = self.db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        return {"events": int(total), "unsent": int(unsent)}
