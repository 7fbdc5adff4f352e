"""A board whose squares hold stacks of tiles, for a game where tiles go on top of tiles.

A stack is listed bottom first; its top tile is the letter the square shows, so words are read
on :meth:`StackBoard.top`, an ordinary :class:`~companion.core.board.Board`, by the same code
every game uses (:mod:`companion.core.words`). What only stacks have is the height of each
square and which tiles lie under the top one.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Mapping

from companion.core.board import STANDARD, Board, Coord, Layout, Tile
from companion.core.move import format_square


class StackBoard:
    """Stacks of tiles on a layout. Immutable: placing returns a new board."""

    __slots__ = ("layout", "_stacks", "_top")

    def __init__(
        self, layout: Layout = STANDARD, stacks: Mapping[Coord, tuple[Tile, ...]] | None = None
    ) -> None:
        self.layout = layout
        self._stacks: dict[Coord, tuple[Tile, ...]] = {k: tuple(v) for k, v in (stacks or {}).items() if v}
        self._top = Board(layout, {k: v[-1] for k, v in self._stacks.items()})

    def __getitem__(self, coord: Coord) -> tuple[Tile, ...]:
        """The stack on ``coord``, bottom first; () for an empty square."""
        return self._stacks.get(coord, ())

    def __contains__(self, coord: Coord) -> bool:
        return coord in self._stacks

    def __len__(self) -> int:
        return len(self._stacks)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StackBoard) and self.layout == other.layout and self._stacks == other._stacks

    def __hash__(self) -> int:
        return hash((self.layout.name, frozenset(self._stacks.items())))

    @property
    def top(self) -> Board:
        """The board as the camera sees it: the top tile of every stack."""
        return self._top

    def height(self, coord: Coord) -> int:
        return len(self._stacks.get(coord, ()))

    def heights(self) -> dict[Coord, int]:
        return {k: len(v) for k, v in self._stacks.items()}

    def items(self) -> Iterator[tuple[Coord, tuple[Tile, ...]]]:
        return iter(sorted(self._stacks.items()))

    def tile_count(self) -> int:
        return sum(len(v) for v in self._stacks.values())

    def with_tiles(self, placed: Iterable[tuple[Coord, Tile]]) -> "StackBoard":
        """Each tile goes on top of the stack on its square (or starts one)."""
        stacks = dict(self._stacks)
        for coord, tile in placed:
            stacks[coord] = stacks.get(coord, ()) + (tile,)
        return StackBoard(self.layout, stacks)

    def to_text(self) -> str:
        """The top tiles as :meth:`Board.to_text` writes them, then one line per stack of two or
        more: ``H8 TAM`` (square, then the stack bottom first, wilds in lower case)."""
        lines = [self._top.to_text()]
        for coord, stack in self.items():
            if len(stack) > 1:
                lines.append(f"{format_square(coord)} {''.join(t.gcg for t in stack)}")
        return "\n".join(lines)
