"""Stage 5 of reading the squares, its tests: what a token's disc looks like.

Takes masks and Lab pictures of a square or a face's corner; gives round blobs of a token's size
in a mask of foreign pixels (:func:`token_blobs`), how much a pixel stands out as a disc's middle
ringed on every side by something unlike it (:func:`token_disc`, :func:`corner_discs` for a
face's top-left corner), how unlike a colour is to what should lie under it (:func:`_unlike`,
:func:`_off_blend`), and whether a patch is a token (:func:`_decide_token`)."""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import cv2
import numpy as np

from companion.vision.colour import colour_distance


# The companion's tokens are small discs; on a face-up tile one lies in the tile's own top-left
# quarter (the letter upright), where nothing is printed: the companion tells players to put it
# there. On an empty square or a back it may lie anywhere.
TOKEN_RADIUS = 0.10  # squares
TOKEN_INSET = 0.03  # squares between such a token and the face's edges (as the companion tells players)
_TOKEN_FOREIGN = 20.0  # Lab distance from what should lie there that a token's pixels exceed
_TOKEN_SPOT = 16.0  # Lab distance of a spot's mean from its ring's that may be a token
_FOREIGN = 38.0  # Lab distance from what should be there that leaves a pixel unexplained
# A shadow keeps more than this fraction of the lightness it falls on; a pixel darker still is a
# dark thing (a black token seen by a camera that lifts its blacks keeps about 0.4).
_SHADE = 0.6


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
    core = _disc_core(lab, radius_px)
    return (core, *_disc_around(lab, core, radius_px))


def _disc_core(lab: np.ndarray, radius_px: float) -> np.ndarray:
    """:func:`_disc_middle`'s middle colours alone (what tells where a disc may lie)."""
    k = max(3, int(round(1.1 * radius_px)) | 1)
    if lab.ndim == 4:
        # A stack of pictures, each blurred by itself (its own edges).
        return np.stack([cv2.blur(x, (k, k)) for x in lab])
    return cv2.blur(lab, (k, k))


