"""The simulated table's stand-ins for time and the camera where neither is what is tested:
scripted time (:class:`SimClock`) and frames that carry the board's truth (:class:`TruthFrame`,
read by :func:`truth_analyser` instead of the reader)."""

from __future__ import annotations

from dataclasses import dataclass

from companion.core.board import Board, Tile, layout_for_grid
from companion.table.table import Seen
from companion.vision.reading import BLANK_FACE, BoardReading, CellReading


class SimClock:
    """Scripted time (the headless demo and its tests): it moves only when told."""

    def __init__(self, ms: int = 0) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms

    def set(self, ms: int) -> None:
        self.ms = max(self.ms, ms)


@dataclass(frozen=True)
class TruthFrame:
    """A frame whose reading is known without the reader: the synthetic scene's truth (the
    headless demo, the restart test). Never used where the camera is what is tested."""

    reading: BoardReading
    hand: bool = False
    timestamp: float | None = None


def truth_analyser(frame: TruthFrame) -> tuple[BoardReading, Seen]:
    return frame.reading, Seen(frame.hand)


def reading_of_board(board: Board) -> BoardReading:
    """A board as a sure reading: blanks face up (``?``), each tile turned and of the set its
    :class:`Tile` says (upright and of no set unless a game gives them meaning: Scrabble House)."""
    n, m = board.layout.rows, board.layout.cols
    cells = []
    for r in range(n):
        for c in range(m):
            tile = board[(r, c)]
            if tile is None:
                cells.append(CellReading(r, c))
            else:
                cells.append(CellReading(r, c, "tile", letter=BLANK_FACE if tile.blank else tile.letter,
                                         rotation=tile.rotation, set=tile.set))
    return BoardReading(n, m, ((0.0, 0.0),) * 4, tuple(cells))


class TruthCamera:
    """A camera over the board as the players leave it (:meth:`lay`, :meth:`take_off`), giving
    its truth, except the squares in ``unsure``: read as they lie but without confidence, as a
    real camera reads a square it cannot make out (the table's question)."""

    def __init__(self, grid: int = 15) -> None:
        self.board = Board(layout_for_grid(grid))
        self.unsure: set[tuple[int, int]] = set()

    def lay(self, tiles: dict[tuple[int, int], str], blanks: frozenset[tuple[int, int]] = frozenset()) -> None:
        """Tiles put down: square -> letter (on the squares in ``blanks``, a blank standing for it)."""
        self.board = self.board.with_tiles([(sq, Tile(letter, sq in blanks)) for sq, letter in tiles.items()])

    def take_off(self, squares: list[tuple[int, int]]) -> None:
        self.board = self.board.without(squares)

    def read(self) -> TruthFrame:
        r = reading_of_board(self.board)
        cells = tuple(CellReading(c.row, c.col, c.kind, c.letter, c.rotation, set=c.set, confidence=UNSURE)
                      if (c.row, c.col) in self.unsure else c for c in r.cells)
        return TruthFrame(BoardReading(r.rows, r.cols, r.corners, cells))

    def close(self) -> None:
        pass


UNSURE = 0.3  # below the inference's SURE: the camera cannot make the square out
