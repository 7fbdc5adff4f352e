"""The synthetic renderer: board photos with known truth.

:func:`render` draws a :class:`~companion.sim.scene.SceneSpec` as a camera would see it and
returns the image with its exact truth in the board-reading contract's form. It is a pure
function of the spec, the seed and the frame number: the same arguments give a byte-identical
image. :func:`hand_sequence` renders a hand passing over a fixed board, frame by frame.

How a photo is made, in order:

1. A pinhole camera is placed from the spec (tilt, lean, roll, distance from ``fill``).
   World coordinates are the board's grid squares: ``x`` along a row, ``y`` down the columns,
   ``z`` into the board (heights above the board are negative ``z``).
2. The table (texture and clutter) is drawn in the image; the board's edge slab and its top,
   painted flat at a resolution near the image's own, are projected onto it.
3. Tiles are 3-D rounded slabs: their side faces are filled polygons, their faces (letter,
   value, bevel) textures projected at the face's height. Tiles, backs and tokens are drawn from
   the farthest to the nearest, after soft contact shadows.
4. A hand (fingers, palm, forearm, sleeve, maybe a held tile) and its soft cast shadow.
5. Radial lens distortion (a remap), then light: illumination gradient, shadows, glare, white
   balance, blur, sensor noise, JPEG round trip.

Truth conventions (see also ``RenderedScene``):

- Cells follow the contract's orientation: row 0 is the grid edge nearest the top of the image.
  The quarter turn between the board as printed (the spec's ``content``) and that orientation is
  ``quarter_turns``; rotations in the truth are seen from the image's bottom edge.
- A face-up blank (``?``) has rotation 0 in the truth, whatever the spec says: nothing is
  printed on it, so nobody can see its turn.
- A token on a face-up tile lies in the tile's own top-left corner (the letter upright), clear
  of the letter and the value: the companion's convention (it tells players where to put a
  token, as the dungeon game's treasure), which keeps the print readable. On an empty square or
  a back a token lies anywhere on it. Tokens are small discs (``TOKEN_RADIUS``).
- Faces are printed as measured on real tiles: the letter about half the face high, a little
  above the middle; the value small (0.15 of the face) at the bottom right, clear of the letter
  (``LETTER_CENTRE`` and what follows it).
- ``rgb`` of a tile or back is the mean colour of its rendered face texture (body, bevel, wood
  grain; ink excluded) *before* any light, blur or noise: the colour the set has under neutral
  light, not the pixels a reader will see.
- ``corners`` are image pixels with pixel centres at integer coordinates (OpenCV's convention).
  With lens distortion they are the corners' positions in the distorted image, and ``location``
  is the homography through those four corners: exact at the corners, off inside by the
  distortion (for the ``mounted`` preset up to 0.18 of a square at the middle of an edge, median
  0.06). ``RenderedScene.to_image`` maps grid points exactly, through lens and height.
- ``hand_mask`` covers the hand, arm, sleeve and any held tile (not their shadow). ``covered``
  holds the squares (contract coordinates) of which more than 10 % of the square, or of the
  face of the tile lying on it, is under the hand mask.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

from companion.core.board import Premium, layout_for_grid
from companion.core.tiles import BLANK, get_tileset
from companion.vision.glyphs import atlas_glyph
from companion.vision.grid import GridLocation
from companion.vision.reading import BLANK_TURN, BoardReading, CellReading
from companion.sim.scene import (
    CLOTH_PATTERNS,
    TOKEN_COLOURS,
    BadScene,
    BoardStyle,
    Camera,
    Coord,
    Hand,
    Photo,
    RGB,
    SceneSpec,
    Square,
    TileLook,
)

COVERED_FRACTION = 0.10  # a square counts as covered when more than this much of it is hidden

# Parts of the seed: each part of the scene draws from its own stream, so that adding a hand
# or changing the light does not move the tiles, and frames of a sequence share the board.
_LAYOUT, _TABLE, _LIGHT, _NOISE, _HAND = range(5)


@dataclass(frozen=True, eq=False)
class RenderedScene:
    """A rendered photo and its truth.

    ``image``: BGR uint8, ``camera.size`` (width x height). ``truth``: the contract's reading,
    confidence 1.0 everywhere. ``location``: the grid in the image (contract orientation).
    ``hand_mask``: bool, True on hand/arm pixels. ``covered``: squares hidden by the hand.
    ``quarter_turns``: clockwise quarter turns of the printed board as seen in the image; a
    square ``(r, c)`` of the spec's content is ``to_contract((r, c))`` in the truth.
    """

    image: np.ndarray
    truth: BoardReading
    location: GridLocation
    hand_mask: np.ndarray
    covered: frozenset[Coord]
    quarter_turns: int
    spec: SceneSpec
    seed: int
    view: "_View" = field(repr=False, default=None)  # type: ignore[assignment]

    def to_contract(self, square: Coord) -> Coord:
        """A square of the spec's content (the board as printed) -> the truth's square."""
        return _turn_square(square, self.spec.grid, self.quarter_turns)

    def to_image(self, points: np.ndarray, height: float = 0.0) -> np.ndarray:
        """Exact image pixels (N, 2) of grid points (N, 2) in the truth's (contract) grid
        coordinates, ``height`` squares above the board (a tile's face: its look's
        ``thickness``), through the camera and the lens. Unlike ``location`` it is exact under
        lens distortion and above the board."""
        n = self.spec.grid
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        printed = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), _turn_matrix(n, self.quarter_turns)).reshape(-1, 2)
        canvas = self.view.project(np.column_stack([printed, np.full(len(pts), -float(height))]))
        if self.spec.camera.distortion:
            return _distort_points(self.view, canvas, self.spec.camera)
        return canvas - self.view.pad


# ---------------------------------------------------------------------------------------------
# Geometry


def _turn_square(sq: Coord, n: int, k: int) -> Coord:
    r, c = sq
    for _ in range(k % 4):
        r, c = c, n - 1 - r
    return r, c


def _turn_matrix(n: int, k: int) -> np.ndarray:
    """Contract grid coordinates -> the printed board's grid coordinates, for ``k`` quarter turns."""
    one = np.array([[0, 1, 0], [-1, 0, n], [0, 0, 1]], np.float64)
    return np.linalg.matrix_power(one, k % 4)


@dataclass(frozen=True, eq=False)
class _View:
    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    centre: np.ndarray  # camera centre, world
    size: tuple[int, int]  # the canvas (image plus the pad the lens distortion needs)
    pad: int
    distortion: float

    def project(self, pts: np.ndarray) -> np.ndarray:
        p = np.asarray(pts, np.float64).reshape(-1, 3)
        cam = p @ self.R.T + self.t
        uv = cam @ self.K.T
        return uv[:, :2] / uv[:, 2:3]

    def plane(self, z: float) -> np.ndarray:
        """Homography: world (x, y) at height ``z`` -> canvas pixels."""
        m = np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * z + self.t])
        return self.K @ m

    def depth(self, pts: np.ndarray) -> np.ndarray:
        return (np.asarray(pts, np.float64).reshape(-1, 3) @ self.R.T + self.t)[:, 2]

    def scale_at(self, x: float, y: float, z: float) -> float:
        """Pixels per square near a world point."""
        p = self.project(np.array([[x, y, z], [x + 1, y, z], [x, y + 1, z]]))
        return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 2)


def _board_extent(style: BoardStyle, n: int) -> tuple[float, float, float, float]:
    """The board's outer rectangle in grid coordinates: x0, y0, x1, y1."""
    top, right, bottom, left = style.margin
    return -left, -top, n + right, n + bottom


def _distort_pad(cam: Camera) -> int:
    """Pixels the undistorted canvas needs beyond the image so the remap never reads outside."""
    if not cam.distortion:
        return 0
    w, h = cam.size
    half = max(w, h) / 2
    r = math.hypot(w, h) / 2 / half
    return int(math.ceil(abs(cam.distortion) * r ** 3 * half)) + 4


def _make_view(cam: Camera, style: BoardStyle, n: int) -> _View:
    w, h = cam.size
    pad = _distort_pad(cam)
    f = cam.focal * max(w, h)
    cx = (w - 1) / 2 + pad
    cy = (h - 1) / 2 + pad
    K = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1]], np.float64)
    x0, y0, x1, y1 = _board_extent(style, n)
    target = np.array([(x0 + x1) / 2, (y0 + y1) / 2, 0.0])
    tilt, lean, roll = (math.radians(v) for v in (cam.tilt_deg, cam.lean_deg, cam.roll_deg))
    # Where the camera stands: lean 0 over the bottom edge (+y), turning clockwise seen from above.
    away = np.array([-math.sin(lean) * math.sin(tilt), math.cos(lean) * math.sin(tilt), -math.cos(tilt)])
    z = -away
    down = np.array([0.0, 1.0, 0.0])
    y = down - (down @ z) * z
    y /= np.linalg.norm(y)
    x = np.cross(y, z)
    # Turning the camera anticlockwise about its axis turns the picture clockwise.
    xr = math.cos(roll) * x - math.sin(roll) * y
    yr = math.sin(roll) * x + math.cos(roll) * y
    R = np.stack([xr, yr, z])
    corners = np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], np.float64)
    dist = max(x1 - x0, y1 - y0) * f / (cam.fill * min(w, h))
    for _ in range(6):  # perspective: the board's span is close to inversely proportional to distance
        centre = target + away * dist
        t = -R @ centre
        view = _View(K, R, t, centre, (w + 2 * pad, h + 2 * pad), pad, cam.distortion)
        p = view.project(corners)
        span = max((p[:, 0].max() - p[:, 0].min()) / w, (p[:, 1].max() - p[:, 1].min()) / h)
        dist *= span / cam.fill
    centre = target + away * dist
    view = _View(K, R, -R @ centre, centre, (w + 2 * pad, h + 2 * pad), pad, cam.distortion)
    # Place the board's picture: centred, moved by ``shift``, but kept inside the image when it
    # fits (perspective and roll move it off-centre otherwise). Only the principal point moves.
    p = view.project(corners) - pad
    lo, hi = p.min(axis=0), p.max(axis=0)
    size = np.array([w, h], np.float64)
    move = (size - 1) / 2 - (lo + hi) / 2 + np.asarray(cam.shift) * size
    for i in range(2):
        if hi[i] - lo[i] <= size[i] - 1:
            move[i] = min(max(move[i], -lo[i]), size[i] - 1 - hi[i])
    K = K.copy()
    K[:2, 2] += move
    return _View(K, R, -R @ centre, centre, (w + 2 * pad, h + 2 * pad), pad, cam.distortion)


