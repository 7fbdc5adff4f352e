from companion.core.board import STANDARD, Board, Premium
from companion.core.move import placement_from_notation
from companion.core.tiles import get_tileset
from companion.rules.classic import score_play

EN = get_tileset("en")


def play(board: Board, pos: str, word: str):
    placement = placement_from_notation(board, pos, word)
    score = score_play(board, placement, EN)
    return board.with_tiles((t.coord, t.tile) for t in placement.tiles), score


def test_first_move_doubles_on_the_star_and_the_double_letter():
    board, s = play(Board(), "8D", "WINDY")
    # W on D8 (double letter) 8 + I N D Y 8, word doubled on the star: 32.
    assert s.total == 32
    assert STANDARD.premium((7, 7)) is Premium.DW


def test_premium_counts_only_for_the_tile_placed_on_it():
    board, _ = play(Board(), "8D", "WINDY")
    board, s = play(board, "7C", "GALE")  # from the record doug v emely: +16
    assert s.total == 16
    assert [w.word.text for w in s.words] == ["GALE", "AW", "LI", "EN"]
