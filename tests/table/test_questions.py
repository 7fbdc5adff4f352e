"""A camera question answered as part of the move (issue 26): the square the camera was unsure
of is asked about, the players answer on the page, and the answer completes the move that
asked, scored as if the camera had read it so. The time the table spent judging the press is
not charged to the opponent. The log replays to the same game after a restart."""

from __future__ import annotations

import pytest

from companion.sim.truth import TruthCamera, truth_analyser
from companion.table.classic import TableSession
from companion.table.session import ActionError
from companion.table.store import open_store
from companion.table.table import Table
from companion.web.hub import Hub

WORDS = frozenset({"DÜS", "DÜSE", "SEE"})


class Time:
    def __init__(self) -> None:
        self.ms = 1000

    def __call__(self) -> int:
        return self.ms


def _table(tmp_path, challenge: str = "single"):  # type: ignore[no-untyped-def]
    store = open_store(tmp_path)
    clock = Time()
    session = TableSession(store, ["Anna", "Ben"], control="tournament", challenge=challenge, tileset="de", seed=3,
                           now_ms=clock(), lexicon_for=lambda tileset: WORDS)
    camera = TruthCamera()
    table = Table(Hub(session, now_ms=clock), camera, truth_analyser)
    return store, clock, session, camera, table


def test_the_answered_question_scores_the_move_as_read(tmp_path):
    store, clock, session, camera, table = _table(tmp_path)
    first = session.state.to_move
    other = 1 - first
    table.press(other, clock())
    table.handle(table.inbox.get())  # the clock starts
    clock.ms += 30_000
    # DÜS across row 8 from G8; the camera is unsure of the centre's Ü.
    camera.lay({(7, 6): "D", (7, 7): "Ü", (7, 8): "S"})
    camera.unsure = {(7, 7)}
    before = session.clocks.remaining_ms(other, clock())
    mine = session.clocks.remaining_ms(first, clock())
    table.press(first, clock())
    press = table.inbox.get()
    clock.ms += 4_000  # the table takes 4 s to judge the press
    verdict = table.handle(press)
    assert verdict["kind"] == "question"
    assert session.questions == ["is there a tile on H8? (the camera is not sure)"]
    asks = session.asking.asks
    assert [(a.square, a.kind) for a in asks] == [((7, 7), "unsure")] and "" in asks[0].choices
    # The clock is back with the player; the opponent was charged nothing for the judging.
    assert sorted(session.clocks.on_move()) == [first]
    assert session.clocks.remaining_ms(other, clock()) == before
    # ... nor the player: the press is undone, no move counted on either side.
    assert session.clocks.remaining_ms(first, clock()) == mine
    assert [session._moves(i) for i in (0, 1)] == [0, 0]
    # A letter the question does not allow is refused, and nothing changes.
    with pytest.raises(ActionError):
        session.answer(clock(), "H8", "1")
    with pytest.raises(ActionError):
        session.answer(clock(), "H9", "Ü")
    clock.ms += 2_000
    done = session.answer(clock(), "H8", "ü")
    assert done["kind"] == "move"
    row = session.history()[-1]
    assert (row["position"], row["word"], row["points"]) == ("8G", "DÜS", 16)
    assert session.asking is None and session.questions == []
    assert sorted(session.clocks.on_move()) == [other]
    assert f">{['Anna', 'Ben'][first]}: DÜS 8G DÜS +16 16" in session.gcg()
    # The log replays to the same game: the move, the score, the clocks.
    again = TableSession.restore(store, lexicon_for=lambda tileset: WORDS)
    assert again.history() == session.history()
    assert again.clocks.remaining_ms(other, clock()) == session.clocks.remaining_ms(other, clock())
    assert again.clocks.remaining_ms(first, clock()) == session.clocks.remaining_ms(first, clock())
    store.close()


def test_an_open_question_survives_a_restart_and_no_tile_is_an_answer(tmp_path):
    store, clock, session, camera, table = _table(tmp_path)
    first = session.state.to_move
    table.press(1 - first, clock())
    table.handle(table.inbox.get())
    # DÜS laid, and a speck on H9 the camera is unsure of.
    camera.lay({(7, 6): "D", (7, 7): "Ü", (7, 8): "S", (8, 7): "E"})
    camera.unsure = {(8, 7)}
    table.press(first, clock())
    assert table.handle(table.inbox.get())["kind"] == "question"
    again = TableSession.restore(store, lexicon_for=lambda tileset: WORDS)
    assert again.asking is not None and [a.square for a in again.asking.asks] == [(8, 7)]
    assert again.answer(clock(), "H9", "")["kind"] == "move"
    assert (again.history()[-1]["position"], again.history()[-1]["points"]) == ("8G", 16)
    store.close()


def test_with_an_increment_the_answer_counts_one_move_and_one_increment(tmp_path):
    store = open_store(tmp_path)
    clock = Time()
    session = TableSession(store, ["Anna", "Ben"], control="rapid", tileset="de", seed=3, now_ms=clock(),
                           lexicon_for=lambda tileset: WORDS)
    camera = TruthCamera()
    table = Table(Hub(session, now_ms=clock), camera, truth_analyser)
    first = session.state.to_move
    table.press(1 - first, clock())
    table.handle(table.inbox.get())
    start = session.clocks.remaining_ms(first, clock())
    clock.ms += 20_000
    camera.lay({(7, 6): "D", (7, 7): "Ü", (7, 8): "S"})
    camera.unsure = {(7, 7)}
    table.press(first, clock())
    press = table.inbox.get()
    clock.ms += 3_000  # judging: nobody's time
    assert table.handle(press)["kind"] == "question"
    assert session.clocks.remaining_ms(first, clock()) == start - 20_000
    clock.ms += 7_000  # the answer takes 7 s of Anna's time
    session.answer(clock(), "H8", "Ü")
    assert [session._moves(i) for i in (first, 1 - first)] == [1, 0]
    assert session.clocks.remaining_ms(first, clock()) == start - 27_000 + 5_000  # one increment
    again = TableSession.restore(store, lexicon_for=lambda tileset: WORDS)
    assert again.clocks.remaining_ms(first, clock()) == session.clocks.remaining_ms(first, clock())
    assert again.clocks.remaining_ms(1 - first, clock()) == session.clocks.remaining_ms(1 - first, clock())
    store.close()
