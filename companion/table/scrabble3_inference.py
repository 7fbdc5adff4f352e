"""What was played at a Scrabble III table: the move a new 21x21 reading shows against the last
accepted board, with what only this game allows (rules.scrabble3, 6.1, 7 and 12).

Pure, as :mod:`companion.table.inference` (which does the rest of the work):

- a **face-down tile** is a J, Q, X or Z flipped for a blank (rule 12): a blank, whose letter
  the word list settles as any blank's; its square is named in ``face_down``;
- a **swap for the blank** (rule 7): a square that held a blank and now shows the letter the
  blank stood for, upright: accepted (:func:`rules.scrabble3.blank_swap_between`);
- a **pick-off** (6.1): tiles gone from, or changed at, a word's trailing end while the word
  grows: accepted when the rules allow the pick-off (the last 1 or 2 free-hanging tiles of one
  word, :func:`rules.scrabble3.pick_off_between` and :func:`rules.scrabble3.find_pick_off`)
  and the tiles laid stretch that word (:func:`rules.scrabble3.shape_error`);
- anything else taken off or changed is a question, as in the classic game.

Two-letter words are the slip's (:data:`rules.scrabble3.SLIP_TWO_LETTER_WORDS`) when the blank
letters are looked for.
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass, replace

from companion.core.board import Board, Coord, Tile
from companion.core.move import Placement, format_square
from companion.core.tiles import TileSet
from companion.rules import scrabble3 as s3
from companion.rules.common import IllegalPlay
from companion.table.inference import SURE, board_square, infer_move
from companion.vision.reading import BLANK_FACE, CellReading


@dataclass(frozen=True)
class Scrabble3Inferred:
    placement: Placement | None = None
    pick_off: tuple[Coord, ...] = ()
    swaps: tuple[Coord, ...] = ()
    face_down: tuple[Coord, ...] = ()  # new blanks that are flipped JQXZ
    questions: tuple[str, ...] = ()  # the move does not stand until they are settled
    asked: tuple[str, ...] = ()  # the move stands; which letter a blank stands for is asked

    def action(self) -> s3.Play | s3.SwapBlank | None:
        """The rules' action, when the reading is one (faces of flipped tiles unknown: a table
        with private racks needs none)."""
        if self.placement is not None and not self.questions:
            return s3.Play(self.placement, pick_off=self.pick_off, swaps=self.swaps)
        if self.placement is None and len(self.swaps) == 1 and not self.questions:
            return s3.SwapBlank(self.swaps[0])
        return None


class GameWords:
    """The words of Scrabble III: the slip's two-letter words, the lexicon's longer ones."""

    def __init__(self, lexicon: Container[str], two_letter_words: Container[str] = s3.SLIP_TWO_LETTER_WORDS) -> None:
        self.lexicon, self.twos = lexicon, two_letter_words

    def __contains__(self, word: object) -> bool:
        if isinstance(word, str) and len(word) == 2:
            return word in self.twos
        return word in self.lexicon


def infer_scrabble3(
    board: Board,
    cells: Sequence[CellReading],
    tileset: TileSet,
    lexicon: Container[str],
    *,
    named: Mapping[Coord, str] | None = None,
) -> Scrabble3Inferred:
    """The Scrabble III move ``cells`` show on top of ``board`` (the 21x21 board)."""
    words = GameWords(lexicon)
    # A face-down tile is a blank, face up as far as the rest is concerned.
    face_down = tuple(board_square(c, False) for c in cells if c.kind == "back" and c.confidence >= SURE
                      and board[board_square(c, False)] is None)
    cells = [replace(c, kind="tile", letter=BLANK_FACE, rotation=0) if c.kind == "back" else c for c in cells]
    seen = _seen(board, cells)
    changed = [sq for sq, t in board.items() if _differs(t, seen.get(sq, "keep"))]
    swaps = tuple(sq for sq in changed if board[sq].blank and _upright(seen.get(sq)) == board[sq].letter)  # type: ignore[union-attr]
    after_swaps = board.with_tiles((sq, Tile(board[sq].letter)) for sq in swaps)  # type: ignore[union-attr]
    others = [sq for sq in changed if sq not in swaps]
    pick: tuple[Coord, ...] = ()
    rest = after_swaps
    if others:
        pick_or_why = _pick_off(after_swaps, seen, others)
        if isinstance(pick_or_why, IllegalPlay):
            return Scrabble3Inferred(questions=tuple(_asked(board, seen, sq) for sq in others), swaps=swaps)
        pick = pick_or_why
        rest = after_swaps.without(pick)
    inferred = infer_move(rest, cells, tileset, words, named=named)
    if inferred.placement is None:
        if pick and not inferred.questions:
            return Scrabble3Inferred(questions=tuple(_asked(board, seen, sq) for sq in others), swaps=swaps)
        return Scrabble3Inferred(swaps=swaps, questions=inferred.questions)
    placement = inferred.placement
    questions = []
    found = s3.find_pick_off(after_swaps, pick) if pick else None
    wrong = s3.shape_error(after_swaps, placement, found if isinstance(found, s3.PickOff) else None)
    if wrong is not None:
        questions.append(f"not a Scrabble III move: {wrong.message}")
    downs = tuple(sq for sq in face_down if sq in placement.coords)
    return Scrabble3Inferred(placement, pick, swaps, downs, tuple(questions), inferred.questions)


def _seen(board: Board, cells: Sequence[CellReading]) -> dict[Coord, str | None]:
    """What sure readings say of each square: its letter (``?`` a blank), None when empty."""
    out: dict[Coord, str | None] = {}
    for c in cells:
        sq = board_square(c, False)
        if c.confidence < SURE or not board.layout.contains(sq):
            continue
        out[sq] = c.letter if c.kind == "tile" else None
    return out


def _differs(held: Tile, seen: str | None) -> bool:
    if seen == "keep":
        return False
    return seen != (BLANK_FACE if held.blank else held.letter)


def _upright(seen: str | None) -> str | None:
    return None if seen in (None, BLANK_FACE, "keep") else seen


def _pick_off(board: Board, seen: Mapping[Coord, str | None], gone: Sequence[Coord]) -> tuple[Coord, ...] | IllegalPlay:
    """The squares picked off: the changed squares run to the end of their word (a tile picked
    and laid again as it was looks unchanged), allowed by rule 6.1."""
    after = board.without(gone)
    seen_board = after.with_tiles(
        (sq, Tile(letter if letter != BLANK_FACE else "A", blank=letter == BLANK_FACE))
        for sq, letter in seen.items() if letter is not None and sq in gone
    )
    got = s3.pick_off_between(board, seen_board)
    if isinstance(got, IllegalPlay):
        return got
    found = s3.find_pick_off(board, got.pick_off)
    if isinstance(found, IllegalPlay):
        return found
    return found.squares


def _asked(board: Board, seen: Mapping[Coord, str | None], sq: Coord) -> str:
    held = board[sq]
    now = seen.get(sq)
    what = "is empty" if now is None else f"reads {now}"
    return f"{format_square(sq)} held {held.gcg} and now {what}: was it taken off?"  # type: ignore[union-attr]
