"""A whole Scrabble House match on synthetic photos of both boards, through the table loop.

Two boards, each under its own synthetic mounted camera (companion/housedemo.py), each driven
by its own :class:`~companion.table.Table` on its own thread, one hub and one session
(companion/house_table.py) between them, the real reader on every frame: the tiles' rotation
(0 or 180) says whose they are, their colour which set. Time is simulated (nothing waits on the
clocks); the word list is the English house list.

The script (board 0 ivory: Ann at the bottom, Bob at the top; board 1 blue: Cy at the bottom,
Di at the top; Ann and Cy against Bob and Di; Ann and Di start):

- first plays on the home rows (Ann's RETAINS up from row 15, Bob's STAIR down from row 1,
  Di's STONE and Cy's STAR on board 1), then plays built from one's own words (ALTER, ASHORE,
  THE);
- Ann's OPERA uses the O of Bob's ASHORE: the explosion is shown (O turned; ASHORE's other
  tiles off in step b; what is left of STAIR, TAIR to Bob, is no word: off in step c), the page's
  document lists it before anything is removed, the players do what it shows (half of it first:
  the camera names what is left to do), and the camera confirms it; the nine tiles go to Cy;
- Cy plays two of those ivory tiles on the blue board (SHOE); passes on both boards;
- Ann's OAT and ROAST join her home row to Bob's: she and Cy win; a later press is ignored;
- the match restored from the game log is the same match.
"""

from __future__ import annotations

import threading
import time

import pytest

from companion.house_table import BoardHub, HouseSession
from companion.housedemo import SETS, BoardCamera, follow_preview, laid, lay
from companion.rules import house
from companion.rules.house import BOTTOM, TOP, HouseOptions
from companion.store import open_store
from companion.table import SimClock, Table
from companion.web.hub import Hub

NAMES = ["Ann", "Bob", "Cy", "Di"]
ANN, BOB, CY, DI = range(4)
WAIT_S = 120  # for one verdict, at most (a bound for a broken loop, not a timing assertion)


class Match:
    """The table: two cameras, two loops, one hub; presses in, verdicts out."""

    def __init__(self, tmp_path, lexicon) -> None:  # type: ignore[no-untyped-def]
        self.store = open_store(tmp_path)
        self.clock = SimClock(1000)
        self.session = HouseSession(self.store, NAMES, options=HouseOptions(colours=SETS), first=ANN, seed=5,
                                    now_ms=self.clock(), lexicon_for=lambda tileset: lexicon)
        self.hub = Hub(self.session, now_ms=self.clock).start()
        self.cameras = [BoardCamera(1, mounted=False), BoardCamera(3, mounted=False)]
        self.stop = threading.Event()
        self.tables = [Table(BoardHub(self.hub, i), self.cameras[i], self.cameras[i].analyser()).start(self.stop)
                       for i in range(2)]

    def play(self, board: int, player: int, start, across: bool, word: str, colours=None) -> None:  # type: ignore[no-untyped-def]
        colour = SETS[board]
        cam = self.cameras[board]
        cam.board = lay(cam.board, laid(house.seat(player), start, across, word, colour, colours))

    def press(self, *presses: tuple[int, int]) -> list[dict]:
        """Players press their clocks (several at once: each board's loop on its own thread);
        each board's verdict (or, for a press that starts a clock, the clock started)."""
        self.clock.set(self.clock() + 20_000)
        before = [len(t.verdicts) for t in self.tables]
        starting = [self.hub.call(lambda s, now, b=b: s.clocks.clocks[b].on_move is None) for b, _ in presses]
        for board, player in presses:
            self.tables[board].press(player, self.clock())
        out = []
        deadline = time.monotonic() + WAIT_S
        for (board, player), start in zip(presses, starting):
            while time.monotonic() < deadline:
                if start and self.hub.call(lambda s, now, b=board: s.clocks.clocks[b].on_move is not None):
                    out.append({"kind": "start"})
                    break
                if not start and len(self.tables[board].verdicts) > before[board]:
                    out.append(self.tables[board].verdicts[-1])
                    break
                time.sleep(0.05)
            else:
                raise AssertionError(f"no verdict for {NAMES[player]}'s press on board {board + 1}")
        return out

    def doc(self) -> dict:
        self.hub.call(lambda s, now: None)  # the game thread has published everything before
        return self.hub.document_json()

    def close(self) -> None:
        self.stop.set()
        for t in self.tables:
            t.stop()
        self.hub.stop()
        self.store.close()


