"""The House session without cameras (readings as values): a flag fall, a board not read, a
press logged but not judged when the power went, restored and judged; an explosion waiting,
restored with its preview."""

from __future__ import annotations

from companion.table.games import document
from companion.table.house import UNREADABLE, BoardHub, HouseSession
from companion.rules.house import HouseOptions
from companion.table.store import open_store
from companion.vision.reading import BoardReading, CellReading
from companion.web.hub import Hub

NAMES = ["Ann", "Bob", "Cy", "Di"]
WORDS = frozenset({"RETAINS"})
RETAINS = {(8 + i, 7): (ch, 0) for i, ch in enumerate("RETAINS")}
EXPLODING_WORDS = frozenset({"RETAINS", "STAIR", "ALTER", "ASHORE", "OPERA"})
# A board-0 match to an explosion (the page's test shows it too): (row, col, letter, rotation)
# of each move, Ann (bottom, 0) and Bob (top, 180) in turn; Ann's OPERA explodes Bob's ASHORE.
EXPLODING = [
    [(8 + i, 7, ch, 0) for i, ch in enumerate("RETAINS")],
    [(4 - i, 5, ch, 180) for i, ch in enumerate("STAIR")],
    [(8, 3 + i, ch, 0) for i, ch in enumerate("ALTE")],
    [(4, 6, "A", 180)] + [(4, 4 - i, ch, 180) for i, ch in enumerate("HORE")],
    [(5 + i, 3, ch, 0) for i, ch in enumerate("PER")],
]


def reading_of(tiles: dict) -> BoardReading:
    """A sure reading of ivory tiles: square -> (letter, rotation)."""
    cells = tuple(CellReading(r, c, "tile", *tiles[(r, c)], set="ivory") if (r, c) in tiles else CellReading(r, c)
                  for r in range(15) for c in range(15))
    return BoardReading(15, 15, ((0.0, 0.0),) * 4, cells)


def _session(store) -> HouseSession:  # type: ignore[no-untyped-def]
    return HouseSession(store, NAMES, options=HouseOptions(colours=("ivory", "wood"), minutes=1),
                        lexicon_for=lambda t: WORDS)


def test_a_flag_fall_loses_for_the_team_and_stops_the_clocks(tmp_path):
    with open_store(tmp_path) as store:
        s = _session(store)
        assert s.press(0, 1, 1000) == "start"  # Bob starts Ann's clock
        s.tick(1000 + 59_999)
        assert not s.state.over
        s.tick(1000 + 60_000)  # the flag falls at zero
        assert s.state.winner == 1 and "Ann ran out of time" in s.state.reason
        doc = document(s, 1000 + 60_000)
        assert doc["game"]["over"] and doc["game"]["winners"] == [1, 3] and not doc["clock"]["running"]
        assert s.press(1, 2, 70_000) == "ignored: the match is over"


def test_a_board_not_read_is_a_question_and_the_clock_goes_back(tmp_path):
    with open_store(tmp_path) as store:
        s = _session(store)
        s.press(0, 1, 0)
        assert s.press(0, 0, 5000) == "judge"
        assert s.clocks.on_move() == {1}
        v = s.judge(0, 6000, None)
        assert v["kind"] == "question" and v["questions"] == [UNREADABLE]
        assert s.clocks.on_move() == {0} and s.board(0).pending_press is None
        assert document(s, 6000)["boards"][0]["questions"] == [UNREADABLE]


def test_a_press_logged_before_a_restart_is_judged_after_it(tmp_path):
    with open_store(tmp_path) as store:
        s = _session(store)
        s.press(0, 1, 0)
        assert s.press(0, 0, 5000) == "judge"  # the power goes before the board is read
    with open_store(tmp_path) as store:
        s = HouseSession.restore(store, lexicon_for=lambda t: WORDS)
        assert s is not None and s.board(0).pending_press == {"player": 0, "at": 5000}
        hub = Hub(s)
        # What Table.resume_pending does through the board's hub, then the verdict.
        board = BoardHub(hub, 0)
        assert board.call(lambda b, now: b.pending_press) is not None
        v = board.call(lambda b, now: b.judge(now, reading_of(RETAINS)))
        assert v["verdicts"] == ["played"]
        assert s.clocks.on_move() == {1} and s.state.to_move(0) == 1
    with open_store(tmp_path) as store:
        again = HouseSession.restore(store, lexicon_for=lambda t: WORDS)
        assert again is not None and again.state == s.state and again.board(0).pending_press is None


def test_an_explosion_waiting_is_restored_with_its_preview(tmp_path):
    with open_store(tmp_path) as store:
        s = HouseSession(store, NAMES, options=HouseOptions(colours=("ivory", "wood")), lexicon_for=lambda t: EXPLODING_WORDS)
        s.press(0, 1, 0)
        tiles: dict = {}
        for i, move in enumerate(EXPLODING):
            tiles.update({(r, c): (ch, rot) for r, c, ch, rot in move})
            assert s.press(0, i % 2, 1000 * (i + 1)) == "judge"
            s.judge(0, 1000 * (i + 1), reading_of(tiles))
        before = document(s, 10_000)
        assert before["boards"][0]["preview"] is not None
    with open_store(tmp_path) as store:
        again = HouseSession.restore(store, lexicon_for=lambda t: EXPLODING_WORDS)
        assert again is not None
        after = document(again, 10_000)
        assert after["boards"][0]["preview"] == before["boards"][0]["preview"]
        assert after["boards"][0]["squares"] == before["boards"][0]["squares"]
        assert again.clocks.on_move() == s.clocks.on_move() == {0}


def test_the_registry_starts_a_match_with_a_seed_and_the_log_keeps_it(tmp_path):
    """The registry offers every game a seed (the new-game form, `companion serve`); House
    refused it ("seed: not a setting of Scrabble House")."""
    import pytest

    from companion.table.games import GAMES
    from companion.table.session import ActionError

    with open_store(tmp_path) as store:
        s = GAMES["house"].start(store, 0, names=NAMES, seed=7, lexicon_for=lambda t: WORDS)
        assert s.state.seed == 7
        bags = s.state.bags
        with pytest.raises(ActionError, match="seed: a whole number"):
            GAMES["house"].start(store, 0, names=NAMES, seed="seven", lexicon_for=lambda t: WORDS)
    with open_store(tmp_path) as store:
        again = HouseSession.restore(store, lexicon_for=lambda t: WORDS)
        assert again.state.seed == 7 and again.state.bags == bags
