"""A tile's face: where it lies around its square, and the ink printed on it.

Tiles overhang their squares and stand up from the board, so in a top-down view their faces
are displaced from the squares they sit on (by the camera's parallax and by the player's
hand). :func:`locate_faces` finds each face as the box of tile-coloured pixels near its
square. :func:`split_face` then separates the ink on a face into the letter (with its
diacritics: the dots of Ä Ö Ü, the accents of Ó Ś) and the value digits in the corner (or
printed close beside the letter's foot), and normalises the letter to a small square picture
for the classifier. Ink it takes into the letter that lies where a value printed close
against the letter lies is read apart too (:attr:`FaceInk.apart`), and so is a value joined
to the letter by blur, cut off along the palest ink between them: the value read there
decides (:mod:`companion.vision.cells`).

Ink is whatever contrasts with the body, dark on light or light on dark: the polarity is
found per face, so tiles of any colour read the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from companion.vision.medians import median

GLYPH_PX = 24  # side of the normalised letter picture the classifier sees
_DIGIT_INK = 0.3  # level of ink (0..1) the value digits are looked for at
_PRINTED = 0.5  # level of ink (0..1) print reaches somewhere: the letter's level
_FAINT_INK = 0.12  # level of ink (0..1) a thin "1" found nowhere else is looked for at
_STANDS_OUT = 0.15  # ink (0..1) by which a digit found at the letter's level is darker than the rim it touched
_BODY_AROUND = 0.3  # median ink level (0..1) around a mark printed on the body, at most
# How far the value digits' middle lies from the letter's, on its nearer and its farther
# axis, in face sizes (the renderer's faces: 0.23..0.40; a little room either side).
_DIGITS_OFF = (0.2, 0.44)
# A letter's box is at most this share of its face on either axis (printed 0.4..0.6).
_LETTER_MAX = 0.7
_LETTER_ASPECT = 1.6  # a letter's box is at most this much longer than wide (W, M: 1.4)
_LINE_LONGER = 0.3  # dashes lined up over more than this share of a face are a line, not digits
# A value printed against its letter lies in the outer part of the letter's box beside its foot:
# its middle more than this share of the box's half-side from its middle (printed: 0.95..1.1).
_FOOT = 0.6
_BESIDE = 0.15  # ... and its middle at most this much (face sizes) past the box (printed: 0.11 at most)
# Levels of ink (0..1) at which a value joined to its letter by blur is looked for apart from
# it (the join between them paler than either's strokes).
_JOIN_LEVELS = (0.65, 0.75, 0.85)
_JUTS = 0.02  # a value cut off its letter juts out of what is left by this much (face sizes) on both axes
_VALUE_SHARE = 0.35  # ... and has at most this share of the ink left (a 3 by a B: 0.1)
_DIGIT_LEAST = 0.1  # a value's digit is at least this tall, in face sizes (the smallest printed)
_RIVAL = 0.5  # a second corner's ink at least this share of the first's (area) is a rival
# (Built once: split_face runs some ninety times a photo, on crops a square wide.)
_SQUARE3 = np.ones((3, 3), np.uint8)
_SQUARE5 = np.ones((5, 5), np.uint8)


@dataclass(frozen=True)
class FaceInk:
    """The ink on one face, in the face crop's own orientation (not turned upright).

    ``glyph``: the letter's ink, ``GLYPH_PX`` square, 0 = body, 1 = ink, the letter's box
    scaled to fit with its aspect kept; None when the face holds no letter-sized ink.
    ``digits``: pictures of the value digits like ``glyph``, each with its centre relative to
    the letter's centre in units of the face's size. ``corner``: (sign x, sign y) of the
    digits' place relative to the letter, (1, 1) = bottom-right, or None without digits.
    ``contrast``: ink against body, 0..1 of the grey range; ``ink``: fraction of the face that
    is ink; ``box``: the letter's box in the crop (x, y, w, h).
    """

    glyph: np.ndarray | None
    digits: tuple[tuple[np.ndarray, float, float], ...] = ()
    corner: tuple[int, int] | None = None
    contrast: float = 0.0
    ink: float = 0.0
    box: tuple[int, int, int, int] | None = None
    polarity: int = 1  # 1: ink darker than the body; -1: lighter
    extras: dict = field(default_factory=dict, compare=False)
    # Ink in another corner as much like the value as ``digits`` (a token's rim, a
    # neighbour's value): where it is, as ``corner``, and its pictures, as ``digits``.
    rival_corner: tuple[int, int] | None = None
    rival_digits: tuple[tuple[np.ndarray, float, float], ...] = ()
    # Two pieces of ``digits`` one above the other (``pieces_along`` 1: their boxes overlap
    # across x, not along y) or side by side (0): ``digits_whole`` is them as one picture,
    # one digit broken by the threshold where the tile's line of text runs across them.
    digits_whole: np.ndarray | None = None
    pieces_along: int | None = None
    # The face read again with the pieces :func:`split_face` took into the letter where a
    # value printed close against it lies (:func:`_at_value_place`) taken out of it: the
    # letter and the value read either way, for the reader to choose between. None without
    # such pieces.
    apart: FaceInk | None = None


def fit_square(ink: np.ndarray, size: int = GLYPH_PX, pad: int = 1) -> np.ndarray:
    """``ink`` (h, w) scaled to fit a ``size`` square with its aspect kept, centred."""
    h, w = ink.shape
    inner = size - 2 * pad
    scale = inner / max(h, w)
    nh, nw = max(1, int(round(h * scale))), max(1, int(round(w * scale)))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    small = cv2.resize(ink if ink.dtype == np.float32 else ink.astype(np.float32), (nw, nh), interpolation=interp)
    out = np.zeros((size, size), np.float32)
    y0, x0 = (size - nh) // 2, (size - nw) // 2
    out[y0 : y0 + nh, x0 : x0 + nw] = small
    return out


def inkness(grey: np.ndarray, polarity: int | None = None) -> tuple[np.ndarray, int, float]:
    """0..1 ink map of a face crop (grey levels), its polarity, and the contrast 0..1.

    The body is the crop's typical level (most of a face is body); the ink is the far tail on
    one side. Without a given polarity, the side with more strongly deviating pixels wins."""
    g = grey.astype(np.float32)
    h, w = g.shape
    inner = np.sort(g[h // 6 : h - h // 6, w // 6 : w - w // 6], axis=None)
    m = len(inner)
    body = float(inner[m // 2])
    lo, hi = float(inner[int(0.015 * m)]), float(inner[int(0.985 * m) - 1])
    if polarity is None:
        spread = max(hi - lo, 1.0)
        dark = np.searchsorted(inner, body - 0.35 * spread)
        light = m - np.searchsorted(inner, body + 0.35 * spread, side="right")
        polarity = 1 if dark >= light else -1
    ink_level = lo if polarity > 0 else hi
    span = (body - ink_level) * polarity
    contrast = max(span, 0.0) / 255.0
    if span < 1.0:
        return np.zeros_like(g), polarity, 0.0
    # (In place, in the same order as (body - g) * polarity / span; np.clip's own overhead
    # is most of its cost on a crop this small.)
    m = np.subtract(body, g, out=g)
    m *= polarity
    m /= span
    return np.minimum(np.maximum(m, 0.0, out=m), 1.0, out=m), polarity, contrast


def _components(binary: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """8-connected components of a 0/1 crop with their stats and centroids, as
    cv2.connectedComponentsWithStats gives them. Grana's block-based labelling numbers them
    as OpenCV's default (Spaghetti) does, in about half its time on a face crop (most of the
    call's cost there is its set-up)."""
    return cv2.connectedComponentsWithStatsWithAlgorithm(binary, 8, cv2.CV_32S, cv2.CCL_GRANA)


