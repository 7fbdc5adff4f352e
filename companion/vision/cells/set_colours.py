"""Stage 2 of reading the squares, the tile sets: which colours the lettered faces' bodies show,
and which set each is.

Takes the bodies around the letters found (BGR, with their ink's polarity) and the profile's
sets' colours when there is a profile; gives the board's tile colours (:func:`_tile_bodies`: the
dense colours of the bodies around letters, unless the board's own print) named as the
profile's sets (:func:`_sets_named`), their ink, and each square's set: matched one to one with the profile's sets (:func:`_match_sets`), split among
them under one light (:func:`_split_by_sets`, :func:`_sets_by_light`), one set seen in two
lights merged (:func:`_one_set_in_two_lights`), a set told by hue where its colours are apart
(:func:`_by_hue`), the ink of a set no face was taken for (:func:`_unseen_set_ink`), and whether
a colour is no named set's (:func:`_unnamed_apart`: a set the profile does not name)."""

from __future__ import annotations

import numpy as np

from companion.vision.cells.evidence import _TILE_RADIUS
from companion.vision.cells.inks import Faces
from companion.vision.cells.stats import SquareStats, _modes
from companion.vision.colour import colour_distance, luminance, rgb_to_bgr, to_lab
from companion.vision.profile import Profile
from companion.vision.sets import carry, fit_light, hue_apart, name_found, shade_apart


_UNNAMED_APART = 1.5 * _TILE_RADIUS  # Lab distance from a profile set's colour beyond which a face colour may be another set


# Shares of white a lamp's glare mixes into a face whose letter is still found: its ink keeps
# half its contrast at least (faces washed further make no colour of lettered faces).
_UNNAMED_GLARE = np.linspace(0.0, 0.5, 11)[:, None]
_UNNAMED_HUE = 12.0  # ... and hue distance once a shade is taken out (one set in shade: under 2; two sets: 23 up)


def _match_sets(got: list[np.ndarray], want: list[np.ndarray]) -> dict[int, int]:
    """Which found colour (index into ``got``) is each wanted set (index into ``want``): the
    one-to-one assignment whose colours differ from each other as the sets' do, then lie
    nearest them; a found colour far from every set is nobody's."""
    from itertools import permutations

    if not got or not want:
        return {}
    n = min(len(got), len(want))
    best: tuple[float, dict[int, int]] = (np.inf, {})
    for sets in permutations(range(len(want)), n):
        for found in permutations(range(len(got)), n):
            g = np.array([got[i] for i in found])
            w = np.array([want[j] for j in sets])
            relative = float(colour_distance(g - g.mean(0), w - w.mean(0)).sum()) if n > 1 else 0.0
            absolute = float(colour_distance(g, w).sum())
            cost = relative + 0.3 * absolute
            if cost < best[0]:
                best = (cost, dict(zip(sets, found)))
    return {j: i for j, i in best[1].items() if float(colour_distance(got[i], want[j])) < 4 * _TILE_RADIUS}


def _split_by_sets(
    bodies: np.ndarray, pols: np.ndarray, found: list[np.ndarray], sets: list[np.ndarray]
) -> tuple[list[np.ndarray], list[int]] | None:
    """The faces' bodies (N, 3 BGR) split among the profile's ``sets`` (BGR) as those would
    look under one light (:func:`companion.vision.sets.fit_light`, started from each colour
    ``found`` taken for each set). Its colours (the medians of their bodies, at least two each) with
    their ink polarity, or None when the bodies do not fall apart into sets that differ
    as the profile's do."""
    if len(bodies) < 4:
        return None
    want = np.array(sets, np.float32)
    _, assign, _ = fit_light(bodies, found, sets)
    groups = [j for j in range(len(want)) if (assign == j).sum() >= 2]
    if len(groups) <= len(found):
        return None
    colours = [np.median(bodies[assign == j], axis=0) for j in groups]
    # Sets that differ as the profile's do: each pair of groups at least half as far apart as
    # their sets (noise split along a set's own spread stays one colour), and as far in hue
    # alone (a shadow over some faces of one set parts them by lightness only).
    for a in range(len(groups)):
        for b in range(a + 1, len(groups)):
            la, lb = to_lab(colours[a]), to_lab(colours[b])
            wa, wb = to_lab(want[groups[a]]), to_lab(want[groups[b]])
            if float(colour_distance(la, lb)) < 0.5 * float(colour_distance(wa, wb)):
                return None
            if hue_apart(la, lb) < 0.5 * hue_apart(wa, wb):
                return None
    return colours, [int(np.sign(np.median(pols[assign == j])) or 1) for j in groups]


