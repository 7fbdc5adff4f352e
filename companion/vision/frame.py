"""The board's outline: the finder's last guesses, for a grid whose own lines are too faint for
the pencil search (:mod:`companion.vision.lines`).

A pale board with faint lines, on a cloth of strong checks laid square to it, gives the pencil
search nothing to hold: the cloth's two families of edges take the strongest pencils, and the
board's own lines, too faint to be found as segments, run within a few degrees of them. What
still shows is the board's outline: four long straight edges (its frame, its edge on the cloth)
that stop at its corners, where a cloth's lines run on across the photo. A board is a rectangle
whose sides run with its grid, so its outline gives the grid's perspective; in the outline's
rectified view the grid's lines, however faint, add up along their whole length (the premium
squares' edges lie on them too), and a run of equally spaced lines shows in the profile of the
gradient across each axis, found by the pencil search's own :func:`~companion.vision.lines.find_run`.

The guesses go through the same refinement and judging as every other
(:func:`companion.vision.grid.locate_grid`), which is asked for them only when no other guess
found a grid: no board found before moves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import cv2
import numpy as np

from companion.vision.lines import detect_segments, find_run
from companion.vision.refine import vertex

PIECE = 0.02  # of the photo's longest side: the shortest segment that may be a piece of a side
SAME_LINE_DEG = 1.5  # pieces of one straight side differ by less than this in direction ...
SAME_LINE_PX = 2.0  # ... and lie within this many pixels of its line
SIDE = 0.15  # of the photo's shorter side: the shortest side an outline may have
FAMILY_DEG = 35.0  # opposite sides of a board seen in perspective differ by less than this
CROSSING_DEG = 40.0  # adjacent sides cross at more than this
COVERED = 0.55  # share of each side that pieces of its line must cover
RUN_ON = 0.25  # of a side's length: how far past each corner a side's line is looked along
RUNS_ON = 0.5  # an outline whose sides' lines cover more of that, on average, is lines crossing
LINES = 24  # the longest lines that outlines are made of
OUTLINES = 4  # outlines tried, best first
VIEW = 640  # pixels across the outline's rectified view
INSET = 0.02  # of the view: the outline's own edges, left out of the profiles
FILLS = 0.5  # a board's grid spans at least this share of its outline's width and height
INSIDE = 0.01  # of the photo's shorter side: how far inside the photo an outline's corners lie


@dataclass(frozen=True)
class _Line:
    point: np.ndarray  # a point on the line
    direction: np.ndarray  # unit vector along it
    pieces: np.ndarray  # (K, 2): the intervals its segments cover, in distance along it from point

    def covered(self, lo: float, hi: float) -> float:
        """Length of [lo, hi] (along the line) that its pieces cover (they are disjoint)."""
        return float(np.sum(np.clip(np.minimum(self.pieces[:, 1], hi) - np.maximum(self.pieces[:, 0], lo), 0.0, None)))

    def at(self, t: float) -> np.ndarray:
        return self.point + t * self.direction

    def where(self, p: np.ndarray) -> float:
        return float((p - self.point) @ self.direction)


def _merged(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The union of intervals [a_i, b_i] as disjoint sorted intervals (K, 2)."""
    order = np.argsort(a)
    out: list[list[float]] = []
    for lo, hi in zip(a[order].tolist(), b[order].tolist()):
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return np.array(out, np.float64).reshape(-1, 2)


def _straight_lines(seg: np.ndarray, min_cover: float) -> list[_Line]:
    """Segments joined into straight lines (pieces of one edge broken by tiles, glare or a
    cloth's checks): the longest unjoined segment in turn gathers every other lying along it.
    Lines whose pieces cover at least ``min_cover`` pixels, most covered first."""
    length = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    order = np.argsort(-length)
    seg, length = seg[order], length[order]
    ang = np.arctan2(seg[:, 3] - seg[:, 1], seg[:, 2] - seg[:, 0]) % np.pi
    free = np.ones(len(seg), bool)
    out: list[tuple[float, _Line]] = []
    tol = np.radians(SAME_LINE_DEG)
    for i in range(len(seg)):
        if not free[i]:
            continue
        p, d = seg[i, :2], (seg[i, 2:] - seg[i, :2]) / max(length[i], 1e-9)
        members = np.zeros(len(seg), bool)
        for _ in range(2):
            n = np.array([-d[1], d[0]])
            da = np.abs((ang - np.arctan2(d[1], d[0]) % np.pi + np.pi / 2) % np.pi - np.pi / 2)
            off1 = np.abs((seg[:, :2] - p) @ n)
            off2 = np.abs((seg[:, 2:] - p) @ n)
            members = free & (da < tol) & (off1 < SAME_LINE_PX) & (off2 < SAME_LINE_PX)
            members[i] = True
            # The line refitted to its pieces' ends, weighted by their length (the long ones
            # fix it).
            ends = np.vstack((seg[members, :2], seg[members, 2:]))
            w = np.concatenate((length[members], length[members]))
            centre = (ends * w[:, None]).sum(0) / w.sum()
            cov = ((ends - centre) * w[:, None]).T @ (ends - centre)
            vals, vecs = np.linalg.eigh(cov)
            d = vecs[:, 1] * (1 if vecs[:, 1] @ d >= 0 else -1)
            p = centre
        free &= ~members
        t1 = (seg[members, :2] - p) @ d
        t2 = (seg[members, 2:] - p) @ d
        pieces = _merged(np.minimum(t1, t2), np.maximum(t1, t2))
        line = _Line(p, d, pieces)
        cover = float(np.sum(pieces[:, 1] - pieces[:, 0]))
        if cover >= min_cover:
            out.append((cover, line))
    out.sort(key=lambda x: -x[0])
    return [line for _, line in out]


