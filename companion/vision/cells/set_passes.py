"""Stage 4 of reading the squares, the sets again: each face's set checked against its ink.

Takes the evidence and the faces' inks; corrects ``ev.tile_set`` (``ev.back_set``) in place where
a face's ink or a lamp's glare says its set is another than its colour's nearest: ink the other
way round from its set's (:func:`_sets_by_ink`), a body washed along the line to white
(:func:`_sets_under_glare`, :func:`_backs_under_glare`), its ink faded as much as its body
(:func:`_sets_by_faded_ink`); gives the profile's set name of a square (:func:`_nearest_set`,
:func:`sets_as`, :func:`named_where_switched`); the faces of a set no profile names
(:func:`unnamed_faces`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np

from companion.vision.cells.evidence import _GLARE_OFF, _TILE_RADIUS, Evidence
from companion.vision.cells.kinds import _board_white, _lamp_white
from companion.vision.colour import colour_distance, luminance, to_lab
from companion.vision.face import FaceInk
from companion.vision.profile import Profile
from companion.vision.reading import CellReading


def _sets_by_ink(ev: Evidence, inks: dict[tuple[int, int], FaceInk]) -> None:
    """A face whose body is unlike every set's (a lamp's glare washes a colour out) and whose
    ink is the other way round from its nearest set's (light letters, where that set prints
    dark ones) belongs to the nearest set printed as it is: ``ev.tile_set`` and ``ev.d_tile``
    corrected in place."""
    pols = ev.tile_polarity
    if len(set(pols)) < 2:
        return
    for rc, ink in inks.items():
        j = int(ev.tile_set[rc])
        if ink.glyph is None or ev.d_tile[rc] <= _TILE_RADIUS or pols[j] == ink.polarity:
            continue
        best, best_d = -1, np.inf
        for i, t in enumerate(ev.tile_colours):
            if pols[i] != ink.polarity:
                continue
            d = float(colour_distance(to_lab(ev.stats.body(pols[i])[rc] / ev.light[rc]), to_lab(t)))
            if d < best_d:
                best, best_d = i, d
        if best >= 0:
            ev.tile_set[rc], ev.d_tile[rc] = best, best_d


_GLARE_PATH = np.linspace(0.0, 1.0, 21)[:, None]  # shares of white light mixed into a body


def _glare_path_distance(colour: np.ndarray, seen_lab: np.ndarray, white: np.ndarray, top: np.ndarray) -> float:
    """Lab distance from ``seen_lab`` to the colours glare over ``colour`` (BGR) can show: the
    path towards the lamp's ``white``, clipped at the half board's ``top`` (as it shows it)."""
    line = np.minimum(np.asarray(colour, np.float32)[None] * (1.0 - _GLARE_PATH) + white * _GLARE_PATH, top)
    return float(colour_distance(to_lab(line.astype(np.float32)), seen_lab).min())


def _glare_names(d: np.ndarray, j0: int) -> int | None:
    """The set that glare over its colour explains what is seen by, where that is another set
    than ``j0`` (the nearest by colour): much nearer its line to white (``d``, per set, from
    :func:`_glare_path_distance`) than ``j0``'s and near it in any case; else None."""
    best = int(np.argmin(d))
    return best if best != j0 and d[best] < 0.5 * d[j0] and d[best] < _TILE_RADIUS else None


