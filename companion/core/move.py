"""Moves on a board: where tiles go, written and read in GCG notation.

A position is written as in GCG: ``8D`` (row number first) starts an across word at row 8,
column D; ``D8`` (column letter first) starts a down word. A play is the whole word along that
line, a ``.`` for each square already holding a tile, a lower-case letter for a blank.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Container, Iterable

from companion.core.board import Board, Coord, Direction, Layout, Tile
from companion.core.errors import CompanionError

PLAY_THROUGH = "."
_POSITION = re.compile(r"^(?:(?P<row>\d{1,2})(?P<col>[A-Za-z])|(?P<col2>[A-Za-z])(?P<row2>\d{1,2}))$")


@dataclass(frozen=True, slots=True)
class PlacedTile:
    row: int
    col: int
    letter: str  # upper case: the letter the tile shows or, for a blank, stands for
    blank: bool = False

    @property
    def coord(self) -> Coord:
        return (self.row, self.col)

    @property
    def tile(self) -> Tile:
        return Tile(self.letter, self.blank)


@dataclass(frozen=True)
class Placement:
    """Tiles put on the board in one turn, in the order they lie along their line."""

    tiles: tuple[PlacedTile, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "tiles", tuple(sorted(self.tiles, key=lambda t: (t.row, t.col))))

    def __len__(self) -> int:
        return len(self.tiles)

    @property
    def coords(self) -> tuple[Coord, ...]:
        return tuple(t.coord for t in self.tiles)

    @classmethod
    def of(cls, tiles: Iterable[PlacedTile]) -> "Placement":
        return cls(tuple(tiles))


def column_name(col: int) -> str:
    return chr(ord("A") + col)


def parse_position(text: str, layout: Layout) -> tuple[Coord, Direction]:
    m = _POSITION.match(text.strip())
    if not m:
        raise CompanionError(f"position {text!r} is not like 8D (across) or D8 (down)")
    if m.group("row"):
        row, col, direction = int(m.group("row")) - 1, m.group("col"), Direction.ACROSS
    else:
        row, col, direction = int(m.group("row2")) - 1, m.group("col2"), Direction.DOWN
    coord = (row, ord(col.upper()) - ord("A"))
    if not layout.contains(coord):
        raise CompanionError(f"position {text!r} is off the {layout.rows}x{layout.cols} board")
    return coord, direction


def format_position(coord: Coord, direction: Direction) -> str:
    row, col = coord
    if direction is Direction.ACROSS:
        return f"{row + 1}{column_name(col)}"
    return f"{column_name(col)}{row + 1}"


def placement_from_notation(
    board: Board, position: str, word: str, stacked: Container[Coord] = ()
) -> Placement:
    """The tiles a GCG play puts down on ``board``.

    A ``.`` marks a square that already holds a tile. Some recorders write the letter of an
    existing tile instead of a dot; we accept that when the letter matches what is there, since
    the geometry is then unambiguous, and refuse it when it does not. In a game where tiles
    stack, ``stacked`` names the squares whose letter is a new tile put on top of the one there.
    """
    (r, c), direction = parse_position(position, board.layout)
    dr, dc = direction.step
    placed = []
    for i, ch in enumerate(word):
        coord = (r + dr * i, c + dc * i)
        if not board.layout.contains(coord):
            raise CompanionError(f"{position} {word}: runs off the board")
        existing = board[coord]
        if ch == PLAY_THROUGH:
            if coord in stacked:
                where = format_square(coord)
                raise CompanionError(f"{position} {word}: '.' at {where}, where a tile is stacked")
            if existing is None:
                raise CompanionError(f"{position} {word}: '.' at an empty square")
            continue
        if not ch.isalpha():
            raise CompanionError(f"{position} {word}: {ch!r} is not a letter")
        if existing is not None and coord not in stacked:
            # The case may disagree: Elise writes a blank already on the board in upper case.
            # The board knows which tile lies there, so only the letter has to match.
            if existing.letter == ch.upper():
                continue
            raise CompanionError(
                f"{position} {word}: square {format_square(coord)} already holds {existing.gcg}"
            )
        if existing is None and coord in stacked:
            raise CompanionError(f"{position} {word}: {format_square(coord)} is empty: nothing to stack on")
        placed.append(PlacedTile(coord[0], coord[1], ch.upper(), blank=ch.islower()))
    return Placement.of(placed)


def format_square(coord: Coord) -> str:
    return f"{column_name(coord[1])}{coord[0] + 1}"


def readable_word(board: Board, position: str, word: str) -> str:
    """A play's word as Woogles shows it: the letters already on the board (GCG's ``.``) in
    brackets, ``RE(L)IgION`` for ``RE.IgION``; ``board`` is the board before the play (or any
    board with those tiles still on it). A ``.`` on an empty square stays a ``.``."""
    start, direction = parse_position(position, board.layout)
    dr, dc = direction.step
    out, through = [], False
    for i, ch in enumerate(word):
        tile = board[(start[0] + i * dr, start[1] + i * dc)] if ch == PLAY_THROUGH else None
        if (tile is not None) != through:
            out.append("(" if tile is not None else ")")
            through = tile is not None
        out.append(tile.gcg if tile is not None else ch)
    if through:
        out.append(")")
    return "".join(out)


def notation_of(board: Board, placement: Placement, direction: Direction) -> tuple[str, str]:
    """The GCG position and play of ``placement`` on ``board`` (the board before the play)."""
    if not placement.tiles:
        raise CompanionError("no tiles played")
    dr, dc = direction.step
    placed = {t.coord: t for t in placement.tiles}
    r, c = placement.tiles[0].coord
    while (r - dr, c - dc) in board:
        r, c = r - dr, c - dc
    start = (r, c)
    chars = []
    while board.layout.contains((r, c)) and ((r, c) in board or (r, c) in placed):
        t = placed.get((r, c))
        chars.append(PLAY_THROUGH if t is None else (t.letter.lower() if t.blank else t.letter))
        r, c = r + dr, c + dc
    return format_position(start, direction), "".join(chars)
