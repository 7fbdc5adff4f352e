"""The Scrabble House table without hardware: two boards, each under its own synthetic camera.

Each :class:`BoardCamera` holds the board as the players leave it and photographs it as a mounted
camera would (the renderer: tiles of two sets of different colour, turned 0 or 180 degrees to
the player they face); the real reader reads those photos through the table loop. The camera is
calibrated as a mounted camera is at a real table: once, from the empty board, and told the two
sets' colours (what ``companion calibrate`` records in a profile).

:func:`laid` places a word as a player lays it: upright to him, read in his own orientation (the
top player's across runs right to left on the board, his down runs up the board).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

from companion.core.board import STANDARD, Board, Coord, Tile
from companion.rules import house

SETS = ("ivory", "wood")  # board 0's set, board 1's: two of the renderer's tile looks


@dataclass(frozen=True)
class Photo:
    image: Any
    timestamp: float | None = None


class BoardCamera:
    """One board and the mounted camera above it (``seed`` picks the camera's pose and light)."""

    def __init__(self, seed: int, tileset: str = "en", sets: tuple[str, ...] = SETS, *, mounted: bool = True,
                 style: str = "green") -> None:
        import numpy as np

        from companion.vision.calibration import calibrate_empty
        from companion.vision.profile import Profile, TileSetColour
        from companion.vision.scene import SceneSpec, board_style, mounted_camera, mounted_photo

        rng = np.random.default_rng(seed)
        self.seed, self.tileset = seed, tileset
        self.spec = SceneSpec(grid=15, tileset=tileset, style=board_style(style))
        if mounted:
            self.spec = replace(self.spec, camera=mounted_camera(rng), photo=mounted_photo(rng))
        self.board = Board(STANDARD)
        self.frames = 0
        profile = calibrate_empty(self._render(0), Profile(tileset=tileset, grid=15), f"house camera {seed}")
        looks = [self.spec.looks[n] for n in sets]
        self.profile = replace(profile, sets=tuple(TileSetColour(k.name, k.body) for k in looks)).with_arrays(
            set_backs=np.array([k.back for k in looks], np.uint8).reshape(-1, 3))

    def _render(self, frame: int) -> Any:
        from companion.vision.render import render
        from companion.vision.scene import content_from_board

        return render(replace(self.spec, content=content_from_board(self.board)), self.seed, frame=frame).image

    def read(self) -> Photo:
        """The next frame: the board as it lies now."""
        self.frames += 1
        return Photo(self._render(self.frames))

    def analyser(self) -> Callable[[Any], Any]:
        from companion.table import reader_analyser

        return reader_analyser(self.tileset, 15, self.profile)


def laid(seat: int, start: Coord, across: bool, word: str, colour: str | None,
         colours: dict[int, str] | None = None) -> dict[Coord, Tile]:
    """The tiles of ``word`` as ``seat`` lays it from ``start`` (its first letter's square), in
    his own reading direction; ``colours`` names a letter's set by its index in the word where it
    is not ``colour`` (a bonus tile). Squares already holding the word's letters are left out by
    the caller (:func:`lay`)."""
    step = {(house.BOTTOM, True): (0, 1), (house.BOTTOM, False): (1, 0),
            (house.TOP, True): (0, -1), (house.TOP, False): (-1, 0)}[(seat, across)]
    colours = colours or {}
    out = {}
    for i, ch in enumerate(word):
        sq = (start[0] + i * step[0], start[1] + i * step[1])
        out[sq] = Tile(ch, rotation=house.ROTATION[seat], set=colours.get(i, colour))
    return out


def lay(board: Board, tiles: dict[Coord, Tile]) -> Board:
    """``board`` with the word's new tiles; a square already holding the word's letter keeps its
    tile (the word runs through it), any other clash is the script's mistake."""
    new = {}
    for sq, t in tiles.items():
        held = board[sq]
        if held is None:
            new[sq] = t
        elif held.letter != t.letter:
            raise ValueError(f"{sq} holds {held.letter}, the word needs {t.letter}")
    return board.with_tiles(new.items())


def follow_preview(board: Board, preview: dict[str, Any]) -> Board:
    """What the players do from the page's preview: turn the squares shown to the mover, then
    take off the squares shown."""
    seat = house.seat(preview["mover"])
    turned = [(tuple(s), board[tuple(s)]) for s in preview["turned"]]
    board = board.with_tiles((s, house.facing(t, seat)) for s, t in turned if t is not None)
    return board.without([tuple(s) for s in preview["removed"]])
