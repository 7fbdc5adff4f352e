"""Stage 5 of reading the squares: the game tokens on the board.

Takes the evidence, the layout, each square's kind, the faces and the letters' turns; gives
:func:`find_tokens`: each square's token (a disc of a colour foreign to what should lie under it:
the class's empty picture, or the face's body and ink; on a face-up tile, a clear disc in the
tile's own top-left corner whatever its colour), how sure, and the fraction of each square that
nothing explains (neither print, ink nor token), which :mod:`.doubt` turns into doubt."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.core.board import Layout, Premium
from companion.vision.cells.evidence import _TILE_RADIUS, Evidence
from companion.vision.cells.faces import under_light
from companion.vision.cells.geometry import premium_classes
from companion.vision.cells.token_discs import (
    TOKEN_RADIUS,
    _DISC_RING,
    _FOREIGN,
    _TOKEN_FOREIGN,
    _TOKEN_SPOT,
    _best_disc,
    _decide_token,
    _off_blend,
    _token_near,
    _unlike,
    token_blobs,
    token_disc,
)
from companion.vision.cells.tokens_on_faces import _tokens_on_faces
from companion.vision.colour import _lab_bytes, colour_distance, to_lab
from companion.vision.medians import median


@dataclass
class _Board:
    """The board as the token search sees it, shared by its passes: the half board under the
    board's reference light in 8-bit Lab (``seen_lab``, ``p`` pixels a square, the grid ``o``
    pixels in), at every pixel the mean colour within a token's middle and within a ring about
    it and how unlike they are (``spot``), where faces overhang (``under_face``), each
    square's empty look and its two usual colours (Lab); and the rectified board at full
    resolution (``rect``, ``P`` pixels a square, ``scale`` times the half board), its exposure
    (``gain``) and a token's radius there (``radius_px``)."""

    ev: Evidence
    R: int
    C: int
    p: int
    P: int
    o: int
    scale: float
    rect: np.ndarray
    gain: float
    seen_lab: np.ndarray
    mean_in: np.ndarray
    ring: np.ndarray
    spot: np.ndarray
    under_face: np.ndarray
    look_lab: np.ndarray
    usual_light: np.ndarray
    usual_dark: np.ndarray
    radius_px: float

    def lab_of(self, crop: np.ndarray, light: np.ndarray | None = None, factor: np.ndarray | None = None) -> np.ndarray:
        # 8-bit Lab of the exposure- and light-normalised crop (or stack of crops, each with
        # its ``factor``): OpenCV converts bytes fast.
        f = self.gain / np.maximum(light, 1e-3) if factor is None else factor
        norm = np.clip(crop.astype(np.float32) * f, 0, 255).astype(np.uint8)
        return cv2.cvtColor(norm.reshape(-1, *norm.shape[-2:]), cv2.COLOR_BGR2LAB).reshape(norm.shape).astype(np.float32)


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
    ``ev.extra["token_rim"]`` (R, C): on each face-up tile read without one, how much its corner
    shows a ring of the face's own colour, a token of that colour perhaps
    (:func:`.token_discs.corner_rings`; -inf elsewhere): :func:`.token_discs.token_in_doubt`
    tells the squares to ask about.
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
    classes = premium_classes(layout)
    empty = kind_idx == 0
    d, pictured = _class_pictures(ev, seen, seen_lab, classes, empty, (R, C, p, o))
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
    board = _Board(ev, R, C, p, P, o, scale, rect, gain, seen_lab, mean_in, ring, spot, under_face, look_lab,
                   usual_light, usual_dark, radius_px)
    _tokens_on_empty(board, layout, empty, d, pictured, token, sure)

    # Each face's body and ink colours (the ink's: the darker half of the middle, or the
    # lighter for light ink), under the board's reference light.
    pol_all = np.array(ev.tile_polarity or [1])
    pol_sq = np.where(kind_idx == 1, pol_all[np.clip(ev.tile_set, 0, len(pol_all) - 1)], 1)
    light_half, dark_half = sq_light, sq_dark
    body_lab = np.where((pol_sq > 0)[..., None], light_half, dark_half)
    body_lab = np.where((kind_idx == 1)[..., None], body_lab, to_lab(ev.stats.median / ev.light))
    ink_lab = np.where((pol_sq > 0)[..., None], dark_half, light_half)
    _tokens_on_faces(board, kind_idx, faces, face_px, rotations, body_lab, ink_lab, token, sure)
    # Tiles read without a token whose corner may hold one of their own colour: the reader
    # asks about them (companion.vision.reader), whatever the square reader believes.
    rim = np.full((R, C), -np.inf, np.float32)
    for (r, c), v in ev.extra.get("corner_rims", {}).items():
        if not token[r, c]:
            rim[r, c] = v
    ev.extra["token_rim"] = rim
    odd = _unexplained(board, foreign, token, empty, faces, face_px, body_lab, ink_lab)
    return token, sure, odd


