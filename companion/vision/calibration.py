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
from companion.core.tiles import BLANK, get_tileset
from companion.vision.backs import learn_backs
from companion.vision.alphabet import alphabet_order, learn_faces
from companion.vision.cells import CELL_PX, MARGIN, learn_empty, read_cells
from companion.vision.grid import GridLocation, locate_grid, rectify
from companion.vision.profile import Profile, TileSetColour
from companion.vision import prototypes

LETTER_ARRAYS = ("letter_glyphs", "letter_codes")


def _locate(image: np.ndarray, base: Profile, grid: int) -> GridLocation:
    from companion.vision.reader import profile_hint

    return locate_grid(image, grid, grid, hint=profile_hint(base, image, grid))


def calibrate_empty(
    image: np.ndarray, base: Profile, source: str, *, tileset: str | None = None, grid: int | None = None
) -> Profile:
    grid = grid or base.grid
    location = _locate(image, base, grid)
    top_down = rectify(image, location, CELL_PX, MARGIN)
    layout = layout_for_grid(grid)
    arrays = learn_empty(top_down, CELL_PX, MARGIN, layout)
    protos = _prototypes(base, top_down, grid, prototypes.empty_known(layout), "empty", quarter_turns=False)
    return prototypes.stamped(replace(
        base,
        tileset=tileset or base.tileset,
        grid=grid,
        corners=tuple((float(x), float(y)) for x, y in location.corners),
        image_size=(int(image.shape[1]), int(image.shape[0])),
        notes={**base.notes, "empty": source, "grid_score": round(float(location.score), 3)},
    ).with_arrays(**arrays), protos)


def calibrate_alphabet(
    image: np.ndarray,
    base: Profile,
    source: str,
    set_name: str,
    *,
    tileset: str | None = None,
    grid: int | None = None,
) -> tuple[Profile, tuple[int, int, int] | None]:
    """The profile with this set's letters and colour; returns the colour learned too. None:
    the colour was not kept, since with it the reader would take empty squares of this very
    photo for the set's tiles (the profile's notes say where); the letters are kept."""
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
    sets, backs = _with_set(base, TileSetColour(set_name, rgb))
    profile = replace(
        base, tileset=tiles.name, grid=grid, sets=sets, notes={**base.notes, f"alphabet:{set_name}": source}
    ).with_arrays(**new, **backs, letter_sets=new_sets.astype(str))
    known = [prototypes.Known(*divmod(i, grid), "tile", ch, turns=ch != BLANK, set=set_name)
             for i, ch in enumerate(alphabet_order(tiles))]
    profile = prototypes.stamped(profile, _prototypes(base, top_down, grid, known, "tile", set_name))
    held = {divmod(i, grid) for i in range(len(alphabet_order(tiles)))}
    misread = newly_held(top_down, grid, _without_set(base, set_name), profile, held)
    if misread:
        # The faces' colour is the board's own somewhere (a premium square's): with it the
        # reader would take those empty squares for this set's tiles. The letters are kept;
        # the set stays without a colour, its tiles read as of no set named, as without a
        # profile (never as empty).
        where = ", ".join(f"({r}, {c})" for r, c in misread[:4])
        note = (f"{source}: letters learned; colour {rgb} not kept, the reader would take the board's own "
                f"squares of that colour for its tiles at {where}")
        notes = {**profile.notes, f"alphabet:{set_name}": note}
        return replace(_without_set(profile, set_name), notes=notes), None
    return profile, rgb


def _with_set(profile: Profile, colour: TileSetColour) -> tuple[tuple[TileSetColour, ...], dict[str, np.ndarray]]:
    """The sets with this one's colour, and the backs' rows that follow the sets' order: a set
    calibrated again keeps its place (and its backs' row); a new one comes last, its backs not
    yet known (NaN), so that the other sets' backs stay theirs."""
    names = [s.name for s in profile.sets]
    if colour.name in names:
        return tuple(colour if s.name == colour.name else s for s in profile.sets), {}
    backs = {k: np.vstack([profile.arrays[k], np.full((1, 3), np.nan, np.float32)]).astype(np.float32)
             for k in ("set_backs", "set_backs_rel") if k in profile.arrays and len(profile.arrays[k]) == len(names)}
    return profile.sets + (colour,), backs