def _squares(doc_board: dict) -> dict:
    return {(s["row"], s["col"]): (s["letter"], s["rotation"], s["set"]) for s in doc_board["squares"]
            if s["kind"] == "tile"}


@pytest.fixture(scope="module")
def lexicon():
    from companion.lexicon import load_lexicon

    words = load_lexicon("en")
    # The script's words are in the English house list, and the leftover it relies on is not.
    for w in ("RETAINS", "STAIR", "ALTER", "ASHORE", "OPERA", "STONE", "STAR", "THE", "SHOE", "CAT", "OAT", "ROAST"):
        assert w in words, w
    assert "TAIR" not in words
    return words


def test_a_whole_house_match_on_photos_of_both_boards(tmp_path, lexicon):
    m = Match(tmp_path, lexicon)
    try:
        _play_the_match(m)
        final = m.doc()
    finally:
        m.close()
    with open_store(tmp_path) as store:
        restored = HouseSession.restore(store, lexicon_for=lambda t: lexicon)
    assert restored is not None
    assert restored.state == m.session.state
    assert [f["message"] for f in restored.feed] == [f["message"] for f in m.session.feed]
    assert restored.history == final["history"]
    # The reader read every frame (rendered photos, not the board's truth).
    assert all(c.frames >= 10 for c in m.cameras)


