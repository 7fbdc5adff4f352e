"""Which of the profile's tile sets each colour found on a board is, under this photo's light.

The profile names each set's face colour as calibration saw it. A photo sees every colour
through its own light: the exposure scales all channels alike, and the camera's white balance
and the lamp's tint scale each channel by its own gain, the same gain for every set on the
board. So the sets' colours here are the profile's carried by one gain per channel.

When the board shows fewer face colours than the profile has sets (one set has few faces, or
none with a readable letter), a colour found cannot be named by how it differs from the
others. It is named by the light it implies: each hypothesis (this colour is that set) fixes
a gain, and the hypothesis whose carried colours explain the board's lettered faces best,
with the least tint, wins (a magenta cast makes ivory faces pink-ish, and the one pink face
there is then pinker still: only the light that makes the first ivory explains the second).
A set not found takes its profile colour carried by that gain, not its colour under the
profile's light.

A light's shadow or a lamp's spot moves a colour's lightness, not its hue: two groups of one
colour that differ only in lightness are one set seen in two lights (:func:`hue_apart`).
"""

from __future__ import annotations

import numpy as np

from companion.vision.colour import _ratio, colour_distance, luminance, to_lab


# A tint of this many log-units (the gain's channels' deviation from their mean, as a
# vector's length) costs as much as one Lab unit of misfit on every face: a camera's white
# balance moves channels apart by a few tenths at most, a mistaken set by more.
_TINT_COST = 10.0
_MISFIT_CAP = 32.0  # a face no carried colour explains counts this much (a mix, a glare spot)


def carry(colours: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """BGR ``colours`` (..., 3) under a light of per-channel ``gain`` (steadied for dark
    channels as the reader's ratios are: see :func:`companion.vision.colour._ratio`; backs are carried so too)."""
    return np.clip((np.asarray(colours, np.float32) + 24.0) * gain - 24.0, 0, 255).astype(np.float32)


def tint(gain: np.ndarray) -> float:
    """How far a per-channel gain is from a plain exposure (all channels alike)."""
    lg = np.log(np.asarray(gain, np.float64))
    return float(np.linalg.norm(lg - lg.mean()))


def hue_apart(a_lab: np.ndarray, b_lab: np.ndarray) -> float | np.ndarray:
    """Distance of two Lab colours (or arrays of them, (..., 3)) in a and b alone: what a
    shadow or a brighter spot leaves."""
    d = np.asarray(a_lab, np.float64)[..., 1:] - np.asarray(b_lab, np.float64)[..., 1:]
    out = np.hypot(d[..., 0], d[..., 1])
    return float(out) if out.ndim == 0 else out


def shade_apart(a_bgr: np.ndarray, b_bgr: np.ndarray) -> float:
    """How far apart two colours (BGR) are in hue once the light is taken out: the darker
    brought to the lighter's luminance by one gain on all channels (a shadow, a dimmer part of
    the light, scales every channel alike), clipped as the camera clips, then
    :func:`hue_apart`. Lab's chroma shrinks with lightness, so hue alone would let a darker,
    more saturated colour (a wood face) pass for a lighter, paler one (ivory) in shadow."""
    a, b = np.asarray(a_bgr, np.float32), np.asarray(b_bgr, np.float32)
    dark, light = (a, b) if luminance(a) <= luminance(b) else (b, a)
    return float(hue_apart(to_lab(in_other_light(dark, light)[0]), to_lab(light)))


def in_other_light(seen: np.ndarray, look: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Colours ``seen`` (BGR, (..., 3)) brought to the luminance of ``look`` (the same shape)
    by one gain on every channel, as a brighter or dimmer white light scales them, clipped
    as the camera clips (float32); and that gain (...)."""
    seen = np.asarray(seen, np.float32)
    gain = np.asarray(luminance(np.asarray(look, np.float32)) / np.maximum(luminance(seen), 1.0), np.float32)
    return np.clip(seen * gain[..., None], 0, 255).astype(np.float32), gain


def fit_light(bodies: np.ndarray, found: list[np.ndarray], sets: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, float]:
    """The gain (3,) carrying the profile's ``sets`` (BGR) onto this photo, the set each of the
    faces' ``bodies`` (N, 3 BGR) is under it (N,), and the hypothesis' cost. Each colour
    ``found`` taken for each set starts a hypothesis; faces go to the nearest carried colour
    and the gain is refitted from them (a few rounds). Cost: the faces' mean misfit (capped)
    plus the gain's tint (:data:`_TINT_COST`)."""
    want = np.asarray(sets, np.float32)
    lab = to_lab(np.asarray(bodies, np.float32))
    best: tuple[float, np.ndarray, np.ndarray] = (np.inf, np.ones(3, np.float32), np.zeros(len(bodies), np.int64))
    for f in found:
        for w in want:
            gain = _ratio(np.asarray(f, np.float32), w)
            assign = np.zeros(len(bodies), np.int64)
            for _ in range(4):
                d = colour_distance(lab[:, None], to_lab(carry(want, gain))[None])
                assign = d.argmin(1)
                gain = _refit(bodies, want[assign], _ratio)
            d = colour_distance(lab[:, None], to_lab(carry(want, gain))[None])
            assign = d.argmin(1)
            cost = float(np.minimum(d.min(1), _MISFIT_CAP).mean()) + _TINT_COST * tint(gain)
            if cost < best[0]:
                best = (cost, gain, assign)
    return best[1], best[2], best[0]


_TOP = 250.0  # a channel seen this bright may be clipped: it says only "at least this"


def _refit(bodies: np.ndarray, looks: np.ndarray, ratio) -> np.ndarray:
    """Per channel, the median ratio of the faces' ``bodies`` to their sets' ``looks``, from
    the faces where that channel is not at the top of the range (a clipped channel of a
    bright ivory face only bounds the gain from below); from all where none is."""
    r = np.log(ratio(bodies, looks))
    gain = np.empty(3, np.float32)
    for ch in range(3):
        free = bodies[:, ch] < _TOP
        gain[ch] = np.exp(np.median(r[free, ch] if free.any() else r[:, ch]))
    return gain


def name_found(
    found: list[np.ndarray], members: list[np.ndarray], assign: np.ndarray, n_sets: int
) -> dict[int, int]:
    """Which found colour (index) is each set (index): each found colour takes the set most of
    its faces went to under the fitted light (``members``: each found colour's mask over the
    faces ``assign`` covers), a set taken once (by the colour with most faces there)."""
    votes = []
    for i, m in enumerate(members):
        if m.any():
            counts = np.bincount(assign[m], minlength=n_sets)
            j = int(counts.argmax())
            votes.append((int(counts[j]), i, j))
    out: dict[int, int] = {}
    for _, i, j in sorted(votes, reverse=True):
        if j not in out and i not in out.values():
            out[j] = i
    return out