def _distort_points(view: _View, pts: np.ndarray, cam: Camera) -> np.ndarray:
    """Canvas (undistorted) pixels -> image pixels (distorted, pad removed)."""
    w, h = cam.size
    half = max(w, h) / 2
    c = np.array([(w - 1) / 2, (h - 1) / 2])
    pu = np.asarray(pts, np.float64).reshape(-1, 2) - view.pad - c
    pd = pu.copy()
    for _ in range(30):  # solve pu = pd * (1 - k |pd|^2) for pd
        r2 = (pd ** 2).sum(1, keepdims=True) / half ** 2
        pd = pu / (1 - cam.distortion * r2)
    return pd + c


@lru_cache(maxsize=8)
def _distort_maps(w: int, h: int, k: float, pad: int) -> tuple[np.ndarray, np.ndarray]:
    half = max(w, h) / 2
    xs = (np.arange(w, dtype=np.float32) - (w - 1) / 2)[None, :]
    ys = (np.arange(h, dtype=np.float32) - (h - 1) / 2)[:, None]
    r2 = (xs ** 2 + ys ** 2) / np.float32(half ** 2)
    g = 1 - np.float32(k) * r2
    mx = (xs * g + (w - 1) / 2 + pad).astype(np.float32)
    my = (ys * g + (h - 1) / 2 + pad).astype(np.float32)
    m1, m2 = cv2.convertMaps(mx, my, cv2.CV_16SC2)
    m1.flags.writeable = False
    return m1, m2


# ---------------------------------------------------------------------------------------------
# Glyphs


def _bgr(rgb: Sequence[int]) -> tuple[int, int, int]:
    return int(rgb[2]), int(rgb[1]), int(rgb[0])


@lru_cache(maxsize=4096)
def _glyph(ch: str, font: int, cap_px: float) -> np.ndarray:
    """A character's ink (float32 0..1) scaled so that the font's capital H is ``cap_px`` high."""
    try:
        g = atlas_glyph(ch, font)
    except KeyError:
        raise BadScene(f"the glyph atlas has no {ch!r}") from None
    s = cap_px / atlas_glyph("H", font).shape[0]
    gh, gw = max(1, round(g.shape[0] * s)), max(1, round(g.shape[1] * s))
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    out = cv2.resize(g, (gw, gh), interpolation=interp).astype(np.float32) / 255.0
    out.flags.writeable = False
    return out


def _text(line: str, font: int, cap_px: float, gap: float = 0.12) -> np.ndarray:
    """One line of capitals, bottom-aligned (the glyphs carry no baseline; capitals sit on it)."""
    glyphs = [_glyph(ch, font, cap_px) for ch in line]
    sp = max(1, round(gap * cap_px))
    h = max(g.shape[0] for g in glyphs)
    w = sum(g.shape[1] for g in glyphs) + sp * (len(glyphs) - 1)
    out = np.zeros((h, w), np.float32)
    x = 0
    for g in glyphs:
        out[h - g.shape[0] :, x : x + g.shape[1]] = np.maximum(out[h - g.shape[0] :, x : x + g.shape[1]], g)
        x += g.shape[1] + sp
    return out


