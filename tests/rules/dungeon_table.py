"""A hand-made dungeon table for the tests: the board as tiles lie on it, read as the camera would.

Nothing here is the game: it only moves tiles and tokens as a player's hands do, and answers
CellReadings, so that the rules module is driven through the surface the table will use.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.core.board import Coord
from companion.rules.dungeon import FIXED, MONSTER, SIZE, TREASURE, WALL, Obstacle, Setup
from companion.vision.reading import BoardReading, CellReading


@dataclass
class Square:
    kind: str = "empty"  # empty, tile, back
    letter: str | None = None  # the tile's letter, face up or down
    token: bool = False


class PhysicalBoard:
    def __init__(self) -> None:
        self.squares = {(r, c): Square() for r in range(SIZE) for c in range(SIZE)}

    @classmethod
    def laid_out(cls, setup: Setup, letters: dict[Coord, str]) -> "PhysicalBoard":
        """The set-up laid out with the tiles ``letters`` names (every obstacle square)."""
        board = cls()
        for o in setup.obstacles:
            for s in o.squares:
                face_up = o.kind in (FIXED, TREASURE)
                board.squares[s] = Square("tile" if face_up else "back", letters[s], o.kind in (TREASURE, MONSTER))
        return board

    def place(self, start: Coord, word: str, across: bool = True) -> None:
        """Put tiles down along a line; ``.`` keeps what lies there."""
        r, c = start
        for ch in word:
            if ch != ".":
                assert self.squares[(r, c)].kind == "empty", (r, c)
                self.squares[(r, c)] = Square("tile", ch)
            r, c = (r, c + 1) if across else (r + 1, c)

    def turn_up(self, s: Coord) -> None:
        self.squares[s].kind = "tile"

    def replace(self, s: Coord, letter: str) -> str:
        """Take the tile off (to the rack) and put ``letter`` there, token off; the old letter."""
        old = self.squares[s].letter
        self.squares[s] = Square("tile", letter)
        return old  # type: ignore[return-value]

    def token_off(self, s: Coord) -> None:
        self.squares[s].token = False

    def reading(self) -> BoardReading:
        cells = []
        for r in range(SIZE):
            for c in range(SIZE):
                sq = self.squares[(r, c)]
                if sq.kind == "tile":
                    cells.append(CellReading(r, c, "tile", sq.letter, 0, token=sq.token))
                else:
                    cells.append(CellReading(r, c, sq.kind, token=sq.token))
        return BoardReading(SIZE, SIZE, ((0, 0), (1, 0), (1, 1), (0, 1)), tuple(cells))


def setup_of(*obstacles: Obstacle) -> Setup:
    """A set-up made by hand (the dice are tested elsewhere)."""
    return Setup(len(obstacles), 2, None, (), tuple(obstacles))


def wall(*squares: Coord, orientation: str = "horizontal") -> Obstacle:
    return Obstacle(WALL, tuple(squares), orientation, 0, 3)


def one(kind: str, s: Coord) -> Obstacle:
    return Obstacle(kind, (s,), None, 0, 1)
