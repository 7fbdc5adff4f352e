"""Stage 2 of reading the squares: each square's colour statistics and the fields over the board.

Takes the half board; gives :class:`SquareStats` (each square middle's median, its lighter and
darker halves: a face's body and ink, whichever is which, and their spreads), the dense colour
clusters a board's tile bodies form (:func:`_modes`), the light as a smooth or local field over
the squares (:func:`smooth_field`, :func:`local_field`), how far a colour is from a look under
one shade (:func:`_shade_apart_each`), where a square's picture is unlike its premium class's
(:func:`unlike_class`), and the affine map that carries a profile's empty looks into this
photo's colours (:func:`_map_colours`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from companion.vision.cells.geometry import Geometry
from companion.vision.colour import colour_distance, luminance, to_lab
from companion.vision.medians import median
from companion.vision.sets import in_other_light


@dataclass(frozen=True)
class SquareStats:
    """Colour statistics (BGR, 0..255) of each square's middle, the part a displaced tile
    still covers.

    ``median``: per-channel median. ``light``/``dark``: mean colour of the pixels above/below
    the square's median luminance (a tile's body and ink, whichever is which).
    ``light_spread``/``dark_spread``: luminance standard deviation within each half about the
    plane that fits it best (a body is uniform; the light on it may fall off across the face,
    a lamp's glare or a shadow's edge, which is no unevenness of the body).
    """

    median: np.ndarray
    light: np.ndarray
    dark: np.ndarray
    light_spread: np.ndarray
    dark_spread: np.ndarray

    def body(self, polarity: np.ndarray | int) -> np.ndarray:
        pol = np.asarray(polarity)
        return np.where((pol >= 0)[..., None], self.light, self.dark)

    def body_spread(self, polarity: np.ndarray | int) -> np.ndarray:
        return np.where(np.asarray(polarity) >= 0, self.light_spread, self.dark_spread)


def square_stats(bgr: np.ndarray, geo: Geometry, lum: np.ndarray | None = None) -> SquareStats:
    """``lum``: the luminance of ``bgr`` when worked out already (the same values)."""
    b = geo.blocks(bgr, 0.22, 0.78)
    r, c, n, _, _ = b.shape
    flat = np.ascontiguousarray(b).reshape(r, c, n * n, 3).astype(np.float32)
    # (Each channel's values laid contiguous first: sorting along a strided axis is three
    # times slower than the copy and the sort together.)
    med = median(np.ascontiguousarray(flat.transpose(0, 1, 3, 2)))
    lum = luminance(flat) if lum is None else geo.blocks(lum, 0.22, 0.78).reshape(r, c, n * n)
    upper = lum >= median(lum)[..., None]
    lower = ~upper
    cu = np.maximum(upper.sum(2), 1)[..., None]
    cl = np.maximum(lower.sum(2), 1)[..., None]
    light = (flat * upper[..., None]).sum(2) / cu
    dark = (flat * lower[..., None]).sum(2) / cl
    return SquareStats(med, light, dark, _spread_about_plane(lum, upper, n), _spread_about_plane(lum, lower, n))


def _spread_about_plane(lum: np.ndarray, mask: np.ndarray, n: int) -> np.ndarray:
    """The standard deviation of ``lum`` (rows, cols, n * n) over ``mask`` about the plane in
    the square's x and y fitted to it there by least squares."""
    shape = lum.shape[:2]
    basis = _plane_basis(n)  # (n * n, 3): 1, x, y
    # (In double precision: the residual is a small difference of large sums.)
    w = mask.reshape(-1, n * n).astype(np.float64)
    lum = lum.reshape(-1, n * n).astype(np.float64)
    wl = w * lum
    # Normal equations per square, (B' W B) a = B' W l, from the weighted moments of 1, x, y;
    # at their solution the squared residual is l' W l - a' B' W l.
    i, j = np.triu_indices(3)
    moments = w @ (basis[:, i] * basis[:, j])  # (squares, 6)
    normal = np.empty((len(w), 3, 3))
    normal[:, i, j] = moments
    normal[:, j, i] = moments
    normal += np.eye(3) * 1e-8  # (a half with no pixels; small against the residual)
    rhs = wl @ basis
    coef = np.linalg.solve(normal, rhs[..., None])[..., 0]
    resid = (wl * lum).sum(1) - (coef * rhs).sum(1)
    return np.sqrt(np.maximum(resid, 0.0) / np.maximum(w.sum(1), 1.0)).astype(np.float32).reshape(shape)


