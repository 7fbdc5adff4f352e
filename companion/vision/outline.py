"""A tile's own outline: evidence that a separate object stands on a square, whatever its colour.

A pale face (a blank, above all) on a square of nearly its colour fits the square's empty look
as well as a tile's body, and has no letter to say it is there. What still shows it is that
a tile is an object of its own: a face of a tile's size, bounded by its own closed outline
(an edge, a bevel, a gap to the board, a shadow) with ROUNDED corners, lying a little off and
turned from the square's grid. An empty square is bounded only by the board's straight grid
lines, which run on through the square's corners; glare on it is smooth.

The outline is fitted per square at full resolution: each side's edge (the gradient across
it, less the gradient along it) at every inset and small turn, the two opposite sides paired
a tile's width apart (the board's own faces' width, as its lettered faces show it), and then
the four rounded corners of that box looked at along their arcs. What tells a tile is the
corners: a grid line's edge runs straight through a square's corner, a tile's edge bends
round it. The strength of the arcs (their mean, and the second weakest, as a token may lie on
one corner) is compared with what this very photo shows on faces known by their letters and
on squares of the same print known empty: the same light, camera, blur and tile make.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

_INSETS = np.arange(-6.0, 10.0)  # px from the square's side inwards where a face's side may lie
_TURNS = np.tan(np.radians([-4.0, -2.0, 0.0, 2.0, 4.0]))  # a tile's small turn on its square
_SIDE_POINTS = 8  # samples along the middle of a side (clear of the corners)
_CORNER = 0.12  # a face's corner radius, as a fraction of its width
_ARC_DEG = 30.0  # the arc looked at: its middle +- this


def edge_maps(grey: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x and y gradients of a grey picture after a light blur (noise and wood grain)."""
    g = cv2.GaussianBlur(grey.astype(np.float32), (0, 0), 0.8)
    return cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3) / 8, cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3) / 8


