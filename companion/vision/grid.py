"""Where the playing grid lies in an image, and the board seen from straight above.

A :class:`GridLocation` maps grid coordinates to image pixels: ``(x, y)`` in squares, ``x``
along a row from the left edge of column 0, ``y`` down from the top edge of row 0, so that the
grid's outer corners are ``(0, 0)``, ``(cols, 0)``, ``(cols, rows)`` and ``(0, rows)``.

:func:`locate_grid` finds the grid in a photo without markers:

1. Coarse (on a copy 384 pixels across, halved by Gaussian pyramid): line segments (LSD), the
   pencils of lines that meet in the grid's vanishing points, and along each rectified axis
   the run of ``n + 1`` equally spaced lines best supported (:mod:`companion.vision.lines`).
   The strongest pair of pencils is tried first; a striped table can take that place, so the
   next pairs follow when the first does not verify.
2. Refine (on a copy with about 24 pixels per square): across every grid line, at one or two
   places per square, the profile of the image is searched for a thin line, darker or lighter
   than the flanks either side (whichever the board shows, in the colour channel that shows it
   best: red lines on pink squares vanish in grey); each line found is one point-on-line
   constraint, and the homography is refitted to all of them by iteratively reweighted least
   squares (Tukey), so that lines hidden under tiles, tile edges and print weigh nothing. Once
   the grid is close, lines beside squares that hold something are left out while enough of
   the board's own remain: the gap between two tiles is a line too, but at the height of
   their faces, displaced in an oblique view.
3. Extent: the coarse run may be off by whole squares (the letter table in a board's band can
   pass for columns). The classic premium squares (:mod:`companion.core.board`) settle it when
   their colours fit the layout clearly at one shift of up to four squares; otherwise the
   window of ``rows x cols`` squares holding the most grid-line pieces wins. Then the
   refinement again, with windows narrowing from 0.4 to 0.05 of a square, and the layout is
   checked once more on the fitted grid.
4. Verify: ``score`` (0..1, :func:`_score`) compares the lines seen where the fit puts them
   with those seen through the squares' middles and beyond the grid; premium squares where
   the layout puts them vouch for a board whose lines are hidden under tiles. A score under
   :data:`GOOD_SCORE` sends the search on (the next pair of pencils, then a copy 1024 pixels
   across for a board small in a phone photo); the best is kept, and under :data:`MIN_SCORE`
   the image is refused with :class:`NoBoardFound`.

The output is a homography; lens distortion is not modelled. On the real photos here the lines
found lie a median 0.01 and at the 90th percentile 0.04 of a square from the fitted grid, so a
radial term would buy nothing there; a strongly distorting lens (the renderer's presets reach
-0.06) leaves up to about a quarter of a square at the far corners.

Orientation (the board-reading contract): corners are top-left, top-right, bottom-right,
bottom-left of the board as it lies; row 0 is the grid edge nearest the top of the image, col 0
the edge nearest its left. A photo is never mirrored, so once the top edge is chosen the rest
follows. The top edge is the one whose two corners have the smallest mean y. A board turned
by about 45 degrees has two edges nearly as high: the rule stays the same (smallest mean y,
and on an exact tie the edge with the smaller mean x, i.e. the upper-left edge, so the left
corner of the diamond becomes top-left); it flips between the two as the board turns through
45 degrees, which no rule on one image can avoid. A mounted camera keeps the orientation of
its profile: with a ``hint`` the corners are labelled as the hint's nearest.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Iterator

import cv2
import numpy as np

from companion.core.board import Premium, layout_for_grid
from companion.errors import CompanionError
from companion.vision.lines import coarse_lattices

COARSE_TRIES = (384, 1024)  # longest side of the copies the coarse search runs on, in turn
GOOD_SCORE = 0.7  # a fit this good ends the search
MIN_SCORE = 0.3  # below this the image holds no grid the finder believes in
WORK_CELL_PX = 24.0  # pixels per square in the copy refinement runs on
LINE_WIDTH = 0.09  # distance (squares) from a line to the flanks it is compared with: past its edge
LINE_SNR = 3.0  # a line answers this many times the typical texture response
LINE_EVIDENCE = 3.0  # a whole line stands this many times its noise out of its surroundings
ALONG, ALONG_STEP = 5, 0.08  # profiles averaged along a line: how many, how far apart (squares)
FIT_ALONG = 3  # fewer when fitting: many samples are averaged by the fit itself
# Windows (squares either side of a line's predicted place) the refinement searches in turn
# once the extent is settled: wide first, since the coarse grid can be a third of a square off
# in a far corner, then narrowing onto the lines; wide once more, as the first round can
# leave a far corner outside the narrower windows.
REFINE_WINDOWS = (0.4, 0.2, 0.3, 0.12, 0.05)
EXTENT_MARGIN = 4  # squares tried beyond the coarse grid on every side
# The premium squares settle the extent when they stand out from the plain ones this surely
# (rank-sum, 0.5 is chance), and by this much more than at any other shift.
LAYOUT_CONTRAST, LAYOUT_MARGIN = 0.72, 0.05
# Lines lighter and darker than the squares both count when neither kind is this much
# stronger than the other (light gaps between empty squares, dark gaps between tiles).
POLARITY_RATIO = 1.3
PLAIN_RADIUS = 30.0  # colour distance (0..255 per channel) within which squares look alike


class NoBoardFound(CompanionError):
    """The image holds no board grid the finder can see."""


@dataclass(frozen=True, eq=False)
class GridLocation:
    rows: int
    cols: int
    homography: np.ndarray  # 3x3, grid squares -> image pixels
    score: float = 1.0  # the finder's belief that this is the grid, 0..1

    def to_image(self, points: np.ndarray) -> np.ndarray:
        """Grid coordinates (N, 2) to image pixels (N, 2)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)

    def to_grid(self, points: np.ndarray) -> np.ndarray:
        """Image pixels (N, 2) to grid coordinates (N, 2)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.homography)).reshape(-1, 2)

    @property
    def corners(self) -> np.ndarray:
        """The grid's outer corners in the image: top-left, top-right, bottom-right, bottom-left."""
        return self.to_image(np.array([[0, 0], [self.cols, 0], [self.cols, self.rows], [0, self.rows]], float))

    @classmethod
    def from_corners(cls, corners: np.ndarray, rows: int = 15, cols: int = 15, score: float = 1.0) -> "GridLocation":
        src = np.array([[0, 0], [cols, 0], [cols, rows], [0, rows]], np.float64)
        dst = np.asarray(corners, np.float64).reshape(4, 2)
        return cls(rows, cols, cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)), score)

    def scaled(self, factor: float) -> "GridLocation":
        """The same grid in a copy of the image resized by ``factor``."""
        return GridLocation(self.rows, self.cols, np.diag([factor, factor, 1.0]) @ self.homography, self.score)


