"""The camera at a Scrabble III table: pick-offs, blank swaps and face-down JQXZ read from two
boards, accepted exactly when the rules allow them, questions otherwise."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.core.board import Board, Tile
from companion.core.tiles import get_tileset
from companion.lexicon import load_lexicon
from companion.rules import scrabble3 as s3
from companion.table.scrabble3_inference import infer_scrabble3
from companion.vision.reading import CellReading
from tests.rules.test_scrabble3 import board_with

TS = get_tileset("super3")
ROW = 10


@pytest.fixture(scope="module")
def lexicon():
    return load_lexicon("en")


def cells_of(board: Board, face_down: set = frozenset()) -> list[CellReading]:
    out = []
    for r in range(21):
        for c in range(21):
            t = board[(r, c)]
            if t is None:
                out.append(CellReading(r, c))
            elif (r, c) in face_down:
                out.append(CellReading(r, c, "back", rgb=(90, 60, 40)))
            else:
                out.append(CellReading(r, c, "tile", "?" if t.blank else t.letter, 0, (230, 220, 200)))
    return out


def test_dreamy_becomes_dreamily_a_pick_off(lexicon):
    before = board_with(("11H", "DREAMY"))
    seen = before.without([(ROW, 12)]).with_tiles([((ROW, 12), Tile("I")), ((ROW, 13), Tile("L")), ((ROW, 14), Tile("Y"))])
    got = infer_scrabble3(before, cells_of(seen), TS, lexicon)
    assert got.questions == () and got.pick_off == ((ROW, 12),)
    assert [(t.col, t.letter) for t in got.placement.tiles] == [(12, "I"), (13, "L"), (14, "Y")]
    state = replace(s3.new_game(["ann", "bob"], seed=1, track_tiles=False), board=before)
    out = s3.apply(state, got.action(), lexicon)
    assert out.verdict.kind is s3.VerdictKind.PLAYED and out.verdict.points == 48


def test_scenting_becomes_cognoscenti_tiles_gone(lexicon):
    before = board_with(("11H", "SCENTING"))
    seen = before.without([(ROW, 13), (ROW, 14)]).with_tiles(
        [((ROW, 2 + i), Tile(ch)) for i, ch in enumerate("COGNO")])
    got = infer_scrabble3(before, cells_of(seen), TS, lexicon)
    assert got.questions == () and sorted(got.pick_off) == [(ROW, 13), (ROW, 14)]
    assert s3.judge(before, got.placement, lexicon, pick_off=got.pick_off).valid


def test_cheater_to_cheated_is_asked(lexicon):
    before = board_with(("11H", "CHEATER"))
    seen = before.with_tiles([((ROW, 13), Tile("D"))])
    got = infer_scrabble3(before, cells_of(seen), TS, lexicon)
    assert got.action() is None and got.questions
    assert "must end up longer" in " ".join(got.questions)


def test_a_leading_tile_gone_is_asked(lexicon):
    before = board_with(("11H", "CHEATER"))
    got = infer_scrabble3(before, cells_of(before.without([(ROW, 7)])), TS, lexicon)
    assert got.action() is None
    assert got.questions == ("H11 held C and now is empty: was it taken off?",)


def test_a_blank_replaced_by_its_letter_is_a_swap(lexicon):
    before = board_with(("11H", "PLaNET"))
    after = board_with(("11H", "PLANET"))
    got = infer_scrabble3(before, cells_of(after), TS, lexicon)
    assert got.swaps == ((ROW, 9),) and got.placement is None and got.questions == ()
    assert got.action() == s3.SwapBlank((ROW, 9))
    # The blank replaced by another letter is asked.
    wrong = infer_scrabble3(before, cells_of(board_with(("11H", "PLONET"))), TS, lexicon)
    assert wrong.action() is None and "was it taken off" in wrong.questions[0]


def test_a_face_down_tile_is_a_flipped_jqxz(lexicon):
    before = board_with(("11H", "DREAMY"))
    # RAMMED down column L through the M of DREAMY, its first M a tile laid face down.
    after = board_with(("11H", "DREAMY"), ("L8", "RAM.ED"))
    got = infer_scrabble3(before, cells_of(after, face_down={(9, 11)}), TS, lexicon)
    assert got.face_down == ((9, 11),) and got.questions == ()
    blank = [t for t in got.placement.tiles if t.blank]
    assert [(t.coord, t.letter) for t in blank] == [((9, 11), "M")]