def _sample(m: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    w = x.shape[-1]
    return cv2.remap(m, x.astype(np.float32).reshape(-1, w), y.astype(np.float32).reshape(-1, w),
                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(x.shape)


def _across(gn: np.ndarray, gt: np.ndarray) -> np.ndarray:
    """Edge strength across a line: the gradient across it less the gradient along it (a
    corner of straight lines, or texture, has both)."""
    return np.maximum(np.abs(gn) - np.abs(gt), 0.0)


def corner_strength(gx: np.ndarray, gy: np.ndarray, cx: np.ndarray, cy: np.ndarray, cell_px: float,
                    face_px: float) -> np.ndarray:
    """(N, 4) edge strength along the four rounded corners of the face-sized box best fitted
    around each square's centre (cx, cy: (N,) pixels); top-left, top-right, bottom-right,
    bottom-left."""
    n = len(cx)
    h = cell_px / 2
    along = np.linspace(-(h - 0.19 * cell_px), h - 0.19 * cell_px, _SIDE_POINTS)
    inset = _INSETS[:, None, None] + _TURNS[None, :, None] * along[None, None, :]  # inset x turn x point
    strength, turn = [], []
    for k in range(4):  # left, right, top, bottom
        sign = -1.0 if k in (0, 2) else 1.0
        across = cx if k < 2 else cy
        other = cy if k < 2 else cx
        a = across[:, None, None, None] + sign * (h - inset[None])
        b = other[:, None, None, None] + along[None, None, None, :] + 0.0 * inset[None]
        x, y = (a, b) if k < 2 else (b, a)
        gn, gt = (_sample(gx, x, y), _sample(gy, x, y)) if k < 2 else (_sample(gy, x, y), _sample(gx, x, y))
        e = _across(gn, gt).mean(-1)  # N x inset x turn
        strength.append(e.max(2))
        turn.append(_TURNS[e.argmax(2)])
    # Opposite sides a face's width apart (within two pixels): the best pair on each axis.
    gap = cell_px - face_px
    ins = np.zeros((n, 4), np.float32)
    tilt = np.zeros((n, 4), np.float32)
    rows = np.arange(n)
    for a, b in ((0, 1), (2, 3)):
        best = np.full(n, -1.0, np.float32)
        for i, ua in enumerate(_INSETS):
            for slack in (-2.0, -1.0, 0.0, 1.0, 2.0):
                j = int(round(gap - ua + slack - _INSETS[0]))
                if not 0 <= j < len(_INSETS):
                    continue
                total = strength[a][:, i] + strength[b][:, j]
                better = total > best
                best = np.where(better, total, best)
                ins[better, a], ins[better, b] = ua, _INSETS[j]
                tilt[better, a], tilt[better, b] = turn[a][rows, i][better], turn[b][rows, j][better]
    left, right = cx - h + ins[:, 0], cx + h - ins[:, 1]
    top, bottom = cy - h + ins[:, 2], cy + h - ins[:, 3]
    r = _CORNER * np.maximum((right - left + bottom - top) / 2, 1.0)
    reach = h - 0.19 * cell_px
    arcs = []
    for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        # The fitted sides' ends: a side's inset moves with its turn along it.
        vx = np.where(sx < 0, left + tilt[:, 0] * sy * reach, right - tilt[:, 1] * sy * reach)
        vy = np.where(sy < 0, top + tilt[:, 2] * sx * reach, bottom - tilt[:, 3] * sx * reach)
        ax, ay = vx - sx * r, vy - sy * r
        ang = math.atan2(sy, sx) + np.radians(np.linspace(-_ARC_DEG, _ARC_DEG, 5))
        nx, ny = np.cos(ang), np.sin(ang)
        x = ax[:, None] + r[:, None] * nx[None]
        y = ay[:, None] + r[:, None] * ny[None]
        sgx, sgy = _sample(gx, x, y), _sample(gy, x, y)
        # Only the part of the edge no straight line of the grid explains: the lesser of the
        # gradient's x and y parts (nil across a square's own or a neighbour's straight side,
        # whose strong contrast would otherwise leak into the arc's ends), where the edge runs
        # along the arc.
        along_arc = np.abs(sgx * nx + sgy * ny) > np.abs(-sgx * ny + sgy * nx)
        arcs.append(np.where(along_arc, np.minimum(np.abs(sgx), np.abs(sgy)), 0.0).mean(-1))
    return np.stack(arcs, 1)


def outline_features(gx: np.ndarray, gy: np.ndarray, level: np.ndarray, cx: np.ndarray, cy: np.ndarray,
                     cell_px: float, face_px: float) -> np.ndarray:
    """(N, 2) log of the corners' mean strength and of the second weakest corner's (a token
    may lie on one), each relative to the square's level (light and exposure divided out)."""
    arcs = corner_strength(gx, gy, cx, cy, cell_px, face_px) / np.maximum(level, 8.0)[:, None] * 100.0
    return np.log(np.stack([arcs.mean(1), np.sort(arcs, 1)[:, 1]], 1) + 0.3)


_LEAST_SPREAD = 0.25  # log units: a spread never taken as narrower (a few squares agree by chance)
_CAP = 3.0  # log-likelihood the outline may add or take away: evidence, never proof


def _robust(v: np.ndarray) -> tuple[float, float]:
    m = float(np.median(v))
    return m, max(1.4826 * float(np.median(np.abs(v - m))), _LEAST_SPREAD)


def outline_llr(value: np.ndarray, empties: np.ndarray, tiles: np.ndarray) -> np.ndarray:
    """(N,) log-likelihood of a tile's outline against an empty square's, from features
    (N, F) and the features of squares known empty (E, F) and faces known by their letters
    (T, F): two Gaussians (median, MAD) of one pooled spread, so the evidence grows with how
    far apart this photo's faces and empty squares lie (on a board whose thick, blurred grid
    lines round every square's corners, little) and with how far the square lies towards one."""
    out = np.zeros(len(value), np.float32)
    for f in range(value.shape[1]):
        me, se = _robust(empties[:, f])
        mt, st = _robust(tiles[:, f])
        s2 = max((se * se + st * st) / 2, _LEAST_SPREAD**2)
        out += (mt - me) * (value[:, f] - (me + mt) / 2) / s2
    # (The features are of one outline, not independent witnesses: their sum is capped as one.)
    return np.clip(out, -_CAP, _CAP)