def _on_body(ink: np.ndarray, labels: np.ndarray, stat: list[int], i: int) -> bool:
    """Whether the component ``i`` is printed on the face: the pixels just around it are
    body (a diacritic's dots), not the gap between tiles or the board seen past the face's
    edge (where a premium's teeth peep out beside a letter)."""
    x, y, bw, bh, _area = stat
    h, w = ink.shape
    x0, y0, x1, y1 = max(0, x - 3), max(0, y - 3), min(w, x + bw + 3), min(h, y + bh + 3)
    mine = labels[y0:y1, x0:x1] == i
    ring = cv2.dilate(mine.view(np.uint8), _SQUARE5).view(bool) & ~mine
    around = ink[y0:y1, x0:x1][ring]
    return around.size == 0 or float(median(around)) < _BODY_AROUND


def _long_lines(faint: np.ndarray, face_px: float) -> np.ndarray | None:
    """The pixels (0/1) of ``faint`` on straight lines along the crop's axes longer than any
    value digit (a third of the face), with their rim; None when there are none."""
    n = max(5, int(round(0.3 * face_px)))
    # (Nothing past the crop's border: by default erosion takes it for ink, and a digit
    # touching the border would pass for a line.)
    border = {"borderType": cv2.BORDER_CONSTANT, "borderValue": 0}
    lines = cv2.morphologyEx(faint, cv2.MORPH_OPEN, np.ones((1, n), np.uint8), **border)
    lines |= cv2.morphologyEx(faint, cv2.MORPH_OPEN, np.ones((n, 1), np.uint8), **border)
    if not lines.any():
        return None
    return cv2.dilate(lines, _SQUARE3)


def _off_centre_hole(labels: np.ndarray, stat: list[int], i: int) -> bool:
    """Whether the component ``i`` encloses a hole well off its middle: two digits blurred
    into one piece ("10": the hole of the 0 on one side), not a token's ring (its hole in the
    middle) nor its disc (none, or a highlight in a piece solid as a disc)."""
    x, y, bw, bh, area = stat
    if area >= 0.65 * bw * bh:
        return False  # solid: a disc, its hole a lamp's highlight
    mine = np.pad((labels[y : y + bh, x : x + bw] == i).astype(np.uint8), 1)
    n, holes = cv2.connectedComponents(1 - mine, connectivity=4)
    if n <= 2:
        return False
    ys, xs = np.nonzero(holes > 1)  # label 1 is the outside (it touches the padding)
    if holes[0, 0] != 1:
        return False
    off = max(abs(xs.mean() - (bw + 1) / 2.0) / bw, abs(ys.mean() - (bh + 1) / 2.0) / bh)
    return off > 0.15


def _in_corner(fx: float, fy: float) -> bool:
    """Whether a mark whose middle lies (fx, fy) face sizes off the letter's middle lies in a
    corner of the face, where the value is printed (one axis a little less: the first of two
    digits, "10", sits further in)."""
    fx, fy = abs(fx), abs(fy)
    return max(fx, fy) > 0.2 and min(fx, fy) > 0.14


def _on_a_line(stats: list[list[int]], i: int, face_px: float) -> bool:
    """Whether the component ``i`` is a thin dash lined up with others along its length into
    a line longer than any value digit (a third of the face): a piece of a line broken by the
    threshold (a face's edge, its shadow, the rim of the next tile), not a value digit (a "1"
    lying on its side is as thin, but alone on its line; the other digit of "10" stands beside
    it across, not along it; a thin "1" broken in two by the threshold is no longer than a
    digit)."""
    x, y, bw, bh, _ = stats[i]
    for axis in (0, 1):  # 0: a horizontal dash, 1: a vertical one
        length, thick = (bw, bh) if axis == 0 else (bh, bw)
        if thick > 3 or length < 2 * thick:
            continue
        mid = y + bh / 2.0 if axis == 0 else x + bw / 2.0
        lo, hi = (x, x + bw) if axis == 0 else (y, y + bh)
        lined = False
        for j, (xj, yj, wj, hj, area) in enumerate(stats):
            if j == 0 or j == i or area < 2:
                continue
            lj, tj = (wj, hj) if axis == 0 else (hj, wj)
            if tj > 3 or lj < 2 * tj:
                continue
            mid_j = yj + hj / 2.0 if axis == 0 else xj + wj / 2.0
            apart = (xj >= x + bw or xj + wj <= x) if axis == 0 else (yj >= y + bh or yj + hj <= y)
            if abs(mid_j - mid) <= 1.5 and apart:
                lined = True
                a, b = (xj, xj + wj) if axis == 0 else (yj, yj + hj)
                lo, hi = min(lo, a), max(hi, b)
        if lined and hi - lo > _LINE_LONGER * face_px:
            return True
    return False


