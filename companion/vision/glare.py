"""A lamp's glare: squares that no kind explains, looked at again as under a specular spot.

A lamp reflected by the board's varnish (or a tile's) adds its own, nearly white light to
whatever lies below: the colour seen is the thing's colour mixed towards white, by a fraction
that is the same for every channel (a screen blend). :mod:`companion.vision.cells` divides out
the light as a gain per square (a lamp's spot, a shadow); a sharp specular spot is neither,
and a green square under one looks pale, nearer an ivory tile's body than its own look. Such a
square fits no kind (the outlier wins), and the reader would otherwise take the least bad fit.

Here each kind's colour is fitted to what is seen with the best white fraction (0 .. 0.9),
and among squares that fit nothing, the kind that glare explains best is the reading. A
square that fits a kind without glare is left alone (glare would explain a pale tile on a
pale square as well as the square itself), and the belief in the reading is left as low as
the outlier made it: glare is a guess, not a fit.
"""

from __future__ import annotations

import numpy as np

MAX_WHITE = 0.9  # the largest fraction of white a spot mixes in that is still read through


def white_fit(seen: np.ndarray, colour: np.ndarray, white: np.ndarray) -> np.ndarray:
    """``colour`` (..., 3) mixed towards ``white`` (..., 3) by the fraction (one for all three
    channels, 0 .. MAX_WHITE) that brings it nearest ``seen`` (..., 3), least squares: the
    colour glare over ``colour`` would show."""
    span = white - colour
    a = np.sum((seen - colour) * span, axis=-1) / np.maximum(np.sum(span * span, axis=-1), 1e-3)
    a = np.clip(a, 0.0, MAX_WHITE)[..., None]
    return colour + a * span


def glare_kinds(
    scores: np.ndarray,
    seen: np.ndarray,
    candidates: list[tuple[int, np.ndarray, float, float]],
    white: np.ndarray,
    distance,
    lettered: np.ndarray,
) -> np.ndarray:
    """The kind (0 empty, 1 face up, 2 back) of each square as :func:`kind_scores` ranks
    them, except where the outlier beats every kind on a square without a letter: there the
    kind whose colour, mixed towards white, comes nearest what is seen.

    ``scores``: (R, C, 4) log-likelihoods (empty, tile, back, other). ``seen``: (R, C, 3)
    colours under the board's light. ``candidates``: (kind, colour (R, C, 3) or (3,),
    spread, prior) for each colour a kind may have, its spread as in the scores (a Gaussian's
    sigma) and its log prior (a blank without a letter is rarer than an empty square).
    ``white``: (R, C, 3) white under the board's light. ``distance``: Lab distance of two
    colour arrays (BGR). ``lettered``: (R, C) squares with a letter on a tile's body."""
    kind = scores[..., :3].argmax(-1)
    outlier = (scores[..., 3] > scores[..., :3].max(-1)) & ~lettered
    if not outlier.any():
        return kind
    rr, cc = np.nonzero(outlier)
    s = seen[rr, cc]
    w = white[rr, cc]
    best = np.full(len(rr), -np.inf)
    pick = kind[rr, cc].copy()
    for k, colour, spread, prior in candidates:
        col = np.broadcast_to(np.asarray(colour, np.float32), seen.shape)[rr, cc]
        ok = np.isfinite(col).all(-1)
        fit = np.where(ok, -0.5 * (distance(s, white_fit(s, np.where(ok[:, None], col, 0.0), w)) / spread) ** 2 + prior, -np.inf)
        better = fit > best
        best = np.where(better, fit, best)
        pick = np.where(better, k, pick)
    out = kind.copy()
    out[rr, cc] = pick
    return out
