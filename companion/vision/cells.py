"""Reading every square of a rectified board: empty, a tile face up (letter, turn), a tile face
down, the body colour and set of a tile, a token, and an honest confidence.

The rectified board comes from :func:`companion.vision.grid.rectify` with :data:`CELL_PX` and
:data:`MARGIN`. The board-wide statistics are taken at half that resolution, after bringing
the grid's bright end to a standard exposure. What the reader relies on, in order:

1. **Letters.** Ink shapes of a letter's size, dark on light or light on dark, found over the
   whole board at once (adaptive threshold, components), each scored by the letter network
   for looking like a letter in some turn. The bodies around them give the tile sets' colours
   (tiles look alike on every square), unless the colour is the board's own print (most
   squares of it carry no letter). Their places give where the faces lie.
2. **Empty looks and light.** Without a profile, squares of one premium class look alike:
   each class's look is what its squares without a letter show. With a profile made from
   the empty board (:func:`learn_empty`), each square's own look is known, carried into this
   photo's colours by an affine colour map fitted to the class looks. The light at each
   square (how much brighter than its look, as a local median, times one tint for the
   board) is divided out before comparing: a lamp's spot or a shadow moves lightness, not
   hue.
3. **Kinds.** Each square's fit to its empty look, to the nearest tile body and to a known
   back colour, against an outlier floor, gives a belief over empty / face up / face down.
4. **Faces.** Each face is found around its letter (or, without one, around its square moved
   as the faces nearby are) as the box of body colour with a gap around it; a square's pitch
   around it is cut out and its ink split into the letter (with its diacritics) and the value
   digits (:mod:`companion.vision.face`). The letter is read by the network over four turns
   (:mod:`companion.vision.letters`, with the user's own letters from a profile; or by
   Tesseract), the turn told by the digits' corner and the board's usual turn, the letter
   checked against the value the digits read. No ink: a blank face (its turn is the board's
   usual one: nothing on a blank shows its turn).
5. **Tokens.** A disc of a colour foreign to what should lie under it (the class's empty
   picture, or the face's body and ink), round and of a token's size after opening away ink
   and thin print.
6. **Doubt.** A square part of which nothing explains (not print, ink or token), or whose
   grid lines are gone (something above the board, whatever its colour), and the squares
   around it, lose belief: a hand must never be read with confidence.

Profile arrays this module reads (all optional): ``empty_bgr`` (rows, cols, 3) float32, from
:func:`learn_empty`; ``set_backs`` (n_sets, 3) uint8, the RGB of the backs of
``profile.sets`` in their order (a face-down tile is told from a blank by it); and the
user's letters ``letter_glyphs`` (N, 24, 24) uint8 / ``letter_codes`` (N,) int32 (see
:mod:`companion.vision.alphabet`), read by the letter classifier.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.core.board import Layout, Premium
from companion.core.tiles import BLANK, TileSet
from companion.errors import CompanionError
from companion.vision.face import (
    GLYPH_PX,
    FaceInk,
    face_crop,
    fit_square,
    locate_faces,
    split_face,
)
from companion.vision.letters import (
    OTHER,
    LetterGuess,
    glyph_features,
    letter_reader,
    load_model,
    softmax,
)
from companion.vision.profile import Profile
from companion.vision.reading import CellReading

CELL_PX = 48  # pixels per square of the rectified board: letters ~25 px high, digits ~9
MARGIN = 0.5  # squares kept around the grid: tiles on the edge overhang it



# ---------------------------------------------------------------------------------------------
# Colour


def to_lab(bgr: np.ndarray) -> np.ndarray:
    """Lab of BGR colours (0..255 floats, any shape ending in 3) in OpenCV's 8-bit scale:
    L 0..255, a and b centred on 128. Pictures go through 8 bits (ten times faster; a
    colour's rounding is far below any distance the reader tells apart)."""
    arr = np.asarray(bgr, np.float32)
    if arr.size >= 3 * 4096:
        u8 = np.clip(arr + 0.5, 0, 255).astype(np.uint8).reshape(-1, 1, 3)
        return cv2.cvtColor(u8, cv2.COLOR_BGR2LAB).reshape(arr.shape).astype(np.float32)
    x = np.clip(arr / 255.0, 0.0, 1.0)
    shape = x.shape
    lab = cv2.cvtColor(np.ascontiguousarray(x.reshape(-1, 1, 3)), cv2.COLOR_BGR2LAB).reshape(shape)
    lab[..., 0] *= 255.0 / 100.0
    lab[..., 1:] += 128.0
    return lab


def rgb_to_bgr(rgb: tuple[int, int, int] | np.ndarray) -> np.ndarray:
    r, g, b = (float(v) for v in rgb)
    return np.array([b, g, r], np.float32)


def bgr_to_rgb(bgr: np.ndarray) -> tuple[int, int, int]:
    b, g, r = (int(round(float(np.clip(v, 0, 255)))) for v in bgr)
    return r, g, b


def luminance(bgr: np.ndarray) -> np.ndarray:
    return bgr[..., 0] * 0.114 + bgr[..., 1] * 0.587 + bgr[..., 2] * 0.299


# Lightness varies with the light far more than hue does: weigh it less.
_W = np.array([0.5, 1.0, 1.0], np.float32)


def colour_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance of Lab colours, lightness weighed half."""
    return np.sqrt((((np.asarray(a, np.float32) - np.asarray(b, np.float32)) * _W) ** 2).sum(-1))


# ---------------------------------------------------------------------------------------------
# Geometry of the rectified board


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


# ---------------------------------------------------------------------------------------------
# Glyphs over the whole board


@dataclass(frozen=True)
class Glyphs:
    """Letter-sized ink shapes over the board: centres (x, y), box sizes (w, h), polarity (+1:
    ink darker than what surrounds it), their normalised pictures (from the component masks)
    and how much each looks like a letter in any turn (0..1, set by :func:`letterlike`)."""

    x: np.ndarray
    y: np.ndarray
    w: np.ndarray
    h: np.ndarray
    polarity: np.ndarray
    pictures: np.ndarray
    letterlike: np.ndarray

    def __len__(self) -> int:
        return len(self.x)


def find_glyphs(grey: np.ndarray, geo: Geometry) -> Glyphs:
    """Ink components of a letter's size, darker or lighter than their surroundings."""
    p = geo.cell_px
    block = p | 1
    parts = []
    pictures: list[np.ndarray] = []
    for polarity in (1, -1):
        kind = cv2.THRESH_BINARY_INV if polarity > 0 else cv2.THRESH_BINARY
        ink = cv2.adaptiveThreshold(grey, 255, cv2.ADAPTIVE_THRESH_MEAN_C, kind, block, 14 * polarity)
        _n, labels, stats, _cents = cv2.connectedComponentsWithStats(ink, connectivity=8)
        x, y, w, h, area = (stats[:, i] for i in range(5))
        fill = area / np.maximum(w * h, 1)
        ok = (
            (h >= 0.2 * p) & (h <= 0.8 * p) & (w >= 0.04 * p) & (w <= 0.85 * p)
            & (np.maximum(w, h) >= 0.3 * p) & (area >= 0.012 * p * p) & (fill > 0.08)
        )
        ok[0] = False
        idx = np.nonzero(ok)[0]
        for i in idx:
            m = (labels[y[i] : y[i] + h[i], x[i] : x[i] + w[i]] == i).astype(np.float32)
            pictures.append(cv2.GaussianBlur(fit_square(m), (0, 0), 0.6))
        # Box centres, not centroids: a face centres its letter's box (dots of Ä included or not).
        parts.append((x[idx] + w[idx] / 2.0 - 0.5, y[idx] + h[idx] / 2.0 - 0.5, w[idx], h[idx], np.full(len(idx), polarity)))
    cat = [np.concatenate([q[i] for q in parts]) for i in range(5)]
    f32 = lambda v: v.astype(np.float32)
    pics = np.stack(pictures) if pictures else np.zeros((0, GLYPH_PX, GLYPH_PX), np.float32)
    return Glyphs(
        f32(cat[0]), f32(cat[1]), f32(cat[2]), f32(cat[3]), cat[4].astype(np.int8), pics, np.ones(len(cat[0]), np.float32)
    )


def letterlike(glyphs: Glyphs, letters: list[str]) -> np.ndarray:
    """How much each glyph looks like one of ``letters`` in its best turn: the network's
    belief in its most likely letter, against the letters and 'other' ink. Ragged or
    ambiguous shapes spread their belief and score low."""
    if len(glyphs) == 0:
        return np.zeros(0, np.float32)
    model = load_model()
    feats = glyph_features(glyphs.pictures, turns=True)
    n = len(glyphs)
    idx = model.index(list(letters) + [OTHER])
    p = softmax(model.logits(feats.reshape(n * 4, -1))[:, idx]).reshape(n, 4, -1)
    return p[..., :-1].max(2).max(1).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# Per-square statistics


@dataclass(frozen=True)
class SquareStats:
    """Colour statistics (BGR, 0..255) of each square's middle, the part a displaced tile
    still covers.

    ``median``: per-channel median. ``light``/``dark``: mean colour of the pixels above/below
    the square's median luminance (a tile's body and ink, whichever is which).
    ``light_spread``/``dark_spread``: luminance standard deviation within each half (a body
    is uniform).
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


def square_stats(bgr: np.ndarray, geo: Geometry) -> SquareStats:
    b = geo.blocks(bgr, 0.22, 0.78)
    r, c, n, _, _ = b.shape
    flat = np.ascontiguousarray(b).reshape(r, c, n * n, 3).astype(np.float32)
    med = np.median(flat, axis=2)
    lum = luminance(flat)
    upper = lum >= np.median(lum, axis=2, keepdims=True)
    lower = ~upper
    cu = np.maximum(upper.sum(2), 1)[..., None]
    cl = np.maximum(lower.sum(2), 1)[..., None]
    light = (flat * upper[..., None]).sum(2) / cu
    dark = (flat * lower[..., None]).sum(2) / cl
    lu = (lum * upper).sum(2) / cu[..., 0]
    ld = (lum * lower).sum(2) / cl[..., 0]
    ls = np.sqrt(np.maximum((lum * lum * upper).sum(2) / cu[..., 0] - lu**2, 0))
    ds = np.sqrt(np.maximum((lum * lum * lower).sum(2) / cl[..., 0] - ld**2, 0))
    return SquareStats(med, light, dark, ls, ds)


# ---------------------------------------------------------------------------------------------
# Tile colours, empty looks, light


def _chroma_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Like :func:`colour_distance` with lightness weighed a quarter: for grouping colours
    before the light over the board is known (a shaded tile is darker, not another hue)."""
    w = np.array([0.25, 1.0, 1.0], np.float32)
    return np.sqrt((((np.asarray(a, np.float32) - np.asarray(b, np.float32)) * w) ** 2).sum(-1))


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
            centre = np.median(colours[members], axis=0)
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


def local_field(samples: np.ndarray, radius: int = 2, least: int = 3) -> np.ndarray:
    """(R, C, K) values known at some squares (NaN elsewhere) -> the median over each
    square's neighbourhood of ``radius`` squares (twice as wide where fewer than ``least``
    are known; the overall median where nothing is near). Light changes over a few squares
    (a lamp's spot, a shadow's edge): a local median follows it, a global surface cannot."""
    R, C, K = samples.shape
    known = np.isfinite(samples[..., 0])
    overall = np.median(samples[known], axis=0) if known.any() else np.zeros(K, np.float32)
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


def _assign_glyphs(glyphs: Glyphs, geo: Geometry, shift: np.ndarray) -> np.ndarray:
    """Each square's letter-like glyph (index) nearest its expected face centre, or -1."""
    at = np.full((geo.rows, geo.cols), -1, np.int64)
    if len(glyphs) == 0:
        return at
    p = geo.cell_px
    gx, gy = glyphs.x, glyphs.y
    col = np.floor((gx - geo.origin) / p).astype(np.int64)
    row = np.floor((gy - geo.origin) / p).astype(np.int64)
    best = np.full((geo.rows, geo.cols), np.inf)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            r, c = row + dr, col + dc
            ok = (r >= 0) & (r < geo.rows) & (c >= 0) & (c < geo.cols) & (glyphs.letterlike > 0.5)
            idx = np.nonzero(ok)[0]
            r, c = r[ok], c[ok]
            cx, cy = geo.centre(r, c)
            d = np.hypot(gx[ok] - cx - shift[r, c, 0], gy[ok] - cy - shift[r, c, 1])
            for i, rr, cc, dd in zip(idx, r, c, d):
                if dd < 0.36 * p and dd < best[rr, cc]:
                    best[rr, cc] = dd
                    at[rr, cc] = i
    return at


# ---------------------------------------------------------------------------------------------
# What the board shows


def premium_classes(layout: Layout) -> np.ndarray:
    """(rows, cols) class of each square's print: its premium, the centre square its own."""
    order = list(Premium)
    cls = np.array([[order.index(p) for p in row] for row in layout.premiums], np.int64)
    cls[layout.centre] = len(order)
    return cls


@dataclass
class Evidence:
    """What the reader found before deciding each square (kept for diagnostics and tests).
    Colours are BGR divided by ``light`` (the photo's light at each square relative to the
    looks), distances in Lab."""

    stats: SquareStats
    glyphs: Glyphs
    glyph_at: np.ndarray  # (R, C) index into glyphs, or -1
    tile_colours: list[np.ndarray]  # BGR of each tile set's body found, largest set first
    tile_polarity: list[int]  # +1: dark ink on that set
    back_colours: list[np.ndarray]  # BGR of the backs known (from the profile)
    empty_look: np.ndarray  # (R, C, 3) BGR each square shows when empty
    empty_known: np.ndarray  # (R, C) bool
    light: np.ndarray  # (R, C, 3) the light at each square, per channel, relative to the looks
    shift: np.ndarray  # (R, C, 2) displacement of faces from squares, pixels
    d_empty: np.ndarray  # (R, C) Lab distance to the empty look
    d_tile: np.ndarray  # (R, C) Lab distance to the nearest tile body
    tile_set: np.ndarray  # (R, C) index of that nearest tile colour
    d_back: np.ndarray  # (R, C) Lab distance to the nearest back colour (inf: none known)
    back_set: np.ndarray  # (R, C) index of that back colour
    glyph_ok: np.ndarray  # (R, C) a letter on a tile-coloured body
    extra: dict = field(default_factory=dict)


_TILE_RADIUS = 16.0  # Lab distance within which squares share a tile body
_CROP = 1.0  # face crops are this many squares wide
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


def _stretch(grey: np.ndarray) -> np.ndarray:
    lo, hi = np.percentile(grey[::2, ::2], (1, 99.5))
    return np.clip((grey - lo) * (255.0 / max(hi - lo, 1.0)), 0, 255).astype(np.uint8)


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


def _match_sets(got: list[np.ndarray], want: list[np.ndarray]) -> dict[int, int]:
    """Which found colour (index into ``got``) is each wanted set (index into ``want``): the
    one-to-one assignment whose colours differ from each other as the sets' do, then lie
    nearest them; a found colour far from every set is nobody's."""
    from itertools import permutations

    if not got or not want:
        return {}
    n = min(len(got), len(want))
    best: tuple[float, dict[int, int]] = (np.inf, {})
    for sets in permutations(range(len(want)), n):
        for found in permutations(range(len(got)), n):
            g = np.array([got[i] for i in found])
            w = np.array([want[j] for j in sets])
            relative = float(colour_distance(g - g.mean(0), w - w.mean(0)).sum()) if n > 1 else 0.0
            absolute = float(colour_distance(g, w).sum())
            cost = relative + 0.3 * absolute
            if cost < best[0]:
                best = (cost, dict(zip(sets, found)))
    return {j: i for j, i in best[1].items() if float(colour_distance(got[i], want[j])) < 4 * _TILE_RADIUS}


def _ratio(seen: np.ndarray, look: np.ndarray) -> np.ndarray:
    """How much brighter each channel is seen than its look, steadied for dark channels (a
    red square has almost no blue, whose ratio would be noise)."""
    return np.clip((seen + 24.0) / (look + 24.0), 0.2, 5.0)


def gather_evidence(
    rectified: np.ndarray, geo: Geometry, layout: Layout, profile: Profile | None, letters: list[str] | None = None
) -> Evidence:
    small, small_geo, small_exposure = half_board(rectified, geo)
    scale = geo.cell_px / small_geo.cell_px
    stats = square_stats(small, small_geo)
    g = find_glyphs(_stretch(luminance(small)), small_geo)
    like = letterlike(g, letters or sorted({ch for ch in load_model().classes if ch.isalpha()}))
    # Pixel centres: (i + 0.5) * scale - 0.5 back in the full-resolution board.
    glyphs = Glyphs((g.x + 0.5) * scale - 0.5, (g.y + 0.5) * scale - 0.5, g.w * scale, g.h * scale, g.polarity, g.pictures, like)
    R, C = geo.rows, geo.cols
    shift = np.zeros((R, C, 2), np.float32)
    at = _assign_glyphs(glyphs, geo, shift)
    has = at >= 0
    pol = np.where(has, glyphs.polarity[np.maximum(at, 0)], 1)
    body = stats.body(pol)
    spread = stats.body_spread(pol)
    # A letter-like glyph on a uniform body is a tile's letter (a premium square's print
    # is the square's own colour, which the tests below set apart).
    candidate = has & (spread < 14.0) & (glyphs.letterlike[np.maximum(at, 0)] > 0.5)
    classes = premium_classes(layout)
    light = np.ones((R, C, 3), np.float32)

    # Tile bodies: the dense colours of the bodies around letters (tiles look alike on every
    # square), each kept unless it is the board's own print.
    tiles: list[np.ndarray] = []
    polarity: list[int] = []
    if candidate.any():
        lab_body = to_lab(body)
        modes = _modes(lab_body[candidate], _TILE_RADIUS, 4)
        like_c = glyphs.letterlike[at[candidate]]
        largest = 0
        for centre, members in modes:
            m_pol = int(np.sign(np.median(pol[candidate][members])) or 1)
            # Squares of this colour without a letter: a few blanks and backs, or, when
            # there are many, the board's own print (a premium patch that looked like ink).
            bare = (~candidate) & (colour_distance(to_lab(stats.body(m_pol)), centre) < _TILE_RADIUS)
            print_like = bare.sum() >= max(3, 0.5 * members.sum())
            strong = members.sum() >= 3 and float(np.median(like_c[members])) >= 0.9
            if print_like and not strong:
                continue
            if largest and members.sum() < max(2, 0.1 * largest):
                continue
            largest = max(largest, int(members.sum()))
            tiles.append(np.median(body[candidate][members], axis=0))
            polarity.append(m_pol)
    backs: list[np.ndarray] = []
    if profile is not None and profile.sets:
        # The profile names the sets: each colour found takes the name of a set. The
        # profile's colours were taken under another light (a tinted light moves every
        # colour alike), so sets are matched by how the found colours differ from each
        # other first, by absolute colour second; a set not seen here keeps its colour.
        want = [to_lab(rgb_to_bgr(s_.rgb)) for s_ in profile.sets]
        got = [to_lab(t) for t in tiles]
        match = _match_sets(got, want)
        named: list[np.ndarray] = []
        named_pol: list[int] = []
        for j, s_ in enumerate(profile.sets):
            i = match.get(j)
            named.append(tiles[i] if i is not None else rgb_to_bgr(s_.rgb))
            named_pol.append(polarity[i] if i is not None else (1 if luminance(rgb_to_bgr(s_.rgb)) >= 100 else -1))
        tiles, polarity = named, named_pol
        if "set_backs" in profile.arrays:
            backs = [rgb_to_bgr(v) for v in profile.arrays["set_backs"]]
    profile_empty = profile.arrays.get("empty_bgr") if profile is not None else None

    def tile_distances(norm_light: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d_t = np.full((R, C), np.inf, np.float32)
        which = np.zeros((R, C), np.int64)
        for j, t in enumerate(tiles):
            d = colour_distance(to_lab(stats.body(polarity[j]) / norm_light), to_lab(t))
            better = d < d_t
            d_t = np.where(better, d, d_t)
            which = np.where(better, j, which)
        return d_t, which

    empty_look = np.zeros((R, C, 3), np.float32)
    empty_known = np.zeros((R, C), bool)
    for _round in range(3):
        med = stats.median / light
        lab_med = to_lab(med)
        d_t, which = tile_distances(light)
        if _round == 0 and tiles:
            # Glyphs on a colour that is not a tile's are the board's print.
            candidate &= d_t < 1.5 * _TILE_RADIUS
        not_tile = d_t > 1.5 * _TILE_RADIUS
        for k in np.unique(classes):
            in_k = classes == k
            bare = in_k & ~candidate
            # A class's look is what its squares without a letter show: mostly empty
            # squares, a blank or back now and then. Prefer the ones unlike a tile body
            # when there are enough (a board printed in a tile's colour leaves none, and
            # then the letters alone tell tiles apart); a class of one or two squares
            # (the centre) borrows the double-word look rather than a tile's.
            unlike = bare & not_tile
            sel = unlike if unlike.sum() >= max(1, 0.3 * bare.sum()) else bare
            if in_k.sum() < 3 and not unlike.any():
                continue
            if sel.sum() >= 1:
                empty_look[in_k] = np.median(med[sel], axis=0)
                empty_known[in_k] = True
        if not empty_known[layout.centre]:
            dw = classes == list(Premium).index(Premium.DW)
            if empty_known[dw].any():
                empty_look[layout.centre] = empty_look[dw][0]
                empty_known[layout.centre] = True
        if profile_empty is not None and empty_known.all():
            # The empty board of the profile, seen under another light and camera setting:
            # map its colours onto this photo's class looks (an affine map of colour, fitted
            # robustly), which keeps what is the square's own (a star, a label, a worn spot).
            empty_look = _map_colours(profile_empty.astype(np.float32), empty_look)
        d_e = np.where(empty_known, colour_distance(lab_med, to_lab(empty_look)), np.inf)
        # The light at each square: how much brighter each square is seen than its look, for
        # squares that look empty and for letters on a tile body, as a local median (light
        # changes over a few squares: a lamp's spot, a shadow), times one tint for the whole
        # board. Brightness alone varies locally: a hand or a sleeve over a few squares
        # changes their hue, and must stay foreign rather than be taken for light.
        samples = np.full((R, C, 3), np.nan, np.float32)
        emptyish = empty_known & ~candidate & (d_e < 2.0 * _TILE_RADIUS)
        samples[emptyish] = _ratio(stats.median[emptyish], empty_look[emptyish])
        if tiles:
            tileish = candidate & (d_t < 1.5 * _TILE_RADIUS)
            t_arr = np.array(tiles, np.float32)
            samples[tileish] = _ratio(body[tileish], t_arr[which[tileish]])
        known = np.isfinite(samples[..., 0])
        if known.any():
            log_s = np.log(np.maximum(samples, 1e-3))
            bright = log_s.mean(-1)
            tint = np.median((log_s - bright[..., None])[known], axis=0)
            field = local_field(np.where(known, bright, np.nan)[..., None])[..., 0]
            light = np.exp(field[..., None] + tint[None, None, :]).astype(np.float32)
        if tiles:
            # Tile colours under the light just found.
            for j in range(len(tiles)):
                mine = candidate & (which == j) & (d_t < 1.5 * _TILE_RADIUS)
                if mine.any():
                    tiles[j] = np.median((stats.body(polarity[j]) / light)[mine], axis=0)
    med = stats.median / light
    lab_med = to_lab(med)
    d_e = np.where(empty_known, colour_distance(lab_med, to_lab(empty_look)), np.inf)
    d_t, which = tile_distances(light)
    d_b = np.full((R, C), np.inf, np.float32)
    back_set = np.zeros((R, C), np.int64)
    for j, bk in enumerate(backs):
        d = colour_distance(lab_med, to_lab(bk))
        back_set = np.where(d < d_b, j, back_set)
        d_b = np.minimum(d_b, d)
    glyph_ok = candidate & (d_t < 2.0 * _TILE_RADIUS)
    # Displacement of faces: glyph centres against square centres, as a plane over the board.
    rr, cc = np.nonzero(glyph_ok)
    if len(rr):
        cx, cy = geo.centre(rr, cc)
        gi = at[rr, cc]
        shift[..., 0] = smooth_field(rr, cc, glyphs.x[gi] - cx, (R, C), quadratic=False)
        shift[..., 1] = smooth_field(rr, cc, glyphs.y[gi] - cy, (R, C), quadratic=False)
        shift = np.clip(shift, -0.3 * geo.cell_px, 0.3 * geo.cell_px)
    return Evidence(
        stats, glyphs, at, tiles, polarity, backs, empty_look, empty_known, light, shift,
        d_e, d_t, which, d_b, back_set, glyph_ok,
        extra={"small": small, "small_geo": small_geo, "scale": scale, "rectified": rectified, "exposure": small_exposure},
    )


# ---------------------------------------------------------------------------------------------
# Deciding each square


_KINDS = ("empty", "tile", "back", "other")
_OUTLIER = -0.5 * 3.5**2  # log-likelihood floor: a square that fits nothing (a hand, a shadow)


def _spread(d: np.ndarray, floor: float) -> float:
    """A kind's typical distance (its 90th percentile / 1.64, as a Gaussian's sigma)."""
    d = d[np.isfinite(d)]
    if len(d) < 5:
        return floor
    return max(floor, float(np.percentile(d, 90)) / 1.64)


def kind_scores(ev: Evidence) -> np.ndarray:
    """(R, C, 4) log-likelihoods of empty, tile face up, back, other."""
    R, C = ev.d_empty.shape
    empty_like = ev.empty_known & ~ev.glyph_ok & (ev.d_empty < 2 * _TILE_RADIUS)
    s_e = _spread(ev.d_empty[empty_like], 4.0)
    s_t = _spread(ev.d_tile[ev.glyph_ok], 4.0)
    z_e = np.where(ev.empty_known, ev.d_empty / s_e, np.inf)
    z_t = ev.d_tile / s_t
    z_b = ev.d_back / s_t
    # A back never shows a letter: a letter-like glyph on the square rules it out, whatever
    # the glyph's body colour (a set the clustering missed, a tinted light). Empty squares do
    # show letter-like marks (a premium's print), so only a letter on a tile's body counts
    # against them.
    letter = ev.glyph_at >= 0
    out = np.full((R, C, 4), -np.inf, np.float32)
    out[..., 0] = -0.5 * np.minimum(z_e, 50.0) ** 2 - np.where(ev.glyph_ok, 8.0, 0.0)
    # Face up: a glyph on a tile body; without a glyph a blank, which is rarer than a letter.
    out[..., 1] = -0.5 * np.minimum(z_t, 50.0) ** 2 - np.where(ev.glyph_ok, 0.0, 2.0)
    out[..., 2] = np.where(
        np.isfinite(z_b), -0.5 * np.minimum(z_b, 50.0) ** 2 - 1.0 - np.where(letter, 8.0, 0.0), -np.inf
    )
    out[..., 3] = _OUTLIER
    ev.extra["spreads"] = (s_e, s_t)
    return out


def _softmax(z: np.ndarray, axis: int = -1) -> np.ndarray:
    z = z - z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def _face_size(body: np.ndarray, centres: np.ndarray, cell_px: float) -> float:
    """The face size that best explains the tiles found: the box size whose fit is best."""
    if len(centres) == 0:
        return 0.9 * cell_px
    sample = centres[:: max(1, len(centres) // 24)]
    best, best_fit = 0.9 * cell_px, -np.inf
    for frac in (0.8, 0.84, 0.88, 0.92, 0.96):
        _, fit = locate_faces(body, sample, frac * cell_px, 0.2 * cell_px)
        m = float(np.median(fit))
        if m > best_fit:
            best, best_fit = frac * cell_px, m
    return best


def per_pixel(field: np.ndarray, geo: Geometry, shape: tuple[int, int]) -> np.ndarray:
    """A per-square field (R, C, K) spread over the pixels of a rectified board of ``shape``
    (smoothly between square centres, constant past the outer ones)."""
    p = geo.cell_px
    inner = cv2.resize(field.astype(np.float32), (geo.cols * p, geo.rows * p), interpolation=cv2.INTER_LINEAR)
    if inner.ndim == 2:
        inner = inner[..., None]
    o = int(round(geo.origin))
    h, w = shape
    out = cv2.copyMakeBorder(inner, o, max(0, h - o - inner.shape[0]), o, max(0, w - o - inner.shape[1]), cv2.BORDER_REPLICATE)
    if out.ndim == 2:
        out = out[..., None]
    return out[:h, :w]


def _body_mask(small: np.ndarray, light_px: np.ndarray, colours: list[np.ndarray]) -> np.ndarray:
    """1 where a pixel has the colour of a tile body (or back), under the board's light: a
    box around each colour in 8-bit Lab (lightness given twice the room, as in
    :func:`colour_distance`), which OpenCV tests at memory speed."""
    norm = np.clip(small / np.maximum(light_px, 1e-3), 0, 255).astype(np.uint8)
    lab = cv2.cvtColor(norm, cv2.COLOR_BGR2LAB)
    r = 1.3 * _TILE_RADIUS
    mask = np.zeros(small.shape[:2], np.uint8)
    for t in colours:
        c = to_lab(t)
        lo = np.clip([c[0] - 2 * r, c[1] - r, c[2] - r], 0, 255)
        hi = np.clip([c[0] + 2 * r, c[1] + r, c[2] + r], 0, 255)
        mask |= cv2.inRange(lab, lo, hi)
    return mask.astype(np.float32) / 255.0


def _faces(
    ev: Evidence, geo: Geometry, kind_idx: np.ndarray
) -> tuple[dict[tuple[int, int], np.ndarray], float, dict[tuple[int, int], float]]:
    """Centre of the face of every square held by a tile or back, the faces' size, and for
    faces without a letter how well a face-sized box of body colour fits there (-1..1).

    A face with a letter is found around its letter (the letter's box sits at a fixed place
    on every tile of a set); a face without one around its square shifted as the faces
    nearby are. Either prior is refined to the box of body colour with a gap around it, at
    half resolution; a fit that strays from a letter's prior is not believed."""
    p = geo.cell_px
    held = [tuple(int(v) for v in rc) for rc in np.argwhere(kind_idx >= 1)]
    if not held:
        return {}, 0.9 * p, {}
    prior = np.zeros((len(held), 2))
    lettered = np.zeros(len(held), bool)
    for n, (r, c) in enumerate(held):
        g = int(ev.glyph_at[r, c])
        if g >= 0:  # a letter-like glyph: the face lies around it, whatever its body's colour
            prior[n] = ev.glyphs.x[g], ev.glyphs.y[g]
            lettered[n] = True
        else:
            cx, cy = geo.centre(r, c)
            prior[n] = cx + ev.shift[r, c, 0], cy + ev.shift[r, c, 1]
    colours = ev.tile_colours + ev.back_colours
    if not colours:
        return {rc: prior[n] for n, rc in enumerate(held)}, 0.9 * p, {}
    small, scale = ev.extra["small"], ev.extra["scale"]
    body = _body_mask(small, per_pixel(ev.light, ev.extra["small_geo"], small.shape[:2]), colours)
    prior_small = (prior + 0.5) / scale - 0.5
    face_small = _face_size(body, prior_small[lettered] if lettered.any() else prior_small, p / scale)
    found = prior_small.copy()
    if lettered.any():
        f1, _ = locate_faces(body, prior_small[lettered], face_small, 0.15 * p / scale)
        offset = np.median(f1 - prior_small[lettered], axis=0)
        # Where the fit strays from letter + the board's usual offset, trust the letter.
        expect = prior_small[lettered] + offset
        stray = np.hypot(*(f1 - expect).T) > 0.08 * p / scale
        f1[stray] = expect[stray]
        found[lettered] = f1
    fits: dict[tuple[int, int], float] = {}
    if (~lettered).any():
        f2, fit2 = locate_faces(body, prior_small[~lettered], face_small, 0.25 * p / scale)
        found[~lettered] = f2
        fits = {held[n]: float(f) for n, f in zip(np.nonzero(~lettered)[0], fit2)}
    centres = (found + 0.5) * scale - 0.5
    return {rc: centres[n] for n, rc in enumerate(held)}, face_small * scale, fits


# ---------------------------------------------------------------------------------------------
# Something over the board


def lost_lines(ev: Evidence, kind_idx: np.ndarray) -> np.ndarray:
    """(R, C) number of an empty square's sides whose grid line is gone (0..4), sides next to
    a tile (which overhangs the line) not counted. A hand, an arm or anything held above the
    board hides the lines under it whatever its colour, where colour alone may match."""
    small, sg = ev.extra["small"], ev.extra["small_geo"]
    R, C, p = sg.rows, sg.cols, sg.cell_px
    o = int(round(sg.origin))
    g = luminance(small)
    m = max(2, p // 8)  # a side's ends are left out: corners where lines cross
    # Contrast across each border: the range of lightness over a band of 5 pixels on it.
    def band_range(lines: np.ndarray) -> np.ndarray:
        return lines.max(axis=1) - lines.min(axis=1)

    horiz = np.zeros((R + 1, C), np.float32)  # border above row r (r = R: below the last)
    for r in range(R + 1):
        y = o + r * p
        band = g[max(0, y - 2) : y + 3, o : o + C * p]
        rng = band.max(axis=0) - band.min(axis=0)
        horiz[r] = np.median(rng.reshape(C, p)[:, m:-m], axis=1)
    vert = np.zeros((R, C + 1), np.float32)
    for c in range(C + 1):
        x = o + c * p
        band = g[o : o + R * p, max(0, x - 2) : x + 3]
        rng = band.max(axis=1) - band.min(axis=1)
        vert[:, c] = np.median(rng.reshape(R, p)[:, m:-m], axis=1)
    empty = kind_idx == 0
    # The board's own line contrast: sides between two empty squares, typically.
    both_h = np.zeros((R + 1, C), bool)
    both_h[1:R] = empty[:-1] & empty[1:]
    both_v = np.zeros((R, C + 1), bool)
    both_v[:, 1:C] = empty[:, :-1] & empty[:, 1:]
    pool = np.concatenate([horiz[both_h], vert[both_v]])
    if len(pool) < 10:
        return np.zeros((R, C), np.int64)
    typical = float(np.median(pool))
    if typical < 6.0:
        return np.zeros((R, C), np.int64)  # a board without visible lines tells nothing
    gone_h = horiz < 0.35 * typical
    gone_v = vert < 0.35 * typical
    held = ~empty
    pad = np.pad(held, 1)
    # A side counts only when the square across it is empty too (a tile there covers it).
    top = gone_h[:-1] & ~pad[:-2, 1:-1]
    bottom = gone_h[1:] & ~pad[2:, 1:-1]
    left = gone_v[:, :-1] & ~pad[1:-1, :-2]
    right = gone_v[:, 1:] & ~pad[1:-1, 2:]
    return np.where(empty, top.astype(np.int64) + bottom + left + right, 0)


# ---------------------------------------------------------------------------------------------
# Tokens


def _discs(
    foreign: np.ndarray, p: float, min_core: float = 0.0, min_diameter: float = 0.24
) -> list[tuple[float, float, float]]:
    """Round blobs of a token's size in a 0/255 mask of foreign pixels: (x, y, sureness).
    The mask is opened with a disc wider than a letter's stroke, so ink and thin print vanish.
    ``min_core``: the least radius (in squares) of the largest disc inside the blob, for a
    blob that may be a thick letter's junction rather than a token."""
    # Close first: a token's highlight and rim leave holes in its colour.
    c = max(3, int(round(0.08 * p)) | 1)
    closed = cv2.morphologyEx(foreign, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (c, c)))
    k = max(3, int(round(0.2 * p)) | 1)
    opened = cv2.morphologyEx(closed, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, _labels, stats, cents = cv2.connectedComponentsWithStats(opened, connectivity=8)
    out = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        diameter = 2.0 * np.sqrt(area / np.pi)
        if not (min_diameter * p <= diameter <= 0.7 * p):
            continue
        # Round: the area fills its box like a disc (pi / 4) and the box is square.
        fill = area / float(w * h)
        if fill < 0.62 or max(w, h) > 1.4 * min(w, h):
            continue
        if min_core > 0:
            blob = (_labels[y : y + h, x : x + w] == i).astype(np.uint8)
            core = cv2.distanceTransform(np.pad(blob, 1), cv2.DIST_L2, 3).max()
            if core < min_core * p:
                continue
        out.append((float(cents[i][0]), float(cents[i][1]), float(min(1.0, (fill - 0.55) / 0.2))))
    return out


_FOREIGN = 38.0  # Lab distance from what should be there that makes a pixel a token's
_ODD_ALLOWED = 0.04  # fraction of a square left unexplained by print, ink and tokens that is noise
_ODD_SPAN = 0.08  # ... beyond which belief in the square falls to nothing


def find_tokens(
    ev: Evidence, layout: Layout, kind_idx: np.ndarray, faces: dict[tuple[int, int], np.ndarray], face_px: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Squares with a game token on them, how sure (0..1), and for every square the fraction
    of it that nothing explains (neither what should lie there, nor ink, nor a token): a hand,
    a sleeve, a held tile, a cast shadow's edge.

    A token is a disc (about 0.3 to 0.7 of a square across) of a colour foreign to what lies
    under it. On an empty square, what should lie there is the typical picture of its class's
    empty squares (print, teeth, label and all); on a tile or back, its body colour, looked
    at on the face found for it (faces overhang their squares)."""
    small, sg = ev.extra["small"], ev.extra["small_geo"]
    scale = ev.extra["scale"]
    R, C, p = sg.rows, sg.cols, sg.cell_px
    o = int(round(sg.origin))
    seen = small / np.maximum(per_pixel(ev.light, sg, small.shape[:2]), 1e-3)
    seen_lab = to_lab(seen)
    token = np.zeros((R, C), bool)
    sure = np.zeros((R, C), np.float32)
    # Empty squares against their class's typical picture.
    grid = seen[o : o + R * p, o : o + C * p]
    blocks = np.ascontiguousarray(grid.reshape(R, p, C, p, 3).transpose(0, 2, 1, 3, 4))
    expect = np.empty_like(blocks)
    tolerance = np.zeros(blocks.shape[:4], np.float32)
    classes = premium_classes(layout)
    empty = kind_idx == 0
    blocks_lab = seen_lab[o : o + R * p, o : o + C * p].reshape(R, p, C, p, 3).transpose(0, 2, 1, 3, 4)
    for k in np.unique(classes):
        mine = classes == k
        pool = mine & empty & (ev.d_empty < 2 * _TILE_RADIUS)
        if pool.sum() < 1:
            pool = (classes == list(Premium).index(Premium.DW)) & empty
        if pool.sum() >= 1:
            # The mean picture of the class's empty squares (those that look empty: a token
            # lying on one of them hardly moves it), and how much they differ pixel by pixel
            # (a neighbour's teeth, a label's letters), which is allowed.
            # (At most 12 of them, spread over the class: medians of more cost time, not truth.)
            sample = np.flatnonzero(pool.ravel())
            sample = sample[np.linspace(0, len(sample) - 1, min(12, len(sample))).round().astype(int)]
            rows, cols = np.unravel_index(sample, pool.shape)
            picked = blocks[rows, cols]
            expect[mine] = np.median(picked, axis=0) if len(picked) >= 3 else picked.mean(axis=0)
            if len(picked) >= 3:
                # Robustly: a hand over a few of them must not widen what is allowed.
                spread = colour_distance(blocks_lab[rows, cols], to_lab(expect[mine][0]))
                tolerance[mine] = 2.5 * np.median(spread, axis=0)
        else:
            expect[mine] = ev.empty_look[mine][:, None, None, :]
    # Tiles and backs: their body colour (a face's ink is foreign too: the opening and the
    # disc tests below tell strokes from tokens).
    held = ~empty
    if held.any():
        pol_of = np.array(ev.tile_polarity or [1])
        pol = pol_of[np.clip(ev.tile_set, 0, len(pol_of) - 1)]
        under = np.where((kind_idx == 1)[..., None], ev.stats.body(pol), ev.stats.median) / ev.light
        expect[held] = under[held][:, None, None, :]
    d = colour_distance(blocks_lab, to_lab(expect)) - tolerance
    everything = (d > _FOREIGN).astype(np.uint8).transpose(0, 2, 1, 3).reshape(R * p, C * p)
    # Where something foreign is thicker than a stroke (a disc's middle), per square.
    thick = cv2.distanceTransform(everything, cv2.DIST_L2, 3).reshape(R, p, C, p).max(axis=(1, 3))
    d[~empty] = 0.0
    foreign = (d > _FOREIGN).astype(np.uint8).transpose(0, 2, 1, 3).reshape(R * p, C * p) * 255
    half = 0.56 * face_px / scale
    for (r, c), centre in faces.items():
        # Faces overhang their neighbours' squares (with their edges and the shadows they
        # cast): what lies under them is not the board.
        cx, cy = (centre + 0.5) / scale - 0.5 - o
        foreign[max(0, int(cy - half)) : max(0, int(cy + half + 1)), max(0, int(cx - half)) : max(0, int(cx + half + 1))] = 0
    # The board's print leaves blobs after opening too (teeth, a star's points): on empty
    # squares a token must be a token's full size and solid.
    for x, y, s_ in _discs(foreign, p, min_core=0.12, min_diameter=0.3):
        r, c = int(y // p), int(x // p)
        if 0 <= r < R and 0 <= c < C and empty[r, c]:
            token[r, c], sure[r, c] = True, max(sure[r, c], s_)
    disc_area = np.pi * (0.22 * p) ** 2  # what a token may explain
    odd = (foreign > 0).reshape(R, p, C, p).sum(axis=(1, 3)).astype(np.float32)
    odd = np.where(token, np.maximum(odd - disc_area, 0), odd) / float(p * p)
    odd[~empty] = 0.0
    # On faces: neither body nor ink (the ink's colour: the darker half of the middle, or
    # the lighter for light ink).
    pol_all = np.array(ev.tile_polarity or [1])
    pol_sq = np.where(kind_idx == 1, pol_all[np.clip(ev.tile_set, 0, len(pol_all) - 1)], 1)
    light_half = to_lab(ev.stats.light / ev.light)
    dark_half = to_lab(ev.stats.dark / ev.light)
    body_lab = np.where((pol_sq > 0)[..., None], light_half, dark_half)
    body_lab = np.where((kind_idx == 1)[..., None], body_lab, to_lab(ev.stats.median / ev.light))
    ink_lab = np.where((pol_sq > 0)[..., None], dark_half, light_half)
    for (r, c), centre in faces.items():
        body, ink = body_lab[r, c], ink_lab[r, c]
        cx, cy = (centre + 0.5) / scale - 0.5
        h = 0.44 * face_px / scale
        patch = seen_lab[max(0, int(round(cy - h))) : int(round(cy + h)), max(0, int(round(cx - h))) : int(round(cx + h))]
        if patch.size == 0:
            continue
        d_ink = colour_distance(patch, ink)
        # Pixels at the letter's edges are between body and ink: not foreign either.
        near_ink = cv2.dilate((d_ink <= _FOREIGN).astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        far = (colour_distance(patch, body) > _FOREIGN) & ~near_ink
        n_odd = float(far.sum()) - (disc_area if token[r, c] else 0.0)
        odd[r, c] = max(0.0, n_odd) / float(far.size)
    # Tiles and backs against their body, on the face, at full resolution (a token is a
    # few pixels across at half of it, no wider than a bold letter's stroke).
    rect = ev.extra["rectified"]
    gain = ev.extra["exposure"]
    pol_of = np.array(ev.tile_polarity or [1])
    bodies = {j: to_lab(ev.stats.body(int(pol_of[j]))) for j in range(len(pol_of))}
    medians = to_lab(ev.stats.median)
    core = 0.1 * scale * p  # a token's disc holds a circle this wide; a stroke does not
    for (r, c), centre in faces.items():
        if thick[r, c] < 0.1 * p:
            continue  # at half resolution nothing foreign here is thicker than a stroke
        j = min(int(ev.tile_set[r, c]), len(pol_of) - 1)
        body = bodies[j][r, c] if kind_idx[r, c] == 1 else medians[r, c]
        crop = face_crop(rect, (float(centre[0]), float(centre[1])), 0.92 * face_px)
        if crop.size == 0:
            continue
        # 8-bit Lab of the exposure-normalised face: OpenCV converts bytes far faster.
        lab = cv2.cvtColor(np.clip(crop * gain, 0, 255).astype(np.uint8), cv2.COLOR_BGR2LAB).astype(np.float32)
        far_body = (colour_distance(lab, body) > _FOREIGN).astype(np.uint8)
        if cv2.distanceTransform(far_body, cv2.DIST_L2, 3).max() < core:
            continue  # nothing foreign is thicker than a stroke
        # The letter's ink is foreign to the body too; a token touching a letter is told
        # from it by colour (ink: the face's darkest, or lightest, tenth).
        lum = lab[..., 0].ravel()
        dark = kind_idx[r, c] != 1 or pol_of[j] > 0
        k = int(0.08 * len(lum)) if dark else int(0.92 * len(lum))
        cut = np.partition(lum, k)[k]
        tail = lab[..., 0] <= cut if dark else lab[..., 0] >= cut
        ink = np.median(lab[tail], axis=0) if tail.any() else body
        both = far_body & (colour_distance(lab, ink) > _FOREIGN).astype(np.uint8)
        found = _discs(both * 255, scale * p)
        if not found:
            # A token of the ink's colour (a black one on black letters): only a solid disc
            # wider than any stroke junction counts.
            found = _discs(far_body * 255, scale * p, min_core=0.15)
        if found:
            token[r, c], sure[r, c] = True, max(s_ for _, _, s_ in found)
    return token, sure, odd


@dataclass
class Reading:
    """Everything :func:`read_board_cells` found: the cells, and for diagnostics and
    calibration the evidence, each face's ink and each letter's guess."""

    cells: list[CellReading]
    evidence: Evidence
    inks: dict[tuple[int, int], FaceInk]
    guesses: dict[tuple[int, int], LetterGuess]


def read_cells(
    rectified: np.ndarray,
    cell_px: int = CELL_PX,
    margin: float = MARGIN,
    layout: Layout | None = None,
    tileset: TileSet | None = None,
    profile: Profile | None = None,
    backend: str = "own",
) -> list[CellReading]:
    """Every square of a rectified board (see the module's doc), row-major."""
    return read_board_cells(rectified, cell_px, margin, layout, tileset, profile, backend).cells


def read_board_cells(
    rectified: np.ndarray,
    cell_px: int = CELL_PX,
    margin: float = MARGIN,
    layout: Layout | None = None,
    tileset: TileSet | None = None,
    profile: Profile | None = None,
    backend: str = "own",
) -> Reading:
    """:func:`read_cells` with what it found on the way."""
    from companion.core.board import STANDARD
    from companion.core.tiles import get_tileset

    layout = layout or STANDARD
    tileset = tileset or get_tileset("en")
    geo = Geometry(layout.rows, layout.cols, cell_px, margin)
    _check(rectified, geo)
    ev = gather_evidence(rectified, geo, layout, profile, sorted(tileset.alphabet))
    scores = kind_scores(ev)
    probs = _softmax(scores)
    kind_idx = probs[..., :3].argmax(-1)
    R, C = geo.rows, geo.cols
    p = geo.cell_px

    centres, face_px, fits = _faces(ev, geo, kind_idx)
    ev.extra["fits"] = fits
    tokens, token_sure, odd = find_tokens(ev, layout, kind_idx, centres, face_px)
    ev.extra["odd"] = odd
    # Belief falls as more of a square is something unexplained (a finger, a sleeve), and
    # where the grid's lines are gone (something over the board, whatever its colour); a
    # hand is large: the squares within two of such a square are in doubt too.
    clear = np.clip(1.0 - (odd - _ODD_ALLOWED) / _ODD_SPAN, 0.0, 1.0)
    covered = lost_lines(ev, kind_idx) >= 2
    near = cv2.dilate(covered.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    clear = np.where(covered, np.minimum(clear, 0.2), np.where(near, np.minimum(clear, 0.45), clear))
    ev.extra["covered"] = covered
    ev.extra["face_px"] = face_px

    grey = cv2.cvtColor(rectified, cv2.COLOR_BGR2GRAY)
    inks: dict[tuple[int, int], FaceInk] = {}
    for (r, c), centre in centres.items():
        if kind_idx[r, c] != 1:
            continue
        j = int(ev.tile_set[r, c])
        pol = ev.tile_polarity[j] if j < len(ev.tile_polarity) else None
        # A square's pitch around the face: the whole face with its value digits even when it
        # is found a few pixels off (faces nearly fill their squares; a neighbour's ink
        # then touches the crop's edge and is left out).
        crop = face_crop(grey, (float(centre[0]), float(centre[1])), _CROP * p)
        inks[(int(r), int(c))] = split_face(crop, polarity=pol, face_frac=0.92)

    letters = sorted(tileset.alphabet)
    values = dict(tileset.values)
    with_glyph = [(rc, f) for rc, f in inks.items() if f.glyph is not None]
    guesses: dict[tuple[int, int], LetterGuess] = {}
    if backend == "own":
        reader = letter_reader(profile.arrays if profile is not None else None)
        scored = reader.score([f for _, f in with_glyph], letters, values)
        first = scored.decide(None, values)
        # The board's usual turn is a prior for every tile (and the only clue for a blank).
        turns = np.ones(4)
        for g in first:
            if g.p_rotation > 0.9:
                turns[g.rotation // 90] += 1
        prior_rot = 0.1 / 4 + 0.9 * turns / turns.sum()
        final = scored.decide(prior_rot, values)
        guesses = {rc: g for (rc, _), g in zip(with_glyph, final)}
    elif backend == "tesseract":
        from companion.vision.tesseract import read_faces

        guesses = read_faces(dict(with_glyph), letters, values)
        turns = np.ones(4)
        for g in guesses.values():
            turns[g.rotation // 90] += 1
    else:
        raise CompanionError(f"unknown letter backend {backend!r} (own, tesseract)")
    usual_turn = 90 * int(np.argmax(turns))

    out: list[CellReading] = []
    for r in range(R):
        for c in range(C):
            k = int(kind_idx[r, c])
            pk = float(probs[r, c, k])
            tok = bool(tokens[r, c])
            # A token is one more thing to be sure of: a borderline disc halves the belief.
            tk = (0.5 + 0.5 * float(token_sure[r, c]) if tok else 1.0) * float(clear[r, c])
            if k == 0:
                out.append(CellReading(r, c, "empty", token=tok, confidence=_clip(pk * tk)))
                continue
            # The body's colour under the board's reference light (this photo's light and
            # exposure divided out): what the set looks like, wherever it lies.
            pol = ev.tile_polarity[int(ev.tile_set[r, c])] if (k == 1 and ev.tile_polarity) else 1
            seen = ev.stats.body(pol)[r, c] if k == 1 else ev.stats.median[r, c]
            rgb = bgr_to_rgb(seen / ev.light[r, c])
            set_name = _nearest_set(profile, ev, r, c, k)
            if k == 2:
                out.append(CellReading(r, c, "back", rgb=rgb, set=set_name, token=tok, confidence=_clip(pk * tk)))
                continue
            g = guesses.get((r, c))
            if g is None:
                ink = inks.get((r, c))
                # No letter-sized ink: a blank face. Ink that is there but unreadable is doubt.
                doubt = 0.5 if (ink is not None and ink.ink > 0.06) else 1.0
                out.append(CellReading(r, c, "tile", BLANK, usual_turn, rgb, set_name, tok, _clip(pk * 0.9 * doubt * tk)))
                continue
            conf = pk * g.p_letter * g.p_rotation * tk
            out.append(CellReading(r, c, "tile", g.letter, g.rotation, rgb, set_name, tok, _clip(conf)))
    return Reading(out, ev, inks, guesses)


def _clip(v: float) -> float:
    return float(min(1.0, max(0.0, v)))


def _nearest_set(profile: Profile | None, ev: Evidence, r: int, c: int, kind: int) -> str | None:
    """The profile's set whose face (or back) colour is nearest, when it is near at all."""
    if profile is None or not profile.sets:
        return None
    if kind == 1:
        j = int(ev.tile_set[r, c])
        if j < len(profile.sets) and ev.d_tile[r, c] < 2.5 * _TILE_RADIUS:
            return profile.sets[j].name
        return None
    j = int(ev.back_set[r, c])
    if np.isfinite(ev.d_back[r, c]) and ev.d_back[r, c] < 2.5 * _TILE_RADIUS and j < len(profile.sets):
        return profile.sets[j].name
    return None


# ---------------------------------------------------------------------------------------------
# Calibration: the user's tiles, the empty board


@dataclass(frozen=True)
class Alphabet:
    """What ``calibrate --layout alphabet`` learns: the profile arrays of the user's letters
    (``letter_glyphs``, ``letter_codes``; see :mod:`companion.vision.alphabet`) and the
    set's face colour (RGB, the median over its tiles, for the profile's ``sets``)."""

    arrays: dict[str, np.ndarray]
    rgb: tuple[int, int, int]


def learn_alphabet(
    rectified: np.ndarray,
    cell_px: int = CELL_PX,
    margin: float = MARGIN,
    tileset: TileSet | None = None,
    layout: Layout | None = None,
) -> Alphabet:
    """The user's tiles from a photo of the alphabet layout (see
    :mod:`companion.vision.alphabet`, which checks the layout and names a square that breaks
    it); :mod:`companion.vision.calibration` keeps each set's letters in the profile."""
    from companion.vision.alphabet import _learn

    arrays, rgb = _learn(rectified, cell_px, margin, tileset, layout)
    return Alphabet(arrays, rgb)



def learn_empty(
    rectified: np.ndarray, cell_px: int = CELL_PX, margin: float = MARGIN, layout: Layout | None = None
) -> dict[str, np.ndarray]:
    """What each square of this board looks like when empty, for a profile
    (``calibrate --layout empty``): ``empty_bgr`` (rows, cols, 3) float32, the median colour
    of each square's middle after exposure normalisation (as :func:`gather_evidence` sees
    squares). Refuses a board with letters on it, with one line."""
    from companion.core.board import STANDARD

    layout = layout or STANDARD
    geo = Geometry(layout.rows, layout.cols, cell_px, margin)
    _check(rectified, geo)
    ev = gather_evidence(rectified, geo, layout, None)
    held = int(ev.glyph_ok.sum())
    if held:
        squares = ", ".join(f"({r}, {c})" for r, c in np.argwhere(ev.glyph_ok)[:4])
        raise CompanionError(f"calibration needs the empty board, but {held} square(s) hold letters: {squares}")
    small, small_geo, _ = half_board(rectified, geo)
    return {"empty_bgr": square_stats(small, small_geo).median.astype(np.float32)}
