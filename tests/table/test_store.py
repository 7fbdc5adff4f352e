"""The game log: append-only SQLite, LogEntry values stored exactly, foreign files left alone,
and a session folded back from it to the same state and clocks."""

from __future__ import annotations

import json
import sqlite3

import pytest

from companion.core.board import Tile
from companion.core.move import Placement, PlacedTile
from companion.core.errors import CompanionError
from companion.rules import classic
from companion.rules.classic import ChallengeMode, ClassicOptions
from companion.table.store import GameStore, entry_from_json, entry_to_json
from companion.table.classic import TableSession
from companion.table.table import TableClock
from companion.table.entries import Acted, Corrected, LogEntry, Started, Undone

WORDS = frozenset({"HOUSE", "BOAT", "AN", "ANT", "GREEN", "QI", "HOUSES"})


def lexicon(tileset: str) -> frozenset[str]:
    return WORDS


ENTRIES = [
    LogEntry(0, 5, "table", Started(("Ann", "Bob"), ClassicOptions("de", ChallengeMode.DOUBLE, exchange_min_bag=7), 12, 0, "25 min")),
    LogEntry(1, 9, "table", Acted(classic.Play(Placement.of([PlacedTile(7, 7, "Q"), PlacedTile(7, 8, "I", blank=True)])))),
    LogEntry(2, 10, "admin", Acted(classic.Challenge(1), "phony")),
    LogEntry(3, 11, "table", Acted(classic.Exchange("AB?", four_of_a_kind=True))),
    LogEntry(4, 12, "table", Acted(classic.Pass())),
    LogEntry(5, 13, "table", Acted(classic.Accept())),
    LogEntry(6, 14, "admin", Acted(classic.TradeBlank((3, 4)))),
    LogEntry(7, 15, "admin", Acted(classic.RevealRacks(("AB", "")))),
    LogEntry(8, 16, "admin", Corrected((1, 2), Tile("Ä", True, 90, "ivory"))),
    LogEntry(9, 17, "admin", Corrected((1, 2), None)),
    LogEntry(10, 18, "admin", Undone(8)),
]


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: type(e.event).__name__)
def test_every_log_entry_round_trips_through_json_exactly(entry):
    assert entry_from_json(json.loads(json.dumps(entry_to_json(entry)))) == entry


def test_the_log_is_wal_full_sync_and_append_only(tmp_path):
    with GameStore(tmp_path / "g.sqlite") as store:
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        seq = store.append("g1", "clock", {"op": "start"}, 10)
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            store.db.execute("UPDATE events SET kind = 'x'")
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            store.db.execute("DELETE FROM events")
        assert [e.seq for e in store.events("g1")] == [seq]


def test_foreign_and_corrupt_files_are_refused_and_left_as_they_are(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(CompanionError, match="not a companion game log"):
        GameStore(junk)
    assert junk.read_bytes() == b"not a database at all" * 100
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE t (x)")
    db.commit()
    db.close()
    before = other.read_bytes()
    with pytest.raises(CompanionError, match="not a companion game log"):
        GameStore(other)
    assert other.read_bytes() == before


def test_one_companion_at_a_time(tmp_path):
    with GameStore(tmp_path / "g.sqlite"):
        with pytest.raises(CompanionError, match="another companion"):
            GameStore(tmp_path / "g.sqlite")


def _play(session: TableSession, now: int, position: str, word: str) -> None:
    session.play(now, position, word)


def test_a_session_folds_back_from_the_log_to_the_same_state_and_clocks(tmp_path):
    path = tmp_path / "g.sqlite"
    with GameStore(path) as store:
        s = TableSession(store, ["Ann", "Bob"], seed=7, lexicon_for=lexicon, now_ms=1000)
        assert s.press(1, 2000) == "start"
        assert s.press(0, 30_000) == "judge"
        s.judge(30_100, None)  # no board: a question, the clock back to Ann
        assert s.press(0, 40_000) == "judge"
        _ = s.play(40_000, "8D", "HOUSE")
        s.pending_press = None  # played through the session directly
        s.pause(50_000)
        s.resume(60_000)
        s.correct(61_000, "H8", "A")
        s.undo(62_000)
        s.play(70_000, "E7", "B.AT")
        s.rule_challenge(71_000, "valid")
        now = 90_000
        expected = (s.state, s.history(), [s.clocks.remaining_ms(i, now) for i in range(2)], s.log, s.game_id)
    with GameStore(path) as store:
        r = TableSession.restore(store, lexicon_for=lexicon)
        got = (r.state, r.history(), [r.clocks.remaining_ms(i, now) for i in range(2)], r.log, r.game_id)
    assert got == expected
    assert [f["kind"] for f in r.feed].count("question") == 1


def test_after_a_restart_the_player_on_move_is_charged_for_the_downtime(tmp_path):
    with GameStore(tmp_path / "g.sqlite", wall=lambda: 1_000_000) as store:
        s = TableSession(store, ["Ann", "Bob"], seed=7, lexicon_for=lexicon, now_ms=0)
        s.press(1, 1000)  # Ann's clock runs from 1 s
        before = s.clocks.remaining_ms(0, 11_000)
        last = store.last()
    # 10 s of wall clock later (the process dead most of it), on a new monotonic clock.
    clock = TableClock.resumed(last, wall_now=1_010_000, mono=lambda: 555)
    assert clock() == 11_000
    with GameStore(tmp_path / "g.sqlite") as store:
        r = TableSession.restore(store, lexicon_for=lexicon)
    assert r.clocks.remaining_ms(0, clock()) == before


def test_a_write_that_fails_leaves_the_game_as_its_log_has_it(tmp_path):
    """A full database (SQLite's own SQLITE_FULL, here from max_page_count; a real full disk:
    tests/table/test_damaged_log.py): the action is refused with "not saved", the session is
    the log's fold (not the change made in memory before the write), and once there is room the
    game goes on and folds back to the same state."""
    from companion.table.session import ActionError

    path = tmp_path / "g.sqlite"
    with GameStore(path) as store:
        s = TableSession(store, ["Ann", "Bob"], seed=7, lexicon_for=lexicon, now_ms=1000)
        s.play(2000, "8D", "HOUSE")
        store.db.execute(f"PRAGMA max_page_count = {store.db.execute('PRAGMA page_count').fetchone()[0]}")
        letters = "ABCDEFGHIJKLMNOPRSTUVW" * 20
        for i, letter in enumerate(letters):
            before = (s.history(), len(s.log), s.state.board.to_text(), [p.score for p in s.state.players])
            try:
                s.correct(3000 + i, "H8", letter)
            except ActionError as exc:
                assert "not saved" in str(exc) and "database or disk is full" in str(exc)
                break
        else:
            raise AssertionError("the database never filled")
        assert (s.history(), len(s.log), s.state.board.to_text(), [p.score for p in s.state.players]) == before
        store.db.execute("PRAGMA max_page_count = 1073741823")  # room again
        s.correct(9000, "H8", "Z")
        expected = (s.state, s.history(), s.log)
    with GameStore(path) as store:
        r = TableSession.restore(store, lexicon_for=lexicon)
        assert (r.state, r.history(), r.log) == expected
