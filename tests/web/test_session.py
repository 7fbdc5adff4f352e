"""The classic game behind the live page: the log is the truth, undo is a new entry, the
clocks follow the rules, and the GCG download is the game so far."""

from __future__ import annotations

import json

import pytest

from companion.core.gcg import parse_gcg
from companion.rules.rescore import choose_tileset, rescore
from companion.vision.reading import BoardReading, CellReading
from companion.table.entries import Acted, Corrected, Undone
from companion.table.games import document, new_game
from companion.table.session import ActionError
from tests.web.conftest import make_session


def test_a_play_is_scored_and_broken_down(session):
    session.resume(0)
    session.play(1000, "8D", "HOUSE")
    last = session.last_move()
    assert (last["position"], last["word"], last["points"]) == ("8D", "HOUSE", 24)
    (word,) = last["words"]
    assert word["letter_sum"] == 12 and word["multiplier"] == 2 and word["score"] == 24
    assert [square["premium"] for square in word["letters"]] == ["DL", None, None, None, "DW"]
    assert session.state.to_move == 1
    assert session.feed[-1]["message"] == "HOUSE 24"


def test_a_refused_play_is_told_with_its_word_and_changes_no_state(session):
    session = make_session(challenge="void")
    before = session.state
    rev = session.revision
    session.act(0, __import__("companion.rules.classic", fromlist=["Play"]).Play(
        __import__("companion.core.move", fromlist=["placement_from_notation"]).placement_from_notation(
            before.board, "8D", "HOUZE")))
    assert session.state is before
    assert session.feed[-1]["kind"] == "refused" and session.feed[-1]["words"] == ["HOUZE"]
    assert "HOUZE is not in the dictionary" in session.feed[-1]["message"]
    assert session.revision == rev + 1  # the players are told: the page changes


def test_undo_is_a_new_entry_and_the_fold_forgets_the_undone(session):
    session.play(0, "8D", "HOUSE")
    session.play(0, "E7", "B.AT")
    assert session.state.players[1].score == 6
    session.undo(0)
    assert session.state.players[1].score == 0 and session.state.to_move == 1
    assert session.state.board[(6, 4)] is None
    kinds = [type(e.event) for e in session.log]
    assert kinds[-1] is Undone and kinds.count(Acted) == 2  # nothing erased
    session.undo(0)
    assert session.state.board.is_empty() and session.state.players[0].score == 0
    with pytest.raises(ActionError):
        session.undo(0)
    assert [f["kind"] for f in session.feed].count("undo") == 2


def test_a_correction_sets_a_square_and_can_be_undone(session):
    session.play(0, "8D", "HOUSE")
    session.correct(0, "H8", "A")
    assert session.state.board[(7, 7)].letter == "A"
    assert (7, 7) in session.corrected_squares()
    session.correct(0, "H9", "q", blank=True)
    assert session.state.board[(8, 7)].blank and session.state.board[(8, 7)].letter == "Q"
    session.correct(0, "H9", "")
    assert session.state.board[(8, 7)] is None
    assert isinstance(session.log[-1].event, Corrected)
    session.undo(0)
    assert session.state.board[(8, 7)].letter == "Q"
    with pytest.raises(ActionError):
        session.correct(0, "H8", "A")  # already so


def test_challenges_under_each_ruling(session):
    session.play(0, "8D", "HOUSE")
    with pytest.raises(ActionError):
        session.rule_challenge(0, "phony", by=0)  # not an opponent
    session.rule_challenge(0, "phony", by=1)
    assert session.state.board.is_empty() and session.state.players[0].score == 0
    assert session.feed[-1]["kind"] == "withdrawn"
    assert [r["kind"] for r in session.history()] == ["play", "withdrawn"]
    # Bob's turn now; a word the house list lacks stands when the director says so.
    session.play(0, "8D", "HOUZE")
    session.rule_challenge(0, "valid", by=0)
    assert session.state.players[1].score == 42 and session.feed[-1]["kind"] == "challenge-failed"
    session.play(0, "E7", "B.AT")
    session.rule_challenge(0, "dictionary", by=1)  # the house list: BOAT is good
    assert session.state.players[0].score == 6
    with pytest.raises(ActionError):
        session.rule_challenge(0, "dictionary")  # nothing pending any more


