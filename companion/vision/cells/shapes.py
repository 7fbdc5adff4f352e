"""Stage 3 of reading the squares, where colour alone leaves a face without ink and an empty
square close: a tile's own shape weighs in.

Takes the evidence and the kind scores; gives (R, C) log-likelihoods of a tile against an empty
square, added to the face-up kind: its outline (:func:`_outline_evidence`, the rounded corners
of a face-sized box, :mod:`companion.vision.outline`) and its rim (:func:`_rim_evidence`, across
each side with an empty neighbour: the bevel, the slab's wall and its shadow,
:mod:`companion.vision.rims`), each against this photo's lettered faces and its class's empty
squares."""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.cells.evidence import Evidence
from companion.vision.cells.geometry import Geometry
from companion.vision.letters import softmax


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
    from companion.vision.outline import outline_llr

    R, C = ev.d_empty.shape
    out = np.zeros((R, C), np.float32)
    inner = np.zeros((R, C), bool)
    inner[1:-1, 1:-1] = True
    # Face up against empty only: a back's ribs and its colour's own contrast are unlike the
    # lettered faces the outline is measured against (and a back is told from a face by colour).
    ask = _outline_asked(ev, scores)
    if not ask.any():
        return out
    probs = softmax(scores)
    classes = _shape_classes(ev)[0]
    # Empty squares are compared by print and by place: inner, or on the edge.
    classes = 2 * classes + ~inner
    empty_ref = (ev.glyph_at < 0) & (probs[..., 0] > 0.9) & ~ask
    tile_ref = inner & ev.glyph_ok & (probs[..., 1] > 0.8)
    if tile_ref.sum() < _LEAST_REFS or (empty_ref & inner).sum() < _LEAST_REFS:
        return out

    # Faces of the set the square would be (a pale face's outline shows less contrast than
    # a dark one's on the same board), or of any set when that one has too few letters.
    sets = ev.tile_set
    tiles = {}
    for j in np.unique(sets[ask]):
        mine = tile_ref & (sets == j)
        tiles[int(j)] = _spread_refs(mine if mine.sum() >= _LEAST_REFS else tile_ref)
    empties, ask = _empty_refs(empty_ref, classes, ask)
    if not ask.any():
        return out
    asked = np.argwhere(ask)
    tiles = {j: t for j, t in tiles.items() if j in set(sets[ask].tolist())}
    grey = cv2.cvtColor(ev.extra["rectified"], cv2.COLOR_BGR2GRAY)
    p = geo.cell_px
    o = int(round(geo.origin))
    feats = _outline_at(grey, geo, np.concatenate([asked, *tiles.values(), *empties.values()]))
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


def _spread_refs(mask: np.ndarray) -> np.ndarray:
    """Up to ``_OUTLINE_REFS`` squares of ``mask``, evenly over the board."""
    at = np.argwhere(mask)
    return at[np.linspace(0, len(at) - 1, min(len(at), _OUTLINE_REFS)).round().astype(int)]


def _empty_refs(empty_ref: np.ndarray, classes: np.ndarray, ask: np.ndarray
                ) -> tuple[dict[int, np.ndarray], np.ndarray]:
    """The empty squares (``empty_ref``) each asked square's class (``classes``) is compared
    with, by class (:func:`_spread_refs`); and ``ask`` less the squares of a class with too few
    (a premium under tiles): a print's own edges and lines are unlike another's, so nothing
    to compare with."""
    refs = {}
    for k in np.unique(classes[ask]):
        mine = empty_ref & (classes == k)
        if mine.sum() >= _LEAST_REFS:
            refs[int(k)] = _spread_refs(mine)
        else:
            ask = ask & (classes != k)
    return refs, ask


def _outline_at(grey: np.ndarray, geo: Geometry, squares: np.ndarray) -> np.ndarray:
    """(N, 2) :func:`companion.vision.outline.outline_features` of ``squares`` ((N, 2) rows and
    columns) on the rectified board's grey picture, each relative to its own middle's level."""
    from companion.vision.outline import edge_maps, outline_features

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
    crops = [grey[y0 + int(y) - q : y0 + int(y) + q, x0 + int(x) - q : x0 + int(x) + q] for x, y in zip(cx, cy)]
    if all(c.shape == (2 * q, 2 * q) for c in crops):
        # (Every middle's median at once: the same values, a whole number or a half of one.)
        level = np.median(np.stack(crops).reshape(len(crops), -1), axis=1).astype(np.float32)
    else:
        level = np.array([np.median(c) for c in crops], np.float32)
    return outline_features(gx, gy, level, cx.astype(np.float32), cy.astype(np.float32), p, 0.94 * p)


_OUTLINED_Z = 4.0  # robust spreads above its print's empty squares at which a square's outline is a tile's
_OUTLINED_SPREAD = 0.1  # log units: a spread of the empty squares' outlines never taken as narrower


def _outlined(ev: Evidence, geo: Geometry, scores: np.ndarray, ask: np.ndarray) -> np.ndarray:
    """(R, C) squares of ``ask`` whose outline (:mod:`companion.vision.outline`: the rounded
    corners of a face-sized box, both its corners' mean and its second weakest) stands out
    from this photo's empty squares of the same print and place (inner, or on the edge), by
    at least ``_OUTLINED_Z`` of their own robust spread: a tile's body, whatever its colour.

    Unlike :func:`_outline_evidence` this weighs no lettered face: a back of nearly its
    square's colour shows its corners by its bevel and its shadow only, far less than a face
    of another colour than the board, and its ribs are unlike a face's; but it shows them
    where an empty square shows straight grid lines running through its corners. So the
    square is compared with empty squares alone, one-sided. A neighbour's shadow or overhang
    reaches a corner or two, rarely all: the second weakest corner must stand out too, by
    half as much (a token, a neighbour's overhang may hide one)."""
    out = np.zeros(ask.shape, bool)
    if not ask.any():
        return out
    inner = np.zeros(ask.shape, bool)
    inner[1:-1, 1:-1] = True
    classes = 2 * _shape_classes(ev)[0] + ~inner
    empty_ref = (ev.glyph_at < 0) & (softmax(scores)[..., 0] > 0.9) & ~ask
    refs, ask = _empty_refs(empty_ref, classes, ask)
    if not refs or not ask.any():
        return out
    asked = np.argwhere(ask)
    grey = cv2.cvtColor(ev.extra["rectified"], cv2.COLOR_BGR2GRAY)
    feats = _outline_at(grey, geo, np.concatenate([asked, *refs.values()]))
    start, ref_feats = len(asked), {}
    for k, at in refs.items():
        ref_feats[k] = feats[start : start + len(at)]
        start += len(at)
    for n, (r, c) in enumerate(asked):
        e = ref_feats[int(classes[r, c])]
        mid = np.median(e, axis=0)
        spread = np.maximum(1.4826 * np.median(np.abs(e - mid), axis=0), _OUTLINED_SPREAD)
        z = (feats[n] - mid) / spread
        out[r, c] = bool(z[0] >= _OUTLINED_Z and z[1] >= _OUTLINED_Z / 2)
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
    probs = softmax(scores)
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
