"""Stage 6 of reading the squares: doubt where something is over the board.

Takes the evidence, each square's kind and the fraction of each square nothing explains (from
:func:`companion.vision.cells.tokens.find_tokens`); gives each square's ceiling on belief
(:func:`clear_of_doubt`): a square part of which nothing explains (not print, ink or token), or
whose grid lines are gone (:func:`lost_lines`: something above the board, whatever its colour),
and the squares around it, lose belief. A hand must never be read with confidence."""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.cells.evidence import Evidence
from companion.vision.colour import luminance
from companion.vision.medians import median


_ODD_ALLOWED = 0.04  # fraction of a square left unexplained by print, ink and tokens that is noise
_ODD_SPAN = 0.08  # ... beyond which belief in the square falls to nothing


def clear_of_doubt(ev: Evidence, kind_idx: np.ndarray, odd: np.ndarray) -> np.ndarray:
    """(R, C) the most belief each square's reading may have (0..1), from ``odd`` (the fraction
    of each square nothing explains, :func:`companion.vision.cells.tokens.find_tokens`) and the
    grid lines gone (:func:`lost_lines`); ``ev.extra["covered"]``: the squares whose lines are
    gone."""
    # Belief falls as more of a square is something unexplained (a finger, a sleeve), and
    # where the grid's lines are gone (something over the board, whatever its colour); a
    # hand is large: the squares within two of such a square are in doubt too.
    clear = np.clip(1.0 - (odd - _ODD_ALLOWED) / _ODD_SPAN, 0.0, 1.0)
    covered = lost_lines(ev, kind_idx) >= 2
    near = cv2.dilate(covered.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    clear = np.where(covered, np.minimum(clear, 0.2), np.where(near, np.minimum(clear, 0.45), clear))
    ev.extra["covered"] = covered
    return clear


def lost_lines(ev: Evidence, kind_idx: np.ndarray) -> np.ndarray:
    """(R, C) number of an empty square's sides whose grid line is gone (0..4), sides next to
    a tile (which overhangs the line) not counted. A hand, an arm or anything held above the
    board hides the lines under it whatever its colour, where colour alone may match."""
    small, sg = ev.extra["small"], ev.extra["small_geo"]
    R, C, p = sg.rows, sg.cols, sg.cell_px
    o = int(round(sg.origin))
    g = ev.extra["lum_small"] if "lum_small" in ev.extra else luminance(small)
    m = max(2, p // 8)  # a side's ends are left out: corners where lines cross
    # Contrast across each border: the range of lightness over a band of 5 pixels on it, the
    # median along each side (all borders at once).
    band = np.arange(-2, 3)
    ys = np.clip(o + np.arange(R + 1)[:, None] * p + band, 0, g.shape[0] - 1)  # (R + 1, 5)
    across = g[ys, o : o + C * p]  # (R + 1, 5, C p)
    rng_h = (across.max(axis=1) - across.min(axis=1)).reshape(R + 1, C, p)[:, :, m:-m]
    horiz = median(rng_h, axis=2).astype(np.float32)  # border above row r (r = R: below the last)
    xs = np.clip(o + np.arange(C + 1)[:, None] * p + band, 0, g.shape[1] - 1)  # (C + 1, 5)
    across_v = g[o : o + R * p][:, xs]  # (R p, C + 1, 5)
    rng_v = (across_v.max(axis=2) - across_v.min(axis=2)).reshape(R, p, C + 1)[:, m:-m, :]
    vert = median(rng_v, axis=1).astype(np.float32)
    empty = kind_idx == 0
    # The board's own line contrast: sides between two empty squares, typically.
    both_h = np.zeros((R + 1, C), bool)
    both_h[1:R] = empty[:-1] & empty[1:]
    both_v = np.zeros((R, C + 1), bool)
    both_v[:, 1:C] = empty[:, :-1] & empty[:, 1:]
    pool = np.concatenate([horiz[both_h], vert[both_v]])
    if len(pool) < 10:
        return np.zeros((R, C), np.int64)
    typical = float(median(pool))
    if typical < 6.0:
        return np.zeros((R, C), np.int64)  # a board without visible lines tells nothing
    gone_h = horiz < 0.35 * typical
    gone_v = vert < 0.35 * typical
    held = ~empty
    pad = np.pad(held, 1)
    # A side counts only when the square across it is empty too (a tile there covers it).
    top = gone_h[:-1] & ~pad[:-2, 1:-1]
    bottom = gone_h[1:] & ~pad[2:, 1:-1]
    left = gone_v[:, :-1] & ~pad[1:-1, :-2]
    right = gone_v[:, 1:] & ~pad[1:-1, 2:]
    return np.where(empty, top.astype(np.int64) + bottom + left + right, 0)
