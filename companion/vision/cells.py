"""Reading every square of a rectified board: empty, a tile face up (letter, turn), a tile face
down, the body colour and set of a tile, a token, and an honest confidence.

The rectified board comes from :func:`companion.vision.grid.rectify` with :data:`CELL_PX` and
:data:`MARGIN`. The board-wide statistics are taken at half that resolution, after bringing
the grid's bright end to a standard exposure. What the reader relies on, in order:

1. **Letters.** Ink shapes of a letter's size, dark on light or light on dark, found over the
   whole board at once (adaptive threshold, components), each scored by the letter network
   for looking like a letter in some turn; one it doubts (a bar, like a piece of print) is a
   letter only where its face shows that letter's value in its corner, or on a plain square
   (which prints nothing) in the ink of the board's sure letters; where a glyph of the other
   ink is no letter, the square's best glyph of the usual ink is asked. The bodies around
   them give the tile sets' colours (tiles look alike on every square), unless the colour is
   the board's own print (most squares of it carry no letter); a mark well under the board's
   letters' size (a token's disc) is no letter. A mark its premium class's other squares
   show in the same place is that class's print, unless the square hides the print a face
   would hide. Their places give where the faces lie.
2. **Empty looks and light.** Without a profile, squares of one premium class look alike:
   each class's look is what its squares without a letter show. With a profile made from
   the empty board (:func:`learn_empty`), each square's own look is known, carried into this
   photo's colours by an affine colour map fitted to the class looks. The light at each
   square (how much brighter than its look, as a local median over the letters' faces and
   the empty squares whose colour is their look's under one gain, times one tint for the
   board) is divided out before comparing: a lamp's spot or a shadow moves lightness, not
   hue.
3. **Kinds.** Each square's fit to its empty look, to the nearest tile body and to a known
   back colour, against an outlier floor, gives a belief over empty / face up / face down;
   a square no kind fits is looked at as under a lamp's glare (:mod:`companion.vision.glare`),
   and one taken for a blank on a premium square that shows its class's print is empty. A
   square without ink whose colour glare over its own empty look explains closely, with
   glare on an empty neighbour too, is no longer held a face by its colour.
   Where colour leaves a face without ink and an empty square close, a tile's own outline
   (:mod:`companion.vision.outline`: the rounded corners of a face-sized box, against this
   photo's lettered faces and its class's empty squares, inner or on the edge) weighs in,
   and so does its rim (:mod:`companion.vision.rims`: across each side with an empty
   neighbour, the bevel, the slab's wall turned to the camera and its shadow, against the
   nearest lettered faces' and empty squares').
4. **Faces.** Each face is found around its letter (or, without one, around its square moved
   as the faces nearby are) as the box of body colour with a gap around it; a square's pitch
   around it is cut out and its ink split into the letter (with its diacritics) and the value
   digits (:mod:`companion.vision.face`). The letter is read by the network over four turns
   (:mod:`companion.vision.letters`, with the user's own letters from a profile; or by
   Tesseract), the turn told by the digits' corner and the board's usual turn, the letter
   checked against the value the digits read. No ink: a blank face, rotation 0 (``BLANK_TURN``:
   nothing on a blank shows its turn).
5. **Tokens.** A disc of a colour foreign to what should lie under it (the class's empty
   picture, or the face's body and ink), round and of a token's size after opening away ink
   and thin print, and by its shape a disc: a solid middle ringed on every side by something
   unlike it (:func:`token_disc`; a clear one counts alone when its colour is no blend of the
   square's own two). On a face-up tile, a clear disc in the tile's own top-left corner, on
   the face, counts whatever its colour (:func:`corner_discs`): the face prints nothing there.
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

from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Sequence

import cv2
import numpy as np

from companion.core.board import Layout, Premium
from companion.core.tiles import BLANK, TileSet
from companion.core.errors import CompanionError
from companion.vision.face import (
    GLYPH_PX,
    FaceInk,
    body_integral,
    face_crop,
    fit_square,
    locate_faces,
    split_face,
)
from companion.vision.letters import (
    CORNER_OF_TURN,
    OTHER,
    FaceScores,
    LetterGuess,
    LetterReader,
    glyph_features,
    letter_reader,
    load_model,
    softmax,
)
from companion.vision.medians import median
from companion.vision.profile import Profile
from companion.vision.reading import BLANK_TURN, CellReading
from companion.vision.sets import carry, fit_light, hue_apart, in_other_light, name_found, shade_apart

CELL_PX = 48  # pixels per square of the rectified board: letters ~25 px high, digits ~9
MARGIN = 0.5  # squares kept around the grid: tiles on the edge overhang it



# ---------------------------------------------------------------------------------------------
# Colour


def to_lab(bgr: np.ndarray) -> np.ndarray:
    """Lab of BGR colours (0..255 floats, any shape ending in 3) in OpenCV's 8-bit scale:
    L 0..255, a and b centred on 128. Pictures go through 8 bits (ten times faster; a
    colour's rounding is far below any distance the reader tells apart)."""
    arr = np.asarray(bgr, np.float32)
    if arr.size >= 3 * 4096 and arr.ndim >= 3:
        return _lab_bytes(arr)
    x = np.clip(arr / 255.0, 0.0, 1.0)
    shape = x.shape
    # As one row: OpenCV converts a one-pixel-wide column about twenty times slower.
    lab = cv2.cvtColor(np.ascontiguousarray(x.reshape(1, -1, 3)), cv2.COLOR_BGR2LAB).reshape(shape)
    lab[..., 0] *= 255.0 / 100.0
    lab[..., 1:] += 128.0
    return lab


def _lab_bytes(arr: np.ndarray) -> np.ndarray:
    """:func:`to_lab`'s way for pictures (float32 BGR, any shape ending in 3): rounded to
    bytes, converted as rows of a picture. Pixel by pixel: a colour converts alike in a
    picture of any size."""
    u8 = np.clip(arr + 0.5, 0, 255).astype(np.uint8).reshape(-1, arr.shape[-2], 3)
    return cv2.cvtColor(u8, cv2.COLOR_BGR2LAB).reshape(arr.shape).astype(np.float32)


def rgb_to_bgr(rgb: tuple[int, int, int] | np.ndarray) -> np.ndarray:
    r, g, b = (float(v) for v in rgb)
    return np.array([b, g, r], np.float32)


def bgr_to_rgb(bgr: np.ndarray) -> tuple[int, int, int]:
    b, g, r = (int(round(min(max(float(v), 0.0), 255.0))) for v in bgr)
    return r, g, b


def luminance(bgr: np.ndarray) -> np.ndarray:
    return bgr[..., 0] * 0.114 + bgr[..., 1] * 0.587 + bgr[..., 2] * 0.299


# Lightness varies with the light far more than hue does: weigh it less.
_W = np.array([0.5, 1.0, 1.0], np.float32)


def colour_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance of Lab colours, lightness weighed half."""
    d = np.asarray(a, np.float32) - np.asarray(b, np.float32)
    if d.ndim < 2:
        return np.sqrt(0.25 * d[..., 0] ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)
    # Channel by channel (a sum over a last axis of three is slow in numpy), in place: the
    # same operations in the same order as 0.25 d0^2 + d1^2 + d2^2, without temporaries.
    np.multiply(d, d, out=d)
    s = d[..., 0] * np.float32(0.25)
    s += d[..., 1]
    s += d[..., 2]
    return np.sqrt(s, out=s)


_CV_CHANNELS = 128  # the most channels OpenCV takes in one picture


def each_picture(stack: np.ndarray, filt) -> np.ndarray:
    """``filt`` (an OpenCV filter of one picture, channel by channel) applied to every picture
    of ``stack`` (N, H, W[, C]) by itself, in one call per up to 128 channels: the pictures
    laid side by side as channels, each filtered with its own borders, the same values as
    picture by picture without a call's overhead for each. (Worth it for a Gaussian blur of
    small pictures; OpenCV's box blur of many channels is slower than picture by picture.)"""
    n, h, w = stack.shape[:3]
    rest = stack.shape[3:]
    c = int(np.prod(rest, dtype=np.int64))
    per = max(1, _CV_CHANNELS // c)
    out = np.empty_like(stack)
    for s in range(0, n, per):
        part = stack[s : s + per]
        m = len(part)
        flat = np.ascontiguousarray(np.moveaxis(part, 0, 2)).reshape(h, w, m * c)
        out[s : s + m] = np.moveaxis(filt(flat).reshape(h, w, m, *rest), 2, 0)
    return out


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
    strength: np.ndarray | None = None  # mean grey levels by which the ink stands out (0..255)

    def __len__(self) -> int:
        return len(self.x)


_SQUARE3 = np.ones((3, 3), np.uint8)
_BODY_BOX = 0.35  # squares: the box over which a face's body is taken round its strokes (wider than a stroke, narrower than a letter)
_LETTER_OFF = 0.2  # squares a letter's box centre lies off its square's middle at most (ink found at the stricter level)
_HELD_ROUND = 0.5  # share of the pixels round light ink at the stricter level that its lighter piece must hold (most)


def find_glyphs(grey: np.ndarray, geo: Geometry, fine: np.ndarray | None = None) -> Glyphs:
    """Ink components of a letter's size, darker or lighter than their surroundings.

    Two neighbourhoods set what 'darker' means: a square's (ink on a face) and about half a
    square's (light ink on a face lighter than the board around it: over a whole square's
    neighbourhood the face's body stands out too, and the letter joins it). ``fine``: the
    board at twice this resolution (the same grey levels), where a bold letter that blurs into
    a solid block here is looked at again."""
    p = geo.cell_px
    parts = []
    pictures: list[np.ndarray] = []
    blurred: list[bool] = []  # whether each picture is smoothed already (seen at full resolution)
    integral = cv2.integral(grey, sdepth=cv2.CV_64F)
    H, W = grey.shape
    pad = max(1, int(round(0.08 * p)))
    # Ink stands out of the mean of its neighbourhood (dark: by the level, 14 grey levels,
    # or more; light: by more than it), as OpenCV's adaptive threshold (ADAPTIVE_THRESH_MEAN_C,
    # C = +-level) takes it: each neighbourhood's mean is worked out once for both polarities
    # and every level (the same box filter, its border replicated, rounded to bytes).
    blocks = (p | 1, int(round(0.6 * p)) | 1)
    below = {b: grey.astype(np.int16) - cv2.boxFilter(grey, -1, (b, b), borderType=cv2.BORDER_REPLICATE | cv2.BORDER_ISOLATED)
             for b in blocks}
    # A neighbourhood's mean is not the body round a letter where the body is darker (or
    # lighter) than the board around the face: a dark wooden face beside pale squares lies
    # wholly under its square's mean, its dark letter joined to it, and its letter stands out
    # of the mean by less than the stricter level. Against the face's own body (the grey
    # closed, or opened for light ink, over a box wider than a stroke: the strokes filled in
    # with the body's level) the letter stands out as it does to the eye.
    body_box = cv2.getStructuringElement(cv2.MORPH_RECT, (int(round(_BODY_BOX * p)) | 1,) * 2)
    for polarity in (1, -1):
        kept_x: list[np.ndarray] = []
        kept_y: list[np.ndarray] = []
        kept_s: list[np.ndarray] = []
        # A square's neighbourhood, half a square's, and a square's again at a level three
        # times as far from the mean, within what the first found too large for a letter: ink
        # joined there to something no letter is (a token's ring and the tile's outline; a
        # pale face, lighter than the dark board around it, whose white letter is lighter
        # still) stands apart at that level.
        first: tuple[np.ndarray, np.ndarray] | None = None
        for block, level in ((blocks[0], 14), (blocks[1], 14), (blocks[0], 3 * 14), (0, 14)):
            strict = block == blocks[0] and level > 14
            if block == 0:
                # (The fourth pass: within what the first found too large, where nothing was
                # found yet, ink against the face's own body; otherwise as the stricter level.)
                strict = True
                if polarity > 0:
                    ink = ((cv2.morphologyEx(grey, cv2.MORPH_CLOSE, body_box).astype(np.int16) - grey) >= level).view(np.uint8)
                else:
                    ink = ((grey.astype(np.int16) - cv2.morphologyEx(grey, cv2.MORPH_OPEN, body_box)) >= level).view(np.uint8)
            else:
                ink = ((below[block] <= -level) if polarity > 0 else (below[block] > level)).view(np.uint8)
            # Grana's block-based labelling: the same labels and stats as OpenCV's default
            # (Spaghetti) here, in half its time on these ink maps.
            n, labels, stats, _cents = cv2.connectedComponentsWithStatsWithAlgorithm(ink, 8, cv2.CV_32S, cv2.CCL_GRANA)
            x, y, w, h, area = (stats[:, i] for i in range(5))
            if first is None:
                first = (labels, np.maximum(w, h) > 0.85 * p)
            fill = area / np.maximum(w * h, 1)
            # A solid block as wide as it is high is no letter (only thin bars, I and l, fill
            # their box): it is a square's plain middle standing out against darker neighbours,
            # a premium patch, a token; unless, seen at full resolution, it has a letter's holes
            # (a bold letter blurred shut).
            solid = (fill > 0.8) & (np.minimum(w, h) > 0.4 * np.maximum(w, h))
            ok = (
                # (Either way up: a letter may lie turned, an I on its side a flat bar.)
                (np.maximum(w, h) <= 0.85 * p) & (np.minimum(w, h) >= 0.04 * p)
                & (np.maximum(w, h) >= 0.3 * p) & (area >= 0.012 * p * p) & (fill > 0.08)
            )
            if strict:
                # (Not a line's piece: the board's lines, joined at the first level into one
                # net, break into dashes a pixel thin at this one.) And only where a face's
                # letter lies, about its square's middle (a tile lies at most about a tenth of a
                # square off its square, its letter centred on it): this level finds the darkest
                # or lightest patch of many a thing besides, off the middle (a blank's shadowed
                # edge, the lit corner of an empty square beside a tile).
                ok &= np.minimum(w, h) >= 2
                off_x = ((x + w / 2.0 - geo.origin) / p) % 1.0 - 0.5
                off_y = ((y + h / 2.0 - geo.origin) / p) % 1.0 - 0.5
                ok &= (np.abs(off_x) <= _LETTER_OFF) & (np.abs(off_y) <= _LETTER_OFF)
            ok[0] = False
            cx_all = x + w / 2.0 - 0.5
            cy_all = y + h / 2.0 - 0.5
            if kept_x:
                # The finer neighbourhood adds only what the square's did not find, or found
                # only joined with more (a face's body lit apart beside a dark neighbour, with
                # the letter on it): a glyph much larger than this one is no copy of it. The
                # stricter level adds only where nothing was found.
                px_, py_, ps_ = np.concatenate(kept_x), np.concatenate(kept_y), np.concatenate(kept_s)
                # (Asked only of the components still kept: most are specks already ruled out.)
                live = np.nonzero(ok)[0]
                if len(px_) and len(live):
                    lx_, ly_ = cx_all[live], cy_all[live]
                    near = (np.abs(lx_[:, None] - px_[None]) < 0.2 * p) & (np.abs(ly_[:, None] - py_[None]) < 0.2 * p)
                    if not strict:
                        near &= ps_[None] <= 1.3 * np.maximum(w[live], h[live])[:, None] + 2
                    ok[live] &= ~near.any(1)
            if strict and first is not None:
                # Only within what the first level found too large: its ink holds this level's
                # (the same neighbourhood, a level further out), so any pixel tells which.
                # Light ink, besides, only where that lighter piece holds it all round (a white
                # letter on a pale face): the lightest patch of a face's own body stands
                # apart at this level too, at the face's edge.
                for i in np.nonzero(ok)[0]:
                    y0_, x0_ = max(0, y[i] - 1), max(0, x[i] - 1)
                    y1_, x1_ = min(H, y[i] + h[i] + 1), min(W, x[i] + w[i] + 1)
                    mine = (labels[y0_:y1_, x0_:x1_] == i).view(np.uint8)
                    ys, xs = np.nonzero(mine)
                    k = first[0][y0_ + ys[0], x0_ + xs[0]]
                    ok[i] = bool(first[1][k])
                    if ok[i] and polarity < 0:
                        ring = cv2.dilate(mine, _SQUARE3).view(bool) & ~mine.view(bool)
                        ok[i] = float(np.mean(first[0][y0_:y1_, x0_:x1_][ring] == k)) >= _HELD_ROUND
            fine_pics: dict[int, np.ndarray] = {}
            for i in np.nonzero(ok & solid)[0]:
                pic = _fine_letter(fine, int(x[i]), int(y[i]), int(w[i]), int(h[i]), polarity) if fine is not None else None
                if pic is None:
                    ok[i] = False
                else:
                    fine_pics[int(i)] = pic
            idx = np.nonzero(ok)[0]
            # Each kept component's grey levels summed within its box (a whole-board bincount
            # would weigh every pixel of every component for the few kept).
            ink_sum = np.empty(len(idx), np.float64)
            for j, i in enumerate(idx):
                box = (slice(y[i], y[i] + h[i]), slice(x[i], x[i] + w[i]))
                mine = labels[box] == i
                ink_sum[j] = grey[box][mine].sum(dtype=np.int64)
                if int(i) in fine_pics:
                    pictures.append(fine_pics[int(i)])
                else:
                    pictures.append(fit_square(mine.astype(np.float32)))  # (smoothed below, all at once)
                blurred.append(int(i) in fine_pics)
            # Printed ink stands far out of the body around it, within its own box; a patch of
            # a plain square that only looks lighter beside a darker neighbour does not. (Each
            # component lies within its padded box: the rest of the box is its surroundings.)
            y0, y1 = np.maximum(0, y[idx] - pad), np.minimum(H, y[idx] + h[idx] + pad)
            x0, x1 = np.maximum(0, x[idx] - pad), np.minimum(W, x[idx] + w[idx] + pad)
            box_sum = integral[y1, x1] - integral[y0, x1] - integral[y1, x0] + integral[y0, x0]
            rest_n = (y1 - y0) * (x1 - x0) - area[idx]
            with np.errstate(invalid="ignore", divide="ignore"):
                contrast = (box_sum - ink_sum) / rest_n - ink_sum / area[idx]
            strength = np.where(rest_n > 0, contrast * polarity, 0.0).astype(np.float32)
            if strict and len(idx):
                # At the stricter level, ink stands that far out of what lies round it in its
                # own box too: the lightest band of a plain square lit unevenly does not.
                firm = strength >= level
                pictures[len(pictures) - len(idx):] = [pic for pic, f in zip(pictures[len(pictures) - len(idx):], firm) if f]
                blurred[len(blurred) - len(idx):] = [b for b, f in zip(blurred[len(blurred) - len(idx):], firm) if f]
                idx, strength = idx[firm], strength[firm]
            # Box centres, not centroids: a face centres its letter's box (dots of Ä included or not).
            kept_x.append(cx_all[idx])
            kept_y.append(cy_all[idx])
            kept_s.append(np.maximum(w[idx], h[idx]))
            parts.append((cx_all[idx], cy_all[idx], w[idx], h[idx], np.full(len(idx), polarity), strength))
    cat = [np.concatenate([q[i] for q in parts]) for i in range(6)]
    f32 = lambda v: v.astype(np.float32)
    pics = np.stack(pictures) if pictures else np.zeros((0, GLYPH_PX, GLYPH_PX), np.float32)
    raw = ~np.array(blurred, bool)
    if raw.any():
        pics[raw] = each_picture(pics[raw], lambda q: cv2.GaussianBlur(q, (0, 0), 0.6))
    return Glyphs(
        f32(cat[0]), f32(cat[1]), f32(cat[2]), f32(cat[3]), cat[4].astype(np.int8), pics, np.ones(len(cat[0]), np.float32),
        f32(cat[5]),
    )


def _fine_letter(fine: np.ndarray, x: int, y: int, w: int, h: int, polarity: int) -> np.ndarray | None:
    """The picture of a solid-looking component (box ``x, y, w, h`` at half resolution) seen
    in ``fine`` (twice the resolution): the ink's largest part, split from the body by Otsu's
    level over the box and a rim around it. None when it is solid there too (a plain patch,
    a token) or no ink stands out."""
    m = max(2, (w + h) // 4)
    H, W = fine.shape
    y0, y1 = max(0, 2 * (y - m)), min(H, 2 * (y + h + m))
    x0, x1 = max(0, 2 * (x - m)), min(W, 2 * (x + w + m))
    box = fine[y0:y1, x0:x1]
    if box.size == 0 or float(box.max()) - float(box.min()) < 40:
        return None
    kind = cv2.THRESH_BINARY_INV if polarity > 0 else cv2.THRESH_BINARY
    _t, ink = cv2.threshold(box, 0, 255, kind | cv2.THRESH_OTSU)
    n, labels, stats, _c = cv2.connectedComponentsWithStats(ink, connectivity=8)
    if n < 2:
        return None
    i = 1 + int(np.argmax(stats[1:, 4]))
    bx, by, bw, bh, area = (int(v) for v in stats[i])
    # Not the rim around the box (the body was the minority there), not solid.
    if bx == 0 or by == 0 or bx + bw >= box.shape[1] or by + bh >= box.shape[0]:
        return None
    if bh < 1.4 * h or bh > 2.6 * h:
        return None
    mask = (labels[by : by + bh, bx : bx + bw] == i).astype(np.float32)
    if area / float(bw * bh) > 0.72 and _convex(mask):
        # As full as a disc (a token, a plain patch): a letter only if it has a hole (a bold
        # B or D fills its box as a disc does, but a disc has no counter).
        gaps = cv2.copyMakeBorder((mask == 0).astype(np.uint8), 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=1)
        ng, _l, gst, _c = cv2.connectedComponentsWithStats(gaps, connectivity=4)
        # (Label 1 is the outside, joined by the border; a counter is any other of a few pixels.)
        if not (gst[1:, 4] >= max(3, 0.01 * bw * bh)).sum() >= 2:
            return None
    return cv2.GaussianBlur(fit_square(mask), (0, 0), 0.6)


_CONVEX = 0.9  # share of its convex hull a blob fills at least to be as convex as a disc or patch


def _convex(mask: np.ndarray) -> bool:
    """Whether a blob (a mask of one component) is as convex as a disc or a plain patch: it
    fills at least ``_CONVEX`` of its convex hull. A bold letter that fills its box as a disc
    does still cuts notches into its outline where its strokes part (an E or M seen on its side,
    whose gaps open to the outside and make no counter); a token or a patch has none."""
    m = mask.astype(np.uint8)
    cnts, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not cnts:
        return True
    # The hull counted in pixels as the blob is (a polygon through pixel centres leaves out
    # half its rim: small blobs would all look convex).
    hull = cv2.fillConvexPoly(np.zeros_like(m), cv2.convexHull(np.concatenate(cnts)), 1)
    return float(m.sum()) >= _CONVEX * float(hull.sum())


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


# ---------------------------------------------------------------------------------------------
# Tile colours, empty looks, light


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


_HIDDEN_LEVEL = 0.1  # fine detail (RMS of relative lightness) a class's picture needs to count as print
_INSIDE = 0.15  # fraction of a square from each side left out of its print's picture
_HIDDEN = 0.5  # correlation with its class's print below which a square hides it
_PRINT_REFS = 24  # squares of a class its typical picture is taken from


def print_shown(small: np.ndarray, geo: Geometry, classes: np.ndarray, ask: np.ndarray,
                lum_small: np.ndarray | None = None) -> np.ndarray:
    """(R, C) for squares of ``ask`` whose class has print (a premium's words), how much their
    picture (relative lightness, as :func:`unlike_class` takes it) correlates with the class's
    typical one; NaN elsewhere. A face hides the print under it; an empty square shows it,
    however a light or glare lies on it. ``lum_small``: the luminance of ``small`` when worked
    out already (the same values)."""
    out = np.full(classes.shape, np.nan, np.float32)
    blocks = geo.blocks(small if lum_small is None else lum_small, 0.0, 1.0)
    n = blocks.shape[2]
    # The square's inside only: the grid's lines and a neighbour's shadow lie at its sides
    # (a plain square's 'print' would be its lines), a premium's words within; at the best of
    # a pixel's shifts each way (a lens's distortion moves the print near the board's corners).
    e, s = int(round(_INSIDE * n)), _PRINT_SHIFT // 2

    def relative(at: np.ndarray) -> np.ndarray:
        pics = luminance(blocks[at[:, 0], at[:, 1]]) if lum_small is None else blocks[at[:, 0], at[:, 1]]
        middle = pics[:, n // 4 : n - n // 4, n // 4 : n - n // 4].reshape(len(pics), -1)
        return pics / np.maximum(median(middle), 1.0)[:, None, None]

    for k in np.unique(classes[ask]):
        mine = np.argwhere(classes == k)
        if len(mine) < 4:
            continue
        # The class's typical picture from squares spread evenly over it (enough for a median).
        refs = mine[np.linspace(0, len(mine) - 1, min(len(mine), _PRINT_REFS)).round().astype(int)]
        ref = median(relative(refs)[:, e : n - e, e : n - e], axis=0).astype(np.float32)
        a = (ref - ref.mean()).ravel()
        if float(np.sqrt(np.mean(a * a))) < _HIDDEN_LEVEL:
            continue  # a plain colour: nothing to show or hide
        asked = np.argwhere(ask & (classes == k))
        for (r, c), v in zip(asked, relative(asked)):
            views = np.stack([v[e + dy : n - e + dy, e + dx : n - e + dx].ravel()
                              for dy in range(-s, s + 1) for dx in range(-s, s + 1)])
            views -= views.mean(1, keepdims=True)
            corr = (views @ a) / (np.sqrt((views * views).sum(1)) * np.sqrt(a @ a) + 1e-9)
            out[r, c] = float(corr.max())
    return out


def glyph_novelty(glyphs: Glyphs, at: np.ndarray, unlike: np.ndarray, geo: Geometry, scale: float,
                  exact: bool = False) -> np.ndarray:
    """(R, C) for each square's glyph, the fraction of its box (within the square, at the
    resolution of ``unlike``) unlike its class's picture: a letter of a tile is new there,
    the class's own print is not. NaN where no glyph."""
    out = np.full(at.shape, np.nan, np.float32)
    n = unlike.shape[2]
    o = geo.origin
    for r, c in np.argwhere(at >= 0):
        i = int(at[r, c])
        cx = (glyphs.x[i] + 0.5) / scale - 0.5 - o / scale - c * n
        cy = (glyphs.y[i] + 0.5) / scale - 0.5 - o / scale - r * n
        if exact:
            # The pixels whose centres the glyph's box holds: a bar one pixel wide is that
            # pixel, not three of which two are the body beside it.
            hw, hh = max(0.5, glyphs.w[i] / scale / 2.0), max(0.5, glyphs.h[i] / scale / 2.0)
            x0, x1 = max(0, int(np.floor(cx - hw + 0.5))), min(n, int(np.floor(cx + hw + 0.5)))
            y0, y1 = max(0, int(np.floor(cy - hh + 0.5))), min(n, int(np.floor(cy + hh + 0.5)))
        else:
            hw, hh = max(1.0, glyphs.w[i] / scale / 2.0), max(1.0, glyphs.h[i] / scale / 2.0)
            x0, x1 = max(0, int(round(cx - hw))), min(n, int(round(cx + hw)) + 1)
            y0, y1 = max(0, int(round(cy - hh))), min(n, int(round(cy + hh)) + 1)
        if x1 > x0 and y1 > y0:
            out[r, c] = float(unlike[r, c, y0:y1, x0:x1].mean())
    return out


def _assign_glyphs(glyphs: Glyphs, geo: Geometry, shift: np.ndarray) -> np.ndarray:
    """Each square's letter-like glyph (index) near its expected face centre, or -1: the one
    most like a letter and standing out most from its body (a light speck inside a dark
    letter's bowl is near the centre too), nearer ones first among equals."""
    at = np.full((geo.rows, geo.cols), -1, np.int64)
    if len(glyphs) == 0:
        return at
    p = geo.cell_px
    gx, gy = glyphs.x, glyphs.y
    col = np.floor((gx - geo.origin) / p).astype(np.int64)
    row = np.floor((gy - geo.origin) / p).astype(np.int64)
    best = np.full((geo.rows, geo.cols), -np.inf)
    strength = glyphs.strength if glyphs.strength is not None else np.full(len(glyphs), 80.0, np.float32)
    # A glyph the network doubts (a thin bar: I, l, or a piece of print) is read at full
    # resolution only where no surer one lies.
    merit = glyphs.letterlike * np.minimum(strength, 80.0) / 80.0 + (glyphs.letterlike > 0.2)
    # Every (glyph, square about it) pair at once; each square takes its best score, the
    # first among equals in the order the squares about a glyph are tried (dr, dc, glyph).
    cand_i, cand_r, cand_c, cand_s = [], [], [], []
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            r, c = row + dr, col + dc
            ok = (r >= 0) & (r < geo.rows) & (c >= 0) & (c < geo.cols) & (glyphs.letterlike > 0.2)
            idx = np.nonzero(ok)[0]
            r, c = r[ok], c[ok]
            cx, cy = geo.centre(r, c)
            d = np.hypot(gx[ok] - cx - shift[r, c, 0], gy[ok] - cy - shift[r, c, 1])
            score = merit[ok] - 0.5 * d / p
            near = d < 0.36 * p
            cand_i.append(idx[near])
            cand_r.append(r[near])
            cand_c.append(c[near])
            cand_s.append(score[near])
    i_all, s_all = np.concatenate(cand_i), np.concatenate(cand_s)
    sq = np.concatenate(cand_r) * geo.cols + np.concatenate(cand_c)
    # (Sorted by square, best score first, then the order tried: each square's first row wins.)
    order = np.lexsort((np.arange(len(sq)), -s_all, sq))
    first = np.ones(len(order), bool)
    first[1:] = sq[order][1:] != sq[order][:-1]
    win = order[first & (s_all[order] > best.ravel()[sq[order]])]
    at.ravel()[sq[win]] = i_all[win]
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
_UNNAMED_APART = 1.5 * _TILE_RADIUS  # Lab distance from a profile set's colour beyond which a face colour may be another set
# Shares of white a lamp's glare mixes into a face whose letter is still found: its ink keeps
# half its contrast at least (faces washed further make no colour of lettered faces).
_UNNAMED_GLARE = np.linspace(0.0, 0.5, 11)[:, None]
_UNNAMED_HUE = 12.0  # ... and hue distance once a shade is taken out (one set in shade: under 2; two sets: 23 up)
_GLARE_OFF = 8.0  # Lab distance from its set's colour beyond which a face may be under glare
_LETTERNESS = 0.5  # the network's belief that a glyph is a letter, below which it is print
_DOUBTED = 0.3  # ... above which a face showing that letter's value still holds it (a serif or faded I)
_VALUE_TURN = 0.9  # belief in the turn a doubted letter's value must be read at (its corner sure)
_NOVEL = 0.1  # fraction of a glyph's box unlike its class's picture below which it is the class's print
_NOVEL_BAR = 0.35  # ... for a bar-shaped glyph
_LETTER_SPAN = 0.7  # a letter's ink spans at least this fraction of the board's usual letter's
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


def _stretch_levels(grey: np.ndarray) -> tuple[float, float]:
    """The grey levels :func:`_stretch` takes to 0 and 255."""
    lo, hi = np.percentile(grey[::2, ::2], (1, 99.5))
    return lo, hi


def _stretch(grey: np.ndarray, levels: tuple[float, float] | None = None) -> np.ndarray:
    lo, hi = _stretch_levels(grey) if levels is None else levels
    return np.clip((grey - lo) * (255.0 / max(hi - lo, 1.0)), 0, 255).astype(np.uint8)


def _stretch_like(fine: np.ndarray, coarse: np.ndarray, gain: float, levels: tuple[float, float] | None = None) -> np.ndarray:
    """``fine`` (the full-resolution grey board) stretched as :func:`_stretch` stretches
    ``coarse`` (its half, exposure-normalised luminance): the same levels at both scales
    (``levels``: :func:`_stretch_levels` of ``coarse`` when worked out already)."""
    lo, hi = _stretch_levels(coarse) if levels is None else levels
    # ``fine`` holds bytes: one look-up table does the stretch.
    levels = np.arange(256, dtype=np.float32) * gain
    table = np.clip((levels - lo) * (255.0 / max(hi - lo, 1.0)), 0, 255).astype(np.uint8)
    return cv2.LUT(fine, table)


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


def _split_by_sets(
    bodies: np.ndarray, pols: np.ndarray, found: list[np.ndarray], sets: list[np.ndarray]
) -> tuple[list[np.ndarray], list[int]] | None:
    """The faces' bodies (N, 3 BGR) split among the profile's ``sets`` (BGR) as those would
    look under one light (:func:`companion.vision.sets.fit_light`, started from each colour
    ``found`` taken for each set). Its colours (the medians of their bodies, at least two each) with
    their ink polarity, or None when the bodies do not fall apart into sets that differ
    as the profile's do."""
    if len(bodies) < 4:
        return None
    want = np.array(sets, np.float32)
    _, assign, _ = fit_light(bodies, found, sets)
    groups = [j for j in range(len(want)) if (assign == j).sum() >= 2]
    if len(groups) <= len(found):
        return None
    colours = [np.median(bodies[assign == j], axis=0) for j in groups]
    # Sets that differ as the profile's do: each pair of groups at least half as far apart as
    # their sets (noise split along a set's own spread stays one colour), and as far in hue
    # alone (a shadow over some faces of one set parts them by lightness only).
    for a in range(len(groups)):
        for b in range(a + 1, len(groups)):
            la, lb = to_lab(colours[a]), to_lab(colours[b])
            wa, wb = to_lab(want[groups[a]]), to_lab(want[groups[b]])
            if float(colour_distance(la, lb)) < 0.5 * float(colour_distance(wa, wb)):
                return None
            if hue_apart(la, lb) < 0.5 * hue_apart(wa, wb):
                return None
    return colours, [int(np.sign(np.median(pols[assign == j])) or 1) for j in groups]


def _one_set_in_two_lights(
    bodies: np.ndarray, tiles: list[np.ndarray], polarity: list[int], members: list[np.ndarray],
    sets: list[np.ndarray],
) -> tuple[list[np.ndarray], list[int], list[np.ndarray]]:
    """The colours found (``tiles``, BGR, with their ink ``polarity`` and ``members``, masks
    over the lettered ``bodies``) with those that differ from another of the same ink by
    lightness only merged: apart in hue, once one gain on all channels brings them to one
    lightness (:func:`companion.vision.sets.shade_apart`), by less than half what the closest
    two of the profile's ``sets`` are, they are one set in two lights."""
    want = [to_lab(w) for w in sets]
    least = min(hue_apart(want[a], want[b]) for a in range(len(want)) for b in range(a + 1, len(want)))
    tiles, polarity, members = list(tiles), list(polarity), list(members)
    i = 0
    while i < len(tiles):
        j = i + 1
        while j < len(tiles):
            if polarity[i] == polarity[j] and shade_apart(tiles[i], tiles[j]) < 0.5 * least:
                members[i] = members[i] | members.pop(j)
                tiles.pop(j)
                polarity.pop(j)
                tiles[i] = np.median(bodies[members[i]], axis=0)
            else:
                j += 1
        i += 1
    return tiles, polarity, members


def _sets_by_light(
    bodies: np.ndarray, pols: np.ndarray, lettered: list[np.ndarray], kept: list[np.ndarray],
    tiles: list[np.ndarray], profile: Profile,
) -> tuple[dict[int, int], list[np.ndarray], list[int | None]]:
    """Fewer colours found than the profile has sets, and no split of them: which set each
    colour found is, by the one light that carries the profile's colours onto every lettered
    face here (:mod:`companion.vision.sets`), every set's colour under that light, and the
    ink of each set's faces there (None: no face of it). ``bodies``, ``pols``: the lettered
    faces' bodies and ink polarities; ``lettered``: each colour group's mask over them (a
    group too small to be kept is still faces); ``kept``: the masks of ``tiles``."""
    want = [rgb_to_bgr(s_.rgb) for s_ in profile.sets]
    faces_ = np.any(lettered, axis=0)
    gain, assign, _ = fit_light(bodies[faces_], tiles, want)
    match = name_found(tiles, [m[faces_] for m in kept], assign, len(want))
    inks = [int(np.sign(np.median(pols[faces_][assign == j])) or 1) if (assign == j).any() else None
            for j in range(len(want))]
    return match, [carry(w, gain) for w in want], inks


_HUE_CLEAR = 0.5  # a face this much nearer one set in hue than its nearest colour's is that set's


def _by_hue(which: np.ndarray, hues: np.ndarray, tiles: list[np.ndarray]) -> np.ndarray:
    """(R, C) each square's set: its nearest colour's (``which``), or the set clearly nearest
    in hue (``hues``: (n_sets, R, C), :func:`companion.vision.sets.hue_apart` of the square
    to each set's colour ``tiles``, Lab) where the two sets differ in hue by more than a
    tile's spread. The board's light is known only as a smooth field: a shadow's edge, a
    gradient at the board's edge, a spot the field misses leave a face lighter or darker
    than its set by as much as two sets differ in lightness (a dim photo's ivory and wood),
    but its hue where it was."""
    n = len(tiles)
    if n < 2:
        return which
    near = hues.argmin(0)
    h_near = np.take_along_axis(hues, near[None], 0)[0]
    h_which = np.take_along_axis(hues, which[None], 0)[0]
    flip = (near != which) & (h_near <= _HUE_CLEAR * h_which)
    if not flip.any():
        return which
    apart = np.array([[hue_apart(tiles[a], tiles[b]) for b in range(n)] for a in range(n)])
    flip &= apart[near, which] >= 0.5 * _TILE_RADIUS
    return np.where(flip, near, which)


def _unseen_set_ink(colours: list[np.ndarray], pols: list[int], unseen: list[int], bodies: np.ndarray,
                    face_pols: np.ndarray) -> set[int]:
    """The ink of sets no face was taken for (too few of their faces had a plain body around
    the letter), ``pols`` in place: how the faces with a letter nearest such a set's colour
    print it, when most of them agree. Its colour's lightness alone does not tell (white
    letters on a mid blue, dark ones on a pink as light). The sets decided so."""
    if not unseen or not len(bodies):
        return set()
    lab = to_lab(bodies)
    d = np.stack([colour_distance(lab, to_lab(c)) for c in colours], axis=1)
    nearest = d.argmin(1)
    decided: set[int] = set()
    for j in unseen:
        votes = int(face_pols[nearest == j].sum())
        if votes:
            pols[j] = 1 if votes > 0 else -1
            decided.add(j)
    return decided


def _ratio(seen: np.ndarray, look: np.ndarray) -> np.ndarray:
    """How much brighter each channel is seen than its look, steadied for dark channels (a
    red square has almost no blue, whose ratio would be noise)."""
    return np.clip((seen + 24.0) / (look + 24.0), 0.2, 5.0)


@dataclass
class Faces:
    """The faces read where a letter-like glyph was found, before any square is decided: each
    face's ink (at full resolution, around the glyph) and how much the letter network takes
    those with a letter for one (``order``: their squares). Their letters, turns and values
    are read later, on the faces cut again around each tile (:func:`_read_inks`)."""

    inks: dict[tuple[int, int], FaceInk]
    order: list[tuple[int, int]]
    letterness: np.ndarray  # (R, C) the network's belief that the square shows a letter, 0 without
    # (R, C) a glyph the network doubts whose face shows that letter's value in its corner
    valued: np.ndarray | None = None


def _split_either_way(crop: np.ndarray, hint: int | None, **kw) -> FaceInk:
    """:func:`split_face` with the ink's polarity told by the face itself; where that finds no
    letter, with ``hint``'s (the polarity the letter was seen in elsewhere). A lamp's glare
    over a face brightens part of its body, and then the body's light tail outweighs a faint
    dark letter's: the face alone takes the glare for light ink."""
    ink = split_face(crop, **kw)
    if ink.glyph is None and hint is not None and hint != ink.polarity:
        other = split_face(crop, polarity=hint, **kw)
        if other.glyph is not None:
            return other
    return ink


def read_glyph_faces(
    grey: np.ndarray, glyphs: Glyphs, at: np.ndarray, geo: Geometry, reader: LetterReader, letters: list[str],
    values: dict[str, int] | None = None,
) -> Faces:
    """Every square's glyph read at full resolution as the face around it: the letter with its
    diacritics and value digits (:func:`companion.vision.face.split_face`), then the network.
    What tells a tile's letter from the board's print: print found at half resolution falls
    apart into small pieces (a premium's label) or reads as no letter (teeth, a star, a plain
    square's edge). A letter the network doubts (a bar: a serif I, an I a lamp's glare fades
    along its length, looks like a piece of print) is a face's where the face shows that
    letter's value, read in the corner its turn puts it (``values``, the tile set's; without
    them nothing is confirmed): print has no value beside it."""
    inks: dict[tuple[int, int], FaceInk] = {}
    order: list[tuple[int, int]] = []
    crops: dict[tuple[int, int], tuple[np.ndarray, int]] = {}
    for r, c in np.argwhere(at >= 0):
        i = int(at[r, c])
        crop = face_crop(grey, (float(glyphs.x[i]), float(glyphs.y[i])), _CROP * geo.cell_px)
        # The ink's polarity from the face itself: the glyph at half resolution may be a light
        # speck inside a dark letter, or the other way round. (The letter alone: the value is
        # read on the faces cut again around each tile.)
        ink = _split_either_way(crop, int(glyphs.polarity[i]), face_frac=0.92 / _CROP, values=False)
        inks[(int(r), int(c))] = ink
        if ink.glyph is not None:
            order.append((int(r), int(c)))
            crops[(int(r), int(c))] = crop, int(glyphs.polarity[i])
    letterness = np.zeros(at.shape, np.float32)
    for rc, v in zip(order, reader.letterness([inks[rc] for rc in order], letters)):
        letterness[rc] = v
    valued = np.zeros(at.shape, bool)
    doubted = [rc for rc in order if _DOUBTED <= letterness[rc] < _LETTERNESS]
    if values and doubted:
        # (Read with its value only where the doubt lies: the value's digits are read again
        # for every face later, on the faces cut around each tile.)
        full = [(rc, ink) for rc in doubted
                if (ink := _split_either_way(*crops[rc], face_frac=0.92 / _CROP)).glyph is not None and ink.corner is not None]
        if full:
            guesses = reader.score([ink for _, ink in full], letters, values).decide(None, values)
            for (rc, _), g in zip(full, guesses):
                valued[rc] = bool(g.value_agrees) and g.p_rotation >= _VALUE_TURN
    return Faces(inks, order, letterness, valued)


def gather_evidence(
    rectified: np.ndarray,
    geo: Geometry,
    layout: Layout,
    profile: Profile | None,
    letters: list[str] | None = None,
    values: dict[str, int] | None = None,
) -> Evidence:
    small, small_geo, small_exposure = half_board(rectified, geo)
    scale = geo.cell_px / small_geo.cell_px
    lum_small = luminance(small)  # (once: the statistics, the glyphs and the classes' pictures take it)
    stats = square_stats(small, small_geo, lum_small)
    grey = cv2.cvtColor(rectified, cv2.COLOR_BGR2GRAY)
    levels = _stretch_levels(lum_small)
    g = find_glyphs(_stretch(lum_small, levels), small_geo, _stretch_like(grey, lum_small, small_exposure, levels))
    like = letterlike(g, letters or sorted({ch for ch in load_model().classes if ch.isalpha()}))
    # Pixel centres: (i + 0.5) * scale - 0.5 back in the full-resolution board.
    glyphs = Glyphs((g.x + 0.5) * scale - 0.5, (g.y + 0.5) * scale - 0.5, g.w * scale, g.h * scale, g.polarity, g.pictures, like, g.strength)
    R, C = geo.rows, geo.cols
    shift = np.zeros((R, C, 2), np.float32)
    at = _assign_glyphs(glyphs, geo, shift)
    # A glyph that its class's other squares show too, in the same place, is the class's print.
    classes = premium_classes(layout)
    unlike = unlike_class(small, small_geo, classes, lum_small=lum_small)
    novelty = glyph_novelty(glyphs, at, unlike, geo, scale)
    # A bar (an I, or a word of print at this scale) must be clearly new: print is full of them.
    gi = np.maximum(at, 0)
    # (A board showing no ink at all, a plain board of one colour, has no glyph to index.)
    bar = (np.maximum(glyphs.w[gi], glyphs.h[gi]) >= 3.0 * np.minimum(glyphs.w[gi], glyphs.h[gi])
           if len(glyphs) else np.zeros(at.shape, bool))
    old = (at >= 0) & ~np.isnan(novelty) & (novelty < np.where(bar, _NOVEL_BAR, _NOVEL))
    if old.any():
        # ... unless the class has print and the square hides it: something lies over it, and
        # the glyph is no print, however much of the letter lies where the print's strokes lie
        # (a face's white letter on a pale blue double letter's white words).
        shown = print_shown(small, small_geo, classes, old, lum_small)
        keep = shown < _HIDDEN
        # A class without print has none to take a bar for: there a bar is old only if its
        # own pixels are the class's (the grid's lines at a square's side). A thin I, a pixel
        # wide at this scale, is two thirds body in a box that takes in a pixel either side.
        plain_bar = old & bar & np.isnan(shown)
        if plain_bar.any():
            own = glyph_novelty(glyphs, np.where(plain_bar, at, -1), unlike, geo, scale, exact=True)
            keep |= plain_bar & (own >= _NOVEL_BAR)
        at = np.where(old & ~keep, -1, at)
    letters = letters or sorted({ch for ch in load_model().classes if ch.isalpha()})
    # Grey at the board's standard exposure (as the half-resolution board): a face's
    # contrast is judged against a well exposed photo's, not in a dark photo's few levels.
    grey = cv2.convertScaleAbs(grey, alpha=small_exposure)
    reader = letter_reader(profile.arrays if profile is not None else None)
    faces = read_glyph_faces(grey, glyphs, at, geo, reader, letters, values)
    asked = at
    # A glyph the network, seeing it whole, does not take for a letter is the board's print
    # (unless its face shows the letter's value).
    # A letter the network doubts on a plain square, which prints nothing, is a letter where
    # its ink is the board's usual letters' (dark or light): an I blurred in a phone's photo,
    # turned a quarter, looks much like a dash of print to the network seeing it alone (0.34
    # to 0.5). (Not ink the other way: a light disc is a token's over a face, read again with
    # its face.)
    sure = (at >= 0) & (faces.letterness >= _LETTERNESS)
    usual_ink = 1 if glyphs.polarity[at[sure]].sum() >= 0 else -1
    ink_at = glyphs.polarity[np.maximum(at, 0)] if len(glyphs) else np.zeros(at.shape, np.int64)
    doubted_ok = (classes == list(Premium).index(Premium.NONE)) & (ink_at == usual_ink)
    at = np.where((faces.letterness >= np.where(doubted_ok, _DOUBTED, _LETTERNESS)) | faces.valued, at, -1)
    doubted = (at >= 0) & (faces.letterness < _LETTERNESS) & ~faces.valued
    # A square whose glyph, ink the other way from the board's letters, is no letter (a face's
    # light middle framed by the dark gap round it, which outweighed the dark letter in it)
    # asks its best glyph of the usual ink in its stead, taken where the network is sure of it.
    dropped = (asked >= 0) & (at < 0) & (ink_at != usual_ink)
    if dropped.any():
        usual_only = replace(glyphs, letterlike=np.where(glyphs.polarity == usual_ink, glyphs.letterlike, 0.0))
        again = np.where(dropped, _assign_glyphs(usual_only, geo, shift), -1)
        if (again >= 0).any():
            more = read_glyph_faces(grey, glyphs, again, geo, reader, letters, values)
            for rc in more.order:
                if more.letterness[rc] >= _LETTERNESS:
                    at[rc] = again[rc]
                    faces.inks[rc] = more.inks[rc]
                    faces.letterness[rc] = more.letterness[rc]
                    if rc not in faces.order:
                        faces.order.append(rc)
    # A letter is as tall as the board's other letters (one font on every face, whatever its
    # turn): a letter-like mark well under their size lies on the square (a token's disc
    # reads as an O), and is no face's letter.
    spans = {rc: max(b[2], b[3]) for rc in faces.order if at[rc] >= 0 and (b := faces.inks[rc].box) is not None}
    if len(spans) >= 5:
        usual = float(median(list(spans.values())))
        for rc, span in spans.items():
            if span < _LETTER_SPAN * usual:
                at[rc] = -1
    has = at >= 0
    pol = np.ones((R, C), np.int64)
    for rc in faces.order:
        if has[rc]:
            pol[rc] = faces.inks[rc].polarity
    body = stats.body(pol)
    spread = stats.body_spread(pol)
    # A letter on a uniform body is a tile's letter (a premium square's print is the square's
    # own colour, which the tests below set apart).
    candidate = has & (spread < 14.0)
    light = np.ones((R, C, 3), np.float32)

    # Tile bodies: the dense colours of the bodies around letters (tiles look alike on every
    # square), each kept unless it is the board's own print.
    tiles: list[np.ndarray] = []
    polarity: list[int] = []
    if candidate.any():
        lab_body = to_lab(body)
        modes = _modes(lab_body[candidate], _TILE_RADIUS, 4)
        like_c = faces.letterness[candidate]
        largest = 0
        kept_members: list[np.ndarray] = []
        lettered_members: list[np.ndarray] = []
        for centre, members in modes:
            m_pol = int(np.sign(np.median(pol[candidate][members])) or 1)
            # Squares of this colour without a letter: a few blanks and backs, or, when
            # there are many, the board's own print (a premium patch that looked like ink).
            bare = (~candidate) & (colour_distance(to_lab(stats.body(m_pol)), centre) < _TILE_RADIUS)
            print_like = bare.sum() >= max(3, 0.5 * members.sum())
            strong = members.sum() >= 2 and float(np.median(like_c[members])) >= 0.75
            # A colour whose squares with a glyph and without are all squares of one premium
            # is that premium's own colour (its glyphs a patch lit apart by a neighbour's
            # shadow), however letter-like: tiles of a set lie on any square.
            one_premium = len(set(classes[candidate][members].tolist()) | set(classes[bare].tolist())) == 1
            if print_like and (one_premium or not strong):
                # (Faces to the light all the same when their letters are clear: blue tiles
                # on a board printed the same blue, too few to stand out from its print.)
                if not one_premium and float(np.median(like_c[members])) >= 0.75:
                    lettered_members.append(members)
                continue
            lettered_members.append(members)  # faces, whether or not their colour is one
            if largest and members.sum() < max(2, 0.1 * largest):
                continue
            largest = max(largest, int(members.sum()))
            tiles.append(np.median(body[candidate][members], axis=0))
            polarity.append(m_pol)
            kept_members.append(members)
    if profile is not None and len(profile.sets) >= 2 and len(tiles) >= 2:
        # Two colours no further apart in hue than the profile's sets are one set in two
        # lights (a shadow over some of its faces), not two sets.
        tiles, polarity, kept_members = _one_set_in_two_lights(
            body[candidate], tiles, polarity, kept_members, [rgb_to_bgr(s_.rgb) for s_ in profile.sets])
    light_match: dict[int, int] | None = None
    carried: list[np.ndarray] = []
    carried_pol: list[int | None] = []
    if profile is not None and len(profile.sets) > len(tiles) >= 1:
        # Fewer colours than the profile's sets: two sets a tinted or dim light brought
        # together may have fallen into one colour. The profile says how the sets' colours
        # differ; split the faces found as they would be under one light.
        kept = np.any(kept_members, axis=0)
        split = _split_by_sets(body[candidate][kept], pol[candidate][kept], tiles,
                               [rgb_to_bgr(s_.rgb) for s_ in profile.sets])
        if split is not None:
            tiles, polarity = split
        else:
            light_match, carried, carried_pol = _sets_by_light(
                body[candidate], pol[candidate], lettered_members, kept_members, tiles, profile)
    backs: list[np.ndarray] = []
    match: dict[int, int] = {}
    ink_guessed: set[int] = set()
    if profile is not None and profile.sets:
        # The profile names the sets: each colour found takes the name of a set. The
        # profile's colours were taken under another light (a tinted light moves every
        # colour alike), so sets are matched by how the found colours differ from each
        # other first, by absolute colour second (or, with fewer colours than sets, by the
        # one light that carries them all: _sets_by_light); a set not seen here keeps its
        # colour, carried by that light when it was fitted.
        want = [to_lab(rgb_to_bgr(s_.rgb)) for s_ in profile.sets]
        got = [to_lab(t) for t in tiles]
        match = _match_sets(got, want) if light_match is None else light_match
        named: list[np.ndarray] = []
        named_pol: list[int] = []
        for j, s_ in enumerate(profile.sets):
            i = match.get(j)
            named.append(tiles[i] if i is not None else carried[j] if carried else rgb_to_bgr(s_.rgb))
            named_pol.append(polarity[i] if i is not None else carried_pol[j] if carried_pol and carried_pol[j] is not None
                             else (1 if luminance(rgb_to_bgr(s_.rgb)) >= 100 else -1))
        # A set none of whose faces were seen takes its ink from the lettered faces nearest
        # its colour; failing those it is guessed from its colour, and its faces tell their
        # own ink when read (a blue set may print white letters or black ones).
        unseen = [j for j in range(len(profile.sets))
                  if match.get(j) is None and not (carried_pol and carried_pol[j] is not None)]
        ink_guessed = set(unseen) - _unseen_set_ink(named, named_pol, unseen, body[has], pol[has])
        # A colour of lettered faces that no set of the profile is, and unlike every set's
        # colour here in every way one light can make a set look (far in colour, apart in
        # hue once a shade's gain is taken out, off the set's path to white under a lamp's
        # glare), is a set the profile does not name (a second colour of tiles when only one
        # was calibrated): its faces are tiles of an unknown set, never empty squares that fit
        # no named colour. Kept after the named sets (_nearest_set names none for it).
        for i in sorted(set(range(len(tiles))) - set(match.values())):
            if all(_unnamed_apart(tiles[i], n) for n in named):
                named.append(tiles[i])
                named_pol.append(polarity[i])
        tiles, polarity = named, named_pol
        if "set_backs" in profile.arrays:
            # A set whose backs were never calibrated has a row of NaN: it matches nothing.
            backs = [rgb_to_bgr(v) for v in profile.arrays["set_backs"]]
    profile_empty = profile.arrays.get("empty_bgr") if profile is not None else None

    def tile_distances(norm_light: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d_t = np.full((R, C), np.inf, np.float32)
        which = np.zeros((R, C), np.int64)
        hues = []
        labs = [to_lab(t) for t in tiles]
        for j, t in enumerate(labs):
            seen = to_lab(stats.body(polarity[j]) / norm_light)
            d = colour_distance(seen, t)
            hues.append(hue_apart(seen, t))
            better = d < d_t
            d_t = np.where(better, d, d_t)
            which = np.where(better, j, which)
        return d_t, _by_hue(which, np.array(hues), labs)

    empty_look = np.zeros((R, C, 3), np.float32)
    empty_known = np.zeros((R, C), bool)
    lettered = candidate.copy()
    for _round in range(3):
        empty_known[:] = False
        med = stats.median / light
        lab_med = to_lab(med)
        d_t, which = tile_distances(light)
        if _round == 0 and tiles:
            # Glyphs on a colour that is not a tile's are the board's print.
            candidate &= d_t < 1.5 * _TILE_RADIUS
        not_tile = d_t > 1.5 * _TILE_RADIUS
        # Nor the colour of a known back: face-down tiles on a few squares of a class (the
        # dungeon's edge walls cover half the triple words) must not become its empty look.
        not_back = np.ones((R, C), bool)
        plain_now = (classes == list(Premium).index(Premium.NONE)) & ~candidate
        rel = profile.arrays.get("set_backs_rel") if profile is not None else None
        relative_now = [rgb_to_bgr(v) * np.median(med[plain_now], axis=0) for v in rel] if rel is not None and plain_now.any() else []
        for bk in [*backs, *relative_now]:
            if np.isfinite(bk).all():
                not_back &= colour_distance(lab_med, to_lab(bk)) > 1.5 * _TILE_RADIUS
        for k in np.unique(classes):
            in_k = classes == k
            bare = in_k & ~candidate
            # A class's look is what its squares without a letter show: mostly empty
            # squares, a blank or back now and then. Prefer the ones unlike a tile body (or
            # a back) when there are enough (a board printed in a tile's colour leaves none, and
            # then the letters alone tell tiles apart); a class of one or two squares
            # (the centre) borrows the double-word look rather than a tile's.
            unlike = bare & not_tile & not_back
            sel = unlike if unlike.sum() >= max(1, 0.3 * bare.sum()) else bare
            if in_k.sum() < 3:
                # A class of one or two squares (the centre) cannot tell its empty look from
                # what lies on it: a back on the centre would be its own 'empty look'.
                continue
            if sel.sum() >= 1:
                empty_look[in_k] = median(med[sel], axis=0)
                empty_known[in_k] = True
        # Their look is not known: the centre borrows the double-word look (the centre is a
        # double word, usually printed alike), any other the board's typical look, and
        # either fit is only a hint (see kind_scores).
        borrowed = ~empty_known
        printed_like = classes.copy()
        if not empty_known[layout.centre]:
            dw = classes == list(Premium).index(Premium.DW)
            if empty_known[dw].any():
                empty_look[layout.centre] = empty_look[dw][0]
                empty_known[layout.centre] = True
                printed_like[layout.centre] = list(Premium).index(Premium.DW)
        if empty_known.any() and not empty_known.all():
            empty_look[~empty_known] = np.median(empty_look[empty_known], axis=0)
            empty_known[:] = True
        if profile_empty is not None and empty_known.all():
            borrowed[:] = False
            # The empty board of the profile, seen under another light and camera setting:
            # map its colours onto this photo's class looks (an affine map of colour, fitted
            # robustly), which keeps what is the square's own (a star, a label, a worn spot).
            mapped = _map_colours(profile_empty.astype(np.float32), empty_look)
            # Where the map misses this photo's own look of a class by more than a tile's
            # spread (a camera's colour response is not affine: a saturated red drifts),
            # the photo's look wins; the profile keeps only what is close to it.
            off = colour_distance(to_lab(mapped), to_lab(empty_look)) > _TILE_RADIUS
            empty_look = np.where(off[..., None], empty_look, mapped)
        d_e = np.where(empty_known, colour_distance(lab_med, to_lab(empty_look)), np.inf)
        # The light at each square: how much brighter each square is seen than its look, for
        # squares that look empty and for letters on a tile body, as a local median (light
        # changes over a few squares: a lamp's spot, a shadow), times one tint for the whole
        # board. Brightness alone varies locally: a hand or a sleeve over a few squares
        # changes their hue, and must stay foreign rather than be taken for light.
        samples = np.full((R, C, 3), np.nan, np.float32)
        # An empty square seen much brighter or dimmer than its look (a lamp's band across a
        # phone's view, a shadow over half the board) is the same colour under another light:
        # its look within the radius once one gain on every channel is taken out.
        emptyish = empty_known & ~candidate & ((d_e < 2.0 * _TILE_RADIUS)
                                               | (_shade_apart_each(stats.median, empty_look) < 0.5 * _TILE_RADIUS))
        samples[emptyish] = _ratio(stats.median[emptyish], empty_look[emptyish])
        if tiles:
            tileish = candidate & (d_t < 1.5 * _TILE_RADIUS)
            t_arr = np.array(tiles, np.float32)
            samples[tileish] = _ratio(body[tileish], t_arr[which[tileish]])
        known = np.isfinite(samples[..., 0])
        if known.any():
            log_s = np.log(np.maximum(samples, 1e-3))
            bright = log_s.mean(-1)
            tint = median((log_s - bright[..., None])[known], axis=0)
            field = local_field(np.where(known, bright, np.nan)[..., None])[..., 0]
            light = np.exp(field[..., None] + tint[None, None, :]).astype(np.float32)
        if tiles:
            # Tile colours under the light just found.
            for j in range(len(tiles)):
                mine = candidate & (which == j) & (d_t < 1.5 * _TILE_RADIUS)
                if mine.any():
                    tiles[j] = median((stats.body(polarity[j]) / light)[mine], axis=0)
    med = stats.median / light
    lab_med = to_lab(med)
    d_e = np.where(empty_known, colour_distance(lab_med, to_lab(empty_look)), np.inf)
    d_t, which = tile_distances(light)
    if tiles:
        # A letter whose body was no tile's colour before the light was known (a face in a
        # shadow's edge, a lamp's spot) is judged again under the light found from the others.
        candidate |= lettered & (d_t < 1.5 * _TILE_RADIUS)
    # The board's plain look here: what a back's calibrated ratio to it is carried by (a photo's
    # exposure scales both alike, whatever else lies on the board).
    plain = (classes == list(Premium).index(Premium.NONE)) & empty_known
    plain_look = np.median(empty_look[plain], axis=0) if plain.any() else None
    relative: list[np.ndarray] = []
    if profile is not None and plain_look is not None and "set_backs_rel" in profile.arrays:
        relative = [rgb_to_bgr(v) * plain_look for v in profile.arrays["set_backs_rel"]]
    if backs and match:
        # The profile's backs were seen under the profile's light and camera, as its faces
        # were: carry them as the faces found here differ from the profile's (one gain per
        # channel, the median over the sets found).
        gains = [_ratio(tiles[j], rgb_to_bgr(profile.sets[j].rgb)) for j in match if j < len(tiles)]
        if gains:
            gain_ = np.clip(np.median(np.array(gains), axis=0), 0.5, 2.0)
            backs = [np.clip((bk + 24.0) * gain_ - 24.0, 0, 255).astype(np.float32) for bk in backs]
    d_b = np.full((R, C), np.inf, np.float32)
    back_set = np.zeros((R, C), np.int64)
    # A back matches as carried by the faces, or by its ratio to the board's plain look: the
    # faces' colour found on a board swings with what lies on it (many faces, few), while the
    # board's own print is always there.
    for j, bk in [*enumerate(backs), *enumerate(relative)]:
        if not np.isfinite(bk).all():
            continue
        d = colour_distance(lab_med, to_lab(bk))
        back_set = np.where(d < d_b, j, back_set)
        d_b = np.minimum(d_b, d)
    glyph_ok = candidate & (d_t < 2.0 * _TILE_RADIUS)
    # Displacement of faces: glyph centres against square centres, as a plane over the board.
    # (Not by doubted letters: a piece of a letter taken for one lies off its face's middle.)
    rr, cc = np.nonzero(glyph_ok & ~doubted)
    if len(rr):
        cx, cy = geo.centre(rr, cc)
        gi = at[rr, cc]
        shift[..., 0] = smooth_field(rr, cc, glyphs.x[gi] - cx, (R, C), quadratic=False)
        shift[..., 1] = smooth_field(rr, cc, glyphs.y[gi] - cy, (R, C), quadratic=False)
        shift = np.clip(shift, -0.3 * geo.cell_px, 0.3 * geo.cell_px)
    return Evidence(
        stats, glyphs, at, tiles, polarity, backs, empty_look, empty_known, light, shift,
        d_e, d_t, which, d_b, back_set, glyph_ok,
        extra={"plain_look": plain_look, "small": small, "small_geo": small_geo, "scale": scale, "rectified": rectified,
               "exposure": small_exposure, "grey": grey, "lum_small": lum_small, "faces": faces, "novelty": novelty, "unlike": unlike,
               "borrowed": borrowed, "classes": classes, "printed_like": printed_like, "ink_guessed": ink_guessed,
               "doubted": doubted},
    )


# ---------------------------------------------------------------------------------------------
# Deciding each square


_KINDS = ("empty", "tile", "back", "other")
_OUTLIER = -0.5 * 3.5**2  # log-likelihood floor: a square that fits nothing (a hand, a shadow)
_UNSURE = -0.5 * 2.5**2  # an empty look that is only borrowed fits no worse than this


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
    z_e = np.where(ev.empty_known, ev.d_empty / _class_spreads(ev, empty_like, s_e), np.inf)
    z_t = np.minimum(ev.d_tile, _glared_face(ev)) / s_t
    z_b = ev.d_back / s_t
    # A back never shows a letter: a letter-like glyph on the square rules it out, whatever
    # the glyph's body colour (a set the clustering missed, a tinted light). Empty squares do
    # show letter-like marks (a premium's print), so only a letter on a tile's body counts
    # against them.
    letter = ev.glyph_at >= 0
    out = np.full((R, C, 4), -np.inf, np.float32)
    fit_e = -0.5 * np.minimum(z_e, 50.0) ** 2
    # A borrowed look (a class too small to know its own) is a hint: its misfit costs no more
    # than an unsure fit, and the other kinds decide (a back's colour, a tile's letter). A
    # letter on a tile's body is that other evidence: the hint does not soften what the look
    # says against it (a face on the centre, lit apart from its set, would lose to the hint).
    borrowed = ev.extra.get("borrowed")
    if borrowed is not None:
        fit_e = np.where(borrowed & ~ev.glyph_ok, np.maximum(fit_e, _UNSURE), fit_e)
    out[..., 0] = fit_e - np.where(ev.glyph_ok, 8.0, 0.0)
    # Face up: a glyph on a tile body; without a glyph a blank, which is rarer than a letter.
    out[..., 1] = -0.5 * np.minimum(z_t, 50.0) ** 2 - np.where(ev.glyph_ok, 0.0, 2.0)
    out[..., 2] = np.where(
        np.isfinite(z_b), -0.5 * np.minimum(z_b, 50.0) ** 2 - 1.0 - np.where(letter, 8.0, 0.0), -np.inf
    )
    out[..., 3] = _OUTLIER
    ev.extra["spreads"] = (s_e, s_t)
    return out


def _glared_face(ev: Evidence) -> np.ndarray:
    """(R, C) Lab distance of a lettered face's body (a letter on a tile's body) to the
    nearest set's colour mixed towards white, as a lamp's glare mixes it
    (:mod:`companion.vision.glare`); inf elsewhere. A glare spot on a face moves its body
    along that line, towards the board's own look on a pale board, while its letter, faded,
    is still there: the letter says a face lies there, and glare says where its colour went."""
    from companion.vision.glare import white_fit

    out = np.full(ev.d_tile.shape, np.inf, np.float32)
    ask = ev.glyph_ok & (ev.d_tile > _GLARE_OFF)
    if not ask.any() or not ev.tile_colours:
        return out
    rr, cc = np.nonzero(ask)
    white = _board_white(ev)[rr, cc]
    for j, colour in enumerate(ev.tile_colours):
        pol = ev.tile_polarity[j] if j < len(ev.tile_polarity) else 1
        seen = (ev.stats.body(pol)[rr, cc] / ev.light[rr, cc]).astype(np.float32)
        fitted = white_fit(seen, np.broadcast_to(colour, seen.shape).astype(np.float32), white).astype(np.float32)
        out[rr, cc] = np.minimum(out[rr, cc], colour_distance(to_lab(seen), to_lab(fitted)))
    return out


_CLASS_SPREAD = 2.0


def _class_spreads(ev: Evidence, empty_like: np.ndarray, s_e: float) -> np.ndarray:
    """(R, C) how far a square may lie from its class's empty look and still be empty: the
    board's spread, or its class's own where the class's squares disagree more among
    themselves (a premium of eight squares in the board's corners and edges, seen under a
    light the board-wide field only roughly follows: its look is a compromise, and each of
    its squares lies as far from it as the others do). The median of the class's distances,
    as a Gaussian's sigma (a distance in three channels has its median near 1.5 sigma), at
    most ``_CLASS_SPREAD`` times the board's (a class under a phone's uneven light must not
    take a tile on it for empty)."""
    classes = ev.extra.get("classes")
    spread = np.full(ev.d_empty.shape, s_e, np.float32)
    if classes is None:
        return spread
    # (Learned from, and granted to, squares without a letter-like glyph: a face whose body
    # the light moved off its set's colour still shows its letter, and is no empty square.)
    bare = ev.glyph_at < 0
    for k in np.unique(classes):
        mine = (classes == k) & empty_like & bare
        if mine.sum() >= 3:
            wide = min(_CLASS_SPREAD * s_e, max(s_e, float(median(ev.d_empty[mine])) / 1.5))
            spread[(classes == k) & bare] = wide
    return spread


def _board_white(ev: Evidence) -> np.ndarray:
    """(R, C, 3) white as this board's exposure and light show it on each square, under the
    board's light (the half board is clipped at 255)."""
    return np.minimum(255.0, 255.0 * ev.extra["exposure"]) / np.maximum(ev.light, 1e-3)


def _lamp_white(ev: Evidence) -> np.ndarray:
    """(R, C, 3) the white a lamp's glare mixes into a square, under the board's light: the
    camera's full scale, carried by the photo's exposure. Where the exposure brightened the
    photo, it lies above what the half board shows (:func:`_board_white`, clipped at 255):
    glare over a wood face in a dim photo moves its colour towards that white, not towards
    the half board's top, and a channel seen at the top says only "at least"."""
    return 255.0 * ev.extra["exposure"] / np.maximum(ev.light, 1e-3)


def _glare_kinds(ev: Evidence, scores: np.ndarray) -> np.ndarray:
    """Each square's kind: the likeliest of :func:`kind_scores`, except on squares no kind
    explains, which are looked at again as under a lamp's glare (:mod:`companion.vision.glare`),
    with the same spreads and the same priors (a blank is rarer than an empty square)."""
    from companion.vision.glare import glare_kinds

    s_e, s_t = ev.extra["spreads"]
    white = _board_white(ev)
    candidates: list[tuple[int, np.ndarray, float, float]] = []
    if ev.empty_known.any():
        candidates.append((0, np.where(ev.empty_known[..., None], ev.empty_look, np.nan), s_e, 0.0))
    candidates += [(1, t, s_t, -2.0) for t in ev.tile_colours]
    candidates += [(2, b, s_t, -1.0) for b in ev.back_colours]
    return glare_kinds(scores, ev.stats.median / ev.light, candidates, white,
                       lambda a, b: colour_distance(to_lab(a), to_lab(b)), ev.glyph_at >= 0)


_PRINT_SHOWN = 0.85  # correlation with its class's print above which a square shows that print
_PRINT_LEVEL = 0.04  # fine detail (RMS, relative to the level) a class's print must have
_PRINT_SHIFT = 2  # pixels a square's picture may lie off its class's (a grid fitted a little off)


def _print_shown(ev: Evidence, geo: Geometry, kind_idx: np.ndarray) -> np.ndarray:
    """(R, C) squares taken for a blank face on a premium square that show their class's
    print: the fine detail (words, teeth, lines) the class's squares read empty show, at full
    resolution, correlated at the best of a few small shifts. A face hides the print under
    it, and a blank has no ink at all; a lamp's glare or a light the board's field misses
    moves an empty square's colour towards a pale tile's, but its print stays where it was.
    Fine detail only (the picture less its blur, over its blur): glare and shade are smooth."""
    classes = ev.extra.get("classes")
    out = np.zeros(kind_idx.shape, bool)
    if classes is None:
        return out
    plain = list(Premium).index(Premium.NONE)
    blank = (kind_idx == 1) & (ev.glyph_at < 0) & (classes != plain)
    if not blank.any():
        return out
    rect = ev.extra["rectified"]
    p, o, s = geo.cell_px, int(round(geo.origin)), _PRINT_SHIFT
    e, pad = 3, 12  # the picture takes in the lines around the square; room for the blur
    n = p + 2 * (e + s)

    def detail(r: int, c: int) -> np.ndarray | None:
        y0, x0 = o + r * p - e - s - pad, o + c * p - e - s - pad
        if y0 < 0 or x0 < 0 or y0 + n + 2 * pad > rect.shape[0] or x0 + n + 2 * pad > rect.shape[1]:
            return None
        g = cv2.cvtColor(rect[y0 : y0 + n + 2 * pad, x0 : x0 + n + 2 * pad], cv2.COLOR_BGR2GRAY).astype(np.float32)
        low = cv2.GaussianBlur(g, (0, 0), 4.0)
        return ((g - low) / np.maximum(low, 8.0))[pad : pad + n, pad : pad + n]

    m = p + 2 * e
    for k in np.unique(classes[blank]):
        refs = [d for r, c in np.argwhere((classes == k) & (kind_idx == 0)) if (d := detail(int(r), int(c))) is not None]
        if len(refs) < 3:
            continue
        ref = np.median(np.stack(refs)[:, s : s + m, s : s + m], axis=0)
        a = (ref - ref.mean()).ravel()
        level = float(np.sqrt(np.mean(a * a)))
        if level < _PRINT_LEVEL:
            continue  # a class without print (a plain colour) tells nothing here
        for r, c in np.argwhere(blank & (classes == k)):
            d = detail(int(r), int(c))
            if d is None:
                continue
            views = np.stack([d[dy : dy + m, dx : dx + m].ravel() for dy in range(2 * s + 1) for dx in range(2 * s + 1)])
            views -= views.mean(1, keepdims=True)
            corr = (views @ a) / (np.sqrt((views * views).sum(1)) * np.sqrt(a @ a) + 1e-9)
            out[r, c] = float(corr.max()) >= _PRINT_SHOWN
    return out


_GLARE_FIT = 1.0  # spreads within which glare over the empty look must explain the colour
_GLARE_AROUND = 0.1  # white fraction the best empty neighbour must show: glare lies about


def _glare_explained(ev: Evidence, geo: Geometry, scores: np.ndarray) -> None:
    """Where a lamp's glare over a square's own empty look explains its colour closely, and
    glare also lies on the empty squares beside it, the colour no longer says "pale face":
    the empty kind is raised, in place, to that glare fit, and a face there must show what
    else says tile (its outline, :func:`_outline_evidence`, or a letter).

    Glare adds white light (:mod:`companion.vision.glare`): an empty square under it moves
    along the line from its own look to white, by one fraction for all three channels, and
    on a board printed in any colour that line passes near a pale tile's body. A face's
    body lies on that line only roughly (its hue is its own), so the fit must be within one
    spread. A lamp's spot is smooth and spreads beyond one square: an empty neighbour shows
    some white too (at least a tenth: a spot's flank; a sharp one falls off within a square). A
    blank where no glare lies about keeps its colour's word."""
    from companion.vision.glare import white_fraction

    if not ev.empty_known.any():
        return
    s_e, _ = ev.extra["spreads"]
    seen = ev.stats.median / ev.light
    look = np.where(ev.empty_known[..., None], ev.empty_look, 0.0)
    white = _board_white(ev)
    span = white - look
    frac = np.where(ev.empty_known, white_fraction(seen, look, white), 0.0)
    R, C = frac.shape
    # The white fraction shown by each square's empty neighbours (eight around), at best.
    empty_now = scores[..., :3].argmax(-1) == 0
    pad = np.pad(np.where(empty_now, frac, 0.0), 1)
    around = np.max([pad[1 + dy : 1 + dy + R, 1 + dx : 1 + dx + C] for dy in (-1, 0, 1) for dx in (-1, 0, 1)
                     if dy or dx], axis=0)
    # Only squares a face now leads on are looked at (elsewhere nothing would change).
    ask = (ev.empty_known & (ev.glyph_at < 0) & (frac > 0) & (around >= _GLARE_AROUND)
           & (scores[..., 1] > scores[..., 0]))
    if not ask.any():
        return
    rr, cc = np.nonzero(ask)
    fitted = (look[rr, cc] + frac[rr, cc, None] * span[rr, cc]).astype(np.float32)
    d = colour_distance(to_lab(seen[rr, cc].astype(np.float32)), to_lab(fitted))
    fit = -0.5 * (np.minimum(d / s_e, 50.0)) ** 2
    rect = ev.extra["rectified"]
    p, o = geo.cell_px, int(round(geo.origin))
    for r, c, dist, f in zip(rr, cc, d, fit):
        if dist > _GLARE_FIT * s_e or f <= scores[r, c, 0]:
            continue
        # Ink in the middle (a letter the board-wide pass missed) is other evidence: it stays.
        # Looked for in the square's fine detail only: glare itself is smooth, and a spot's
        # slope across the square is no ink.
        y, x = o + r * p, o + c * p
        g = cv2.cvtColor(rect[y : y + p, x : x + p], cv2.COLOR_BGR2GRAY).astype(np.float32)
        g = g - cv2.GaussianBlur(g, (0, 0), p / 6) + float(np.median(g))
        if not _inked(g):
            scores[r, c, 0] = f


_SHADE_RANGE = (0.6, 0.95)  # gains below the light found that a shade on the board may leave
_SHADE_AROUND = 0.06  # how much less deep the shade may lie on an empty square near
_SHADE_REACH = 2  # squares within which that empty square lies


def _shade_gain(seen: np.ndarray, look: np.ndarray) -> np.ndarray:
    """(...) the one gain for all three channels that brings ``look`` (..., 3) nearest
    ``seen`` (..., 3), least squares."""
    return np.sum(seen * look, axis=-1) / np.maximum(np.sum(look * look, axis=-1), 1e-3)


def _shade_explained(ev: Evidence, scores: np.ndarray) -> None:
    """Where a shade over a square's own empty look explains its colour closely, and the
    same shade lies on an empty square beside it, the colour no longer says "held" (or
    "nothing known"): the empty kind is raised, in place, to that shade's fit.

    A shade takes light away: an empty square under it shows its own look times one gain
    for all three channels, and on a pale board that darker look lies near a pale face's
    body (or, on a dark one, near a slate back). The light found for each square misses
    such a shade where the board's surface and what stands on it are lit apart: among
    crowded tiles, whose tops stand above the shade their neighbours cast, and whose set's
    colour is learnt from the same tiles when the set lies nowhere else. A face's or back's
    colour is its own hue, not the board's look dimmed, and fits the line only roughly
    (within one spread is asked). A shade is smooth and wider than a square: an empty
    square within ``_SHADE_REACH`` shows it too, at least nearly as deep (a lone dark
    square is something else; among crowded tiles the nearest empty square may be two off).
    Gains between ``_SHADE_RANGE``: a shallower one is the light's own error, a deeper one
    is no board's shade (a slate back on a grey board is that dark)."""
    if not ev.empty_known.any():
        return
    s_e, _ = ev.extra["spreads"]
    seen = ev.stats.median / ev.light
    look = np.where(ev.empty_known[..., None], ev.empty_look, 0.0)
    gain = np.where(ev.empty_known, _shade_gain(seen, look), np.inf)
    R, C = gain.shape
    empty_now = scores[..., :3].argmax(-1) == 0
    n = _SHADE_REACH
    pad = np.pad(np.where(empty_now, gain, np.inf), n, constant_values=np.inf)
    around = np.min([pad[n + dy : n + dy + R, n + dx : n + dx + C] for dy in range(-n, n + 1) for dx in range(-n, n + 1)
                     if dy or dx], axis=0)
    ask = (ev.empty_known & (ev.glyph_at < 0) & (scores[..., 1:].max(-1) > scores[..., 0])
           & (gain >= _SHADE_RANGE[0]) & (gain <= _SHADE_RANGE[1]) & (around <= gain + _SHADE_AROUND))
    borrowed = ev.extra.get("borrowed")
    if borrowed is not None:
        ask &= ~borrowed
    if not ask.any():
        return
    rr, cc = np.nonzero(ask)
    fitted = (gain[rr, cc, None] * look[rr, cc]).astype(np.float32)
    d = colour_distance(to_lab(seen[rr, cc].astype(np.float32)), to_lab(fitted))
    fit = -0.5 * np.minimum(d / s_e, 50.0) ** 2
    # The shade is one more free gain: it must explain the square better than the nearest
    # face's or back's own colour does (a pale blank's body may lie near the dimmed look too).
    ok = (d <= s_e) & (d < np.minimum(ev.d_tile[rr, cc], ev.d_back[rr, cc]))
    scores[rr[ok], cc[ok], 0] = np.maximum(scores[rr[ok], cc[ok], 0], fit[ok])


_OUTLINE_WINDOW = 2.5  # log-likelihoods between held and empty within which colour has not decided
_OUTLINE_REFS = 24  # squares of each reference kind measured (evenly over the board)
_LEAST_REFS = 5  # squares of a reference kind without which nothing is compared
_INKED = 0.4  # contrast (2-98 % range over the level) of a square's middle that shows ink


def _inked(square: np.ndarray) -> bool:
    """Whether a square's grey picture (p x p) shows ink in its middle (a fifth in from its
    sides): a letter the board-wide pass missed, a premium's print."""
    p = square.shape[0]
    middle = square[p // 5 : p - p // 5, p // 5 : p - p // 5].astype(np.float32)
    lo, hi = np.percentile(middle, (2, 98))
    return bool((hi - lo) / max(float(np.median(middle)), 8.0) > _INKED)


def _shape_classes(ev: Evidence) -> tuple[np.ndarray, np.ndarray]:
    """(R, C) the print class each square's outline and rim are compared within, and (R, C)
    whether it has one. A square's own class, where the class knows its own empty look. A
    class too small to know its own look (the centre) borrows another's: the double word's,
    which the centre is printed as (its colour, its grid lines, with a star in the middle
    that a face hides): its outline and rim are that print's too, whose corners and sides
    lie clear of the star. The board's typical look, borrowed by any other, is no print's:
    such a square has no class to compare with."""
    R, C = ev.d_empty.shape
    classes = ev.extra.get("classes")
    classes = np.zeros((R, C), np.int64) if classes is None else classes
    borrowed = ev.extra.get("borrowed")
    if borrowed is None:
        return classes, np.ones((R, C), bool)
    like = ev.extra.get("printed_like", classes)
    return np.where(borrowed, like, classes), ~borrowed | (like != classes)


def _outline_asked(ev: Evidence, scores: np.ndarray) -> np.ndarray:
    """(R, C) the squares a tile's own shape is asked about (its outline, its rim): no letter,
    colour leaving face-up and empty within ``_OUTLINE_WINDOW``, face-up the likelier held
    kind, and either kind likelier than the outlier floor; not where the square has no print
    class to compare with (:func:`_shape_classes`)."""
    held = scores[..., 1]
    ask = ((ev.glyph_at < 0) & (np.abs(held - scores[..., 0]) <= _OUTLINE_WINDOW)
           & (held >= scores[..., 2]) & (np.maximum(held, scores[..., 0]) > scores[..., 3]))
    return ask & _shape_classes(ev)[1]


def _outline_evidence(ev: Evidence, geo: Geometry, scores: np.ndarray) -> np.ndarray:
    """(R, C) log-likelihood of a tile's own outline against an empty square's
    (:mod:`companion.vision.outline`), added in place to ``scores``' face-up kind, on squares
    without a letter where colour leaves a face and empty close (a pale face on a square of
    nearly its colour; glare washing a square towards a pale face). The
    references are this photo's own: faces known by their letters, and squares of the same
    print known empty. A square on the board's edge has the board's border beside it, unlike
    the grid lines inner squares show: it is compared with empty squares of its print on the
    edge (the outline's features are alike on each side: its corners' mean and second weakest).
    Where something stands at each of a square's corners, its vote against a face is small
    (:func:`_corners_hidden`)."""
    from companion.vision.outline import edge_maps, outline_features, outline_llr

    R, C = ev.d_empty.shape
    out = np.zeros((R, C), np.float32)
    inner = np.zeros((R, C), bool)
    inner[1:-1, 1:-1] = True
    # Face up against empty only: a back's ribs and its colour's own contrast are unlike the
    # lettered faces the outline is measured against (and a back is told from a face by colour).
    ask = _outline_asked(ev, scores)
    if not ask.any():
        return out
    probs = _softmax(scores)
    classes = _shape_classes(ev)[0]
    # Empty squares are compared by print and by place: inner, or on the edge.
    classes = 2 * classes + ~inner
    empty_ref = (ev.glyph_at < 0) & (probs[..., 0] > 0.9) & ~ask
    tile_ref = inner & ev.glyph_ok & (probs[..., 1] > 0.8)
    if tile_ref.sum() < _LEAST_REFS or (empty_ref & inner).sum() < _LEAST_REFS:
        return out

    def spread(mask: np.ndarray) -> np.ndarray:
        at = np.argwhere(mask)
        return at[np.linspace(0, len(at) - 1, min(len(at), _OUTLINE_REFS)).round().astype(int)]

    # Faces of the set the square would be (a pale face's outline shows less contrast than
    # a dark one's on the same board), or of any set when that one has too few letters.
    sets = ev.tile_set
    tiles = {}
    for j in np.unique(sets[ask]):
        mine = tile_ref & (sets == j)
        tiles[int(j)] = spread(mine if mine.sum() >= _LEAST_REFS else tile_ref)
    empties = {}
    for k in np.unique(classes[ask]):
        mine = empty_ref & (classes == k)
        if mine.sum() >= _LEAST_REFS:
            empties[int(k)] = spread(mine)
        else:
            # Too few squares of this print known empty (a premium under tiles): a print's
            # own edges and lines are unlike another's, so nothing to compare with.
            ask &= classes != k
    if not ask.any():
        return out
    asked = np.argwhere(ask)
    tiles = {j: t for j, t in tiles.items() if j in set(sets[ask].tolist())}
    squares = np.concatenate([asked, *tiles.values(), *empties.values()])
    grey = cv2.cvtColor(ev.extra["rectified"], cv2.COLOR_BGR2GRAY)
    p = geo.cell_px
    o = int(round(geo.origin))
    # Only the part of the board the squares measured lie in needs its gradients.
    y0 = max(0, o + int(squares[:, 0].min()) * p - p)
    x0 = max(0, o + int(squares[:, 1].min()) * p - p)
    y1 = min(grey.shape[0], o + (int(squares[:, 0].max()) + 2) * p)
    x1 = min(grey.shape[1], o + (int(squares[:, 1].max()) + 2) * p)
    gx, gy = edge_maps(grey[y0:y1, x0:x1])
    cx, cy = geo.centre(squares[:, 0], squares[:, 1])
    cx, cy = cx - x0, cy - y0
    q = p // 4  # the middle half of a square: its level
    level = np.array([np.median(grey[y0 + int(y) - q : y0 + int(y) + q, x0 + int(x) - q : x0 + int(x) + q])
                      for x, y in zip(cx, cy)], np.float32)
    feats = outline_features(gx, gy, level, cx.astype(np.float32), cy.astype(np.float32), p, 0.94 * p)
    start = len(asked)
    f_tiles, f_empties = {}, {}
    for refs, got in ((tiles, f_tiles), (empties, f_empties)):
        for k, at in refs.items():
            got[k] = feats[start : start + len(at)]
            start += len(at)
    for n, (r, c) in enumerate(asked):
        # The outline speaks only between a face and a square that show nothing else: ink
        # in the square's middle (a letter the board-wide pass missed, a premium's print)
        # is other evidence, and print has edges of its own where a face's corners lie.
        y, x = o + r * p, o + c * p
        if _inked(grey[y : y + p, x : x + p]):
            continue
        out[r, c] = outline_llr(feats[n : n + 1], f_empties[int(classes[r, c])], f_tiles[int(sets[r, c])])[0]
    # Where something stands at every corner of the square (a neighbour beside it or across
    # the corner), a face's corners may lie under a neighbour's overhang or against its edge:
    # a weak corner there says little against a face. A rounded corner left bare still says
    # "face".
    hidden = _corners_hidden(scores.argmax(-1) != 0)
    out = np.where(hidden, np.maximum(out, -_HIDDEN_CORNERS), out)
    scores[..., 1] += out
    return out


_HIDDEN_CORNERS = 1.0  # log-likelihood the outline may take from a face whose every corner has a neighbour at it


def _corners_hidden(held: np.ndarray) -> np.ndarray:
    """(R, C) squares each of whose four corners has a held square at it: beside the square
    on either side of the corner, or across it (the board's edge holds nothing)."""
    R, C = held.shape
    pad = np.pad(held, 1)

    def at(dr: int, dc: int) -> np.ndarray:
        return pad[1 + dr : 1 + dr + R, 1 + dc : 1 + dc + C]

    every = np.ones((R, C), bool)
    for dr in (-1, 1):
        for dc in (-1, 1):
            every &= at(dr, 0) | at(0, dc) | at(dr, dc)
    return every


_RIM_TILES = 8  # lettered faces nearest a square whose rims it is compared with (same camera angle)
_RIM_EMPTIES = 16  # empty squares of its print nearest it
_RIM_LEAST = (3, 5)  # fewer faces, or empty squares, with that side free: that side is not compared
_RIM_WEIGHT = 2.5  # log-likelihood per unit of the sides' summed score (each -1..1)


def _rim_evidence(ev: Evidence, geo: Geometry, scores: np.ndarray) -> np.ndarray:
    """(R, C) log-likelihood of a tile's rim against an empty square's
    (:mod:`companion.vision.rims`: what shows across each side whose neighbour is empty, the
    bevel, the slab's side wall turned to the camera, its foot and shadow, against the lettered
    faces nearest the square and the nearest empty squares of its print), on the squares where
    the outline is asked (no letter; colour leaves face-up and empty close). Not added to
    ``scores``: the caller adds it."""
    R, C = ev.d_empty.shape
    total = np.zeros((R, C), np.float32)
    for (r, c), _, score in _rim_sides(ev, geo, scores, _outline_asked(ev, scores)):
        total[r, c] += score
    return np.clip(_RIM_WEIGHT * total, -_CAP_RIM, _CAP_RIM)


def _rim_sides(ev: Evidence, geo: Geometry, scores: np.ndarray, ask: np.ndarray
               ) -> list[tuple[tuple[int, int], int, float]]:
    """(square, side, score) of every side of the ``ask`` squares that can be compared (see
    :func:`_rim_evidence`)."""
    from companion.vision.rims import ACROSS, side_profiles, side_score

    R, C = ev.d_empty.shape
    if not ask.any():
        return []
    probs = _softmax(scores)
    empty_now = scores.argmax(-1) == 0
    # free[r, c, k]: the neighbour across side k is on the board and empty.
    free = np.zeros((R, C, 4), bool)
    for k, (dr, dc) in enumerate(ACROSS):
        pad = np.pad(empty_now, 1)
        free[..., k] = pad[1 + dr : 1 + dr + R, 1 + dc : 1 + dc + C]
    classes = _shape_classes(ev)[0]
    tile_ref = ev.glyph_ok & (probs[..., 1] > 0.8)
    # Empty references: every square now taken for empty, asked or not (on a board of nearly
    # a pale set's colour every empty square is asked, and blanks are few among them).
    empty_ref = (ev.glyph_at < 0) & empty_now
    if tile_ref.sum() < _RIM_LEAST[0]:
        return []

    def nearest(mask: np.ndarray, r: int, c: int, n: int) -> np.ndarray:
        at = np.argwhere(mask)
        d = np.maximum(np.abs(at[:, 0] - r), np.abs(at[:, 1] - c))
        return at[np.argsort(d, kind="stable")[:n]]

    grey = cv2.cvtColor(ev.extra["rectified"], cv2.COLOR_BGR2GRAY)
    p, o = geo.cell_px, int(round(geo.origin))
    plans = []  # (square, side, tile refs, empty refs)
    for r, c in np.argwhere(ask):
        # Ink in the middle (a premium's print, a letter missed) is other evidence, as for the
        # outline.
        if _inked(grey[o + r * p : o + (r + 1) * p, o + c * p : o + (c + 1) * p]):
            continue
        mine = tile_ref & (ev.tile_set == ev.tile_set[r, c])
        for k in range(4):
            if not free[r, c, k]:
                continue
            t = mine & free[..., k]
            if t.sum() < _RIM_LEAST[0]:
                t = tile_ref & free[..., k]
            e = empty_ref & free[..., k] & (classes == classes[r, c])
            e[r, c] = False
            if t.sum() < _RIM_LEAST[0] or e.sum() < _RIM_LEAST[1]:
                continue
            plans.append(((int(r), int(c)), k, nearest(t, r, c, _RIM_TILES), nearest(e, r, c, _RIM_EMPTIES)))
    if not plans:
        return []
    squares = sorted({(int(a), int(b)) for _, _, t, e in plans for a, b in np.concatenate([t, e])}
                     | {sq for sq, _, _, _ in plans})
    index = {sq: i for i, sq in enumerate(squares)}
    at = np.array(squares)
    cx, cy = geo.centre(at[:, 0], at[:, 1])
    prof = side_profiles(grey, np.asarray(cx, np.float32), np.asarray(cy, np.float32), geo.cell_px)
    out = []
    for sq, k, t, e in plans:
        ti = [index[(int(a), int(b))] for a, b in t]
        ei = [index[(int(a), int(b))] for a, b in e]
        out.append((sq, k, side_score(prof[index[sq], k], prof[ti, k], prof[ei, k])))
    return out


_CAP_RIM = 3.0  # as the outline's: evidence, never proof


def _softmax(z: np.ndarray, axis: int = -1) -> np.ndarray:
    z = z - z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


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


# ---------------------------------------------------------------------------------------------
# Something over the board


def lost_lines(ev: Evidence, kind_idx: np.ndarray) -> np.ndarray:
    """(R, C) number of an empty square's sides whose grid line is gone (0..4), sides next to
    a tile (which overhangs the line) not counted. A hand, an arm or anything held above the
    board hides the lines under it whatever its colour, where colour alone may match."""
    small, sg = ev.extra["small"], ev.extra["small_geo"]
    R, C, p = sg.rows, sg.cols, sg.cell_px
    o = int(round(sg.origin))
    g = ev.extra["lum_small"] if "lum_small" in ev.extra else luminance(small)
    m = max(2, p // 8)  # a side's ends are left out: corners where lines cross
    # Contrast across each border: the range of lightness over a band of 5 pixels on it, the
    # median along each side (all borders at once).
    band = np.arange(-2, 3)
    ys = np.clip(o + np.arange(R + 1)[:, None] * p + band, 0, g.shape[0] - 1)  # (R + 1, 5)
    across = g[ys, o : o + C * p]  # (R + 1, 5, C p)
    rng_h = (across.max(axis=1) - across.min(axis=1)).reshape(R + 1, C, p)[:, :, m:-m]
    horiz = median(rng_h, axis=2).astype(np.float32)  # border above row r (r = R: below the last)
    xs = np.clip(o + np.arange(C + 1)[:, None] * p + band, 0, g.shape[1] - 1)  # (C + 1, 5)
    across_v = g[o : o + R * p][:, xs]  # (R p, C + 1, 5)
    rng_v = (across_v.max(axis=2) - across_v.min(axis=2)).reshape(R, p, C + 1)[:, m:-m, :]
    vert = median(rng_v, axis=1).astype(np.float32)
    empty = kind_idx == 0
    # The board's own line contrast: sides between two empty squares, typically.
    both_h = np.zeros((R + 1, C), bool)
    both_h[1:R] = empty[:-1] & empty[1:]
    both_v = np.zeros((R, C + 1), bool)
    both_v[:, 1:C] = empty[:, :-1] & empty[:, 1:]
    pool = np.concatenate([horiz[both_h], vert[both_v]])
    if len(pool) < 10:
        return np.zeros((R, C), np.int64)
    typical = float(median(pool))
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


# The companion's tokens are small discs; on a face-up tile one lies in the tile's own top-left
# quarter (the letter upright), where nothing is printed: the companion tells players to put it
# there. On an empty square or a back it may lie anywhere.
TOKEN_RADIUS = 0.10  # squares
TOKEN_INSET = 0.03  # squares between such a token and the face's edges (as the companion tells players)
_TOKEN_FOREIGN = 20.0  # Lab distance from what should lie there that a token's pixels exceed
_TOKEN_SPOT = 16.0  # Lab distance of a spot's mean from its ring's that may be a token
_FOREIGN = 38.0  # Lab distance from what should be there that leaves a pixel unexplained
_ODD_ALLOWED = 0.04  # fraction of a square left unexplained by print, ink and tokens that is noise
_ODD_SPAN = 0.08  # ... beyond which belief in the square falls to nothing


def token_blobs(
    foreign: np.ndarray,
    radius_px: float,
    open_px: float,
    within: tuple[int, int, int, int] | None = None,
    least: float = 1.6,
    frame: int = 0,
) -> list[tuple[float, float, float]]:
    """Round blobs of a token's size in a 0/1 mask of foreign pixels: (x, y, sureness).

    The mask is opened with a disc ``open_px`` across, so that strokes and seams thinner than
    that vanish and a token's disc stays. ``within`` (x0, y0, x1, y1): a blob must lie wholly
    inside this box, off its edges (on a face's quarter: ink reaching out of the quarter is
    the letter's, not a token). ``least``: the smallest diameter, in token radii (a token cut
    by a face's edge shows less of itself). ``frame``: pixels along the mask's border left
    out (where a face found a pixel off shows the gap around it, which a token in the face's
    corner touches)."""
    fg = foreign.astype(np.uint8)
    if frame > 0:
        fg[:frame], fg[-frame:], fg[:, :frame], fg[:, -frame:] = 0, 0, 0, 0
    raw = fg
    # Close and fill first: a token's highlight and rim leave holes in its colour.
    fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    nh, holes, hstats, _hc = cv2.connectedComponentsWithStats(1 - fg, connectivity=4)
    small = (hstats[:, 4] <= 0.5 * radius_px * radius_px) & (hstats[:, 0] > 0) & (hstats[:, 1] > 0)
    small &= (hstats[:, 0] + hstats[:, 2] < fg.shape[1]) & (hstats[:, 1] + hstats[:, 3] < fg.shape[0])
    small[0] = False
    if small.any():
        fg[small[holes]] = 1
    k = max(3, int(round(open_px)) | 1)
    opened = cv2.morphologyEx(fg, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, _labels, stats, cents = cv2.connectedComponentsWithStats(opened, connectivity=8)
    if within is not None and n > 1:
        # Containment is of the whole patch the blob belongs to (a letter's junction left by
        # the opening is part of the letter, which reaches out of the quarter).
        # (Thin seams first: a face's edge seen where the face was found a pixel off. Before
        # the closing: a token drawn a pixel or two clear of the letter's corner, as the
        # companion's tokens lie, is not the letter's.)
        lean = cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        _m, raw_labels, raw_stats, _c = cv2.connectedComponentsWithStats(lean, connectivity=8)
    out = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if within is not None:
            x0, y0, x1, y1 = within
            j = raw_labels[int(round(cents[i][1])), int(round(cents[i][0]))]
            rx, ry, rw, rh = (int(v) for v in raw_stats[j, :4]) if j else (x, y, w, h)
            if rx <= x0 or ry <= y0 or rx + rw >= x1 or ry + rh >= y1:
                continue
        diameter = 2.0 * np.sqrt(area / np.pi)
        if not (least * radius_px <= diameter <= 3.0 * radius_px):
            continue
        # Round: the area fills its box like a disc (pi / 4, not a square's 1: a premium's
        # teeth) and the box is square.
        fill = area / float(w * h)
        if not 0.6 <= fill <= 0.9 or max(w, h) > 1.5 * min(w, h):
            continue
        size = 1.0 - min(1.0, abs(diameter / (2.0 * radius_px) - 1.0))
        out.append((float(cents[i][0]), float(cents[i][1]), float(min(1.0, (fill - 0.55) / 0.2) * (0.5 + 0.5 * size))))
    return out


# A token seen from above is a disc: a solid middle of one colour, ringed on every side by
# something unlike it. The ring is looked at just past the token's rim (a token lies a little
# clear of a face's letter and edges): a letter's stroke, a tile's shadow, a premium's teeth
# run on past a side of any spot of them, and print thinner than a token leaves the middle
# uneven.
_DISC_SIDES = tuple((float(np.cos(a)), float(np.sin(a))) for a in np.arange(8) * np.pi / 4)
_DISC_RING = 1.35  # token radii from a token's middle to where its ring is looked at
_DISC_CONTRAST = 24.0
_DISC_LEAST = 10.0  # ... that a patch of a token's colour and size must reach to be one  # Lab distance between a token's middle and its least unlike side, less its unevenness
_CORNER_REACH = 6  # pixels about a face's corner where a token's middle is looked for (the face is known to a few)


def _disc_middle(lab: np.ndarray, radius_px: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the disc tests ask of every pixel of a Lab picture taken as a token's middle: the
    middle's colour (the mean of a box about the token's body across), its spread there (a
    solid disc has little), and the picture lightly smoothed (what a ring about it sees)."""
    k = max(3, int(round(1.1 * radius_px)) | 1)
    if lab.ndim == 4:
        # A stack of pictures, each blurred by itself (its own edges); the rest at once.
        core = np.stack([cv2.blur(x, (k, k)) for x in lab])
        var = np.stack([cv2.blur(x, (k, k)) for x in lab * lab]) - core * core
        around = np.stack([cv2.blur(x, (3, 3)) for x in lab])
    else:
        core = cv2.blur(lab, (k, k))
        var = cv2.blur(lab * lab, (k, k)) - core * core
        around = cv2.blur(lab, (3, 3))
    spread = np.sqrt(np.maximum(0.25 * var[..., 0] + var[..., 1] + var[..., 2], 0.0))
    return core, spread, around


def token_disc(lab: np.ndarray, radius_px: float) -> tuple[np.ndarray, np.ndarray]:
    """For every pixel of a Lab picture taken as a token's middle: the middle's colour (the
    mean of a box about the token's body across) and how much it stands out as a disc: its
    distance to the least unlike of eight sides of a ring around it, less the middle's own
    spread."""
    core, spread, around = _disc_middle(lab, radius_px)
    pad = int(np.ceil(_DISC_RING * radius_px)) + 1
    big = cv2.copyMakeBorder(around, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    h, w = lab.shape[:2]
    least = None
    for ux, uy in _DISC_SIDES:
        dx, dy = int(round(_DISC_RING * radius_px * ux)), int(round(_DISC_RING * radius_px * uy))
        d = colour_distance(core, big[pad + dy : pad + dy + h, pad + dx : pad + dx + w])
        least = d if least is None else np.minimum(least, d)
    return core, least - spread


_INWARD = ((1.0, 0.0), (float(np.sqrt(0.5)), float(np.sqrt(0.5))), (0.0, 1.0))  # a corner's inward sides, upright


def corner_discs(
    labs: np.ndarray, at: np.ndarray, radius_px: float, turns: Sequence[int], reach: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """How much a face's corner shows a token's disc, for a stack of Lab crops (n, h, w, 3):
    a solid middle unlike the face on every side of it that lies on the face (toward the
    face's middle; the sides toward its edges see past it, the gap and the board). ``at``
    (n, 2): where a token's middle lies in each crop (the tile's own top-left corner, turned
    ``turns`` degrees clockwise), searched ``reach`` pixels about. Returns x, y, score (n,)
    and the middle's colour (n, 3) at each crop's best place. (All crops at once: crops whose
    search and sides fall alike share each operation.)"""
    core, spread, around = _disc_middle(labs, radius_px)
    n, h, w = labs.shape[:3]
    out_x, out_y = np.zeros(n), np.zeros(n)
    out_score = np.zeros(n, np.float32)
    colour = np.zeros((n, 3), np.float32)
    groups: dict[tuple[int, int, int], list[int]] = {}
    for i, ((ax, ay), turn) in enumerate(zip(at, turns)):
        groups.setdefault((int(round(float(ax))), int(round(float(ay))), (int(turn) // 90) % 4), []).append(i)
    for (cx0, cy0, q), members in groups.items():
        idx = np.array(members)
        ys, xs = slice(max(cy0 - reach, 0), min(cy0 + reach + 1, h)), slice(max(cx0 - reach, 0), min(cx0 + reach + 1, w))
        # (A side past the crop's edge: no disc seen there; the middles with such a side
        # score -inf. Distances are taken only where the side lies on the crop.)
        least = np.full((len(idx), ys.stop - ys.start, xs.stop - xs.start), np.inf, np.float32)
        for ux, uy in _INWARD:
            for _ in range(q):  # each clockwise quarter turn carries the corner round
                ux, uy = -uy, ux
            dx, dy = int(round(ux * _DISC_RING * radius_px)), int(round(uy * _DISC_RING * radius_px))
            sy0, sy1 = max(ys.start + dy, 0), min(ys.stop + dy, h)
            sx0, sx1 = max(xs.start + dx, 0), min(xs.stop + dx, w)
            if sy1 <= sy0 or sx1 <= sx0:
                least[:] = -np.inf
                continue
            my0, my1, mx0, mx1 = sy0 - dy, sy1 - dy, sx0 - dx, sx1 - dx  # the middles whose side is on the crop
            part = least[:, my0 - ys.start : my1 - ys.start, mx0 - xs.start : mx1 - xs.start]
            np.minimum(part, colour_distance(core[idx, my0:my1, mx0:mx1], around[idx, sy0:sy1, sx0:sx1]), out=part)
            if (my0, my1, mx0, mx1) != (ys.start, ys.stop, xs.start, xs.stop):
                off = np.ones(least.shape[1:], bool)
                off[my0 - ys.start : my1 - ys.start, mx0 - xs.start : mx1 - xs.start] = False
                least[:, off] = -np.inf
        score = (least - spread[idx, ys, xs]).reshape(len(idx), -1)
        best = np.argmax(score, axis=1)
        y, x = np.divmod(best, xs.stop - xs.start)
        out_x[idx], out_y[idx] = xs.start + x, ys.start + y
        out_score[idx] = score[np.arange(len(idx)), best]
        colour[idx] = core[idx, ys.start + y, xs.start + x]
    return out_x, out_y, out_score, colour


def _best_disc(score: np.ndarray, ok: np.ndarray) -> tuple[float, float, float] | None:
    """The strongest disc where ``ok``: (x, y, its score), None where nothing is ``ok``."""
    s = np.where(ok, score, -np.inf)
    i = int(np.argmax(s))
    y, x = divmod(i, s.shape[1])
    if not np.isfinite(s[y, x]):
        return None
    return float(x), float(y), float(s[y, x])


def _token_near(blobs: list[tuple[float, float, float]], x: float, y: float, radius_px: float) -> list[tuple[float, float, float]]:
    """The blobs within a token's radius of (x, y) (each axis)."""
    return [f for f in blobs if abs(f[0] - x) <= radius_px and abs(f[1] - y) <= radius_px]


@lru_cache(maxsize=8)
def _face_outline(side: int) -> np.ndarray:
    """True inside a tile face's rounded outline (corners rounded by an eighth of the edge),
    two pixels in from its edge (where the face is found a pixel or two off, the gap around
    it shows), in a crop ``side`` pixels wide."""
    m = np.zeros((side * 4, side * 4), np.uint8)
    r = int(round(0.13 * side * 4))
    e = side * 4 - 1
    cv2.rectangle(m, (r, 0), (e - r, e), 255, -1)
    cv2.rectangle(m, (0, r), (e, e - r), 255, -1)
    for cx, cy in ((r, r), (e - r, r), (r, e - r), (e - r, e - r)):
        cv2.circle(m, (cx, cy), r, 255, -1)
    small = cv2.resize(m, (side, side), interpolation=cv2.INTER_AREA) > 254
    return cv2.erode(small.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)


def _top_left_quarter(rotation: int, side: int) -> tuple[int, int, int, int]:
    """The box (x0, y0, x1, y1) of a face crop ``side`` pixels wide that is the tile's own
    top-left quarter, for a tile turned ``rotation`` degrees clockwise (edges included: a
    blob must lie inside them)."""
    half = side // 2
    lo, hi = (-1, half), (side - half - 1, side + 1)
    # Upright the quarter is top-left; each clockwise quarter turn carries it round.
    (x0, x1), (y0, y1) = {0: (lo, lo), 90: (hi, lo), 180: (hi, hi), 270: (lo, hi)}[rotation]
    return x0, y0, x1, y1


def _unlike(lab: np.ndarray, want: np.ndarray) -> np.ndarray:
    """How unlike a token's colour is to what should lie there (8-bit Lab, either may be one
    colour): the colour distance, except for a pixel only darker than it by less than half
    (a shadow, which tiles cast beside themselves under a lamp at the side, darkens and
    greys a colour): its hue's distance alone. A token is another colour, or far darker."""
    # (Channel by channel, in place where it can be: the same operations in the same order as
    # on the whole difference, without its temporaries.)
    lab, want = np.asarray(lab, np.float32), np.asarray(want, np.float32)
    d0 = lab[..., 0] - want[..., 0]
    hue2 = lab[..., 1] - want[..., 1]
    hue2 *= hue2
    d2 = lab[..., 2] - want[..., 2]
    d2 *= d2
    hue2 += d2
    light = lab[..., 0]
    shade = (d0 <= 0) & (light >= 0.4 * (light - d0))
    d0 *= d0
    d0 *= np.float32(0.25)
    d0 += hue2
    return np.sqrt(np.where(shade, hue2, d0))


def _off_blend(lab: np.ndarray, light: np.ndarray, dark: np.ndarray) -> np.ndarray:
    """How far Lab colours are from every blend of a square's two colours (its lighter and
    darker half: a ground and its print, a face's body and ink), as :func:`colour_distance`
    measures. The halves are blends themselves (thin print is a small part of the darker
    half), so the line runs on well past them: a token is neither colour nor any mix of them
    that blur makes at a letter's edge."""
    w = np.array([0.5, 1.0, 1.0], np.float32)
    a, b = np.asarray(light, np.float32) * w, np.asarray(dark, np.float32) * w
    x = np.asarray(lab, np.float32) * w
    d = b - a
    t = np.clip(((x - a) @ d) / max(float(d @ d), 1e-6), -0.5, 3.0)
    return np.linalg.norm(x - (a + t[..., None] * d), axis=-1)


def _decide_token(token: np.ndarray, sure: np.ndarray, rc: tuple[int, int],
                  found: list[tuple[float, float, float]], disc: tuple[float, float, float] | None) -> None:
    """A token where a round patch of foreign colour (``found``) is a disc at all, or where a
    disc stands out clearly by itself (a token whose patch is cut by a face's edge found a
    pixel off, joined to print under it, or dark as a shadow would be)."""
    score = disc[2] if disc is not None else -np.inf
    if (found and score > _DISC_LEAST) or score > _DISC_CONTRAST:
        token[rc] = True
        blob = max((v for _, _, v in found), default=0.0)
        sure[rc] = max(blob, float(min(1.0, score / (2.0 * _DISC_CONTRAST))))


# A square and its four sides' neighbours, as row and column steps in a picture padded by one.
_SELF_AND_SIDES = (np.array([1, 0, 2, 1, 1]), np.array([1, 1, 1, 0, 2]))


def find_tokens(
    ev: Evidence,
    layout: Layout,
    kind_idx: np.ndarray,
    faces: dict[tuple[int, int], np.ndarray],
    face_px: float,
    rotations: dict[tuple[int, int], int | None] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Squares with a game token on them, how sure (0..1), and for every square the fraction
    of it that nothing explains (neither what should lie there, nor ink, nor a token): a hand,
    a sleeve, a held tile, a cast shadow's edge.

    A token is a small disc (:data:`TOKEN_RADIUS`) of a colour unlike what lies around it.
    Where one may lie (the middle of an empty square, anywhere on a back, a face-up tile's
    own top-left quarter; ``rotations``: each tile's turn, None for a blank, which shows none)
    the board is scanned at half resolution for a spot unlike the ring around it; each spot
    is then looked at at full resolution, where a token must be a round blob of its size."""
    sg = ev.extra["small_geo"]
    scale = ev.extra["scale"]
    rect = ev.extra["rectified"]
    gain = ev.extra["exposure"]
    rotations = rotations or {}
    R, C, p = sg.rows, sg.cols, sg.cell_px
    P = int(round(p * scale))
    o = int(round(sg.origin))
    seen = under_light(ev)
    seen_lab = to_lab(seen)
    token = np.zeros((R, C), bool)
    sure = np.zeros((R, C), np.float32)
    # Empty squares against their class's typical picture: what nothing explains (a hand).
    grid = seen[o : o + R * p, o : o + C * p].reshape(R, p, C, p, 3)
    # Its 8-bit Lab, as to_lab would give it for the whole picture: each class's picture
    # converted once, not once per square. What is allowed and expected is laid out as the
    # picture is (rows of pixels; a square's block is a transposed view of it): operations on
    # the blocks' own layout are strided, several times slower.
    expect_lab = np.empty((R, p, C, p, 3), np.float32)
    tolerance = np.zeros((R, p, C, p), np.float32)
    expect_blocks, tolerance_blocks = expect_lab.transpose(0, 2, 1, 3, 4), tolerance.transpose(0, 2, 1, 3)
    classes = premium_classes(layout)
    empty = kind_idx == 0
    blocks_lab = seen_lab[o : o + R * p, o : o + C * p].reshape(R, p, C, p, 3).transpose(0, 2, 1, 3, 4)
    # Where the class's own picture is known from enough of its squares, a token must
    # differ from it (a premium's label is in that picture, a token is not).
    pictured = np.zeros((R, C), bool)
    for k in np.unique(classes):
        mine = classes == k
        pool = mine & empty & (ev.d_empty < 2 * _TILE_RADIUS)
        if pool.sum() < 1:
            pool = (classes == list(Premium).index(Premium.DW)) & empty
        if pool.sum() >= 1:
            # The mean picture of the class's empty squares (those that look empty), and how
            # much they differ pixel by pixel (a neighbour's teeth, a label's letters), which
            # is allowed. (At most 12 of them, spread over the class: medians of more cost
            # time, not truth.)
            sample = np.flatnonzero(pool.ravel())
            sample = sample[np.linspace(0, len(sample) - 1, min(12, len(sample))).round().astype(int)]
            rows, cols = np.unravel_index(sample, pool.shape)
            picked = grid[rows, :, cols]  # (n, p, p, 3): the sampled squares' blocks
            expect = (median(picked, axis=0) if len(picked) >= 3 else picked.mean(axis=0)).astype(seen.dtype)
            expect_blocks[mine] = _lab_bytes(expect.astype(np.float32))
            if len(picked) >= 3:
                pictured |= mine
                # Robustly: a hand over a few of them must not widen what is allowed.
                spread = colour_distance(blocks_lab[rows, cols], to_lab(expect))
                tolerance_blocks[mine] = 2.5 * median(spread, axis=0)
        else:
            expect = ev.empty_look[mine][:, None, None, :].astype(seen.dtype)
            expect_blocks[mine] = _lab_bytes(expect.astype(np.float32))
    empty_px = np.repeat(np.repeat(empty, p, axis=0), p, axis=1)
    d = colour_distance(seen_lab[o : o + R * p, o : o + C * p], expect_lab.reshape(R * p, C * p, 3)) - tolerance.reshape(R * p, C * p)
    d[~empty_px] = 0.0
    foreign = (d > _FOREIGN).astype(np.uint8) * 255
    # Faces overhang their neighbours' squares (with their edges and the shadows they cast):
    # what lies under them is not the board.
    under_face = np.zeros((R * p, C * p), bool)
    half = 0.56 * face_px / scale
    for (r, c), centre in faces.items():
        cx, cy = (centre + 0.5) / scale - 0.5 - o
        under_face[max(0, int(cy - half)) : max(0, int(cy + half + 1)), max(0, int(cx - half)) : max(0, int(cx + half + 1))] = True
    foreign[under_face] = 0

    # A token is a spot unlike the ring around it: the mean colour within a token's middle
    # against the mean of a ring about twice a token's size (where a letter's stroke, a
    # label's or a line crosses the middle, both means mix the same colours).
    rad = TOKEN_RADIUS * p
    k_in = max(3, int(round(1.2 * rad)) | 1)
    k_out = max(k_in + 4, int(round(4.6 * rad)) | 1)
    mean_in = cv2.blur(seen_lab, (k_in, k_in))
    ring = cv2.blur(seen_lab, (k_out, k_out))  # (the outer mean, made the ring's in place)
    ring *= k_out**2
    ring -= mean_in * k_in**2
    ring /= float(k_out**2 - k_in**2)
    spot = _unlike(mean_in, ring)
    ev.extra["token_spots"] = spot  # for diagnostics
    radius_px = TOKEN_RADIUS * P

    def lab_of(crop: np.ndarray, light: np.ndarray | None = None, factor: np.ndarray | None = None) -> np.ndarray:
        # 8-bit Lab of the exposure- and light-normalised crop (or stack of crops, each with
        # its ``factor``): OpenCV converts bytes fast.
        f = gain / np.maximum(light, 1e-3) if factor is None else factor
        norm = np.clip(crop.astype(np.float32) * f, 0, 255).astype(np.uint8)
        return cv2.cvtColor(norm.reshape(-1, *norm.shape[-2:]), cv2.COLOR_BGR2LAB).reshape(norm.shape).astype(np.float32)

    # Empty squares: a token lies on the square, its middle off the square's edges (where
    # seams, teeth and the neighbours' edges show). The centre square is left alone when
    # empty: its star is a disc of print there.
    lo, hi = int(round(0.2 * p)), int(round(0.8 * p))
    look_lab = to_lab(ev.empty_look)
    sq_light, sq_dark = to_lab(ev.stats.light / ev.light), to_lab(ev.stats.dark / ev.light)
    # Each square's two colours as its kind shows them without a token (a token on the square
    # is part of its own halves): the medians over the empty squares of its premium class,
    # over the faces of its set.
    usual_light, usual_dark = sq_light.copy(), sq_dark.copy()
    for mine in [(classes == k) & empty for k in np.unique(classes)] + [
            (kind_idx == 1) & (ev.tile_set == j) for j in np.unique(ev.tile_set[kind_idx == 1])]:
        if mine.any():
            usual_light[mine], usual_dark[mine] = median(sq_light[mine], axis=0), median(sq_dark[mine], axis=0)
    bodies_lab = [to_lab(b) for b in list(ev.tile_colours) + list(ev.back_colours)]
    # A token's middle is unlike the square's own look as well as its ring (what the full
    # resolution test below asks too): print only unlike its ring is passed over here, at
    # half resolution and for the whole board at once.
    unlike_class = (d > _TOKEN_FOREIGN) | ~np.repeat(np.repeat(pictured, p, axis=0), p, axis=1)
    near_unlike = cv2.dilate(unlike_class.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    # Only the empty squares' middles, where a token's middle is looked for, stacked (n, h,
    # h): the rest of the board is never looked at.
    at_empty = np.argwhere(empty)

    def middles(board: np.ndarray) -> np.ndarray:
        # (``board``: a picture of the grid's squares, R * p by C * p)
        return board.reshape(R, p, C, p, *board.shape[2:])[:, lo:hi, :, lo:hi][at_empty[:, 0], :, at_empty[:, 1]]

    inner = middles(mean_in[o : o + R * p, o : o + C * p])
    # (Each square's middle against its own look, broadcast: no picture of the looks built.)
    own_unlike = _unlike(inner, look_lab[empty][:, None, None, :])
    spot_empty = np.where(middles(under_face), 0.0, np.minimum(middles(spot[o : o + R * p, o : o + C * p]), own_unlike))
    spot_empty = np.where(middles(near_unlike), spot_empty, 0.0)
    # Each square's strongest spot at once (the squares with none are passed over).
    strongest = spot_empty.max(axis=(1, 2)) if spot_empty.size else np.zeros(len(at_empty), spot_empty.dtype)
    for j in np.flatnonzero(~(strongest <= _TOKEN_SPOT)):
        r, c = at_empty[j]
        if (r, c) == tuple(layout.centre):
            continue
        y0, x0 = r * p, c * p
        patch = spot_empty[j]
        i = int(np.argmax(patch))
        sy, sx = o + y0 + lo + i // patch.shape[1], o + x0 + lo + i % patch.shape[1]
        # At full resolution, around the spot, against the ring's colour, within the square.
        fy, fx = (sy + 0.5) * scale - 0.5, (sx + 0.5) * scale - 0.5
        h = int(round(2.6 * radius_px))
        top, left = int(round(o * scale)) + r * P, int(round(o * scale)) + c * P
        wy0, wy1 = max(int(fy) - h, top), min(int(fy) + h + 1, top + P)
        wx0, wx1 = max(int(fx) - h, left), min(int(fx) + h + 1, left + P)
        lab = lab_of(rect[wy0:wy1, wx0:wx1], ev.light[r, c])
        # Unlike both the ring (the square's print around the spot) and the square's own look.
        fg = np.minimum(_unlike(lab, ring[sy, sx]), _unlike(lab, look_lab[r, c])) > _TOKEN_FOREIGN
        own = cv2.resize((~under_face[y0 : y0 + p, x0 : x0 + p]).astype(np.uint8), (P, P), interpolation=cv2.INTER_NEAREST)
        own = own[wy0 - top : wy1 - top, wx0 - left : wx1 - left] > 0
        found = _token_near(token_blobs(fg & own, radius_px, 1.1 * radius_px), fx - wx0, fy - wy0, radius_px)
        if not found and not own.all() and bodies_lab:
            # Where a neighbour's face is thought to overhang (its box is known to a few
            # pixels only), a pixel is the token's when it is unlike every face's body too:
            # a token beside a tile is not cut in half by where the tile was guessed to lie.
            own |= np.min([_unlike(lab, b) for b in bodies_lab], axis=0) > _TOKEN_FOREIGN
            found = _token_near(token_blobs(fg & own, radius_px, 1.1 * radius_px), fx - wx0, fy - wy0, radius_px)
        if found:
            # Against an edge, a spot of the neighbour's own colour is its premium's teeth
            # reaching over the edge (the grid's fit a pixel or two off), not a token: such a
            # spot touches the edge, where a token a little further in is clear of it.
            fx0, fy0 = found[0][0] + wx0 - left, found[0][1] + wy0 - top
            edge = radius_px + 0.08 * P
            disc = (np.arange(wy0, wy1)[:, None] - top - fy0) ** 2 + (np.arange(wx0, wx1)[None, :] - left - fx0) ** 2
            colour = lab[(disc <= (0.6 * radius_px) ** 2) & fg].mean(axis=0) if (fg & (disc <= (0.6 * radius_px) ** 2)).any() else None
            # (Touching: the spot's own patch of foreign pixels reaches the square's edge, as
            # teeth printed across it do; a token on the square is clear of it.)
            _n, patches_ = cv2.connectedComponents((fg & own).astype(np.uint8), connectivity=8)
            mine = patches_ == patches_[min(max(int(round(found[0][1])), 0), fg.shape[0] - 1),
                                        min(max(int(round(found[0][0])), 0), fg.shape[1] - 1)]
            touch = (wy0 == top and mine[0].any(), wy1 == top + P and mine[-1].any(),
                     wx0 == left and mine[:, 0].any(), wx1 == left + P and mine[:, -1].any())
            for (nr, nc), close in (((r - 1, c), fy0 < edge and touch[0]), ((r + 1, c), fy0 > P - edge and touch[1]),
                                    ((r, c - 1), fx0 < edge and touch[2]), ((r, c + 1), fx0 > P - edge and touch[3])):
                if (colour is not None and close and 0 <= nr < R and 0 <= nc < C and ev.empty_known[nr, nc]
                        and float(_unlike(colour, look_lab[nr, nc])) <= _TOKEN_FOREIGN):
                    found = []
                    break
        # A disc: the square's middle at full resolution, where a token's middle lies (a
        # token put on a square lies wholly on it), with room around it for its ring.
        a_, b_ = int(round(0.17 * P)), int(round(0.83 * P))
        pad = int(np.ceil(_DISC_RING * radius_px)) + 3
        lab = lab_of(rect[top + a_ - pad : top + b_ + pad, left + a_ - pad : left + b_ + pad], ev.light[r, c])
        core, score = token_disc(lab, radius_px)
        ok = np.zeros(score.shape, bool)
        ok[pad:-pad, pad:-pad] = True
        # Unlike the square's own look, and not under a neighbour's face that overhangs it.
        ok &= colour_distance(core, look_lab[r, c]) > _TOKEN_FOREIGN
        own = cv2.resize((~under_face[y0 : y0 + p, x0 : x0 + p]).astype(np.uint8), (P, P), interpolation=cv2.INTER_NEAREST)
        ok[pad:-pad, pad:-pad] &= own[a_:b_, a_:b_] > 0
        # A disc alone, without a round patch of foreign colour, must not be a blend of the
        # square's ground and print either (the inside of a printed O is a disc of ground).
        # Nor of a neighbouring premium's colour: its teeth, printed across the edge, are
        # solid patches of a token's size (and the grid's fit may be a few pixels off).
        alone = ok & (_off_blend(core, usual_light[r, c], usual_dark[r, c]) > _TOKEN_FOREIGN)
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= nr < R and 0 <= nc < C:  # (under a tile too: teeth show beside it)
                alone &= colour_distance(core, look_lab[nr, nc]) > _TOKEN_FOREIGN
        # And clear of the square's edges, where a token put on the square lies (along them
        # lie seams, teeth and neighbours' shadows, and the grid's fit is a few pixels off).
        inner_px = int(round(0.2 * P)) - a_ + pad
        alone[:inner_px], alone[-inner_px:], alone[:, :inner_px], alone[:, -inner_px:] = False, False, False, False
        disc = _best_disc(score, ok if found else alone)
        _decide_token(token, sure, (r, c), found, disc)

    # Each face's body and ink colours (the ink's: the darker half of the middle, or the
    # lighter for light ink), under the board's reference light.
    pol_all = np.array(ev.tile_polarity or [1])
    pol_sq = np.where(kind_idx == 1, pol_all[np.clip(ev.tile_set, 0, len(pol_all) - 1)], 1)
    light_half, dark_half = sq_light, sq_dark
    body_lab = np.where((pol_sq > 0)[..., None], light_half, dark_half)
    body_lab = np.where((kind_idx == 1)[..., None], body_lab, to_lab(ev.stats.median / ev.light))
    ink_lab = np.where((pol_sq > 0)[..., None], dark_half, light_half)

    # Tiles and backs, on the face found for each, against its body.
    typical = int(round(face_px))  # the faces' size is known to a pixel or two (sets differ)
    m = 3
    hs = 0.9 * face_px / scale  # the face without its rim, at half resolution
    n = int(round(hs))
    boxes: dict[tuple[int, int], int] = {}
    # A token's middle is unlike the face's body and its ink too (as at full resolution
    # below): a spot only unlike its ring (a letter's stroke beside the body) is passed over.
    # (Every face's box at once: the boxes stacked, each against its own face's colours.)
    corners: list[tuple[int, int]] = []
    for (r, c), centre in faces.items():
        hx, hy = (centre + 0.5) / scale - 0.5
        bx0, by0 = int(round(hx - hs / 2)), int(round(hy - hs / 2))
        if bx0 < 0 or by0 < 0 or by0 + n > spot.shape[0] or bx0 + n > spot.shape[1]:
            continue
        boxes[(r, c)] = len(corners)
        corners.append((bx0, by0))
    if boxes:
        held = np.array(list(boxes), np.int64)
        middles = np.stack([mean_in[y : y + n, x : x + n] for x, y in corners])
        body_of = body_lab[held[:, 0], held[:, 1]][:, None, None, :]
        ink_of = np.where((kind_idx[held[:, 0], held[:, 1]] == 1)[:, None], ink_lab[held[:, 0], held[:, 1]],
                          body_lab[held[:, 0], held[:, 1]])[:, None, None, :]
        spots_of = np.minimum(np.stack([spot[y : y + n, x : x + n] for x, y in corners]), _unlike(middles, body_of))
        # A token of the ink's own colour (a black one on a face printed black) is found
        # only where no ink is printed: in the tile's own top-left quarter, clear of the
        # letter (the middle is left out below) and of the digits, at full resolution a
        # round blob apart from the letter. Elsewhere a spot like the ink is the letter.
        face_spots = np.minimum(spots_of, _unlike(middles, ink_of))
    corner_off = (TOKEN_INSET + TOKEN_RADIUS) * P  # a token's middle from a face's edges

    def corner_at(t: int, x0: float, y0: float, side: float) -> tuple[float, float]:
        # The tile's own top-left corner of a face at (x0, y0) ``side`` across, turned t.
        ux, uy = -1.0, -1.0
        for _ in range((t // 90) % 4):
            ux, uy = -uy, ux
        mid = (side - 1) / 2.0
        return x0 + mid + ux * (mid - corner_off), y0 + mid + uy * (mid - corner_off)

    def corner_tokens() -> dict[tuple[int, int], tuple[float, float, float]]:
        # A clear disc in the tile's own top-left corner, where its face prints nothing (its
        # ink is the letter and the value): a token, whatever its colour (a black one on a
        # face printed black too). A shadow is not a solid disc; a letter's stroke or the gap
        # beside the face runs on to a side of any spot of it. (The spots and blobs below
        # miss a token there: a ring about it runs off the face into the gap, and the face's
        # outline cuts it.) The corner is known to a few pixels only (before the face's fit).
        # (Only the corner's neighbourhood is looked at: the search, its ring and its blur;
        # every face-up tile's corner, at each turn it may have, at once.) For each face with
        # one: where it lies in the picture (on the face, as its fit tells below), its score.
        span_c = 2 * (_CORNER_REACH + int(np.ceil(_DISC_RING * radius_px + 0.6 * radius_px)) + 2)
        cands, crops, ats, turns = [], [], [], []
        for (r, c), centre in faces.items():
            if (r, c) not in boxes or int(kind_idx[r, c]) != 1:
                continue
            turn = rotations.get((r, c))
            for t in ((turn,) if turn is not None else (0, 90, 180, 270)):
                ax, ay = corner_at(t, centre[0] - (face_px - 1) / 2.0, centre[1] - (face_px - 1) / 2.0, face_px)
                ox, oy = int(round(ax - span_c / 2.0)), int(round(ay - span_c / 2.0))
                crops.append(face_crop(rect, (ox + span_c / 2.0, oy + span_c / 2.0), span_c))
                ats.append((ax - ox, ay - oy))
                turns.append(t)
                cands.append(((r, c), ox, oy))
        if not cands:
            return {}
        rr, cc = np.array([rc for rc, _, _ in cands]).T
        labs = lab_of(np.stack(crops), factor=(gain / np.maximum(ev.light[rr, cc], 1e-3))[:, None, None, :])
        xs_, ys_, scores, colours = corner_discs(labs, np.array(ats), radius_px, turns, _CORNER_REACH)
        # Unlike the face's body, nor the board seen past the face's rounded corner (the
        # square's own look, or a neighbour's premium printed across the edge), ringed by the
        # face as well. (Every candidate's six colours at once: none past the board's edge.)
        look_pad = np.full((R + 2, C + 2, 3), np.nan, np.float32)
        look_pad[1:-1, 1:-1] = look_lab
        others = np.concatenate((body_lab[rr, cc][:, None].astype(np.float32),
                                 look_pad[rr[:, None] + _SELF_AND_SIDES[0], cc[:, None] + _SELF_AND_SIDES[1]]), axis=1)
        away = np.nan_to_num(colour_distance(colours[:, None, :], others), nan=np.inf).min(axis=1)
        found: dict[tuple[int, int], tuple[float, float, float]] = {}
        for i, (rc, ox, oy) in enumerate(cands):
            # (The first turn that shows one, as the turns are tried in order.)
            if rc not in found and float(scores[i]) > _DISC_CONTRAST and float(away[i]) > _TOKEN_FOREIGN:
                found[rc] = (float(xs_[i]) + ox, float(ys_[i]) + oy, float(scores[i]))
        return found

    corner_of = corner_tokens()

    for (r, c), centre in faces.items():
        k = int(kind_idx[r, c])
        turn = rotations.get((r, c))
        # Where a token may lie on this face (half resolution), and is there a spot there?
        if (r, c) not in boxes:
            continue
        corner = corner_of.get((r, c)) if k == 1 else None
        if k == 1:
            zones = [_top_left_quarter(t, n) for t in ((turn,) if turn is not None else (0, 90, 180, 270))]
        else:
            zones = [(-1, -1, n + 1, n + 1)]
        # (The letter fills the face's middle: a token lies between it and the edges.)
        face_spot = (spots_of if k == 1 else face_spots)[boxes[(r, c)]].copy()
        if k == 2:
            # A back shows no print: a spot darker than its ring by any amount may be a
            # token (a black one on a grey back is no darker than a shadow would be on a
            # lighter one); the disc test at full resolution tells a shadow's band apart.
            bx, by = corners[boxes[(r, c)]]
            face_spot = np.maximum(face_spot, np.minimum(colour_distance(mean_in[by : by + n, bx : bx + n], ring[by : by + n, bx : bx + n]),
                                                         colour_distance(middles[boxes[(r, c)]], body_of[boxes[(r, c)]])))
        # (Nor at the face's very edge, where the ring sees past it.)
        e_ = int(round(0.06 * n))
        face_spot[:e_], face_spot[n - e_ :], face_spot[:, :e_], face_spot[:, n - e_ :] = 0.0, 0.0, 0.0, 0.0
        if k == 1:
            a_, b_ = int(round(0.3 * n)), int(round(0.7 * n))
            face_spot[a_:b_, a_:b_] = 0.0
        if max(float(face_spot[max(zy0, 0) : min(zy1, n), max(zx0, 0) : min(zx1, n)].max(initial=0.0))
               for zx0, zy0, zx1, zy1 in zones) <= _TOKEN_SPOT and corner is None:
            continue
        # Where the face lies to a pixel (a token near its corner must not be joined to the
        # strip of the gap that a face found a pixel off shows).
        face_lab: list[np.ndarray] = []
        fitted = _face_fit(ev, k, (r, c), centre, range(typical - 2, typical + 2), m, face_lab)
        if fitted is None:
            continue
        _fit, side, at, far = fitted
        span = far.shape[0]
        x0 = min(max(int(round(at[0] - centre[0] + (span - side) / 2.0)), 0), span - side)
        y0 = min(max(int(round(at[1] - centre[1] + (span - side) / 2.0)), 0), span - side)
        if corner is not None:
            # The disc lies on the face, its middle in from its edges (the notch outside a
            # face's rounded corner is ringed by the face as well).
            fx = corner[0] - (int(round(centre[0] - span / 2.0)) + x0)
            fy = corner[1] - (int(round(centre[1] - span / 2.0)) + y0)
            inner = 0.5 * radius_px
            if inner <= fx <= side - 1 - inner and inner <= fy <= side - 1 - inner:
                token[r, c] = True
                sure[r, c] = float(min(1.0, corner[2] / (2.0 * _DISC_CONTRAST)))
                continue
        fg = far[y0 : y0 + side, x0 : x0 + side] & _face_outline(side)
        if k == 1:
            # In the tile's own top-left quarter, not joined to the letter (which reaches out
            # of it). A blank shows no turn: any quarter.
            found = []
            for t in ((turn,) if turn is not None else (0, 90, 180, 270)):
                found += token_blobs(fg, radius_px, 1.1 * radius_px, _top_left_quarter(t, side), least=1.3, frame=3)
        else:
            found = token_blobs(fg, radius_px, 1.1 * radius_px, (-1, -1, side + 1, side + 1), least=1.3, frame=3)
        # A token lies on the face, its middle well in from the face's edges (a strip of the
        # gap around a face found a pixel off is not one).
        inset = 0.08 * P
        found = [f for f in found if inset <= f[0] <= side - 1 - inset and inset <= f[1] <= side - 1 - inset]
        # And is it a disc (as :func:`token_disc` tells)?
        # (The face's crop in Lab, as lab_of gives it: the fit above took it.)
        core, score = token_disc(face_lab[0], radius_px)
        # A token's middle lies on the face, in from its edges (a token put on a face lies
        # wholly on it); on a face-up tile in its own top-left quarter, off the letter.
        inset = int(round(0.06 * P))
        on = np.zeros((side, side), bool)
        on[inset : side - inset, inset : side - inset] = True
        if k == 1:
            zone = np.zeros_like(on)
            for t in ((turn,) if turn is not None else (0, 90, 180, 270)):
                qx0, qy0, qx1, qy1 = _top_left_quarter(t, side)
                zone[max(qy0 + 1, 0) : qy1, max(qx0 + 1, 0) : qx1] = True
            a_, b_ = int(round(0.3 * side)), int(round(0.7 * side))
            zone[a_:b_, a_:b_] = False
            on &= zone
        ok = np.zeros(score.shape, bool)
        ok[y0 : y0 + side, x0 : x0 + side] = on
        ok &= colour_distance(core, body_lab[r, c]) > _TOKEN_FOREIGN
        # A disc alone, without a patch of foreign colour that is round, must not be the
        # ink's colour either, nor a blend of body and ink: a letter's stroke ends and
        # corners are solid and rounded too, and blur mixes them at a narrow apex.
        alone = ok & (_off_blend(core, usual_light[r, c], usual_dark[r, c]) > _TOKEN_FOREIGN) if k == 1 else ok
        disc = _best_disc(score, ok if found else alone)
        _decide_token(token, sure, (r, c), found, disc)
    disc_area = np.pi * (TOKEN_RADIUS * p) ** 2  # what a token may explain
    # What nothing explains counts where it is solid: a hand, a sleeve, a held tile cover
    # areas; the thin residue of a grid line or a print's edge seen a pixel off does not.
    solid = cv2.morphologyEx(foreign, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    odd = (solid > 0).reshape(R, p, C, p).sum(axis=(1, 3)).astype(np.float32)
    odd = np.where(token, np.maximum(odd - disc_area, 0), odd) / float(p * p)
    odd[~empty] = 0.0
    # On faces: neither body nor ink. Each face's colours painted over its own patch, so
    # that the distances are taken for the whole board at once.
    if faces:
        patches = []
        for (r, c), centre in faces.items():
            cx, cy = (centre + 0.5) / scale - 0.5
            h = 0.44 * face_px / scale
            y0, y1 = max(0, int(round(cy - h))), int(round(cy + h))
            x0, x1 = max(0, int(round(cx - h))), int(round(cx + h))
            if y1 <= y0 or x1 <= x0:
                continue
            patches.append((r, c, y0, min(y1, seen_lab.shape[0]), x0, min(x1, seen_lab.shape[1])))
    if faces and patches:
        # (Only the patches' box and a pixel around it, what the dilation below reaches: the
        # rest of the picture is never counted.)
        by0, bx0 = max(min(q[2] for q in patches) - 1, 0), max(min(q[4] for q in patches) - 1, 0)
        by1, bx1 = max(q[3] for q in patches) + 1, max(q[5] for q in patches) + 1
        box_lab = seen_lab[by0:by1, bx0:bx1]
        body_px = np.zeros(box_lab.shape, seen_lab.dtype)
        ink_px = np.zeros(box_lab.shape, seen_lab.dtype)
        for r, c, y0, y1, x0, x1 in patches:
            body_px[y0 - by0 : y1 - by0, x0 - bx0 : x1 - bx0] = body_lab[r, c]
            ink_px[y0 - by0 : y1 - by0, x0 - bx0 : x1 - bx0] = ink_lab[r, c]
        # Pixels at the letter's edges are between body and ink: not foreign either.
        near_ink = cv2.dilate((colour_distance(box_lab, ink_px) <= _FOREIGN).astype(np.uint8), np.ones((3, 3), np.uint8))
        far_px = ((colour_distance(box_lab, body_px) > _FOREIGN) & (near_ink == 0)).astype(np.float64)
        far_sum = cv2.integral(far_px)
        for r, c, y0, y1, x0, x1 in patches:
            ya, yb, xa, xb = y0 - by0, y1 - by0, x0 - bx0, x1 - bx0
            count = far_sum[yb, xb] - far_sum[ya, xb] - far_sum[yb, xa] + far_sum[ya, xa]
            n_odd = float(count) - (disc_area if token[r, c] else 0.0)
            odd[r, c] = max(0.0, n_odd) / float((y1 - y0) * (x1 - x0))
    return token, sure, odd


def _best_box(body: np.ndarray, sides: range, m: int) -> tuple[float, int, np.ndarray]:
    """The box of body (``body``: 0..1 per pixel) with a thin empty ring around it that fits
    best, of one of ``sides`` and within ``m`` pixels of the middle of ``body`` (as
    :func:`companion.vision.face.locate_faces`, every size and place at once): its fit, side
    and centre (x, y) in ``body``'s pixels."""
    n = body.shape[0]
    integral = cv2.integral(body.astype(np.float32), sdepth=cv2.CV_64F)
    sizes = np.asarray(list(sides), np.int64)
    offs = np.arange(-m, m + 1)
    s = sizes[:, None, None]
    x0 = np.round((n - 1) / 2.0 - s / 2.0 + offs[None, None, :]).astype(np.int64) + 0 * offs[None, :, None]
    y0 = np.round((n - 1) / 2.0 - s / 2.0 + offs[None, :, None]).astype(np.int64) + 0 * offs[None, None, :]
    ring = np.maximum(2, np.round(0.06 * s)).astype(np.int64)

    def box(xa: np.ndarray, ya: np.ndarray, xb: np.ndarray, yb: np.ndarray) -> np.ndarray:
        # (np.clip's own overhead is most of its cost on these few whole numbers)
        xa, xb = np.minimum(np.maximum(xa, 0), n), np.minimum(np.maximum(xb, 0), n)
        ya, yb = np.minimum(np.maximum(ya, 0), n), np.minimum(np.maximum(yb, 0), n)
        return integral[yb, xb] - integral[ya, xb] - integral[yb, xa] + integral[ya, xa]

    inside = box(x0, y0, x0 + s, y0 + s)
    outer = box(x0 - ring, y0 - ring, x0 + s + ring, y0 + s + ring)
    fit = inside / (s * s) - (outer - inside) / ((s + 2 * ring) ** 2 - s * s)
    fit = fit - 0.15 * (offs[None, :, None] ** 2 + offs[None, None, :] ** 2) / max(m * m, 1)
    k, iy, ix = np.unravel_index(int(np.argmax(fit)), fit.shape)
    side = int(sizes[k])
    centre = np.array([x0[k, iy, ix] + side / 2.0, y0[k, iy, ix] + side / 2.0])
    return float(fit[k, iy, ix]), side, centre


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


def _read_inks(
    grey: np.ndarray,
    ev: Evidence,
    kind_idx: np.ndarray,
    centres: dict[tuple[int, int], np.ndarray],
    face_px: float,
    p: int,
) -> dict[tuple[int, int], FaceInk]:
    """The ink of every face-up tile, its crop centred on the face. The faces found at half
    resolution are a few pixels off, enough to push the small value digits out of a crop a
    square wide; the letter, found at full resolution, sits at one place on every face of a
    set: each face is cut again around its letter, moved by the set's usual offset (turned
    with the tile when the upright cut finds no value; ``centres`` corrected). A face whose
    letter is well under the board's letters' size holds no letter."""
    side = _CROP * p
    frac = min(0.97, face_px / side)

    def cut(rc: tuple[int, int], centre: np.ndarray) -> FaceInk:
        j = int(ev.tile_set[rc])
        pol = ev.tile_polarity[j] if j < len(ev.tile_polarity) else None
        crop = face_crop(grey, (float(centre[0]), float(centre[1])), side)
        if ev.d_tile[rc] > _TILE_RADIUS or j in ev.extra.get("ink_guessed", ()):
            # A body unlike its set's (a lamp's glare, a tint), or a set's ink not seen: the
            # face tells its ink; failing a letter that way, its glyph's or its set's way.
            g = int(ev.glyph_at[rc])
            hint = int(ev.glyphs.polarity[g]) if g >= 0 else pol
            return _split_either_way(crop, hint, face_frac=frac)
        return split_face(crop, polarity=pol, face_frac=frac)

    # Where each letter lies at full resolution: known already where its glyph was read (a
    # crop around the glyph, :func:`read_glyph_faces`), else from a first cut around the face.
    # Each face is then cut once, around its letter moved by its set's usual offset.
    seen: Faces | None = ev.extra.get("faces")

    def seen_ink(rc: tuple[int, int]) -> FaceInk | None:
        return seen.inks.get(rc) if seen is not None and ev.glyph_at[rc] >= 0 else None

    inks: dict[tuple[int, int], FaceInk] = {}
    letter_at: dict[tuple[int, int], np.ndarray] = {}
    turned: dict[tuple[int, int], list[tuple[int, np.ndarray, FaceInk]]] = {}
    ev.extra["turned_cuts"] = turned
    for rc, centre in centres.items():
        rc = (int(rc[0]), int(rc[1]))
        if kind_idx[rc] != 1:
            continue
        g = int(ev.glyph_at[rc])
        known = seen.inks.get(rc) if seen is not None and g >= 0 else None
        if known is not None and known.box is not None:
            gx, gy = float(ev.glyphs.x[g]), float(ev.glyphs.y[g])
            origin = np.array([round(gx - side / 2.0), round(gy - side / 2.0)], np.float64)
        else:
            known = inks[rc] = cut(rc, centre)
            origin = np.round(np.asarray(centre, np.float64) - side / 2.0)
        if known.box is not None:
            x, y, w, h = known.box
            letter_at[rc] = origin + (x + w / 2.0, y + h / 2.0)
    # A letter box much longer than the letters' usual one took in something beside the
    # letter (a neighbour's edge, a shadow): its centre does not say where the face lies.
    # Usual for its own set where the set shows enough faces: sets may be printed in
    # fonts of different sizes (one set's letters a quarter taller than another's).
    spans = {rc: float(max(b.box[2], b.box[3])) for rc in letter_at if (b := inks.get(rc) or seen_ink(rc)) is not None and b.box}
    usual = float(median(list(spans.values()))) if len(spans) >= 5 else np.inf
    set_spans: dict[int, list[float]] = {}
    for rc, span in spans.items():
        set_spans.setdefault(int(ev.tile_set[rc]), []).append(span)
    set_usual = {j: float(np.median(v)) if len(v) >= 5 else usual for j, v in set_spans.items()}
    letter_at = {rc: at for rc, at in letter_at.items() if spans.get(rc, 0.0) <= 1.25 * set_usual.get(int(ev.tile_set[rc]), usual)}
    by_set: dict[int, list[np.ndarray]] = {}
    doubtful: dict[int, list[np.ndarray]] = {}
    doubted = ev.extra.get("doubted")
    for rc, at in letter_at.items():
        # (Not from letters the network doubted, where a set has others: a piece of a letter
        # taken for one lies off its face's middle, and would move every face's cut.)
        mine = doubtful if doubted is not None and doubted[rc] else by_set
        mine.setdefault(int(ev.tile_set[rc]), []).append(np.asarray(centres[rc], np.float64) - at)
    for j, offs in doubtful.items():
        by_set.setdefault(j, offs)
    every = np.median(np.concatenate([np.stack(v) for v in by_set.values()]), axis=0) if by_set else None
    set_offset = {j: np.median(np.stack(offs), axis=0) if len(offs) >= 3 else every for j, offs in by_set.items()}
    for rc, centre in centres.items():
        rc = (int(rc[0]), int(rc[1]))
        if kind_idx[rc] == 1 and rc not in letter_at and rc not in inks:
            inks[rc] = cut(rc, centre)
    for rc, at in letter_at.items():
        offset = set_offset[int(ev.tile_set[rc])]
        moved = at + offset
        if np.hypot(*(moved - centres[rc])) > 1.5:
            centres[rc] = moved
            inks[rc] = cut(rc, moved)
        elif rc not in inks:
            inks[rc] = cut(rc, centres[rc])
        if inks[rc].glyph is not None and inks[rc].corner is None:
            # The usual offset is an upright face's (the letter printed a little above the
            # middle); on a turned tile it turns with the face, and a face cut as if upright
            # can lose its value past the crop's edge. Each other turn's cut that finds ink in
            # the corner that turn puts the value in is kept aside for the letters to judge
            # (:func:`_turned_faces`): the face's edge can leave ink there too.
            for k in (1, 2, 3):
                dx, dy = float(offset[0]), float(offset[1])
                for _ in range(k):
                    dx, dy = -dy, dx  # a quarter turn clockwise (y down)
                turned_at = at + np.array([dx, dy])
                ink = cut(rc, turned_at)
                if ink.glyph is not None and ink.corner == CORNER_OF_TURN[k]:
                    turned.setdefault(rc, []).append((k, turned_at, ink))
    # As at half resolution (:func:`gather_evidence`): a mark well under the board's letters'
    # size is no letter (a token's disc on a blank face reads as an O).
    spans = {rc: max(i.box[2], i.box[3]) for rc, i in inks.items() if i.glyph is not None and i.box is not None}
    if len(spans) >= 5:
        usual = float(median(list(spans.values())))
        for rc, span in spans.items():
            if span < _LETTER_SPAN * usual:
                inks[rc] = replace(inks[rc], glyph=None, digits=(), corner=None, rival_corner=None, rival_digits=())
    return inks


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
    ev = gather_evidence(rectified, geo, layout, profile, sorted(tileset.alphabet), dict(tileset.values))
    scores = kind_scores(ev)
    _glare_explained(ev, geo, scores)
    # Where colour leaves a pale face and an empty square close, a tile's own outline decides:
    # its rounded corners, and its rim across the sides (both asked on the same squares).
    rims = _rim_evidence(ev, geo, scores)
    ev.extra["outline"] = _outline_evidence(ev, geo, scores)
    scores[..., 1] += rims
    ev.extra["rims"] = rims
    _shade_explained(ev, scores)
    probs = _softmax(scores)
    kind_idx = _glare_kinds(ev, scores)
    shown = _print_shown(ev, geo, kind_idx)
    if shown.any():
        # The print rules a face out; the colour that fitted one leaves the belief in doubt.
        scores[shown, 0] = scores[shown, :3].max(-1)
        probs = _softmax(scores)
        kind_idx[shown] = 0
    R, C = geo.rows, geo.cols
    p = geo.cell_px

    centres, face_px, fits = _faces(ev, geo, kind_idx)
    face_px = _full_face_size(ev, kind_idx, centres, face_px, p)
    ev.extra["fits"] = fits
    ev.extra["face_px"] = face_px
    ev.extra["centres"] = centres

    grey = ev.extra["grey"]
    inks = _read_inks(grey, ev, kind_idx, centres, face_px, p)
    reader = letter_reader(profile.arrays if profile is not None else None) if backend == "own" else None
    if reader is not None:
        _turned_faces(inks, centres, ev.extra.get("turned_cuts", {}), reader, sorted(tileset.alphabet), dict(tileset.values))
        _faces_apart(inks, reader, sorted(tileset.alphabet), dict(tileset.values))
    _sets_by_ink(ev, inks)
    _sets_under_glare(ev, inks)
    _sets_by_faded_ink(ev, inks)
    _backs_under_glare(ev, kind_idx)

    letters = sorted(tileset.alphabet)
    values = dict(tileset.values)
    with_glyph = [(rc, f) for rc, f in inks.items() if f.glyph is not None]
    guesses: dict[tuple[int, int], LetterGuess] = {}
    if reader is not None:
        scored = reader.score([f for _, f in with_glyph], letters, values)
        scored = _cap_height(scored, [f for _, f in with_glyph])
        first = scored.decide(None, values)
        # The board's usual turn is a prior for every tile.
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

    rotations: dict[tuple[int, int], int | None] = {rc: g.rotation for rc, g in guesses.items()}
    tokens, token_sure, odd = find_tokens(ev, layout, kind_idx, centres, face_px, rotations)
    ev.extra["odd"] = odd
    # Belief falls as more of a square is something unexplained (a finger, a sleeve), and
    # where the grid's lines are gone (something over the board, whatever its colour); a
    # hand is large: the squares within two of such a square are in doubt too.
    clear = np.clip(1.0 - (odd - _ODD_ALLOWED) / _ODD_SPAN, 0.0, 1.0)
    covered = lost_lines(ev, kind_idx) >= 2
    near = cv2.dilate(covered.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    clear = np.where(covered, np.minimum(clear, 0.2), np.where(near, np.minimum(clear, 0.45), clear))
    ev.extra["covered"] = covered

    # Without a back colour known, a face-down tile is no kind the scores weigh: it reads as a
    # face without ink, a blank. With two colours of tiles on the board, one set's backs may
    # wear the other's face colour (white tiles with red backs beside red tiles): a face
    # without ink is then a blank or a back, and nothing here tells which (the table asks).
    back_or_blank = len(ev.tile_colours) >= 2 and not any(np.isfinite(b).all() for b in ev.back_colours)
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
                if back_or_blank:
                    doubt = min(doubt, _BACK_OR_BLANK / 0.9)
                out.append(CellReading(r, c, "tile", BLANK, BLANK_TURN, rgb, set_name, tok, _clip(pk * 0.9 * doubt * tk)))
                continue
            conf = pk * g.p_letter * g.p_rotation * tk
            out.append(CellReading(r, c, "tile", g.letter, g.rotation, rgb, set_name, tok, _clip(conf)))
    return Reading(out, ev, inks, guesses)


_CAP_SHORT = (0.72, 0.6)  # a letter's upright height, in the board's capitals' height: no doubt above (a W kept clear of its value: 0.77), none left below
_CAP_WEIGHT = 4.0  # log-belief taken from a turn at which the letter would stand that short (as a wrong corner's)
_CAP_LEAST = 5  # faces read surely, without which the board's capitals' height is not known


def _cap_height(scored: FaceScores, faces: list[FaceInk]) -> FaceScores:
    """The turns at which a face's letter would stand shorter than the board's capitals,
    ruled out: every capital of a font is as tall as the others (the cap height), whatever
    its width, so a letter's box is that tall along the tile's upright axis. A box half as
    tall as wide is a letter on its side (an E turned a quarter, whose picture the network
    takes upright for an O). The capitals' height is that of the faces read surely, along
    the turn they were read at; what is taller (diacritics, a Q's tail) says nothing."""
    if len(faces) < _CAP_LEAST:
        return scored
    boxes = np.array([f.box if f.box is not None else (0, 0, 0, 0) for f in faces], np.float64)
    # (N, 4): the box's extent along the tile's upright axis at each turn.
    upright = np.where(np.arange(4)[None, :] % 2 == 0, boxes[:, 3:4], boxes[:, 2:3])
    # The faces read surely (as FaceScores.decide reads them with no prior).
    turn, _, p_letter, p_turn = scored.best()
    rows = np.arange(len(faces))
    sure = (p_turn > 0.9) & (p_letter > 0.9) & (boxes[:, 2] > 0)
    if sure.sum() < _CAP_LEAST:
        return scored
    cap = float(median(upright[rows[sure], turn[sure]]))
    hi, lo = _CAP_SHORT
    short = np.clip((hi - upright / cap) / (hi - lo), 0.0, 1.0)
    short[boxes[:, 2] <= 0] = 0.0
    if not short.any():
        return scored
    return replace(scored, logp=scored.logp - _CAP_WEIGHT * short[:, :, None])


def _turned_faces(
    inks: dict[tuple[int, int], FaceInk], centres: dict[tuple[int, int], np.ndarray],
    turned: dict[tuple[int, int], list[tuple[int, np.ndarray, FaceInk]]], reader: LetterReader,
    letters: list[str], values: dict[str, int],
) -> None:
    """Faces cut as if upright that found no value, cut again as each other turn places the
    face (:func:`_read_inks`): a cut is taken (``inks`` and ``centres`` in place) when the
    letters read there are best at that turn and the value read in that turn's corner is
    the letter's. Ink the face's edge leaves in that corner reads as no such value."""
    # (Not a face whose mark was found too small for a letter.)
    alts = [(rc, k, at, ink) for rc, cuts in turned.items() if rc in inks and inks[rc].glyph is not None
            for k, at, ink in cuts]
    if not alts:
        return
    guesses = reader.score([a[3] for a in alts], letters, values).decide(None, values)
    taken: set[tuple[int, int]] = set()
    for (rc, k, at, ink), g in zip(alts, guesses):
        if rc not in taken and g.rotation == 90 * k and g.value_agrees:
            inks[rc], centres[rc] = ink, at
            taken.add(rc)


# A letter read whole at least this surely, its value found apart, is no letter maimed (the
# other edition's letters maimed by a value taken in: at most 0.62; blurred E's whole: 0.85 up).
_SURE_WHOLE = 0.8


def _faces_apart(inks: dict[tuple[int, int], FaceInk], reader: LetterReader, letters: list[str],
                 values: dict[str, int]) -> None:
    """Faces whose letter took in ink where a value printed against it lies
    (:attr:`companion.vision.face.FaceInk.apart`), read both ways: the face read with that
    ink apart is taken (``inks`` in place) where the value read there is the letter read
    there, the face read whole reads no value that is its letter's, and the letter reads
    surer apart (a letter's own stroke taken for its value leaves a letter maimed).

    A face read whole as a letter surely (:data:`_SURE_WHOLE`), with value ink of its own
    found in a corner, keeps its letter: its value misread (a faint 1 read as a 0) is no
    reason to cut a stroke off it (a blurred E's foot, broken off its stem beside the value's
    corner, read with the 1 as a 4: an F). A value taken into the letter leaves a letter
    read unsurely (Hasbro's P and its 3, an R: at most 0.62 on the other edition's photos,
    with a neighbour's ink taken for its value), and the 1 of a Q's 10 touching its tail
    leaves the letter as it was."""
    rcs = [rc for rc, f in inks.items() if f.glyph is not None and f.apart is not None]
    if not rcs:
        return
    faces = [inks[rc] for rc in rcs] + [inks[rc].apart for rc in rcs]
    guesses = reader.score(faces, letters, values).decide(None, values)
    for m, rc in enumerate(rcs):
        whole, apart = guesses[m], guesses[len(rcs) + m]
        if not (apart.value_agrees and not whole.value_agrees and apart.p_letter > whole.p_letter):
            continue
        if whole.value is not None and apart.letter != whole.letter and whole.p_letter >= _SURE_WHOLE:
            continue
        inks[rc] = inks[rc].apart


def _sets_by_ink(ev: Evidence, inks: dict[tuple[int, int], FaceInk]) -> None:
    """A face whose body is unlike every set's (a lamp's glare washes a colour out) and whose
    ink is the other way round from its nearest set's (light letters, where that set prints
    dark ones) belongs to the nearest set printed as it is: ``ev.tile_set`` and ``ev.d_tile``
    corrected in place."""
    pols = ev.tile_polarity
    if len(set(pols)) < 2:
        return
    for rc, ink in inks.items():
        j = int(ev.tile_set[rc])
        if ink.glyph is None or ev.d_tile[rc] <= _TILE_RADIUS or pols[j] == ink.polarity:
            continue
        best, best_d = -1, np.inf
        for i, t in enumerate(ev.tile_colours):
            if pols[i] != ink.polarity:
                continue
            d = float(colour_distance(to_lab(ev.stats.body(pols[i])[rc] / ev.light[rc]), to_lab(t)))
            if d < best_d:
                best, best_d = i, d
        if best >= 0:
            ev.tile_set[rc], ev.d_tile[rc] = best, best_d


_GLARE_PATH = np.linspace(0.0, 1.0, 21)[:, None]  # shares of white light mixed into a body


def _glare_path_distance(colour: np.ndarray, seen_lab: np.ndarray, white: np.ndarray, top: np.ndarray) -> float:
    """Lab distance from ``seen_lab`` to the colours glare over ``colour`` (BGR) can show: the
    path towards the lamp's ``white``, clipped at the half board's ``top`` (as it shows it)."""
    line = np.minimum(np.asarray(colour, np.float32)[None] * (1.0 - _GLARE_PATH) + white * _GLARE_PATH, top)
    return float(colour_distance(to_lab(line.astype(np.float32)), seen_lab).min())


def _glare_names(d: np.ndarray, j0: int) -> int | None:
    """The set that glare over its colour explains what is seen by, where that is another set
    than ``j0`` (the nearest by colour): much nearer its line to white (``d``, per set, from
    :func:`_glare_path_distance`) than ``j0``'s and near it in any case; else None."""
    best = int(np.argmin(d))
    return best if best != j0 and d[best] < 0.5 * d[j0] and d[best] < _TILE_RADIUS else None


def _sets_under_glare(ev: Evidence, inks: dict[tuple[int, int], FaceInk]) -> None:
    """A face unlike its nearest set's colour may be another set's under a lamp's glare:
    glare adds white light, moving a body's colour along the line to white (lighter, less
    coloured), never away from it (a wood face washed out can come near the ivory set's
    colour, but keeps more of wood's yellow than ivory has). A face much nearer another
    set's line to white than its own set's (colour or line) is that set's: ``ev.tile_set``
    corrected in place. So too a face with no letter found (a blank, or a letter the glare
    washed out): its colour alone tells, with no ink to weigh."""
    if len(ev.tile_colours) < 2:
        return
    pols = ev.tile_polarity or [1] * len(ev.tile_colours)
    usual: dict[int, float] | None = None  # (each set's usual ink, found when first asked)
    white, top = _lamp_white(ev), _board_white(ev)
    for rc, ink in inks.items():
        if ev.d_tile[rc] <= _GLARE_OFF:
            continue
        d = np.full(len(ev.tile_colours), np.inf)
        for j, t in enumerate(ev.tile_colours):
            seen = to_lab(ev.stats.body(int(pols[min(j, len(pols) - 1)]))[rc] / ev.light[rc])
            d[j] = _glare_path_distance(t, seen, white[rc], top[rc])
        j0 = int(ev.tile_set[rc])
        # Glare mixes white into the ink as much as into the body: a face under glare shows
        # its ink fainter than its set's usual, never stronger. A face whose ink is whole
        # for the set its colour is nearest and stronger than the other set's usual is no
        # face of that other set washed out (an ivory face lit a little off its colour).
        if (best := _glare_names(d, j0)) is not None:
            usual = _usual_contrast(ev, inks) if usual is None else usual
            if ink.glyph is not None and j0 in usual and best in usual:
                strength = ink.contrast / float(luminance(ev.light[rc]))
                if strength >= _FADED * usual[j0] and strength > usual[best]:
                    continue
            ev.tile_set[rc] = best


def _backs_under_glare(ev: Evidence, kind_idx: np.ndarray) -> None:
    """A back unlike every set's back colour may be one under a lamp's glare, as a face may
    (:func:`_sets_under_glare`): a back much nearer another set's back's line to white than
    its nearest back's (colour or line) is that set's: ``ev.back_set`` (and ``ev.d_back``)
    corrected in place. A wood back washed out turns pale tan, far from a slate back in hue."""
    backs = ev.back_colours
    if len(backs) < 2:
        return
    white, top = _lamp_white(ev), _board_white(ev)
    for r, c in np.argwhere((kind_idx == 2) & (ev.d_back > _GLARE_OFF)):
        rc = (int(r), int(c))
        seen = to_lab(ev.stats.median[rc] / ev.light[rc])
        d = np.array([_glare_path_distance(b, seen, white[rc], top[rc]) if np.isfinite(b).all() else np.inf
                      for b in backs])
        if (best := _glare_names(d, int(ev.back_set[rc]))) is not None:
            ev.back_set[rc] = best
            ev.d_back[rc] = min(float(ev.d_back[rc]), float(d[best]))


_FADED = 0.75  # of its set's usual ink contrast, below which a face's ink is washed out


def _usual_contrast(ev: Evidence, inks: dict[tuple[int, int], FaceInk]) -> dict[int, float]:
    """Each set's usual ink contrast (relative to the light at its square) over its lettered
    faces seen without glare (near the set's colour), for sets with three such faces."""
    usual: dict[int, float] = {}
    for j in range(len(ev.tile_colours)):
        cs = [ink.contrast / float(luminance(ev.light[rc])) for rc, ink in inks.items()
              if ink.glyph is not None and ev.tile_set[rc] == j and ev.d_tile[rc] <= _GLARE_OFF]
        if len(cs) >= 3:
            usual[j] = float(np.median(cs))
    return usual


def _sets_by_faded_ink(ev: Evidence, inks: dict[tuple[int, int], FaceInk]) -> None:
    """A lamp's glare mixes white into a face's ink as much as into its body: the letter's
    contrast falls by the fraction of white mixed in. That fraction, measured on each face
    against its set's usual contrast (the faces of the set seen without it, under the light
    found), is taken back out of the body; a face whose ink is faded well under its set's
    usual, and whose body so restored is much nearer another set's colour (that set's own
    fraction taken out), is that set's. A washed-out wood face comes near ivory's colour, but
    with ink as faint as the wash: an ivory face there would show its ink whole.
    ``ev.tile_set`` corrected in place."""
    from companion.vision.glare import unglare

    n = len(ev.tile_colours)
    if n < 2:
        return
    pols = ev.tile_polarity or [1] * n
    lum = luminance(ev.light)
    white, top = _lamp_white(ev), _board_white(ev)
    lettered = [rc for rc, ink in inks.items() if ink.glyph is not None]
    usual = _usual_contrast(ev, inks)
    # A set with too few faces seen plainly to say its own usual ink: the board's usual over
    # every set's plain faces (sets print with inks of about one strength, 0.5-0.7).
    pooled = [inks[rc].contrast / lum[rc] for rc in lettered if ev.d_tile[rc] <= _GLARE_OFF]
    if len(pooled) >= 3:
        board = float(np.median(pooled))
        for j in range(n):
            usual.setdefault(j, board)
    for rc in lettered:
        ink, j0 = inks[rc], int(ev.tile_set[rc])
        if j0 not in usual or ink.contrast / lum[rc] >= _FADED * usual[j0]:
            continue
        d = np.full(n, np.inf)
        for j, colour in enumerate(ev.tile_colours):
            if j not in usual or pols[j] != ink.polarity:
                continue
            f = float(np.clip(1.0 - ink.contrast / lum[rc] / usual[j], 0.0, 0.9))
            seen = ev.stats.body(pols[j])[rc] / ev.light[rc]
            restored = unglare(seen, f, white[rc])
            # A channel seen at the half board's top was at least that bright: restored, it
            # is at least what is computed, and as bright as the set's own is no misfit.
            clipped = seen >= top[rc] - 1.0
            restored = np.where(clipped, np.maximum(restored, colour), restored).astype(np.float32)
            d[j] = float(colour_distance(to_lab(restored), to_lab(colour)))
        best = int(np.argmin(d))
        if best != j0 and d[best] < _TILE_RADIUS and d[best] < 0.5 * d[j0]:
            ev.tile_set[rc] = best
            ev.d_tile[rc] = min(float(ev.d_tile[rc]), float(d[best]))


_BACK_OR_BLANK = 0.45  # belief left in a face without ink that may as well be a face-down tile


def _unnamed_apart(found: np.ndarray, named: np.ndarray) -> bool:
    """Whether a face colour found (BGR) is no look of a named set's colour here: far from
    it, apart in hue once a shade is taken out (:func:`shade_apart`), and off its path to
    white (a lamp's glare washes a set paler, never darker or more coloured)."""
    seen = to_lab(found)
    washed = np.asarray(named, np.float32)[None] * (1.0 - _UNNAMED_GLARE) + 255.0 * _UNNAMED_GLARE
    return (float(colour_distance(seen, to_lab(named))) > _UNNAMED_APART
            and shade_apart(found, named) > _UNNAMED_HUE
            and float(colour_distance(to_lab(washed.astype(np.float32)), seen).min()) > _UNNAMED_APART)


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

