"""Stage 1 of reading the squares: the letters, found over the whole board at once.

Takes the half board and its full-resolution grey; gives :class:`Glyphs`: every ink shape of a
letter's size (dark on light or light on dark; adaptive threshold, components), with how much
the letter network takes it for a letter in some turn (:func:`letterlike`). Also here: which glyph is
each square's (:func:`_assign_glyphs`); whether a glyph is a premium's print rather than a
tile's letter is :mod:`.premium_print`'s."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.cells.geometry import Geometry
from companion.vision.face import GLYPH_PX, fit_square
from companion.vision.letters import OTHER, glyph_features, load_model, softmax


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

    def f32(v: np.ndarray) -> np.ndarray:
        return v.astype(np.float32)

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
