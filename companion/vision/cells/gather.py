"""Stages 1-2 of reading the squares, gathered: everything known of the board before any square
is decided.

Takes the rectified board, its geometry, layout and the table's profile (optional); gives
:class:`~companion.vision.cells.evidence.Evidence`: the glyphs (:mod:`.glyphs`) and the faces
they are read on (:mod:`.inks`), each square's colour statistics (:mod:`.stats`), the tile sets'
colours (:mod:`.set_colours`), each square's empty look (its premium class's, or the profile's
empty board carried into this photo's colours), the light at each square, and each square's
distance to its empty look, to the nearest tile body and to a known back."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from companion.core.board import Layout, Premium
from companion.vision.cells.evidence import (
    _DOUBTED,
    _LETTERNESS,
    _LETTER_SPAN,
    _NOVEL,
    _NOVEL_BAR,
    _TILE_RADIUS,
    Evidence,
)
from companion.vision.cells.geometry import (
    Geometry,
    _stretch,
    _stretch_levels,
    _stretch_like,
    half_board,
    premium_classes,
)
from companion.vision.cells.glyphs import Glyphs, _assign_glyphs, find_glyphs, letterlike
from companion.vision.cells.inks import read_glyph_faces
from companion.vision.cells.premium_print import _HIDDEN, glyph_novelty, print_shown
from companion.vision.cells.set_colours import (
    _by_hue,
    _match_sets,
    _one_set_in_two_lights,
    _sets_by_light,
    _split_by_sets,
    _unnamed_apart,
    _unseen_set_ink,
)
from companion.vision.cells.stats import (
    _map_colours,
    _modes,
    _shade_apart_each,
    local_field,
    smooth_field,
    square_stats,
    unlike_class,
)
from companion.vision.colour import _ratio, colour_distance, luminance, rgb_to_bgr, to_lab
from companion.vision.letters import letter_reader, load_model
from companion.vision.medians import median
from companion.vision.profile import Profile
from companion.vision.sets import hue_apart


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
    # A glyph that its class's other squares show too, in the same place, is the class's print.
    classes = premium_classes(layout)
    unlike = unlike_class(small, small_geo, classes, lum_small=lum_small)
    novelty = glyph_novelty(glyphs, at, unlike, geo, scale)
    # A bar (an I, or a word of print at this scale) must be clearly new: print is full of them.
    gi = np.maximum(at, 0)
    # (A board showing no ink at all, a plain board of one colour, has no glyph to index.)
    bar = (np.maximum(glyphs.w[gi], glyphs.h[gi]) >= 3.0 * np.minimum(glyphs.w[gi], glyphs.h[gi])
           if len(glyphs) else np.zeros(at.shape, bool))
    old = (at >= 0) & ~np.isnan(novelty) & (novelty < np.where(bar, _NOVEL_BAR, _NOVEL))
    if old.any():
        # ... unless the class has print and the square hides it: something lies over it, and
        # the glyph is no print, however much of the letter lies where the print's strokes lie
        # (a face's white letter on a pale blue double letter's white words).
        shown = print_shown(small, small_geo, classes, old, lum_small)
        keep = shown < _HIDDEN
        # A class without print has none to take a bar for: there a bar is old only if its
        # own pixels are the class's (the grid's lines at a square's side). A thin I, a pixel
        # wide at this scale, is two thirds body in a box that takes in a pixel either side.
        plain_bar = old & bar & np.isnan(shown)
        if plain_bar.any():
            own = glyph_novelty(glyphs, np.where(plain_bar, at, -1), unlike, geo, scale, exact=True)
            keep |= plain_bar & (own >= _NOVEL_BAR)
        at = np.where(old & ~keep, -1, at)
    letters = letters or sorted({ch for ch in load_model().classes if ch.isalpha()})
    # Grey at the board's standard exposure (as the half-resolution board): a face's
    # contrast is judged against a well exposed photo's, not in a dark photo's few levels.
    grey = cv2.convertScaleAbs(grey, alpha=small_exposure)
    reader = letter_reader(profile.arrays if profile is not None else None)
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
    light = np.ones((R, C, 3), np.float32)

    # Tile bodies: the dense colours of the bodies around letters (tiles look alike on every
    # square), each kept unless it is the board's own print.
    tiles: list[np.ndarray] = []
    polarity: list[int] = []
    if candidate.any():
        lab_body = to_lab(body)
        modes = _modes(lab_body[candidate], _TILE_RADIUS, 4)
        like_c = faces.letterness[candidate]
        largest = 0
        kept_members: list[np.ndarray] = []
        lettered_members: list[np.ndarray] = []
        for centre, members in modes:
            m_pol = int(np.sign(np.median(pol[candidate][members])) or 1)
            # Squares of this colour without a letter: a few blanks and backs, or, when
            # there are many, the board's own print (a premium patch that looked like ink).
            bare = (~candidate) & (colour_distance(to_lab(stats.body(m_pol)), centre) < _TILE_RADIUS)
            print_like = bare.sum() >= max(3, 0.5 * members.sum())
            strong = members.sum() >= 2 and float(np.median(like_c[members])) >= 0.75
            # A colour whose squares with a glyph and without are all squares of one premium
            # is that premium's own colour (its glyphs a patch lit apart by a neighbour's
            # shadow), however letter-like: tiles of a set lie on any square.
            one_premium = len(set(classes[candidate][members].tolist()) | set(classes[bare].tolist())) == 1
            if print_like and (one_premium or not strong):
                # (Faces to the light all the same when their letters are clear: blue tiles
                # on a board printed the same blue, too few to stand out from its print.)
                if not one_premium and float(np.median(like_c[members])) >= 0.75:
                    lettered_members.append(members)
                continue
            lettered_members.append(members)  # faces, whether or not their colour is one
            if largest and members.sum() < max(2, 0.1 * largest):
                continue
            largest = max(largest, int(members.sum()))
            tiles.append(np.median(body[candidate][members], axis=0))
            polarity.append(m_pol)
            kept_members.append(members)
    if profile is not None and len(profile.sets) >= 2 and len(tiles) >= 2:
        # Two colours no further apart in hue than the profile's sets are one set in two
        # lights (a shadow over some of its faces), not two sets.
        tiles, polarity, kept_members = _one_set_in_two_lights(
            body[candidate], tiles, polarity, kept_members, [rgb_to_bgr(s_.rgb) for s_ in profile.sets])
    light_match: dict[int, int] | None = None
    carried: list[np.ndarray] = []
    carried_pol: list[int | None] = []
    if profile is not None and len(profile.sets) > len(tiles) >= 1:
        # Fewer colours than the profile's sets: two sets a tinted or dim light brought
        # together may have fallen into one colour. The profile says how the sets' colours
        # differ; split the faces found as they would be under one light.
        kept = np.any(kept_members, axis=0)
        split = _split_by_sets(body[candidate][kept], pol[candidate][kept], tiles,
                               [rgb_to_bgr(s_.rgb) for s_ in profile.sets])
        if split is not None:
            tiles, polarity = split
        else:
            light_match, carried, carried_pol = _sets_by_light(
                body[candidate], pol[candidate], lettered_members, kept_members, tiles, profile)
    backs: list[np.ndarray] = []
    match: dict[int, int] = {}
    ink_guessed: set[int] = set()
    if profile is not None and profile.sets:
        # The profile names the sets: each colour found takes the name of a set. The
        # profile's colours were taken under another light (a tinted light moves every
        # colour alike), so sets are matched by how the found colours differ from each
        # other first, by absolute colour second (or, with fewer colours than sets, by the
        # one light that carries them all: _sets_by_light); a set not seen here keeps its
        # colour, carried by that light when it was fitted.
        want = [to_lab(rgb_to_bgr(s_.rgb)) for s_ in profile.sets]
        got = [to_lab(t) for t in tiles]
        match = _match_sets(got, want) if light_match is None else light_match
        named: list[np.ndarray] = []
        named_pol: list[int] = []
        for j, s_ in enumerate(profile.sets):
            i = match.get(j)
            named.append(tiles[i] if i is not None else carried[j] if carried else rgb_to_bgr(s_.rgb))
            named_pol.append(polarity[i] if i is not None else carried_pol[j] if carried_pol and carried_pol[j] is not None
                             else (1 if luminance(rgb_to_bgr(s_.rgb)) >= 100 else -1))
        # A set none of whose faces were seen takes its ink from the lettered faces nearest
        # its colour; failing those it is guessed from its colour, and its faces tell their
        # own ink when read (a blue set may print white letters or black ones).
        unseen = [j for j in range(len(profile.sets))
                  if match.get(j) is None and not (carried_pol and carried_pol[j] is not None)]
        ink_guessed = set(unseen) - _unseen_set_ink(named, named_pol, unseen, body[has], pol[has])
        # A colour of lettered faces that no set of the profile is, and unlike every set's
        # colour here in every way one light can make a set look (far in colour, apart in
        # hue once a shade's gain is taken out, off the set's path to white under a lamp's
        # glare), is a set the profile does not name (a second colour of tiles when only one
        # was calibrated): its faces are tiles of an unknown set, never empty squares that fit
        # no named colour. Kept after the named sets (_nearest_set names none for it).
        for i in sorted(set(range(len(tiles))) - set(match.values())):
            if all(_unnamed_apart(tiles[i], n) for n in named):
                named.append(tiles[i])
                named_pol.append(polarity[i])
        tiles, polarity = named, named_pol
        if "set_backs" in profile.arrays:
            # A set whose backs were never calibrated has a row of NaN: it matches nothing.
            backs = [rgb_to_bgr(v) for v in profile.arrays["set_backs"]]
    profile_empty = profile.arrays.get("empty_bgr") if profile is not None else None

    def tile_distances(norm_light: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d_t = np.full((R, C), np.inf, np.float32)
        which = np.zeros((R, C), np.int64)
        hues = []
        labs = [to_lab(t) for t in tiles]
        for j, t in enumerate(labs):
            seen = to_lab(stats.body(polarity[j]) / norm_light)
            d = colour_distance(seen, t)
            hues.append(hue_apart(seen, t))
            better = d < d_t
            d_t = np.where(better, d, d_t)
            which = np.where(better, j, which)
        return d_t, _by_hue(which, np.array(hues), labs)

    empty_look = np.zeros((R, C, 3), np.float32)
    empty_known = np.zeros((R, C), bool)
    lettered = candidate.copy()
    for _round in range(3):
        empty_known[:] = False
        med = stats.median / light
        lab_med = to_lab(med)
        d_t, which = tile_distances(light)
        if _round == 0 and tiles:
            # Glyphs on a colour that is not a tile's are the board's print.
            candidate &= d_t < 1.5 * _TILE_RADIUS
        not_tile = d_t > 1.5 * _TILE_RADIUS
        # Nor the colour of a known back: face-down tiles on a few squares of a class (the
        # dungeon's edge walls cover half the triple words) must not become its empty look.
        not_back = np.ones((R, C), bool)
        plain_now = (classes == list(Premium).index(Premium.NONE)) & ~candidate
        rel = profile.arrays.get("set_backs_rel") if profile is not None else None
        relative_now = [rgb_to_bgr(v) * np.median(med[plain_now], axis=0) for v in rel] if rel is not None and plain_now.any() else []
        for bk in [*backs, *relative_now]:
            if np.isfinite(bk).all():
                not_back &= colour_distance(lab_med, to_lab(bk)) > 1.5 * _TILE_RADIUS
        for k in np.unique(classes):
            in_k = classes == k
            bare = in_k & ~candidate
            # A class's look is what its squares without a letter show: mostly empty
            # squares, a blank or back now and then. Prefer the ones unlike a tile body (or
            # a back) when there are enough (a board printed in a tile's colour leaves none, and
            # then the letters alone tell tiles apart); a class of one or two squares
            # (the centre) borrows the double-word look rather than a tile's.
            unlike = bare & not_tile & not_back
            sel = unlike if unlike.sum() >= max(1, 0.3 * bare.sum()) else bare
            if in_k.sum() < 3:
                # A class of one or two squares (the centre) cannot tell its empty look from
                # what lies on it: a back on the centre would be its own 'empty look'.
                continue
            if sel.sum() >= 1:
                empty_look[in_k] = median(med[sel], axis=0)
                empty_known[in_k] = True
        # Their look is not known: the centre borrows the double-word look (the centre is a
        # double word, usually printed alike), any other the board's typical look, and
        # either fit is only a hint (see kind_scores).
        borrowed = ~empty_known
        printed_like = classes.copy()
        if not empty_known[layout.centre]:
            dw = classes == list(Premium).index(Premium.DW)
            if empty_known[dw].any():
                empty_look[layout.centre] = empty_look[dw][0]
                empty_known[layout.centre] = True
                printed_like[layout.centre] = list(Premium).index(Premium.DW)
        if empty_known.any() and not empty_known.all():
            empty_look[~empty_known] = np.median(empty_look[empty_known], axis=0)
            empty_known[:] = True
        if profile_empty is not None and empty_known.all():
            borrowed[:] = False
            # The empty board of the profile, seen under another light and camera setting:
            # map its colours onto this photo's class looks (an affine map of colour, fitted
            # robustly), which keeps what is the square's own (a star, a label, a worn spot).
            mapped = _map_colours(profile_empty.astype(np.float32), empty_look)
            # Where the map misses this photo's own look of a class by more than a tile's
            # spread (a camera's colour response is not affine: a saturated red drifts),
            # the photo's look wins; the profile keeps only what is close to it.
            off = colour_distance(to_lab(mapped), to_lab(empty_look)) > _TILE_RADIUS
            empty_look = np.where(off[..., None], empty_look, mapped)
        d_e = np.where(empty_known, colour_distance(lab_med, to_lab(empty_look)), np.inf)
        # The light at each square: how much brighter each square is seen than its look, for
        # squares that look empty and for letters on a tile body, as a local median (light
        # changes over a few squares: a lamp's spot, a shadow), times one tint for the whole
        # board. Brightness alone varies locally: a hand or a sleeve over a few squares
        # changes their hue, and must stay foreign rather than be taken for light.
        samples = np.full((R, C, 3), np.nan, np.float32)
        # An empty square seen much brighter or dimmer than its look (a lamp's band across a
        # phone's view, a shadow over half the board) is the same colour under another light:
        # its look within the radius once one gain on every channel is taken out.
        emptyish = empty_known & ~candidate & ((d_e < 2.0 * _TILE_RADIUS)
                                               | (_shade_apart_each(stats.median, empty_look) < 0.5 * _TILE_RADIUS))
        samples[emptyish] = _ratio(stats.median[emptyish], empty_look[emptyish])
        if tiles:
            tileish = candidate & (d_t < 1.5 * _TILE_RADIUS)
            t_arr = np.array(tiles, np.float32)
            samples[tileish] = _ratio(body[tileish], t_arr[which[tileish]])
        known = np.isfinite(samples[..., 0])
        if known.any():
            log_s = np.log(np.maximum(samples, 1e-3))
            bright = log_s.mean(-1)
            tint = median((log_s - bright[..., None])[known], axis=0)
            field = local_field(np.where(known, bright, np.nan)[..., None])[..., 0]
            light = np.exp(field[..., None] + tint[None, None, :]).astype(np.float32)
        if tiles:
            # Tile colours under the light just found.
            for j in range(len(tiles)):
                mine = candidate & (which == j) & (d_t < 1.5 * _TILE_RADIUS)
                if mine.any():
                    tiles[j] = median((stats.body(polarity[j]) / light)[mine], axis=0)
    med = stats.median / light
    lab_med = to_lab(med)
    d_e = np.where(empty_known, colour_distance(lab_med, to_lab(empty_look)), np.inf)
    d_t, which = tile_distances(light)
    if tiles:
        # A letter whose body was no tile's colour before the light was known (a face in a
        # shadow's edge, a lamp's spot) is judged again under the light found from the others.
        candidate |= lettered & (d_t < 1.5 * _TILE_RADIUS)
    # The board's plain look here: what a back's calibrated ratio to it is carried by (a photo's
    # exposure scales both alike, whatever else lies on the board).
    plain = (classes == list(Premium).index(Premium.NONE)) & empty_known
    plain_look = np.median(empty_look[plain], axis=0) if plain.any() else None
    relative: list[np.ndarray] = []
    if profile is not None and plain_look is not None and "set_backs_rel" in profile.arrays:
        relative = [rgb_to_bgr(v) * plain_look for v in profile.arrays["set_backs_rel"]]
    if backs and match:
        # The profile's backs were seen under the profile's light and camera, as its faces
        # were: carry them as the faces found here differ from the profile's (one gain per
        # channel, the median over the sets found).
        gains = [_ratio(tiles[j], rgb_to_bgr(profile.sets[j].rgb)) for j in match if j < len(tiles)]
        if gains:
            gain_ = np.clip(np.median(np.array(gains), axis=0), 0.5, 2.0)
            backs = [np.clip((bk + 24.0) * gain_ - 24.0, 0, 255).astype(np.float32) for bk in backs]
    d_b = np.full((R, C), np.inf, np.float32)
    back_set = np.zeros((R, C), np.int64)
    # A back matches as carried by the faces, or by its ratio to the board's plain look: the
    # faces' colour found on a board swings with what lies on it (many faces, few), while the
    # board's own print is always there.
    for j, bk in [*enumerate(backs), *enumerate(relative)]:
        if not np.isfinite(bk).all():
            continue
        d = colour_distance(lab_med, to_lab(bk))
        back_set = np.where(d < d_b, j, back_set)
        d_b = np.minimum(d_b, d)
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