def _blend_ink(dst: np.ndarray, ink: np.ndarray, x: int, y: int, colour: Sequence[float]) -> None:
    """Paints ink (0..1) of ``colour`` into ``dst`` (float or uint8 BGR) with its top-left at x, y, clipped."""
    h, w = ink.shape
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + w, dst.shape[1]), min(y + h, dst.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    a = ink[y0 - y : y1 - y, x0 - x : x1 - x, None]
    roi = dst[y0:y1, x0:x1]
    roi[...] = (roi * (1 - a) + np.asarray(colour, np.float32) * a).astype(dst.dtype)


# ---------------------------------------------------------------------------------------------
# The board's top, painted flat


_LABELS = {
    Premium.TW: ("TRIPLE", "WORD", "SCORE"),
    Premium.DW: ("DOUBLE", "WORD", "SCORE"),
    Premium.TL: ("TRIPLE", "LETTER", "SCORE"),
    Premium.DL: ("DOUBLE", "LETTER", "SCORE"),
}


@lru_cache(maxsize=64)
def _label(prem: Premium, font: int, px: int) -> np.ndarray:
    lines = [_text(s, font, 0.13 * px) for s in _LABELS[prem]]
    w = max(ln.shape[1] for ln in lines)
    fit = min(1.0, 0.84 * px / w)
    if fit < 1:
        lines = [cv2.resize(ln, (max(1, round(ln.shape[1] * fit)), max(1, round(ln.shape[0] * fit))),
                            interpolation=cv2.INTER_AREA) for ln in lines]
    lh = max(ln.shape[0] for ln in lines)
    step = round(lh * 1.45)
    out = np.zeros((px, px), np.float32)
    y = (px - (step * 2 + lh)) // 2
    for ln in lines:
        x = (px - ln.shape[1]) // 2
        out[y + lh - ln.shape[0] : y + lh, x : x + ln.shape[1]] = ln
        y += step
    return out


def _star(cx: float, cy: float, r: float) -> np.ndarray:
    pts = []
    for i in range(10):
        a = -math.pi / 2 + i * math.pi / 5
        rr = r if i % 2 == 0 else r * 0.42
        pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    return np.array(pts)


@lru_cache(maxsize=6)
def _board_texture(style: BoardStyle, n: int, px: int, label_font: int) -> np.ndarray:
    """The board's top seen from straight above, ``px`` pixels a square, BGR uint8."""
    x0, y0, x1, y1 = _board_extent(style, n)
    W, H = round((x1 - x0) * px), round((y1 - y0) * px)
    tex = np.empty((H, W, 3), np.uint8)
    tex[:] = _bgr(style.frame_colour)
    fr = round(style.frame * px)
    tex[fr : H - fr, fr : W - fr] = _bgr(style.margin_colour)
    ox, oy = -x0 * px, -y0 * px  # texture pixels of the grid's top-left corner

    def box(gx0: float, gy0: float, gx1: float, gy1: float, colour: Sequence[int]) -> None:
        """Fills grid rectangle [gx0, gx1) x [gy0, gy1) exactly (anti-aliased at fractional edges)."""
        a, b = ox + gx0 * px, oy + gy0 * px
        c, d = ox + gx1 * px, oy + gy1 * px
        ia, ib, ic, id_ = int(math.floor(a)), int(math.floor(b)), int(math.ceil(c)), int(math.ceil(d))
        roi = tex[ib:id_, ia:ic].astype(np.float32)
        wx = np.clip(np.minimum(np.arange(ia, ic) + 1, c) - np.maximum(np.arange(ia, ic), a), 0, 1)
        wy = np.clip(np.minimum(np.arange(ib, id_) + 1, d) - np.maximum(np.arange(ib, id_), b), 0, 1)
        cov = (wy[:, None] * wx[None, :])[..., None]
        tex[ib:id_, ia:ic] = (roi * (1 - cov) + np.asarray(_bgr(colour), np.float32) * cov + 0.5).astype(np.uint8)

    if style.band is not None:
        bw = style.margin[("top", "right", "bottom", "left").index(style.band)]
        _draw_band(tex, style, px, bw)
    layout = layout_for_grid(n)
    colour = {Premium.NONE: style.square, Premium.DL: style.dl, Premium.TL: style.tl,
              Premium.DW: style.dw, Premium.TW: style.tw}
    lw = style.line_width
    # The grid: each pixel is the line colour blended with its square's colour by how much of
    # the pixel the square's inside covers (exact anti-aliasing of axis-aligned edges).
    gx0, gy0 = int(math.floor(ox - lw / 2 * px)), int(math.floor(oy - lw / 2 * px))
    gx1, gy1 = int(math.ceil(ox + (n + lw / 2) * px)), int(math.ceil(oy + (n + lw / 2) * px))

    def cover(lo: int, hi: int, origin: float) -> tuple[np.ndarray, np.ndarray]:
        pix = np.arange(lo, hi, dtype=np.float64)
        g0, g1 = (pix - origin) / px, (pix + 1 - origin) / px  # the pixel's extent in squares
        idx = np.clip(np.floor((g0 + g1) / 2), 0, n - 1).astype(np.intp)
        a, b = idx + lw / 2, idx + 1 - lw / 2  # the square's inside
        frac = np.clip((np.minimum(g1, b) - np.maximum(g0, a)) / (g1 - g0), 0, 1)
        return idx, frac.astype(np.float32)

    ci, cf = cover(gx0, gx1, ox)
    ri, rf = cover(gy0, gy1, oy)
    prem_colour = np.array([[_bgr(colour[layout.premium((r, c))]) for c in range(n)] for r in range(n)], np.uint8)
    region = prem_colour[ri][:, ci]
    line = np.asarray(_bgr(style.line), np.float32)
    # Only the pixels that a line touches need blending: whole rows and columns of them.
    rows = np.nonzero(rf < 1)[0]
    cols = np.nonzero(cf < 1)[0]
    wr = (rf[rows, None] * cf[None, :])[..., None]
    region[rows] = (line + (region[rows].astype(np.float32) - line) * wr + 0.5).astype(np.uint8)
    wc = (rf[:, None] * cf[None, cols])[..., None]
    region[:, cols] = (line + (region[:, cols].astype(np.float32) - line) * wc + 0.5).astype(np.uint8)
    tex[gy0:gy1, gx0:gx1] = region
    for r in range(n):
        for c in range(n):
            prem = layout.premium((r, c))
            if prem is Premium.NONE:
                continue
            if style.teeth:
                # Notches of the premium colour reaching into the neighbours, as on the green board.
                k = 3 if prem in (Premium.TW, Premium.DW) else 2
                for i in range(k):
                    s = (i + 1) / (k + 1)
                    tw_, tl_ = 0.085, 0.09
                    for gx0, gy0, gx1, gy1 in (
                        (c + s - tw_ / 2, r - tl_, c + s + tw_ / 2, r),
                        (c + s - tw_ / 2, r + 1, c + s + tw_ / 2, r + 1 + tl_),
                        (c - tl_, r + s - tw_ / 2, c, r + s + tw_ / 2),
                        (c + 1, r + s - tw_ / 2, c + 1 + tl_, r + s + tw_ / 2),
                    ):
                        gx0, gy0 = max(gx0, 0), max(gy0, 0)
                        gx1, gy1 = min(gx1, n), min(gy1, n)
                        if gx1 > gx0 and gy1 > gy0:
                            box(gx0, gy0, gx1, gy1, colour[prem])
            if (r, c) == layout.centre and style.star is not None:
                star = _star(ox + (c + 0.5) * px, oy + (r + 0.5) * px, 0.38 * px)
                cv2.fillPoly(tex, [np.round(star * 16).astype(np.int32)], _bgr(style.star), cv2.LINE_AA, 4)
            elif style.labels:
                lab = _label(prem, label_font, px)
                _blend_ink(tex, lab, round(ox + c * px), round(oy + r * px), _bgr(style.label_ink))
    tex.flags.writeable = False
    return tex


def _draw_band(tex: np.ndarray, style: BoardStyle, px: int, bw: float) -> None:
    """The band along one side: its colour and the game's name, large, along the side."""
    H, W = tex.shape[:2]
    fr = round(style.frame * px)
    band = round(bw * px)
    if style.band in ("left", "right"):
        x = fr if style.band == "left" else W - band
        tex[fr : H - fr, x : x + band - fr] = _bgr(style.band_colour)
        txt = _text(style.band_text, 0, 0.45 * band, gap=0.35)
        txt = cv2.rotate(txt, cv2.ROTATE_90_COUNTERCLOCKWISE)
        if txt.shape[0] > 0.8 * H:
            s = 0.8 * H / txt.shape[0]
            txt = cv2.resize(txt, (max(1, round(txt.shape[1] * s)), round(txt.shape[0] * s)), interpolation=cv2.INTER_AREA)
        _blend_ink(tex, txt, x + (band - fr - txt.shape[1]) // 2, (H - txt.shape[0]) // 2, _bgr(style.band_ink))
    else:
        y = fr if style.band == "top" else H - band
        tex[y : y + band - fr, fr : W - fr] = _bgr(style.band_colour)
        txt = _text(style.band_text, 0, 0.45 * band, gap=0.35)
        if txt.shape[1] > 0.8 * W:
            s = 0.8 * W / txt.shape[1]
            txt = cv2.resize(txt, (round(txt.shape[1] * s), max(1, round(txt.shape[0] * s))), interpolation=cv2.INTER_AREA)
        _blend_ink(tex, txt, (W - txt.shape[1]) // 2, y + (band - fr - txt.shape[0]) // 2, _bgr(style.band_ink))


# ---------------------------------------------------------------------------------------------
# Tile faces


@lru_cache(maxsize=32)
def _face_shape(T: int, corner: float) -> tuple[np.ndarray, np.ndarray]:
    """Alpha (0..1) of a rounded square ``T`` pixels wide, and the bevel's shading (about 1)."""
    big = 4
    r = corner * T * big
    m = np.zeros((T * big, T * big), np.uint8)
    e = T * big - 1
    cv2.rectangle(m, (round(r), 0), (round(e - r), e), 255, -1)
    cv2.rectangle(m, (0, round(r)), (e, round(e - r)), 255, -1)
    for cx, cy in ((r, r), (e - r, r), (r, e - r), (e - r, e - r)):
        cv2.circle(m, (round(cx), round(cy)), round(r), 255, -1)
    alpha = cv2.resize(m, (T, T), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    d = cv2.distanceTransform((alpha > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
    bevel = max(1.5, 0.07 * T)
    ramp = np.clip(1 - d / bevel, 0, 1) ** 1.5
    gx = cv2.Sobel(d, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(d, cv2.CV_32F, 0, 1)
    norm = np.sqrt(gx ** 2 + gy ** 2) + 1e-6
    # Outward normal is -grad(d); light from the top-left (-0.6, -0.8) lights those edges.
    facing = (-gx * -0.6 + -gy * -0.8) / norm
    shade = 1 + ramp * (0.16 * facing - 0.06)
    return alpha, shade.astype(np.float32)


@lru_cache(maxsize=16)
def _grain(T: int, variant: int) -> np.ndarray:
    """Wood grain as a brightness factor around 1: fine stripes with slow waviness."""
    rng = np.random.default_rng(1000 + variant)
    ys, xs = np.mgrid[0:T, 0:T].astype(np.float32) / T
    wave = cv2.resize(rng.standard_normal((4, 4)).astype(np.float32), (T, T), interpolation=cv2.INTER_CUBIC)
    ang = rng.uniform(-0.2, 0.2)
    u = xs * math.sin(ang) + ys * math.cos(ang)
    g = np.sin((u * rng.uniform(14, 30) + 0.35 * wave) * 2 * math.pi)
    fine = cv2.GaussianBlur(rng.standard_normal((T, T)).astype(np.float32), (0, 0), 0.6)
    out = 1 + 0.05 * g + 0.025 * fine + 0.04 * wave / 2
    return out.astype(np.float32)


@lru_cache(maxsize=512)
def _face_factor(T: int, corner: float, kind: str, wood: bool, variant: int) -> np.ndarray:
    """A face's brightness factor around 1: bevel, and wood grain or a back's faint ribs."""
    _, shade = _face_shape(T, corner)
    f = shade.copy()
    if wood:
        f *= _grain(T, variant)
    elif kind == "back":
        # A subtle texture keeps a back from looking like a blank face under any light.
        f *= 1 + 0.03 * np.sin(np.arange(T, dtype=np.float32) * (2 * math.pi / max(3, T / 12)))[None, :]
    f.flags.writeable = False
    return f


# Where a face's print lies, as fractions of the face's edge, measured on real tiles (the
# scrabscrap photos): the letter's box centred a little above the middle, its cap height about
# half the face; the value small (about 0.15 of the face) in the bottom-right corner, well clear
# of the letter (makers leave a visible gap; the letter is made smaller where it would not).
LETTER_CENTRE = (0.49, 0.47)
LETTER_MAX_WIDTH = 0.62
VALUE_RIGHT, VALUE_BOTTOM = 0.87, 0.89
VALUE_GAP = 0.05  # least gap between the letter's box and the value's, on one axis at least
# The companion's convention for a token on a face-up tile: it lies in the tile's own top-left
# corner (the letter upright), where nothing is printed; the companion tells players to put it
# there. On an empty square or a back it may lie anywhere on the square.
TOKEN_RADIUS = 0.10  # squares: a small disc (under 4 mm across on a 19 mm square)
TOKEN_HEIGHT = 0.05
TOKEN_INSET = 0.03  # squares between a token on a face and the face's edges
TOKEN_GAP = 0.05  # least gap between such a token and the letter's ink, fraction of the face


@lru_cache(maxsize=2048)
def _face_ink(letter: str | None, value: int, font: int, T: int, letter_height: float, value_height: float,
              rotation: int, size: float = 0.94) -> np.ndarray:
    """The ink (0..1) of a face: the letter a little above the centre, the value small at the
    bottom right and clear of the letter (see ``LETTER_CENTRE``), all turned clockwise by
    ``rotation``. ``size``: the face's edge in squares (where a token's corner lies on it).
    None or a blank: no ink."""
    ink = np.zeros((T, T), np.float32)
    if letter is None or letter == BLANK:
        ink.flags.writeable = False
        return ink
    digits = _text(str(value), font, value_height * T, gap=0.08)
    dx = round(VALUE_RIGHT * T - digits.shape[1])
    dy = round(VALUE_BOTTOM * T - digits.shape[0])
    g = _glyph(letter, font, letter_height * T)
    s = min(1.0, LETTER_MAX_WIDTH * T / g.shape[1], 0.7 * T / g.shape[0])
    # The token's corner (see TOKEN_RADIUS): the letter's ink keeps clear of it too.
    tc = (TOKEN_INSET + TOKEN_RADIUS) / size * T
    tr = (TOKEN_RADIUS / size + TOKEN_GAP) * T
    gap = VALUE_GAP * T
    scaled = g
    while True:
        h, w = max(1, round(g.shape[0] * s)), max(1, round(g.shape[1] * s))
        x = round(LETTER_CENTRE[0] * T - w / 2)
        y = round(LETTER_CENTRE[1] * T - h / 2)
        if s < 1.0:
            scaled = cv2.resize(g, (w, h), interpolation=cv2.INTER_AREA)
        clear_value = x + w <= dx - gap or y + h <= dy - gap
        ys, xs = np.nonzero(scaled > 0.3)
        clear_token = len(xs) == 0 or float(np.min((xs + x - tc) ** 2 + (ys + y - tc) ** 2)) >= tr * tr
        if (clear_value and clear_token) or s < 0.5:
            break
        s *= 0.96
    g = scaled
    ink[y : y + g.shape[0], x : x + g.shape[1]] = g
    ink[dy : dy + digits.shape[0], dx : dx + digits.shape[1]] = np.maximum(
        ink[dy : dy + digits.shape[0], dx : dx + digits.shape[1]], digits)
    if rotation:
        ink = np.ascontiguousarray(np.rot90(ink, -(rotation // 90)))  # clockwise
    ink.flags.writeable = False
    return ink


@lru_cache(maxsize=4096)
def _face(look: TileLook, kind: str, letter: str | None, value: int, font: int, T: int, rotation: int,
          variant: int) -> tuple[np.ndarray, tuple[int, int, int]]:
    """A tile's face (or back) seen from straight above: BGRA uint8, ``T`` x ``T``, and its
    mean body colour (r, g, b) with the ink left out."""
    alpha, _ = _face_shape(T, look.corner)
    f = _face_factor(T, look.corner, kind, look.wood, variant if look.wood else 0)
    ink = _face_ink(letter if kind == "tile" else None, value, font, T, look.letter_height, look.value_height,
                    rotation, look.size)
    body = np.asarray(_bgr(look.body if kind == "tile" else look.back), np.float32)
    inside = (alpha > 0.5) & (ink < 0.1)
    mean_bgr = body * float(f[inside].mean())
    a = ink[..., None]
    img = body * f[..., None] * (1 - a) + np.asarray(_bgr(look.ink), np.float32) * a
    out = np.empty((T, T, 4), np.uint8)
    out[..., :3] = np.clip(img + 0.5, 0, 255)
    out[..., 3] = np.clip(alpha * 255 + 0.5, 0, 255)
    out.flags.writeable = False
    rgb = tuple(int(round(min(255.0, v))) for v in mean_bgr[::-1])
    return out, rgb  # type: ignore[return-value]


# ---------------------------------------------------------------------------------------------
# Drawing in the canvas


def _composite(canvas: np.ndarray, bgra: np.ndarray, H: np.ndarray) -> None:
    """Projects a BGRA texture into the canvas through homography ``H`` (texture -> canvas)."""
    h, w = bgra.shape[:2]
    corners = cv2.perspectiveTransform(np.array([[[-0.5, -0.5]], [[w - 0.5, -0.5]], [[w - 0.5, h - 0.5]], [[-0.5, h - 0.5]]], np.float64), H).reshape(-1, 2)
    x0 = max(int(math.floor(corners[:, 0].min())) - 1, 0)
    y0 = max(int(math.floor(corners[:, 1].min())) - 1, 0)
    x1 = min(int(math.ceil(corners[:, 0].max())) + 2, canvas.shape[1])
    y1 = min(int(math.ceil(corners[:, 1].max())) + 2, canvas.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    warped = cv2.warpPerspective(bgra, shift @ H, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    a = warped[..., 3:4].astype(np.float32) * (1 / 255)
    roi = canvas[y0:y1, x0:x1]
    roi[...] = (roi * (1 - a) + warped[..., :3] * a + 0.5).astype(np.uint8)


def _bbox(mask: np.ndarray) -> tuple[int, int, int, int] | None:
    """The bounding box (x0, y0, x1, y1) of a uint8 mask's non-zero pixels, or None."""
    x, y, bw, bh = cv2.boundingRect(mask)
    return None if bw == 0 else (x, y, x + bw, y + bh)


def _fill(canvas: np.ndarray, pts: np.ndarray, colour: Sequence[float]) -> None:
    cv2.fillConvexPoly(canvas, np.round(pts * 16).astype(np.int32), tuple(float(v) for v in colour), cv2.LINE_AA, 4)


def _rounded_outline(size: float, corner: float, per_arc: int = 4) -> np.ndarray:
    """A rounded square's outline centred at 0, clockwise in image coordinates (y down)."""
    half, r = size / 2, corner * size
    pts = []
    for cx, cy, a0 in ((half - r, -half + r, -90), (half - r, half - r, 0), (-half + r, half - r, 90), (-half + r, -half + r, 180)):
        for i in range(per_arc + 1):
            a = math.radians(a0 + 90 * i / per_arc)
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return np.array(pts)


@dataclass
class _Piece:
    square: Coord
    sq: Square
    cx: float  # world centre
    cy: float
    yaw: float  # radians
    look: TileLook | None
    variant: int
    token_dx: float
    token_dy: float


def _draw_slab(canvas: np.ndarray, view: _View, outline: np.ndarray, cx: float, cy: float, yaw: float,
               z_top: float, z_bottom: float, colour: Sequence[float], light: np.ndarray) -> np.ndarray:
    """The side faces of an upright prism over ``outline`` (local xy), shaded by their facing.
    Returns the projected top outline."""
    c, s = math.cos(yaw), math.sin(yaw)
    wx = cx + outline[:, 0] * c - outline[:, 1] * s
    wy = cy + outline[:, 0] * s + outline[:, 1] * c
    m = len(outline)
    top3 = np.column_stack([wx, wy, np.full(m, z_top)])
    bot3 = np.column_stack([wx, wy, np.full(m, z_bottom)])
    top = view.project(top3)
    bot = view.project(bot3)
    hull = cv2.convexHull(np.vstack([top, bot]).astype(np.float32)).reshape(-1, 2)
    col = np.asarray(colour, np.float64)
    _fill(canvas, hull, col * 0.5)
    for i in range(m):
        j = (i + 1) % m
        ex, ey = wx[j] - wx[i], wy[j] - wy[i]
        nx, ny = ey, -ex  # outward for a clockwise outline in y-down coordinates
        ln = math.hypot(nx, ny) or 1
        nx, ny = nx / ln, ny / ln
        mid = np.array([(wx[i] + wx[j]) / 2 - view.centre[0], (wy[i] + wy[j]) / 2 - view.centre[1]])
        if nx * -mid[0] + ny * -mid[1] <= 0:
            continue  # faces away from the camera
        k = 0.55 + 0.3 * max(0.0, nx * light[0] + ny * light[1])
        _fill(canvas, np.array([top[i], top[j], bot[j], bot[i]]), col * k)
    return top


def _face_homography(view: _View, cx: float, cy: float, yaw: float, size: float, z: float, T: int) -> np.ndarray:
    """Face texture pixels (centres at integers) -> canvas pixels, for a face at height ``z``."""
    c, s = math.cos(yaw), math.sin(yaw)
    k = size / T
    # texture (u, v) -> local ((u + 0.5) * k - size / 2, ...) -> world, rotated by yaw.
    A = np.array([[c * k, -s * k, cx + (c * (0.5 * k - size / 2) - s * (0.5 * k - size / 2))],
                  [s * k, c * k, cy + (s * (0.5 * k - size / 2) + c * (0.5 * k - size / 2))],
                  [0, 0, 1]], np.float64)
    return view.plane(z) @ A


def _draw_token(canvas: np.ndarray, view: _View, colours: tuple[RGB, RGB], x: float, y: float, z: float) -> None:
    body, rim = colours
    r, h = TOKEN_RADIUS, TOKEN_HEIGHT
    a = np.linspace(0, 2 * math.pi, 28, endpoint=False)
    ring = np.column_stack([np.cos(a), np.sin(a)])
    top = view.project(np.column_stack([x + r * ring[:, 0], y + r * ring[:, 1], np.full(len(a), z - h)]))
    bot = view.project(np.column_stack([x + r * ring[:, 0], y + r * ring[:, 1], np.full(len(a), z)]))
    hull = cv2.convexHull(np.vstack([top, bot]).astype(np.float32)).reshape(-1, 2)
    _fill(canvas, hull, np.asarray(_bgr(rim), float) * 0.8)
    _fill(canvas, top, _bgr(rim))
    inner = view.project(np.column_stack([x + 0.78 * r * ring[:, 0], y + 0.78 * r * ring[:, 1], np.full(len(a), z - h)]))
    _fill(canvas, inner, _bgr(body))
    hl = view.project(np.column_stack([x - 0.3 * r + 0.22 * r * ring[:, 0], y - 0.3 * r + 0.14 * r * ring[:, 1], np.full(len(a), z - h)]))
    _fill(canvas, hl, tuple(min(255, v * 0.6 + 110) for v in _bgr(body)))


# ---------------------------------------------------------------------------------------------
# Table and clutter


def _table(photo: Photo, rng: np.random.Generator, size: tuple[int, int], view: _View) -> np.ndarray:
    if photo.table in CLOTH_PATTERNS:
        return _patterned_cloth(photo, rng, size, view)
    w, h = size
    lw, lh = max(8, w // 4), max(8, h // 4)
    base = np.asarray(_bgr(photo.table_colour), np.float32)
    slow = cv2.resize(rng.standard_normal((6, 6)).astype(np.float32), (lw, lh), interpolation=cv2.INTER_CUBIC)
    f = 1 + 0.05 * slow
    if photo.table == "wood":
        ang = rng.uniform(0, math.pi)
        ys, xs = np.mgrid[0:lh, 0:lw].astype(np.float32)
        u = (xs * math.cos(ang) + ys * math.sin(ang)) / lw
        v = (-xs * math.sin(ang) + ys * math.cos(ang)) / lw
        warp = cv2.resize(rng.standard_normal((5, 5)).astype(np.float32), (lw, lh), interpolation=cv2.INTER_CUBIC)
        f *= 1 + 0.08 * np.sin((v * rng.uniform(40, 90) + 0.6 * warp) * 2 * math.pi).astype(np.float32)
        planks = rng.uniform(0.15, 0.35)
        seam = np.abs(((u / planks) % 1) - 0.5) > 0.495
        f[seam] *= 0.6
    elif photo.table == "cloth":
        period = rng.uniform(10, 40)
        ys, xs = np.mgrid[0:lh, 0:lw].astype(np.float32)
        check = ((np.floor(xs / period) + np.floor(ys / period)) % 2).astype(np.float32)
        f *= 1 - 0.12 * check
        f *= 1 + 0.04 * rng.standard_normal((lh, lw)).astype(np.float32)
    img = base[None, None, :] * f[..., None]
    img = cv2.resize(np.clip(img, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)
    return img


def _patterned_cloth(photo: Photo, rng: np.random.Generator, size: tuple[int, int], view: _View) -> np.ndarray:
    """A cloth printed with a pattern, lying on the table's plane (so it recedes with the board):
    ``checked`` (gingham: stripes of ``table_colour`` across both ways, a half tone where they
    cross, or a plain checkerboard of the two colours), ``striped``, ``patterned`` (dots on a
    lattice). Its period is ``table_period`` squares, turned any way against the board: the
    lines a board finder looks for, in every direction and spacing near the board's own."""
    w, h = size
    q = 2  # drawn at half the canvas's resolution (a cloth's print is soft at its edges)
    lw, lh = max(8, w // q), max(8, h // q)
    ys, xs = np.mgrid[0:lh, 0:lw].astype(np.float64)
    inv = np.linalg.inv(view.plane(0.0))
    pts = np.stack([xs.ravel() * q + (q - 1) / 2, ys.ravel() * q + (q - 1) / 2, np.ones(xs.size)])
    u, v, z = inv @ pts
    beyond = z <= 1e-9  # above the horizon: no table there
    z = np.where(beyond, 1.0, z)
    u, v = (u / z).reshape(lh, lw), (v / z).reshape(lh, lw)
    turn = rng.uniform(0, math.pi / 2)
    period = photo.table_period
    a = (u * math.cos(turn) + v * math.sin(turn)) / period + rng.uniform(0, 1)
    b = (-u * math.sin(turn) + v * math.cos(turn)) / period + rng.uniform(0, 1)
    if photo.table == "checked":
        sa, sb = (a % 1) < 0.5, (b % 1) < 0.5
        if rng.random() < 0.6:  # gingham
            mix = 0.5 * sa + 0.5 * sb
        else:
            mix = (sa ^ sb).astype(np.float64)
    elif photo.table == "striped":
        mix = ((a % 1) < rng.uniform(0.25, 0.6)).astype(np.float64)
    else:
        r = rng.uniform(0.18, 0.32)
        mix = (np.hypot((a % 1) - 0.5, (b % 1) - 0.5) < r).astype(np.float64)
        mix = np.maximum(mix, 0.6 * (np.hypot(((a + 0.5) % 1) - 0.5, ((b + 0.5) % 1) - 0.5) < r / 2))
    mix[beyond.reshape(lh, lw)] = 0.5
    main = np.asarray(_bgr(photo.table_colour), np.float32)
    second = np.asarray(_bgr(photo.table_second), np.float32)
    img = second[None, None, :] * (1 - mix[..., None]) + main[None, None, :] * mix[..., None]
    weave = 1 + 0.04 * rng.standard_normal((lh, lw))
    img = (img * weave[..., None].astype(np.float32))
    return cv2.resize(np.clip(img, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)


def _clutter(canvas: np.ndarray, rng: np.random.Generator, n: int, look: TileLook, font: int, scale: float,
             board: np.ndarray) -> None:
    """Objects lying on the table: cups, paper, pens, a phone, a tile rack, beside the board
    (``board``: its outline in the canvas). Drawn before the board, which covers any overlap."""
    h, w = canvas.shape[:2]
    outline = board.astype(np.float32).reshape(-1, 1, 2)
    for _ in range(n):
        kind = int(rng.integers(5))
        for _try in range(20):
            x, y = rng.uniform(0, w), rng.uniform(0, h)
            if cv2.pointPolygonTest(outline, (float(x), float(y)), True) < -2 * scale:
                break
        else:
            continue  # no room beside the board
        ang = rng.uniform(0, 180)
        colour = tuple(float(v) for v in rng.integers(20, 240, 3))
        shadow = np.zeros((h // 4, w // 4), np.uint8)
        draw: list = []
        if kind == 0:  # a cup seen from above: a disc with a rim and a dark inside
            r = rng.uniform(1.5, 2.5) * scale
            draw = [("circle", (x, y), r, colour), ("circle", (x, y), r * 0.82, tuple(c * 0.35 for c in colour))]
        elif kind == 1:  # paper
            wd, ht = rng.uniform(4, 9) * scale, rng.uniform(5, 11) * scale
            draw = [("rect", (x, y), (wd, ht), ang, tuple(float(v) for v in rng.integers(215, 250, 3)))]
        elif kind == 2:  # a pen
            ln = rng.uniform(5, 8) * scale
            draw = [("rect", (x, y), (ln, 0.4 * scale), ang, colour)]
        elif kind == 3:  # a phone
            draw = [("rect", (x, y), (3.8 * scale, 7.8 * scale), ang, (25.0, 25.0, 28.0)),
                    ("rect", (x, y), (3.4 * scale, 7.0 * scale), ang, (60.0, 50.0, 45.0))]
        else:  # a tile rack with tiles in it
            draw = [("rect", (x, y), (9 * scale, 1.4 * scale), ang, (60.0, 95.0, 140.0)), ("rack", (x, y), ang)]
        for d in draw:
            if d[0] == "circle":
                cv2.circle(shadow, (round(d[1][0] / 4 + 3), round(d[1][1] / 4 + 4)), round(d[2] / 4), 255, -1)
            elif d[0] == "rect":
                box = cv2.boxPoints(((d[1][0] / 4 + 3, d[1][1] / 4 + 4), (d[2][0] / 4, d[2][1] / 4), d[3]))
                cv2.fillConvexPoly(shadow, np.round(box).astype(np.int32), 255)
        sh = cv2.resize(cv2.GaussianBlur(shadow, (0, 0), 3), (w, h)).astype(np.float32) / 255
        canvas[...] = (canvas * (1 - 0.45 * sh[..., None])).astype(np.uint8)
        for d in draw:
            if d[0] == "circle":
                cv2.circle(canvas, (round(d[1][0] * 16), round(d[1][1] * 16)), round(d[2] * 16), d[3], -1, cv2.LINE_AA, 4)
            elif d[0] == "rect":
                box = cv2.boxPoints(((d[1][0], d[1][1]), d[2], d[3]))
                _fill(canvas, box, d[4])
            else:
                _, (rx, ry), a = d
                letters = rng.choice(list("AEIOURSTLNDGKMP"), 7)
                T = max(8, round(scale))
                for i, ch in enumerate(letters):
                    off = (i - 3) * 1.15 * scale
                    ca, sa = math.cos(math.radians(a)), math.sin(math.radians(a))
                    tx, ty = rx + off * ca, ry + off * sa - 0.1 * scale
                    tex, _ = _face(look, "tile", str(ch), 1, font, T, 0, 0)
                    k = scale / T
                    Hm = np.array([[ca * k, -sa * k, tx - (ca - sa) * scale / 2], [sa * k, ca * k, ty - (sa + ca) * scale / 2], [0, 0, 1]])
                    _composite(canvas, tex, Hm)


# ---------------------------------------------------------------------------------------------
# The hand


def _paint_part(canvas: np.ndarray, mask: np.ndarray, colour: np.ndarray, width_px: float,
                folds: tuple[np.ndarray, float] | None = None) -> None:
    """Paints one part of the hand (a finger, the palm, the arm, the sleeve) over ``mask``
    (uint8, canvas size) as a rounded body: a round cross-section lit from the top-left."""
    box = _bbox(mask)
    if box is None:
        return
    x0, y0, x1, y1 = box
    m = mask[y0:y1, x0:x1]
    a = m.astype(np.float32) * (1 / 255)
    d = cv2.distanceTransform((m > 127).astype(np.uint8), cv2.DIST_L2, 3)
    r = max(1.5, 0.5 * width_px)
    k = np.clip(d / r, 0, 1)
    height = np.sqrt(1 - (1 - k) ** 2)
    gx = cv2.Sobel(d, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(d, cv2.CV_32F, 0, 1, ksize=3)
    facing = (gx * 0.6 + gy * 0.8) / (np.sqrt(gx ** 2 + gy ** 2) + 1e-6)  # outward normal . light
    shade = 0.58 + 0.36 * height + 0.16 * facing * (1 - k)
    if folds is not None:
        # Cloth folds: soft darker bands across the sleeve.
        direction, period = folds
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        t = (xx * direction[0] + yy * direction[1]) / period
        shade *= 1 - 0.12 * np.maximum(0, np.sin(t * 2 * math.pi + 0.7 * np.sin(t * 1.3))) ** 3
    layer = colour[None, None, :] * shade[..., None]
    roi = canvas[y0:y1, x0:x1]
    roi[...] = np.clip(roi * (1 - a[..., None]) + layer * a[..., None] + 0.5, 0, 255).astype(np.uint8)


def _draw_hand(canvas: np.ndarray, hand: Hand, view: _View, look: TileLook, font: int) -> np.ndarray:
    """Draws the hand (arm, sleeve, palm, fingers, thumb, maybe a held tile) with its soft
    cast shadow; returns its mask (uint8 0..255, canvas size)."""
    h, w = canvas.shape[:2]
    tip = view.project(np.array([[hand.tip[0], hand.tip[1], -hand.height]]))[0]
    scale = view.scale_at(hand.tip[0], hand.tip[1], -hand.height)
    W = hand.width * scale
    a = math.radians(hand.from_deg)
    back = np.array([-math.sin(a), math.cos(a)])  # from the fingertips towards the arm
    u = -back
    v = np.array([-u[1], u[0]])
    far = (math.hypot(w, h) + np.linalg.norm(tip - np.array([w / 2, h / 2]))) / W + 2

    def P(uu: float, vv: float) -> np.ndarray:
        return tip + (uu * u + vv * v) * W

    def blank() -> np.ndarray:
        return np.zeros((h, w), np.uint8)

    def poly(pts: list[np.ndarray]) -> np.ndarray:
        m = blank()
        cv2.fillPoly(m, [np.round(np.array(pts) * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
        return m

    def capsule(p: np.ndarray, q: np.ndarray, width: float) -> np.ndarray:
        m = blank()
        cv2.line(m, tuple(int(c) for c in np.round(p * 16)), tuple(int(c) for c in np.round(q * 16)), 255,
                 max(1, round(width)), cv2.LINE_AA, 4)
        return m

    skin = np.asarray(_bgr(hand.skin), np.float32)
    sleeve_c = np.asarray(_bgr(hand.sleeve), np.float32)
    sp = 0.15 + 0.35 * hand.spread
    side = 1 if hand.from_deg % 360 < 180 else -1  # the thumb's side (a right or a left hand)
    s0 = 1.6 + hand.sleeve_at
    forearm = poly([P(-1.5, -0.4), P(-1.5, 0.4), P(-far, 0.5), P(-far, -0.5)])
    sleeve = poly([P(-s0, -0.62), P(-s0, 0.62), P(-far, 0.7), P(-far, -0.7)])
    palm = poly([P(-0.85, -0.5), P(-0.85, 0.5), P(-1.55, 0.45), P(-1.55, -0.45)])
    cv2.ellipse(palm, tuple(int(c) for c in np.round(P(-1.2, 0) * 16)), (round(0.52 * W * 16), round(0.42 * W * 16)),
                math.degrees(math.atan2(v[1], v[0])), 0, 360, 255, -1, cv2.LINE_AA, 4)
    fingers = []
    for base_v, reach, wd in ((0.36, 0.72, 0.17), (0.12, 0.94, 0.2), (-0.12, 1.0, 0.21), (-0.36, 0.92, 0.2)):
        # Little, ring, middle, index: drawn in that order, each over the one before.
        bv = base_v * side
        p0, p1 = P(-0.95, bv), P(-0.95 + reach * 0.92, bv * (1 + sp))
        fingers.append((capsule(p0, p1, wd * W), p0, p1, wd * W))
    t0, t1 = P(-1.35, -0.42 * side), P(-0.72, -(0.62 + 0.3 * hand.spread) * side)
    thumb = capsule(t0, t1, 0.24 * W)
    held = blank()
    held_img = None
    if hand.holding is not None:
        T = max(16, 8 * math.ceil(scale / 8))
        tex, _ = _face(look, "tile", hand.holding, _value_of(hand.holding), font, T, 0, 0)
        # Pinched between the thumb and the index finger, both drawn over it.
        c = (t1 + fingers[-1][2]) / 2 + u * 0.05 * W
        k = 0.95 * scale / T
        ang = math.atan2(u[1], u[0]) + math.pi / 2
        ca, sa = math.cos(ang), math.sin(ang)
        off = (T - 1) / 2
        Hm = np.array([[ca * k, -sa * k, c[0] - k * (ca * off - sa * off)],
                       [sa * k, ca * k, c[1] - k * (sa * off + ca * off)], [0, 0, 1]])
        held_img = np.zeros((h, w, 3), np.uint8)
        _composite(held_img, tex, Hm)
        a_tex = np.zeros((T, T, 4), np.uint8)
        a_tex[..., 3] = tex[..., 3]
        a_tex[..., 0] = 255
        tmp = np.zeros((h, w, 3), np.uint8)
        _composite(tmp, a_tex, Hm)
        held = tmp[..., 0].copy()
    mask = np.maximum.reduce([forearm, sleeve, palm, thumb, held] + [f[0] for f in fingers])

    # Cast shadow: the silhouette, blurred and shifted by the hand's height above the board.
    q = 4
    base_scale = view.scale_at(hand.tip[0], hand.tip[1], 0)
    small = cv2.resize(mask, (w // q, h // q), interpolation=cv2.INTER_AREA)
    shift = np.array([0.35, 0.5]) * hand.height * base_scale / q
    small = cv2.warpAffine(small, np.float32([[1, 0, shift[0]], [0, 1, shift[1]]]), (w // q, h // q))
    small = cv2.GaussianBlur(small, (0, 0), max(1.0, (0.15 + 0.12 * hand.height) * base_scale / q))
    sh = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    box = _bbox(sh)
    if box is not None:
        x0, y0, x1, y1 = box
        f = 1 - 0.5 * sh[y0:y1, x0:x1, None].astype(np.float32) / 255
        canvas[y0:y1, x0:x1] = (canvas[y0:y1, x0:x1] * f).astype(np.uint8)

    _paint_part(canvas, forearm, skin, 0.8 * W)
    _paint_part(canvas, sleeve, sleeve_c, 1.3 * W, folds=(u, 0.35 * W))
    _paint_part(canvas, palm, skin, 1.0 * W)
    if held_img is not None:
        a_h = held.astype(np.float32)[..., None] / 255
        x0, y0, x1, y1 = _bbox(held) or (0, 0, w, h)
        roi = canvas[y0:y1, x0:x1]
        roi[...] = (roi * (1 - a_h[y0:y1, x0:x1]) + held_img[y0:y1, x0:x1] * a_h[y0:y1, x0:x1]).astype(np.uint8)
    nail = skin * 0.55 + np.array([200, 205, 235], np.float32) * 0.45
    for m, p0, p1, wd in fingers:
        _paint_part(canvas, m, skin, wd)
        # The nail: a lighter rounded patch at the fingertip, and a crease at the middle joint.
        d = (p1 - p0) / (np.linalg.norm(p1 - p0) + 1e-9)
        nm = blank()
        cv2.ellipse(nm, tuple(int(c) for c in np.round((p1 - d * 0.12 * wd) * 16)),
                    (max(1, round(0.32 * wd * 16)), max(1, round(0.26 * wd * 16))),
                    math.degrees(math.atan2(d[1], d[0])), 0, 360, 255, -1, cv2.LINE_AA, 4)
        nm = np.minimum(nm, m)
        _paint_part(canvas, nm, nail, 0.5 * wd)
        crease = p0 + (p1 - p0) * 0.55
        n = np.array([-d[1], d[0]]) * 0.3 * wd
        cv2.line(canvas, tuple(int(c) for c in np.round((crease - n) * 16)), tuple(int(c) for c in np.round((crease + n) * 16)),
                 tuple(float(c) for c in skin * 0.7), max(1, round(0.04 * wd)), cv2.LINE_AA, 4)
    _paint_part(canvas, thumb, skin, 0.24 * W)
    return mask


def _value_of(letter: str) -> int:
    """A held tile's printed value: the English set's (the hand's tile is a prop, not truth)."""
    return get_tileset("en").values.get(letter, 1)


def _coverage(mask: np.ndarray, view: _View, n: int, pieces: list[_Piece]) -> dict[Coord, float]:
    """The fraction of each square (and of the face of a tile on it) under the mask."""
    q = 16
    S = np.array([[1 / q, 0, 0.5 / q], [0, 1 / q, 0.5 / q], [0, 0, 1]], np.float64)
    m = (mask > 127).astype(np.uint8) * 255
    flat = cv2.warpPerspective(m, view.plane(0.0) @ S, (n * q, n * q), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    frac = flat.reshape(n, q, n, q).astype(np.float32).mean(axis=(1, 3)) / 255
    out = {(r, c): float(frac[r, c]) for r in range(n) for c in range(n)}
    for p in pieces:
        if p.look is None:
            continue
        z = -p.look.thickness
        # The face's own plane, sampled over the face: corners of the face in grid coordinates.
        half = p.look.size / 2
        face = cv2.warpPerspective(
            m, view.plane(z) @ np.array([[p.look.size / q, 0, p.cx - half + 0.5 * p.look.size / q],
                                         [0, p.look.size / q, p.cy - half + 0.5 * p.look.size / q], [0, 0, 1]]),
            (q, q), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        out[p.square] = max(out[p.square], float(face.mean()) / 255)
    return out


# ---------------------------------------------------------------------------------------------
# Light and sensor


def _light(img: np.ndarray, photo: Photo, rng: np.random.Generator, noise_rng: np.random.Generator) -> np.ndarray:
    h, w = img.shape[:2]
    q = 4
    lw, lh = max(4, w // q), max(4, h // q)
    ys, xs = np.mgrid[0:lh, 0:lw].astype(np.float32)
    xs /= lw
    ys /= lh
    gain = np.ones((lh, lw), np.float32)
    if photo.gradient:
        a = rng.uniform(0, 2 * math.pi)
        ramp = (xs - 0.5) * math.cos(a) + (ys - 0.5) * math.sin(a)
        cx, cy = rng.uniform(0.2, 0.8, 2)
        vig = ((xs - cx) ** 2 + (ys - cy) ** 2)
        gain *= 1 + photo.gradient * (0.9 * ramp - 0.6 * vig + 0.1)
    for _ in range(photo.shadows):
        # A soft band (a lamp's arm, a person's shoulder) or a blob.
        a = rng.uniform(0, math.pi)
        d = (xs - rng.uniform(0.1, 0.9)) * math.cos(a) + (ys - rng.uniform(0.1, 0.9)) * math.sin(a)
        width = rng.uniform(0.05, 0.3)
        soft = rng.uniform(0.03, 0.15)
        band = 1 / (1 + np.exp((np.abs(d) - width) / soft))
        gain *= 1 - rng.uniform(0.15, 0.45) * band
    wb = np.asarray(photo.white_balance, np.float32)[::-1]  # to BGR
    gains = np.clip(gain[..., None] * wb[None, None, :] * 128, 0, 255).astype(np.uint8)
    out = cv2.multiply(img, cv2.resize(gains, (w, h), interpolation=cv2.INTER_LINEAR), scale=1 / 128)
    if photo.glare:
        spot = np.zeros((lh, lw), np.float32)
        for _ in range(photo.glare):
            cx, cy = rng.uniform(0.05, 0.95, 2)
            sx, sy = rng.uniform(0.01, 0.06, 2)
            spot += rng.uniform(80, 200) * np.exp(-((xs - cx) ** 2 / (2 * sx ** 2) + (ys - cy) ** 2 / (2 * sy ** 2)))
        g = cv2.resize(np.clip(spot, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)
        # Specular light is the lamp's colour whatever lies below: a "screen" blend towards white.
        inv = cv2.multiply(255 - out, cv2.merge([255 - g, 255 - g, 255 - g]), scale=1 / 255)
        out = 255 - inv
    if photo.lamps:
        # A lamp's hot spot: a broad patch of its (warm) light, screened over everything as
        # glare is but a tenth of the photo across, bright enough to wash faces towards white.
        spot = np.zeros((lh, lw, 3), np.float32)
        for _ in range(photo.lamps):
            cx, cy = rng.uniform(0.15, 0.85, 2)
            sx = rng.uniform(0.06, 0.2)
            sy = sx * rng.uniform(0.7, 1.4)
            peak = rng.uniform(110, 230)
            warm = np.array([rng.uniform(0.75, 1.0), rng.uniform(0.9, 1.0), 1.0], np.float32)  # BGR
            blob = peak * np.exp(-((xs - cx) ** 2 / (2 * sx ** 2) + (ys - cy) ** 2 / (2 * sy ** 2)))
            spot += blob[..., None] * warm[None, None, :]
        g = cv2.resize(np.clip(spot, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)
        out = 255 - cv2.multiply(255 - out, 255 - g, scale=1 / 255)
    if photo.blur > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), photo.blur)
    if photo.motion >= 1:
        n = int(round(photo.motion)) | 1
        k = np.zeros((n, n), np.float32)
        k[n // 2, :] = 1
        rot = cv2.getRotationMatrix2D(((n - 1) / 2, (n - 1) / 2), rng.uniform(0, 180), 1)
        k = cv2.warpAffine(k, rot, (n, n))
        out = cv2.filter2D(out, -1, k / k.sum())
    if photo.noise > 0:
        # A tile of Gaussian noise laid with a random offset: per-pixel noise at a fraction of
        # the cost of drawing every pixel (the repeat, 251 px, is far beyond any reader's window).
        tile = (noise_rng.standard_normal((251, 251, 3), dtype=np.float32) * photo.noise + 128)
        tile = np.clip(tile, 0, 255).astype(np.uint8)
        oy, ox = noise_rng.integers(0, 251, 2)
        reps = (h + oy) // 251 + 1, (w + ox) // 251 + 1
        noise = np.tile(tile, (reps[0], reps[1], 1))[oy : oy + h, ox : ox + w]
        out = cv2.addWeighted(out, 1.0, noise, 1.0, -128.0)
    if photo.jpeg is not None:
        _, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(photo.jpeg)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


# ---------------------------------------------------------------------------------------------
# The whole photo


def _rng(seed: int, part: int, frame: int = 0) -> np.random.Generator:
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, part, frame])


def _pieces(spec: SceneSpec, seed: int) -> list[_Piece]:
    """Where each tile lies exactly. Each square draws from its own stream, so that a tile
    stays put when others are added (a game rendered move by move)."""
    out = []
    for sq in sorted(spec.content):
        s = spec.content[sq]
        rng = _rng(seed, _LAYOUT, 1 + sq[0] * 64 + sq[1])
        ox, oy = rng.uniform(-1, 1, 2) * spec.tile_offset
        yaw = math.radians(rng.uniform(-1, 1) * spec.tile_jitter_deg)
        variant = int(rng.integers(8))
        look = spec.looks[s.set] if s.kind != "empty" else None
        if look is None:
            ox = oy = yaw = 0.0
        if s.kind == "tile":
            # The companion's convention: in the tile's own top-left corner, turned with the
            # tile (and its small yaw), clear of letter and value (see TOKEN_RADIUS).
            assert look is not None
            d = look.size / 2 - TOKEN_INSET - TOKEN_RADIUS
            a = math.radians(s.rotation) + yaw
            tdx, tdy = -d * math.cos(a) + d * math.sin(a), -d * math.sin(a) - d * math.cos(a)
        else:
            # Anywhere on an empty square or a back, wholly on it and clear of its edges (a
            # token put on a square is put on it, not on the seam between two).
            reach = (look.size / 2 if look is not None else 0.5) - TOKEN_RADIUS - 0.1
            tdx, tdy = (float(v) for v in rng.uniform(-reach, reach, 2))
        out.append(_Piece(sq, s, sq[1] + 0.5 + ox, sq[0] + 0.5 + oy, yaw, look, variant, tdx, tdy))
    return out


def render(spec: SceneSpec, seed: int, frame: int = 0) -> RenderedScene:
    """Draws ``spec`` as a photo. ``frame`` numbers frames of a sequence: it changes only the
    sensor noise, so that frames of a still board differ as a camera's frames do."""
    if not isinstance(spec, SceneSpec):
        raise BadScene(f"render needs a SceneSpec, not {type(spec).__name__}")
    cam, photo, style, n = spec.camera, spec.photo, spec.style, spec.grid
    view = _make_view(cam, style, n)
    cw, ch = view.size
    pieces = _pieces(spec, seed)
    tileset = get_tileset(spec.tileset)

    # Table, clutter.
    canvas = _table(photo, _rng(seed, _TABLE), (cw, ch), view)
    scale = view.scale_at(n / 2, n / 2, 0)
    if photo.clutter:
        x0, y0, x1, y1 = _board_extent(style, n)
        outline = view.project(np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], np.float64))
        _clutter(canvas, _rng(seed, _TABLE, 1), photo.clutter, spec.looks.get("ivory", next(iter(spec.looks.values()))),
                 spec.font, scale, outline)

    # The board: its edge, then its top.
    x0, y0, x1, y1 = _board_extent(style, n)
    light = np.array([-0.6, -0.8])
    _draw_slab(canvas, view, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]) - [(x0 + x1) / 2, (y0 + y1) / 2],
               (x0 + x1) / 2, (y0 + y1) / 2, 0.0, 0.0, style.thickness, _bgr(style.edge_colour), light)
    # The board's paint a little coarser than the image (the warp's interpolation softens it no
    # more than a lens does); its cost grows with its area. Grid lines keep 1.6 texels at least.
    px = int(min(128, max(24, 8 * math.ceil(max(scale * 0.9, 1.6 / style.line_width) / 8))))
    tex = _board_texture(style, n, px, spec.label_font)
    A = np.array([[1 / px, 0, 0.5 / px + x0], [0, 1 / px, 0.5 / px + y0], [0, 0, 1]], np.float64)
    cv2.warpPerspective(tex, view.plane(0.0) @ A, (cw, ch), dst=canvas, flags=cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_TRANSPARENT)

    # Soft contact shadows of tiles on the board.
    tiles = [p for p in pieces if p.look is not None]
    if tiles:
        q = 4
        sh = np.zeros((ch // q, cw // q), np.uint8)
        for p in tiles:
            assert p.look is not None
            o = _rounded_outline(p.look.size * 1.04, p.look.corner)
            cy_, sy_ = math.cos(p.yaw), math.sin(p.yaw)
            # A little towards the bottom right: the light comes from the top left.
            pts = np.column_stack([p.cx + 0.04 + o[:, 0] * cy_ - o[:, 1] * sy_,
                                   p.cy + 0.05 + o[:, 0] * sy_ + o[:, 1] * cy_, np.zeros(len(o))])
            cv2.fillConvexPoly(sh, np.round(view.project(pts) / q * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
        sh = cv2.GaussianBlur(sh, (0, 0), max(0.8, 0.05 * scale / q))
        big = cv2.resize(sh, (cw, ch), interpolation=cv2.INTER_LINEAR)
        bx0, by0, bx1, by1 = _bbox(big) or (0, 0, cw, ch)
        f = 1 - 0.35 * big[by0:by1, bx0:bx1, None].astype(np.float32) / 255
        canvas[by0:by1, bx0:bx1] = (canvas[by0:by1, bx0:bx1] * f).astype(np.uint8)

    # Tiles, backs and tokens, from the farthest to the nearest.
    rgb_of: dict[Coord, tuple[int, int, int]] = {}
    order = sorted(pieces, key=lambda p: -float(view.depth(np.array([[p.cx, p.cy, 0.0]]))[0]))
    for p in order:
        z_tok = 0.0
        if p.look is not None:
            look = p.look
            outline = _rounded_outline(look.size, look.corner)
            side = look.body if p.sq.kind == "tile" else look.back
            _draw_slab(canvas, view, outline, p.cx, p.cy, p.yaw, -look.thickness, 0.0,
                       np.asarray(_bgr(side), float) * (0.95 if not look.wood else 0.9), light)
            letter = p.sq.letter if p.sq.kind == "tile" else None
            value = tileset.value(letter) if letter not in (None, BLANK) else 0
            # The face texture's size follows the tile's own size in the image (near tiles are
            # bigger in an oblique view); multiples of 8 keep the cache small.
            T = int(min(160, max(24, 8 * math.ceil(view.scale_at(p.cx, p.cy, -look.thickness) * 1.25 / 8))))
            face, rgb = _face(look, p.sq.kind, letter, value, spec.font, T, p.sq.rotation, p.variant if look.wood else 0)
            rgb_of[p.square] = rgb
            _composite(canvas, face, _face_homography(view, p.cx, p.cy, p.yaw, look.size, -look.thickness, T))
            z_tok = -look.thickness
        if p.sq.token is not None:
            colours = spec.token_colours.get(p.sq.token, TOKEN_COLOURS[p.sq.token])
            _draw_token(canvas, view, colours, p.cx + p.token_dx, p.cy + p.token_dy, z_tok)

    # The hand.
    mask = np.zeros((ch, cw), np.uint8)
    if spec.hand is not None:
        hlook = spec.looks.get("ivory", next(iter(spec.looks.values())))
        mask = _draw_hand(canvas, spec.hand, view, hlook, spec.font)
    coverage = _coverage(mask, view, n, pieces) if spec.hand is not None else {}

    # The lens.
    w, h = cam.size
    if cam.distortion:
        m1, m2 = _distort_maps(w, h, cam.distortion, view.pad)
        image = cv2.remap(canvas, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        mask = cv2.remap(mask, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    else:
        image = canvas
    image = _light(image, photo, _rng(seed, _LIGHT), _rng(seed, _NOISE, frame))

    truth, location, k = _truth(spec, view, rgb_of)
    covered = frozenset(_turn_square(sq, n, k) for sq, f in coverage.items() if f > COVERED_FRACTION)
    return RenderedScene(image, truth, location, mask > 127, covered, k, spec, int(seed), view)


def _truth(spec: SceneSpec, view: _View, rgb_of: dict[Coord, tuple[int, int, int]]
           ) -> tuple[BoardReading, GridLocation, int]:
    """The contract's reading of the scene, its grid location, and the quarter turns between the
    printed board and the contract's orientation (row 0 nearest the image's top)."""
    n, cam = spec.grid, spec.camera
    grid_corners = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float64)

    def image_corners(q: np.ndarray) -> np.ndarray:
        printed = cv2.perspectiveTransform(grid_corners.reshape(-1, 1, 2), q).reshape(-1, 2)
        pts = view.project(np.column_stack([printed, np.zeros(4)]))
        return _distort_points(view, pts, cam) if cam.distortion else pts

    # The contract's top edge, by the contract's own rule (the reader's, grid._orient): the edge
    # whose two corners lie highest in the image on average, on a tie the one further left. (The
    # direction up the board from its middle, rounded to a quarter turn, names another edge
    # under perspective when the board lies turned by about 45 degrees.)
    def top_edge(k_: int) -> tuple[float, float]:
        c = image_corners(_turn_matrix(n, k_))
        return round(float(c[0, 1] + c[1, 1]) / 2, 6), float(c[0, 0] + c[1, 0]) / 2

    k = min(range(4), key=top_edge)
    Q = _turn_matrix(n, k)
    if cam.distortion:
        location = GridLocation.from_corners(image_corners(Q), n, n)
    else:
        Hc = view.plane(0.0) @ Q
        location = GridLocation(n, n, Hc / Hc[2, 2])
    by_contract = {_turn_square(sq, n, k): what for sq, what in spec.content.items()}
    rgb_contract = {_turn_square(sq, n, k): v for sq, v in rgb_of.items()}
    cells = []
    for r in range(n):
        for c in range(n):
            what = by_contract.get((r, c))
            if what is None:
                cells.append(CellReading(r, c))
                continue
            token = what.token is not None
            if what.kind == "empty":
                cells.append(CellReading(r, c, token=token))
            elif what.kind == "back":
                cells.append(CellReading(r, c, "back", rgb=rgb_contract[(r, c)], set=what.set, token=token))
            else:
                # A blank's turn is invisible (nothing is printed on it): its truth is 0.
                turn = BLANK_TURN if what.letter == BLANK else (what.rotation + 90 * k) % 360
                cells.append(CellReading(r, c, "tile", letter=what.letter, rotation=turn,
                                         rgb=rgb_contract[(r, c)], set=what.set, token=token))
    corners = tuple((float(x), float(y)) for x, y in location.corners)
    return BoardReading(n, n, corners, tuple(cells)), location, k


def hand_sequence(spec: SceneSpec, seed: int, hand: Hand, *, steps_in: int = 4, hold: int = 2,
                  steps_out: int = 3, after: int = 3) -> list[RenderedScene]:
    """A hand passing over a still board: it enters from outside the image along its arm
    (``steps_in`` frames), stays at ``hand.tip`` (``hold`` frames), leaves (``steps_out``), then
    ``after`` frames of the board alone. Every frame has the same board, camera and light; only
    the hand and the sensor noise change."""
    if min(steps_in, hold, steps_out, after) < 0:
        raise BadScene("frame counts must not be negative")
    view = _make_view(spec.camera, spec.style, spec.grid)
    tip_img = view.project(np.array([[hand.tip[0], hand.tip[1], -hand.height]]))[0]
    a = math.radians(hand.from_deg)
    back = np.array([-math.sin(a), math.cos(a)])
    w, h = view.size
    out_dist = math.hypot(w, h) * 0.75  # far enough that the fingers are outside the image
    inv = np.linalg.inv(view.plane(-hand.height))

    def tip_at(f: float) -> tuple[float, float]:
        p = tip_img + back * out_dist * (1 - f)
        g = inv @ np.array([p[0], p[1], 1.0])
        return float(g[0] / g[2]), float(g[1] / g[2])

    fracs = [(i + 1) / steps_in for i in range(steps_in)] + [1.0] * hold + [1 - (i + 1) / (steps_out + 1) for i in range(steps_out)]
    frames = []
    for i, f in enumerate(fracs):
        frames.append(render(replace(spec, hand=replace(hand, tip=tip_at(f))), seed, frame=i))
    for j in range(after):
        frames.append(render(replace(spec, hand=None), seed, frame=len(fracs) + j))
    return frames
