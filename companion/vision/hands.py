"""Hands, arms, sleeves and anything else that lies over the board, and motion between frames.

Colour cannot tell a hand from a board: skin runs from very light to very dark, a sleeve can be
any colour, and light skin looks like a cream tile. What a hand cannot imitate is the board's
lattice. Every square of a board is bounded by straight lines that sit where the grid says they
are: printed grid lines, the edge between two squares of different colours, the gap between two
tiles or the edge of a lone tile. A hand is a large smooth body, not aligned to the grid: where it
lies, those lines vanish. Shadows and sunlight patches do not remove them (they scale light, and
a line's contrast is a ratio), which is why the evidence is measured in log intensity.

One frame (:func:`detect_hands`):

1. The board from straight above at 16 pixels a square (:func:`board_view`).
2. For every border segment between two squares, how strongly a straight line runs along it,
   at the place where that grid line runs along its whole length (:func:`line_evidence`): a
   finger's edge crossing the segment elsewhere does not count.
3. Each segment is judged against the segments of its kind (the premium classes on its two
   sides: a plain-to-plain line is fainter than a plain-to-premium edge), so that a pale board
   with faint lines is judged by its own lines (:func:`lost_borders`).
4. Where something crosses the board's edge (:func:`edge_crossings`): a hand reaches in from
   outside, and fingertips at the edge, too small to take many lines away, cut the grid's
   outer line and the frame beyond it. A square beside such a cut counts as covered.
5. Squares that lost most of their borders are covered; a connected blob of them, large enough
   or reaching the grid's edge as an arm does, is something over the board. One lost border
   alone is noise (:func:`covering_blobs`).
6. A blob whose lines are there once glare is taken out is a lamp's hot spot, not a hand
   (:func:`under_glare`): glare mixes white into what lies below, which scales the distance
   from white as a shadow scales light, so in log distance from white (:func:`glare_view`)
   its lines keep their ratio; under a hand they are gone in both.
7. The blob's own colours, learned in this frame against the board's, find its fingers and
   outline nearby (:func:`hand_pixels`); every square beside a covered one is marked as
   possibly covered: what is under a hand is never read with confidence.

Over a stream, :class:`HandTracker` adds what one frame cannot know: motion since the previous
frame, and the last quiet board as a reference: each segment judged against its own earlier
strength, the squares that changed joined to the blob, and the ring just outside the grid, where
an arm must cross the board's edge (fingertips that reach only the first row leave its lines
almost whole, but not the ring unchanged).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

from companion.core.board import Premium, layout_for_grid
from companion.core.errors import CompanionError
from companion.vision.grid import GridLocation, rectify
from companion.vision.medians import median
from companion.vision.reading import BoardReading

CELL_PX = 16  # pixels per square of the board view: enough for grid lines, cheap on a Pi
MARGIN = 0.5  # squares of board kept around the grid: the outer lines need room for their band
BAND = 0.3  # half-width, in squares, of the band searched for a line: grid error, tile overhang
WINDOW = 0.19  # half-width, in squares, of the window at the line's place where evidence counts
INSET = 0.2  # each end of a border segment left out: the crossing lines are not this line's
LOG_OFFSET = 8.0  # log(I + offset): contrast as a ratio, without blowing up sensor noise in black
GLARE_OFFSET = 8.0  # log(255 + offset - I): the same under glare; a larger one hides faint lines there

# A border's line evidence (range of its detrended log profile) below MISS_LOW is gone, above
# MISS_HIGH present. On the real scrabscrap photos 99 % of borders measure above 0.14 (median
# 0.33); under the renderer's hands the median is 0.02.
MISS_LOW = 0.035
MISS_HIGH = 0.075
LOW_SHARE = 0.2  # on a faint line: gone below this share of the line's typical strength
HIGH_SHARE = 0.45  # ... and there above this share
CORE = 0.6  # a square with this share of its borders gone is covered
EDGE = 0.25  # ... and one with this share, touching a covered square, is covered too
RING = 0.5  # the occlusion given to squares around a covered blob (fingers, outline)
MIN_BLOB = 3  # covered squares a blob needs to be a hand ...
MIN_EDGE_BLOB = 2  # ... or this many when it reaches the grid's edge, as an arm does
# A blob that keeps less than this share of its lost borders once glare is taken out is glare.
# On the renderer's hands (skin from very light to very dark, hands seeds 2000-2059) the share
# is 0.46 or more, under its lamps' hot spots (dev stranger seeds) 0.25 or less.
GLARE_SHARE = 0.35
CROSS_LINE = 0.3  # an outer segment keeping less than this share of its side's strength is cut ...
CROSS_BAND = 0.15  # ... where the frame beyond it differs by this much (log) from the rest of the side
TOUCH_LINE = 0.75  # one below this share where the frame differs twice as much is touched

COVERED_SHARE = 0.1  # a square this much covered by the hand's pixels counts as under it
MOTION = 0.04  # mean log change of a square between two frames that counts as motion (4 %)
CHANGE = 0.06  # ... and since the last quiet board, that counts as changed
RING_IN, RING_OUT = 0.1, 0.45  # the ring outside the grid watched for an arm, in squares
ADOPT_AFTER = 6  # still frames after which a changed board becomes the reference
RING_FACTOR = 1.5  # the ring is narrow and noisier: it needs this much more change

OCCLUDED = 0.5  # a square with this occlusion or more counts as under the hand
CAP = 0.49  # the highest confidence an occluded square keeps


@dataclass(frozen=True, eq=False)
class Hands:
    """What lies over the board in one frame."""

    occlusion: np.ndarray  # (rows, cols) float32: 0 square seen clearly .. 1 square covered
    present: bool  # a hand, arm, sleeve or other object lies over the board
    motion: bool = False  # the board view changed since the previous frame (streams only)
    elapsed_ms: float = 0.0
    extra: dict = field(default_factory=dict)  # diagnostics: line evidence, motion per square

    @property
    def quiet(self) -> bool:
        return not self.present and not self.motion


def board_view(image: np.ndarray, location: GridLocation, cell_px: int = CELL_PX, margin: float = MARGIN) -> np.ndarray:
    """The board from straight above at ``cell_px`` pixels a square.

    The image is first shrunk by a whole factor (OpenCV's fast area path) so that the warp does
    not alias away lines thinner than its sampling step."""
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    corners = location.corners.astype(np.float32)
    square = np.sqrt(abs(cv2.contourArea(corners)) / (location.rows * location.cols))
    factor = int(square // cell_px)
    if factor >= 2:
        h, w = image.shape[:2]
        h, w = h - h % factor, w - w % factor
        small = cv2.resize(image[:h, :w], (w // factor, h // factor), interpolation=cv2.INTER_AREA)
        # Pixel centres: small pixel i covers big pixels [f i, f i + f), centre f i + (f - 1) / 2.
        shrink = np.array([[1 / factor, 0, 0.5 / factor - 0.5], [0, 1 / factor, 0.5 / factor - 0.5], [0, 0, 1]])
        location = location.moved(shrink)
        image = small
    return rectify(image, location, cell_px, margin)


def line_evidence(
    view: np.ndarray, rows: int, cols: int, cell_px: int = CELL_PX, margin: float = MARGIN
) -> tuple[np.ndarray, np.ndarray]:
    """How strongly a straight line runs along each border segment between two squares.

    Returns ``(vertical, horizontal)``: ``vertical[r, j]`` for the segment of grid line ``x = j``
    beside row ``r`` (rows x cols+1), ``horizontal[i, c]`` for grid line ``y = i`` above column
    ``c`` (rows+1 x cols). The image is averaged along the segment (a line adds up, texture at
    an angle does not) into a profile across it, in log intensity.

    A grid line lies at the same place along its whole length, so each line's position is found
    first: the offset, within a band around where the grid says it is, at which the median of
    its segments' profiles bends most. A segment's evidence is then the range of its profile in
    a narrow window at that offset, after a straight trend is removed (a shading gradient is not
    a line), the largest over the colour channels. An edge of a finger or a sleeve's fold may
    cross the band anywhere; it counts only where the board's own line should be."""
    return _line_evidence(log_view(view), rows, cols, cell_px, margin)


def log_view(view: np.ndarray) -> np.ndarray:
    """The view in log intensity (H x W x channels): light scales, lines keep their ratio."""
    img = np.log(view.astype(np.float32) + LOG_OFFSET)
    return img[..., None] if img.ndim == 2 else img


def glare_view(view: np.ndarray) -> np.ndarray:
    """The view in log distance from white (H x W x channels). A lamp's glare mixes white into
    what lies below (a screen blend: 255 - I scaled by one factor in every channel), so here a
    line under glare keeps its ratio as a line in shadow does in :func:`log_view`."""
    img = np.log(255.0 + GLARE_OFFSET - view.astype(np.float32))
    return img[..., None] if img.ndim == 2 else img


def _line_evidence(
    img: np.ndarray, rows: int, cols: int, cell_px: int = CELL_PX, margin: float = MARGIN
) -> tuple[np.ndarray, np.ndarray]:
    m = round(margin * cell_px)
    band = min(round(BAND * cell_px), m - 1)
    win = max(2, round(WINDOW * cell_px))
    inset = round(INSET * cell_px)
    t = np.arange(-band, band + 1)
    u = np.arange(-win, win + 1)
    uf = u.astype(np.float32)[None, None, :, None]
    denom = float((u**2).sum())

    def along(image: np.ndarray, n_along: int, n_lines: int) -> np.ndarray:
        strip = image[m : m + n_along * cell_px]
        prof = strip.reshape(n_along, cell_px, strip.shape[1], strip.shape[2])[:, inset : cell_px - inset].mean(1)
        centres = m + np.arange(n_lines + 1) * cell_px
        p = prof[:, centres[:, None] + t[None, :], :]  # (n_along, n_lines + 1, band, channels)
        bend = np.abs(p[:, :, 2:] - 2 * p[:, :, 1:-1] + p[:, :, :-2]).sum(-1)  # (n_along, lines, band - 2)
        typical = median(bend, axis=0)  # (lines, band - 2): the line's own shape
        typical = typical[:, :-2] + typical[:, 1:-1] + typical[:, 2:]
        offset = t[2:-2][np.argmax(typical, axis=1)]  # (lines,)
        offset = np.clip(offset, -(band - win), band - win)
        idx = np.clip(centres + offset, win, prof.shape[1] - win - 1)[:, None] + u[None, :]
        q = prof[:, idx, :]  # (n_along, lines, window, channels)
        res = q - q.mean(2, keepdims=True) - (q * uf).sum(2, keepdims=True) / denom * uf
        return (res.max(2) - res.min(2)).max(-1)

    vertical = along(img, rows, cols)
    horizontal = along(img.transpose(1, 0, 2), cols, rows).T
    return vertical, horizontal


def missing(evidence: np.ndarray, typical: np.ndarray | float) -> np.ndarray:
    """0 where a border's line is there, 1 where it is gone, soft in between. The bar is the
    fixed one of a board with clear lines, lowered on a line that is faint along its whole
    length (a pale board's white lines): judged against the line's own ``typical`` strength."""
    typical = np.asarray(typical, np.float32)
    lo = np.minimum(MISS_LOW, LOW_SHARE * typical)
    hi = np.minimum(MISS_HIGH, HIGH_SHARE * typical)
    return np.clip((hi - evidence) / np.maximum(hi - lo, 1e-6), 0.0, 1.0)


@lru_cache(maxsize=8)
def segment_kinds(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Which kind of border each segment is, by the premium classes of the squares on its two
    sides (the outside of the grid is a class of its own): segments of one kind look alike on
    an empty board, a plain-to-plain line faint, a plain-to-premium edge strong. Without a
    known layout for the grid every segment is of one kind."""
    try:
        layout = layout_for_grid(rows) if rows == cols else None
    except CompanionError:
        layout = None
    names = {p: i for i, p in enumerate(Premium)}
    cls = np.full((rows + 2, cols + 2), len(names), np.int32)  # the outside
    if layout is not None:
        for r in range(rows):
            for c in range(cols):
                cls[r + 1, c + 1] = names[layout.premium((r, c))]
    else:
        cls[1:-1, 1:-1] = 0
    k = len(names) + 1

    def pair(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.minimum(a, b) * k + np.maximum(a, b)

    vertical = pair(cls[1:-1, :-1], cls[1:-1, 1:])  # (rows, cols + 1)
    horizontal = pair(cls[:-1, 1:-1], cls[1:, 1:-1])  # (rows + 1, cols)
    return vertical, horizontal


def typical_by_kind(vertical: np.ndarray, horizontal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each segment's expected line strength: the median of the segments of its kind in this
    frame (a hand covers a minority of every kind but the rarest, which then judge it)."""
    kv, kh = segment_kinds(*vertical.shape[:1], horizontal.shape[1])
    kinds = np.concatenate([kv.ravel(), kh.ravel()])
    values = np.concatenate([vertical.ravel(), horizontal.ravel()])
    typical = np.empty_like(values)
    for kind in np.unique(kinds):
        sel = kinds == kind
        typical[sel] = np.median(values[sel])
    return typical[: kv.size].reshape(kv.shape), typical[kv.size :].reshape(kh.shape)


def lost_borders(
    vertical: np.ndarray, horizontal: np.ndarray, reference: tuple[np.ndarray, np.ndarray] | None = None
) -> np.ndarray:
    """Per square, the share of its four borders whose line is gone (rows x cols, 0..1).

    Each segment is judged against the segments of its kind in this frame, and, when a
    ``reference`` (the segments' evidence on the last quiet board of a stream) is given, against
    its own earlier strength too, whichever expects more."""
    tv, th = typical_by_kind(vertical, horizontal)
    if reference is not None:
        tv, th = np.maximum(tv, reference[0]), np.maximum(th, reference[1])
    mv, mh = missing(vertical, tv), missing(horizontal, th)
    return (mv[:, :-1] + mv[:, 1:] + mh[:-1, :] + mh[1:, :]) / 4.0


def _side_strength(vertical: np.ndarray, horizontal: np.ndarray) -> list[np.ndarray]:
    """Each segment of the grid's outer line against its kind, then against its side's median
    (a phone's far side is fainter than its near one): sides top, right, bottom, left, each
    counted clockwise."""
    tv, th = typical_by_kind(vertical, horizontal)
    out = []
    for ev, typ in ((horizontal[0], th[0]), (vertical[:, -1], tv[:, -1]), (horizontal[-1][::-1], th[-1][::-1]),
                    (vertical[:, 0][::-1], tv[:, 0][::-1])):
        strength = ev / np.maximum(typ, 1e-6)
        out.append(strength / max(float(np.median(strength)), 1e-6))
    return out


def ring_in_photo(location: GridLocation, shape: tuple[int, ...]) -> list[np.ndarray]:
    """Per side of the grid (as :func:`_side_strength` counts them), whether the frame just
    outside each segment (out to :data:`RING_OUT`) lies inside a photo of ``shape``: beyond the
    photo's edge the board view is filled in, and a filled-in frame tells nothing."""
    rows, cols = location.rows, location.cols
    height, width = shape[:2]
    out = []
    for side, n in enumerate((cols, rows, cols, rows)):
        j = np.arange(n, dtype=np.float64)
        k = (j, j, n - 1 - j, n - 1 - j)[side]
        lo, hi = (-RING_OUT, 0.0) if side in (0, 3) else ((cols, cols + RING_OUT) if side == 1 else (rows, rows + RING_OUT))
        inside = np.ones(n, bool)
        for along in (k, k + 1):
            for across in (lo, hi):
                pts = np.column_stack((np.full(n, across), along) if side in (1, 3) else (along, np.full(n, across)))
                x, y = location.to_image(pts).T
                inside &= (x >= 0) & (x < width) & (y >= 0) & (y < height)
        out.append(inside)
    return out


def edge_crossings(lg: np.ndarray, lines: tuple[np.ndarray, np.ndarray], glare_lines: tuple[np.ndarray, np.ndarray],
                   seen: list[np.ndarray] | None = None, cell_px: int = CELL_PX, margin: float = MARGIN
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Edge squares (rows x cols bool) where something crosses the board's edge beside them:
    ``(cut, touched)``.

    A hand reaches in from outside the board: its fingertips at the edge cover too little of
    any square for the lattice to miss many lines, but they cut the grid's outer line (the
    strongest of the board: its squares against the frame) and the frame beyond it. A segment
    of the outer line is cut when it keeps less than :data:`CROSS_LINE` of its side's typical
    strength (:func:`_side_strength`), both in light (``lines``, from the log view ``lg``) and
    with glare taken out (``glare_lines``, from :func:`glare_view`: a hot spot on the frame
    washes the line out in light only), and the frame just outside it (the ring from
    :data:`RING_IN` to :data:`RING_OUT`) differs there by more than :data:`CROSS_BAND` from the
    frame along the rest of that side, where the line is whole. A tile the frame's colour cuts
    the line but not the frame. ``touched``: segments fainter than :data:`TOUCH_LINE` of their
    side (in light and with glare taken out) where the frame differs by twice as much (a
    finger narrower than a square leaves much of the line), and a segment between two crossed
    ones (the gap between two fingers): they join a blob, never start one, and the blob is
    judged for glare as a whole (:func:`under_glare`). ``seen``: per side, the segments whose
    frame lies inside the photo (:func:`ring_in_photo`); no others are judged."""
    vertical, horizontal = lines
    rows, cols = vertical.shape[0], horizontal.shape[1]
    m = round(margin * cell_px)
    a0, a1 = max(0, m - round(RING_OUT * cell_px)), m - round(RING_IN * cell_px)
    inset = round(INSET * cell_px)
    cut = np.zeros((rows, cols), bool)
    touched = np.zeros((rows, cols), bool)
    for side, (strength, in_glare) in enumerate(zip(_side_strength(*lines), _side_strength(*glare_lines))):
        n = len(strength)
        kept = np.maximum(strength, in_glare)  # what is left of the line in the space that kept more
        # Side ``side`` of the view turned to the top: its segments then run left to right, in
        # the order _side_strength counts them.
        turned = np.rot90(lg, side)
        band = turned[a0:a1, m : m + n * cell_px].reshape(a1 - a0, n, cell_px, -1)[:, :, inset : cell_px - inset]
        colour = band.mean((0, 2))  # (n, channels)
        inside = np.ones(n, bool) if seen is None else seen[side]
        whole = (np.minimum(strength, in_glare) >= 2 * CROSS_LINE) & inside
        if whole.sum() < n // 2:
            continue  # too little of the side is whole to say what its frame looks like
        k = np.arange(n, dtype=np.float64)
        fit = np.polynomial.polynomial.polyfit(k[whole], colour[whole], 1)  # a light's slope along the side
        change = np.abs(colour - (fit[0][None, :] + k[:, None] * fit[1][None, :])).max(-1)
        cuts = (change > CROSS_BAND) & (kept < CROSS_LINE) & inside
        touches = (change > 2 * CROSS_BAND) & (kept < TOUCH_LINE) & inside
        # One whole segment between two crossed ones is the gap between two fingers.
        crossed = cuts | touches
        touches[1:-1] |= crossed[:-2] & crossed[2:]
        for j in np.flatnonzero(cuts):
            cut[_edge_square(side, j, rows, cols)] = True
        for j in np.flatnonzero(touches):
            touched[_edge_square(side, j, rows, cols)] = True
    return cut, touched


def _edge_square(side: int, j: int, rows: int, cols: int) -> tuple[int, int]:
    """The square beside segment ``j`` of side ``side`` of the grid's outer line, as
    :func:`_side_strength` counts them."""
    return ((0, j), (j, cols - 1), (rows - 1, cols - 1 - j), (rows - 1 - j, 0))[side]


def with_crossings(lost: np.ndarray, crossings: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """``lost`` raised to :data:`CORE` where something cuts the board's edge and to
    :data:`EDGE` where it touches it (:func:`edge_crossings`)."""
    cut, touched = crossings
    lost = np.where(touched, np.maximum(lost, EDGE), lost)
    return np.where(cut, np.maximum(lost, CORE), lost).astype(np.float32)


def covering_blobs(lost: np.ndarray) -> list[np.ndarray]:
    """Blobs of covered squares (rows x cols bool masks) from the share of lost borders: squares
    that lost most of their borders, joined to the squares around them that lost some, in
    blobs large enough (or reaching the grid's edge, as an arm does) to be something over the
    board."""
    core = (lost >= CORE).astype(np.uint8)
    # The rim: squares that lost some of their borders, joined to the core through others that
    # did (a hand's outline, a finger, a striped sleeve whose stripes happen to run along the grid).
    partial = (lost >= EDGE).astype(np.uint8)
    _, labels = cv2.connectedComponents(partial, connectivity=8)
    joined = np.unique(labels[core > 0])
    covered = (np.isin(labels, joined[joined > 0]) | (core > 0)).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(covered, connectivity=8)
    blobs = []
    for i in range(1, n):
        blob = labels == i
        size = int(stats[i, cv2.CC_STAT_AREA])
        at_edge = blob[0].any() or blob[-1].any() or blob[:, 0].any() or blob[:, -1].any()
        if int(core[blob].sum()) >= 1 and size >= (MIN_EDGE_BLOB if at_edge else MIN_BLOB):
            blobs.append(blob)
    return blobs


def occlusion_from_blobs(lost: np.ndarray, blobs: list[np.ndarray]) -> tuple[np.ndarray, bool]:
    """The blobs' squares as covered (at least 0.75), the squares one around them as possibly
    covered (:data:`RING`)."""
    occlusion = np.zeros(lost.shape, np.float32)
    if not blobs:
        return occlusion, False
    keep = np.logical_or.reduce(blobs).astype(np.uint8)
    ring = cv2.dilate(keep, np.ones((3, 3), np.uint8)) > 0
    occlusion[ring] = RING
    occlusion[keep > 0] = np.maximum(0.75, lost[keep > 0])
    return occlusion, True


def occlusion_from_lost(lost: np.ndarray) -> tuple[np.ndarray, bool]:
    """Covered squares from the share of lost borders (:func:`covering_blobs`), the squares at
    their rim and one square around them marked as possibly covered."""
    return occlusion_from_blobs(lost, covering_blobs(lost))


def under_glare(blob: np.ndarray, lost: np.ndarray, lost_in_glare: np.ndarray) -> bool:
    """A blob whose lines are gone in light but there once glare is taken out (in
    :func:`glare_view` it keeps less than :data:`GLARE_SHARE` of the loss) is a lamp's hot
    spot, not a hand: under a hand the lines are gone in both."""
    return float(lost_in_glare[blob].mean()) < GLARE_SHARE * float(lost[blob].mean())


HIST_BINS = 10  # per colour channel, for the hand's own colour model
REACH = 6  # squares beyond the covered blob where fingers are looked for (a finger ~4 long, beyond the palm)


def _smooth_hist(h: np.ndarray) -> np.ndarray:
    """A 3x3x3 box blur of a colour histogram: neighbouring bins share their counts, so a
    hand sampled on its palm is recognised in the slightly different shade of its fingers."""
    p = np.pad(h, 1)
    out = np.zeros_like(h)
    n = h.shape[0]
    for dz in range(3):
        for dy in range(3):
            for dx in range(3):
                out += p[dz : dz + n, dy : dy + n, dx : dx + n]
    return out


def hand_pixels(view: np.ndarray, occlusion: np.ndarray, lost: np.ndarray, cell_px: int = CELL_PX, margin: float = MARGIN) -> np.ndarray:
    """Pixels of the board view that look like the covering blob and are joined to it.

    The blob's own colours (sampled on its covered squares) against the board's (sampled on
    squares whose borders are all there, well away from the blob) give each colour a chance of
    being hand; pixels more likely hand than board, within a few squares of the blob and
    connected to it, are the hand's fingers and outline. The colours are learned in every frame,
    so no skin or sleeve colour is assumed."""
    m = round(margin * cell_px)
    core = (lost >= CORE) & (occlusion >= 0.75)
    if not core.any():
        return np.zeros(view.shape[:2], bool)
    up = lambda a: np.kron(a.astype(np.uint8), np.ones((cell_px, cell_px), np.uint8))
    pad = lambda a: np.pad(a, ((m, view.shape[0] - m - a.shape[0]), (m, view.shape[1] - m - a.shape[1])))
    core_px = pad(up(core))
    blob = (occlusion >= 0.75).astype(np.uint8)
    far = cv2.dilate(blob, np.ones((5, 5), np.uint8)) == 0
    board_px = pad(up(far & (lost == 0)))
    if board_px.sum() < 4 * cell_px * cell_px:
        return core_px > 0
    ranges = [0, 256, 0, 256, 0, 256]
    bins = [HIST_BINS] * 3
    h_hand = _smooth_hist(cv2.calcHist([view], [0, 1, 2], core_px, bins, ranges))
    h_board = _smooth_hist(cv2.calcHist([view], [0, 1, 2], board_px, bins, ranges))
    h_hand /= h_hand.sum()
    h_board /= h_board.sum()
    eps = 1e-4
    ratio = ((h_hand + eps) / (h_hand + h_board + 2 * eps)).astype(np.float32)
    idx = (view.astype(np.int32) * HIST_BINS) >> 8
    prob = ratio[idx[..., 0], idx[..., 1], idx[..., 2]]
    reach = cv2.dilate(core_px, np.ones((2 * REACH * cell_px + 1,) * 2, np.uint8))
    # A colour the board does not have at all (a sleeve beside the skin the model was learned
    # on) joined to the blob is taken as part of it too.
    novel = (h_board[idx[..., 0], idx[..., 1], idx[..., 2]] < 1e-4)
    cand = (((prob > 0.6) | novel) & (reach > 0)).astype(np.uint8) | core_px
    _, labels = cv2.connectedComponents(cand, connectivity=8)
    joined = np.unique(labels[core_px > 0])
    return np.isin(labels, joined[joined > 0])


def _grid_share(px: np.ndarray, rows: int, cols: int, cell_px: int = CELL_PX, margin: float = MARGIN) -> np.ndarray:
    """Per square, the share of its pixels set in a board-view mask."""
    m = round(margin * cell_px)
    return px[m : m + rows * cell_px, m : m + cols * cell_px].reshape(rows, cell_px, cols, cell_px).mean((1, 3))


def _with_rim(occlusion: np.ndarray) -> np.ndarray:
    """Every square beside one that is well covered is marked as possibly under the hand: the
    hand's outline and fingertips reach a little beyond what can be seen of them."""
    well = (occlusion >= 0.75).astype(np.uint8)
    rim = cv2.dilate(well, np.ones((3, 3), np.uint8)) > 0
    return np.maximum(occlusion, np.where(rim, RING, 0.0)).astype(np.float32)


def _analyse(
    view: np.ndarray, lg: np.ndarray, rows: int, cols: int, reference: tuple[np.ndarray, np.ndarray] | None = None,
    seen: list[np.ndarray] | None = None,
) -> tuple[np.ndarray, bool, dict]:
    vertical, horizontal = _line_evidence(lg, rows, cols)
    glare_lines = _line_evidence(glare_view(view), rows, cols)
    crossings = edge_crossings(lg, (vertical, horizontal), glare_lines, seen)
    lost = with_crossings(lost_borders(vertical, horizontal, reference), crossings)
    blobs = covering_blobs(lost)
    if blobs:
        # Each blob judged on this frame alone, in light and with glare taken out: a hot spot
        # that was there on the quiet board is in the reference too and would hide nothing.
        alone = lost if reference is None else with_crossings(lost_borders(vertical, horizontal), crossings)
        in_glare = with_crossings(lost_borders(*glare_lines), crossings)
        blobs = [b for b in blobs if not under_glare(b, alone, in_glare)]
    occlusion, present = occlusion_from_blobs(lost, blobs)
    if present:
        share = _grid_share(hand_pixels(view, occlusion, lost), rows, cols)
        # A square a tenth covered by the hand's pixels counts as under it.
        occlusion = np.maximum(occlusion, np.clip(share / (2 * COVERED_SHARE), 0, 1)).astype(np.float32)
        occlusion = _with_rim(occlusion)
    return occlusion, present, {"lost": lost, "vertical": vertical, "horizontal": horizontal}


def view_from_rectified(top_down: np.ndarray, cell_px: int, margin: float) -> np.ndarray | None:
    """The :func:`board_view` out of a board already seen from straight above (the reader's
    :func:`companion.vision.grid.rectify`, ``cell_px`` a square, ``margin`` squares around
    the grid), shrunk by area: the photo is then warped once a reading, not twice. None when
    that view's squares are no whole multiple of :data:`CELL_PX` or its margin is another."""
    factor = cell_px // CELL_PX
    if factor < 1 or cell_px % CELL_PX or margin != MARGIN:
        return None
    if top_down.ndim == 2:
        top_down = cv2.cvtColor(top_down, cv2.COLOR_GRAY2BGR)
    if factor == 1:
        return top_down
    h, w = top_down.shape[:2]
    return cv2.resize(top_down, (w // factor, h // factor), interpolation=cv2.INTER_AREA)


def detect_hands(image: np.ndarray, location: GridLocation, view: np.ndarray | None = None) -> Hands:
    """Hands over the board in one frame, from the board's lattice alone (no history).
    ``view``: the board at :data:`CELL_PX` a square when the caller has it
    (:func:`view_from_rectified`)."""
    t0 = time.perf_counter()
    view = board_view(image, location) if view is None else view
    occlusion, present, extra = _analyse(view, log_view(view), location.rows, location.cols,
                                         seen=ring_in_photo(location, image.shape))
    return Hands(occlusion, present, False, (time.perf_counter() - t0) * 1000.0, extra)


def _block_change(a: np.ndarray, b: np.ndarray, rows: int, cols: int, cell_px: int = CELL_PX, margin: float = MARGIN
                  ) -> tuple[np.ndarray, np.ndarray]:
    """How much each square, and each stretch of the ring just outside the grid, changed
    between two log views: the mean absolute change of 4x4-pixel blocks (sensor noise averages
    out inside a block, a moving edge does not), the largest over the channels, after the
    whole view's median change is taken off (exposure and light that change everywhere), and
    then the median block's change (the noise floor).

    Returns ``(squares, ring)``: rows x cols, and 4 x n for the sides top, right, bottom, left."""
    d = a - b
    d = d - np.median(d.reshape(-1, d.shape[-1]), axis=0)
    k = 4
    h, w = d.shape[:2]
    blocks = np.abs(d[: h - h % k, : w - w % k].reshape(h // k, k, w // k, k, -1).mean((1, 3))).max(-1)
    # What is left of sensor noise after the block average is a floor the whole view shares;
    # only change above it counts.
    blocks = blocks - float(np.median(blocks))
    per_px = cv2.resize(blocks, (w - w % k, h - h % k), interpolation=cv2.INTER_NEAREST)
    per_px = np.pad(per_px, ((0, h % k), (0, w % k)), mode="edge")
    squares = _grid_share(per_px, rows, cols, cell_px, margin)
    m = round(margin * cell_px)
    a0, a1 = max(0, m - round(RING_OUT * cell_px)), m - round(RING_IN * cell_px)
    ring = []
    for side, n in ((0, cols), (1, rows), (2, cols), (3, rows)):
        # Side k of the view turned to the top; its stretches then run left to right.
        img = np.rot90(per_px, side)
        ring.append(img[a0:a1, m : m + n * cell_px].reshape(a1 - a0, n, cell_px).mean((0, 2)))
    width = max(rows, cols)
    ring_all = np.concatenate(ring)
    # The ring is narrow and often the table's texture: its own median is its noise floor.
    floor = float(np.median(ring_all))
    return squares, np.stack([np.pad(r - floor, (0, width - len(r))) for r in ring])


class HandTracker:
    """Hands and motion over a stream of frames from one fixed camera.

    Besides what one frame shows (:func:`detect_hands`), the tracker compares each frame with
    the one before it (motion) and with the last quiet board, seen ``settle`` frames in a row
    with nothing over it and nothing moving. Against that reference a hand shows in three more
    ways: the board's lines it covers were there before (each segment judged against its own
    earlier strength), the ring just outside the grid changed where the arm crosses the board's
    edge, and the squares it covers changed. The first frame counts as moving: one frame cannot
    show that the board is still."""

    def __init__(self, location: GridLocation, *, settle: int = 2, adopt_after: int = ADOPT_AFTER) -> None:
        self.location = location
        self.settle = max(1, int(settle))
        self.adopt_after = max(self.settle, int(adopt_after))
        self._previous: np.ndarray | None = None
        self._reference: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # log view, vertical, horizontal
        self._quiet = 0  # frames in a row with nothing over the board and nothing moving
        self._still = 0  # frames in a row with no motion and the board's lines all there
        self._seen_for: tuple[int, ...] | None = None  # the frame shape _seen_sides is for
        self._seen_sides: list[np.ndarray] = []

    def reset(self) -> None:
        self._previous, self._reference, self._quiet, self._still = None, None, 0, 0

    def _seen(self, shape: tuple[int, ...]) -> list[np.ndarray]:
        """:func:`ring_in_photo` for frames of ``shape`` (the camera's: computed once)."""
        if self._seen_for != shape[:2]:
            self._seen_for, self._seen_sides = shape[:2], ring_in_photo(self.location, shape)
        return self._seen_sides

    def update(self, image: np.ndarray) -> Hands:
        t0 = time.perf_counter()
        rows, cols = self.location.rows, self.location.cols
        view = board_view(image, self.location)
        lg = log_view(view)
        ref = self._reference
        occlusion, present, extra = _analyse(view, lg, rows, cols, None if ref is None else (ref[1], ref[2]),
                                             self._seen(image.shape))
        lines_gone = present
        motion = True
        if self._previous is not None:
            moving, moving_ring = _block_change(lg, self._previous, rows, cols)
            motion = bool((moving > MOTION).any() or (moving_ring > RING_FACTOR * MOTION).any())
            extra["moving"] = moving
        if ref is not None:
            changed, changed_ring = _block_change(lg, ref[0], rows, cols)
            extra["changed"] = changed
            crossing = changed_ring > RING_FACTOR * CHANGE
            if crossing.any():
                present = True
            # The squares that changed and are joined to what covers the board (a blob of lost
            # lines, or the edge where the ring changed) are under it: fingers, a sleeve.
            seeds = occlusion >= OCCLUDED
            for side, n in ((0, cols), (1, rows), (2, cols), (3, rows)):
                for k in np.flatnonzero(crossing[side, :n]):
                    r, c = ((0, k), (k, cols - 1), (rows - 1, cols - 1 - k), (rows - 1 - k, 0))[side]
                    seeds[r, c] = True
            if seeds.any():
                grown = (changed > CHANGE) | seeds
                _, labels = cv2.connectedComponents(grown.astype(np.uint8), connectivity=8)
                joined = np.unique(labels[seeds])
                under = np.isin(labels, joined[joined > 0])
                ring = cv2.dilate(under.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
                occlusion = np.maximum(occlusion, np.where(under, 0.75, np.where(ring, RING, 0.0))).astype(np.float32)
        self._previous = lg
        self._quiet = self._quiet + 1 if not present and not motion else 0
        self._still = self._still + 1 if not lines_gone and not motion else 0
        # A quiet board becomes the reference. So does a board that only differs from it (no
        # line is gone) and has not moved for a long while: a shadow that settled at the edge,
        # an object put down beside the board. Without this the tracker would wait for ever.
        if self._quiet >= self.settle or self._still >= self.adopt_after:
            self._reference = (lg, extra["vertical"], extra["horizontal"])
        return Hands(occlusion, present, motion, (time.perf_counter() - t0) * 1000.0, extra)


def apply_occlusion(reading: BoardReading, occlusion: np.ndarray | Hands) -> BoardReading:
    """The reading with each square's confidence lowered by how covered it is: a square with
    occlusion ``o`` keeps at most ``1 - o``, and one counted as under the hand (``o`` >= 0.5) at
    most 0.49, falling to 0 for a fully covered square. Nothing else changes: the reader's
    guess stays, only the belief in it drops."""
    occ = occlusion.occlusion if isinstance(occlusion, Hands) else np.asarray(occlusion, np.float64)
    if occ.shape != (reading.rows, reading.cols):
        raise ValueError(f"occlusion {occ.shape} for a {reading.rows}x{reading.cols} reading")
    cells = []
    for cell in reading.cells:
        o = float(np.clip(occ[cell.row, cell.col], 0.0, 1.0))
        if o >= OCCLUDED:
            ceiling = CAP * (1.0 - o) / (1.0 - OCCLUDED)
        else:
            ceiling = 1.0 - o
        cells.append(replace(cell, confidence=min(cell.confidence, ceiling)) if cell.confidence > ceiling else cell)
    return replace(reading, cells=tuple(cells))