def _one_set_in_two_lights(
    bodies: np.ndarray, tiles: list[np.ndarray], polarity: list[int], members: list[np.ndarray],
    sets: list[np.ndarray],
) -> tuple[list[np.ndarray], list[int], list[np.ndarray]]:
    """The colours found (``tiles``, BGR, with their ink ``polarity`` and ``members``, masks
    over the lettered ``bodies``) with those that differ from another of the same ink by
    lightness only merged: apart in hue, once one gain on all channels brings them to one
    lightness (:func:`companion.vision.sets.shade_apart`), by less than half what the closest
    two of the profile's ``sets`` are, they are one set in two lights."""
    want = [to_lab(w) for w in sets]
    least = min(hue_apart(want[a], want[b]) for a in range(len(want)) for b in range(a + 1, len(want)))
    tiles, polarity, members = list(tiles), list(polarity), list(members)
    i = 0
    while i < len(tiles):
        j = i + 1
        while j < len(tiles):
            if polarity[i] == polarity[j] and shade_apart(tiles[i], tiles[j]) < 0.5 * least:
                members[i] = members[i] | members.pop(j)
                tiles.pop(j)
                polarity.pop(j)
                tiles[i] = np.median(bodies[members[i]], axis=0)
            else:
                j += 1
        i += 1
    return tiles, polarity, members


def _sets_by_light(
    bodies: np.ndarray, pols: np.ndarray, lettered: list[np.ndarray], kept: list[np.ndarray],
    tiles: list[np.ndarray], profile: Profile,
) -> tuple[dict[int, int], list[np.ndarray], list[int | None]]:
    """Fewer colours found than the profile has sets, and no split of them: which set each
    colour found is, by the one light that carries the profile's colours onto every lettered
    face here (:mod:`companion.vision.sets`), every set's colour under that light, and the
    ink of each set's faces there (None: no face of it). ``bodies``, ``pols``: the lettered
    faces' bodies and ink polarities; ``lettered``: each colour group's mask over them (a
    group too small to be kept is still faces); ``kept``: the masks of ``tiles``."""
    want = [rgb_to_bgr(s_.rgb) for s_ in profile.sets]
    faces_ = np.any(lettered, axis=0)
    gain, assign, _ = fit_light(bodies[faces_], tiles, want)
    match = name_found(tiles, [m[faces_] for m in kept], assign, len(want))
    inks = [int(np.sign(np.median(pols[faces_][assign == j])) or 1) if (assign == j).any() else None
            for j in range(len(want))]
    return match, [carry(w, gain) for w in want], inks


_HUE_CLEAR = 0.5  # a face this much nearer one set in hue than its nearest colour's is that set's


def _by_hue(which: np.ndarray, hues: np.ndarray, tiles: list[np.ndarray]) -> np.ndarray:
    """(R, C) each square's set: its nearest colour's (``which``), or the set clearly nearest
    in hue (``hues``: (n_sets, R, C), :func:`companion.vision.sets.hue_apart` of the square
    to each set's colour ``tiles``, Lab) where the two sets differ in hue by more than a
    tile's spread. The board's light is known only as a smooth field: a shadow's edge, a
    gradient at the board's edge, a spot the field misses leave a face lighter or darker
    than its set by as much as two sets differ in lightness (a dim photo's ivory and wood),
    but its hue where it was."""
    n = len(tiles)
    if n < 2:
        return which
    near = hues.argmin(0)
    h_near = np.take_along_axis(hues, near[None], 0)[0]
    h_which = np.take_along_axis(hues, which[None], 0)[0]
    flip = (near != which) & (h_near <= _HUE_CLEAR * h_which)
    if not flip.any():
        return which
    apart = np.array([[hue_apart(tiles[a], tiles[b]) for b in range(n)] for a in range(n)])
    flip &= apart[near, which] >= 0.5 * _TILE_RADIUS
    return np.where(flip, near, which)


