"""The simulated table's stand-ins for time and the camera where neither is what is tested:
scripted time (:class:`SimClock`) and frames that carry the board's truth (:class:`TruthFrame`,
read by :func:`truth_analyser` instead of the reader)."""

from __future__ import annotations

from dataclasses import dataclass

from companion.core.board import Board
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
    """A board as a sure reading: blanks face up (``?``), every tile upright."""
    n, m = board.layout.rows, board.layout.cols
    cells = []
    for r in range(n):
        for c in range(m):
            tile = board[(r, c)]
            if tile is None:
                cells.append(CellReading(r, c))
            else:
                cells.append(CellReading(r, c, "tile", letter=BLANK_FACE if tile.blank else tile.letter, rotation=0))
    return BoardReading(n, m, ((0.0, 0.0),) * 4, tuple(cells))