def _stands_out(ink: np.ndarray, faint_labels: np.ndarray, labels: np.ndarray, stat: list[int], i: int) -> bool:
    """Whether the component ``i`` of ``labels`` (found at the letter's level of ink) is
    darker than the rest of the paler piece (``faint_labels``, at the digits' level) it is
    part of by ``_STANDS_OUT``: a digit printed on the rim's paler line, not a dark stretch of
    the rim itself."""
    x, y, bw, bh, _ = stat
    h, w = ink.shape
    mine = labels[y : y + bh, x : x + bw] == i
    ids = np.unique(faint_labels[y : y + bh, x : x + bw][mine])
    ids = ids[ids > 0]
    rest = faint_labels == ids[0] if len(ids) == 1 else np.isin(faint_labels, ids)
    # (Without the piece itself and its blurred rim, a pixel round it.)
    x0, y0, x1, y1 = max(0, x - 1), max(0, y - 1), min(w, x + bw + 1), min(h, y + bh + 1)
    grown = np.zeros((y1 - y0, x1 - x0), np.uint8)
    grown[y - y0 : y - y0 + bh, x - x0 : x - x0 + bw] = mine
    rest[y0:y1, x0:x1] &= cv2.dilate(grown, _SQUARE3) == 0
    peak = float(ink[y : y + bh, x : x + bw][mine].max())
    return not rest.any() or peak >= float(ink[rest].max()) + _STANDS_OUT


def _digit_sized(stats: list[list[int]], ids: list[int], face_px: float) -> bool:
    """Whether pieces found at the faint level are as long as a value's digit is tall (a
    tenth of the face at least, the smallest value printed), not specks of grain."""
    return max(max(stats[i][2], stats[i][3]) for i in ids) >= _DIGIT_LEAST * face_px


def _solid_disc(bw: int, bh: int, area: int, face_px: float) -> bool:
    """Whether a component in a face's corner may be a token's disc rather than value
    digits, though smaller than a whole token (a token whose rim is too faint to count as ink
    shows only its middle, a sixth of the face across or a little less): round (its box square) and
    solid (filling its box as a disc does). Blurred digits can look so too; this only says
    which of two corners holding ink is the token's."""
    return (min(bw, bh) >= 0.11 * face_px and max(bw, bh) <= 1.3 * min(bw, bh)
            and area >= 0.65 * bw * bh)


def _at_value_place(main: list[int], cx: float, cy: float, face_px: float) -> bool:
    """Whether a piece whose middle is (cx, cy) lies off the letter's main piece (its stats
    ``main``) where a value printed close against the letter lies, beside the letter's foot:
    its middle past the main piece's box on one axis and in the box's outer part or past it
    on the other (whichever way the tile is turned), and past the box by no more than a
    value printed close lies (the face's rim and a neighbour's edge lie further out). A
    diacritic lies over or under its letter, within its width; a piece of a broken stroke
    lies within the letter's box."""
    x, y, w, h = main[:4]
    dx, dy = abs(cx - (x + w / 2.0)), abs(cy - (y + h / 2.0))
    if max(dx - w / 2.0, dy - h / 2.0) > _BESIDE * face_px:
        return False
    rx, ry = dx / (w / 2.0), dy / (h / 2.0)
    return (rx > 1.0 and ry > _FOOT) or (ry > 1.0 and rx > _FOOT)


def _cut_at_foot(ink: np.ndarray, labels: np.ndarray, stat: list[int], main: int, face_px: float) -> np.ndarray | None:
    """The pixels of the letter's main piece (component ``main``, its stats ``stat``; a mask of
    its box) that are a value printed against the letter's foot and joined to it by the blur
    between them: at a higher level of ink the join falls away while strokes stay, and a
    piece as tall as a digit lies at the value's place off the rest (:func:`_at_value_place`);
    the ink on its side of the palest line between the two is the value's. None when none
    shows so.

    The letter's own strokes break at a higher level too (a blurred letter's thin joins): the
    value is taken only where it juts out of what is left on both axes, away from it, as a
    value beside the letter's foot does and a stroke within its box does not, and is a small
    share of the ink."""
    x, y, w, h, _ = stat
    mine = labels[y : y + h, x : x + w] == main
    part = ink[y : y + h, x : x + w]
    jut = _JUTS * face_px
    pale = np.where(mine, 255.0 - 255.0 * part, 255.0).astype(np.uint8)  # (no ink: the body, 255)
    for level in _JOIN_LEVELS:
        k, lab, st_arr, ce_arr = _components(((part > level) & mine).view(np.uint8))
        if k < 3:
            continue
        st, ce = st_arr.tolist(), ce_arr.tolist()
        rest = max(range(1, k), key=lambda j: st[j][4])
        rx, ry = st[rest][0] + st[rest][2] / 2.0, st[rest][1] + st[rest][3] / 2.0
        value = [j for j in range(1, k) if j != rest and max(st[j][2], st[j][3]) >= _DIGIT_LEAST * face_px
                 and _at_value_place(st[rest], *ce[j], face_px)]
        if not value:
            continue
        # (One corner: the largest piece's. Pieces off the rest in other corners are strokes.)
        first = max(value, key=lambda j: st[j][4])
        sx, sy = ce[first][0] > rx, ce[first][1] > ry
        value = [j for j in value if (ce[j][0] > rx, ce[j][1] > ry) == (sx, sy)]
        # The value and the rest, flooded from their cores through ever paler ink (the body
        # last), meet at the palest ink between them: the join.
        # (Padded: watershed takes the picture's outer pixels for a boundary.)
        markers = np.pad(np.where(np.isin(lab, value), 2, np.where(lab > 0, 1, 0)).astype(np.int32), 1)
        cv2.watershed(cv2.cvtColor(np.pad(pale, 1, constant_values=255), cv2.COLOR_GRAY2BGR), markers)
        cut = mine & (markers[1:-1, 1:-1] == 2)
        left = mine & ~cut
        if not cut.any() or not left.any():
            continue
        cy, cx = np.nonzero(cut)
        ly, lx = np.nonzero(left)
        juts = ((cx.max() - lx.max() if sx else lx.min() - cx.min()) >= jut
                and (cy.max() - ly.max() if sy else ly.min() - cy.min()) >= jut)
        if juts and len(cx) <= _VALUE_SHARE * len(lx):
            return cut
    return None