def _unseen_set_ink(colours: list[np.ndarray], pols: list[int], unseen: list[int], bodies: np.ndarray,
                    face_pols: np.ndarray) -> set[int]:
    """The ink of sets no face was taken for (too few of their faces had a plain body around
    the letter), ``pols`` in place: how the faces with a letter nearest such a set's colour
    print it, when most of them agree. Its colour's lightness alone does not tell (white
    letters on a mid blue, dark ones on a pink as light). The sets decided so."""
    if not unseen or not len(bodies):
        return set()
    lab = to_lab(bodies)
    d = np.stack([colour_distance(lab, to_lab(c)) for c in colours], axis=1)
    nearest = d.argmin(1)
    decided: set[int] = set()
    for j in unseen:
        votes = int(face_pols[nearest == j].sum())
        if votes:
            pols[j] = 1 if votes > 0 else -1
            decided.add(j)
    return decided


def _unnamed_apart(found: np.ndarray, named: np.ndarray) -> bool:
    """Whether a face colour found (BGR) is no look of a named set's colour here: far from
    it, apart in hue once a shade is taken out (:func:`shade_apart`), and off its path to
    white (a lamp's glare washes a set paler, never darker or more coloured)."""
    seen = to_lab(found)
    washed = np.asarray(named, np.float32)[None] * (1.0 - _UNNAMED_GLARE) + 255.0 * _UNNAMED_GLARE
    return (float(colour_distance(seen, to_lab(named))) > _UNNAMED_APART
            and shade_apart(found, named) > _UNNAMED_HUE
            and float(colour_distance(to_lab(washed.astype(np.float32)), seen).min()) > _UNNAMED_APART)


def _tile_bodies(
    stats: SquareStats, body: np.ndarray, pol: np.ndarray, candidate: np.ndarray, faces: Faces, classes: np.ndarray,
) -> tuple[list[np.ndarray], list[int], list[np.ndarray], list[np.ndarray]]:
    """The tile sets' colours found (BGR) and their ink's polarity, with the members of each (masks
    over the ``candidate`` squares) and the members of every colour of lettered faces, kept or
    not."""
    # Tile bodies: the dense colours of the bodies around letters (tiles look alike on every
    # square), each kept unless it is the board's own print.
    tiles: list[np.ndarray] = []
    polarity: list[int] = []
    kept_members: list[np.ndarray] = []
    lettered_members: list[np.ndarray] = []
    if candidate.any():
        lab_body = to_lab(body)
        modes = _modes(lab_body[candidate], _TILE_RADIUS, 4)
        like_c = faces.letterness[candidate]
        largest = 0
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
    return tiles, polarity, kept_members, lettered_members


def _sets_named(
    profile: Profile | None, body: np.ndarray, pol: np.ndarray, candidate: np.ndarray, has: np.ndarray,
    tiles: list[np.ndarray], polarity: list[int], kept_members: list[np.ndarray], lettered_members: list[np.ndarray],
) -> tuple[list[np.ndarray], list[int], list[np.ndarray], dict[int, int], set[int]]:
    """The tile colours found named as the profile's sets (:mod:`.set_colours`), in the profile's
    order, then any colour no set of it is; their ink; the backs the profile knows (BGR); which
    colour found each set is (``match``); and the sets whose ink was only guessed."""
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
    return tiles, polarity, backs, match, ink_guessed