@lru_cache(maxsize=4)
def _plane_basis(n: int) -> np.ndarray:
    yy, xx = np.mgrid[0:n, 0:n].reshape(2, -1).astype(np.float32) / max(n - 1, 1) - 0.5
    return np.stack([np.ones_like(xx), xx, yy], axis=1).astype(np.float64)


def _chroma_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Like :func:`colour_distance` with lightness weighed a quarter: for grouping colours
    before the light over the board is known (a shaded tile is darker, not another hue)."""
    d = np.asarray(a, np.float32) - np.asarray(b, np.float32)
    return np.sqrt(0.0625 * d[..., 0] ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)


def _modes(colours: np.ndarray, radius: float, max_modes: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Dense clusters of Lab colours (by :func:`_chroma_distance`): (centre, member mask),
    largest first."""
    colour_distance = _chroma_distance
    left = np.ones(len(colours), bool)
    out = []
    for _ in range(max_modes):
        if not left.any():
            break
        pts = colours[left]
        d = colour_distance(pts[:, None], pts[None])
        density = (d < radius).sum(1)
        centre = pts[int(density.argmax())]
        for _ in range(3):
            members = left & (colour_distance(colours, centre) < radius)
            centre = median(colours[members], axis=0)
        members = left & (colour_distance(colours, centre) < radius)
        if not members.any():
            break
        out.append((centre, members))
        left &= ~members
    return out


def smooth_field(
    rows: np.ndarray, cols: np.ndarray, values: np.ndarray, shape: tuple[int, int], quadratic: bool = True
) -> np.ndarray:
    """A quadratic (or plane) surface over the board fitted to values at squares, robustly
    (refitted without the values it explains worst); the median when there are too few."""
    out = np.zeros(shape, np.float32)
    if len(values) < 12:
        if len(values):
            out[:] = float(np.median(values))
        return out
    R, C = shape

    def design(r: np.ndarray, c: np.ndarray) -> np.ndarray:
        u, v = (c + 0.5) / C - 0.5, (r + 0.5) / R - 0.5
        terms = [np.ones_like(u), u, v] + ([u * u, v * v, u * v] if quadratic else [])
        return np.stack(terms, axis=-1)

    a = design(rows.astype(np.float64), cols.astype(np.float64))
    keep = np.ones(len(values), bool)
    coef = np.zeros(a.shape[1])
    for _ in range(2):
        coef, *_ = np.linalg.lstsq(a[keep], values[keep], rcond=None)
        res = np.abs(a @ coef - values)
        keep = res <= np.percentile(res, 75) * 2.0 + 1e-6
    rr, cc = np.mgrid[0:R, 0:C]
    return (design(rr.astype(np.float64), cc.astype(np.float64)) @ coef).astype(np.float32)