def _class_pictures(
    ev: Evidence, seen: np.ndarray, seen_lab: np.ndarray, classes: np.ndarray, empty: np.ndarray,
    size: tuple[int, int, int, int],
) -> tuple[np.ndarray, np.ndarray]:
    """How unlike its premium class's typical picture each pixel of the grid is (Lab distance
    less what the class's own squares allow; 0 off the empty squares), and (R, C) the squares
    whose class's picture is known from enough of its squares. ``size``: (R, C, p, o)."""
    R, C, p, o = size
    # Empty squares against their class's typical picture: what nothing explains (a hand).
    grid = seen[o : o + R * p, o : o + C * p].reshape(R, p, C, p, 3)
    # Its 8-bit Lab, as to_lab would give it for the whole picture: each class's picture
    # converted once, not once per square. What is allowed and expected is laid out as the
    # picture is (rows of pixels; a square's block is a transposed view of it): operations on
    # the blocks' own layout are strided, several times slower.
    expect_lab = np.empty((R, p, C, p, 3), np.float32)
    tolerance = np.zeros((R, p, C, p), np.float32)
    expect_blocks, tolerance_blocks = expect_lab.transpose(0, 2, 1, 3, 4), tolerance.transpose(0, 2, 1, 3)
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
    return d, pictured


def _tokens_on_empty(
    board: _Board, layout: Layout, empty: np.ndarray, d: np.ndarray, pictured: np.ndarray, token: np.ndarray,
    sure: np.ndarray,
) -> None:
    """Tokens on the empty squares, into ``token`` and ``sure`` (in place). ``d``, ``pictured``:
    :func:`_class_pictures`."""
    ev, R, C, p, P, o, scale, rect = board.ev, board.R, board.C, board.p, board.P, board.o, board.scale, board.rect
    mean_in, ring, spot, under_face, look_lab = board.mean_in, board.ring, board.spot, board.under_face, board.look_lab
    usual_light, usual_dark, radius_px, lab_of = board.usual_light, board.usual_dark, board.radius_px, board.lab_of
    # Empty squares: a token lies on the square, its middle off the square's edges (where
    # seams, teeth and the neighbours' edges show). The centre square is left alone when
    # empty: its star is a disc of print there.
    lo, hi = int(round(0.2 * p)), int(round(0.8 * p))
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


def _unexplained(
    board: _Board, foreign: np.ndarray, token: np.ndarray, empty: np.ndarray, faces: dict[tuple[int, int], np.ndarray],
    face_px: float, body_lab: np.ndarray, ink_lab: np.ndarray,
) -> np.ndarray:
    """(R, C) the fraction of each square that nothing explains: on an empty square what is
    ``foreign`` to its class's picture, on a face neither its body nor its ink; a token's disc
    explains its own area."""
    R, C, p, scale, seen_lab = board.R, board.C, board.p, board.scale, board.seen_lab
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
    return odd
