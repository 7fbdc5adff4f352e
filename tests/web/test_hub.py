"""The hub: one thread owns the game, the document is made once per change, and a slow page
is dropped rather than waited for."""

from __future__ import annotations

import json
import threading
import time

import pytest

from companion.web.hub import Hub
from companion.web.patch import apply_patch
from companion.table.session import ActionError
from tests.web.conftest import make_session


def test_versions_go_up_with_each_change_only(hub):
    v1, data1 = hub.document()
    hub.call(lambda s, now: s.play(now, "8D", "HOUSE"))
    v2, data2 = hub.document()
    assert v2 == v1 + 1 and json.loads(data2)["version"] == v2
    with pytest.raises(ActionError):
        hub.call(lambda s, now: s.undo(now) or s.undo(now) or s.undo(now))
    v3, _ = hub.document()
    assert v3 == v2 + 1  # the first undo happened; the failing one changed nothing more
    hub.call(lambda s, now: s.gcg())
    assert hub.document()[0] == v3


def test_subscribers_get_every_change_and_a_slow_one_is_dropped(clock):
    hub = Hub(make_session(), now_ms=clock, queue_size=2, max_clients=3)
    fast, slow = hub.subscribe(), hub.subscribe()
    words = ["8D HOUSE", "E7 B.AT", "10C AN."]
    for w in words:
        pos, word = w.split()
        hub.call(lambda s, now, p=pos, x=word: s.play(now, p, x))
        fast.queue.get_nowait()  # the fast page keeps up
    assert slow.dropped and not fast.dropped and hub.dropped == 1
    assert hub.clients == 1
    # A dropped page's place is free again; the bound holds.
    assert hub.subscribe() is not None and hub.subscribe() is not None
    assert hub.subscribe() is None


def test_publishing_never_waits_for_a_page(clock):
    hub = Hub(make_session(), now_ms=clock, queue_size=1, max_clients=64)
    subs = [hub.subscribe() for _ in range(64)]
    started = time.perf_counter()
    for i in range(20):
        hub.call(lambda s, now: s.correct(now, "A1", "ABCDEFGHIJKLMNOPQRST"[i]))
    assert time.perf_counter() - started < 5  # nobody reads; nothing blocks
    assert all(s.dropped for s in subs)


def test_the_game_thread_runs_calls_and_ticks_and_hands_back_errors():
    session = make_session(control={"minutes": 1, "overtime": False})
    now = [0]
    hub = Hub(session, now_ms=lambda: now[0], tick_s=0.01).start()
    try:
        assert hub.call(lambda s, t: threading.current_thread().name) == "companion-game"
        hub.call(lambda s, t: s.resume(t))
        with pytest.raises(ActionError):
            hub.call(lambda s, t: s.resume(t))
        now[0] = 61_000
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            doc = hub.document_json()
            if doc["players"][0]["clock"]["lost"]:
                break
            time.sleep(0.01)
        assert doc["players"][0]["clock"]["lost"]
        assert any(v["kind"] == "lost-on-time" for v in doc["verdicts"])
    finally:
        hub.stop()


def test_the_document_is_the_same_over_the_stream_and_the_api(client, hub):
    sub = hub.subscribe()
    hub.call(lambda s, now: s.play(now, "8D", "HOUSE"))
    event = sub.queue.get_nowait().decode()
    # The stream sends the change as a patch against the document it opened with.
    streamed = apply_patch(json.loads(sub.first[1]), json.loads(event.split("data: ", 1)[1])["patch"])
    polled = client.get("/api/state").get_json()
    assert streamed == polled
    assert int(event.split("\n")[0].removeprefix("id: ")) == polled["version"]


def test_every_hub_has_its_own_epoch_in_the_document(session, clock):
    # A restarted server counts versions from 1 again: the epoch tells the page it is another life.
    a, b = Hub(session, now_ms=clock), Hub(session, now_ms=clock)
    assert a.version == b.version == 1
    assert a.epoch != b.epoch
    assert a.document_json()["epoch"] == a.epoch


def test_a_move_appended_to_the_sessions_own_list_reaches_the_open_pages(clock):
    """The stacking game's page view hands out the session's own move list; each patch must
    still carry the new move (an open page's Moves table stayed empty before the hub kept
    its own copy of the document)."""
    from companion.table.stacking import start_stacking
    from tests.web.test_stacking_page import WORDS, two_plays

    session = start_stacking(None, 0, names=["Ann", "Bob", "Cy"], seed=4, lexicon_for=lambda _: WORDS)
    hub = Hub(session, now_ms=clock)
    page = hub.subscribe()
    doc = json.loads(page.first[1])
    assert doc["history"] == []
    hub.call(lambda s, now: two_plays(s))
    hub.call(lambda s, now: s.pass_turn(50))
    while not page.queue.empty():
        event = page.queue.get_nowait().decode("utf-8")
        change = json.loads(event.split("data: ", 1)[1])
        doc = apply_patch(doc, change["patch"])
    assert [row["kind"] for row in doc["history"]] == ["played", "played", "passed"]
    assert doc == hub.document_json()
