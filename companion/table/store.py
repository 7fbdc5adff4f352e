"""The game log: an append-only list of events in SQLite, the truth the table's state folds from.

One file, ``games.sqlite`` in the data directory (``$COMPANION_DATA_DIR``; systemd's
StateDirectory on the Pi), in WAL mode with ``synchronous=FULL``: an append returns only once
the event is on disk, so a state published after it survives a pulled plug. One table:

    events(seq INTEGER PRIMARY KEY, game TEXT, kind TEXT, payload TEXT (JSON),
           wall_ms INTEGER (the wall clock), at_ms INTEGER (the table's clock))

Append-only in the code (there is no UPDATE or DELETE here) and in the file (triggers refuse
both). A file that is not a SQLite database, or a database that is not a companion game log, is
refused with one line and never written to. One process at a time holds the log (a lock file
beside it): a second ``companion run`` is told so instead of interleaving games.

Kinds of events (the payload's shape is the kind's):

- ``entry``: one :class:`companion.table.entries.LogEntry` (game started, an action, a correction,
  an undo), serialised by :func:`entry_to_json` and read back exactly by :func:`entry_from_json`;
  a game's first entry carries the settings it was started with (``settings``);
- ``clock``: what the clocks did that no entry implies: a player's press (the clock switches at
  the press, before the camera has looked), the clock's start, pause and resume, and the clock
  brought back to the player on move after a question;
- ``question``: a turn the table could not settle, with what it asks;
- ``dungeon``: every event of a solo dungeon game (``op``: start, press, setup, rack, move,
  refill, burn, question), folded by :class:`companion.table.dungeon.DungeonSession`;
- any kind may carry ``ref``, the caller's own mark (the demo's step), kept with the event.

The state is their fold: :class:`companion.table.TableSession` replays a game's events in order.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import time
import urllib.parse
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Iterator

from companion.clock.now import wall_ms
from companion.core.board import Tile
from companion.core.move import PlacedTile, Placement
from companion.core.errors import CompanionError, one_line
from companion.rules import classic
from companion.rules.classic import ChallengeMode, ClassicOptions
from companion.table.entries import Acted, Corrected, LogEntry, Started, Undone
from companion.table.wal import read_wal

APP = "companion game log"
FORMAT = 1
FILE_NAME = "games.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    wall_ms INTEGER NOT NULL,
    at_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS events_game ON events (game, seq);
CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'the game log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'the game log is append-only'); END;
"""


@dataclass(frozen=True)
class StoredEvent:
    seq: int
    game: str
    kind: str
    payload: dict[str, Any]
    wall_ms: int
    at_ms: int


