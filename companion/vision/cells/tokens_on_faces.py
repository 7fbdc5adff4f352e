"""Stage 5 of reading the squares, on the tiles and backs: a token on a face.

Takes the board as the token search sees it (:class:`companion.vision.cells.tokens._Board`), each
square's kind, the faces found and the letters' turns; marks in place each tile or back a token
lies on, and how sure: a spot unlike the face's body (and, on a face-up tile, its ink) in the
tile's own top-left quarter (anywhere on a back) that is a round blob of a token's size or a
disc at full resolution (:func:`_tokens_on_faces`), or a clear disc in the top-left corner,
where a face prints nothing, whatever its colour (:func:`_corner_tokens`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from companion.vision.cells.faces import _face_fit
from companion.vision.cells.token_discs import (
    TOKEN_INSET,
    TOKEN_RADIUS,
    _CORNER_REACH,
    _DISC_CONTRAST,
    _DISC_RING,
    _TOKEN_FOREIGN,
    _TOKEN_SPOT,
    _best_disc,
    _decide_token,
    _disc_around,
    _disc_core,
    _face_outline,
    _off_blend,
    _top_left_quarter,
    _unlike,
    corner_discs,
    corner_rings,
    disc_score,
    token_blobs,
)
from companion.vision.colour import colour_distance
from companion.vision.face import face_crop

if TYPE_CHECKING:
    from companion.vision.cells.tokens import _Board

# A square and its four sides' neighbours, as row and column steps in a picture padded by one.
_SELF_AND_SIDES = (np.array([1, 0, 2, 1, 1]), np.array([1, 1, 1, 0, 2]))


def _tokens_on_faces(
    board: _Board, kind_idx: np.ndarray, faces: dict[tuple[int, int], np.ndarray], face_px: float,
    rotations: dict[tuple[int, int], int | None], body_lab: np.ndarray, ink_lab: np.ndarray, token: np.ndarray,
    sure: np.ndarray,
) -> None:
    """Tokens on the tiles and backs, into ``token`` and ``sure`` (in place): on the face found for
    each, against its body (``body_lab``) and ink (``ink_lab``), Lab per square. Into
    ``board.ev.extra["corner_rims"]``: how much each face-up tile's corner shows the rim of a
    token of the face's own colour (:func:`corner_rings`)."""
    ev, P, scale, spot, mean_in, ring = board.ev, board.P, board.scale, board.spot, board.mean_in, board.ring
    usual_light, usual_dark, radius_px = board.usual_light, board.usual_dark, board.radius_px
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
    corner_of = _corner_tokens(board, faces, boxes, kind_idx, rotations, face_px, body_lab)

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
        # Is there a disc (as :func:`token_disc` tells)? Its middle first.
        # (The face's crop in Lab, as lab_of gives it: the fit above took it.)
        core = _disc_core(face_lab[0], radius_px)
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
        ok = np.zeros(core.shape[:2], bool)
        ok[y0 : y0 + side, x0 : x0 + side] = on
        ok &= colour_distance(core, body_lab[r, c]) > _TOKEN_FOREIGN
        if not ok.any():
            # No middle of a foreign colour where a token may lie: no disc, so no token
            # whatever the blobs (:func:`_decide_token` wants a disc either way).
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
        edge = 0.08 * P
        found = [f for f in found if edge <= f[0] <= side - 1 - edge and edge <= f[1] <= side - 1 - edge]
        # A disc alone, without a patch of foreign colour that is round, must not be the
        # ink's colour either, nor a blend of body and ink: a letter's stroke ends and
        # corners are solid and rounded too, and blur mixes them at a narrow apex.
        where = ok if found or k != 1 else ok & (_off_blend(core, usual_light[r, c], usual_dark[r, c]) > _TOKEN_FOREIGN)
        if where.any():  # (else no disc, and no token: the ring is looked at only where one may be)
            spread, around = _disc_around(face_lab[0], core, radius_px)
            _decide_token(token, sure, (r, c), found, _best_disc(disc_score(core, spread, around, radius_px), where))