def _sets_under_glare(ev: Evidence, inks: dict[tuple[int, int], FaceInk]) -> None:
    """A face unlike its nearest set's colour may be another set's under a lamp's glare:
    glare adds white light, moving a body's colour along the line to white (lighter, less
    coloured), never away from it (a wood face washed out can come near the ivory set's
    colour, but keeps more of wood's yellow than ivory has). A face much nearer another
    set's line to white than its own set's (colour or line) is that set's: ``ev.tile_set``
    corrected in place. So too a face with no letter found (a blank, or a letter the glare
    washed out): its colour alone tells, with no ink to weigh."""
    if len(ev.tile_colours) < 2:
        return
    pols = ev.tile_polarity or [1] * len(ev.tile_colours)
    usual: dict[int, float] | None = None  # (each set's usual ink, found when first asked)
    white, top = _lamp_white(ev), _board_white(ev)
    for rc, ink in inks.items():
        if ev.d_tile[rc] <= _GLARE_OFF:
            continue
        d = np.full(len(ev.tile_colours), np.inf)
        for j, t in enumerate(ev.tile_colours):
            seen = to_lab(ev.stats.body(int(pols[min(j, len(pols) - 1)]))[rc] / ev.light[rc])
            d[j] = _glare_path_distance(t, seen, white[rc], top[rc])
        j0 = int(ev.tile_set[rc])
        # Glare mixes white into the ink as much as into the body: a face under glare shows
        # its ink fainter than its set's usual, never stronger. A face whose ink is whole
        # for the set its colour is nearest and stronger than the other set's usual is no
        # face of that other set washed out (an ivory face lit a little off its colour).
        if (best := _glare_names(d, j0)) is not None:
            usual = _usual_contrast(ev, inks) if usual is None else usual
            if ink.glyph is not None and j0 in usual and best in usual:
                strength = ink.contrast / float(luminance(ev.light[rc]))
                if strength >= _FADED * usual[j0] and strength > usual[best]:
                    continue
            ev.tile_set[rc] = best


def _backs_under_glare(ev: Evidence, kind_idx: np.ndarray) -> None:
    """A back unlike every set's back colour may be one under a lamp's glare, as a face may
    (:func:`_sets_under_glare`): a back much nearer another set's back's line to white than
    its nearest back's (colour or line) is that set's: ``ev.back_set`` (and ``ev.d_back``)
    corrected in place. A wood back washed out turns pale tan, far from a slate back in hue."""
    backs = ev.back_colours
    if len(backs) < 2:
        return
    white, top = _lamp_white(ev), _board_white(ev)
    for r, c in np.argwhere((kind_idx == 2) & (ev.d_back > _GLARE_OFF)):
        rc = (int(r), int(c))
        seen = to_lab(ev.stats.median[rc] / ev.light[rc])
        d = np.array([_glare_path_distance(b, seen, white[rc], top[rc]) if np.isfinite(b).all() else np.inf
                      for b in backs])
        if (best := _glare_names(d, int(ev.back_set[rc]))) is not None:
            ev.back_set[rc] = best
            ev.d_back[rc] = min(float(ev.d_back[rc]), float(d[best]))


_FADED = 0.75  # of its set's usual ink contrast, below which a face's ink is washed out


def _usual_contrast(ev: Evidence, inks: dict[tuple[int, int], FaceInk]) -> dict[int, float]:
    """Each set's usual ink contrast (relative to the light at its square) over its lettered
    faces seen without glare (near the set's colour), for sets with three such faces."""
    usual: dict[int, float] = {}
    for j in range(len(ev.tile_colours)):
        cs = [ink.contrast / float(luminance(ev.light[rc])) for rc, ink in inks.items()
              if ink.glyph is not None and ev.tile_set[rc] == j and ev.d_tile[rc] <= _GLARE_OFF]
        if len(cs) >= 3:
            usual[j] = float(np.median(cs))
    return usual


def _sets_by_faded_ink(ev: Evidence, inks: dict[tuple[int, int], FaceInk]) -> None:
    """A lamp's glare mixes white into a face's ink as much as into its body: the letter's
    contrast falls by the fraction of white mixed in. That fraction, measured on each face
    against its set's usual contrast (the faces of the set seen without it, under the light
    found), is taken back out of the body; a face whose ink is faded well under its set's
    usual, and whose body so restored is much nearer another set's colour (that set's own
    fraction taken out), is that set's. A washed-out wood face comes near ivory's colour, but
    with ink as faint as the wash: an ivory face there would show its ink whole.
    ``ev.tile_set`` corrected in place."""
    from companion.vision.glare import unglare

    n = len(ev.tile_colours)
    if n < 2:
        return
    pols = ev.tile_polarity or [1] * n
    lum = luminance(ev.light)
    white, top = _lamp_white(ev), _board_white(ev)
    lettered = [rc for rc, ink in inks.items() if ink.glyph is not None]
    usual = _usual_contrast(ev, inks)
    # A set with too few faces seen plainly to say its own usual ink: the board's usual over
    # every set's plain faces (sets print with inks of about one strength, 0.5-0.7).
    pooled = [inks[rc].contrast / lum[rc] for rc in lettered if ev.d_tile[rc] <= _GLARE_OFF]
    if len(pooled) >= 3:
        board = float(np.median(pooled))
        for j in range(n):
            usual.setdefault(j, board)
    for rc in lettered:
        ink, j0 = inks[rc], int(ev.tile_set[rc])
        if j0 not in usual or ink.contrast / lum[rc] >= _FADED * usual[j0]:
            continue
        d = np.full(n, np.inf)
        for j, colour in enumerate(ev.tile_colours):
            if j not in usual or pols[j] != ink.polarity:
                continue
            f = float(np.clip(1.0 - ink.contrast / lum[rc] / usual[j], 0.0, 0.9))
            seen = ev.stats.body(pols[j])[rc] / ev.light[rc]
            restored = unglare(seen, f, white[rc])
            # A channel seen at the half board's top was at least that bright: restored, it
            # is at least what is computed, and as bright as the set's own is no misfit.
            clipped = seen >= top[rc] - 1.0
            restored = np.where(clipped, np.maximum(restored, colour), restored).astype(np.float32)
            d[j] = float(colour_distance(to_lab(restored), to_lab(colour)))
        best = int(np.argmin(d))
        if best != j0 and d[best] < _TILE_RADIUS and d[best] < 0.5 * d[j0]:
            ev.tile_set[rc] = best
            ev.d_tile[rc] = min(float(ev.d_tile[rc]), float(d[best]))


