"""Making a profile from calibration photos (the contract's ``companion calibrate``).

- :func:`calibrate_empty`: the empty board in place fixes a mounted camera's grid and how each
  empty square looks under this light.
- :func:`calibrate_alphabet`: every letter of the tile set once, face up and upright, in the
  set's alphabetical order from the top-left square, then one blank: the look of the user's
  tiles and the colour of their set. Each set's letters are kept apart (``letter_sets``), so a
  table with two colours of tiles calibrates each in turn, and calibrating a set again
  replaces only that set's letters.
- :func:`calibrate_backs`: a set's tiles face down on squares the user names: the colour of
  its backs (``set_backs``, a row per set in ``sets``' order; NaN for a set not calibrated;
  ``set_backs_rel``, the same as a ratio to the board's plain squares),
  which is how the reader tells a face-down tile (the dungeon's walls and monsters) from an
  empty square.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from companion.core.board import layout_for_grid
from companion.core.tiles import get_tileset
from companion.vision.backs import learn_backs
from companion.vision.alphabet import learn_faces
from companion.vision.cells import CELL_PX, MARGIN, learn_empty
from companion.vision.grid import GridLocation, locate_grid, rectify
from companion.vision.profile import Profile, TileSetColour

LETTER_ARRAYS = ("letter_glyphs", "letter_codes")


def _locate(image: np.ndarray, base: Profile, grid: int) -> GridLocation:
    from companion.vision.reader import profile_hint

    return locate_grid(image, grid, grid, hint=profile_hint(base, image, grid))


def calibrate_empty(
    image: np.ndarray, base: Profile, source: str, *, tileset: str | None = None, grid: int | None = None
) -> Profile:
    grid = grid or base.grid
    location = _locate(image, base, grid)
    arrays = learn_empty(rectify(image, location, CELL_PX, MARGIN), CELL_PX, MARGIN, layout_for_grid(grid))
    return replace(
        base,
        tileset=tileset or base.tileset,
        grid=grid,
        corners=tuple((float(x), float(y)) for x, y in location.corners),
        image_size=(int(image.shape[1]), int(image.shape[0])),
        notes={**base.notes, "empty": source, "grid_score": round(float(location.score), 3)},
    ).with_arrays(**arrays)


def calibrate_alphabet(
    image: np.ndarray,
    base: Profile,
    source: str,
    set_name: str,
    *,
    tileset: str | None = None,
    grid: int | None = None,
) -> tuple[Profile, tuple[int, int, int]]:
    """The profile with this set's letters and colour; returns the colour learned too."""
    grid = grid or base.grid
    tiles = get_tileset(tileset or base.tileset)
    location = _locate(image, base, grid)
    top_down = rectify(image, location, CELL_PX, MARGIN)
    arrays, rgb = learn_faces(top_down, tiles, layout_for_grid(grid), base)
    new = {k: arrays[k] for k in LETTER_ARRAYS}
    n = len(new["letter_codes"])
    new_sets = np.full(n, set_name)
    if all(k in base.arrays for k in LETTER_ARRAYS) and "letter_sets" in base.arrays:
        keep = base.arrays["letter_sets"] != set_name
        for k in LETTER_ARRAYS:
            new[k] = np.concatenate([base.arrays[k][keep], new[k]])
        new_sets = np.concatenate([base.arrays["letter_sets"][keep], new_sets])
    sets = tuple(s for s in base.sets if s.name != set_name) + (TileSetColour(set_name, rgb),)
    profile = replace(
        base, tileset=tiles.name, grid=grid, sets=sets, notes={**base.notes, f"alphabet:{set_name}": source}
    ).with_arrays(**new, letter_sets=new_sets.astype(str))
    return profile, rgb


def calibrate_backs(
    image: np.ndarray,
    base: Profile,
    source: str,
    set_name: str,
    squares: list[tuple[int, int]],
    *,
    grid: int | None = None,
) -> tuple[Profile, tuple[int, int, int]]:
    """The profile with the colour of this set's backs, from a photo with its tiles face down on
    ``squares`` and no other tile (its faces calibrated first: the reader carries backs
    to another light as the faces are carried); returns the colour learned."""
    from companion.core.errors import CompanionError

    names = [s.name for s in base.sets]
    if set_name not in names:
        raise CompanionError(f"set {set_name!r} has no face colour yet: calibrate its alphabet first")
    grid = grid or base.grid
    location = _locate(image, base, grid)
    top_down = rectify(image, location, CELL_PX, MARGIN)
    rgb, ratio = learn_backs(top_down, squares, CELL_PX, MARGIN, layout_for_grid(grid), base)
    arrays = {}
    for key, value in (("set_backs", rgb), ("set_backs_rel", ratio)):
        rows = np.full((len(names), 3), np.nan, np.float32)
        old = base.arrays.get(key)
        if old is not None and len(old) == len(names):
            rows[:] = old
        rows[names.index(set_name)] = value
        arrays[key] = rows
    profile = replace(base, notes={**base.notes, f"backs:{set_name}": source}).with_arrays(**arrays)
    return profile, rgb