def _prototypes(base: Profile, top_down: np.ndarray, grid: int, known: list[prototypes.Known], kind: str,
                set_name: str = "", quarter_turns: bool = True) -> dict[str, np.ndarray]:
    """The profile's prototypes with this step's (:mod:`companion.vision.prototypes`); those of
    another network than this one are dropped."""
    new = prototypes.learn(top_down, grid, grid, CELL_PX, MARGIN, known, quarter_turns)
    return prototypes.merged(base.arrays if prototypes.usable(base) else {}, new, kind, set_name)


def _without_set(profile: Profile, name: str) -> Profile:
    """The profile without the set's colour (and its backs' row, which follow the sets' order)."""
    if name not in [s.name for s in profile.sets]:
        return profile
    keep = [s.name != name for s in profile.sets]
    rows = {k: profile.arrays[k][keep] for k in ("set_backs", "set_backs_rel")
            if k in profile.arrays and len(profile.arrays[k]) == len(keep)}
    return replace(profile, sets=tuple(s for s in profile.sets if s.name != name)).with_arrays(**rows)


def calibrate_backs(
    image: np.ndarray,
    base: Profile,
    source: str,
    set_name: str,
    squares: list[tuple[int, int]],
    *,
    grid: int | None = None,
) -> tuple[Profile, tuple[int, int, int] | None]:
    """The profile with the colour of this set's backs, from a photo with its tiles face down on
    ``squares`` and no other tile (its faces calibrated first: the reader carries backs
    to another light as the faces are carried); returns the colour learned. None: the colour
    was not kept, since with it the reader would take empty squares of this very photo for
    backs (the profile's notes say where)."""
    from companion.core.errors import CompanionError

    names = [s.name for s in base.sets]
    if set_name not in names:
        if "letter_sets" in base.arrays and set_name in set(base.arrays["letter_sets"].tolist()):
            note = f"{source}: not learned, the set's face colour was not kept (see alphabet:{set_name})"
            return replace(base, notes={**base.notes, f"backs:{set_name}": note}), None
        raise CompanionError(f"set {set_name!r} has no face colour yet: calibrate its alphabet first")
    grid = grid or base.grid
    location = _locate(image, base, grid)
    top_down = rectify(image, location, CELL_PX, MARGIN)
    rgb, ratio = learn_backs(top_down, squares, CELL_PX, MARGIN, layout_for_grid(grid), base)
    # The backs as the network sees them: kept even where their colour is not (below), since
    # prototypes only choose among what the unprofiled evidence allows.
    protos = _prototypes(base, top_down, grid, [prototypes.Known(r, c, "back", set=set_name) for r, c in squares],
                         "back", set_name)
    arrays = {}
    for key, value in (("set_backs", rgb), ("set_backs_rel", ratio)):
        rows = np.full((len(names), 3), np.nan, np.float32)
        old = base.arrays.get(key)
        if old is not None and len(old) == len(names):
            rows[:] = old
        rows[names.index(set_name)] = value
        arrays[key] = rows
    profile = replace(base, notes={**base.notes, f"backs:{set_name}": source}).with_arrays(**arrays)
    misread = newly_held(top_down, grid, base, profile, set(squares))
    if misread:
        # The backs' colour is the board's own somewhere (a premium square's): with it the
        # reader would take those empty squares for backs. Reading is never to be made worse
        # by a profile: the set's backs stay unknown, read as without this step.
        where = ", ".join(f"({r}, {c})" for r, c in misread[:4])
        note = (f"{source}: not learned, the reader would take the board's own squares of their colour {rgb} "
                f"for backs at {where}")
        return prototypes.stamped(replace(base, notes={**base.notes, f"backs:{set_name}": note}), protos), None
    return prototypes.stamped(profile, protos), rgb


def newly_held(
    top_down: np.ndarray, grid: int, base: Profile, profile: Profile, held: set[tuple[int, int]]
) -> list[tuple[int, int]]:
    """The squares of a calibration photo that show the empty board (all but ``held``) which
    ``profile`` reads as holding something where ``base`` reads them empty: what a profile
    step would make worse."""
    layout, tiles = layout_for_grid(grid), get_tileset(profile.tileset)
    before = read_cells(top_down, CELL_PX, MARGIN, layout, tiles, base)
    after = read_cells(top_down, CELL_PX, MARGIN, layout, tiles, profile)
    return [
        (a.row, a.col) for a, b in zip(after, before)
        if (a.row, a.col) not in held and a.kind != "empty" and b.kind == "empty"
    ]
