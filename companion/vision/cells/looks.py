"""Stage 2 of reading the squares: each square's empty look, the light at each square, the backs.

Takes the squares' colour statistics (:mod:`.stats`), their premium classes, the lettered squares
on a tile's colour and the tile sets' colours (:mod:`.set_colours`), and the table's profile;
gives each square's empty look (its premium class's: what its squares without a letter show; or,
with a profile made from the empty board, each square's own, carried into this photo's colours),
the light at each square relative to the looks (a local median over the empty squares and the
lettered faces, times one tint for the board: :func:`_looks_and_light`), each square's distance
to the nearest tile colour (:func:`_tile_distances`) and to the nearest back the profile knows
(:func:`_backs_seen`)."""

from __future__ import annotations

import numpy as np

from companion.core.board import Layout, Premium
from companion.vision.cells.evidence import _TILE_RADIUS
from companion.vision.cells.set_colours import _by_hue
from companion.vision.cells.stats import SquareStats, _map_colours, _shade_apart_each, local_field
from companion.vision.colour import _ratio, colour_distance, rgb_to_bgr, to_lab
from companion.vision.medians import median
from companion.vision.profile import Profile
from companion.vision.sets import hue_apart

def _tile_distances(
    stats: SquareStats, tiles: list[np.ndarray], polarity: list[int], norm_light: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(R, C) each square's Lab distance to the nearest tile colour under ``norm_light``, and which
    set it is (:func:`_by_hue`)."""
    R, C = stats.median.shape[:2]
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


def _looks_and_light(
    stats: SquareStats, body: np.ndarray, classes: np.ndarray, layout: Layout, profile: Profile | None,
    candidate: np.ndarray, tiles: list[np.ndarray], polarity: list[int], backs: list[np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each square's empty look (BGR), whether it is known, the light at each square (per channel,
    relative to the looks), the squares whose look is only borrowed, and the class each square is
    printed like; found together over a few rounds, each under the light the last one found.
    ``candidate`` (lettered squares on a tile's colour) and ``tiles`` (their colours, under the
    light found) are refined in place."""
    R, C = classes.shape
    light = np.ones((R, C, 3), np.float32)
    profile_empty = profile.arrays.get("empty_bgr") if profile is not None else None
    empty_look = np.zeros((R, C, 3), np.float32)
    empty_known = np.zeros((R, C), bool)
    for _round in range(3):
        empty_known[:] = False
        med = stats.median / light
        lab_med = to_lab(med)
        d_t, which = _tile_distances(stats, tiles, polarity, light)
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
    return empty_look, empty_known, light, borrowed, printed_like


def _backs_seen(
    classes: np.ndarray, empty_look: np.ndarray, empty_known: np.ndarray, lab_med: np.ndarray,
    profile: Profile | None, backs: list[np.ndarray], match: dict[int, int], tiles: list[np.ndarray],
) -> tuple[np.ndarray | None, list[np.ndarray], np.ndarray, np.ndarray]:
    """The board's plain look, the profile's backs carried into this photo, and each square's
    Lab distance to the nearest back (inf: none known) and that back's set."""
    R, C = classes.shape
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
    return plain_look, backs, d_b, back_set