def _play_the_match(m: Match) -> None:
    # The opponents of the starting players start the clocks (rule 3).
    assert m.hub.call(lambda s, now: s.press(0, ANN, now)) == "ignored: Bob starts Ann's clock"
    assert m.press((0, BOB), (1, CY)) == [{"kind": "start"}, {"kind": "start"}]
    doc = m.doc()
    assert doc["game"]["on_move"] == [ANN, DI] and doc["clock"]["running"]

    # First plays on the home rows; both boards at once.
    m.play(0, ANN, (8, 7), False, "RETAINS")  # down column H to row 15, Ann's home row
    m.play(1, DI, (0, 11), True, "STONE")  # Di reads right to left along row 1, her home row
    assert [v["verdicts"] for v in m.press((0, ANN), (1, DI))] == [["played"], ["played"]]
    m.play(0, BOB, (4, 5), False, "STAIR")  # Bob reads up the board: S on F5 ... R on F1
    m.play(1, CY, (11, 7), False, "STAR")
    assert [v["verdicts"] for v in m.press((0, BOB), (1, CY))] == [["played"], ["played"]]

    # Plays built from one's own words.
    m.play(0, ANN, (8, 3), True, "ALTER")  # across row 9 to RETAINS's R
    m.play(1, DI, (2, 7), False, "THE")  # up column H to STONE's E
    assert [v["verdicts"] for v in m.press((0, ANN), (1, DI))] == [["played"], ["played"]]
    m.play(0, BOB, (4, 6), True, "ASHORE")  # right to left along row 5, through STAIR's S
    assert m.press((0, BOB))[0]["verdicts"] == ["played"]
    doc = m.doc()
    tiles = _squares(doc["boards"][0])
    assert tiles[(4, 3)] == ("O", 180, "ivory") and tiles[(14, 7)] == ("S", 0, "ivory")
    plays = [[h["what"] for h in doc["history"] if h["kind"] == "play" and h["board"] == b] for b in (0, 1)]
    assert plays == [["RETAINS", "STAIR", "ALTER", "ASHORE"], ["STONE", "STAR", "THE"]]

    # Ann's OPERA, down column D through ASHORE's O: the explosion is shown, nothing removed yet.
    m.play(0, ANN, (4, 3), False, "OPERA")
    assert m.press((0, ANN))[0]["verdicts"] == ["explosion"]
    doc = m.doc()
    pv = doc["boards"][0]["preview"]
    assert pv is not None and pv["mover"] == ANN and pv["partner"] == CY
    assert pv["words"] == ["OPERA"]
    assert pv["turned"] == [[4, 3]]
    assert [s["rule"] for s in pv["steps"]] == ["b", "c"]
    assert pv["steps"][0]["squares"] == [[4, 1], [4, 2], [4, 4], [4, 5], [4, 6]]
    assert [r["describe"] for r in pv["steps"][0]["removals"]] == [
        "ASHORE is mixed: its upside-down A S H R E come off"]
    assert pv["steps"][1]["squares"] == [[0, 5], [1, 5], [2, 5], [3, 5]]
    assert [r["describe"] for r in pv["steps"][1]["removals"]] == ["TAIR is not a word: it comes off"]
    assert sorted(t["letter"] for t in pv["passed"]) == sorted("ASHRE" + "TAIR")
    assert {t["set"] for t in pv["passed"]} == {"ivory"}
    # Before anything is removed: the board as played, the clock back with Ann (her time).
    tiles = _squares(doc["boards"][0])
    assert tiles[(4, 3)] == ("O", 180, "ivory") and (0, 5) in tiles and (4, 6) in tiles
    assert doc["game"]["on_move"] == [ANN, CY]
    assert m.session.clocks.on_move() == {ANN, CY}

    # Half done (O turned, ASHORE's tiles off, STAIR's leftover still there): not yet.
    cam = m.cameras[0]
    cam.board = follow_preview(cam.board, {**pv, "removed": pv["steps"][0]["squares"]})
    v = m.press((0, ANN))[0]
    assert v["verdicts"] == ["waiting"]
    assert "take off F1 F2 F3 F4" in m.doc()["verdicts"][0]["message"]
    # As shown: confirmed; the nine tiles are Cy's bonus tiles; Bob is on move.
    cam.board = follow_preview(cam.board, pv)
    assert m.press((0, ANN))[0]["verdicts"] == ["confirmed"]
    doc = m.doc()
    assert doc["boards"][0]["preview"] is None
    tiles = _squares(doc["boards"][0])
    assert tiles[(4, 3)] == ("O", 0, "ivory") and (4, 4) not in tiles and (0, 5) not in tiles
    assert doc["players"][CY]["bonus"] == "".join(sorted("ASHRETAIR"))
    assert doc["game"]["on_move"] == [BOB, CY]
    assert any(h["kind"] == "explosion" and h["player"] == ANN for h in doc["history"])

    # Cy lays two of the ivory tiles on the blue board (his bonus tiles); Bob opens again.
    m.play(1, CY, (11, 7), True, "SHOE", colours={1: "ivory", 3: "ivory"})
    m.play(0, BOB, (2, 12), False, "CAT")
    assert [v["verdicts"] for v in m.press((1, CY), (0, BOB))] == [["played"], ["played"]]
    doc = m.doc()
    tiles = _squares(doc["boards"][1])
    assert tiles[(11, 8)] == ("H", 0, "ivory") and tiles[(11, 9)] == ("O", 0, "wood")
    assert doc["players"][CY]["bonus"] == "".join(sorted("ASRTAIR"))

    # Ann's OAT across row 5 from the O; Di passes (a press with no new tile).
    m.play(0, ANN, (4, 3), True, "OAT")
    assert [v["verdicts"] for v in m.press((0, ANN), (1, DI))] == [["played"], ["passed"]]
    assert m.press((0, BOB))[0]["verdicts"] == ["passed"]

    # ROAST up column F from the T to row 1: a chain of Ann's words joins both home rows.
    m.play(0, ANN, (0, 5), False, "ROAST")
    assert m.press((0, ANN))[0]["verdicts"] == ["played", "won"]
    doc = m.doc()
    assert doc["game"]["over"] and doc["game"]["winners"] == [ANN, CY]
    assert "Ann joined both home rows" in doc["game"]["reason"]
    assert not doc["clock"]["running"]
    assert m.hub.call(lambda s, now: s.press(1, CY, now)) == "ignored: the match is over"
    assert house.connects(m.session.state.boards[0].board, BOTTOM)
    assert not house.connects(m.session.state.boards[0].board, TOP)
