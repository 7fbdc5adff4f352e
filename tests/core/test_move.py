import pytest

from companion.core.board import EXTENDED, STANDARD, Board, Direction, Tile
from companion.core.move import (
    Placement,
    PlacedTile,
    format_position,
    notation_of,
    parse_position,
    placement_from_notation,
)
from companion.core.words import words_formed
from companion.core.errors import CompanionError


@pytest.mark.parametrize(
    "text, coord, direction",
    [("8D", (7, 3), Direction.ACROSS), ("D8", (7, 3), Direction.DOWN), ("h10", (9, 7), Direction.DOWN),
     ("15O", (14, 14), Direction.ACROSS), ("a1", (0, 0), Direction.DOWN)],
)
def test_positions(text, coord, direction):
    assert parse_position(text, STANDARD) == (coord, direction)
    assert format_position(coord, direction).upper() == text.upper()


def test_positions_off_the_board_or_malformed():
    for bad in ["16A", "P1", "8", "DD", "8D8", ""]:
        with pytest.raises(CompanionError):
            parse_position(bad, STANDARD)
    assert parse_position("21U", EXTENDED) == ((20, 20), Direction.ACROSS)


def test_play_through_dots_and_blanks():
    board = Board().with_tiles([((7, 7), Tile("A"))])
    p = placement_from_notation(board, "H6", "Ba.Y")
    assert p.tiles == (PlacedTile(5, 7, "B"), PlacedTile(6, 7, "A", blank=True), PlacedTile(8, 7, "Y"))
    assert notation_of(board, p, Direction.DOWN) == ("H6", "Ba.Y")


def test_a_written_letter_on_a_matching_tile_counts_as_played_through():
    board = Board().with_tiles([((7, 7), Tile("A"))])
    assert placement_from_notation(board, "H7", "BAY") == placement_from_notation(board, "H7", "B.Y")
    with pytest.raises(CompanionError, match="already holds"):
        placement_from_notation(board, "H7", "BOY")
    with pytest.raises(CompanionError, match="empty square"):
        placement_from_notation(board, "H1", "B.")
    with pytest.raises(CompanionError, match="off the board"):
        placement_from_notation(board, "8N", "CAT")


def test_words_formed_main_word_first_then_cross_words():
    board = Board().with_tiles([((7, 7), Tile("C")), ((7, 8), Tile("A")), ((7, 9), Tile("T"))])
    p = placement_from_notation(board, "9H", "OX")
    assert [w.text for w in words_formed(board, p)] == ["OX", "CO", "AX"]
    single = Placement.of([PlacedTile(7, 10, "S")])
    assert [w.text for w in words_formed(board, single)] == ["CATS"]
    below = Placement.of([PlacedTile(8, 7, "O")])
    assert [w.text for w in words_formed(board, below)] == ["CO"]
