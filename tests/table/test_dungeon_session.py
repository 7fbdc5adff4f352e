"""The dungeon's session at the table, on the board's truth (the photos are
test_dungeon_photos.py's): the set-up check's questions, the rack from the page, presses
refused until it is entered, the log folded again after a restart with a press pending, and the
page's actions (a new dungeon from the organiser's form, the rack, refills)."""

from __future__ import annotations

from companion.table.dungeon import DungeonSession, reading_from_json, reading_to_json
from companion.rules.dungeon import PLAYED, roll_setup
from companion.table.store import open_store
from companion.sim.truth import SimClock, TruthFrame, truth_analyser
from companion.table.classic import TableSession
from companion.table.table import Press, Table
from companion.web.app import create_app
from companion.web.auth import Auth
from companion.web.hub import Hub
from tests.rules import dungeon_scripts as scripts
from tests.rules.dungeon_scripts import WORDS, generator
from tests.web.conftest import PIN, FakeTime, login, make_session


class Truth:
    """The camera as the board's truth (no pixels)."""

    def __init__(self, board):
        self.board = board

    def read(self):
        return TruthFrame(self.board.reading())


def session_on(store, script, clock):
    return DungeonSession(store, script.setup, lexicon_for=lambda ts: WORDS, generator_for=lambda ts: generator(),
                          now_ms=clock())


def test_the_set_up_is_checked_then_the_rack_entered_then_moves_judged(tmp_path):
    script = scripts.death_by_monster()
    board = script.board()
    board.squares[(4, 4)].kind = "empty"  # the fixed letter not laid yet
    store = open_store(tmp_path)
    clock = SimClock(1000)
    s = session_on(store, script, clock)
    hub = Hub(s, now_ms=clock)
    table = Table(hub, Truth(board), truth_analyser)
    v = table.handle(Press(0, clock()))
    assert v == {"kind": "question", "questions": [
        "The set-up differs from the plan on 1 square: E5 (fixed letter): expected a tile face up, saw an empty square"]}
    assert hub.document_json()["dungeon"]["problems"] == [
        "E5 (fixed letter): expected a tile face up, saw an empty square"]
    board.squares[(4, 4)].kind = "tile"
    assert table.handle(Press(0, clock()))["kind"] == "set-up"
    assert hub.document_json()["dungeon"]["phase"] == "rack"
    board.place((0, 0), "CAT")
    assert table.handle(Press(0, clock())) == {"kind": "ignored: the rack is not entered"}
    hub.call(lambda s, now: s.enter_rack(now, "catseee"))
    assert table.handle(Press(0, clock()))["kind"] == "move"
    assert s.state.score == 5 and s.last_verdicts[0]["kind"] == PLAYED
    doc = hub.document_json()
    assert doc["players"][0]["rack"] == "EEES" and doc["history"][-1]["message"] == "CAT 5"
    # A press logged, then the power goes: the restart folds the log and judges the press.
    board.place((1, 0), "O", across=False)  # not on the rack: refused, but judged
    hub.call(lambda s, now: s.press(0, now))
    store.close()
    store = open_store(tmp_path)
    again = DungeonSession.restore(store, lexicon_for=lambda ts: WORDS, generator_for=lambda ts: generator())
    assert again is not None and again.pending_press is not None and again.state == s.state
    assert TableSession.restore(store) is None  # the classic table does not take a dungeon's log
    hub2 = Hub(again, now_ms=clock)
    verdict = Table(hub2, Truth(board), truth_analyser).resume_pending()
    assert verdict == {"kind": "question", "verdicts": ["refused"], "questions": ["Those tiles are not on your rack"]}
    assert again.pending_press is None and again.state.score == 5
    store.close()


def test_readings_are_logged_compactly_and_read_back_the_same():
    board = scripts.escape().board()
    board.place((0, 0), "LANTERN")
    reading = board.reading()
    assert reading_from_json(reading_to_json(reading)).cells == reading.cells


def test_the_organiser_starts_a_dungeon_and_enters_the_rack_on_the_page():
    clock = FakeTime()
    hub = Hub(make_session(), now_ms=clock)
    client = create_app(hub, auth=Auth(PIN, now=clock.seconds)).test_client()
    token = login(client)
    r = client.post("/api/admin/new-game", json={"game": "dungeon", "names": ["Ann"], "seed": 5, "objects": 12,
                                                 "dice": 4}, headers={"X-CSRF-Token": token})
    assert r.status_code == 200, r.get_json()
    doc = client.get("/api/state").get_json()
    assert doc["game"]["name"] == "dungeon" and doc["dungeon"]["phase"] == "set-up"
    setup = roll_setup(12, 4, "5")
    assert doc["dungeon"]["plan"]["rows"] == setup.plan()
    assert [o["squares"] for o in doc["dungeon"]["plan"]["objects"]] == [o.to_json()["squares"] for o in setup.obstacles]
    r = client.post("/api/admin/dungeon", json={"action": "rack", "tiles": "AEINRST"}, headers={"X-CSRF-Token": token})
    assert r.status_code == 200 and client.get("/api/state").get_json()["dungeon"]["rack_entered"] == "AEINRST"
    for body, status in (({"action": "refill", "tiles": "AB"}, 409), ({"action": "fly"}, 400),
                         ({"action": "rack", "tiles": "AB"}, 400)):
        r = client.post("/api/admin/dungeon", json=body, headers={"X-CSRF-Token": token})
        assert r.status_code == status, (body, r.get_json())
    # Back to a classic game: the page shows it.
    r = client.post("/api/admin/new-game", json={"game": "classic", "names": ["Ann", "Bob"]},
                    headers={"X-CSRF-Token": token})
    assert r.status_code == 200 and client.get("/api/state").get_json()["game"]["name"] == "classic"


def test_a_dungeon_started_from_the_page_goes_on_after_a_restart(tmp_path):
    from companion.table.games import new_game, resume_or_start

    store = open_store(tmp_path)
    clock = SimClock(1000)
    classic, _ = resume_or_start(store, ["Ann", "Bob"], lexicon_for=lambda ts: WORDS, clock=lambda last: clock)
    dungeon = new_game(classic, clock(), game="dungeon", names=["Ann"], seed=3)
    assert isinstance(dungeon, DungeonSession) and dungeon.store is store
    dungeon.enter_rack(clock(), "AEINRST")
    store.close()
    store = open_store(tmp_path)
    try:
        again, _ = resume_or_start(store, ["Ann", "Bob"], lexicon_for=lambda ts: WORDS, clock=lambda last: clock)
        assert isinstance(again, DungeonSession)
        assert again.setup == dungeon.setup and again.rack_entered == "AEINRST" and again.phase == "set-up"
    finally:
        store.close()
