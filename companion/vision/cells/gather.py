"""Stages 1-2 of reading the squares, gathered: everything known of the board before any square
is decided.

Takes the rectified board, its geometry, layout and the table's profile (optional); gives
:class:`~companion.vision.cells.evidence.Evidence`, in this order: the glyphs (:mod:`.glyphs`)
less the premium's print (:mod:`.premium_print`), read as the faces around them and kept as
letters (:func:`_letters_kept`, :mod:`.inks`); each square's colour statistics (:mod:`.stats`);
the tile sets' colours, named as the profile's sets (:mod:`.set_colours`); each square's empty
look and the light at each square (:mod:`.looks`); and each square's distance to its empty
look, to the nearest tile body and to a known back, and how far the faces lie off their
squares."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from companion.core.board import Layout, Premium
from companion.vision.cells.evidence import _DOUBTED, _LETTERNESS, _LETTER_SPAN, _TILE_RADIUS, Evidence
from companion.vision.cells.geometry import (
    Geometry,
    _stretch,
    _stretch_levels,
    _stretch_like,
    half_board,
    premium_classes,
)
from companion.vision.cells.glyphs import Glyphs, _assign_glyphs, find_glyphs, letterlike
from companion.vision.cells.inks import Faces, read_glyph_faces
from companion.vision.cells.looks import _backs_seen, _looks_and_light, _tile_distances
from companion.vision.cells.premium_print import _print_dropped
from companion.vision.cells.set_colours import _sets_named, _tile_bodies
from companion.vision.cells.stats import smooth_field, square_stats
from companion.vision.colour import colour_distance, luminance, to_lab
from companion.vision.letters import LetterReader, letter_reader, load_model
from companion.vision.medians import median
from companion.vision.profile import Profile


def gather_evidence(
    rectified: np.ndarray,
    geo: Geometry,
    layout: Layout,
    profile: Profile | None,
    letters: list[str] | None = None,
    values: dict[str, int] | None = None,
) -> Evidence:
    small, small_geo, small_exposure = half_board(rectified, geo)
    scale = geo.cell_px / small_geo.cell_px
    lum_small = luminance(small)  # (once: the statistics, the glyphs and the classes' pictures take it)
    stats = square_stats(small, small_geo, lum_small)
    grey = cv2.cvtColor(rectified, cv2.COLOR_BGR2GRAY)
    levels = _stretch_levels(lum_small)
    g = find_glyphs(_stretch(lum_small, levels), small_geo, _stretch_like(grey, lum_small, small_exposure, levels))
    like = letterlike(g, letters or sorted({ch for ch in load_model().classes if ch.isalpha()}))
    # Pixel centres: (i + 0.5) * scale - 0.5 back in the full-resolution board.
    glyphs = Glyphs((g.x + 0.5) * scale - 0.5, (g.y + 0.5) * scale - 0.5, g.w * scale, g.h * scale, g.polarity, g.pictures, like, g.strength)
    R, C = geo.rows, geo.cols
    shift = np.zeros((R, C, 2), np.float32)
    at = _assign_glyphs(glyphs, geo, shift)
    classes = premium_classes(layout)
    # A glyph that its class's other squares show too, in the same place, is the class's print.
    at, unlike, novelty = _print_dropped(glyphs, at, small, small_geo, geo, classes, lum_small)
    letters = letters or sorted({ch for ch in load_model().classes if ch.isalpha()})
    # Grey at the board's standard exposure (as the half-resolution board): a face's
    # contrast is judged against a well exposed photo's, not in a dark photo's few levels.
    grey = cv2.convertScaleAbs(grey, alpha=small_exposure)
    reader = letter_reader(profile.arrays if profile is not None else None)
    at, faces, doubted = _letters_kept(grey, glyphs, at, geo, shift, classes, reader, letters, values)
    has = at >= 0
    pol = np.ones((R, C), np.int64)
    for rc in faces.order:
        if has[rc]:
            pol[rc] = faces.inks[rc].polarity
    body = stats.body(pol)
    spread = stats.body_spread(pol)
    # A letter on a uniform body is a tile's letter (a premium square's print is the square's
    # own colour, which the tests below set apart).
    candidate = has & (spread < 14.0)

    tiles, polarity, kept_members, lettered_members = _tile_bodies(stats, body, pol, candidate, faces, classes)
    tiles, polarity, backs, match, ink_guessed = _sets_named(
        profile, body, pol, candidate, has, tiles, polarity, kept_members, lettered_members)
    lettered = candidate.copy()
    empty_look, empty_known, light, borrowed, printed_like = _looks_and_light(
        stats, body, classes, layout, profile, candidate, tiles, polarity, backs)
    med = stats.median / light
    lab_med = to_lab(med)
    d_e = np.where(empty_known, colour_distance(lab_med, to_lab(empty_look)), np.inf)
    d_t, which = _tile_distances(stats, tiles, polarity, light)
    if tiles:
        # A letter whose body was no tile's colour before the light was known (a face in a
        # shadow's edge, a lamp's spot) is judged again under the light found from the others.
        candidate |= lettered & (d_t < 1.5 * _TILE_RADIUS)
    plain_look, backs, d_b, back_set = _backs_seen(classes, empty_look, empty_known, lab_med, profile, backs, match, tiles)
    glyph_ok = candidate & (d_t < 2.0 * _TILE_RADIUS)
    # Displacement of faces: glyph centres against square centres, as a plane over the board.
    # (Not by doubted letters: a piece of a letter taken for one lies off its face's middle.)
    rr, cc = np.nonzero(glyph_ok & ~doubted)
    if len(rr):
        cx, cy = geo.centre(rr, cc)
        gi = at[rr, cc]
        shift[..., 0] = smooth_field(rr, cc, glyphs.x[gi] - cx, (R, C), quadratic=False)
        shift[..., 1] = smooth_field(rr, cc, glyphs.y[gi] - cy, (R, C), quadratic=False)
        shift = np.clip(shift, -0.3 * geo.cell_px, 0.3 * geo.cell_px)
    return Evidence(
        stats, glyphs, at, tiles, polarity, backs, empty_look, empty_known, light, shift,
        d_e, d_t, which, d_b, back_set, glyph_ok,
        extra={"plain_look": plain_look, "small": small, "small_geo": small_geo, "scale": scale, "rectified": rectified,
               "exposure": small_exposure, "grey": grey, "lum_small": lum_small, "faces": faces, "novelty": novelty, "unlike": unlike,
               "borrowed": borrowed, "classes": classes, "printed_like": printed_like, "ink_guessed": ink_guessed,
               "doubted": doubted},
    )


def _letters_kept(
    grey: np.ndarray, glyphs: Glyphs, at: np.ndarray, geo: Geometry, shift: np.ndarray, classes: np.ndarray,
    reader: LetterReader, letters: list[str], values: dict[str, int] | None,
) -> tuple[np.ndarray, Faces, np.ndarray]:
    """The glyphs read as the faces around them (:func:`read_glyph_faces`), and of those the ones
    kept as letters: ``at`` (each square's letter's glyph, or -1), the faces read, and the
    squares whose letter the network doubts (kept by their value or their ink)."""
    faces = read_glyph_faces(grey, glyphs, at, geo, reader, letters, values)
    asked = at
    # A glyph the network, seeing it whole, does not take for a letter is the board's print
    # (unless its face shows the letter's value).
    # A letter the network doubts on a plain square, which prints nothing, is a letter where
    # its ink is the board's usual letters' (dark or light): an I blurred in a phone's photo,
    # turned a quarter, looks much like a dash of print to the network seeing it alone (0.34
    # to 0.5). (Not ink the other way: a light disc is a token's over a face, read again with
    # its face.)
    sure = (at >= 0) & (faces.letterness >= _LETTERNESS)
    usual_ink = 1 if glyphs.polarity[at[sure]].sum() >= 0 else -1
    ink_at = glyphs.polarity[np.maximum(at, 0)] if len(glyphs) else np.zeros(at.shape, np.int64)
    doubted_ok = (classes == list(Premium).index(Premium.NONE)) & (ink_at == usual_ink)
    at = np.where((faces.letterness >= np.where(doubted_ok, _DOUBTED, _LETTERNESS)) | faces.valued, at, -1)
    doubted = (at >= 0) & (faces.letterness < _LETTERNESS) & ~faces.valued
    # A square whose glyph, ink the other way from the board's letters, is no letter (a face's
    # light middle framed by the dark gap round it, which outweighed the dark letter in it)
    # asks its best glyph of the usual ink in its stead, taken where the network is sure of it.
    dropped = (asked >= 0) & (at < 0) & (ink_at != usual_ink)
    if dropped.any():
        usual_only = replace(glyphs, letterlike=np.where(glyphs.polarity == usual_ink, glyphs.letterlike, 0.0))
        again = np.where(dropped, _assign_glyphs(usual_only, geo, shift), -1)
        if (again >= 0).any():
            more = read_glyph_faces(grey, glyphs, again, geo, reader, letters, values)
            for rc in more.order:
                if more.letterness[rc] >= _LETTERNESS:
                    at[rc] = again[rc]
                    faces.inks[rc] = more.inks[rc]
                    faces.letterness[rc] = more.letterness[rc]
                    if rc not in faces.order:
                        faces.order.append(rc)
    # A letter is as tall as the board's other letters (one font on every face, whatever its
    # turn): a letter-like mark well under their size lies on the square (a token's disc
    # reads as an O), and is no face's letter.
    spans = {rc: max(b[2], b[3]) for rc in faces.order if at[rc] >= 0 and (b := faces.inks[rc].box) is not None}
    if len(spans) >= 5:
        usual = float(median(list(spans.values())))
        for rc, span in spans.items():
            if span < _LETTER_SPAN * usual:
                at[rc] = -1
    return at, faces, doubted


