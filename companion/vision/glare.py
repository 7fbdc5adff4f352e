"""A lamp's glare: squares that no kind explains, looked at again as under a specular spot.

A lamp reflected by the board's varnish (or a tile's) adds its own, nearly white light to
whatever lies below: the colour seen is the thing's colour mixed towards white, by a fraction
that is the same for every channel (a screen blend). :mod:`companion.vision.cells` divides out
the light as a gain per square (a lamp's spot, a shadow); a sharp specular spot is neither,
and a green square under one looks pale, nearer an ivory tile's body than its own look. Such a
square fits no kind (the outlier wins), and the reader would otherwise take the least bad fit.

Here each kind's colour is fitted to what is seen with the best white fraction (0 .. 0.9),
and a square that fits nothing is read empty when glare over its empty look explains it
better than glare over any tile's or back's colour (which of face up or down is left to the
scores: a white mix makes a pale blue face and a slate back alike). A
square that fits a kind without glare is left alone (glare would explain a pale tile on a
pale square as well as the square itself), and the belief in the reading is left as low as
the outlier made it: glare is a guess, not a fit.
"""

from __future__ import annotations

import numpy as np

MAX_WHITE = 0.9  # the largest fraction of white a spot mixes in that is still read through
GOOD_FIT = 2.0  # spreads within which glare over the empty look must explain what is seen


def white_fraction(seen: np.ndarray, colour: np.ndarray, white: np.ndarray) -> np.ndarray:
    """(...) the fraction of white (one for all three channels, 0 .. MAX_WHITE) that, mixed
    into ``colour`` (..., 3) towards ``white`` (..., 3), brings it nearest ``seen`` (..., 3),
    least squares."""
    span = white - colour
    a = np.sum((seen - colour) * span, axis=-1) / np.maximum(np.sum(span * span, axis=-1), 1e-3)
    return np.clip(a, 0.0, MAX_WHITE)


def white_fit(seen: np.ndarray, colour: np.ndarray, white: np.ndarray) -> np.ndarray:
    """The colour glare over ``colour`` would show nearest ``seen``: ``colour`` mixed towards
    ``white`` by :func:`white_fraction`."""
    return colour + white_fraction(seen, colour, white)[..., None] * (white - colour)


def unglare(seen: np.ndarray, fraction: float | np.ndarray, white: np.ndarray) -> np.ndarray:
    """The colour under the glare: ``seen`` (..., 3) with ``fraction`` of ``white`` (..., 3)
    taken back out (the inverse of the screen blend :func:`white_fit` models)."""
    f = np.asarray(fraction, np.float32)[..., None] if np.ndim(fraction) else np.float32(fraction)
    return (seen - f * white) / np.maximum(1.0 - f, 1.0 - MAX_WHITE)


def glare_kinds(
    scores: np.ndarray,
    seen: np.ndarray,
    candidates: list[tuple[int, np.ndarray, float, float]],
    white: np.ndarray,
    distance,
    lettered: np.ndarray,
    unnamed_backs: bool = False,
) -> np.ndarray:
    """The kind (0 empty, 1 face up, 2 back) of each square as :func:`kind_scores` ranks
    them, except where the outlier beats every kind on a square without a letter: there
    empty when the empty look, mixed towards white, comes nearer what is seen than any
    tile's or back's colour so mixed, else the likelier of face up and face down.

    ``scores``: (R, C, 4) log-likelihoods (empty, tile, back, other). ``seen``: (R, C, 3)
    colours under the board's light. ``candidates``: (kind, colour (R, C, 3) or (3,),
    spread, prior) for each colour a kind may have, its spread as in the scores (a Gaussian's
    sigma) and its log prior (a blank without a letter is rarer than an empty square).
    ``white``: (R, C, 3) white under the board's light. ``distance``: Lab distance of two
    colour arrays (BGR). ``lettered``: (R, C) squares showing a letter-like glyph, whatever
    its body's colour (a face the light made unlike its set's is still a face, never a
    back). ``unnamed_backs``: no back's colour is known (no backs profile), and face-down tiles
    of any colour may lie on the board (:func:`_held_under_glare`)."""
    kind = scores[..., :3].argmax(-1)
    outlier = (scores[..., 3] > scores[..., :3].max(-1)) & ~lettered
    if not outlier.any():
        return kind
    rr, cc = np.nonzero(outlier)
    s = seen[rr, cc]
    w = white[rr, cc]
    best = {0: np.full(len(rr), -np.inf), 1: np.full(len(rr), -np.inf)}
    z = {k: np.full(len(rr), np.inf) for k in (1, 2)}  # each held kind's best glare fit, in spreads
    for k, colour, spread, prior in candidates:
        col = np.broadcast_to(np.asarray(colour, np.float32), seen.shape)[rr, cc]
        ok = np.isfinite(col).all(-1)
        zk = np.where(ok, distance(s, white_fit(s, np.where(ok[:, None], col, 0.0), w)) / spread, np.inf)
        fit = np.where(ok, -0.5 * zk**2 + prior, -np.inf)
        side = 0 if k == 0 else 1
        best[side] = np.maximum(best[side], fit)
        if k in z:
            z[k] = np.minimum(z[k], zk)
    # Glare says whether something lies there; which kind of thing (a face washed out, a
    # back) the scores say as before: a white mix makes a pale blue face and a slate back
    # alike, and a face's letter is read afterwards in its ink.
    held = 1 + scores[rr, cc, 1:3].argmax(-1)
    held = _held_under_glare(held, z[1], z[2], unnamed_backs)
    out = kind.copy()
    # Empty only where glare over the empty look fits as an empty square fits (within two
    # spreads): over a board printed near white, glare explains any pale colour a little,
    # and a face there (its letter missed at half resolution) is no glare. Where it fits
    # best but not that well, glare tells nothing: the scores' reading stands.
    good = best[0] >= -0.5 * GOOD_FIT**2
    out[rr, cc] = np.where(best[0] >= best[1], np.where(good, 0, kind[rr, cc]), held)
    return out


def _held_under_glare(held: np.ndarray, z_face: np.ndarray, z_back: np.ndarray, unnamed_backs: bool = False
                      ) -> np.ndarray:
    """Face up or face down for squares glare explains as held: the scores' choice, unless
    glare over one kind's colour explains what is seen (within ``GOOD_FIT`` spreads) and
    glare over the other's does not. Glare only adds white: a face brighter than what is
    seen (an ivory face beside a grey square) cannot be under it, while a darker back,
    mixed towards white, may be exactly that grey. Where both fit (a pale blue face and a
    slate back, both washed out) the scores decide, as before.

    Where no back's colour is known (``unnamed_backs``: no backs profile), a held square whose
    colour no face's colour explains, even under glare, is face down: a face-up blank is a face
    of a set whose lettered faces show its colour (two blanks to a set), and a tile unlike
    every one of them is a back of a set whose backs nobody named (docs/vision-backs.md). Its
    belief stays as low as the outlier made it."""
    out = held.copy()
    out[(z_back <= GOOD_FIT) & (z_face > GOOD_FIT)] = 2
    out[(z_face <= GOOD_FIT) & (z_back > GOOD_FIT)] = 1
    if unnamed_backs:
        out[z_face > GOOD_FIT] = 2
    return out