def test_five_points_mode_gives_the_bonus_and_the_gcg_says_so():
    session = make_session(challenge="five-points")
    session.play(0, "8D", "HOUSE")
    session.rule_challenge(0, "valid", by=1)
    assert session.state.players[0].score == 29
    assert ">Ann: ? (challenge) +5 29" in session.gcg()  # a rack not known: ? (docs/web.md)


def test_the_clock_follows_the_turns_and_counts_down(session):
    session.resume(0)
    clock = session.clock_view(10_000)
    assert clock["running"] and clock["on_move"] == 0
    assert clock["players"][0]["remaining_ms"] == 25 * 60_000 - 10_000
    session.play(10_000, "8D", "HOUSE")
    clock = session.clock_view(15_000)
    assert clock["on_move"] == 1 and clock["players"][1]["remaining_ms"] == 25 * 60_000 - 5_000
    session.pause(15_000)
    assert session.clock_view(99_000)["players"][1]["remaining_ms"] == 25 * 60_000 - 5_000
    with pytest.raises(ActionError):
        session.pause(99_000)
    # A turn taken while paused moves the clock too, and it stays paused.
    session.play(99_000, "E7", "B.AT")
    view = session.clock_view(200_000)
    assert view["paused"] and view["on_move"] == 0
    session.resume(200_000)
    session.undo(201_000)  # Bob's play undone: Bob's clock runs again
    assert session.clock_view(201_000)["on_move"] == 1


def test_a_flag_falls_on_time_without_anyone_acting():
    session = make_session(control={"minutes": 1, "overtime": False})
    session.resume(0)
    session.tick(59_999)
    assert not any(f["kind"] == "flag" for f in session.feed)
    session.tick(60_000)
    assert session.feed[-1]["kind"] == "lost-on-time" and "Ann loses on time" in session.feed[-1]["message"]
    assert session.clock_view(70_000)["players"][0]["lost"]


def test_new_game_choices(session):
    with pytest.raises(ActionError, match="no game 'chess'"):
        new_game(session, 0, game="chess", names=["A", "B"])
    with pytest.raises(ActionError, match="not started from the page") as err:
        new_game(session, 0, game="house", names=["A", "B", "C", "D"])  # two cameras: `companion run`
    assert err.value.status == 409
    session.play(0, "8D", "HOUSE")
    session.new_game(0, names=["Cleo", "Dan", "Eve"], control="untimed", challenge="double", tileset="de")
    doc = document(session, 0)
    assert [p["name"] for p in doc["players"]] == ["Cleo", "Dan", "Eve"]
    assert doc["board"]["squares"] == [] and doc["game"]["tileset"] == "de"
    assert doc["clock"]["control"] == "no clock" and doc["players"][0]["clock"] is None
    with pytest.raises(ActionError):
        session.resume(0)


def test_the_gcg_download_replays_to_the_same_scores(session):
    session.play(0, "8D", "HOUSE")
    session.play(0, "E7", "B.AT")
    session.act(0, __import__("companion.rules.classic", fromlist=["Pass"]).Pass())
    session.play(0, "10C", "AN.")
    text = session.gcg()
    record = parse_gcg(text)
    result = rescore(record, choose_tileset(record), "download")
    assert result.agrees
    assert list(result.totals()) == [p.score for p in session.state.players]
    assert "#incomplete" in text


def test_what_the_camera_sees_beyond_the_rules_is_shown(session):
    session.play(0, "8D", "HOUSE")
    cells = []
    for r in range(15):
        for c in range(15):
            if (r, c) == (7, 3):
                cells.append(CellReading(r, c, "tile", "H", 90, (240, 220, 170), "ivory"))
            elif (r, c) == (0, 0):
                cells.append(CellReading(r, c, "back", rgb=(90, 60, 30)))
            elif (r, c) == (14, 14):
                cells.append(CellReading(r, c, token=True))
            else:
                cells.append(CellReading(r, c))
    session.observe(BoardReading(15, 15, ((0, 0),) * 4, tuple(cells)))
    squares = {(s["row"], s["col"]): s for s in document(session, 0)["board"]["squares"]}
    assert squares[(7, 3)]["rotation"] == 90 and squares[(7, 3)]["set"] == "ivory"
    assert squares[(0, 0)]["kind"] == "back"
    assert squares[(14, 14)] == {"row": 14, "col": 14, "kind": "empty", "token": True, "height": 0}
    json.dumps(document(session, 0))  # the document is JSON
