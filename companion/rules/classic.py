"""Classic Scrabble for two to four players (rules/002_1128351f9cb4594a.txt)."""

from __future__ import annotations

from companion.core.board import Board
from companion.core.move import Placement
from companion.core.tiles import TileSet
from companion.rules.common import PlayScore, score_words

RACK_SIZE = 7
ALL_TILES_BONUS = 50


def score_play(board: Board, placement: Placement, tileset: TileSet) -> PlayScore:
    """The score of a legal placement on ``board``: every word formed, plus 50 for all seven tiles."""
    words = score_words(board, placement, tileset)
    bonus = ALL_TILES_BONUS if len(placement) == RACK_SIZE else 0
    return PlayScore(words, bonus, sum(w.score for w in words) + bonus)
