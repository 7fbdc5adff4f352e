"""Stage 3 of reading the squares: each square's kind (empty, face up, face down) from its colour.

Takes :class:`~companion.vision.cells.evidence.Evidence`; gives (R, C, 4) log-likelihoods of
empty / face up / back / other (:func:`kind_scores`: each square's fit to its empty look, to the
nearest tile body and to a known back, against an outlier floor) and each square's kind
(:func:`_glare_kinds`: a square no kind fits is looked at again as under a lamp's glare,
:mod:`companion.vision.glare`). The corrections made in place: glare or a shade over a square's
own empty look that explains its colour raises the empty kind (:func:`_glare_explained`,
:func:`_shade_explained`); a blank taken on a premium square that shows its class's print is
empty (:func:`companion.vision.cells.premium_print._print_shown`)."""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.cells.evidence import _GLARE_OFF, _TILE_RADIUS, Evidence
from companion.vision.cells.geometry import Geometry
from companion.vision.cells.shapes import _inked
from companion.vision.colour import colour_distance, to_lab
from companion.vision.medians import median


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


# A square whose colour lies farther than this from its empty look (in spreads) fits it only
# loosely: a back of nearly the square's colour (a dark green back on a green square under a
# lamp's gradient) lies there, and so does an empty square the light found only roughly.
LOOSE_SPREADS = 2.0
# ... or where a held kind fits within this (log-likelihood) of the empty kind: a profile's back
# whose colour is near the square's.
LOOSE_MARGIN = 1.0


def loose_empty(scores: np.ndarray, lettered: np.ndarray) -> np.ndarray:
    """(R, C) squares without a letter-like glyph whose colour says "empty" only loosely: more
    than ``LOOSE_SPREADS`` spreads from the square's empty look, or a face's or back's colour
    fitting within ``LOOSE_MARGIN`` of it. Colour alone cannot tell a back of nearly the
    square's colour from the square itself; what the rules' belief (the kinds' softmax, where
    no back's colour is known only empty against the outlier) does not say, this does: the
    reader asks about such a square where the network sees some tile body too
    (:func:`companion.vision.plain_kinds.unsure_empty`)."""
    fit = scores[..., 0]
    return ~lettered & ((fit < -0.5 * LOOSE_SPREADS**2) | (scores[..., 1:3].max(-1) > fit - LOOSE_MARGIN))


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
    unnamed_backs = not any(np.isfinite(b).all() for b in ev.back_colours)
    return glare_kinds(scores, ev.stats.median / ev.light, candidates, white,
                       lambda a, b: colour_distance(to_lab(a), to_lab(b)), ev.glyph_at >= 0, unnamed_backs)


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
