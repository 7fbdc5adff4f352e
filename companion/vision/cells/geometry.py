"""The rectified board the square reader works on, and its half-size, exposure-normalised copy.

Takes the rectified board (:func:`companion.vision.grid.rectify` with :data:`CELL_PX` and
:data:`MARGIN`: a margin of half a square around the grid); gives :class:`Geometry` (where each
square lies in it, views of every square's middle), each square's premium class, and
:func:`half_board`: the board at half resolution with its bright end brought to a standard
exposure, where the board-wide statistics are taken."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.core.board import Layout, Premium
from companion.core.errors import CompanionError
from companion.vision.colour import luminance


CELL_PX = 48  # pixels per square of the rectified board: letters ~25 px high, digits ~9
MARGIN = 0.5  # squares kept around the grid: tiles on the edge overhang it


@dataclass(frozen=True)
class Geometry:
    rows: int
    cols: int
    cell_px: int
    margin: float

    @property
    def origin(self) -> float:
        return self.margin * self.cell_px

    def centre(self, r: np.ndarray | int, c: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
        """Pixel centre (x, y) of square(s) (r, c)."""
        o, p = self.origin, self.cell_px
        return o + (np.asarray(c) + 0.5) * p, o + (np.asarray(r) + 0.5) * p

    def blocks(self, img: np.ndarray, lo: float, hi: float) -> np.ndarray:
        """(rows, cols, n, n, ...) views of the part [lo, hi) of every square (fractions)."""
        p = self.cell_px
        o = int(round(self.origin))
        grid = img[o : o + self.rows * p, o : o + self.cols * p]
        g = grid.reshape(self.rows, p, self.cols, p, *img.shape[2:])
        a, b = int(round(lo * p)), int(round(hi * p))
        return np.moveaxis(g[:, a:b, :, a:b], 2, 1)


def _check(rectified: np.ndarray, geo: Geometry) -> None:
    need_y = int(round((geo.rows + 2 * geo.margin) * geo.cell_px))
    need_x = int(round((geo.cols + 2 * geo.margin) * geo.cell_px))
    if rectified.ndim != 3 or rectified.shape[2] != 3 or rectified.shape[0] < need_y or rectified.shape[1] < need_x:
        raise CompanionError(
            f"rectified board of {rectified.shape} does not hold {geo.rows}x{geo.cols} squares of "
            f"{geo.cell_px} px with a margin of {geo.margin}"
        )


def premium_classes(layout: Layout) -> np.ndarray:
    """(rows, cols) class of each square's print: its premium, the centre square its own."""
    order = list(Premium)
    cls = np.array([[order.index(p) for p in row] for row in layout.premiums], np.int64)
    cls[layout.centre] = len(order)
    return cls


_EXPOSURE = 220.0  # the luminance the brightest part of a board is brought to


def _half(geo: Geometry) -> Geometry:
    return Geometry(geo.rows, geo.cols, geo.cell_px // 2, geo.margin)


def exposure(bgr: np.ndarray, geo: Geometry) -> float:
    """The factor that brings the grid's bright end (99th percentile of luminance; the
    margin left out, where a board's frame may be white) to a standard level: an under- or
    over-exposed photo compares like a good one."""
    o = int(round(geo.origin))
    grid = bgr[o : o + geo.rows * geo.cell_px : 2, o : o + geo.cols * geo.cell_px : 2]
    lum = luminance(grid.astype(np.float32))
    return float(np.clip(_EXPOSURE / max(float(np.percentile(lum, 99)), 1.0), 0.5, 6.0))


def half_board(rectified: np.ndarray, geo: Geometry) -> tuple[np.ndarray, Geometry, float]:
    """The board at half resolution, float BGR, exposure-normalised (and the factor): where
    the board-wide statistics are taken (no fine detail needed, a quarter of the work)."""
    small_geo = _half(geo)
    h = int(round((geo.rows + 2 * geo.margin) * small_geo.cell_px))
    w = int(round((geo.cols + 2 * geo.margin) * small_geo.cell_px))
    small = cv2.resize(rectified, (rectified.shape[1] // 2, rectified.shape[0] // 2), interpolation=cv2.INTER_AREA)
    small = small[:h, :w].astype(np.float32)
    gain = exposure(small, small_geo)
    small *= gain
    np.minimum(small, 255.0, out=small)
    return small, small_geo, gain


def _stretch_levels(grey: np.ndarray) -> tuple[float, float]:
    """The grey levels :func:`_stretch` takes to 0 and 255."""
    lo, hi = np.percentile(grey[::2, ::2], (1, 99.5))
    return lo, hi


def _stretch(grey: np.ndarray, levels: tuple[float, float] | None = None) -> np.ndarray:
    lo, hi = _stretch_levels(grey) if levels is None else levels
    return np.clip((grey - lo) * (255.0 / max(hi - lo, 1.0)), 0, 255).astype(np.uint8)


def _stretch_like(fine: np.ndarray, coarse: np.ndarray, gain: float, levels: tuple[float, float] | None = None) -> np.ndarray:
    """``fine`` (the full-resolution grey board) stretched as :func:`_stretch` stretches
    ``coarse`` (its half, exposure-normalised luminance): the same levels at both scales
    (``levels``: :func:`_stretch_levels` of ``coarse`` when worked out already)."""
    lo, hi = _stretch_levels(coarse) if levels is None else levels
    # ``fine`` holds bytes: one look-up table does the stretch.
    levels = np.arange(256, dtype=np.float32) * gain
    table = np.clip((levels - lo) * (255.0 / max(hi - lo, 1.0)), 0, 255).astype(np.uint8)
    return cv2.LUT(fine, table)