def _crossing(a: _Line, b: _Line) -> np.ndarray | None:
    m = np.column_stack((a.direction, -b.direction))
    if abs(np.linalg.det(m)) < 1e-6:
        return None
    t = np.linalg.solve(m, b.point - a.point)
    return a.at(float(t[0]))


def outlines(gray: np.ndarray, seg: np.ndarray | None = None) -> list[np.ndarray]:
    """Quadrilaterals (4 x 2 corners, in ``gray``'s pixels) that may be a board's outline, best
    first: four long straight lines, opposite sides within :data:`FAMILY_DEG` of each other,
    each side covered along most of its length by its line's pieces and its lines not running
    on past the corners (a cloth's or a floor's lines cross the whole photo; a board's edges
    end at its corners, though a cloth's line may happen to run on from one of them). Ranked by
    how well the sides are covered less how far they run on."""
    h, w = gray.shape[:2]
    if seg is None:
        seg = detect_segments(gray, max(6.0, PIECE * max(h, w)))
    else:
        seg = seg[np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1]) >= PIECE * max(h, w)]
    if len(seg) < 4:
        return []
    side = SIDE * min(h, w)
    lines = _straight_lines(seg, 0.5 * side)[:LINES]
    n = len(lines)
    if n < 4:
        return []
    d = np.array([ln.direction for ln in lines])
    p = np.array([ln.point for ln in lines])
    angle = np.degrees(np.arccos(np.clip(np.abs(d @ d.T), 0.0, 1.0)))
    normal = np.column_stack((-d[:, 1], d[:, 0]))
    gap = np.abs(np.einsum("ik,ijk->ij", normal, p[None, :, :] - p[:, None, :]))
    crossing: dict[tuple[int, int], np.ndarray | None] = {}

    def cross(i: int, j: int) -> np.ndarray | None:
        key = (min(i, j), max(i, j))
        if key not in crossing:
            crossing[key] = _crossing(lines[key[0]], lines[key[1]])
        return crossing[key]

    # Pairs of opposite sides: near in direction, apart by at least a side.
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if angle[i, j] <= FAMILY_DEG and gap[i, j] >= side]
    # An outline's corners lie in the photo, clear of its border: a side along the border is
    # where the photo was cut, not where a board ends.
    inside = INSIDE * min(w, h)
    found: list[tuple[float, np.ndarray]] = []
    for k, (a, b) in enumerate(pairs):
        for c, e in pairs[k + 1 :]:
            if len({a, b, c, e}) < 4 or min(angle[a, c], angle[a, e], angle[b, c], angle[b, e]) < CROSSING_DEG:
                continue
            sides = (a, c, b, e)  # in turn round the outline
            corners = [cross(sides[m], sides[(m + 1) % 4]) for m in range(4)]
            if any(q is None for q in corners):
                continue
            quad = np.array(corners)
            if (quad < inside).any() or (quad[:, 0] > w - inside).any() or (quad[:, 1] > h - inside).any():
                continue
            s = _outline_score(quad, [lines[sides[(m + 1) % 4]] for m in range(4)])
            if s is None:
                continue
            clockwise = _clockwise(quad)
            if clockwise is not None:
                found.append((s, clockwise))
    found.sort(key=lambda x: -x[0])
    return [q for _, q in found]


def _clockwise(q: np.ndarray) -> np.ndarray | None:
    """The corners clockwise on screen (y down); None when they make no convex quadrilateral."""
    e = np.roll(q, -1, axis=0) - q
    turn = e[:, 0] * np.roll(e[:, 1], -1) - e[:, 1] * np.roll(e[:, 0], -1)
    if not ((turn > 0).all() or (turn < 0).all()):
        return None
    return q if turn[0] > 0 else q[[0, 3, 2, 1]]