def _corner_at(t: int, x0: float, y0: float, side: float, corner_off: float) -> tuple[float, float]:
    """The tile's own top-left corner of a face at (x0, y0) ``side`` across, turned t (a token's
    middle ``corner_off`` in from the face's edges)."""
    ux, uy = -1.0, -1.0
    for _ in range((t // 90) % 4):
        ux, uy = -uy, ux
    mid = (side - 1) / 2.0
    return x0 + mid + ux * (mid - corner_off), y0 + mid + uy * (mid - corner_off)


def _corner_tokens(
    board: _Board, faces: dict[tuple[int, int], np.ndarray], boxes: dict[tuple[int, int], int], kind_idx: np.ndarray,
    rotations: dict[tuple[int, int], int | None], face_px: float, body_lab: np.ndarray,
) -> dict[tuple[int, int], tuple[float, float, float]]:
    """Each face-up tile with a token in its own top-left corner: where its middle lies in the
    rectified board (x, y) and how clearly it is a disc (its score). Into
    ``ev.extra["corner_rims"]``: each tile's corner's ring of the face's own colour, its score
    (:func:`corner_rings`; the most over the turns tried)."""
    ev, R, C, P, rect, gain = board.ev, board.R, board.C, board.P, board.rect, board.gain
    look_lab, radius_px, lab_of = board.look_lab, board.radius_px, board.lab_of
    corner_off = (TOKEN_INSET + TOKEN_RADIUS) * P  # a token's middle from a face's edges
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
            ax, ay = _corner_at(t, centre[0] - (face_px - 1) / 2.0, centre[1] - (face_px - 1) / 2.0, face_px, corner_off)
            ox, oy = int(round(ax - span_c / 2.0)), int(round(ay - span_c / 2.0))
            crops.append(face_crop(rect, (ox + span_c / 2.0, oy + span_c / 2.0), span_c))
            ats.append((ax - ox, ay - oy))
            turns.append(t)
            cands.append(((r, c), ox, oy))
    if not cands:
        return {}
    rr, cc = np.array([rc for rc, _, _ in cands]).T
    labs = lab_of(np.stack(crops), factor=(gain / np.maximum(ev.light[rr, cc], 1e-3))[:, None, None, :])
    xs_, ys_, scores, colours, around = corner_discs(labs, np.array(ats), radius_px, turns, _CORNER_REACH)
    # Unlike the face's body, nor the board seen past the face's rounded corner (the
    # square's own look, or a neighbour's premium printed across the edge), ringed by the
    # face as well. (Every candidate's six colours at once: none past the board's edge.)
    look_pad = np.full((R + 2, C + 2, 3), np.nan, np.float32)
    look_pad[1:-1, 1:-1] = look_lab
    others = np.concatenate((body_lab[rr, cc][:, None].astype(np.float32),
                             look_pad[rr[:, None] + _SELF_AND_SIDES[0], cc[:, None] + _SELF_AND_SIDES[1]]), axis=1)
    away = np.nan_to_num(colour_distance(colours[:, None, :], others), nan=np.inf).min(axis=1)
    # A token of the face's own colour (a black one on a black tile) shows no disc of another
    # colour, only its thin rim: a ring unlike the face on both sides. Too faint to read a
    # token by (bare corners' texture and edges reach as far), it is doubt: the square is asked
    # about, never read surely bare (:func:`.token_discs.token_in_doubt`, docs/vision-tokens.md).
    _rx, _ry, rims = corner_rings(labs, np.array(ats), radius_px, turns, _CORNER_REACH, body_lab[rr, cc], around)
    found: dict[tuple[int, int], tuple[float, float, float]] = {}
    for i, (rc, ox, oy) in enumerate(cands):
        # (The first turn that shows one, as the turns are tried in order.)
        if rc not in found and float(scores[i]) > _DISC_CONTRAST and float(away[i]) > _TOKEN_FOREIGN:
            found[rc] = (float(xs_[i]) + ox, float(ys_[i]) + oy, float(scores[i]))
    rim_of: dict[tuple[int, int], float] = {}
    for i, (rc, _ox, _oy) in enumerate(cands):
        rim_of[rc] = max(rim_of.get(rc, -np.inf), float(rims[i]))
    ev.extra["corner_rims"] = rim_of
    return found