def rectify(image: np.ndarray, location: GridLocation, cell_px: int = 48, margin: float = 0.5) -> np.ndarray:
    """The board seen from straight above: square ``(r, c)`` covers pixels
    ``[(margin + r) * cell_px, (margin + r + 1) * cell_px)`` down and likewise across, with
    ``margin`` squares of the image kept around the grid (tiles at the edge overhang it)."""
    size_x = int(round((location.cols + 2 * margin) * cell_px))
    size_y = int(round((location.rows + 2 * margin) * cell_px))
    # Rectified pixel -> grid square -> image pixel.
    to_grid = np.array([[1 / cell_px, 0, -margin], [0, 1 / cell_px, -margin], [0, 0, 1]], np.float64)
    m = location.homography @ to_grid
    return cv2.warpPerspective(
        image, m, (size_x, size_y), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
    )


# --- finding -----------------------------------------------------------------------------


def _project(h: np.ndarray, gx: np.ndarray, gy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    w = h[2, 0] * gx + h[2, 1] * gy + h[2, 2]
    return (h[0, 0] * gx + h[0, 1] * gy + h[0, 2]) / w, (h[1, 0] * gx + h[1, 1] * gy + h[1, 2]) / w


def _cell_px(h: np.ndarray, rows: int, cols: int) -> float:
    """Mean side of a square in the image, over the four grid edges."""
    cx, cy = _project(h, np.array([0.0, cols, cols, 0.0]), np.array([0.0, 0.0, rows, rows]))
    sides = np.hypot(np.diff(np.r_[cx, cx[0]]), np.diff(np.r_[cy, cy[0]]))
    return float((sides[0] + sides[2]) / (2 * cols) + (sides[1] + sides[3]) / (2 * rows)) / 2


class _Probe:
    """Intensity profiles across grid lines in a copy of the image with about
    :data:`WORK_CELL_PX` pixels per square, in four channels (blue, green, red, grey): red
    lines on pink squares vanish in red and in grey but not in green, faint lines on a pale
    board show best in grey, so the channel that shows the lines best is chosen per board."""

    def __init__(self, image: np.ndarray, cell_px: float, copy: tuple[np.ndarray, float] | None = None) -> None:
        f = min(1.0, WORK_CELL_PX / max(cell_px, 1e-6))
        if copy is not None and 0.75 <= copy[1] / f <= 1.5:
            # The coarse copy is near enough the scale wanted: no second resize.
            small, self.f = copy[0], copy[1]
        elif f < 0.95:
            small = _shrink(image, round(max(image.shape[:2]) * f))
            self.f = small.shape[1] / image.shape[1]
        else:
            small, self.f = image, 1.0
        if small.ndim == 2:
            small = small[:, :, None]
        else:
            small = cv2.merge([*cv2.split(small), cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)])
        self.channels = small.shape[2]
        self.shape = small.shape[:2]
        # Stretch each channel's robust range to 0..255: line thresholds then mean the same on
        # a dim photo as on a bright one.
        sub = np.ascontiguousarray(small[:: max(1, small.shape[0] // 96), :: max(1, small.shape[1] // 96)])
        flat = sub.reshape(-1, self.channels)
        lo, hi = np.percentile(flat, [2, 98], axis=0)
        gain = 255.0 / np.maximum(hi - lo, 8.0)
        img = small.astype(np.float32)
        img -= lo.astype(np.float32)
        img *= gain.astype(np.float32)  # already smoothed by the area resize or the pyramid
        self.img = img
        # The typical line response of plain texture, per channel: most pixels are not on a
        # line, so the median over (a sample of) the image is the noise a line must stand
        # out of.
        d = max(1, round(LINE_WIDTH * WORK_CELL_PX))
        a = max(1, round(ALONG_STEP * WORK_CELL_PX))
        step = max(1, small.shape[0] // 96)
        height, width = self.shape
        if height > (ALONG - 1) * a + 1 and width > 2 * d + 1:
            # A sample of rows, each averaged with the rows below as the profiles are averaged
            # along their lines, and the line response across them.
            top = np.arange(0, height - (ALONG - 1) * a, step)
            rows = img[top[:, None] + a * np.arange(ALONG)[None, :]].mean(axis=1)
            cols = np.arange(d, width - d, step)
            rx = np.abs(rows[:, cols] - 0.5 * (rows[:, cols - d] + rows[:, cols + d])).reshape(-1, self.channels)
            self.noise = np.median(rx, axis=0)
        else:
            self.noise = np.ones(self.channels)

    def sample(
        self, h: np.ndarray, family: int, ks: np.ndarray, ts: np.ndarray, offsets: np.ndarray, channel: int | None,
        along_count: int = 0,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Profiles (len(ks), len(ts), len(offsets)[, channels]) across lines ``x = k``
        (family 0) or ``y = k`` (family 1), at positions ``t`` along them, offset by ``s``
        squares across, in one channel or all; and a mask of the profiles wholly inside.
        Each profile is the mean of ``along_count`` (default :data:`ALONG`) parallel ones a
        little apart along the line: a line is straight, noise is not."""
        hw = np.diag([self.f, self.f, 1.0]) @ h
        count = along_count or ALONG
        along = (np.arange(count) - (count - 1) / 2) * ALONG_STEP
        k, t, a, s = np.meshgrid(ks, ts, along, offsets, indexing="ij")
        gx, gy = (k + s, t + a) if family == 0 else (t + a, k + s)
        x, y = _project(hw, gx, gy)
        n = len(offsets)
        mx = x.reshape(-1, n).astype(np.float32)
        my = y.reshape(-1, n).astype(np.float32)
        src = self.img if channel is None else self.img[:, :, channel]
        vals = cv2.remap(src, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        hh, ww = self.shape
        inside = (mx >= 0).all(1) & (my >= 0).all(1) & (mx <= ww - 1).all(1) & (my <= hh - 1).all(1)
        shape = (len(ks), len(ts))
        inside = inside.reshape(*shape, count).all(-1)
        if channel is None:
            return vals.reshape(*shape, count, n, self.channels).mean(2), inside
        return vals.reshape(*shape, count, n).mean(2), inside


def _ridge(profiles: np.ndarray, width: int) -> np.ndarray:
    """Line response along the last axis: the sample minus the mean of its two flanks
    ``width`` samples away (negative on a dark line). Shorter by ``2 * width``."""
    return profiles[..., width:-width] - 0.5 * (profiles[..., : -2 * width] + profiles[..., 2 * width :])


def _peaks(resp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Position (sub-sample, parabola) and height of each profile's maximum."""
    i = np.argmax(resp, axis=-1)
    n = resp.shape[-1]
    if n < 3:
        return i.astype(np.float64), np.take_along_axis(resp, i[..., None], -1)[..., 0]
    ic = np.clip(i, 1, n - 2)
    a = np.take_along_axis(resp, (ic - 1)[..., None], -1)[..., 0]
    b = np.take_along_axis(resp, ic[..., None], -1)[..., 0]
    c = np.take_along_axis(resp, (ic + 1)[..., None], -1)[..., 0]
    den = a - 2 * b + c
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.where((i == ic) & (den < 0), 0.5 * (a - c) / den, 0.0)
    return ic + np.clip(d, -0.5, 0.5), b


@dataclass
class _Lines:
    """Where grid lines were found across their predicted positions."""

    family: np.ndarray  # 0: x = k, 1: y = k
    k: np.ndarray  # line index
    t: np.ndarray  # position along the line (squares)
    s: np.ndarray  # found offset across it (squares)
    strength: np.ndarray  # line response
    found: np.ndarray  # a line is there


Look = tuple[int, int]  # (channel, polarity): where and how the board shows its lines


def _line_peaks(resp: np.ndarray, polarity: int) -> tuple[np.ndarray, np.ndarray]:
    """Peak position and strength of each profile's line response of ``polarity`` (0: the
    stronger of either)."""
    if polarity != 0:
        return _peaks(resp * polarity)
    pos_l, str_l = _peaks(resp)
    pos_d, str_d = _peaks(-resp)
    light = str_l >= str_d
    return np.where(light, pos_l, pos_d), np.where(light, str_l, str_d)


def _find_lines(
    probe: _Probe, h: np.ndarray, rows: int, cols: int, window: float, look: Look | None, per_square: int = 2
) -> tuple[_Lines, Look]:
    """Search every grid line within ``window`` squares of its predicted place. ``look``
    None: try every channel (and both polarities) and keep the one that finds most lines."""
    cell = _cell_px(h, rows, cols) * probe.f
    step = 1.0 / max(cell, 1.0)  # about one pixel, in squares
    width = max(1, round(LINE_WIDTH / step))
    reach = max(2, round(window / step))
    offsets = np.arange(-reach - width, reach + width + 1) * step
    ts_by_family = (
        (np.arange(rows * per_square) + 0.5) / per_square,
        (np.arange(cols * per_square) + 0.5) / per_square,
    )
    ks = (np.arange(cols + 1, dtype=np.float64), np.arange(rows + 1, dtype=np.float64))
    resp_all, meta = [], []
    for family in (0, 1):
        prof, inside = probe.sample(
            h, family, ks[family], ts_by_family[family], offsets, None if look is None else look[0], FIT_ALONG
        )
        if look is None:
            prof = np.moveaxis(prof, -1, 0)  # channels first
        resp = _ridge(prof, width)
        k, t = np.meshgrid(ks[family], ts_by_family[family], indexing="ij")
        resp_all.append(resp[..., inside, :])
        meta.append((np.full(inside.sum(), family), k[inside], t[inside]))
    resp = np.concatenate(resp_all, axis=-2)
    fam = np.concatenate([m[0] for m in meta])
    kk = np.concatenate([m[1] for m in meta])
    tt = np.concatenate([m[2] for m in meta])

    def detect(r: np.ndarray, look: Look) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        pos, strength = _line_peaks(r, look[1])
        s = (pos - reach) * step
        return s, strength, (strength > _threshold(probe, look[0])) & (np.abs(s) < window)

    if look is None:
        best = None
        for ch in range(resp.shape[0]):
            pol = _polarity(resp[ch])
            s, strength, found = detect(resp[ch], (ch, pol))
            if best is None or found.sum() > best[0]:
                best = (int(found.sum()), (ch, pol), s, strength, found)
        assert best is not None
        _, look, s, strength, found = best
    else:
        s, strength, found = detect(resp, look)
    return _Lines(fam, kk, tt, s, strength, found), look


def _beside_tiles(lines: _Lines, covered: np.ndarray) -> np.ndarray:
    """Which line samples run along a square that holds something (a tile, mostly): the gap
    between two tiles is a fine line too, but at the height of their faces, displaced from the
    board's own line in an oblique view. ``covered``: (rows, cols) bool."""
    rows, cols = covered.shape
    along = np.floor(lines.t).astype(int)
    k = lines.k.astype(int)
    beside = np.zeros(len(k), bool)
    for side in (k - 1, k):
        r = np.where(lines.family == 0, along, side)
        c = np.where(lines.family == 0, side, along)
        ok = (r >= 0) & (r < rows) & (c >= 0) & (c < cols)
        beside[ok] |= covered[r[ok], c[ok]]
    return beside


def _covered_squares(probe: _Probe, h: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Squares whose middle differs clearly in colour from the plain squares and that are not
    premium squares of the classic layout: tiles, mostly. The plain colour is the densest
    cluster of square colours, not their median: tiles may cover half the board."""
    colours = _cell_colours(probe, h, rows, cols, 0).reshape(rows * cols, -1)
    plain = _plain_colour(colours)
    if plain is None:
        return np.zeros((rows, cols), bool)
    d = np.nan_to_num(np.linalg.norm(colours - plain, axis=-1), nan=0.0)
    covered = (d > 2 * PLAIN_RADIUS).reshape(rows, cols)
    premium = _premium_mask(rows, cols)
    # Premium squares stand out too, but their lines are the board's own.
    return covered & ~premium if premium is not None else covered


def _plain_colour(colours: np.ndarray) -> np.ndarray | None:
    """The colour of the plain squares among squares' colours (N, 3): the densest cluster,
    not the median, since tiles and premium squares may together cover most of a board."""
    c = colours[~np.isnan(colours).any(1)]
    if len(c) < 8:
        return None
    sq = (c * c).sum(1)
    near = sq[:, None] + sq[None, :] - 2 * (c @ c.T) < PLAIN_RADIUS**2
    return np.median(c[near[np.argmax(near.sum(1))]], axis=0)


def _premium_mask(rows: int, cols: int) -> np.ndarray | None:
    """The classic layout's premium squares for this grid size, or None."""
    try:
        layout = layout_for_grid(rows) if rows == cols else None
    except CompanionError:
        return None
    if layout is None:
        return None
    return np.array([[p is not Premium.NONE for p in row] for row in layout.premiums])


def _threshold(probe: _Probe, channel: int) -> float:
    """The line response that stands clearly out of the texture of this channel."""
    return LINE_SNR * float(probe.noise[channel]) + 2.0


def _polarity(resp: np.ndarray) -> int:
    """-1 when the board's lines are darker than the squares, +1 when lighter, 0 when both
    show (light gaps between empty squares, dark gaps between tiles). A dark line of the flank
    width answers -A at its centre but only +A/2 beside it, and a light one the other way
    round: the typical peaks of either sign tell which the board has."""
    light = float(np.median(resp.max(-1)))
    dark = float(np.median((-resp).max(-1)))
    if max(light, dark) < POLARITY_RATIO * min(light, dark):
        return 0
    return 1 if light > dark else -1


def _fit_homography(h: np.ndarray, lines: _Lines, scale: float, iters: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Refit grid -> image from point-on-line constraints by iteratively reweighted linear
    least squares on G = H^-1 (image -> grid): a point p on line x = k gives
    (G0 - k G2) . p = 0. Returns the homography and the final residuals (squares)."""
    use = lines.found
    fam, k = lines.family[use], lines.k[use]
    gx = np.where(fam == 0, k + lines.s[use], lines.t[use])
    gy = np.where(fam == 0, lines.t[use], k + lines.s[use])
    x, y = _project(h, gx, gy)
    if len(x) < 12 or (fam == 0).sum() < 6 or (fam == 1).sum() < 6:
        return h, np.zeros(0)
    # Hartley normalisation of both sides keeps the linear system well conditioned.
    mx, my = x.mean(), y.mean()
    sc = np.sqrt(2) / max(np.mean(np.hypot(x - mx, y - my)), 1e-9)
    t_img = np.array([[sc, 0, -sc * mx], [0, sc, -sc * my], [0, 0, 1]])
    cg = np.array([gx.mean(), gy.mean()])
    sg = np.sqrt(2) / max(np.mean(np.hypot(gx - cg[0], gy - cg[1])), 1e-9)
    t_grid = np.array([[sg, 0, -sg * cg[0]], [0, sg, -sg * cg[1]], [0, 0, 1]])
    p = np.c_[sc * (x - mx), sc * (y - my), np.ones(len(x))]
    kn = np.where(fam == 0, sg * (k - cg[0]), sg * (k - cg[1]))
    zeros = np.zeros_like(p)
    a0 = np.where((fam == 0)[:, None], p, zeros)
    a1 = np.where((fam == 1)[:, None], p, zeros)
    a = np.c_[a0, a1, -kn[:, None] * p]
    g_n = t_grid @ np.linalg.inv(h) @ np.linalg.inv(t_img)
    w = np.ones(len(x))
    resid = np.zeros(len(x))
    for it in range(iters):
        q = p @ g_n.T
        val = np.where(fam == 0, q[:, 0], q[:, 1]) / q[:, 2]
        resid = (val - kn) / sg
        c = max(scale * (0.5 ** it), 0.04)
        # Tukey's biweight: a sample off by more than c squares (tile edge, print) weighs nothing.
        w = np.where(np.abs(resid) < c, (1 - (resid / c) ** 2) ** 2, 0.0) / np.abs(q[:, 2])
        if (w > 0).sum() < 12:
            break
        _, _, vt = np.linalg.svd(a * w[:, None], full_matrices=False)
        g_n = vt[-1].reshape(3, 3)
    g = np.linalg.inv(t_grid) @ g_n @ t_img
    hom = np.linalg.inv(g)
    q = p @ g_n.T
    resid = (np.where(fam == 0, q[:, 0], q[:, 1]) / q[:, 2] - kn) / sg
    return hom / hom[2, 2], resid


def _refine(
    probe: _Probe, h: np.ndarray, rows: int, cols: int, windows: tuple[float, ...], look: Look | None
) -> tuple[np.ndarray, Look, _Lines]:
    lines = None
    covered = None
    for window in windows:
        # Choosing the channel needs fewer samples than fitting: one per square.
        lines, look = _find_lines(probe, h, rows, cols, window, look, 1 if look is None else 2)
        if window <= 0.1:
            # Close enough to know which squares hold tiles: leave their gaps out of the fit
            # while enough of the board's own lines remain.
            covered = _covered_squares(probe, h, rows, cols) if covered is None else covered
            beside = _beside_tiles(lines, covered)
            if (lines.found & ~beside).sum() >= max(40, 0.25 * lines.found.sum()):
                lines.found = lines.found & ~beside
        h, _ = _fit_homography(h, lines, scale=window)
    assert lines is not None and look is not None
    return h, look, lines


def _shift(h: np.ndarray, dx: float, dy: float) -> np.ndarray:
    return h @ np.array([[1.0, 0, dx], [0, 1.0, dy], [0, 0, 1.0]])


def _edge_evidence(probe: _Probe, h: np.ndarray, rows: int, cols: int, look: Look, margin: int, near: float = 0.08) -> tuple[np.ndarray, np.ndarray]:
    """Whether a grid line is seen on each side of each square of the grid extended by
    ``margin`` squares: ``vert[k, c]`` for line x = k - margin across row c - margin,
    ``horz[k, c]`` for line y = k - margin across column c - margin (2 probes each, 0..1).

    A line is seen where the profile across it, a third of a square either way, has its
    strongest line response within ``near`` squares of the fitted place, clearly above the
    profile's typical response."""
    cell = _cell_px(h, rows, cols) * probe.f
    step = 1.0 / max(cell, 1.0)
    width = max(1, round(LINE_WIDTH / step))
    reach = max(2, round(0.33 / step))
    offsets = np.arange(-reach - width, reach + width + 1) * step
    centre = np.abs(np.arange(-reach, reach + 1) * step) <= near
    out = []
    for family, (n_lines, n_along) in enumerate(((cols, rows), (rows, cols))):
        ks = np.arange(-margin, n_lines + margin + 1, dtype=np.float64)
        ts = np.arange(-margin, n_along + margin, dtype=np.float64)
        ts = np.sort(np.r_[ts + 0.3, ts + 0.7])
        prof, inside = probe.sample(h, family, ks, ts, offsets, look[0])
        resp = _ridge(prof, width)
        resp = np.abs(resp) if look[1] == 0 else resp * look[1]
        near_idx = np.flatnonzero(centre)
        arg = near_idx[np.argmax(resp[..., centre], axis=-1)]
        peak_near = np.take_along_axis(resp, arg[..., None], -1)[..., 0]
        peak_far = resp[..., ~centre].max(-1)
        # A line has the same surface on both sides; an edge (a chessboard, a tile's side) has
        # not: its two flanks differ by as much as its line response.
        left = np.take_along_axis(prof, arg[..., None], -1)[..., 0]
        right = np.take_along_axis(prof, (arg + 2 * width)[..., None], -1)[..., 0]
        symmetric = np.abs(left - right) < 0.5 * peak_near
        seen = (peak_near >= peak_far) & (peak_near > _threshold(probe, look[0])) & symmetric & inside
        out.append(seen.reshape(len(ks), -1, 2).mean(-1))
    return out[0], out[1]


def _cell_colours(probe: _Probe, h: np.ndarray, rows: int, cols: int, margin: int) -> np.ndarray:
    """The colour (blue, green, red as the probe holds them) of the middle of every square of
    the grid extended by ``margin`` squares, (rows + 2 margin, cols + 2 margin, 3): the median
    of nine points across the middle half, which keeps a letter's ink out."""
    r = np.arange(-margin, rows + margin) + 0.5
    c = np.arange(-margin, cols + margin) + 0.5
    u = np.array([-0.22, 0.0, 0.22])
    gy, gx, vy, vx = np.meshgrid(r, c, u, u, indexing="ij")
    x, y = _project(np.diag([probe.f, probe.f, 1.0]) @ h, gx + vx, gy + vy)
    vals = cv2.remap(
        probe.img[:, :, :3] if probe.channels >= 3 else probe.img, x.reshape(len(r), -1).astype(np.float32),
        y.reshape(len(r), -1).astype(np.float32), cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=np.nan,
    )
    vals = vals.reshape(len(r), len(c), 9, -1)
    return np.median(vals, axis=2)


def _layout_extent(colours: np.ndarray, rows: int, cols: int, margin: int) -> tuple[int, int, float, float]:
    """The shift whose window puts the classic premium squares (:mod:`companion.core.board`)
    on the squares that stand out in colour from the plain ones: (dx, dy, contrast, runner-up
    contrast). Contrast is the rank-sum chance that a premium square lies farther from the
    plain squares' median colour than a plain square does; the layout is symmetric under quarter turns and
    mirroring, so the board's orientation does not matter. Tiles on plain squares stand out
    too and lower every shift alike."""
    mask = _premium_mask(rows, cols)
    if mask is None:
        return 0, 0, 0.0, 0.0
    premium = mask.ravel()
    seen = ~np.isnan(colours).any(-1)  # squares outside the image say nothing
    centre = colours[margin : margin + rows, margin : margin + cols].reshape(-1, colours.shape[-1])
    plain = _plain_colour(centre)
    if plain is None:
        return 0, 0, 0.0, 0.0
    # Distance from the plain squares' colour, taken in the coarse window (any shift overlaps
    # it mostly).
    d = np.linalg.norm(colours - plain, axis=-1)
    span = 2 * margin + 1
    windows = np.lib.stride_tricks.sliding_window_view(d, (rows, cols)).reshape(span * span, rows * cols)
    inside = np.lib.stride_tricks.sliding_window_view(seen, (rows, cols)).reshape(span * span, rows * cols)
    # Squares outside the image take the window's median: they neither help nor hurt.
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # windows wholly outside the image
        med = np.nanmedian(np.where(inside, windows, np.nan), axis=1, keepdims=True)
    windows = np.where(inside, windows, med)
    # The chance that a premium square stands out more than a plain one (rank-sum): near 1
    # where the layout fits, near 1/2 on a shifted window, on another board's layout or off
    # the board.
    ranks = np.empty_like(windows)
    order = np.argsort(windows, axis=1)
    np.put_along_axis(ranks, order, np.arange(1, rows * cols + 1, dtype=np.float64)[None, :].repeat(len(windows), 0), axis=1)
    n_p, n_n = int(premium.sum()), int((~premium).sum())
    contrast = (ranks[:, premium].sum(1) - n_p * (n_p + 1) / 2) / (n_p * n_n)
    contrast = np.where(inside.mean(1) >= 0.6, contrast, 0.0)
    best = int(np.argmax(contrast))
    runner_up = float(np.sort(contrast)[-2]) if len(contrast) > 1 else 0.0
    dy, dx = divmod(best, span)
    return dx - margin, dy - margin, float(contrast[best]), runner_up


def _best_extent(vert: np.ndarray, horz: np.ndarray, rows: int, cols: int, margin: int) -> tuple[int, int, float]:
    """The shift (dx, dy) in squares of the ``rows x cols`` window holding the most line
    pieces, and that share."""
    best = (0, 0, -1.0)
    for dy in range(-margin, margin + 1):
        for dx in range(-margin, margin + 1):
            v = vert[margin + dx : margin + dx + cols + 1, margin + dy : margin + dy + rows]
            hz = horz[margin + dy : margin + dy + rows + 1, margin + dx : margin + dx + cols]
            share = (v.sum() + hz.sum()) / (v.size + hz.size)
            # Prefer the coarse placement on a tie.
            share -= 1e-6 * (abs(dx) + abs(dy))
            if share > best[2]:
                best = (dx, dy, share)
    return best


def _line_evidence(probe: _Probe, h: np.ndarray, family: int, ks: np.ndarray, span: tuple[float, float], look: Look) -> np.ndarray:
    """How clearly each line ``x = k`` (family 0) or ``y = k`` (family 1) shows over ``span``
    of the other coordinate, in units of its noise: the profiles across it, taken twice a
    square, are averaged (their absolute line response when the board shows lines of both
    kinds), and the response at the line is compared with the average's spread around it
    (0.15 to 0.45 of a square either side)."""
    cell = _cell_px(h, 1, 1) * probe.f
    step = 1.0 / max(cell, 1.0)
    width = max(1, round(LINE_WIDTH / step))
    reach = max(3, round(0.45 / step))
    offsets = np.arange(-reach - width, reach + width + 1) * step
    ts = np.arange(span[0] + 0.3, span[1], 0.5)
    prof, inside = probe.sample(h, family, ks, ts, offsets, look[0])
    resp = _ridge(prof, width)
    resp = np.abs(resp) if look[1] == 0 else resp * look[1]
    count = inside.sum(1)
    mean = (resp * inside[..., None]).sum(1) / np.maximum(count, 1)[:, None]
    s = np.arange(-reach, reach + 1) * step
    centre = np.abs(s) <= 0.06
    flank = (np.abs(s) >= 0.15) & (np.abs(s) <= 0.45)
    if not centre.any() or flank.sum() < 2:
        return np.zeros(len(ks))  # squares of a few pixels: no line to tell from its flanks
    at_line = mean[:, centre].max(1)
    base = np.median(mean[:, flank], axis=1)
    spread = np.median(np.abs(mean[:, flank] - base[:, None]), axis=1)
    # The noise of a mean of `count` profiles, and never less than a sliver of the signal.
    noise = np.maximum(spread, float(probe.noise[look[0]]) / np.sqrt(np.maximum(count, 1))) + 0.2
    return np.where(count >= 3, (at_line - base) / noise, 0.0)


def _score(probe: _Probe, h: np.ndarray, rows: int, cols: int, look: Look) -> float:
    """0..1, how surely this is the grid: for each family of lines, the share of grid lines
    that stand out of their surroundings (:func:`_line_evidence` over :data:`LINE_EVIDENCE`), taken on even
    and on odd lines apart and the smaller kept (a lattice of half the true spacing sees every
    other line only), less the share standing out through the squares' middles (as high on
    texture and noise); nothing when the two lines beyond the grid on one side stand out as
    well (the lattice goes on: a larger board, graph paper). The weaker family
    decides."""
    scores = []
    for family, (n_lines, n_along) in enumerate(((cols, rows), (rows, cols))):
        grid_ks = np.arange(n_lines + 1, dtype=np.float64)
        beyond = np.array([-2.0, -1.0, n_lines + 1.0, n_lines + 2.0])
        ev = _line_evidence(probe, h, family, np.r_[grid_ks, beyond, np.arange(n_lines) + 0.5],
                            (0.0, float(n_along)), look) > LINE_EVIDENCE
        inner, outside, between = ev[: n_lines + 1], ev[n_lines + 1 : n_lines + 5], ev[n_lines + 5 :]
        seen = float(inner.mean())
        if seen <= 0:
            return 0.0
        parity = min(float(inner[0::2].mean()), float(inner[1::2].mean()))
        # Two lines beyond the grid on one side: the lattice goes on. A single line there is
        # often the board's own frame or print, a square away by chance.
        goes_on = outside[:2].all() or outside[2:].all()
        scores.append((parity - float(between.mean())) * (0.0 if goes_on else 1.0))
    return float(np.clip(min(scores), 0.0, 1.0))


def _orient(h: np.ndarray, rows: int, cols: int, hint: GridLocation | None) -> np.ndarray:
    """The same grid relabelled to the contract's orientation (see the module docstring)."""
    grid = np.array([[0, 0], [cols, 0], [cols, rows], [0, rows]], np.float64)
    x, y = _project(h, grid[:, 0], grid[:, 1])
    img = np.c_[x, y]
    # Shoelace area: the grid's corner order is clockwise on screen (y down); a homography
    # found from lines alone may have mirrored it.
    area = np.sum(img[:, 0] * np.roll(img[:, 1], -1) - np.roll(img[:, 0], -1) * img[:, 1])
    if area < 0:
        img = img[[1, 0, 3, 2]]
    turns = [0, 2] if rows != cols else [0, 1, 2, 3]
    cands = [np.roll(img, -r, axis=0) for r in turns]
    if hint is not None:
        ref = hint.corners
        best = min(cands, key=lambda c: float(np.sum((c - ref) ** 2)))
    else:
        best = min(cands, key=lambda c: (round(float(c[0, 1] + c[1, 1]) / 2, 6), float(c[0, 0] + c[1, 0]) / 2))
    return GridLocation.from_corners(best, rows, cols).homography


def locate_grid(image_bgr: np.ndarray, rows: int = 15, cols: int = 15, hint: GridLocation | None = None) -> GridLocation:
    """Where the ``rows x cols`` playing grid lies in ``image_bgr`` (module docstring).

    With ``hint`` (a mounted camera's grid from its profile) the grid is only refined near it.
    Raises :class:`NoBoardFound` when no grid is there."""
    if image_bgr is None or image_bgr.ndim not in (2, 3) or image_bgr.size == 0 or min(image_bgr.shape[:2]) < 16:
        raise NoBoardFound("no board found: the image is empty or too small")
    image = image_bgr if image_bgr.ndim == 2 or image_bgr.shape[2] == 3 else image_bgr[:, :, :3]
    if image.dtype != np.uint8:
        image = cv2.convertScaleAbs(image)
    if hint is not None:
        return _refine_hint(image, rows, cols, hint)
    best: tuple[float, np.ndarray] | None = None
    for coarse_px in COARSE_TRIES:
        for found in _attempts(image, rows, cols, coarse_px):
            if best is None or found[0] > best[0]:
                best = found
            if best[0] >= GOOD_SCORE:
                break
        if (best is not None and best[0] >= GOOD_SCORE) or coarse_px >= max(image.shape[:2]):
            break
    if best is None:
        raise NoBoardFound("no board found: no grid of lines in the image")
    score, h = best
    if score < MIN_SCORE:
        raise NoBoardFound(f"no board found: the best grid of lines fits poorly (score {score:.2f})")
    return GridLocation(rows, cols, _orient(h, rows, cols, None), score)


def _refine_hint(image: np.ndarray, rows: int, cols: int, hint: GridLocation) -> GridLocation:
    """A mounted camera: refine the profile's grid where it lies (it may have moved a little);
    keep it when the image shows too few lines (a board nearly covered, a dark frame)."""
    h0 = hint.homography / hint.homography[2, 2]
    probe = _Probe(image, _cell_px(h0, rows, cols))
    h, look, _ = _refine(probe, h0, rows, cols, (0.3, 0.1), None)
    score = _score(probe, h, rows, cols, look)
    moved = np.abs(_project_corners(h, rows, cols) - _project_corners(h0, rows, cols)).max() / _cell_px(h0, rows, cols)
    if score < MIN_SCORE or moved > 0.5:
        score0 = _score(probe, h0, rows, cols, look)
        if score0 >= score or moved > 0.5:
            return GridLocation(rows, cols, h0, score0)
    return GridLocation(rows, cols, _orient(h, rows, cols, hint), score)


def _project_corners(h: np.ndarray, rows: int, cols: int) -> np.ndarray:
    x, y = _project(h, np.array([0.0, cols, cols, 0.0]), np.array([0.0, 0.0, rows, rows]))
    return np.c_[x, y]


def _shrink(image: np.ndarray, longest: int) -> np.ndarray:
    """A copy about ``longest`` pixels across: halvings by Gaussian pyramid (fast, and
    anti-aliased) while the image is over 1.25 times that, then an area resize if still over."""
    small = image
    while max(small.shape[:2]) > 1.25 * longest:
        small = cv2.pyrDown(small)
    if max(small.shape[:2]) > longest * 1.01:
        f = longest / max(small.shape[:2])
        small = cv2.resize(small, (max(1, round(small.shape[1] * f)), max(1, round(small.shape[0] * f))), interpolation=cv2.INTER_AREA)
    return small


def _extent(probe: _Probe, h: np.ndarray, rows: int, cols: int, look: Look) -> tuple[int, int]:
    """Which window of ``rows x cols`` squares near the coarse one is the grid: where the
    premium squares' colours say so clearly, that; else where the most grid lines are seen."""
    dx, dy, contrast, runner_up = _layout_extent(_cell_colours(probe, h, rows, cols, EXTENT_MARGIN), rows, cols, EXTENT_MARGIN)
    if contrast >= LAYOUT_CONTRAST and contrast - runner_up >= LAYOUT_MARGIN:
        return dx, dy
    vert, horz = _edge_evidence(probe, h, rows, cols, look, EXTENT_MARGIN)
    dx, dy, _ = _best_extent(vert, horz, rows, cols, EXTENT_MARGIN)
    return dx, dy


def _attempts(image: np.ndarray, rows: int, cols: int, coarse_px: int) -> Iterator[tuple[float, np.ndarray]]:
    """Coarse guesses on a copy ``coarse_px`` across, each refined, its extent settled and
    judged: (score, homography), best guess first."""
    small = _shrink(image, coarse_px)
    k = small.shape[1] / image.shape[1]
    gray = small if small.ndim == 2 else cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    for coarse in coarse_lattices(gray, rows, cols, np.random.default_rng(0)):
        h = np.diag([1 / k, 1 / k, 1.0]) @ coarse
        if not np.isfinite(h).all() or _cell_px(h, rows, cols) < 3:
            continue  # squares of a few pixels: no board this finder can read
        probe = _Probe(image, _cell_px(h, rows, cols), (small, k))
        look: Look | None
        h, look, _ = _refine(probe, h, rows, cols, (0.3,), None)
        dx, dy = _extent(probe, h, rows, cols, look)
        h = _shift(h, dx, dy)
        # The channel is chosen again when the first choice was made on a grid squares off.
        h, look, _ = _refine(probe, h, rows, cols, REFINE_WINDOWS, look if (dx, dy) == (0, 0) else None)
        assert look is not None
        # Once more on the fitted grid, whose squares' colours are now sampled where they are.
        dx, dy, contrast, runner_up = _layout_extent(_cell_colours(probe, h, rows, cols, 2), rows, cols, 2)
        layout_ok = contrast >= LAYOUT_CONTRAST and contrast - runner_up >= LAYOUT_MARGIN
        if layout_ok and (dx, dy) != (0, 0):
            h, look, _ = _refine(probe, _shift(h, dx, dy), rows, cols, (0.1, 0.06), look)
        # Judge in the channel that shows the lines best on the fitted grid: the one chosen on
        # the rough grid can miss them.
        _, look = _find_lines(probe, h, rows, cols, 0.06, None, 1)
        score = _score(probe, h, rows, cols, look)
        if layout_ok:
            # The premium squares where the layout puts them vouch for a grid whose lines are
            # mostly hidden under tiles.
            score = max(score, min(1.0, 0.5 + 0.5 * (contrast - LAYOUT_CONTRAST) / (1 - LAYOUT_CONTRAST)))
        yield score, h