def _outline_score(quad: np.ndarray, sides: list[_Line]) -> float | None:
    """How well the lines make this outline (``sides[k]`` runs from corner k to corner k+1):
    each side's share covered by its line's pieces (all at least :data:`COVERED`), less the
    share of the run past the corners they cover."""
    covers, runs = [], []
    for k, line in enumerate(sides):
        t0, t1 = sorted((line.where(quad[k]), line.where(quad[(k + 1) % 4])))
        span = t1 - t0
        if span <= 0:
            return None
        cover = line.covered(t0, t1) / span
        if cover < COVERED:
            return None
        covers.append(cover)
        reach = RUN_ON * span
        runs.append((line.covered(t0 - reach, t0) + line.covered(t1, t1 + reach)) / (2 * reach))
    if np.mean(runs) > RUNS_ON:
        return None
    return float(np.mean(covers) - np.mean(runs))


def _profile_peaks(profile: np.ndarray, offset: int) -> tuple[np.ndarray, np.ndarray]:
    """Local maxima of a gradient profile standing above its local level: (positions, counted
    from ``offset``, where the profile starts in the view; heights)."""
    p = profile.astype(np.float64)
    level = cv2.blur(p.reshape(1, -1), (31, 1), borderType=cv2.BORDER_REFLECT).ravel()
    lift = p - level
    i = np.flatnonzero((lift[1:-1] > 0) & (p[1:-1] >= p[:-2]) & (p[1:-1] > p[2:])) + 1
    if len(i) == 0:
        return np.zeros(0), np.zeros(0)
    return offset + i + vertex(p[i - 1], p[i], p[i + 1]), lift[i]


def _grid_in(gray: np.ndarray, quad: np.ndarray, rows: int, cols: int) -> np.ndarray | None:
    """The homography grid squares -> ``gray`` pixels of the grid inside ``quad``, from the
    runs of lines in its rectified view; None when no run of the grid's count shows."""
    view_corners = np.array([[0, 0], [VIEW, 0], [VIEW, VIEW], [0, VIEW]], np.float32)
    to_view = cv2.getPerspectiveTransform(quad.astype(np.float32), view_corners)
    view = cv2.warpPerspective(gray, to_view, (VIEW, VIEW), flags=cv2.INTER_LINEAR)
    view = cv2.GaussianBlur(view.astype(np.float32), (0, 0), 1.0)
    gx = np.abs(cv2.Sobel(view, cv2.CV_32F, 1, 0, ksize=3))
    gy = np.abs(cv2.Sobel(view, cv2.CV_32F, 0, 1, ksize=3))
    lo, hi = round(INSET * VIEW), round((1 - INSET) * VIEW)
    span = [(lo, hi), (lo, hi)]  # rows (y) and columns (x) of the view the profiles sum over
    runs = [None, None]
    for _ in range(2):
        # Again within the span the other run found: the print beside the grid (a name band,
        # a logo) stays out of the profile across it.
        (y0, y1), (x0, x1) = span
        px = gx[y0:y1, lo:hi].sum(0)
        py = gy[lo:hi, x0:x1].sum(1)
        run_x = find_run(*_profile_peaks(px, lo), cols + 1)
        run_y = find_run(*_profile_peaks(py, lo), rows + 1)
        if run_x is None or run_y is None:
            return None
        runs = [run_y, run_x]
        ex = np.sort(run_x.position(np.array([0.0, cols])))
        ey = np.sort(run_y.position(np.array([0.0, rows])))
        if min(ex[1] - ex[0], ey[1] - ey[0]) < FILLS * VIEW:
            return None
        span = [(max(lo, int(ey[0])), min(hi, int(np.ceil(ey[1])) + 1)), (max(lo, int(ex[0])), min(hi, int(np.ceil(ex[1])) + 1))]
    run_y, run_x = runs
    gxs, gys = np.meshgrid(np.arange(cols + 1, dtype=np.float64), np.arange(rows + 1, dtype=np.float64))
    pts = np.column_stack((run_x.position(gxs.ravel()), run_y.position(gys.ravel()))).astype(np.float32)
    back = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), np.linalg.inv(to_view)).reshape(-1, 2)
    hom, _ = cv2.findHomography(np.column_stack((gxs.ravel(), gys.ravel())), back, 0)
    return hom


def frame_lattices(gray: np.ndarray, rows: int, cols: int, seg: np.ndarray | None = None
                   ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Guesses of the homography grid squares -> ``gray`` pixels from the board's outline, best
    outline first (see the module docstring), each with its outline: the grid refined from it
    must still lie within it (:func:`holds`). ``seg``: ``gray``'s segments when already
    detected, as :func:`outlines` takes them."""
    tried = 0
    for quad in outlines(gray, seg):
        if tried >= OUTLINES:
            return
        tried += 1
        hom = _grid_in(gray, quad, rows, cols)
        if hom is not None and np.isfinite(hom).all():
            yield hom, quad


def holds(outline: np.ndarray, corners: np.ndarray, cell: float) -> bool:
    """Whether the grid's ``corners`` lie within ``outline`` (half a square of slack): a grid
    the refinement moved out of the outline it was guessed in is not that board's."""
    poly = outline.astype(np.float32).reshape(-1, 1, 2)
    return all(cv2.pointPolygonTest(poly, (float(x), float(y)), True) >= -0.5 * cell for x, y in corners)
