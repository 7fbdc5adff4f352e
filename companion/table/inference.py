"""What was played: the move a new board reading shows against the last accepted board.

Pure: a board (the tiles the game has accepted) and a reading (what the camera sees now) go in,
an :class:`Inferred` turn comes out. The table asks the rules to judge it; a replay of photos
writes it down.

Game knowledge corrects the camera: an accepted square keeps its tile whatever a reading says
of it, unless the reading is sure (confidence ``SURE`` or more) that it changed; then the turn
is a question, never a silent guess. Questions:

- a tile that vanished or changed (a misread, or a tile knocked off: the players decide);
- a new face-down tile (a tile dropped face down on the board);
- a new square read without confidence (something there, but what?);
- new tiles that are not one move (not in a line, a gap, off the centre on the first move,
  touching nothing);
- a blank whose letter the word list does not settle (none of the letters makes every word
  formed a word, or several do): the move stands (its squares, tiles and score are known),
  with the likeliest letter, and the question is asked with it.

No new tile at all is a turn without tiles: a pass or an exchange, which the board cannot tell
apart.

Blanks: the camera sees a blank face up (``?``) but not the letter its player named; the letter
is the one that makes every word the move forms a word of the lexicon, when exactly one does.

In a game where tiles stack (``stacking``, rules/003) a square whose letter changed is a tile
put on top, not a question; a blank face there is a wild, which must change the letter.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Container, Mapping, Sequence

from companion.core.board import Board, Coord, Tile
from companion.core.move import Placement, PlacedTile, format_square
from companion.core.tiles import TileSet
from companion.core.words import words_formed
from companion.rules.common import geometry_error
from companion.vision.reading import BLANK_FACE, CellReading

SURE = 0.5  # a reading this sure of a square outweighs what the game has accepted there
MAX_BLANKS = 2  # blanks in one move whose letters are looked for (a set has two)


@dataclass(frozen=True)
class Ask:
    """A question about one square the players can answer on the page: ``choices`` are the
    letters it may hold (``""``: no tile there; ``?``: a blank). ``kind``: ``unsure`` (is there a tile?), ``changed`` or ``vanished``
    (an accepted tile read otherwise: only it can stand), ``back`` (a face-down tile: which
    letter, once turned over)."""

    square: Coord
    kind: str
    text: str
    choices: tuple[str, ...]

    @property
    def empty_allowed(self) -> bool:
        return "" in self.choices


@dataclass(frozen=True)
class Inferred:
    """One turn as the board shows it: ``placement`` (None when no tile was added) and the
    ``questions`` to put to the players. With no placement, the questions stand instead of
    the move; with one, they ask only which letters its blanks stand for (the move's squares,
    tiles and score are known)."""

    placement: Placement | None = None
    questions: tuple[str, ...] = ()
    asks: tuple[Ask, ...] = ()  # the questions about single squares, with their choices

    @property
    def no_tiles(self) -> bool:
        return self.placement is None and not self.questions


def board_square(cell: CellReading, transpose: bool) -> Coord:
    """The board square a reading's cell shows (``transpose``: the record's squares are the
    photo's transposed, as scrabscrap's records are)."""
    return (cell.col, cell.row) if transpose else (cell.row, cell.col)


def infer_move(
    board: Board,
    cells: Sequence[CellReading],
    tileset: TileSet,
    lexicon: Container[str],
    *,
    transpose: bool = False,
    named: Mapping[Coord, str] | None = None,
    stacking: bool = False,
) -> Inferred:
    """The move ``cells`` (a whole board's reading) shows on top of ``board``. ``named``: the
    letters the players said their blanks stand for, by square (the camera cannot see them);
    a blank not named there is named by the word list, or asked about."""
    questions: list[str] = []
    asks: list[Ask] = []
    letters_any = tuple(sorted(tileset.alphabet)) + (BLANK_FACE,)
    new: dict[Coord, CellReading] = {}
    for cell in cells:
        sq = board_square(cell, transpose)
        if not board.layout.contains(sq):
            continue
        held = board[sq]
        if held is not None:
            if cell.confidence < SURE:
                continue  # the game knows better than an unsure reading
            if cell.kind != "tile":
                what = "is empty" if cell.kind == "empty" else "shows a face-down tile"
                text = f"{format_square(sq)} held {held.gcg} and now {what}: was it taken off?"
                questions.append(text)
                # A tile taken off is no move: it goes back, or the camera misread the square.
                asks.append(Ask(sq, "vanished", text, (BLANK_FACE if held.blank else held.letter,)))
            elif cell.letter != (BLANK_FACE if held.blank else held.letter):
                if stacking:
                    new[sq] = cell  # a tile on top of the stack: the rules judge it
                    continue
                text = f"{format_square(sq)} held {held.gcg} and now reads {cell.letter}: which is it?"
                questions.append(text)
                # Only what the game accepted there can stand: a tile on the board does not change.
                asks.append(Ask(sq, "changed", text, (BLANK_FACE if held.blank else held.letter,)))
            continue
        if cell.kind == "empty":
            continue
        if cell.confidence < SURE:
            text = f"is there a tile on {format_square(sq)}? (the camera is not sure)"
            questions.append(text)
            asks.append(Ask(sq, "unsure", text, ("",) + letters_any))
        elif cell.kind == "back":
            text = f"a tile lies face down on {format_square(sq)}: turn it over"
            questions.append(text)
            asks.append(Ask(sq, "back", text, letters_any))
        else:
            new[sq] = cell
    if questions:
        return Inferred(questions=tuple(questions), asks=tuple(asks))
    if not new:
        return Inferred()
    letters = sorted(tileset.alphabet)
    fixed = [PlacedTile(r, c, cell.letter or "") for (r, c), cell in new.items() if cell.letter != BLANK_FACE]
    blanks = [sq for sq, cell in new.items() if cell.letter == BLANK_FACE]
    said = {sq: named[sq].upper() for sq in blanks if named and sq in named and named[sq].upper() in tileset.alphabet}
    fixed += [PlacedTile(r, c, said[(r, c)], blank=True) for r, c in blanks if (r, c) in said]
    blanks = [sq for sq in blanks if sq not in said]
    shape = Placement.of(fixed + [PlacedTile(r, c, letters[0], blank=True) for r, c in blanks])
    wrong = geometry_error(board, shape, stacking=stacking)
    if wrong is not None:
        return Inferred(questions=(f"the new tiles are not one move: {wrong.message}",))
    if not blanks:
        return Inferred(Placement.of(fixed))
    if len(blanks) > MAX_BLANKS:
        return Inferred(questions=(f"{len(blanks)} blanks in one move: which letters do they stand for?",))
    # Every letter the blanks may stand for, with the number of the move's words each makes
    # words of the lexicon: one assignment making them all words settles it.
    tried = []
    covered = {sq: tile.letter for sq in blanks if (tile := board[sq]) is not None}
    for choice in product(letters, repeat=len(blanks)):
        if any(covered.get(sq) == ch for sq, ch in zip(blanks, choice)):
            continue  # a wild on a tile changes its letter
        placement = Placement.of(fixed + [PlacedTile(r, c, ch, blank=True) for (r, c), ch in zip(blanks, choice)])
        words = words_formed(board, placement)
        tried.append((sum(w.text in lexicon for w in words) - len(words), choice, placement))
    best = max(score for score, _, _ in tried)
    fits = [t for t in tried if t[0] == best]
    if best == 0 and len(fits) == 1:
        return Inferred(fits[0][2])
    # Not settled: the position, the tiles and the score are known all the same (a blank
    # scores nothing), so the move stands with the likeliest letters (the most words made
    # words, then the letters the set holds most of) and the question is put with it.
    common = {ch: -tileset.counts.get(ch, 0) for ch in letters}
    fits.sort(key=lambda t: ([common[ch] for ch in t[1]], t[1]))
    where = ", ".join(format_square(sq) for sq in blanks)
    taken = "".join(fits[0][1])
    if best == 0:
        options = ", ".join("".join(t[1]) for t in fits[:6]) + (", ..." if len(fits) > 6 else "")
        question = f"the blank on {where} could stand for {options} (taken as {taken}): which is it?"
    else:
        question = f"no letter for the blank on {where} makes every word a word (taken as {taken}): which letter is it?"
    return Inferred(fits[0][2], (question,))


def answered(cells: Sequence[CellReading], square: Coord, letter: str, *, transpose: bool = False
             ) -> tuple[CellReading, ...]:
    """``cells`` with ``square`` read for sure as the players answered: ``letter`` (``?``: a
    blank) or ``""`` (no tile). The rest of the reading is as the camera saw it."""
    out = []
    for cell in cells:
        if board_square(cell, transpose) != square:
            out.append(cell)
        elif letter:
            out.append(CellReading(cell.row, cell.col, "tile", letter=letter, rotation=cell.rotation or 0,
                                   set=cell.set, rgb=cell.rgb, token=cell.token, confidence=1.0))
        else:
            out.append(CellReading(cell.row, cell.col, token=cell.token, confidence=1.0))
    return tuple(out)


def accept(board: Board, placement: Placement, cells: Sequence[CellReading], *, transpose: bool = False) -> Board:
    """The board with ``placement`` on it, each new tile keeping the turn and set the camera saw."""
    seen = {board_square(c, transpose): c for c in cells}
    tiles = []
    for t in placement.tiles:
        cell = seen.get(t.coord)
        tiles.append((t.coord, Tile(t.letter, t.blank, cell.rotation or 0 if cell else 0, cell.set if cell else None)))
    return board.with_tiles(tiles)
