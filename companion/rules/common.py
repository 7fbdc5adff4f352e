"""What every word game here shares: where a placement may go, which words it forms, what
they score before any game's bonuses.

The messages are the classic rules text's own (rules/002), so that a player sees at the
table what the computer game showed them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Sequence

from companion.core.board import Board, Coord, Direction
from companion.core.move import Placement, format_square
from companion.core.tiles import TileSet
from companion.core.words import LetterValue, Word, WordScore, placement_direction, score_word, words_formed

NO_TILES = "No tiles played"
NOT_IN_LINE = "Your tiles are not in a line"
NOT_CONNECTED = "Tiles are not connected"
NOT_ON_CENTRE = "Word must cover center star"
ONE_WORD_ONLY = "Only one word allowed"
# Not in the rules text, which never meets the case: one tile alone on the empty board.
TOO_SHORT = "A word must have at least two letters"
# The stacking game's text (rules/003): "each turn must also place at least one tile on an empty square".
NO_EMPTY_SQUARE = "Each turn must place at least one tile on an empty square"


def not_in_dictionary(word: str) -> str:
    return f"{word} is not in the dictionary"


@dataclass(frozen=True)
class IllegalPlay:
    """Why a placement cannot stand: one message, and the offending words if any."""

    message: str
    words: tuple[str, ...] = ()
    squares: tuple[Coord, ...] = ()  # the squares it is about, when it is about some


def geometry_error(
    board: Board, placement: Placement, *, start: Coord | None = None, stacking: bool = False
) -> IllegalPlay | None:
    """The first rule of placement the tiles break, or None.

    ``start`` is the square the first play must cover (the centre star unless a game says
    otherwise). Checks run in the order a player would be told: nothing played, off the board
    or on a tile, not in a line, a gap, the first play off the star, not touching the board.
    With ``stacking`` (rules/003) a tile may go on top of a tile of ``board`` (the top tiles),
    which also connects the play, but at least one tile must go on an empty square.
    """
    if not placement.tiles:
        return IllegalPlay(NO_TILES)
    layout = board.layout
    seen: set[Coord] = set()
    for t in placement.tiles:
        if not layout.contains(t.coord):
            return IllegalPlay(f"Square {t.row + 1},{t.col + 1} is off the board")
        if t.coord in board and not stacking:
            return IllegalPlay(f"Square {format_square(t.coord)} already holds a tile")
        if t.coord in seen:
            return IllegalPlay(f"Two tiles on square {format_square(t.coord)}")
        seen.add(t.coord)
    if stacking and all(c in board for c in seen):
        return IllegalPlay(NO_EMPTY_SQUARE)
    direction = placement_direction(placement)
    if len(placement) > 1 and direction is None:
        return IllegalPlay(NOT_IN_LINE)
    if direction is not None and has_gap(board, placement, direction):
        return IllegalPlay(ONE_WORD_ONLY)
    if board.is_empty():
        centre = start if start is not None else layout.centre
        if centre not in seen:
            return IllegalPlay(NOT_ON_CENTRE)
        if len(placement) < 2:
            # One tile alone on the empty board forms no word at all.
            return IllegalPlay(TOO_SHORT)
        return None
    if not any(board.has_neighbour(c) or c in board for c in seen):
        return IllegalPlay(NOT_CONNECTED)
    return None


def has_gap(board: Board, placement: Placement, direction: Direction) -> bool:
    """True when an empty square lies between the first and last tile placed."""
    first, last = placement.tiles[0].coord, placement.tiles[-1].coord
    dr, dc = direction.step
    placed = set(placement.coords)
    r, c = first
    while (r, c) != last:
        r, c = r + dr, c + dc
        if (r, c) not in placed and (r, c) not in board:
            return True
    return False


def unknown_words(words: Iterable[Word], is_word: Callable[[str], bool]) -> list[str]:
    """The words not in the lexicon, each once, in the order formed."""
    bad: list[str] = []
    for w in words:
        if not is_word(w.text) and w.text not in bad:
            bad.append(w.text)
    return bad


@dataclass(frozen=True)
class PlayScore:
    words: tuple[WordScore, ...]
    bonus: int  # the all-tiles bonus (or a game's own bonuses)
    total: int

    @property
    def main(self) -> WordScore | None:
        return self.words[0] if self.words else None


def score_words(
    board: Board,
    placement: Placement,
    tileset: TileSet,
    letter_value: LetterValue | None = None,
    *,
    direction: Direction | None = None,
    add_word_premiums: bool = False,
) -> tuple[WordScore, ...]:
    """Every word the placement forms, scored; the main word first (along ``direction`` when
    given, see :func:`~companion.core.words.words_formed`)."""
    return tuple(
        score_word(board, w, tileset, letter_value, add_word_premiums=add_word_premiums)
        for w in words_formed(board, placement, direction)
    )


def remove_from_rack(rack: tuple[str, ...], tiles: Sequence[str]) -> tuple[str, ...] | None:
    """The rack (sorted) without ``tiles``; None when it does not hold them all."""
    have = Counter(rack)
    need = Counter(tiles)
    if any(have[t] < k for t, k in need.items()):
        return None
    return tuple(sorted((have - need).elements()))


def set_player(state, index: int, **changes: object):
    """``state`` (a game's frozen state with a ``players`` tuple) with player ``index`` changed."""
    players = list(state.players)
    players[index] = replace(players[index], **changes)
    return replace(state, players=tuple(players))
