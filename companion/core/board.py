"""Board geometry and the board as it lies: squares, premium layouts, tiles on squares.

Squares are ``(row, col)`` pairs counted from 0 at the top-left corner. Layouts are drawn as
text with Macondo's symbols (``=`` triple word, ``-`` double word, ``"`` triple letter, ``'``
double letter, ``*`` the centre star, a double word) so that a board can be read at a glance.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Iterable, Iterator, Mapping

from companion.core.errors import CompanionError

Coord = tuple[int, int]


class Direction(Enum):
    ACROSS = (0, 1)
    DOWN = (1, 0)

    @property
    def step(self) -> Coord:
        return self.value

    @property
    def other(self) -> "Direction":
        return Direction.DOWN if self is Direction.ACROSS else Direction.ACROSS


class Premium(Enum):
    NONE = "."
    DL = "'"
    TL = '"'
    DW = "-"
    TW = "="

    @property
    def letter_multiplier(self) -> int:
        return {Premium.DL: 2, Premium.TL: 3}.get(self, 1)

    @property
    def word_multiplier(self) -> int:
        return {Premium.DW: 2, Premium.TW: 3}.get(self, 1)


@dataclass(frozen=True)
class Layout:
    name: str
    rows: int
    cols: int
    premiums: tuple[tuple[Premium, ...], ...]
    centre: Coord
    # The classic 15x15 board inside an extended one: (first row, first col, last row, last col).
    inner: tuple[int, int, int, int]

    @classmethod
    def from_text(cls, name: str, text: str, pad: int = 0) -> "Layout":
        lines = [ln.strip() for ln in text.strip().splitlines()]
        width = len(lines[0])
        if any(len(ln) != width for ln in lines):
            raise ValueError(f"layout {name}: rows of different lengths")
        lines = ["." * (width + 2 * pad)] * pad + ["." * pad + ln + "." * pad for ln in lines] + [
            "." * (width + 2 * pad)
        ] * pad
        centre = None
        rows: list[tuple[Premium, ...]] = []
        for r, ln in enumerate(lines):
            row = []
            for c, ch in enumerate(ln):
                if ch == "*":
                    centre = (r, c)
                    ch = Premium.DW.value
                row.append(Premium(ch))
            rows.append(tuple(row))
        if centre is None:
            raise ValueError(f"layout {name}: no centre star")
        n_rows, n_cols = len(rows), width + 2 * pad
        return cls(name, n_rows, n_cols, tuple(rows), centre, (pad, pad, n_rows - 1 - pad, n_cols - 1 - pad))

    def premium(self, coord: Coord) -> Premium:
        return self.premiums[coord[0]][coord[1]]

    def contains(self, coord: Coord) -> bool:
        return 0 <= coord[0] < self.rows and 0 <= coord[1] < self.cols

    def in_inner(self, coord: Coord) -> bool:
        r0, c0, r1, c1 = self.inner
        return r0 <= coord[0] <= r1 and c0 <= coord[1] <= c1

    def squares(self) -> Iterator[Coord]:
        for r in range(self.rows):
            for c in range(self.cols):
                yield (r, c)


_CLASSIC = """
=..'...=...'..=
.-..."..."...-.
..-...'.'...-..
'..-...'...-..'
....-.....-....
."..."..."...".
..'...'.'...'..
=..'...*...'..=
..'...'.'...'..
."..."..."...".
....-.....-....
'..-...'...-..'
..-...'.'...-..
.-..."..."...-.
=..'...=...'..=
"""

STANDARD = Layout.from_text("standard", _CLASSIC)
# Scrabble III's board: the classic board with "wings" of three plain rows on every side.
EXTENDED = Layout.from_text("extended", _CLASSIC, pad=3)

LAYOUTS: Mapping[str, Layout] = {STANDARD.name: STANDARD, EXTENDED.name: EXTENDED}


def layout_for_grid(size: int) -> Layout:
    for layout in LAYOUTS.values():
        if layout.rows == size:
            return layout
    raise CompanionError(f"no board layout of {size}x{size} (known: 15, 21)")


@dataclass(frozen=True, slots=True)
class Tile:
    """A tile face up on a square, as the rules see it.

    ``letter`` is the letter the tile stands for: for a blank, the letter its player named.
    ``rotation`` and ``set`` are what the camera sees; games that give them meaning (Scrabble
    House's ownership) read them, the others ignore them.
    """

    letter: str
    blank: bool = False
    rotation: int = 0
    set: str | None = None

    @property
    def gcg(self) -> str:
        return self.letter.lower() if self.blank else self.letter


class Board:
    """The tiles on a board of a given layout. Immutable: placing returns a new board."""

    __slots__ = ("layout", "_tiles")

    def __init__(self, layout: Layout = STANDARD, tiles: Mapping[Coord, Tile] | None = None) -> None:
        self.layout = layout
        self._tiles: dict[Coord, Tile] = dict(tiles or {})

    def __getitem__(self, coord: Coord) -> Tile | None:
        return self._tiles.get(coord)

    def __contains__(self, coord: Coord) -> bool:
        return coord in self._tiles

    def __len__(self) -> int:
        return len(self._tiles)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self.layout == other.layout and self._tiles == other._tiles

    def __hash__(self) -> int:
        return hash((self.layout.name, frozenset(self._tiles.items())))

    def items(self) -> Iterator[tuple[Coord, Tile]]:
        return iter(sorted(self._tiles.items()))

    def is_empty(self) -> bool:
        return not self._tiles

    def with_tiles(self, placed: Iterable[tuple[Coord, Tile]]) -> "Board":
        tiles = dict(self._tiles)
        for coord, tile in placed:
            tiles[coord] = tile
        return Board(self.layout, tiles)

    def without(self, coords: Iterable[Coord]) -> "Board":
        tiles = dict(self._tiles)
        for coord in coords:
            tiles.pop(coord, None)
        return Board(self.layout, tiles)

    def has_neighbour(self, coord: Coord) -> bool:
        r, c = coord
        return any((r + dr, c + dc) in self._tiles for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)))

    def to_text(self, *, premiums: bool = False) -> str:
        """One line per row: tiles as GCG writes them (blanks lower case), empty squares as ``.``
        or, with ``premiums``, as their premium symbol."""
        lines = []
        for r in range(self.layout.rows):
            row = []
            for c in range(self.layout.cols):
                tile = self._tiles.get((r, c))
                if tile is not None:
                    row.append(tile.gcg)
                else:
                    row.append(self.layout.premium((r, c)).value if premiums else ".")
            lines.append("".join(row))
        return "\n".join(lines)

    @classmethod
    def from_text(cls, text: str, layout: Layout = STANDARD) -> "Board":
        """The inverse of :meth:`to_text` (without premiums): upper case a tile, lower case a blank."""
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if len(lines) != layout.rows or any(len(ln) != layout.cols for ln in lines):
            raise CompanionError(f"a board is {layout.rows} lines of {layout.cols} characters")
        tiles = {}
        for r, ln in enumerate(lines):
            for c, ch in enumerate(ln):
                if ch != ".":
                    tiles[(r, c)] = Tile(ch.upper(), blank=ch.islower())
        return cls(layout, tiles)