def _piece(labels: np.ndarray, i: int, within: list[int]) -> tuple[list[int], list[float]]:
    """The stats (x, y, w, h, area) and centroid of component ``i`` of ``labels``, which lies
    within the box of ``within`` (stats)."""
    x, y, w, h, _ = within
    ys, xs = np.nonzero(labels[y : y + h, x : x + w] == i)
    x0, y0 = x + int(xs.min()), y + int(ys.min())
    stat = [x0, y0, x + int(xs.max()) + 1 - x0, y + int(ys.max()) + 1 - y0, len(xs)]
    return stat, [x + float(xs.mean()), y + float(ys.mean())]


def split_face(
    grey: np.ndarray,
    polarity: int | None = None,
    min_contrast: float = 0.12,
    face_frac: float = 1.0,
    values: bool = True,
) -> FaceInk:
    """Separate the ink of a face crop into letter and value digits.

    ``grey``: the crop around one face, the face roughly centred and filling ``face_frac`` of
    it. Components reaching out of the face's box (give or take a few pixels) or touching the
    crop's border are the board or a neighbour, not ink of this face. The letter is the largest component near the centre plus the small marks that sit
    beside it along one axis (diacritics); components off both of its axes, in a corner, are
    the value digits.

    Without ``values``, the letter alone (its picture, box and polarity, the face's contrast
    and ink): the value digits are not looked for (``digits`` empty, ``corner`` None), for a
    caller that reads only the letter.
    """
    ink, pol, contrast = inkness(grey, polarity)
    h, w = ink.shape
    if contrast < min_contrast:
        return FaceInk(None, contrast=contrast, polarity=pol)
    binary = (ink > 0.5).astype(np.uint8)
    n, labels, stats_arr, cents_arr = _components(binary)
    # Plain lists: indexing numpy rows one scalar at a time costs more than the whole analysis.
    stats, cents = stats_arr.tolist(), cents_arr.tolist()
    face_px = face_frac * min(h, w)
    area_min = max(2, int(0.0015 * face_px * face_px))
    # The face's box in the crop, a little wider (it is found a few pixels off): ink reaching
    # out of it is the board's or a neighbour's. A crop the face fills ends at the crop.
    slack_x = max(1.0, (w - face_frac * w) / 2.0 - 0.06 * face_px)
    slack_y = max(1.0, (h - face_frac * h) / 2.0 - 0.06 * face_px)
    lo_x, hi_x = slack_x, w - slack_x
    lo_y, hi_y = slack_y, h - slack_y
    keep = []
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if area < area_min:
            continue
        if x <= lo_x or y <= lo_y or x + bw >= hi_x or y + bh >= hi_y:
            continue  # the board, a neighbour or the face's own edge: not inside the face
        keep.append(i)
    total = float(cv2.countNonZero(binary)) / (h * w)
    if not keep:
        return FaceInk(None, contrast=contrast, ink=total, polarity=pol)
    cx0, cy0 = w / 2.0, h / 2.0
    # The letter: large and central. Score area, penalise distance from the centre.
    def letter_score(i: int) -> float:
        d = ((cents[i][0] - cx0) ** 2 + (cents[i][1] - cy0) ** 2) ** 0.5 / face_px
        return stats[i][4] * max(0.0, 1.0 - 1.6 * d)

    main = max(keep, key=letter_score)
    mx, my, mw, mh, _area = stats[main]
    if max(mw, mh) < 0.18 * face_px or letter_score(main) <= 0:
        return FaceInk(None, contrast=contrast, ink=total, polarity=pol)
    letter = [main]
    others = []
    x0, y0, x1, y1 = mx, my, mx + mw, my + mh
    size = max(mw, mh)
    # A value's piece is shorter than this: as long as two digits side by side ("10", which
    # blur can join into one piece: the value's size is the face's, not this letter's, which
    # may be small).
    value_most = max(0.45 * size, 0.3 * face_px)
    # A thin stroke (a serif font's hairline, the spur of a G, the end of an L's foot) may
    # fall below half ink and break off the letter, yet still join it at the digits' paler
    # level: such a piece near the letter is the letter's. So is a piece as large as the
    # letter's own (a serif W's other half, its hairlines between the two under half ink) that
    # lies well inside the face and out of its corners, where only the letter is printed.
    joined: np.ndarray | None = None
    inner = 0.4 * face_px  # half the face less a tenth: inside it lies no rim, no gap
    for i in keep:
        if i == main:
            continue
        x, y, bw, bh, area = stats[i]
        cx, cy = cents[i]
        near = (
            x >= x0 - 0.45 * size and x + bw <= x1 + 0.45 * size and y >= y0 - 0.45 * size and y + bh <= y1 + 0.45 * size
        )
        fx, fy = abs(cx - cx0) / face_px, abs(cy - cy0) / face_px
        ux, uy = max(x1, x + bw) - min(x0, x), max(y1, y + bh) - min(y0, y)  # the two together
        central = (
            x >= cx0 - inner and x + bw <= cx0 + inner and y >= cy0 - inner and y + bh <= cy0 + inner
            and not _in_corner(fx, fy)
            and max(ux, uy) <= _LETTER_MAX * face_px
            # (a letter's shape, not a line of print's: words of small type join so too)
            and max(ux, uy) <= _LETTER_ASPECT * min(ux, uy)
        )
        if (near and max(bw, bh) < 0.45 * size) or central:
            if joined is None:
                _, pale = cv2.connectedComponents((ink > _DIGIT_INK).astype(np.uint8), connectivity=8)
                ys, xs = np.nonzero(labels[my : my + mh, mx : mx + mw] == main)
                joined = pale == pale[my + ys[0], mx + xs[0]]
            ys, xs = np.nonzero(labels[y : y + bh, x : x + bw] == i)
            if joined[y + ys[0], x + xs[0]]:
                letter.append(i)
    for i in keep:
        if i in letter:
            continue
        x, y, bw, bh, area = stats[i]
        cx, cy = cents[i]
        inside_x = x0 - 0.08 * size <= cx <= x1 + 0.08 * size
        inside_y = y0 - 0.08 * size <= cy <= y1 + 0.08 * size
        near = (
            x >= x0 - 0.45 * size and x + bw <= x1 + 0.45 * size and y >= y0 - 0.45 * size and y + bh <= y1 + 0.45 * size
        )
        small = max(bw, bh) < 0.45 * size
        fx, fy = (cx - cx0) / face_px, (cy - cy0) / face_px
        cornerish = _in_corner(fx, fy) and not (x0 <= cx <= x1 and y0 <= cy <= y1)
        if (inside_x and inside_y) or (
            near and small and not cornerish and max(bw, bh) <= 3 * min(bw, bh) and min(bw, bh) >= 2
            and _on_body(ink, labels, stats[i], i)
        ):
            # A piece of the letter (glare breaks strokes), or a diacritic beside it: dots and
            # accents are compact; a thin sliver along the letter is the face's edge or a gap,
            # a speck a pixel thin is noise (a dot is printed as thick as the letter's strokes).
            letter.append(i)
        else:
            others.append(i)

    pieces = (n, labels, stats, cents)

    def finish(letter: list[int], others: list[int], value: list[int] | None = None,
               comps: tuple[int, np.ndarray, list, list] | None = None) -> FaceInk:
        """The face read with ``letter`` (component ids) as the letter's ink and ``others``
        as the rest of what was found at the letter's level; the value digits looked for,
        or with ``value`` those pieces of ``others`` taken for it, not looked for. ``comps``:
        the components (count, labels, stats, centroids) when not those found above."""
        n, labels, stats, cents = comps if comps is not None else pieces
        lx0 = min(stats[i][0] for i in letter)
        ly0 = min(stats[i][1] for i in letter)
        lx1 = max(stats[i][0] + stats[i][2] for i in letter)
        ly1 = max(stats[i][1] + stats[i][3] for i in letter)
        lut = np.zeros(n, np.uint8)  # 1 for the letter's components (bytes: what dilate takes)
        lut[letter] = 1
        # Keep the anti-aliased rim of the letter's own components, nothing of other ink.
        mask = cv2.dilate(lut[labels[ly0:ly1, lx0:lx1]], _SQUARE3)
        glyph = fit_square(ink[ly0:ly1, lx0:lx1] * mask)
        lcx, lcy = (lx0 + lx1) / 2.0, (ly0 + ly1) / 2.0
        if not values:
            return FaceInk(glyph, (), None, contrast, total, (int(lx0), int(ly0), int(lx1 - lx0), int(ly1 - ly0)), pol)

        letter_box = [lx0, ly0, lx1 - lx0, ly1 - ly0]

        def usual_place(stats: list[list[int]]) -> bool:
            # Value digits are printed at one place on every face: their middle a third of the
            # face off the letter's on both axes (0.23..0.40 over thousands of rendered faces),
            # or nearer where printed close beside the letter's foot (Hasbro's 1 by an I): print,
            # as dark as the letter's (the face's rim and its shading lie there too on a face
            # cut off its middle, paler).
            x0_, y0_ = min(st[0] for st in stats), min(st[1] for st in stats)
            x1_, y1_ = max(st[0] + st[2] for st in stats), max(st[1] + st[3] for st in stats)
            mx_, my_ = (x0_ + x1_) / 2.0, (y0_ + y1_) / 2.0
            ox, oy = abs(mx_ - lcx) / face_px, abs(my_ - lcy) / face_px
            near = min(ox, oy) >= _DIGITS_OFF[0] or (
                _at_value_place(letter_box, mx_, my_, face_px) and float(ink[y0_:y1_, x0_:x1_].max()) > _PRINTED)
            return near and max(ox, oy) <= _DIGITS_OFF[1]

        def printed(labels: np.ndarray, stat: list[int], i: int) -> bool:
            x, y, bw, bh, _ = stat
            return float(ink[y : y + bh, x : x + bw][labels[y : y + bh, x : x + bw] == i].max()) > _PRINTED

        def by_corner(ids: list[int], cents: list) -> dict[tuple[int, int], list[int]]:
            by: dict[tuple[int, int], list[int]] = {}
            for i in ids:
                by.setdefault((1 if cents[i][0] > cx0 else -1, 1 if cents[i][1] > cy0 else -1), []).append(i)
            return by

        if value is None:
            # The value digits are small and thin: blur leaves their strokes paler than the letter's,
            # so they are looked for at a lower level of ink, away from the letter.
            # (The letter and its 5 x 5 rim lie within its box grown by 2: dilated there alone.)
            faint = (ink > _DIGIT_INK).view(np.uint8)
            ya, yb, xa, xb = max(0, ly0 - 2), min(h, ly1 + 2), max(0, lx0 - 2), min(w, lx1 + 2)
            faint[ya:yb, xa:xb][cv2.dilate(lut[labels[ya:yb, xa:xb]], _SQUARE5) > 0] = 0

            def candidates(faint: np.ndarray) -> tuple[np.ndarray, list, list, list[int]]:
                dn, dlabels, dstats_arr, dcents_arr = _components(faint)
                dstats, dcents = dstats_arr.tolist(), dcents_arr.tolist()
                return dlabels, dstats, dcents, candidates_of(dlabels, dstats, dcents, range(1, dn))

            def candidates_of(dlabels: np.ndarray, dstats: list, dcents: list, ids) -> list[int]:
                digits = []
                for i in ids:
                    x, y, bw, bh, area = dstats[i]
                    if area < area_min or x <= lo_x or y <= lo_y or x + bw >= hi_x or y + bh >= hi_y:
                        continue
                    cx, cy = dcents[i]
                    # Digits sit diagonally off the letter, a third of the face away on each axis (the
                    # first of two a little nearer); what lies half a face off is the face's edge.
                    ox, oy = abs(cx - lcx) / face_px, abs(cy - lcy) / face_px
                    if not (0.12 <= ox <= 0.47 and 0.12 <= oy <= 0.47):
                        continue
                    small = max(bw, bh) < value_most
                    # A disc in a corner is a game token (the companion asks players to put one in the
                    # tile's top-left corner), and so is a ring as wide (its rim): no value digits.
                    if min(bw, bh) >= 0.19 * face_px and max(bw, bh) <= 1.4 * min(bw, bh) and not _off_centre_hole(dlabels, dstats[i], i):
                        continue
                    # Value digits sit in a corner of the face, their middle off the letter's own box on
                    # at least one axis (they may tuck under a wide letter's corner), or close beside
                    # the letter's foot (a narrow letter's, nearer the face's middle).
                    fx, fy = (cx - cx0) / face_px, (cy - cy0) / face_px
                    in_corner = _in_corner(fx, fy) or _at_value_place(letter_box, cx, cy, face_px)
                    off_box = not (x0 <= cx <= x1 and y0 <= cy <= y1)
                    if small and in_corner and off_box and not _on_a_line(dstats, i, face_px):
                        digits.append(i)
                return digits

            dlabels, dstats, dcents, digits = candidates(faint)
            faint_labels = dlabels
            if not digits:
                # The value printed near the face's rim can touch the rim's dark line (or the
                # shadow past it) and go with it out of the face: take long straight lines out.
                lines = _long_lines(faint, face_px)
                if lines is not None:
                    dlabels, dstats, dcents, digits = candidates(faint & ~lines)

            if not any(usual_place([dstats[i] for i in g]) and any(printed(dlabels, dstats[i], i) for i in g)
                       for g in by_corner(digits, dcents).values()):
                # A "1" in line with the rim, or touching the rim's rounded corner, is one piece with
                # it at the digits' paler level; at the letter's own level the paler rim falls away.
                # Only print darker than the rest of the piece it was part of: a rim as dark as
                # print breaks at this level into pieces of itself, no darker than the rest. Such
                # print is taken before pale ink that never reaches the letter's level (a rounded
                # corner's rim, a shadow): small digits blur as pale, so pale ink stays the value
                # where nothing printed is found.
                # (The letter's level was cut already: its pieces other than the letter's.)
                found = candidates_of(labels, stats, cents, others)
                stand = [i for g in by_corner(found, cents).values() if usual_place([stats[i] for i in g])
                         for i in g if _stands_out(ink, faint_labels, labels, stats[i], i)]
                if stand:
                    dlabels, dstats, dcents, digits = labels, stats, cents, stand
                else:
                    # A thin "1" blurs paler than the digits' level (a stroke a pixel or two wide at
                    # a fifth of the letter's ink): looked for at a fainter level, on a face whose body
                    # is clean there, and taken only where one corner alone holds it at the value's
                    # usual place (grain, a rim's shading or a shadow lie along the face, not in one
                    # corner as a mark of a digit's size).
                    pale = (ink > _FAINT_INK).view(np.uint8)
                    pale[ya:yb, xa:xb][cv2.dilate(lut[labels[ya:yb, xa:xb]], _SQUARE5) > 0] = 0
                    lines = _long_lines(pale, face_px)
                    if lines is not None:
                        pale &= ~lines
                    plabels, pstats, pcents, pale_digits = candidates(pale)
                    places = [g for g in by_corner(pale_digits, pcents).values()
                              if usual_place([pstats[i] for i in g]) and _digit_sized(pstats, g, face_px)]
                    if len(places) == 1:
                        dlabels, dstats, dcents, digits = plabels, pstats, pcents, places[0]
        else:
            # (Pieces at the letter's level known to be the value: no search.)
            dlabels, dstats, dcents, digits = labels, stats, cents, list(value)
        corner = None
        digit_out: list[tuple[np.ndarray, float, float]] = []
        if digits:
            # One corner holds the value; digits in another are a neighbour's, seen past the edge.
            groups = by_corner(digits, dcents)

            def weight(k: tuple[int, int]) -> float:
                # Own digits sit inside the face; a neighbour's shows right at the crop's edge.
                border = min(
                    min(dstats[i][0], dstats[i][1], w - dstats[i][0] - dstats[i][2], h - dstats[i][1] - dstats[i][3])
                    for i in groups[k]
                )
                inset = min(1.0, (border + 1) / max(1.0, 0.06 * face_px))
                # Ink in two opposite corners: a token in one (the companion's players put it in
                # the tile's top-left corner, the digits' opposite one), the digits in the other:
                # of a round solid patch and one that is not, the latter is the digits.
                return sum(int(dstats[i][4]) for i in groups[k]) * inset * (0.1 if k in token_like else 1.0)

            token_like: set[tuple[int, int]] = set()
            if len(groups) == 2:
                (ka, ga), (kb, gb) = groups.items()
                if ka[0] == -kb[0] and ka[1] == -kb[1]:
                    disc_a = all(_solid_disc(*dstats[i][2:5], face_px) for i in ga)
                    disc_b = all(_solid_disc(*dstats[i][2:5], face_px) for i in gb)
                    # (The other must be as tall as digits are: specks of noise are not.)
                    other = gb if disc_a else ga
                    tall = max(max(dstats[i][2], dstats[i][3]) for i in other) >= _DIGIT_LEAST * face_px
                    if disc_a != disc_b and tall:
                        token_like.add(ka if disc_a else kb)

            # Ink in a corner off the value's usual place, much nearer the letter (a serif broken
            # off it) or at the face's very edge (the tile's rim, a shadow line, a neighbour's
            # edge), is not the value, and taking it as the value would say a wrong turn: better
            # no corner at all.
            def typical(k: tuple[int, int]) -> bool:
                return usual_place([dstats[i] for i in groups[k]])

            def ring(k: tuple[int, int]) -> bool:
                # A token's rim broken into arcs (glare, a faint rim): three or more pieces
                # around a square as wide as a token (the value has one or two digits).
                g = groups[k]
                if len(g) < 3:
                    return False
                gw = max(dstats[i][0] + dstats[i][2] for i in g) - min(dstats[i][0] for i in g)
                gh = max(dstats[i][1] + dstats[i][3] for i in g) - min(dstats[i][1] for i in g)
                return min(gw, gh) >= 0.19 * face_px and max(gw, gh) <= 1.4 * min(gw, gh)

            for k in [k for k in groups if value is None and (ring(k) or not typical(k))]:
                del groups[k]
        rival_corner = None
        rival_out: list[tuple[np.ndarray, float, float]] = []
        whole, pieces_along = None, None
        if digits and groups:
            ranked = sorted(groups, key=weight, reverse=True)
            key = ranked[0]
            # Two corners holding ink much alike (a token's faint rim in one, the value in the
            # other; the face's own value and a neighbour's): the letter's turn and what each
            # reads as decide (:meth:`companion.vision.letters.LetterReader.score`), not size.
            rival = None
            if len(ranked) > 1:
                second = ranked[1]
                opposite = second == (-key[0], -key[1])
                # (Opposite the value is where the players' token lies: its faint rim may outweigh
                # a thin "1"; anything there as tall as a digit stays in question.)
                tall = max(max(dstats[i][2], dstats[i][3]) for i in groups[second]) >= _DIGIT_LEAST * face_px
                if weight(second) >= _RIVAL * weight(key) or (opposite and tall):
                    rival = second
            if token_like and len(groups) == 2 and token_like <= set(groups):
                # A round solid patch opposite ink that is not: most likely the token and the
                # value, but a blurred 6 or 8 is as round and solid, a token's disc may be lit
                # through: both stay in question.
                key, rival = [k for k in groups if k not in token_like][0], list(token_like)[0]

            def pictures(g: list[int]) -> tuple[tuple[int, int], list[tuple[np.ndarray, float, float]]]:
                gx0 = min(dstats[i][0] for i in g)
                gy0 = min(dstats[i][1] for i in g)
                gx1 = max(dstats[i][0] + dstats[i][2] for i in g)
                gy1 = max(dstats[i][1] + dstats[i][3] for i in g)
                at = (1 if (gx0 + gx1) / 2.0 > lcx else -1, 1 if (gy0 + gy1) / 2.0 > lcy else -1)
                out = []
                for i in g:
                    x, y, bw, bh, _ = dstats[i]
                    m = cv2.dilate((dlabels[y : y + bh, x : x + bw] == i).view(np.uint8), _SQUARE3)
                    out.append(
                        (fit_square(ink[y : y + bh, x : x + bw] * m), (dcents[i][0] - lcx) / face_px, (dcents[i][1] - lcy) / face_px)
                    )
                return at, out

            corner, digit_out = pictures(groups[key])
            if len(groups[key]) == 2:
                whole, pieces_along = _two_pieces(ink, dlabels, [dstats[i] for i in groups[key]], groups[key])
            if rival is not None:
                rival_corner, rival_out = pictures(groups[rival])
                if rival_corner == corner:
                    rival_corner, rival_out = None, []
        return FaceInk(
            glyph,
            tuple(digit_out),
            corner,
            contrast,
            total,
            (int(lx0), int(ly0), int(lx1 - lx0), int(ly1 - ly0)),
            pol,
            rival_corner=rival_corner,
            rival_digits=tuple(rival_out),
            digits_whole=whole,
            pieces_along=pieces_along,
        )

    read = finish(letter, others)
    if not values or read.glyph is None:
        return read
    # The rules above take a piece beside the letter for a broken stroke or a diacritic; a
    # value printed close against the letter (some makers do) lies there too, and read as
    # part of it makes another letter (P and its 3 an R, F and its 4 a G). Read apart too,
    # for the value it reads then to decide (:func:`companion.vision.cells.read_board_cells`).
    beside = [i for i in letter if i != main and _at_value_place(stats[main], *cents[i], face_px)]
    comps = None
    if not beside and read.corner is None:
        # No value found: it may be one piece with the letter, joined by the blur between
        # them. Cut off, it is a component of its own (numbered after the others), and the
        # letter's main piece what is left.
        foot = _cut_at_foot(ink, labels, stats[main], main, face_px)
        if foot is not None:
            labels = labels.copy()
            labels[my : my + mh, mx : mx + mw][foot] = n
            (main_stat, main_cent), (foot_stat, foot_cent) = (_piece(labels, i, stats[main]) for i in (main, n))
            stats = stats[:main] + [main_stat] + stats[main + 1 :] + [foot_stat]
            cents = cents[:main] + [main_cent] + cents[main + 1 :] + [foot_cent]
            beside, comps = [n], (n + 1, labels, stats, cents)
    if beside:
        # The value is what was cut from the letter, with the pieces beside it in its corner
        # of the letter (the 0 of a "10" whose 1 touched a Q's tail), as small as digits are.
        mx, my, mw, mh, _ = stats[main]
        mcx, mcy = mx + mw / 2.0, my + mh / 2.0

        def side(i: int) -> tuple[bool, bool]:
            return cents[i][0] > mcx, cents[i][1] > mcy

        sides = {side(i) for i in beside}
        value = beside + [i for i in others if side(i) in sides and _at_value_place(stats[main], *cents[i], face_px)
                          and max(stats[i][2], stats[i][3]) < value_most]
        read = replace(read, apart=finish([i for i in letter if i not in beside], others + beside, value, comps))
    return read


