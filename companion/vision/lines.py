"""Straight lines in a photo and the two pencils of lines a board grid makes.

A grid seen in perspective is two families of straight lines; each family meets in one
vanishing point (at infinity when the camera looks straight down). This module finds line
segments, the two dominant vanishing points, the projective map that makes both families
axis-parallel, and the most plausible run of equally spaced lines along one axis. Everything
here is a pure function over numpy arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import cv2
import numpy as np

from companion.vision.medians import median

_LSD = None
JUDGE = 240  # segments that score vanishing-point hypotheses
LSD_SCALE = 1.0  # LSD's own subsampling: none (0.8 saves a third of its time but loses faint lines)
SAME_FAMILY_DEG = 6.0  # two pencils whose lines run closer than this in direction are one family
MIN_INSIDE = 8  # segments of a pencil within the lattice enough to refit its point to them alone
# Pencils whose pairs the usual search tries, and the wider one: a checked cloth's two
# families of lines are often the two strongest pencils in a photo, the board's the next two
# (a striped cloth takes one place only).
USUAL_PENCILS = 4
WIDER_PENCILS = 5
MEET_REACH = 0.5  # how far (in shortest segments) a segment is lengthened to meet a crossing one
MEET_SAMPLES = 16  # points along a segment looked up on the crossing family's mask
RUN_PAST_SPAN = 1.5  # a run of lines may be this many times as long as the span its lines were seen over
LONGER_GAIN = 1.0  # lines a run past 1.25 spans must fit beyond any within them to be taken
MEET_ROUNDS = 2  # refits to the segments that meet (the first can start far off the board's point)


def _lsd() -> cv2.LineSegmentDetector:
    # One detector per process: creating it costs a little, detecting is stateless.
    global _LSD
    if _LSD is None:
        _LSD = cv2.createLineSegmentDetector(cv2.LSD_REFINE_NONE, LSD_SCALE)
    return _LSD


def detect_segments(gray: np.ndarray, min_length: float) -> np.ndarray:
    """Line segments ``(N, 4)`` as ``x1, y1, x2, y2`` of at least ``min_length`` pixels."""
    found = _lsd().detect(gray)[0]
    if found is None:
        return np.zeros((0, 4), np.float64)
    seg = found.reshape(-1, 4).astype(np.float64)
    length = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    return seg[length >= min_length]


@dataclass(frozen=True)
class Pencil:
    """A family of segments that (nearly) meet in one vanishing point."""

    point: np.ndarray  # homogeneous 3-vector, unit norm; third coordinate ~0 at infinity
    members: np.ndarray  # bool mask over the segments given
    support: float  # summed length of the members


def _segment_geometry(seg: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    p1 = np.column_stack((seg[:, :2], np.ones(len(seg))))
    p2 = np.column_stack((seg[:, 2:], np.ones(len(seg))))
    lines = np.cross(p1, p2)
    lines /= np.linalg.norm(lines[:, :2], axis=1, keepdims=True) + 1e-12
    mid = (seg[:, :2] + seg[:, 2:]) / 2
    d = seg[:, 2:] - seg[:, :2]
    length = np.linalg.norm(d, axis=1)
    return lines, mid, d / (length[:, None] + 1e-12), length


def _endpoint_error(vps: np.ndarray, mid: np.ndarray, unit: np.ndarray, length: np.ndarray) -> np.ndarray:
    """For each vanishing point (K, 3) and segment: how far (pixels) the segment's endpoints lie
    from the line joining its midpoint to the vanishing point. (K, N)."""
    # Direction from each midpoint towards each point: (x - w*mx, y - w*my).
    dx = vps[:, None, 0] - vps[:, None, 2] * mid[None, :, 0]
    dy = vps[:, None, 1] - vps[:, None, 2] * mid[None, :, 1]
    norm = np.hypot(dx, dy) + 1e-12
    sin = np.abs(dx * unit[None, :, 1] - dy * unit[None, :, 0]) / norm
    return sin * length[None, :] / 2


def find_pencil(
    seg: np.ndarray,
    rng: np.random.Generator,
    *,
    tolerance: float = 1.0,
    trials: int = 150,
    exclude: np.ndarray | None = None,
    away_from: tuple[np.ndarray, ...] = (),
    geometry: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> Pencil | None:
    """The vanishing point that the greatest length of segments points at (RANSAC over pairs,
    then least squares over the members). ``exclude`` masks segments already explained;
    ``away_from`` holds other pencils' points: candidates whose members run in nearly the same
    directions as one of them are skipped (two pencils of one grid cross at a clear angle).
    ``geometry``: :func:`_segment_geometry` of ``seg`` when the caller has it already."""
    n = len(seg)
    if n < 4:
        return None
    lines, mid, unit, length = _segment_geometry(seg) if geometry is None else geometry
    free = np.ones(n, bool) if exclude is None else ~exclude
    idx = np.flatnonzero(free)
    if len(idx) < 4:
        return None
    # Hypotheses are scored on a sample of the segments drawn in proportion to their length,
    # each counting once: the count estimates the length a point gathers without measuring
    # every segment. Not the longest alone: a striped table's long stripes would then outvote
    # a grid whose lines tiles and crossings break into short pieces.
    share = length[idx] / length[idx].sum()
    judge = rng.choice(idx, JUDGE, p=share) if len(idx) > JUDGE else idx
    # Long segments are the precise ones: draw them more often.
    p = length[idx] ** 2
    p /= p.sum()
    a = rng.choice(idx, trials, p=p)
    b = rng.choice(idx, trials, p=p)
    keep = a != b
    vps = np.cross(lines[a[keep]], lines[b[keep]])
    vps /= np.linalg.norm(vps, axis=1, keepdims=True) + 1e-12
    err = _endpoint_error(vps, mid[judge], unit[judge], length[judge])
    inl = err < tolerance
    score = inl.sum(1).astype(np.float64) if len(idx) > JUDGE else inl.astype(np.float64) @ length[judge]
    for other in away_from or ():
        # A candidate too close in direction to another pencil is the same family again.
        cos_other = _mean_direction_cos(vps, other, mid[judge], length[judge], inl)
        score = np.where(cos_other > np.cos(np.radians(SAME_FAMILY_DEG)), 0.0, score)
    best = int(np.argmax(score))
    if score[best] <= 0:
        return None
    vp = vps[best]
    members = np.zeros(n, bool)
    members[judge[inl[best]]] = True
    for _ in range(3):
        vp = _fit_point(lines[members], length[members])
        members = (_endpoint_error(vp[None], mid, unit, length)[0] < tolerance) & free
        if members.sum() < 2:
            return None
    return Pencil(vp, members, float(length[members].sum()))


def _fit_point(lines: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """The point nearest (in least squares) to all lines: smallest eigenvector of sum w l l^T."""
    m = (lines * weight[:, None]).T @ lines
    _, vec = np.linalg.eigh(m)
    v = vec[:, 0]
    return v / np.linalg.norm(v)


def _mean_direction_cos(vps: np.ndarray, other: np.ndarray, mid: np.ndarray, length: np.ndarray, inl: np.ndarray) -> np.ndarray:
    """|cos| between the direction to each candidate point and to ``other``, taken at the
    length-weighted centre of the candidate's members."""
    w = inl * length[None, :]
    tot = w.sum(1) + 1e-12
    cx = (w @ mid[:, 0]) / tot
    cy = (w @ mid[:, 1]) / tot

    def direction(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        dx = v[..., 0] - v[..., 2] * cx
        dy = v[..., 1] - v[..., 2] * cy
        n = np.hypot(dx, dy) + 1e-12
        return dx / n, dy / n

    ax, ay = direction(vps)
    bx, by = direction(np.broadcast_to(other, vps.shape))
    return np.abs(ax * bx + ay * by)


def rectifying_map(v1: np.ndarray, v2: np.ndarray, origin: tuple[float, float]) -> np.ndarray:
    """A homography (image -> plane) sending ``v1`` to the x-direction at infinity and ``v2``
    to the y-direction, ``origin`` to (0, 0): lines through ``v1`` become horizontal (constant
    y), lines through ``v2`` vertical (constant x). Near ``origin`` one unit is about a pixel."""
    o = np.array([origin[0], origin[1], 1.0])

    def scaled(v: np.ndarray) -> np.ndarray:
        # Scale so that the point moves about one pixel per unit near the origin: for a point at
        # infinity that is its unit direction; for a finite one, the direction seen from o.
        d = v[:2] - v[2] * o[:2]
        return v / (np.linalg.norm(d) + 1e-12)

    m = np.column_stack((scaled(v1), scaled(v2), o))
    return np.linalg.inv(m)


@dataclass(frozen=True)
class Run:
    """Equally spaced lines along one axis: position of line k is ``(a*k + b) / (c*k + 1)``
    (a 1-D homography, so that a slightly wrong vanishing point still fits)."""

    a: float
    b: float
    c: float
    support: float  # how many of the lines were seen (0..count)
    count: int

    def position(self, k: np.ndarray | float) -> np.ndarray:
        k = np.asarray(k, np.float64)
        return (self.a * k + self.b) / (self.c * k + 1)


def _clusters(values: np.ndarray, weights: np.ndarray, gap: float) -> tuple[np.ndarray, np.ndarray]:
    """Merge sorted 1-D positions closer than ``gap`` (chained) into line candidates:
    (weighted mean positions, summed weights)."""
    order = np.argsort(values)
    v, w = values[order], weights[order]
    label = np.concatenate(([0], np.cumsum(np.diff(v) > gap)))
    tot = np.bincount(label, w)
    pos = np.bincount(label, w * v) / np.maximum(tot, 1e-12)
    return pos, tot


def find_run(values: np.ndarray, weights: np.ndarray, count: int, *, tol: float = 0.12) -> Run | None:
    """The run of ``count`` equally spaced lines best supported by segments at ``values``
    (weights = their lengths).

    Hypotheses are pairs of strong line candidates taken as 1, 2 or 3 periods apart; each is
    scored by how many of the ``count`` slots hold a line (each slot's weight saturates, so
    one long board edge cannot outweigh several grid lines). Among hypotheses scoring nearly
    the best, the longest period wins: text, letter strokes and premium-square prints put
    lines between the grid lines, which can make half the period fit as well, while twice the
    true period cannot fit ``count`` lines on the board. The winner is refitted as a 1-D
    homography, which absorbs a slightly wrong vanishing point."""
    if len(values) < 4:
        return None
    ordered = np.sort(values)
    lo, hi = ordered[int(0.01 * (len(values) - 1))], ordered[int(np.ceil(0.99 * (len(values) - 1)))]
    keep = (values >= lo) & (values <= hi)
    values, weights = values[keep], weights[keep]
    span = hi - lo
    if span <= 0 or len(values) < 4:
        return None
    pos, wt = _clusters(values, weights, span / 500)
    n = len(pos)
    if n < 4:
        return None
    top = np.sort(wt)[-min(n, count) :]
    cap = 0.5 * float(top[len(top) // 2] + top[(len(top) - 1) // 2]) / 2  # half their median
    strong = np.flatnonzero(wt >= 0.3 * cap)
    strong = strong[np.argsort(-wt[strong])][:40]
    a_idx, b_idx = np.triu_indices(len(strong), 1)
    i, j = strong[a_idx], strong[b_idx]
    diff = np.abs(pos[j] - pos[i])
    anchor = np.minimum(pos[i], pos[j])
    periods = np.concatenate([diff / m for m in (1, 2, 3)])
    anchors = np.tile(anchor, 3)
    # The grid may reach past the trimmed span (its outer lines are the extreme values, and
    # a frame or tiles can hide them): a run somewhat longer than the span is allowed; one
    # much longer (the photo cut the board's far rows off) only when it fits clearly better.
    ok = (periods * (count - 1) <= span * RUN_PAST_SPAN) & (periods * (count - 1) >= span * 0.08)
    periods, anchors = periods[ok], anchors[ok]
    longer = periods * (count - 1) > span * 1.25
    if len(periods) == 0:
        return None
    rel = (pos[None, :] - anchors[:, None]) / periods[:, None]  # (H, n)
    k = np.rint(rel)
    resid = np.abs(rel - k)
    kk = (k + count).astype(int)
    inl = (resid < tol) & (kk >= 0) & (kk <= 2 * count)
    hyp = len(periods)
    val = np.where(inl, wt[None, :] * (1 - resid / tol), 0.0)
    # Sum each hypothesis' support per slot (one bincount over hypothesis x slot).
    flat = (np.arange(hyp)[:, None] * (2 * count + 1) + np.clip(kk, 0, 2 * count)).ravel()
    slots = np.bincount(flat, val.ravel(), hyp * (2 * count + 1)).reshape(hyp, 2 * count + 1)
    slots = np.minimum(slots / cap, 1.0)
    csum = np.column_stack((np.zeros(hyp), np.cumsum(slots, axis=1)))
    win = csum[:, count:] - csum[:, :-count]
    start = np.argmax(win, axis=1)
    score = win[np.arange(hyp), start]
    # Among the runs that fit nearly the best, the longest period wins (see above); runs far
    # past the span compete only when one fits more lines than any within it.
    within = score[~longer].max(initial=0.0)
    pool = (score > within + LONGER_GAIN) if score[longer].max(initial=0.0) > within + LONGER_GAIN else ~longer
    near = np.flatnonzero(pool & (score >= 0.85 * score[pool].max()))
    best = int(near[np.argmax(periods[near])])
    k0 = start[best] - count
    kb = k[best] - k0
    use = inl[best] & (kb >= 0) & (kb < count)
    run = _fit_run(kb[use], pos[use], wt[use])
    if run is None:
        return None
    for _ in range(2):
        # Again with the refitted (possibly non-uniform) run: pick up lines the straight
        # spacing missed.
        p = run.position(np.arange(count, dtype=np.float64))
        step = np.abs(np.gradient(p))
        slot = np.argmin(np.abs(pos[:, None] - p[None, :]), axis=1)
        r = np.abs(pos - p[slot]) / step[slot]
        use = r < tol
        fitted = _fit_run(slot[use].astype(np.float64), pos[use], wt[use])
        if fitted is None:
            break
        run = fitted
    return Run(run.a, run.b, run.c, float(score[best]), count)


def _fit_run(k: np.ndarray, x: np.ndarray, w: np.ndarray) -> Run | None:
    """Weighted least squares for x = (a k + b) / (c k + 1), linearised as x = a k + b - c k x;
    the straight fit when there are too few lines for the projective term."""
    if len(k) < 2:
        return None
    # Weights as squared: the normal equations of the weighted system (3 x 3 at most).
    ww = np.minimum(w / (median(w) + 1e-12), 3.0)
    if len(set(k.tolist())) >= 5:
        a_mat = np.column_stack((k, np.ones_like(k), -k * x))
        try:
            a, b, c = np.linalg.solve((a_mat * ww[:, None]).T @ a_mat, (a_mat * ww[:, None]).T @ x)
        except np.linalg.LinAlgError:
            c = np.inf
        # A wild projective term means the fit is not to be trusted: fall back to straight.
        if abs(c) * len(k) < 0.5:
            return Run(float(a), float(b), float(c), 0.0, 0)
    a_mat = np.column_stack((k, np.ones_like(k)))
    try:
        sol = np.linalg.solve((a_mat * ww[:, None]).T @ a_mat, (a_mat * ww[:, None]).T @ x)
    except np.linalg.LinAlgError:
        return None
    return Run(float(sol[0]), float(sol[1]), 0.0, 0.0, 0)


THIN_REACH = 0.007  # of the image's longest side: how far either side of a segment the surfaces it parts lie
THIN_SIDES = 0.5  # the two sides differ by less than this share of the line's contrast: a line


HAT = 0.01  # of the image's longest side: the widest line the line picture keeps


def line_picture(gray: np.ndarray) -> np.ndarray:
    """The thin lines of a grey picture, light and dark alike, stretched to the full range:
    its top-hat and black-hat over a square a little wider than a board's line. A surface
    wider than that (a square, a cloth's check or stripe, a premium square) and the edge
    between two of them vanish; a grid's lines stand out however faint, and a checked cloth
    leaves only specks at its checks' corners."""
    k = max(3, 2 * round(HAT * max(gray.shape[:2]) / 2) + 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    light = cv2.morphologyEx(gray, cv2.MORPH_TOPHAT, kernel)
    hats = cv2.max(light, cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, kernel))
    return cv2.normalize(hats, None, 0, 255, cv2.NORM_MINMAX)


def thin_lines(gray: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """Which segments lie on a thin line rather than on an edge: the same surface either side,
    and something darker or lighter between (a bool mask over ``seg``).

    A board's grid is thin lines between squares of one colour; a checked cloth, a striped
    one, a table's edge and a tile's side are edges between two surfaces of different colour.
    LSD finds both alike (a line as two segments, one on each flank); this keeps the board's
    (and letters' strokes, which fit no lattice)."""
    if len(seg) == 0:
        return np.zeros(0, bool)
    g = gray.astype(np.float32)
    _, _, unit, _ = _segment_geometry(seg)
    normal = np.column_stack((-unit[:, 1], unit[:, 0]))
    ts = np.array([0.25, 0.5, 0.75])
    pts = seg[:, None, :2] + ts[None, :, None] * (seg[:, None, 2:] - seg[:, None, :2])  # (N, 3, 2)
    reach = max(3, round(THIN_REACH * max(gray.shape[:2])))
    offs = np.arange(-reach, reach + 1, dtype=np.float64)
    at = pts[:, :, None, :] + offs[None, None, :, None] * normal[:, None, None, :]  # (N, 3, offsets, 2)
    map_x = at[..., 0].reshape(-1, len(offs)).astype(np.float32)
    map_y = at[..., 1].reshape(-1, len(offs)).astype(np.float32)
    v = cv2.remap(g, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    v = v.reshape(len(seg), len(ts), len(offs))
    # The segment lies on one flank of a line: the line is within reach - 2 of it either way,
    # the surfaces beyond.
    left, right = v[..., :2].mean(-1), v[..., -2:].mean(-1)
    contrast = np.abs(v[..., 2:-2] - 0.5 * (left + right)[..., None]).max(-1)
    line = (np.abs(left - right) < THIN_SIDES * contrast) & (contrast > 2.0)
    return line.sum(1) >= 2  # at two of the three places along it


def coarse_min_length(shape: tuple[int, ...]) -> float:
    """The shortest segment (pixels) the pencil search takes in a picture of ``shape``."""
    return max(6.0, 0.01 * max(shape[:2]))


def coarse_lattices(
    gray: np.ndarray, rows: int, cols: int, rng: np.random.Generator, thin: bool = False,
    segments: np.ndarray | None = None,
) -> Iterator[np.ndarray | None]:
    """First guesses of the homography grid squares -> ``gray`` pixels, best first; a None
    between the usual guesses and the wider search, which the caller asks for only when no
    guess here or on a larger copy has found the grid.

    The strongest pencils of segments are found in turn (each away in direction from those
    before); each pair of them is tried as the grid's two families, the strongest pair first.
    A striped table or a floor's boards make a pencil of their own, a checked cloth two: the
    board's pair is then a later one (pairs of the first :data:`USUAL_PENCILS`). The map that sends a pair's vanishing points to infinity makes the grid
    axis-parallel (up to a small projective error), and a run of equally spaced lines is then
    sought along each axis. The family with more support goes first; segments of the other
    family must then be at least half a square long and lie across the first run, which drops
    letter strokes, print and carpet texture. A guess may be off by whole squares (a band of
    print beside the grid can pass for a row): :func:`companion.vision.grid.locate_grid`
    settles that on the image.

    After each guess, when it does not end the search, a second from the same pair: its points
    refitted to their segments on the lattice found (:func:`_on_the_grid`), when that moves
    the lattice by half a square or more.

    The wider search (after the None), for a grid the usual guesses missed: every pair of the
    first :data:`WIDER_PENCILS` pencils, each refitted to its segments that meet the other's
    (:func:`_where_they_meet`). A table's stripes running within a few degrees of one family
    join its pencil and pull its point off the board's (the lines then fan by a square across
    the board, and the stripes' own even spacing competes with the grid's); the board's two
    families meet all over the board, the stripes only along its edge.

    ``segments``: ``gray``'s segments of :func:`coarse_min_length` or more, when already
    detected (not with ``thin``, whose segments are of another picture).
    """
    h, w = gray.shape[:2]
    min_length = coarse_min_length(gray.shape)
    if thin:
        seg = detect_segments(line_picture(gray), min_length)
        seg = seg[thin_lines(gray, seg)]
    else:
        seg = detect_segments(gray, min_length) if segments is None else segments
    found: list[Pencil] = []
    used = np.zeros(len(seg), bool)
    geometry = _segment_geometry(seg)  # (the same for every pencil sought)

    there = WIDER_PENCILS  # (lowered to the count found once no further pencil is there)

    def pencils(count: int) -> int:
        # Pencils are found only when a pair needs them: the first pair is usually the grid.
        nonlocal used, there
        while len(found) < min(count, there):
            p = find_pencil(seg, rng, exclude=used, away_from=tuple(q.point for q in found), geometry=geometry)
            if p is None:
                there = len(found)
                break
            found.append(p)
            used = used | p.members
        return len(found)

    for i, j in ((i, j) for j in range(1, USUAL_PENCILS) for i in range(j)):
        if pencils(j + 1) <= j:
            break
        hom = _lattice(seg, found[i], found[j], rows, cols, w, h)
        if hom is not None:
            yield hom
            # (Only sought when the caller asks for the next guess.)
            again = _on_the_grid(seg, geometry, found[i], found[j], hom, rows, cols, w, h)
            if again is not None:
                yield again
    yield None
    for j in range(1, WIDER_PENCILS):
        if pencils(j + 1) <= j:
            return
        for i in range(j):
            met = _where_they_meet(seg, geometry, found[i], found[j], MEET_REACH * min_length, (h, w))
            if met is not None:
                hom = _lattice(seg, met[0], met[1], rows, cols, w, h)
                if hom is not None:
                    yield hom


def _meeting(seg: np.ndarray, a: np.ndarray, b: np.ndarray, reach: float, shape: tuple[int, int]) -> np.ndarray:
    """Which segments of mask ``a`` touch one of mask ``b``, both lengthened by ``reach``
    pixels at each end (LSD ends a line's segment a pixel or two short of a crossing line):
    a bool mask over ``seg``."""

    def lengthened(s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        d = s[:, 2:] - s[:, :2]
        n = np.linalg.norm(d, axis=1)
        unit = d / (n[:, None] + 1e-12)
        return s[:, :2] - reach * unit, unit, n + 2 * reach

    # b's segments drawn (as thick as the reach) on a mask; a's sampled along their length.
    mask = np.zeros(shape, np.uint8)
    start, unit, n = lengthened(seg[b])
    ends = np.round(np.stack((start, start + n[:, None] * unit), 1)).astype(np.int32)
    cv2.polylines(mask, list(ends), False, 1, 1 + 2 * int(np.ceil(reach / 2)))
    ia = np.flatnonzero(a)
    start, unit, n = lengthened(seg[ia])
    t = np.linspace(0.0, 1.0, MEET_SAMPLES)
    pts = start[:, None, :] + (t[None, :, None] * n[:, None, None]) * unit[:, None, :]
    x = np.clip(np.round(pts[..., 0]).astype(int), 0, shape[1] - 1)
    y = np.clip(np.round(pts[..., 1]).astype(int), 0, shape[0] - 1)
    out = np.zeros(len(seg), bool)
    out[ia[mask[y, x].any(1)]] = True
    return out


def _where_they_meet(
    seg: np.ndarray, geometry: tuple[np.ndarray, ...], p1: Pencil, p2: Pencil, reach: float, shape: tuple[int, int]
) -> tuple[Pencil, Pencil] | None:
    """Both pencils refitted (as :func:`_refit_inside`) to their segments that meet a segment
    of the other, or None when too few do."""
    _, mid, unit, length = geometry
    for k in range(MEET_ROUNDS):
        q1 = _refit_inside(p1, geometry, _meeting(seg, p1.members, p2.members, reach, shape), p2.members)
        q2 = _refit_inside(p2, geometry, _meeting(seg, p2.members, p1.members, reach, shape), p1.members)
        if q1 is None or q2 is None:
            return None
        if k + 1 < MEET_ROUNDS:
            # Again from every segment pointing at the refitted points: lines of the board
            # that the stripes' pull had left out (the far half of a family) now join.
            near = _endpoint_error(np.array([q1.point, q2.point]), mid, unit, length) < 1.0
            p1 = Pencil(q1.point, near[0] & ~near[1], q1.support)
            p2 = Pencil(q2.point, near[1] & ~near[0], q2.support)
    return q1, q2


def _refit_inside(p: Pencil, geometry: tuple[np.ndarray, ...], inside: np.ndarray, taken: np.ndarray) -> Pencil | None:
    """The pencil's point refitted to its segments within the grid alone (as
    :func:`find_pencil` refits its members), or None when too few lie there."""
    lines, mid, unit, length = geometry
    members = p.members & inside
    for _ in range(3):
        if members.sum() < MIN_INSIDE:
            return None
        vp = _fit_point(lines[members], length[members])
        members = (_endpoint_error(vp[None], mid, unit, length)[0] < 1.0) & inside & ~taken
    if members.sum() < MIN_INSIDE:
        return None
    return Pencil(vp, members, float(length[members].sum()))


def _on_the_grid(
    seg: np.ndarray, geometry: tuple[np.ndarray, ...], p1: Pencil, p2: Pencil, hom: np.ndarray, rows: int, cols: int, w: int, h: int
) -> np.ndarray | None:
    """The lattice again, from the pencils' segments that lie on the lattice found, when it
    differs from ``hom`` by half a square or more somewhere; else None.

    A pencil gathers every segment pointing at its vanishing point, wherever it lies: a striped
    table or floorboards running within a few degrees of one family of the grid join it, and
    their long stripes pull its point off the board's, which skews that family by squares at
    the board's far end (beyond what the refinement can pull back). The board's own lines lie
    on the board: refitted to the segments whose middles fall within the lattice (half a square
    of margin), each point is the board's, and the lattice is found again from them. It is a
    second guess, not a replacement: the board's frame and the long edges beyond the grid fix
    a pencil's point more precisely where nothing beside the board joins it."""
    try:
        inv = np.linalg.inv(hom)
    except np.linalg.LinAlgError:
        return None
    mid = geometry[1]
    q = np.column_stack((mid, np.ones(len(mid)))) @ inv.T
    with np.errstate(divide="ignore", invalid="ignore"):
        gx, gy = q[:, 0] / q[:, 2], q[:, 1] / q[:, 2]
    inside = (gx > -0.5) & (gx < cols + 0.5) & (gy > -0.5) & (gy < rows + 0.5)
    if inside.all():
        return None  # nothing off the grid to leave out
    q1 = _refit_inside(p1, geometry, inside, p2.members)
    q2 = _refit_inside(p2, geometry, inside, p1.members)
    if q1 is None or q2 is None:
        return None
    again = _lattice(seg, q1, q2, rows, cols, w, h)
    if again is None:
        return None
    corners = np.array([[0, 0], [cols, 0], [cols, rows], [0, rows]], np.float64).reshape(-1, 1, 2)
    moved = cv2.perspectiveTransform(cv2.perspectiveTransform(corners, again), inv).reshape(-1, 2) - corners.reshape(-1, 2)
    return again if np.abs(moved).max() >= 0.5 else None


def _lattice(seg: np.ndarray, p1: Pencil, p2: Pencil, rows: int, cols: int, w: int, h: int) -> np.ndarray | None:
    rect = rectifying_map(p1.point, p2.point, (w / 2, h / 2))

    def to_rect(pts: np.ndarray) -> np.ndarray:
        q = np.column_stack((pts, np.ones(len(pts)))) @ rect.T
        return q[:, :2] / q[:, 2:3]

    a, b = to_rect(seg[:, :2]), to_rect(seg[:, 2:])
    # Pencil 1 becomes horizontal lines (constant y, extent along x); pencil 2 vertical.
    families = [
        (p1.members, (a[:, 1] + b[:, 1]) / 2, np.minimum(a[:, 0], b[:, 0]), np.maximum(a[:, 0], b[:, 0])),
        (p2.members, (a[:, 0] + b[:, 0]) / 2, np.minimum(a[:, 1], b[:, 1]), np.maximum(a[:, 1], b[:, 1])),
    ]
    counts = (rows + 1, cols + 1)
    runs: list[Run | None] = [None, None]
    first = 0 if p1.support >= p2.support else 1
    for f in (first, 1 - first, first):
        members, centre, lo, hi = families[f]
        use = members.copy()
        other = runs[1 - f]
        if other is not None:
            ends = other.position(np.array([0.0, counts[1 - f] - 1]))
            per = abs(ends[1] - ends[0]) / (counts[1 - f] - 1)
            mid = (lo + hi) / 2
            use &= (hi - lo >= 0.5 * per) & (mid > ends.min() - 0.5 * per) & (mid < ends.max() + 0.5 * per)
        run = find_run(centre[use], (hi - lo)[use], counts[f])
        if run is None:
            return None
        runs[f] = run
    run_y, run_x = runs
    assert run_x is not None and run_y is not None
    gx, gy = np.meshgrid(np.arange(cols + 1, dtype=np.float64), np.arange(rows + 1, dtype=np.float64))
    pr = np.column_stack((run_x.position(gx.ravel()), run_y.position(gy.ravel()), np.ones(gx.size)))
    pi = pr @ np.linalg.inv(rect).T
    if np.any(np.abs(pi[:, 2]) < 1e-12) or np.sign(pi[:, 2]).min() != np.sign(pi[:, 2]).max():
        return None  # the run crosses the horizon: not a board
    pi = pi[:, :2] / pi[:, 2:3]
    hom, _ = cv2.findHomography(np.column_stack((gx.ravel(), gy.ravel())), pi, 0)
    return hom
