"""A tile's rim: what a square shows across its sides, against this photo's faces and empties.

A tile is a slab standing above the board. Across each side of its face a camera sees, in
order: the face's bevel (lit or shaded as the light falls), on the sides turned towards the
camera the slab's side wall (darker than the face, and wider the farther the tile lies from
under the camera), the tile's foot and the shadow it casts. An empty square shows only its
grid line there. Which sides show a wall, how wide, and where the shadow falls follow from
the camera and the light, which are this photo's own: so a square's rim is compared with the
rims of this photo's lettered faces near it (same camera angle, same light) and of its print's
empty squares, side by side. The colours do not enter: a pale blank on a square of nearly its
colour still has its rim.

Only sides whose neighbour across is empty are compared, for the square and for every
reference alike: across a held neighbour the square's rim meets the neighbour's own (its bevel,
its wall, its shadow), which an empty square next to a tile shows too.

Profiles run across each side's middle half (clear of the corners, where a neighbour's turned
corner may reach), as grey relative to the square's inside just within the rim, at insets from outside
the square to inside it. A tile lies up to about a tenth of a square off its square's centre,
so profiles are compared with the faces' at the best of a few small shifts; with the empty
squares' only within a pixel (their grid lines lie where the grid was found).
"""

from __future__ import annotations

import cv2
import numpy as np

INSETS = np.arange(-8, 17)  # px from the square's side inwards (negative: outside it)
BAND = (INSETS >= -3) & (INSETS <= 10)  # what is compared: the side's line, the face's rim
INSIDE = (6, 12)  # px from the sides between which a face's body lies, mostly clear of its rim and ink
SHIFT = 3  # px a profile may slide against the faces' (a tile lies off its square's centre)
GRID_SHIFT = 1  # px it may slide against the empty squares' (a grid line lies where the grid is)
_ALONG = 13  # samples along the middle half of a side
ACROSS = ((0, -1), (0, 1), (-1, 0), (1, 0))  # the neighbour across the left, right, top, bottom side


def side_profiles(grey: np.ndarray, cx: np.ndarray, cy: np.ndarray, cell_px: float) -> np.ndarray:
    """(N, 4, len(INSETS)) grey across the left, right, top and bottom side of each square
    centred at (cx, cy) (pixels), averaged along the side's middle half, relative to the
    square's ring just within its sides (the median over the insets ``INSIDE`` of all four)."""
    n = len(cx)
    h = cell_px / 2
    along = np.linspace(-0.25 * cell_px, 0.25 * cell_px, _ALONG, dtype=np.float32)
    xs = np.empty((n, 4, len(INSETS), _ALONG), np.float32)
    ys = np.empty_like(xs)
    ins = INSETS.astype(np.float32)[None, :, None]
    for k, sign in enumerate((-1.0, 1.0, -1.0, 1.0)):
        across = (cx if k < 2 else cy)[:, None, None] + sign * (h - ins)
        other = (cy if k < 2 else cx)[:, None, None] + along[None, None, :]
        a, b = np.broadcast_arrays(across, other)
        xs[:, k], ys[:, k] = (a, b) if k < 2 else (b, a)
    w = len(INSETS) * _ALONG
    v = cv2.remap(grey, xs.reshape(-1, w), ys.reshape(-1, w), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    v = v.reshape(n, 4, len(INSETS), _ALONG)
    # Relative to the square's own ring just within its rim, all four sides at once: a lamp's
    # spot in the middle leaves it alone, and a letter's ink is a small part of it.
    ring = v[:, :, (INSETS >= INSIDE[0]) & (INSETS <= INSIDE[1])].reshape(n, -1)
    return v.mean(-1) / np.maximum(np.median(ring, axis=1), 8.0)[:, None, None]


def _misfit(profiles: np.ndarray, template: np.ndarray, shift: int) -> np.ndarray:
    """(N,) mean squared difference over the band between each profile (N, I) and the
    template (I,), at the best shift of the profile up to ``shift`` px."""
    band = np.nonzero(BAND)[0]
    best = np.full(len(profiles), np.inf, np.float32)
    for s in range(-shift, shift + 1):
        best = np.minimum(best, np.mean((profiles[:, band + s] - template[band]) ** 2, axis=1))
    return best


def side_score(square: np.ndarray, tiles: np.ndarray, empties: np.ndarray) -> float:
    """How much nearer one side's profile (I,) lies to the faces' (T, I) median profile than
    to the empty squares' (E, I), from -1 (an empty square's) to 1 (a face's rim): the
    difference of the two misfits over their sum, so that a side unlike both (a neighbour's
    shadow falling across it, a token near it) says little either way; times how far apart
    the two medians lie against the references' own typical misfit (where faces show no rim
    unlike an empty square's, under the camera, nothing is said)."""
    t, e = np.median(tiles, 0), np.median(empties, 0)
    spread = (float(np.median(_misfit(tiles, t, SHIFT))) + float(np.median(_misfit(empties, e, GRID_SHIFT)))) / 2
    apart = float(_misfit(t[None], e, GRID_SHIFT)[0])
    d_t = float(_misfit(square[None], t, SHIFT)[0])
    d_e = float(_misfit(square[None], e, GRID_SHIFT)[0])
    return (d_e - d_t) / max(d_e + d_t, 1e-6) * apart / (apart + spread + 1e-6)
