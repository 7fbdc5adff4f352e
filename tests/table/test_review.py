"""The review after a game (companion/table/review.py): each move's best alternative by the
registry's hint hook and the points it left, with the rack where the move list knows it, the
tiles played where it does not; and the hub runs it beside the game thread, never in it."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from companion.core.gcg import (Exchange, GameRecord, Pass, Play, Withdrawn, decode_gcg, parse_gcg,
                               tiles_played)
from companion.rules import classic
from companion.table.games import GAMES
from companion.table.review import review_moves
from companion.web.hub import Hub
from tests.web.conftest import make_session

GAME = Path(__file__).resolve().parents[2] / ".." / "shared" / "games" / "macondo" / "gcgio_doug_v_emely.gcg"


def hint(record: GameRecord, turn: int, rack: str) -> Any:
    return GAMES["classic"].hint(record, turn=turn, rack=rack, top=1, tileset="en", source="test")


def rows_of(record: GameRecord, racks: bool) -> list[dict[str, Any]]:
    """The record as the table's move list has it (with the racks, or as a table that does not
    see them)."""
    nicks = [p.nick for p in record.players]
    out = []
    for e in record.events:
        row: dict[str, Any] = {"player": nicks.index(e.nick), "points": e.score}
        if isinstance(e, Play):
            row.update(kind="play", position=e.position, word=e.word)
        elif isinstance(e, Withdrawn):
            row.update(kind="withdrawn")
        elif isinstance(e, Pass):
            row.update(kind="pass")
        elif isinstance(e, Exchange):
            row.update(kind="exchange")
        else:
            row.update(kind="other")
        if racks and e.rack and not isinstance(e, Withdrawn):
            row["rack"] = e.rack
        out.append(row)
    return out


@pytest.fixture(scope="module")
def record() -> GameRecord:
    if not GAME.is_file():
        pytest.skip(f"no {GAME} (../shared is not beside the project)")
    full = parse_gcg(decode_gcg(GAME.read_bytes(), GAME.name), GAME.name)
    return full


def test_known_racks_each_move_against_the_best_play_of_its_rack(record):
    rows = rows_of(record, racks=True)[:8]  # 7 turns and a withdrawal: doug's DONATES, emely's TIL.. off
    review = review_moves(record, rows, hint)
    moves = review["moves"]
    assert [m["turn"] if m else None for m in moves] == [1, 2, 3, 4, 5, 6, None, 7]
    assert review["whole_racks"] == 7
    for row, m in zip(rows, moves):
        if m is None:
            continue
        assert m["whole_rack"] and m["rack"] == row["rack"]
        assert m["best"] is not None and m["left"] == max(0, m["best"]["score"] - m["scored"])
    # 10B DONATES +82 from ADENOST: the generator finds a bingo at least as good; nothing left.
    donates = moves[4]
    assert donates["scored"] == 82 and donates["best"]["score"] >= 82
    assert donates["left"] == donates["best"]["score"] - 82
    # The hook's own best move for the rack and the position before the turn.
    assert donates["best"]["score"] == hint(record, 5, "ADENOST").moves[0]["score"]
    # The play that came off scored nothing: all of its alternative's points were left.
    til = moves[5]
    assert til["came_off"] and til["scored"] == 0 and til["left"] == til["best"]["score"] > 0
    # Points left in all, per player, the sum of each one's moves.
    assert review["left"] == {str(p): sum(m["left"] for r, m in zip(rows, moves) if m and r["player"] == p)
                              for p in (0, 1)}


def test_unknown_racks_each_play_against_the_best_play_of_its_tiles(record):
    rows = rows_of(record, racks=False)[:3]
    rows.insert(2, {"player": 0, "kind": "pass", "points": 0})  # a pass without its rack
    review = review_moves(record, rows, hint)
    first, second, passed, third = review["moves"]
    assert not first["whole_rack"] and first["rack"] == "WINDY" == tiles_played("WINDY")
    assert first["best"]["score"] >= 32  # WINDY's own tiles: 8D WINDY or better
    assert second["rack"] == "GALE"
    assert passed == {"turn": 3, "rack": "", "whole_rack": False, "scored": 0, "came_off": False,
                      "best": None, "left": None}
    assert third["rack"] == "JAVEN"  # JAVE..N's own tiles
    assert review["whole_racks"] == 0


def test_the_hub_publishes_the_end_at_once_and_the_review_when_it_is_done():
    session = make_session()
    hub = Hub(session)  # not started: the test's thread is the game thread
    hub.call(lambda s, now: s.resume(now))
    hub.call(lambda s, now: s.play(now, "8D", "HOUSE"))
    assert "review" not in hub.document_json()  # the game is on: nothing to review
    for _ in range(6):
        hub.call(lambda s, now: s.act(now, classic.Pass()))
    sub = hub.subscribe()
    assert sub is not None
    hub.call(lambda s, now: s.act(now, classic.RevealRacks(("AEIRSTU", "CDLNOPR"))))
    # The game's end is published before the review is done (it takes the hint hook's time):
    # the change that ends the game says the review is under way.
    change = json.loads(sub.queue.get(timeout=5).split(b"data: ", 1)[1])
    ended = change["patch"]
    assert ended["game"]["over"] is True and ended["review"] == {"state": "working"}
    deadline = time.monotonic() + 60
    while hub.document_json()["review"]["state"] == "working" and time.monotonic() < deadline:
        time.sleep(0.05)
    done = hub.document_json()
    assert done["version"] > change["base"] + 1  # a later document than the end's
    review = done["review"]
    assert review["state"] == "done" and len(review["moves"]) == len(done["history"])
    house = review["moves"][0]
    assert house["rack"] == "HOUSE" and not house["whole_rack"] and house["scored"] == 24
    assert house["best"]["score"] >= 24
    # An undo takes the game's end back: no review of a game that goes on.
    hub.call(lambda s, now: s.undo(now))
    assert not hub.document_json()["game"]["over"] and "review" not in hub.document_json()


def test_a_review_gives_up_when_the_companion_stops(record):
    asked = []

    def counting(rec, turn, rack):  # type: ignore[no-untyped-def]
        asked.append(turn)
        return hint(rec, turn, rack)

    assert review_moves(record, rows_of(record, racks=True), counting, stopped=lambda: len(asked) >= 2) == {
        "state": "stopped"}
    assert asked == [1, 2]
