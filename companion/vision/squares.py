"""Squares cut from a rectified board for the learned reader (:mod:`companion.vision.model`):
each square with a rim of its neighbours, at a fixed size.

One function for training (scripts/make_squares.py cuts the renders) and reading, so that the
model sees at run time exactly what it learned from. The rim (a sixth of a square each side)
holds what a square alone does not: a tile set off its square, a tile's thickness seen from a
phone, the neighbour's colour a face-down tile is told apart from.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.core.tiles import get_tileset, tileset_names

SIZE = 32  # pixels of a cut square's side, the model's input
RIM = 1.0 / 6.0  # neighbours kept around the square, in squares


def letter_classes() -> tuple[str, ...]:
    """Every letter any tile set prints, then ``?`` (a face-up blank): the letter head's classes."""
    letters: set[str] = set()
    for name in tileset_names():
        letters |= set(get_tileset(name).alphabet)
    return tuple(sorted(letters)) + ("?",)


def cut(
    rectified: np.ndarray, rows: int, cols: int, cell_px: int, margin: float,
    shift: np.ndarray | None = None, scale: np.ndarray | None = None,
) -> np.ndarray:
    """(rows*cols, SIZE, SIZE, 3) uint8 BGR, row-major. ``shift`` (N, 2) in squares and
    ``scale`` (N,) move and size each cut (training's jitter: a grid found a little off)."""
    n = rows * cols
    out = np.empty((n, SIZE, SIZE, 3), np.uint8)
    k = SIZE / ((1 + 2 * RIM) * cell_px)
    # Shrink the whole board once (area-averaged: no aliasing), then cut each square from it.
    small = cv2.resize(rectified, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    if shift is None and scale is None:
        # Where every cut starts on a whole pixel of the shrunk board and lies within it (the
        # reader's own squares: 48 pixels a square shrunk by a half), the warp below only
        # copies pixels: sliced instead, the same bytes in a fifth of the time.
        # (A cut's first pixel: its middle, as below, less half the cut.)
        ys = ((margin + np.arange(rows) + 0.5) * cell_px) * k - 0.5 - (SIZE / 2 - 0.5)
        xs = ((margin + np.arange(cols) + 0.5) * cell_px) * k - 0.5 - (SIZE / 2 - 0.5)
        y0, x0 = np.round(ys).astype(int), np.round(xs).astype(int)
        whole = np.abs(ys - y0).max() < 1e-6 and np.abs(xs - x0).max() < 1e-6
        if whole and min(y0.min(), x0.min()) >= 0 and y0.max() + SIZE <= small.shape[0] and x0.max() + SIZE <= small.shape[1]:
            for i in range(n):
                r, c = divmod(i, cols)
                out[i] = small[y0[r] : y0[r] + SIZE, x0[c] : x0[c] + SIZE]
            return out
    for i in range(n):
        r, c = divmod(i, cols)
        cx = ((margin + c + 0.5) * cell_px) * k - 0.5
        cy = ((margin + r + 0.5) * cell_px) * k - 0.5
        s = 1.0
        if shift is not None:
            cx += shift[i, 0] * cell_px * k
            cy += shift[i, 1] * cell_px * k
        if scale is not None:
            s = float(scale[i])
        # Output pixel u <- small's pixel cx + (u - SIZE/2 + 0.5) / s: an affine warp.
        m = np.array([[s, 0.0, SIZE / 2 - 0.5 - s * cx], [0.0, s, SIZE / 2 - 0.5 - s * cy]], np.float64)
        out[i] = cv2.warpAffine(small, m, (SIZE, SIZE), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out
