"""The words a placement forms, and their scores.

One piece of code for every game: a word is the maximal run of tiles through a newly placed
tile along one line; a premium square counts only for the tile placed on it this turn.
Games that change how a letter is valued pass ``letter_value`` (Scrabble III's small-word cap,
the stacking game's stack multiplier); games whose word premiums add instead of multiplying
(Scrabble III's rule 8: two triple words make 6x, not 9x) pass ``add_word_premiums``; a game
where a tile may land on a covered premium square names the squares whose premium counts
(``premium_squares``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Container

from companion.core.board import Board, Coord, Direction, Tile
from companion.core.move import Placement
from companion.core.tiles import TileSet


@dataclass(frozen=True)
class Word:
    squares: tuple[Coord, ...]
    tiles: tuple[Tile, ...]
    new: tuple[bool, ...]  # which squares were covered by this placement
    direction: Direction

    @property
    def text(self) -> str:
        return "".join(t.letter for t in self.tiles)

    @property
    def gcg(self) -> str:
        return "".join(t.gcg for t in self.tiles)

    def __len__(self) -> int:
        return len(self.squares)


def run_through(board: Board, coord: Coord, direction: Direction) -> list[Coord]:
    """The maximal run of occupied squares through ``coord`` along ``direction``."""
    dr, dc = direction.step
    r, c = coord
    while (r - dr, c - dc) in board:
        r, c = r - dr, c - dc
    run = []
    while (r, c) in board:
        run.append((r, c))
        r, c = r + dr, c + dc
    return run


def placement_direction(placement: Placement) -> Direction | None:
    """The line the placement lies along; None for one tile or tiles not in a line."""
    rows = {t.row for t in placement.tiles}
    cols = {t.col for t in placement.tiles}
    if len(placement) < 2:
        return None
    if len(rows) == 1:
        return Direction.ACROSS
    if len(cols) == 1:
        return Direction.DOWN
    return None


def words_formed(before: Board, placement: Placement, direction: Direction | None = None) -> list[Word]:
    """Every word of two or more letters that ``placement`` forms on ``before``; the main word first.

    The placement must lie in one line (the rules check that first). For a single tile the main
    word is the across one when it has two or more letters, else the down one.
    """
    after = before.with_tiles((t.coord, t.tile) for t in placement.tiles)
    new = set(placement.coords)
    if direction is None:
        direction = placement_direction(placement)
    if direction is None:
        first = placement.tiles[0].coord
        direction = Direction.ACROSS if len(run_through(after, first, Direction.ACROSS)) > 1 else Direction.DOWN

    def word_at(coord: Coord, d: Direction) -> Word | None:
        run = run_through(after, coord, d)
        if len(run) < 2:
            return None
        return Word(tuple(run), tuple(after[s] for s in run), tuple(s in new for s in run), d)  # type: ignore[misc]

    words = []
    main = word_at(placement.tiles[0].coord, direction)
    if main is not None:
        words.append(main)
    for t in placement.tiles:
        cross = word_at(t.coord, direction.other)
        if cross is not None:
            words.append(cross)
    return words


@dataclass(frozen=True)
class WordScore:
    word: Word
    letters: int  # sum of letter values, letter premiums applied
    multiplier: int  # product of the word premiums under new tiles
    score: int
    points: tuple[int, ...] = ()  # each square's points, its letter premium applied


# The points of the tile on a square of a word, before any premium: (square, tile, word).
LetterValue = Callable[[Coord, Tile, Word], int]


def score_word(
    board: Board,
    word: Word,
    tileset: TileSet,
    letter_value: LetterValue | None = None,
    premium_squares: Container[Coord] | None = None,
    *,
    add_word_premiums: bool = False,
) -> WordScore:
    """The word's letters (letter premiums applied) times its word premiums. A premium counts
    under a tile placed this turn, and, when ``premium_squares`` is given, only on those squares."""
    layout = board.layout
    points: list[int] = []
    multiplier = 1
    added = 0  # the sum of the word premiums under new tiles, for add_word_premiums
    for square, tile, is_new in zip(word.squares, word.tiles, word.new):
        value = letter_value(square, tile, word) if letter_value else tileset.value(tile.letter, tile.blank)
        if is_new and (premium_squares is None or square in premium_squares):
            premium = layout.premium(square)
            value *= premium.letter_multiplier
            multiplier *= premium.word_multiplier
            if premium.word_multiplier > 1:
                added += premium.word_multiplier
        points.append(value)
    letters = sum(points)
    if add_word_premiums and added:
        multiplier = added
    return WordScore(word, letters, multiplier, letters * multiplier, tuple(points))