def _disc_around(lab: np.ndarray, core: np.ndarray, radius_px: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_disc_middle`'s spread and lightly smoothed picture, given its middle colours."""
    k = max(3, int(round(1.1 * radius_px)) | 1)
    if lab.ndim == 4:
        # A stack of pictures, each blurred by itself (its own edges); the rest at once.
        var = np.stack([cv2.blur(x, (k, k)) for x in lab * lab]) - core * core
        around = np.stack([cv2.blur(x, (3, 3)) for x in lab])
    else:
        var = cv2.blur(lab * lab, (k, k)) - core * core
        around = cv2.blur(lab, (3, 3))
    spread = np.sqrt(np.maximum(0.25 * var[..., 0] + var[..., 1] + var[..., 2], 0.0))
    return spread, around


def token_disc(lab: np.ndarray, radius_px: float) -> tuple[np.ndarray, np.ndarray]:
    """For every pixel of a Lab picture taken as a token's middle: the middle's colour (the
    mean of a box about the token's body across) and how much it stands out as a disc: its
    distance to the least unlike of eight sides of a ring around it, less the middle's own
    spread."""
    core, spread, around = _disc_middle(lab, radius_px)
    return core, disc_score(core, spread, around, radius_px)


def disc_score(core: np.ndarray, spread: np.ndarray, around: np.ndarray, radius_px: float) -> np.ndarray:
    """:func:`token_disc`'s score, from what :func:`_disc_middle` gives of the picture."""
    pad = int(np.ceil(_DISC_RING * radius_px)) + 1
    big = cv2.copyMakeBorder(around, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    h, w = core.shape[:2]
    # (The eight sides stacked and measured at once: a small picture's distances cost mostly
    # numpy's overhead per call. The least of them is the same whatever the order.)
    sides = []
    for ux, uy in _DISC_SIDES:
        dx, dy = int(round(_DISC_RING * radius_px * ux)), int(round(_DISC_RING * radius_px * uy))
        sides.append(big[pad + dy : pad + dy + h, pad + dx : pad + dx + w])
    least = colour_distance(core[None], np.stack(sides)).min(axis=0)
    return least - spread


_INWARD = ((1.0, 0.0), (float(np.sqrt(0.5)), float(np.sqrt(0.5))), (0.0, 1.0))  # a corner's inward sides, upright


def corner_discs(
    labs: np.ndarray, at: np.ndarray, radius_px: float, turns: Sequence[int], reach: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """How much a face's corner shows a token's disc, for a stack of Lab crops (n, h, w, 3):
    a solid middle unlike the face on every side of it that lies on the face (toward the
    face's middle; the sides toward its edges see past it, the gap and the board). ``at``
    (n, 2): where a token's middle lies in each crop (the tile's own top-left corner, turned
    ``turns`` degrees clockwise), searched ``reach`` pixels about. Returns x, y, score (n,)
    and the middle's colour (n, 3) at each crop's best place, and the crops lightly smoothed
    (:func:`corner_rings` looks at them too). (All crops at once: crops whose search and sides
    fall alike share each operation.)"""
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
    return out_x, out_y, out_score, colour, around


# A token of its face's own colour (a black one on a black tile, a red one on a red tile) shows
# no disc of another colour: only its rim, a thin ring darker or lighter than both its middle
# and the face around it, all the way round (a pixel or less across: it tells doubt, not a token). A printed mark in a face's corner is not a ring
# (the corner is left bare), the face's rounded corner is one on its outward side only, and a
# stroke crosses a ring's rays in two places, not in all of them.
_RING_RAYS = tuple((float(np.cos(a)), float(np.sin(a))) for a in np.arange(8) * np.pi / 4)
# Token radii where a token's rim is looked for along each ray, sampled between pixels: the rim
# is a pixel or less across, and a sample rounded to the nearest pixel misses it on the
# diagonal rays (a black token's light rim on a black tile scored 2.3 so, 7.3 sampled finely).
_RING_RADII = (0.6, 0.7, 0.8, 0.9, 1.0, 1.1)
_RING_OUT = 1.5  # token radii from its middle to the face beyond the rim (inward rays only)
# The least rim (colour_distance from both sides on every ray, less its unevenness) that leaves a
# square in doubt by itself. Measured without a profile (docs/vision-tokens.md): on the
# development strangers (seeds 52000-52079) 9 of the 21 tokens on face-up tiles read bare reach
# it and none of 3,015 bare tiles (the most 3.8); on the 80 labelled real photos none of 3,323
# tiles (the most 1.6), on the detector project's wooden tiles none of 3,331 (the most 4.3).
_RING_DOUBT = 4.5
# A fainter ring is doubt where the learned network believes in a token there too: two weak
# witnesses that fail apart (the network believes in tokens on wooden tiles' grain and on real
# photos' glints; a faint ring is a bare corner's texture as often as a token's rim) and agree
# on tokens of the face's own colour. On the same tiles, with the network giving a token one
# chance in four or more: of the bare development tiles none has both, of the 21 tokens 13; no
# tile of the real photos, 3 of the detector project's (as many as at one chance in two).
_RING_BELIEVED = 1.0
_TOKEN_BELIEVED = 0.25  # the network's probability of a token that counts as believing in one


def token_in_doubt(rim: np.ndarray, p_token: np.ndarray | None) -> np.ndarray:
    """The squares read without a token that may hold one of their face's colour: their corner's
    ring (``rim``, as ``ev.extra["token_rim"]`` holds it, -inf where none was looked for)
    clear enough alone, or fainter where the network's probability of a token (``p_token``,
    same shape; None where the network did not run) believes in one too."""
    doubt = rim > _RING_DOUBT
    if p_token is not None:
        doubt |= (rim > _RING_BELIEVED) & (p_token >= _TOKEN_BELIEVED)
    return doubt


def corner_rings(labs: np.ndarray, at: np.ndarray, radius_px: float, turns: Sequence[int], reach: int,
                 body: np.ndarray, around: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How much a face's corner shows a token's rim, for a stack of Lab crops (n, h, w, 3): at
    each candidate middle (``reach`` pixels about ``at``, (n, 2)), the least over eight rays of
    the rim's contrast, the rim being the sample along the ray (at :data:`_RING_RADII`) most
    unlike the middle and, on the rays toward the face's middle (``turns`` as
    :func:`corner_discs`), unlike the face past it too; less how much the rays' rims differ
    from their mean. A token of another colour than the face
    is :func:`corner_discs`' to find: here the middle and the face past the rim are of the
    face's own colour (``body``, Lab (n, 3)): a middle in the gap beside the face, ringed by
    faces' edges, is none. ``around``: the crops lightly smoothed, as :func:`corner_discs`
    gives them (made here when not given). Returns x, y and that score (n,) at each crop's
    best middle."""
    n = labs.shape[0]
    if around is None:
        around = np.stack([cv2.blur(x, (3, 3)) for x in labs])
    span = np.arange(-reach, reach + 1)
    size = len(span)
    # Each crop's window about its candidates, as far out as a sample goes (past the crop's edge
    # its edge pixels): every sample of every candidate is then one slice of the stack, the same
    # for all crops.
    m = int(np.ceil(max(max(_RING_RADII), _RING_OUT) * radius_px)) + 2
    pad = m + reach
    cy = np.clip(np.rint(at[:, 1]).astype(int), 0, labs.shape[1] - 1)
    cx = np.clip(np.rint(at[:, 0]).astype(int), 0, labs.shape[2] - 1)
    # (Gathered through clipped indices: the same pixels as slices of the crops padded by
    # their edges, without padding the whole stack.)
    offs = np.arange(size + 2 * m) - pad
    win_y = np.clip(cy[:, None] + offs, 0, labs.shape[1] - 1)[:, :, None]
    win_x = np.clip(cx[:, None] + offs, 0, labs.shape[2] - 1)[:, None, :]
    which = np.arange(n)[:, None, None]
    # Channel by channel (each plane contiguous: numpy's operations on a last axis of three
    # are slow), with the same operations in the same order as colour_distance's.
    lab_w = np.moveaxis(labs[which, win_y, win_x], -1, 0).copy()
    around_w = np.moveaxis(around[which, win_y, win_x], -1, 0).copy()

    def shifted(win: np.ndarray, oy: int, ox: int) -> np.ndarray:
        return win[..., m + oy : m + oy + size, m + ox : m + ox + size]

    def blend(a: np.ndarray, b: np.ndarray, f: np.float32) -> np.ndarray:
        # (1 - f) a + f b; at f of 0 or 1 exactly that is a or b to the bit (the other term
        # adds a zero), and the product and sum are skipped.
        if f == 0:
            return a
        if f == 1:
            return b
        return (1 - f) * a + f * b

    def between(oy: float, ox: float) -> np.ndarray:
        # The sample at a fractional offset, interpolated between the four pixels about it.
        y0, x0 = int(np.floor(oy)), int(np.floor(ox))
        fy, fx = np.float32(oy - y0), np.float32(ox - x0)
        top = blend(shifted(lab_w, y0, x0), shifted(lab_w, y0, x0 + 1), fx) if fy != 1 else None
        bottom = blend(shifted(lab_w, y0 + 1, x0), shifted(lab_w, y0 + 1, x0 + 1), fx) if fy != 0 else None
        return blend(top, bottom, fy)  # type: ignore[arg-type]

    def distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        # colour_distance of channel-first colours (3, ...).
        d = a - b
        np.multiply(d, d, out=d)
        out = d[0] * np.float32(0.25)
        out += d[1]
        out += d[2]
        return np.sqrt(out, out=out)

    middle = shifted(around_w, 0, 0)
    # The corner's inward diagonal, upright (1, 1), carried round by each clockwise quarter turn.
    inward = np.tile(np.array([1.0, 1.0]), (n, 1))
    for i, t in enumerate(turns):
        for _ in range((int(t) // 90) % 4):
            inward[i] = (-inward[i, 1], inward[i, 0])
    face = body.astype(np.float32).T[:, :, None, None]
    least = np.where(distance(middle, face) <= _TOKEN_FOREIGN, np.inf, 0.0).astype(np.float32)
    rims = []
    for ux, uy in _RING_RAYS:
        rim = np.zeros(middle.shape[1:], np.float32)
        colour = np.zeros(middle.shape, np.float32)
        beyond = shifted(around_w, int(round(_RING_OUT * radius_px * uy)), int(round(_RING_OUT * radius_px * ux)))
        on_face = inward @ np.array([ux, uy]) >= 0
        if on_face.any():
            least = np.where(on_face[:, None, None] & (distance(beyond, face) > _TOKEN_FOREIGN), 0.0, least)
        # (The face past the rim is measured on the crops whose ray runs onto the face only:
        # each pixel's distance is its own, whichever crops are taken.)
        inner = np.flatnonzero(on_face)
        every = len(inner) == n
        for f in _RING_RADII:
            sample = between(f * radius_px * uy, f * radius_px * ux)
            contrast = distance(sample, middle)
            if every:
                np.minimum(contrast, distance(sample, beyond), out=contrast)
            elif len(inner):
                contrast[inner] = np.minimum(contrast[inner], distance(sample[:, inner], beyond[:, inner]))
            better = contrast > rim
            np.copyto(rim, contrast, where=better)
            for ch in range(3):
                np.copyto(colour[ch], sample[ch], where=better)
        np.minimum(least, rim, out=least)
        rims.append(colour)
    # A rim is one colour all round: a texture's grain or a glint is unlike the middle on
    # every ray too, but in another colour on each. (The mean: the median, which forgives a
    # token's own highlight on a ray or two, forgives wood grain as much.)
    usual = np.mean(rims, axis=0)
    least -= np.mean([distance(c, usual) for c in rims], axis=0)
    flat = least.reshape(n, -1)
    best = np.argmax(flat, axis=1)
    y, x = np.divmod(best, size)
    return (cx + span[x]).astype(float), (cy + span[y]).astype(float), flat[np.arange(n), best]


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
    colour): the colour distance, except for a pixel only darker than it, by less than 40 %
    (a shadow, which tiles cast beside themselves under a lamp at the side, darkens and
    greys a colour; it keeps more than :data:`_SHADE` of the lightness): its hue's distance alone. A token is another colour, or far darker."""
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
    shade = (d0 <= 0) & (light >= _SHADE * (light - d0))
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
    r = x - (a + t[..., None] * d)
    # (The norm channel by channel, summed in np.linalg.norm's order: the same values, in a
    # seventh of its time on the last axis of three.)
    s = r[..., 0] * r[..., 0]
    s += r[..., 1] * r[..., 1]
    s += r[..., 2] * r[..., 2]
    return np.sqrt(s)


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