def _two_pieces(ink: np.ndarray, labels: np.ndarray, stats: list[list[int]], ids: list[int]) -> tuple[np.ndarray | None, int | None]:
    """Two pieces of ink in the value's corner as one picture, and the axis they lie along
    (0: side by side along x, their boxes overlapping on y but not on x; 1: one above the
    other), or (None, None) when they lie neither way (diagonally, or one inside the other).
    Two digits of a value stand side by side along the tile's line of text; pieces lying
    across it are one digit the threshold broke (a thin 3's joins)."""
    (xa, ya, wa, ha, _), (xb, yb, wb, hb, _) = stats

    def overlap(a0: int, a1: int, b0: int, b1: int) -> float:
        return max(0, min(a1, b1) - max(a0, b0)) / max(1, min(a1 - a0, b1 - b0))

    on_x = overlap(xa, xa + wa, xb, xb + wb)
    on_y = overlap(ya, ya + ha, yb, yb + hb)
    if on_x >= 0.5 and on_y <= 0.5:
        along = 1
    elif on_y >= 0.5 and on_x <= 0.5:
        along = 0
    else:
        return None, None
    x0, y0 = min(xa, xb), min(ya, yb)
    x1, y1 = max(xa + wa, xb + wb), max(ya + ha, yb + hb)
    m = np.isin(labels[y0:y1, x0:x1], ids)
    m = cv2.dilate(m.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    return fit_square(ink[y0:y1, x0:x1] * m), along


def _box_sums(integral: np.ndarray, x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray) -> np.ndarray:
    """Sums over boxes [x0, x1) x [y0, y1) from a cv2.integral image (indices clipped)."""
    h, w = integral.shape[0] - 1, integral.shape[1] - 1
    x0, x1 = np.clip(x0, 0, w), np.clip(x1, 0, w)
    y0, y1 = np.clip(y0, 0, h), np.clip(y1, 0, h)
    return integral[y1, x1] - integral[y0, x1] - integral[y1, x0] + integral[y0, x0]


def locate_faces(
    body: np.ndarray, centres: np.ndarray, face_px: float, search_px: float, step: int = 1,
    integral: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Where tile faces lie: for each prior centre (N, 2), the centre within ``search_px`` of
    it whose ``face_px`` box is most filled with body (``body``: 0..1 per pixel) while a thin
    ring around the box is not (the gap to the board or to the next tile), a little against
    straying from the prior. Returns refined centres (N, 2) and their fit, -1..1 (filled box,
    empty ring = 1). ``integral``: :func:`body_integral` of ``body``, when the caller locates
    faces in one body several times."""
    centres = np.asarray(centres, np.float64).reshape(-1, 2)
    if len(centres) == 0:
        return centres, np.zeros(0)
    if integral is None:
        integral = body_integral(body)
    f = int(round(face_px))
    ring = max(2, int(round(0.06 * face_px)))
    r = int(round(search_px))
    offs = np.arange(-r, r + 1, step)
    ox, oy = np.meshgrid(offs, offs)
    ox, oy = ox.ravel(), oy.ravel()
    # Box top-left corners for every centre and offset: (N, K).
    x0 = np.round(centres[:, 0:1] - f / 2.0 + ox[None]).astype(np.int64)
    y0 = np.round(centres[:, 1:2] - f / 2.0 + oy[None]).astype(np.int64)
    inside = _box_sums(integral, x0, y0, x0 + f, y0 + f) / (f * f)
    outer = _box_sums(integral, x0 - ring, y0 - ring, x0 + f + ring, y0 + f + ring)
    ring_area = (f + 2 * ring) ** 2 - f * f
    ring_mean = (outer - inside * f * f) / ring_area
    fit = inside - ring_mean
    penalty = 0.15 * (ox**2 + oy**2)[None] / max(r * r, 1)
    best = np.argmax(fit - penalty, axis=1)
    k = np.arange(len(centres))
    out = np.stack([centres[:, 0] + ox[best], centres[:, 1] + oy[best]], axis=1)
    return out, fit[k, best]


def body_integral(body: np.ndarray) -> np.ndarray:
    """The summed-area table :func:`locate_faces` takes its box sums from."""
    return cv2.integral(body.astype(np.float32), sdepth=cv2.CV_64F)


def face_crop(image: np.ndarray, centre: tuple[float, float], side: float) -> np.ndarray:
    """The ``side`` square of ``image`` around ``centre`` (edges replicated past the image)."""
    s = int(round(side))
    x0 = int(round(centre[0] - side / 2.0))
    y0 = int(round(centre[1] - side / 2.0))
    h, w = image.shape[:2]
    if x0 >= 0 and y0 >= 0 and x0 + s <= w and y0 + s <= h:
        return image[y0 : y0 + s, x0 : x0 + s]
    pad = s
    big = cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    return big[y0 + pad : y0 + pad + s, x0 + pad : x0 + pad + s]
