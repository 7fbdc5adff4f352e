"""Thirty simulated tables, a real Mosquitto (passwords, ACLs) on the loopback, one screen: every
event of every game on the screen, in order, once; through a broker killed and restarted
mid-event and a table cut off for over a minute of its game; a table refused outside its topics."""

from __future__ import annotations

import json
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from companion.venue.screen import Screen
from companion.venue.subscriber import Subscriber
from tests.venue.conftest import EVENT
from tests.venue.proxy import Proxy

SHARED_GAMES = Path(__file__).resolve().parents[2] / ".." / "shared" / "games"
TABLES = 30
CUT = 7  # the table whose cable is pulled


def wait_for(check, timeout: float = 30.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    return check()


def expected(table) -> dict:
    """What the table logged and judged: its game's events (every kind) and its moves."""
    from companion.table.publish.snapshot import compact_row

    s = table.demo.session
    return {"seqs": [e.seq for e in table.demo.store.events(s.game_id)],
            "moves": [compact_row(r) for r in s.history()],
            "scores": [p.score for p in s.state.players]}


def check_every_game(sub: Subscriber, venue) -> None:
    doc = sub.document()
    games = {(g["table"], g["id"]): g for g in doc["games"]}
    assert len(games) == len(venue.tables)
    for t in venue.tables:
        want = expected(t)
        got = games[(t.number, t.demo.session.game_id)]
        assert got["seqs"] == want["seqs"], f"table {t.number}: the screen's events differ from the log"
        assert len(set(got["seqs"])) == len(got["seqs"])
        assert got["moves"] == want["moves"], f"table {t.number}: the screen's moves differ"
        assert [p["score"] for p in got["players"]] == want["scores"]
        board = next(b for b in doc["boards"] if b["table"] == t.number)
        assert board["board"] == t.demo.session.state.board.to_text().splitlines()


@pytest.mark.skipif(not SHARED_GAMES.is_dir(), reason=f"needs {SHARED_GAMES} (../shared absent): the package's "
                    "one short game is over before a table can be cut off for a minute of play")
def test_thirty_tables_every_move_in_order_once_through_a_broker_restart_and_a_cut_cable(broker, tmp_path):
    from companion.sim.venuedemo import Venue, recorded_games

    records = recorded_games(SHARED_GAMES if SHARED_GAMES.is_dir() else None)
    records = [records[i % len(records)] for i in range(TABLES)]
    proxy = Proxy(broker.port)
    said: list[str] = []

    def broker_for(n: int):
        cfg = broker.config(f"table{n}")
        if n == CUT:
            from dataclasses import replace

            cfg = replace(cfg, port=proxy.port)
        return cfg

    screen = Screen(EVENT)
    sub = Subscriber(broker.config("screen"), screen).start()
    venue = Venue(records, tmp_path / "tables", EVENT, broker_for, say=said.append).start()
    try:
        assert wait_for(sub.connected.is_set, 10)
        venue.play(upto=6)
        assert venue.flush(30)

        # The broker dies without a word (SIGKILL) while the tables play on.
        broker.kill()
        venue.play(upto=12)
        unsent = sum(t.outbox.counts()["unsent"] for t in venue.tables)
        assert unsent > TABLES, "the tables played on with the broker down: their outboxes hold the moves"
        # Each table says, in one line, that it cannot reach the broker (waited for: on an idle
        # machine the tables' twelve moves can be over before the first reconnection fails).
        assert wait_for(lambda: any("cannot reach the broker" in line for line in said), 30)
        broker.start()

        # Table 7's cable pulled: over a minute of its game goes by before it is back.
        cut = venue.tables[CUT - 1]
        assert wait_for(lambda: cut.publisher.idle(), 20)
        proxy.cut()
        before = cut.demo.clock()
        venue.play(upto=20)
        assert cut.demo.clock() - before >= 60_000, "the table was cut off for at least a minute of play"
        time.sleep(0.5)
        assert cut.outbox.counts()["unsent"] > 0
        proxy.mend()

        venue.play()
        assert venue.flush(60), "every outbox emptied once the broker and the cable were back"
        assert wait_for(lambda: all(
            g["seqs"] and g["seq"] == t.demo.store.last().seq
            for t in venue.tables for g in sub.document()["games"]
            if g["table"] == t.number), 30)
        check_every_game(sub, venue)
        assert sum(t.publisher.connects for t in venue.tables) >= 2 * TABLES  # each reconnected

        # A screen that joins late sees every board and every game whole, from the retained games.
        late = Subscriber(broker.config("screen"), Screen(EVENT)).start()
        try:
            assert wait_for(lambda: len(late.document()["games"]) == TABLES and all(
                g["seq"] == t.demo.store.last().seq for t in venue.tables
                for g in late.document()["games"] if g["table"] == t.number), 20)
            check_every_game(late, venue)
        finally:
            late.stop()
    finally:
        venue.close()
        sub.stop()
        proxy.close()


def _client(cfg, name: str):
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=name, protocol=mqtt.MQTTv5)
    c.username_pw_set(cfg.username, cfg.password)
    return c


def test_the_broker_refuses_a_table_outside_its_topics_and_a_stranger(broker):
    acks: dict[int, int] = {}
    heard: list[str] = []
    screen = _client(broker.config("screen"), "screen-t")
    screen.on_message = lambda c, u, m: heard.append(m.topic)
    screen.connect("127.0.0.1", broker.port)
    screen.loop_start()
    screen.subscribe(f"venue/{EVENT}/#", qos=1)
    table3 = _client(broker.config("table3"), "table3-t")
    table3.on_publish = lambda c, u, mid, reason, props: acks.__setitem__(mid, reason.value)
    table3.connect("127.0.0.1", broker.port)
    table3.loop_start()
    try:
        time.sleep(0.3)
        own = table3.publish(f"venue/{EVENT}/table/3/log", json.dumps({"x": 1}), qos=1)
        other = table3.publish(f"venue/{EVENT}/table/4/log", json.dumps({"x": 2}), qos=1)
        assert wait_for(lambda: own.mid in acks and other.mid in acks, 5)
        assert acks[own.mid] < 0x80
        assert acks[other.mid] == 0x87, "table 3 may not write table 4's topics: Not authorized"
        assert wait_for(lambda: f"venue/{EVENT}/table/3/log" in heard, 5)
        time.sleep(0.3)
        assert f"venue/{EVENT}/table/4/log" not in heard

        # A screen only reads.
        screen_acks: dict[int, int] = {}
        screen.on_publish = lambda c, u, mid, reason, props: screen_acks.__setitem__(mid, reason.value)
        w = screen.publish(f"venue/{EVENT}/table/1/log", b"{}", qos=1)
        assert wait_for(lambda: w.mid in screen_acks, 5) and screen_acks[w.mid] == 0x87
    finally:
        for c in (table3, screen):
            c.disconnect()
            c.loop_stop()

    # No password, a wrong password: refused at the door.
    for user, password in (("", ""), ("table3", "wrong")):
        refused = []
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"stranger-{user}", protocol=mqtt.MQTTv5)
        if user:
            c.username_pw_set(user, password)
        c.on_connect = lambda cl, u, f, reason, p: refused.append(reason.is_failure)
        c.connect("127.0.0.1", broker.port)
        c.loop_start()
        try:
            assert wait_for(lambda: refused, 5) and refused[0]
        finally:
            c.loop_stop()
