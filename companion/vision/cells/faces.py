"""Stage 4 of reading the squares: where each tile's face lies.

Takes the evidence and each square's kind; gives the centre of the face of every square held by a
tile or back (around its letter, or without one, around its square moved as the faces nearby
are), the faces' size at half and full resolution, and how well a face-sized box of body colour
fits a face without a letter (:func:`_faces`, :func:`_full_face_size`, :func:`_face_fit`). Also
the board under its reference light (:func:`under_light`), which the tokens look at too."""

from __future__ import annotations


from functools import lru_cache

import cv2
import numpy as np

from companion.vision.cells.evidence import _TILE_RADIUS, Evidence
from companion.vision.cells.geometry import Geometry
from companion.vision.cells.token_discs import _TOKEN_FOREIGN
from companion.vision.colour import colour_distance, to_lab
from companion.vision.face import body_integral, face_crop, locate_faces
from companion.vision.medians import median


def _face_size(body: np.ndarray, centres: np.ndarray, cell_px: float, integral: np.ndarray | None = None) -> float:
    """The face size that best explains the tiles found: the box size whose fit is best."""
    if len(centres) == 0:
        return 0.9 * cell_px
    sample = centres[:: max(1, len(centres) // 24)]
    best, best_fit = 0.9 * cell_px, -np.inf
    integral = body_integral(body) if integral is None else integral
    for frac in (0.8, 0.84, 0.88, 0.92, 0.96):
        _, fit = locate_faces(body, sample, frac * cell_px, 0.2 * cell_px, integral=integral)
        m = float(median(fit))
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


def under_light(ev: Evidence) -> np.ndarray:
    """The board at half resolution under the board's reference light (this photo's light,
    ``ev.light``, divided out), float BGR: worked out once a reading (faces and tokens both
    look at it)."""
    cached = ev.extra.get("under_light")
    if cached is None or cached[0] is not ev.light:
        small = ev.extra["small"]
        cached = ev.extra["under_light"] = (ev.light, small / np.maximum(per_pixel(ev.light, ev.extra["small_geo"], small.shape[:2]), 1e-3))
    return cached[1]


def _body_mask(seen: np.ndarray, colours: list[np.ndarray]) -> np.ndarray:
    """1 where a pixel of ``seen`` (:func:`under_light`) has the colour of a tile body (or
    back): a box around each colour in 8-bit Lab (lightness given twice the room, as in
    :func:`colour_distance`), which OpenCV tests at memory speed."""
    norm = np.clip(seen, 0, 255).astype(np.uint8)
    lab = cv2.cvtColor(norm, cv2.COLOR_BGR2LAB)
    r = 1.3 * _TILE_RADIUS
    mask = np.zeros(seen.shape[:2], np.uint8)
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
    sure = np.zeros(len(held), bool)  # a letter the network was sure of at half resolution
    for n, (r, c) in enumerate(held):
        g = int(ev.glyph_at[r, c])
        if g >= 0:  # a letter-like glyph: the face lies around it, whatever its body's colour
            prior[n] = ev.glyphs.x[g], ev.glyphs.y[g]
            lettered[n] = True
            sure[n] = ev.glyphs.letterlike[g] > 0.5
        else:
            cx, cy = geo.centre(r, c)
            prior[n] = cx + ev.shift[r, c, 0], cy + ev.shift[r, c, 1]
    colours = ev.tile_colours + ev.back_colours
    if not colours:
        return {rc: prior[n] for n, rc in enumerate(held)}, 0.9 * p, {}
    scale = ev.extra["scale"]
    body = _body_mask(under_light(ev), colours)
    prior_small = (prior + 0.5) / scale - 0.5
    # (Measured on the surest letters: a doubtful one, a thin bar, says less of its face.)
    size_from = sure if sure.any() else lettered if lettered.any() else np.ones(len(held), bool)
    # One summed-area table for every box fitted in the body below.
    integral = body_integral(body)
    face_small = _face_size(body, prior_small[size_from], p / scale, integral)
    found = prior_small.copy()
    if lettered.any():
        f1, _ = locate_faces(body, prior_small[lettered], face_small, 0.15 * p / scale, integral=integral)
        offset = np.median(f1 - prior_small[lettered], axis=0)
        # Where the fit strays from letter + the board's usual offset, trust the letter.
        expect = prior_small[lettered] + offset
        stray = np.hypot(*(f1 - expect).T) > 0.08 * p / scale
        f1[stray] = expect[stray]
        found[lettered] = f1
    fits: dict[tuple[int, int], float] = {}
    if (~lettered).any():
        f2, fit2 = locate_faces(body, prior_small[~lettered], face_small, 0.25 * p / scale, integral=integral)
        found[~lettered] = f2
        fits = {held[n]: float(f) for n, f in zip(np.nonzero(~lettered)[0], fit2)}
    centres = (found + 0.5) * scale - 0.5
    return {rc: centres[n] for n, rc in enumerate(held)}, face_small * scale, fits


def _best_box(body: np.ndarray, sides: range, m: int) -> tuple[float, int, np.ndarray]:
    """The box of body (``body``: 0..1 per pixel) with a thin empty ring around it that fits
    best, of one of ``sides`` and within ``m`` pixels of the middle of ``body`` (as
    :func:`companion.vision.face.locate_faces`, every size and place at once): its fit, side
    and centre (x, y) in ``body``'s pixels."""
    n = body.shape[0]
    integral = cv2.integral(body.astype(np.float32), sdepth=cv2.CV_64F)
    sizes, s, x0, y0, ring, corners, penalty = _box_places(n, sides.start, sides.stop, sides.step, m)

    def box(k: int) -> np.ndarray:
        xa, ya, xb, yb = corners[k]
        return integral[yb, xb] - integral[ya, xb] - integral[yb, xa] + integral[ya, xa]

    inside = box(0)
    outer = box(1)
    fit = inside / (s * s) - (outer - inside) / ((s + 2 * ring) ** 2 - s * s)
    fit = fit - penalty
    k, iy, ix = np.unravel_index(int(np.argmax(fit)), fit.shape)
    side = int(sizes[k])
    centre = np.array([x0[k, iy, ix] + side / 2.0, y0[k, iy, ix] + side / 2.0])
    return float(fit[k, iy, ix]), side, centre


@lru_cache(maxsize=32)
def _box_places(n: int, start: int, stop: int, step: int, m: int) -> tuple[np.ndarray, ...]:
    """:func:`_best_box`'s boxes in a crop ``n`` pixels wide, the same for every face of a
    board: each size (``range(start, stop, step)``) at each place, their rings, the corners of
    the box and of the box with its ring (clipped to the crop), and the penalty for lying off
    the middle."""
    sizes = np.arange(start, stop, step, dtype=np.int64)
    offs = np.arange(-m, m + 1)
    s = sizes[:, None, None]
    x0 = np.round((n - 1) / 2.0 - s / 2.0 + offs[None, None, :]).astype(np.int64) + 0 * offs[None, :, None]
    y0 = np.round((n - 1) / 2.0 - s / 2.0 + offs[None, :, None]).astype(np.int64) + 0 * offs[None, None, :]
    ring = np.maximum(2, np.round(0.06 * s)).astype(np.int64)

    def clipped(xa: np.ndarray, ya: np.ndarray, xb: np.ndarray, yb: np.ndarray) -> tuple[np.ndarray, ...]:
        xa, xb = np.minimum(np.maximum(xa, 0), n), np.minimum(np.maximum(xb, 0), n)
        ya, yb = np.minimum(np.maximum(ya, 0), n), np.minimum(np.maximum(yb, 0), n)
        return xa, ya, xb, yb

    corners = (clipped(x0, y0, x0 + s, y0 + s), clipped(x0 - ring, y0 - ring, x0 + s + ring, y0 + s + ring))
    penalty = 0.15 * (offs[None, :, None] ** 2 + offs[None, None, :] ** 2) / max(m * m, 1)
    for a in (sizes, s, x0, y0, ring, penalty, *corners[0], *corners[1]):
        a.flags.writeable = False  # (shared by every call)
    return sizes, s, x0, y0, ring, corners, penalty


def _face_fit(ev: Evidence, kind: int, rc: tuple[int, int], centre: np.ndarray, sides: range, m: int = 4,
              lab_out: list[np.ndarray] | None = None) -> tuple[float, int, np.ndarray, np.ndarray] | None:
    """A face at full resolution: the box of its body's colour with a gap around it, of one
    of ``sides`` (pixels), within ``m`` pixels of ``centre``. Returns the fit (-1..1), the
    side, the face's centre, and the crop (side + 2m wide around ``centre``) of pixels
    foreign to the body; None where the crop leaves the board. ``lab_out``: given, the
    crop's exposure- and light-normalised 8-bit Lab is appended to it (what find_tokens
    looks at next)."""
    rect, gain = ev.extra["rectified"], ev.extra["exposure"]
    r, c = rc
    if kind == 1:
        pol_of = ev.tile_polarity or [1]
        j = min(int(ev.tile_set[r, c]), len(pol_of) - 1)
        body_bgr = ev.stats.body(int(pol_of[j]))[r, c] / ev.light[r, c]
    else:
        body_bgr = ev.stats.median[r, c] / ev.light[r, c]
    largest = max(sides)
    big = face_crop(rect, (float(centre[0]), float(centre[1])), largest + 2 * m)
    if big.shape[:2] != (largest + 2 * m, largest + 2 * m):
        return None
    norm = np.clip(big.astype(np.float32) * (gain / np.maximum(ev.light[r, c], 1e-3)), 0, 255).astype(np.uint8)
    lab = cv2.cvtColor(norm, cv2.COLOR_BGR2LAB).astype(np.float32)
    if lab_out is not None:
        lab_out.append(lab)
    far = colour_distance(lab, to_lab(body_bgr)) > _TOKEN_FOREIGN
    fit, side, at0 = _best_box((~far).astype(np.float32), sides, m)
    mid = (largest + 2 * m - 1) / 2.0
    return fit, side, np.asarray(centre, np.float64) + (at0 - 0.5 - mid), far


def _full_face_size(
    ev: Evidence, kind_idx: np.ndarray, centres: dict[tuple[int, int], np.ndarray], face_px: float, p: int
) -> float:
    """The faces' size at full resolution (the half-resolution one is a couple of pixels
    off, and the value digits lie that near a face's edge): the median best box over a dozen
    faces with letters."""
    lettered = [rc for rc in centres if kind_idx[rc] == 1 and ev.glyph_at[rc] >= 0 and ev.glyphs.letterlike[ev.glyph_at[rc]] > 0.5]
    if not lettered:
        return face_px
    pick = [lettered[i] for i in np.linspace(0, len(lettered) - 1, min(8, len(lettered))).round().astype(int)]
    sides = range(int(0.82 * p), p + 1)
    found = [f[1] for rc in pick if (f := _face_fit(ev, 1, rc, centres[rc], sides)) is not None and f[0] > 0.3]
    return float(median(found)) if len(found) >= 3 else face_px
