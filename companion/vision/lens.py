"""A camera lens's barrel distortion, measured on the board's own lines.

A phone's or a webcam's wide lens bends straight lines: the board's lines curve outwards from
the middle of the photo, and a homography fitted to all of them is right in the middle and off
by up to a quarter of a square at the far corners. One radial term about the photo's middle
models it (the division model): a pixel ``d`` of the photo, ``r`` its distance from the
middle over half the photo's longer side, lies where a perfect lens would have put
``u = d (1 - k r^2)``. ``k < 0`` is barrel. Its inverse has no closed form and is solved by a
few fixed-point steps (the distortion is mild: a few per cent at the corners).

:func:`fit_lens` measures ``k`` on the lines found across a fitted grid: for each ``k`` from
none to the strongest barrel of :data:`K_RANGE`, the samples are undistorted and the
homography refitted to them (each fit starting from the one before); the ``k`` whose fit
leaves the samples nearest their lines wins when it is clearly nearer than no lens at all
(:data:`GAIN`), the rows' and the columns' both, and moves a corner of the grid by more than :data:`MIN_MOVE` of a square. A
photo whose lines are straight keeps its homography alone: on the real photos here none is
kept (their lenses bend the lines by less than a tenth of a square at the corners, or the
photos are crops and resizes whose middle is not the lens's). Only barrel is measured: a
pincushion term fits a board's frame or its tiles' sides as readily as a lens, and phones'
and webcams' wide lenses bend outwards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.vision.layout import covered_squares
from companion.vision.probe import Probe, cell_px, project
from companion.vision.refine import beside_tiles, find_lines, fit_points

LENS_WINDOW = 0.35  # squares either side of a straight line where its bent self is sought
K_RANGE = (-0.12, 0.0)  # lens terms tried: barrel only (the renderer's phones reach -0.06, a webcam's wide lens more)
K_STEP = 0.01
RISING = 3  # steps of rising cost after which no stronger lens is tried
FIT_REACH = 0.2  # squares: the robust fit's first reach (Tukey), halved twice
LOOK_WINDOW = 0.1  # squares either side of a line where the channel that shows the lines is chosen
NEAR = 0.05  # squares: a sample farther than this from its line counts as this far (print, tile edges)
MIN_K = 0.008  # a smaller term bends nothing the reader would see: no lens
# Nor a lens that moves no corner of the grid by this much (squares) from the straight fit:
# the reader sees the same squares either way, and a grid that was right stays where it was.
MIN_MOVE = 0.12
GAIN = 0.85  # the lens must bring the samples' cost down to this share of a straight fit's
MIN_SAMPLES = 60  # line samples enough to tell a bent line from a straight one


@dataclass(frozen=True)
class Lens:
    """``u = d (1 - k r^2)`` about ``(cx, cy)``, ``r`` in units of ``half`` pixels."""

    k: float
    cx: float
    cy: float
    half: float

    @classmethod
    def for_image(cls, k: float, shape: tuple[int, ...]) -> "Lens":
        """The lens ``k`` of a photo of ``shape`` (height, width, ...), about its middle."""
        height, width = shape[:2]
        return cls(k, (width - 1) / 2, (height - 1) / 2, max(width, height) / 2)

    def undistort(self, points: np.ndarray) -> np.ndarray:
        """Photo pixels (N, 2) -> where a perfect lens would have put them."""
        p = np.asarray(points, np.float64).reshape(-1, 2)
        d = p - (self.cx, self.cy)
        r2 = (d**2).sum(1, keepdims=True) / self.half**2
        return d * (1 - self.k * r2) + (self.cx, self.cy)

    def distort(self, points: np.ndarray) -> np.ndarray:
        """Where a perfect lens's pixels (N, 2) lie in the photo (the inverse of
        :meth:`undistort`, by fixed-point steps)."""
        u = np.asarray(points, np.float64).reshape(-1, 2) - (self.cx, self.cy)
        d = u.copy()
        for _ in range(12):
            r2 = (d**2).sum(1, keepdims=True) / self.half**2
            d = u / (1 - self.k * r2)
        return d + (self.cx, self.cy)

    def moved(self, m: np.ndarray) -> "Lens":
        """The same lens in a copy of the photo scaled and moved by the affine ``m`` (3 x 3,
        the same scale on both axes)."""
        return Lens(self.k, m[0, 0] * self.cx + m[0, 2], m[1, 1] * self.cy + m[1, 2], m[0, 0] * self.half)


def _cost(resid: np.ndarray) -> float:
    """The samples' mean squared distance from their lines, each counted at most :data:`NEAR`."""
    return float(np.mean(np.minimum(resid**2, NEAR**2))) if len(resid) else np.inf


