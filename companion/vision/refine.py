"""A guessed grid brought onto the board's own lines.

Across every grid line, at one or two places per square, the profile of the image is searched
for a thin line, darker or lighter than the flanks either side (whichever the board shows, in
the colour channel that shows it best: red lines on pink squares vanish in grey); each line
found is one point-on-line constraint, and the homography is refitted to all of them by
iteratively reweighted least squares (Tukey), so that lines hidden under tiles, tile edges and
print weigh nothing. Once the grid is close, lines beside squares that hold something are left
out while enough of the board's own remain: the gap between two tiles is a line too, but at
the height of their faces, displaced in an oblique view.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.vision.layout import covered_squares
from companion.vision.medians import median
from companion.vision.probe import ALONG_STEP, LINE_WIDTH, Probe, project

FIT_ALONG = 3  # profiles averaged along a line when fitting (the fit averages many itself)
# Lines lighter and darker than the squares both count when neither kind is this much
# stronger than the other (light gaps between empty squares, dark gaps between tiles).
POLARITY_RATIO = 1.3
MIN_BOARD_SAMPLES = 40  # board-line samples (not beside tiles) enough to fit to them alone

Look = tuple[int, int]  # (channel, polarity): where and how the board shows its lines


@dataclass
class Lines:
    """Where grid lines were found across their predicted positions."""

    family: np.ndarray  # 0: x = k, 1: y = k
    k: np.ndarray  # line index
    t: np.ndarray  # position along the line (squares)
    s: np.ndarray  # found offset across it (squares)
    strength: np.ndarray  # line response
    found: np.ndarray  # a line is there
    # The samples beside squares holding something (tile gaps) were kept: too few of the
    # board's own lines showed without them.
    gaps: bool = False


def ridge(profiles: np.ndarray, width: int) -> np.ndarray:
    """Line response along the last axis: the sample minus the mean of its two flanks
    ``width`` samples away (negative on a dark line). Shorter by ``2 * width``."""
    return profiles[..., width:-width] - 0.5 * (profiles[..., : -2 * width] + profiles[..., 2 * width :])


def vertex(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Where the parabola through samples ``a``, ``b``, ``c`` (at -1, 0, 1) peaks, within half a
    sample of the middle one: a peak's place to a fraction of a sample. 0 where the parabola
    does not open downwards (no peak at the middle sample)."""
    den = a - 2 * b + c
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.where(den < 0, 0.5 * (a - c) / den, 0.0)
    return np.clip(d, -0.5, 0.5)


