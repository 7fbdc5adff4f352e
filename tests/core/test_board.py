from collections import Counter

import pytest

from companion.core.board import EXTENDED, STANDARD, Board, Premium, Tile, layout_for_grid
from companion.core.errors import CompanionError


def counts(layout):
    return Counter(layout.premium(sq) for sq in layout.squares())


def test_standard_layout_has_the_standard_premium_squares():
    c = counts(STANDARD)
    assert (c[Premium.TW], c[Premium.DW], c[Premium.TL], c[Premium.DL]) == (8, 17, 12, 24)
    assert STANDARD.centre == (7, 7) and STANDARD.premium((7, 7)) is Premium.DW
    assert STANDARD.premium((0, 0)) is Premium.TW and STANDARD.premium((0, 3)) is Premium.DL
    assert STANDARD.premium((1, 5)) is Premium.TL


def test_standard_layout_is_symmetric_every_way():
    for r, c in STANDARD.squares():
        p = STANDARD.premium((r, c))
        assert p is STANDARD.premium((c, r)) is STANDARD.premium((14 - r, c)) is STANDARD.premium((r, 14 - c))


def test_extended_board_is_the_classic_board_with_three_plain_rows_around():
    assert (EXTENDED.rows, EXTENDED.cols) == (21, 21)
    assert EXTENDED.centre == (10, 10)
    assert EXTENDED.inner == (3, 3, 17, 17)
    for r, c in EXTENDED.squares():
        if EXTENDED.in_inner((r, c)):
            assert EXTENDED.premium((r, c)) is STANDARD.premium((r - 3, c - 3))
        else:
            assert EXTENDED.premium((r, c)) is Premium.NONE
    assert counts(EXTENDED)[Premium.NONE] == 21 * 21 - (15 * 15 - counts(STANDARD)[Premium.NONE])


def test_layout_for_grid():
    assert layout_for_grid(15) is STANDARD and layout_for_grid(21) is EXTENDED
    with pytest.raises(CompanionError):
        layout_for_grid(19)


def test_board_text_round_trip_keeps_blanks():
    board = Board().with_tiles([((7, 7), Tile("C")), ((7, 8), Tile("A", blank=True))])
    text = board.to_text()
    assert text.splitlines()[7] == ".......Ca......"
    assert Board.from_text(text) == board
    assert board.to_text(premiums=True).splitlines()[0] == "=..'...=...'..="


def test_boards_are_values():
    a = Board()
    b = a.with_tiles([((0, 0), Tile("A"))])
    assert a.is_empty() and len(b) == 1
    assert b.without([(0, 0)]) == a
    assert b.has_neighbour((0, 1)) and not b.has_neighbour((1, 1))