class DamagedLog(CompanionError):
    """A game log that cannot be read as it is; nothing of it was changed. ``reason``: why."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}; left as it is (start with --fresh-log to move it aside and "
                         "begin a new game log)")
        self.reason = reason


# The files of one SQLite database in WAL mode: a log is moved aside with all three or not at all.
SIDE_FILES = ("-wal", "-shm")


class GameStore:
    """The log in ``path`` (created if absent). ``wall`` is injectable for tests.

    A log is read before it is written to: the WAL's frames checked from its bytes
    (:mod:`companion.table.wal`), then a read-only connection that changes no file (not even
    SQLite's index, ``-shm``) checks the file and every event's JSON, and the game is folded
    from it; the file is opened for writing at the first append. A log that cannot be read is
    :class:`DamagedLog` and left exactly as it is; with ``fresh_log`` it is moved aside whole
    (:meth:`set_aside`) and a new log begins, ``notice`` saying where the old one went."""

    def __init__(self, path: Path, *, wall: Any = wall_ms, fresh_log: bool = False) -> None:
        self.path = Path(path)
        self.wall = wall
        self.fresh_log = fresh_log
        self.notice: str | None = None
        self._writing = False
        # Called as listener(session, event) after each event a session appends (see
        # LoggedGame._store_event): the venue's publisher (companion/table/publish/publisher.py).
        self.listeners: list[Any] = []
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CompanionError(f"{self.path.parent}: cannot make the data folder ({exc.strerror or exc})") from None
        if self.path.is_dir():
            raise CompanionError(f"{self.path}: is a folder, not a game log")
        self._lock_file = self._lock()
        try:
            self._open()
        except DamagedLog as exc:
            if not fresh_log:
                self._unlock()
                raise
            self.set_aside(exc.reason)
        except BaseException:
            self._unlock()
            raise

    # -- opening --

    def _side(self, suffix: str) -> Path:
        return self.path.with_name(self.path.name + suffix)

    def _open(self) -> None:
        main_size = self.path.stat().st_size if self.path.exists() else 0
        try:
            wal = read_wal(self._side("-wal"))
        except OSError as exc:
            raise CompanionError(f"{self._side('-wal')}: cannot read ({exc.strerror or exc})") from None
        if main_size == 0:
            if wal is not None and wal.frames > 0:
                # SQLite would take this for a new database and delete the WAL: the moves in it
                # would be gone.
                raise DamagedLog(self.path, f"the file is empty but {self.path.name}-wal holds "
                                 f"{wal.frames} pages of the log")
            self._create()
            return
        self._check_header()
        if wal is not None and wal.damaged:
            where = "its header" if not wal.header_ok else f"frame {wal.committed + 1} of {wal.frames}"
            raise DamagedLog(self.path, f"{self.path.name}-wal is damaged ({where}): moves in it cannot be read")
        self._open_reading()

    def _create(self) -> None:
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            # One script, one transaction: a file is a game log whole or not at all.
            self.db.executescript(
                "BEGIN IMMEDIATE;" + _SCHEMA
                + f"INSERT OR IGNORE INTO meta VALUES ('app', '{APP}'), ('format', '{FORMAT}'); COMMIT;")
        except sqlite3.Error as exc:
            with contextlib.suppress(Exception):
                self.db.close()
            raise CompanionError(f"{self.path}: cannot make a game log ({one_line(exc)})") from None
        self._writing = True

    def _open_reading(self) -> None:
        """A connection that reads and changes nothing: no write, no checkpoint at its close, and
        SQLite's index (-shm) read as it is (made only when there is none: it holds no data)."""
        try:
            self.db = self._reader()
        except sqlite3.Error as exc:
            raise CompanionError(f"{self.path}: cannot open ({one_line(exc)})") from None
        try:
            self._check_ours()
            bad = self.db.execute("PRAGMA quick_check").fetchone()[0]
            if bad != "ok":
                raise DamagedLog(self.path, f"the file is damaged ({one_line(bad)})")
            for seq, payload in self.db.execute("SELECT seq, payload FROM events ORDER BY seq"):
                try:
                    json.loads(payload)
                except (ValueError, TypeError):
                    raise DamagedLog(self.path, f"event {seq} is not valid JSON") from None
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise DamagedLog(self.path, f"not a companion game log ({one_line(exc)})") from None
        except BaseException:
            self.db.close()
            raise

    def _reader(self) -> sqlite3.Connection:
        uri = "file:" + urllib.parse.quote(str(self.path.resolve())) + "?mode=ro"
        wal, shm = self._side("-wal"), self._side("-shm")
        if shm.exists():
            uri += "&readonly_shm=1"
        elif not wal.exists() or wal.stat().st_size == 0:
            # No WAL (closed cleanly): the file is the whole log, read without making a -wal or
            # -shm beside it (we hold the lock: nobody writes it meanwhile).
            uri += "&immutable=1"
        # (A WAL without its -shm: SQLite makes the -shm, its index of the WAL, holding no data.)
        return sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)

    def _writer(self) -> None:
        """The log opened for writing (at the first append). The reading connection closes
        first: SQLite shares one -shm mapping per file in a process, read-only if it opened so."""
        if self._writing:
            return
        self.db.close()
        try:
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
        except sqlite3.Error as exc:
            self.db = self._reader()
            raise CompanionError(f"{self.path}: cannot write the game log ({one_line(exc)})") from None
        self.db = db
        self._writing = True

    def set_aside(self, reason: str) -> Path:
        """Move the log that cannot be read aside whole (the file, its -wal and -shm together,
        into a folder beside it; nothing deleted) and begin a new one; ``notice`` says where."""
        with contextlib.suppress(Exception):
            self.db.close()
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        folder = self.path.with_name(f"{self.path.stem}-damaged-{stamp}")
        n = 1
        while folder.exists():
            n += 1
            folder = self.path.with_name(f"{self.path.stem}-damaged-{stamp}-{n}")
        try:
            folder.mkdir()
            for p in (self.path, *(self._side(s) for s in SIDE_FILES)):
                if p.exists():
                    os.rename(p, folder / p.name)
            fd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            self._unlock()
            raise CompanionError(f"{self.path}: {reason}; cannot move it aside ({exc.strerror or exc}): "
                                 "left where it is") from None
        self.notice = f"{self.path}: {reason}; moved aside whole to {folder}/, a new game log begins"
        self._create()
        return folder

    def _lock(self) -> Any:
        lock_path = self._side(".lock")
        try:
            f = open(lock_path, "a+")
        except OSError as exc:
            raise CompanionError(f"{lock_path}: cannot open ({exc.strerror or exc})") from None
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            raise CompanionError(f"{self.path}: another companion is using this game log") from None
        return f

    def _unlock(self) -> None:
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None

    def _check_header(self) -> None:
        try:
            with open(self.path, "rb") as f:
                head = f.read(16)
        except OSError as exc:
            raise CompanionError(f"{self.path}: cannot read ({exc.strerror or exc})") from None
        if head != b"SQLite format 3\x00":
            raise DamagedLog(self.path, "not a companion game log (not a SQLite database)")

    def _check_ours(self) -> None:
        try:
            rows = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError:
            rows = {}
        if rows.get("app") != APP:
            raise DamagedLog(self.path, "a SQLite database, but not a companion game log")
        if rows.get("format") != str(FORMAT):
            raise CompanionError(f"{self.path}: a game log of format {one_line(rows.get('format'))}, "
                                 f"this companion reads {FORMAT}; left as it is")

    def close(self) -> None:
        try:
            self.db.close()
        finally:
            self._unlock()

    def __enter__(self) -> "GameStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    class _Tx:
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def __enter__(self) -> None:
            self.db.execute("BEGIN IMMEDIATE")

        def __exit__(self, kind: Any, *exc: object) -> None:
            if kind is not None:
                self._end()
                return
            try:
                self.db.execute("COMMIT")
            except sqlite3.Error:
                # A COMMIT that failed (a full disk) leaves the transaction open: end it, so that
                # the next append, once there is room, starts clean.
                self._end()
                raise

        def _end(self) -> None:
            # SQLite may have rolled the transaction back itself (SQLITE_FULL on an INSERT): a
            # ROLLBACK then would fail and hide the error that matters.
            if self.db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")

    def _transaction(self) -> "GameStore._Tx":
        return GameStore._Tx(self.db)

    # -- writing --

    def append(self, game: str, kind: str, payload: dict[str, Any], at_ms: int) -> int:
        """One event, in one transaction, on disk when this returns; its seq."""
        data = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        try:
            self._writer()
            with self._transaction():
                cur = self.db.execute(
                    "INSERT INTO events (game, kind, payload, wall_ms, at_ms) VALUES (?, ?, ?, ?, ?)",
                    (game, kind, data, int(self.wall()), int(at_ms)),
                )
        except sqlite3.Error as exc:
            raise CompanionError(f"{self.path}: cannot write the game log ({one_line(exc)})") from None
        return int(cur.lastrowid)

    # -- reading --

    def events(self, game: str | None = None) -> list[StoredEvent]:
        if game is None:
            rows = self.db.execute("SELECT seq, game, kind, payload, wall_ms, at_ms FROM events ORDER BY seq")
        else:
            rows = self.db.execute(
                "SELECT seq, game, kind, payload, wall_ms, at_ms FROM events WHERE game = ? ORDER BY seq", (game,))
        return [StoredEvent(s, g, k, json.loads(p), w, a) for s, g, k, p, w, a in rows.fetchall()]

    def current_game(self) -> str | None:
        """The game of the last game started (any registered game's start event, as
        :func:`starts_games` was told them), or None when the log is empty."""
        if not GAME_STARTS:
            return None
        where = " OR ".join(f"(kind = ? AND ({cond}))" if cond else "kind = ?" for cond in GAME_STARTS.values())
        row = self.db.execute(f"SELECT game FROM events WHERE {where} ORDER BY seq DESC LIMIT 1",
                              tuple(GAME_STARTS)).fetchone()
        return row[0] if row else None

    def last(self) -> StoredEvent | None:
        row = self.db.execute("SELECT seq, game, kind, payload, wall_ms, at_ms FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        if row is None:
            return None
        s, g, k, p, w, a = row
        return StoredEvent(s, g, k, json.loads(p), w, a)


# The event that starts a game, by its kind: an SQL condition on the event's ``payload`` (None:
# every event of the kind). The game registry fills it (``Game.log_start``), so the log knows
# every game's start without naming one.
GAME_STARTS: dict[str, str | None] = {}


def starts_games(kind: str, condition: str | None) -> None:
    """Tells the log that an event of ``kind`` meeting ``condition`` starts a game."""
    GAME_STARTS[kind] = condition


def open_store(data_dir: Path | None = None, *, fresh_log: bool = False) -> GameStore:
    """The game log in the data directory (``$COMPANION_DATA_DIR``, ...); ``fresh_log``: one
    that cannot be read is moved aside and a new one begins (:class:`GameStore`)."""
    if data_dir is None:
        from companion.lexicon.store import data_dir as default_dir

        data_dir = default_dir()
    return GameStore(Path(data_dir) / FILE_NAME, fresh_log=fresh_log)


# --- LogEntry <-> JSON ---------------------------------------------------------------------------


def _tile_json(tile: Tile | None) -> dict[str, Any] | None:
    if tile is None:
        return None
    return {"letter": tile.letter, "blank": tile.blank, "rotation": tile.rotation, "set": tile.set}


def _tile(d: dict[str, Any] | None) -> Tile | None:
    if d is None:
        return None
    return Tile(d["letter"], bool(d["blank"]), int(d["rotation"]), d["set"])


def action_to_json(action: classic.Action) -> dict[str, Any]:
    if isinstance(action, classic.Play):
        return {"type": "play", "tiles": [[t.row, t.col, t.letter, t.blank] for t in action.placement.tiles]}
    if isinstance(action, classic.Pass):
        return {"type": "pass"}
    if isinstance(action, classic.Exchange):
        return {"type": "exchange", "tiles": action.tiles, "four_of_a_kind": action.four_of_a_kind}
    if isinstance(action, classic.Challenge):
        return {"type": "challenge", "by": action.by}
    if isinstance(action, classic.Accept):
        return {"type": "accept"}
    if isinstance(action, classic.TradeBlank):
        return {"type": "trade-blank", "square": list(action.square)}
    if isinstance(action, classic.RevealRacks):
        return {"type": "reveal-racks", "racks": list(action.racks)}
    if isinstance(action, classic.Resign):
        return {"type": "resign", "by": action.by}
    raise TypeError(f"no JSON form for {action!r}")


def action_from_json(d: dict[str, Any]) -> classic.Action:
    kind = d["type"]
    if kind == "play":
        return classic.Play(Placement.of(PlacedTile(int(r), int(c), str(letter), bool(b)) for r, c, letter, b in d["tiles"]))
    if kind == "pass":
        return classic.Pass()
    if kind == "exchange":
        return classic.Exchange(d["tiles"], bool(d["four_of_a_kind"]))
    if kind == "challenge":
        return classic.Challenge(int(d["by"]))
    if kind == "accept":
        return classic.Accept()
    if kind == "trade-blank":
        return classic.TradeBlank((int(d["square"][0]), int(d["square"][1])))
    if kind == "reveal-racks":
        return classic.RevealRacks(tuple(d["racks"]))
    if kind == "resign":
        return classic.Resign(int(d["by"]))
    raise ValueError(f"unknown action {kind!r}")


def _options_json(options: ClassicOptions) -> dict[str, Any]:
    out = {}
    for f in fields(options):
        v = getattr(options, f.name)
        out[f.name] = v.value if isinstance(v, ChallengeMode) else v
    return out


def _options(d: dict[str, Any]) -> ClassicOptions:
    d = dict(d)
    d["challenge"] = ChallengeMode(d["challenge"])
    return ClassicOptions(**d)


def event_to_json(event: Started | Acted | Corrected | Undone) -> dict[str, Any]:
    if isinstance(event, Started):
        return {"type": "started", "names": list(event.names), "options": _options_json(event.options),
                "seed": event.seed, "first": event.first, "control": event.control}
    if isinstance(event, Acted):
        return {"type": "acted", "action": action_to_json(event.action), "ruling": event.ruling}
    if isinstance(event, Corrected):
        return {"type": "corrected", "square": list(event.square), "tile": _tile_json(event.tile)}
    if isinstance(event, Undone):
        return {"type": "undone", "target": event.target}
    raise TypeError(f"no JSON form for {event!r}")


def event_from_json(d: dict[str, Any]) -> Started | Acted | Corrected | Undone:
    kind = d["type"]
    if kind == "started":
        return Started(tuple(d["names"]), _options(d["options"]), int(d["seed"]), int(d["first"]), d["control"])
    if kind == "acted":
        return Acted(action_from_json(d["action"]), d["ruling"])
    if kind == "corrected":
        return Corrected((int(d["square"][0]), int(d["square"][1])), _tile(d["tile"]))
    if kind == "undone":
        return Undone(int(d["target"]))
    raise ValueError(f"unknown log entry {kind!r}")


def entry_to_json(entry: LogEntry) -> dict[str, Any]:
    return {"seq": entry.seq, "at_ms": entry.at_ms, "by": entry.by, "event": event_to_json(entry.event)}


def entry_from_json(d: dict[str, Any]) -> LogEntry:
    return LogEntry(int(d["seq"]), int(d["at_ms"]), d["by"], event_from_json(d["event"]))


def iter_entries(events: list[StoredEvent]) -> Iterator[LogEntry]:
    for e in events:
        if e.kind == "entry":
            yield entry_from_json(e.payload["entry"])