def peaks(resp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Position (sub-sample, parabola) and height of each profile's maximum."""
    i = np.argmax(resp, axis=-1)
    n = resp.shape[-1]
    if n < 3:
        return i.astype(np.float64), np.take_along_axis(resp, i[..., None], -1)[..., 0]
    ic = np.clip(i, 1, n - 2)
    a = np.take_along_axis(resp, (ic - 1)[..., None], -1)[..., 0]
    b = np.take_along_axis(resp, ic[..., None], -1)[..., 0]
    c = np.take_along_axis(resp, (ic + 1)[..., None], -1)[..., 0]
    # A maximum at the profile's end has no neighbour beyond it: no parabola there.
    return ic + np.where(i == ic, vertex(a, b, c), 0.0), b


def line_peaks(resp: np.ndarray, polarity: int) -> tuple[np.ndarray, np.ndarray]:
    """Peak position and strength of each profile's line response of ``polarity`` (0: the
    stronger of either, which is the peak of its magnitude)."""
    if polarity != 0:
        return peaks(resp * polarity)
    return peaks(np.abs(resp))


def polarities(resp: np.ndarray) -> np.ndarray:
    """Per channel of ``resp`` (channels, profiles, samples): -1 when the board's lines are
    darker than the squares, +1 when lighter, 0 when both show (light gaps between empty
    squares, dark gaps between tiles). A dark line of the flank width answers -A at its centre
    but only +A/2 beside it, and a light one the other way round: the typical peaks of either
    sign tell which the board has."""
    light = median(resp.max(-1), axis=-1)
    dark = median(-resp.min(-1), axis=-1)
    both = np.maximum(light, dark) < POLARITY_RATIO * np.minimum(light, dark)
    return np.where(both, 0, np.where(light > dark, 1, -1))


def find_lines(
    probe: Probe, h: np.ndarray, rows: int, cols: int, window: float, look: Look | None, per_square: int = 2
) -> tuple[Lines, Look]:
    """Search every grid line within ``window`` squares of its predicted place. ``look``
    None: try every channel (and both polarities) and keep the one that finds most lines."""
    px = probe.px(h, rows, cols)
    step = 1.0 / px
    width = max(1, round(LINE_WIDTH * px))
    reach = max(2, round(window * px))
    along = (np.arange(FIT_ALONG) - (FIT_ALONG - 1) / 2) * ALONG_STEP
    pad = (reach + width + 1) / px
    view = probe.board_view(h, px, -pad, cols + pad, None if look is None else look[0], -pad, rows + pad)
    resp_all, meta = [], []
    for family, (n_lines, n_along) in enumerate(((cols, rows), (rows, cols))):
        ks = np.arange(n_lines + 1, dtype=np.float64)
        ts = (np.arange(n_along * per_square) + 0.5) / per_square
        prof, inside = view.profiles(family, ks, ts, reach + width, along)
        if look is None:
            prof = np.moveaxis(prof, -1, 0)  # channels first
        resp = ridge(prof, width)
        at_k, at_t = np.nonzero(inside)
        resp_all.append(resp[..., at_k, at_t, :])
        meta.append((np.full(len(at_k), family), ks[at_k], ts[at_t]))
    resp = np.concatenate(resp_all, axis=-2)
    fam = np.concatenate([m[0] for m in meta])
    kk = np.concatenate([m[1] for m in meta])
    tt = np.concatenate([m[2] for m in meta])

    if look is None:
        # Every channel at once, each in its own polarity; the one finding most lines wins.
        # (The channels come innermost from the view: reductions along the profiles run far
        # faster on a copy with the samples innermost.)
        resp = np.ascontiguousarray(resp)
        pol = polarities(resp) if resp.shape[-2] else np.zeros(resp.shape[0], int)
        signed = np.where((pol == 0)[:, None, None], np.abs(resp), resp * pol[:, None, None])
        pos, strength = peaks(signed)
        s = (pos - reach) * step
        thresholds = np.array([probe.threshold(ch) for ch in range(resp.shape[0])])
        found = (strength > thresholds[:, None]) & (np.abs(s) < window)
        ch = int(np.argmax(found.sum(1)))  # the first of equals, as channels are tried in turn
        look = (ch, int(pol[ch]))
        s, strength, found = s[ch], strength[ch], found[ch]
    else:
        pos, strength = line_peaks(resp, look[1])
        s = (pos - reach) * step
        found = (strength > probe.threshold(look[0])) & (np.abs(s) < window)
    return Lines(fam, kk, tt, s, strength, found), look


def beside_tiles(lines: Lines, covered: np.ndarray) -> np.ndarray:
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


def fit_homography(h: np.ndarray, lines: Lines, scale: float, iters: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Refit grid -> image from point-on-line constraints by iteratively reweighted linear
    least squares on G = H^-1 (image -> grid): a point p on line x = k gives
    (G0 - k G2) . p = 0. Returns the homography and the final residuals (squares)."""
    use = lines.found
    fam, k = lines.family[use], lines.k[use]
    gx = np.where(fam == 0, k + lines.s[use], lines.t[use])
    gy = np.where(fam == 0, lines.t[use], k + lines.s[use])
    x, y = project(h, gx, gy)
    hom, resid = fit_points(h, x, y, gx, gy, fam, k, scale, iters)
    if hom is h or not _a_correction(h, hom, gx, gy, scale):
        return h, np.zeros(0)
    return hom, resid


def fit_points(
    h: np.ndarray, x: np.ndarray, y: np.ndarray, gx: np.ndarray, gy: np.ndarray, fam: np.ndarray, k: np.ndarray,
    scale: float, iters: int = 3,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`fit_homography` on image points ``(x, y)`` (at ``(gx, gy)`` on the grid ``h``)
    that lie on the grid lines ``x = k`` (``fam`` 0) or ``y = k`` (1): the homography and the
    residuals (squares), or ``h`` itself and none when the points cannot fix one."""
    if len(x) < 12 or (fam == 0).sum() < 6 or (fam == 1).sum() < 6:
        return h, np.zeros(0)
    # Hartley normalisation of both sides keeps the linear system well conditioned.
    mx, my = x.mean(), y.mean()
    sc = np.sqrt(2) / max(np.mean(np.hypot(x - mx, y - my)), 1e-9)
    t_img = np.array([[sc, 0, -sc * mx], [0, sc, -sc * my], [0, 0, 1]])
    cg = np.array([gx.mean(), gy.mean()])
    sg = np.sqrt(2) / max(np.mean(np.hypot(gx - cg[0], gy - cg[1])), 1e-9)
    t_grid = np.array([[sg, 0, -sg * cg[0]], [0, sg, -sg * cg[1]], [0, 0, 1]])
    p = np.column_stack((sc * (x - mx), sc * (y - my), np.ones(len(x))))
    kn = np.where(fam == 0, sg * (k - cg[0]), sg * (k - cg[1]))
    f0 = (fam == 0)[:, None]
    a = np.column_stack((np.where(f0, p, 0.0), np.where(f0, 0.0, p), -kn[:, None] * p))
    try:
        g_n = t_grid @ np.linalg.inv(h) @ np.linalg.inv(t_img)
    except np.linalg.LinAlgError:
        return h, np.zeros(0)
    w = np.ones(len(x))
    resid = np.zeros(len(x))
    for it in range(iters):
        q = p @ g_n.T
        # (A sample on the fit's horizon, q = 0, is infinitely far off: it weighs nothing.)
        with np.errstate(divide="ignore", invalid="ignore"):
            val = np.where(fam == 0, q[:, 0], q[:, 1]) / q[:, 2]
            resid = (val - kn) / sg
            c = max(scale * (0.5**it), 0.04)
            # Tukey's biweight: a sample off by more than c squares (tile edge, print) weighs nothing.
            w = np.where(np.abs(resid) < c, (1 - (resid / c) ** 2) ** 2, 0.0) / np.abs(q[:, 2])
        w = np.where(np.isfinite(w), w, 0.0)
        if (w > 0).sum() < 12:
            break
        # The smallest right singular vector of the weighted system, from its 9 x 9 normal
        # matrix (the same vector, far cheaper than the SVD of the tall matrix).
        aw = a * w[:, None]
        _, vec = np.linalg.eigh(aw.T @ aw)
        g_n = vec[:, 0].reshape(3, 3)
    try:
        hom = np.linalg.inv(np.linalg.inv(t_grid) @ g_n @ t_img)
    except np.linalg.LinAlgError:
        return h, np.zeros(0)
    if not np.isfinite(hom).all() or abs(hom[2, 2]) < 1e-12:
        return h, np.zeros(0)
    q = p @ g_n.T
    resid = (np.where(fam == 0, q[:, 0], q[:, 1]) / q[:, 2] - kn) / sg
    return hom / hom[2, 2], resid


REFIT_REACH = 4.0  # windows (at least one square) a refit may move the grid by where its lines were sought


def _a_correction(h: np.ndarray, hom: np.ndarray, gx: np.ndarray, gy: np.ndarray, scale: float) -> bool:
    """Whether ``hom`` is the grid ``h`` corrected, not another: over the part of the grid whose
    lines were sought (the box of the samples, ``gx``, ``gy``), it stays on the same side of its
    horizon, and moves no corner of that part farther than a few windows in ``h``'s squares.
    Samples that cover the grid only in part can fit a plane through which the grid folds
    across its horizon, its far corner thrown out by thousands of squares: every view sized
    by such a grid would be as large."""
    box_x = np.array([gx.min(), gx.max(), gx.max(), gx.min()])
    box_y = np.array([gy.min(), gy.min(), gy.max(), gy.max()])
    w = hom[2, 0] * box_x + hom[2, 1] * box_y + hom[2, 2]
    if not (np.all(w > 0) or np.all(w < 0)):
        return False
    x, y = project(hom, box_x, box_y)
    back_x, back_y = project(np.linalg.inv(h), x, y)
    moved = np.hypot(back_x - box_x, back_y - box_y)
    return bool(np.all(np.isfinite(moved)) and moved.max() <= max(1.0, REFIT_REACH * scale))


def refine(
    probe: Probe, h: np.ndarray, rows: int, cols: int, windows: tuple[float, ...], look: Look | None,
    covered: np.ndarray | None = None,
) -> tuple[np.ndarray, Look, Lines]:
    """The grid refitted to the lines found within each window in turn (squares either side of
    a line's predicted place). ``covered``: squares known to hold something, else measured once
    the window is narrow enough to trust the grid."""
    lines = None
    for window in windows:
        # Choosing the channel needs fewer samples than fitting: one per square.
        lines, look = find_lines(probe, h, rows, cols, window, look, 1 if look is None else 2)
        if window <= 0.1:
            # Close enough to know which squares hold tiles: leave their gaps out of the fit
            # while enough of the board's own lines remain.
            covered = covered_squares(probe, h, rows, cols) if covered is None else covered
            beside = beside_tiles(lines, covered)
            if (lines.found & ~beside).sum() >= max(MIN_BOARD_SAMPLES, 0.25 * lines.found.sum()):
                lines.found = lines.found & ~beside
            else:
                lines.gaps = bool((lines.found & beside).any())
        h, _ = fit_homography(h, lines, scale=window)
    assert lines is not None and look is not None
    return h, look, lines


def fit_rigid(h: np.ndarray, lines: Lines, rows: int, cols: int, scale: float, iters: int = 3) -> np.ndarray:
    """The grid moved and turned in its plane (no change of size or perspective) onto the lines
    found across it: robust least squares (Tukey) on the offsets, a line ``x = k`` found at
    ``t`` along it being ``dx - a (t - rows / 2)`` off and a line ``y = k`` ``dy + a (t -
    cols / 2)`` off for a small turn ``a``. For a board nearly covered by tiles: the gaps
    between tiles stand at the height of their faces, a grid a little larger than the board's
    seen from a camera above it, which a full refit would follow; a move and a turn are what a
    mounted camera's drift needs, and the tiles' outward displacement averages out of them."""
    use = lines.found
    fam, t, s = lines.family[use], lines.t[use], lines.s[use]
    if len(s) < 6 or (fam == 0).sum() < 3 or (fam == 1).sum() < 3:
        return h
    a = np.column_stack((fam == 0, fam == 1, np.where(fam == 0, -(t - rows / 2), t - cols / 2))).astype(np.float64)
    sol = np.zeros(3)
    for it in range(iters):
        resid = s - a @ sol
        c = max(scale * 0.5**it, 0.04)
        w = np.where(np.abs(resid) < c, (1 - (resid / c) ** 2) ** 2, 0.0)
        if (w > 0).sum() < 6:
            break
        aw = a * w[:, None]
        try:
            sol = np.linalg.solve(aw.T @ a + 1e-9 * np.eye(3), aw.T @ s)
        except np.linalg.LinAlgError:
            return h
    dx, dy, turn = sol
    cx, cy = cols / 2, rows / 2
    # New grid point (x, y) -> old: turned by `turn` about the middle, then moved.
    m = np.array([[1.0, -turn, turn * cy + dx], [turn, 1.0, -turn * cx + dy], [0, 0, 1]])
    out = h @ m
    return out / out[2, 2]