def fit_lens(shape: tuple[int, ...], probe: Probe, h: np.ndarray, rows: int, cols: int) -> tuple[Lens, np.ndarray] | None:
    """The lens the board's lines show in a photo of ``shape`` around the grid ``h`` (grid ->
    photo pixels, fitted straight; ``probe`` the copy the finder measured it in), and the grid
    refitted through it (grid -> undistorted pixels); None when the lines are as straight as
    the lens-free fit needs (module docstring)."""
    cell = cell_px(h, rows, cols)
    # The channel and polarity the lines show in, told near the fitted lines where little
    # else is (the finder's own choice may take both polarities, and the tiles' gaps with
    # them); then the bent lines are sought wider.
    _, look = find_lines(probe, h, rows, cols, LOOK_WINDOW, None, 1)
    lines, _ = find_lines(probe, h, rows, cols, LENS_WINDOW, look, 2)
    # A tile's side beside a line is a line too, at the height of its face: left out.
    beside = beside_tiles(lines, covered_squares(probe, h, rows, cols))
    use = lines.found & ~beside if (lines.found & ~beside).sum() >= MIN_SAMPLES else lines.found
    if use.sum() < MIN_SAMPLES:
        return None
    fam, k = lines.family[use], lines.k[use]
    gx = np.where(fam == 0, k + lines.s[use], lines.t[use])
    gy = np.where(fam == 0, lines.t[use], k + lines.s[use])
    photo = np.column_stack(project(h, gx, gy))
    # From no lens to the most barrel, each fit starting from the one before, with a narrow
    # reach: the samples of the straight lines first, then those of the bent ones as the
    # bend brings them near (a wide reach lets a tile's edge or a premium square's border pull
    # a fit into another basin).
    fits: list[tuple[float, Lens, np.ndarray, list[float]]] = []
    hom = h
    for term in np.arange(0, K_RANGE[0] - K_STEP / 2, -K_STEP):
        lens = Lens.for_image(float(term), shape)
        u = lens.undistort(photo)
        fitted, resid = fit_points(hom, u[:, 0], u[:, 1], gx, gy, fam, k, FIT_REACH, 3)
        if len(resid):
            hom = fitted
        fits.append((_cost(resid), lens, hom, [_cost(resid[fam == f]) for f in (0, 1)]))
        # Past the best by a few steps, each worse: the bend only grows from here.
        if len(fits) > RISING and all(fits[-i][0] > fits[-i - 1][0] for i in range(1, RISING + 1)):
            break
    cost, lens, hom, by_family = min(fits, key=lambda f: f[0])
    if abs(lens.k) < MIN_K or not np.isfinite(cost) or cost > GAIN * fits[0][0]:
        return None
    # A lens bends the rows and the columns alike: a term that straightens one family and
    # bends the other fits something else (a photo stretched to a square, a warped board).
    if any(not by_family[f] < fits[0][3][f] for f in (0, 1)):
        return None
    corners = (np.array([0.0, cols, cols, 0.0]), np.array([0.0, 0.0, rows, rows]))
    straight = np.column_stack(project(h, *corners))
    bent = lens.distort(np.column_stack(project(hom, *corners)))
    if np.linalg.norm(bent - straight, axis=1).max() < MIN_MOVE * cell:
        return None
    return lens, hom