def _nearest_set(profile: Profile | None, ev: Evidence, r: int, c: int, kind: int) -> str | None:
    """The profile's set whose face (or back) colour is nearest, when it is near at all."""
    if profile is None or not profile.sets:
        return None
    if kind == 1:
        j = int(ev.tile_set[r, c])
        if j < len(profile.sets) and ev.d_tile[r, c] < 2.5 * _TILE_RADIUS:
            return profile.sets[j].name
        return None
    j = int(ev.back_set[r, c])
    if np.isfinite(ev.d_back[r, c]) and ev.d_back[r, c] < 2.5 * _TILE_RADIUS and j < len(profile.sets):
        return profile.sets[j].name
    return None


def sets_as(profile: Profile | None, ev: Evidence) -> dict[str, list[str | None]] | None:
    """Each square's set (row-major) were it a face (``"tile"``) or a back (``"back"``): the
    profile's set its colour is nearest, when near (:func:`_nearest_set`), whatever the rules
    read there. None where the profile names no set (nothing to name: every read skips it)."""
    if profile is None or not profile.sets:
        return None
    rows, cols = ev.d_tile.shape
    return {kind: [_nearest_set(profile, ev, r, c, k) for r in range(rows) for c in range(cols)]
            for k, kind in ((1, "tile"), (2, "back"))}


def named_where_switched(cells: list[CellReading], rules: list[CellReading],
                         named: dict[str, list[str | None]] | None,
                         unnamed: np.ndarray | None = None) -> list[CellReading]:
    """``cells`` where a square is a face or a back the ``rules`` read as another kind (the
    network or the table's profile made it one) and no set came with it: the set its colour
    names (:func:`sets_as`). A square the rules read as that kind keeps the rules' set, None
    included: its colour was weighed there and named no set (a set no profile names); so does
    a face printed unlike every named set (``unnamed``, (N,): :func:`unnamed_faces`)."""
    if named is None:
        return cells
    out = list(cells)
    for i, (c, rule) in enumerate(zip(cells, rules)):
        if c.kind == "tile" and unnamed is not None and unnamed[i]:
            continue
        if c.kind in named and c.set is None and rule.kind != c.kind and named[c.kind][i] is not None:
            out[i] = replace(c, set=named[c.kind][i])
    return out


def unnamed_faces(printed: Sequence[int], inks: dict[tuple[int, int], FaceInk], rows: int, cols: int) -> np.ndarray:
    """(rows * cols,) bool, row-major: the faces whose letter's ink (``inks``) is the other way
    round from every set the profile names (``printed``: each named set's ink polarity), dark
    letters where each named set prints light ones. A lamp moves a set's colour far, but a
    face tells its ink's polarity itself: such a face is a set the profile does not name (a
    white set printed in black beside the one black set calibrated), where a face only far in
    colour may be a named set's under the lamp."""
    out = np.zeros((rows, cols), bool)
    if not printed:
        return out.ravel()
    for rc, ink in inks.items():
        if ink.glyph is not None and ink.polarity not in printed:
            out[rc] = True
    return out.ravel()
