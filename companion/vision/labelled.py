"""A profile learned from labelled photos of one table: what a user's calibration would give,
made from photos whose truth is known (for the benchmark, and for a table that keeps its
photos and the games played on them).

:func:`profile_from_labelled` takes photos with their truth and photos of the empty board,
finds the grid in each (as ``companion read`` does), and keeps: the empty board's look
(:func:`companion.vision.cells.learn_empty`, from the first empty photo) and the user's
letters: up to ``per_letter`` normalised pictures of each letter's tiles, chosen evenly over
the photos, each with a couple of small variations (as ``calibrate --layout alphabet`` keeps
them; see :mod:`companion.vision.alphabet`). The notes say which photos were used.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from companion.core.board import Layout
from companion.core.tiles import BLANK, TileSet
from companion.core.errors import CompanionError
from companion.vision.alphabet import samples_to_arrays, variations
from companion.vision.cells import CELL_PX, MARGIN, learn_empty, read_board_cells
from companion.vision.grid import locate_grid, rectify
from companion.vision.profile import Profile
from companion.vision.reading import CellReading

Labelled = tuple[str, np.ndarray, Sequence[CellReading]]  # (name, BGR image, truth cells)


def profile_from_labelled(
    labelled: Sequence[Labelled],
    empties: Sequence[tuple[str, np.ndarray]],
    tileset: TileSet,
    layout: Layout,
    per_letter: int = 8,
    extra_variations: int = 1,
) -> Profile:
    """A profile from labelled photos and empty-board photos (module doc)."""
    arrays: dict[str, np.ndarray] = {}
    if empties:
        name, image = empties[0]
        top = rectify(image, locate_grid(image, layout.rows, layout.cols), CELL_PX, MARGIN)
        arrays.update(learn_empty(top, CELL_PX, MARGIN, layout))
    by_letter: dict[str, list[np.ndarray]] = {}
    for name, image, truth in labelled:
        top = rectify(image, locate_grid(image, layout.rows, layout.cols), CELL_PX, MARGIN)
        found = read_board_cells(top, CELL_PX, MARGIN, layout, tileset)
        for t in truth:
            if t.kind != "tile" or t.letter in (None, BLANK):
                continue
            ink = found.inks.get((t.row, t.col))
            if ink is None or ink.glyph is None:
                continue
            turns = (t.rotation or 0) // 90
            # Upright: undo the tile's turn (np.rot90 turns counter-clockwise).
            by_letter.setdefault(t.letter, []).append(np.rot90(ink.glyph, k=turns).copy())
    if not by_letter and not arrays:
        raise CompanionError("no labelled tile and no empty board could be read")
    pictures: list[np.ndarray] = []
    labels: list[str] = []
    for n, letter in enumerate(sorted(by_letter)):
        seen = by_letter[letter]
        pick = np.linspace(0, len(seen) - 1, min(per_letter, len(seen))).round().astype(int)
        for j, i in enumerate(pick):
            for v in variations(seen[i], seed=1000 * n + j, count=extra_variations):
                pictures.append(v)
                labels.append(letter)
    if pictures:
        arrays.update(samples_to_arrays(pictures, labels))
    notes = {
        "from": "labelled photos",
        "labelled": [name for name, _, _ in labelled],
        "empty": [name for name, _ in empties[:1]],
        "letters": {k: len(v) for k, v in sorted(by_letter.items())},
    }
    return Profile(tileset=tileset.name, grid=layout.rows, notes=notes).with_arrays(**arrays)
