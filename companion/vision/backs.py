"""The colour of a set's backs, from a photo of its tiles face down: ``calibrate --layout backs``.

The user lays the set's tiles face down on squares the calibration names (the middle row) and
nothing else. A back may look like the square under it: a red back on a red premium square, a
cream back on a cream board. Such a square is no mistake of the user's when its colour is the
backs' own (the colour most of the named squares show); it is one only when it shows neither
a back nor a letter but the empty board, in a colour other than the backs'. So the backs'
colour is taken from the squares that do not look empty, and a square that looks empty is
refused only when it does not look like the backs either.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from companion.core.board import Layout
from companion.core.errors import CompanionError
from companion.vision.cells import CELL_PX, MARGIN
from companion.vision.cells.evidence import _TILE_RADIUS
from companion.vision.cells.gather import gather_evidence
from companion.vision.cells.geometry import Geometry, _check
from companion.vision.colour import bgr_to_rgb, colour_distance, to_lab
from companion.vision.profile import Profile

# Lab distance to a square's empty look within which it looks empty: an empty square matches
# its own look to a few units; a back, even of the board's colour, stands a dozen or more away
# (its rim, its shade, its own lightness).
EMPTY_FIT = 0.5 * _TILE_RADIUS


def _names(squares: Sequence[tuple[int, int]]) -> str:
    shown = ", ".join(f"({r}, {c})" for r, c in squares[:4])
    return shown + (f" and {len(squares) - 4} more" if len(squares) > 4 else "")


def learn_backs(
    rectified: np.ndarray,
    squares: Sequence[tuple[int, int]],
    cell_px: int = CELL_PX,
    margin: float = MARGIN,
    layout: Layout | None = None,
    profile: Profile | None = None,
) -> tuple[tuple[int, int, int], tuple[float, float, float]]:
    """The colour of a set's backs from a photo with its tiles face down on ``squares`` (and no
    other tile), as the reader compares backs: under the board's reference light (this photo's
    light divided out); and the same colour as a ratio to the board's plain squares (RGB),
    which no exposure changes. A square that shows a letter, or the empty board in a colour
    unlike the backs', is one CompanionError line saying what to do."""
    from companion.core.board import STANDARD

    layout = layout or STANDARD
    geo = Geometry(layout.rows, layout.cols, cell_px, margin)
    _check(rectified, geo)
    if not squares:
        raise CompanionError("calibrating backs needs at least one tile face down")
    for r, c in squares:
        if not (0 <= r < geo.rows and 0 <= c < geo.cols):
            raise CompanionError(f"square ({r}, {c}) is off the board")
    ev = gather_evidence(rectified, geo, layout, profile)
    lettered = [(r, c) for r, c in squares if ev.glyph_at[r, c] >= 0]
    if len(lettered) > len(squares) // 4:
        # (A back's grain or a speck can pass for a letter on a square or two; more is a face up.)
        raise CompanionError(f"square {_names(lettered)} shows a letter: lay the tiles face down")
    colours = np.array([ev.stats.median[r, c] / ev.light[r, c] for r, c in squares], np.float32)
    d_empty = np.array([ev.d_empty[r, c] for r, c in squares], np.float32)
    empty_like = np.isfinite(d_empty) & (d_empty < EMPTY_FIT)
    if empty_like.sum() * 2 > len(squares):
        empty = [sq for sq, e in zip(squares, empty_like) if e]
        raise CompanionError(
            f"square {_names(empty)} looks empty: lay a tile face down on it"
            if len(empty) == 1
            else f"squares {_names(empty)} look empty: lay the set's tiles face down on them "
            "(if they lie there, these backs look like the board: read without calibrating them)"
        )
    seen = np.median(colours[~empty_like], axis=0)
    # Like the backs: within a tile body's radius of a square that does not look empty (the
    # nearest in colour: the light still varies a little along the row).
    lab = to_lab(colours)
    apart = colour_distance(lab[:, None], lab[None, ~empty_like]).min(1)
    missing = [sq for sq, e, d in zip(squares, empty_like, apart) if e and d >= _TILE_RADIUS]
    if missing:
        raise CompanionError(
            f"square {_names(missing)} looks empty: lay a tile face down on it"
            if len(missing) == 1
            else f"squares {_names(missing)} look empty: lay a tile face down on each"
        )
    plain = ev.extra.get("plain_look")
    if plain is None:
        raise CompanionError("the board's plain squares are not seen: calibrate backs on the board")
    ratio = seen / np.maximum(plain, 1.0)
    return bgr_to_rgb(seen), (float(ratio[2]), float(ratio[1]), float(ratio[0]))


def backs_like_faces(profile: Profile | None) -> tuple[frozenset[str], frozenset[str]]:
    """The sets whose backs wear another set's face colour (within a tile body's reach,
    :data:`~companion.vision.cells.evidence._TILE_RADIUS`), and the sets whose faces those are:
    white tiles with red backs beside red tiles. A plain square of that colour, no ink on it, is
    a back of the one or a blank of the other, and nothing in a photo tells which: the table
    asks (reader.py)."""
    if profile is None or "set_backs" not in profile.arrays:
        return frozenset(), frozenset()
    backs = np.asarray(profile.arrays["set_backs"], np.float32)
    twins: list[tuple[str, str]] = []
    for j, back in enumerate(backs[: len(profile.sets)]):
        if not np.isfinite(back).all():
            continue
        for k, face in enumerate(profile.sets):
            near = colour_distance(to_lab(back[::-1].copy()), to_lab(np.asarray(face.rgb[::-1], np.float32)))
            if k != j and float(near) < _TILE_RADIUS:
                twins.append((profile.sets[j].name, face.name))
    return frozenset(b for b, _ in twins), frozenset(f for _, f in twins)
