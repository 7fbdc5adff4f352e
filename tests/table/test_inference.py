"""Which move a board reading shows against the accepted board, and what the players are asked."""

from __future__ import annotations

from companion.core.board import STANDARD, Board, Tile
from companion.core.tiles import get_tileset
from companion.table.inference import accept, infer_move
from companion.vision.reading import CellReading, empty_cells

EN = get_tileset("en")
WORDS = {"CAT", "CATS", "AT", "TA", "CAB", "COT", "ACT", "TAT", "CAR"}


def reading(tiles: dict[tuple[int, int], str], *, confidence: float = 0.95, backs: set = frozenset(),
            unsure: set = frozenset()) -> list[CellReading]:
    cells = list(empty_cells(15, 15, 0.97))
    for (r, c), letter in tiles.items():
        conf = 0.3 if (r, c) in unsure else confidence
        cells[r * 15 + c] = CellReading(r, c, "tile", letter, 0, (230, 220, 200), None, False, conf)
    for r, c in backs:
        cells[r * 15 + c] = CellReading(r, c, "back", None, None, (120, 110, 100), None, False, confidence)
    return cells


def board_of(tiles: dict[tuple[int, int], str]) -> Board:
    return Board(STANDARD, {sq: Tile(ch.upper(), ch.islower()) for sq, ch in tiles.items()})


CAT = {(7, 6): "C", (7, 7): "A", (7, 8): "T"}


def test_the_new_tiles_are_the_move():
    got = infer_move(board_of(CAT), reading({**CAT, (7, 9): "S"}), EN, WORDS)
    assert got.questions == () and [(t.coord, t.letter) for t in got.placement.tiles] == [((7, 9), "S")]


def test_an_unchanged_board_is_a_turn_without_tiles():
    got = infer_move(board_of(CAT), reading(CAT), EN, WORDS)
    assert got.no_tiles


def test_an_unsure_reading_of_an_accepted_square_changes_nothing():
    # The game knows the T is there; a hand's shadow over it does not take it off.
    cells = reading({(7, 6): "C", (7, 7): "A"})
    cells[7 * 15 + 8] = CellReading(7, 8, "empty", confidence=0.2)
    assert infer_move(board_of(CAT), cells, EN, WORDS).no_tiles


def test_a_vanished_or_changed_tile_is_a_question_never_a_guess():
    vanished = infer_move(board_of(CAT), reading({(7, 6): "C", (7, 7): "A"}), EN, WORDS)
    assert vanished.placement is None and vanished.questions == ("I8 held T and now is empty: was it taken off?",)
    changed = infer_move(board_of(CAT), reading({**CAT, (7, 8): "B"}), EN, WORDS)
    assert changed.placement is None and changed.questions == ("I8 held T and now reads B: which is it?",)


def test_a_face_down_tile_and_an_unsure_square_are_questions():
    back = infer_move(board_of(CAT), reading(CAT, backs={(8, 7)}), EN, WORDS)
    assert back.placement is None and "face down on H9" in back.questions[0]
    unsure = infer_move(board_of(CAT), reading({**CAT, (8, 7): "T"}, unsure={(8, 7)}), EN, WORDS)
    assert unsure.placement is None and "is there a tile on H9" in unsure.questions[0]


def test_two_separate_groups_of_tiles_are_not_one_move():
    got = infer_move(board_of(CAT), reading({**CAT, (6, 6): "A", (9, 9): "A"}), EN, WORDS)
    assert got.placement is None and got.questions == ("the new tiles are not one move: Your tiles are not in a line",)


def test_the_first_move_must_cover_the_centre():
    got = infer_move(Board(STANDARD), reading({(2, 2): "A", (2, 3): "T"}), EN, WORDS)
    assert got.placement is None and "Word must cover center star" in got.questions[0]


def test_a_blank_takes_the_one_letter_that_makes_every_word_a_word():
    # C?B down from the C: only CAB is a word.
    got = infer_move(board_of(CAT), reading({**CAT, (8, 6): "?", (9, 6): "B"}), EN, WORDS)
    assert got.questions == ()
    blank = next(t for t in got.placement.tiles if t.blank)
    assert (blank.coord, blank.letter) == ((8, 6), "A")


def test_a_blank_the_word_list_does_not_settle_stands_with_a_question():
    # C?T: CAT and COT are both words: the move stands (squares, tiles and score are known),
    # the players are asked which.
    two = infer_move(Board(STANDARD), reading({(7, 6): "C", (7, 7): "?", (7, 8): "T"}), EN, WORDS)
    assert two.placement is not None and len(two.questions) == 1
    assert "could stand for A, O" in two.questions[0] and "(taken as A)" in two.questions[0]
    none = infer_move(Board(STANDARD), reading({(7, 6): "X", (7, 7): "?", (7, 8): "X"}), EN, WORDS)
    assert none.placement is not None and "no letter for the blank on H8" in none.questions[0]


def test_transposed_readings_land_on_the_record_s_squares():
    cells = reading({(6, 7): "C", (7, 7): "A", (8, 7): "T"})  # down the photo's column H
    got = infer_move(Board(STANDARD), cells, EN, WORDS, transpose=True)
    assert [t.coord for t in got.placement.tiles] == [(7, 6), (7, 7), (7, 8)]  # across the record's row 8
    after = accept(Board(STANDARD), got.placement, cells, transpose=True)
    assert after[(7, 6)].letter == "C" and len(after) == 3