def _nan_median(views: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Median over axis 0 ignoring NaN, and the count of values (NaN where none)."""
    count = np.isfinite(views).sum(0)
    srt = np.sort(np.where(np.isfinite(views), views, np.inf), axis=0)
    lo = np.clip((count - 1) // 2, 0, None)
    hi = np.clip(count // 2, 0, None)
    a = np.take_along_axis(srt, lo[None], 0)[0]
    b = np.take_along_axis(srt, hi[None], 0)[0]
    med = np.where(count > 0, 0.5 * (a + b), np.nan)
    return med, count


_SHADE_GAINS = (0.4, 2.5)  # gains of the light a square's colour is carried by to its look, at most


def _shade_apart_each(seen: np.ndarray, look: np.ndarray) -> np.ndarray:
    """(R, C) Lab distance from each square's colour ``seen`` (R, C, 3 BGR) to ``look`` once
    one gain on every channel (within :data:`_SHADE_GAINS`) brings it to the look's
    luminance, clipped as the camera clips; inf where the gain lies beyond."""
    carried, gain = in_other_light(seen, look)
    d = colour_distance(to_lab(carried), to_lab(look.astype(np.float32)))
    return np.where((gain >= _SHADE_GAINS[0]) & (gain <= _SHADE_GAINS[1]), d, np.inf)


def local_field(samples: np.ndarray, radius: int = 2, least: int = 3) -> np.ndarray:
    """(R, C, K) values known at some squares (NaN elsewhere) -> the median over each
    square's neighbourhood of ``radius`` squares (twice as wide where fewer than ``least``
    are known; the overall median where nothing is near). Light changes over a few squares
    (a lamp's spot, a shadow's edge): a local median follows it, a global surface cannot."""
    R, C, K = samples.shape
    known = np.isfinite(samples[..., 0])
    overall = median(samples[known], axis=0) if known.any() else np.zeros(K, np.float32)
    out = np.full(samples.shape, np.nan, np.float32)
    for rad in (radius, 2 * radius):
        if not np.isnan(out[..., 0]).any():
            break
        pad = np.pad(samples, ((rad, rad), (rad, rad), (0, 0)), constant_values=np.nan)
        views = np.stack(
            [pad[dr : dr + R, dc : dc + C] for dr in range(2 * rad + 1) for dc in range(2 * rad + 1)], axis=0
        )
        med, count = _nan_median(views)
        fill = np.isnan(out[..., 0]) & (count[..., 0] >= least)
        out[fill] = med[fill]
    missing = np.isnan(out[..., 0])
    out[missing] = overall
    return out


def unlike_class(small: np.ndarray, geo: Geometry, classes: np.ndarray, tolerance: float = 0.15,
                 lum_small: np.ndarray | None = None) -> np.ndarray:
    """(R, C, p, p) where each square's picture is unlike its premium class's typical picture:
    the per-pixel median over the class's squares of lightness relative to each square's own
    median (print repeats on every square of a class; a tile's letter, its outline and shadow
    do not), with a pixel's room to move by one (a grid fitted a pixel off), differing by more
    than ``tolerance`` of the square's level. Where most of a class is covered, the median is
    no empty picture and every square of it looks unlike it. A class of fewer than four
    squares has no typical picture: all True (unknown, nothing explained). ``lum_small``: the
    luminance of ``small`` when worked out already (the same values)."""
    if lum_small is None:
        lum = luminance(geo.blocks(small, 0.0, 1.0))  # (R, C, p, p)
    else:
        lum = np.ascontiguousarray(geo.blocks(lum_small, 0.0, 1.0))
    R, C, n, _ = lum.shape
    rel = lum / np.maximum(median(lum[:, :, n // 4 : n - n // 4, n // 4 : n - n // 4].reshape(R, C, -1)), 1.0)[..., None, None]
    out = np.ones((R, C, n, n), bool)
    k3 = np.ones((3, 3), np.uint8)
    for k in np.unique(classes):
        mine = classes == k
        if mine.sum() < 4:
            continue
        ref = median(rel[mine], axis=0).astype(np.float32)
        lo, hi = cv2.erode(ref, k3), cv2.dilate(ref, k3)
        v = rel[mine]
        out[mine] = np.maximum(v - hi, lo - v) > tolerance
    return out


def _map_colours(source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """``source`` colours (R, C, 3) carried by the affine colour map that best takes them
    to ``target`` (least squares, refitted without the worst fifth)."""
    x = source.reshape(-1, 3).astype(np.float64)
    y = target.reshape(-1, 3).astype(np.float64)
    a = np.hstack([x, np.ones((len(x), 1))])
    keep = np.ones(len(x), bool)
    m = np.zeros((4, 3))
    for _ in range(2):
        m, *_ = np.linalg.lstsq(a[keep], y[keep], rcond=None)
        res = np.abs(a @ m - y).sum(1)
        keep = res <= np.percentile(res, 80) + 1e-6
    return np.clip(a @ m, 0, 255).reshape(source.shape).astype(np.float32)
