"""Stage 4 of reading the squares: each face's ink, split into its letter and value digits, and
the turn.

Takes the faces found (:mod:`.faces`) and the full-resolution grey; gives each face-up tile's
:class:`~companion.vision.face.FaceInk` (the letter with its diacritics and the value digits,
:mod:`companion.vision.face`) cut around its letter (:func:`_read_inks`), with the faces read
again where the first cut found no value (:func:`_turned_faces`) or a value's ink joined the
letter (:func:`_faces_apart`); the turns at which a letter would stand shorter than the board's
capitals are ruled out (:func:`_cap_height`). Before any square is decided, every glyph is read
as the face around it (:func:`read_glyph_faces`: a tile's letter, or the board's print)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from companion.vision.cells.evidence import (
    _CROP,
    _DOUBTED,
    _LETTERNESS,
    _LETTER_SPAN,
    _TILE_RADIUS,
    _VALUE_TURN,
    Evidence,
)
from companion.vision.cells.geometry import Geometry
from companion.vision.cells.glyphs import Glyphs
from companion.vision.face import FaceInk, face_crop, split_face
from companion.vision.letters import CORNER_OF_TURN, FaceScores, LetterReader
from companion.vision.medians import median


@dataclass
class Faces:
    """The faces read where a letter-like glyph was found, before any square is decided: each
    face's ink (at full resolution, around the glyph) and how much the letter network takes
    those with a letter for one (``order``: their squares). Their letters, turns and values
    are read later, on the faces cut again around each tile (:func:`_read_inks`)."""

    inks: dict[tuple[int, int], FaceInk]
    order: list[tuple[int, int]]
    letterness: np.ndarray  # (R, C) the network's belief that the square shows a letter, 0 without
    # (R, C) a glyph the network doubts whose face shows that letter's value in its corner
    valued: np.ndarray | None = None


def _split_either_way(crop: np.ndarray, hint: int | None, **kw) -> FaceInk:
    """:func:`split_face` with the ink's polarity told by the face itself; where that finds no
    letter, with ``hint``'s (the polarity the letter was seen in elsewhere). A lamp's glare
    over a face brightens part of its body, and then the body's light tail outweighs a faint
    dark letter's: the face alone takes the glare for light ink."""
    ink = split_face(crop, **kw)
    if ink.glyph is None and hint is not None and hint != ink.polarity:
        other = split_face(crop, polarity=hint, **kw)
        if other.glyph is not None:
            return other
    return ink


def read_glyph_faces(
    grey: np.ndarray, glyphs: Glyphs, at: np.ndarray, geo: Geometry, reader: LetterReader, letters: list[str],
    values: dict[str, int] | None = None,
) -> Faces:
    """Every square's glyph read at full resolution as the face around it: the letter with its
    diacritics and value digits (:func:`companion.vision.face.split_face`), then the network.
    What tells a tile's letter from the board's print: print found at half resolution falls
    apart into small pieces (a premium's label) or reads as no letter (teeth, a star, a plain
    square's edge). A letter the network doubts (a bar: a serif I, an I a lamp's glare fades
    along its length, looks like a piece of print) is a face's where the face shows that
    letter's value, read in the corner its turn puts it (``values``, the tile set's; without
    them nothing is confirmed): print has no value beside it."""
    inks: dict[tuple[int, int], FaceInk] = {}
    order: list[tuple[int, int]] = []
    crops: dict[tuple[int, int], tuple[np.ndarray, int]] = {}
    for r, c in np.argwhere(at >= 0):
        i = int(at[r, c])
        crop = face_crop(grey, (float(glyphs.x[i]), float(glyphs.y[i])), _CROP * geo.cell_px)
        # The ink's polarity from the face itself: the glyph at half resolution may be a light
        # speck inside a dark letter, or the other way round. (The letter alone: the value is
        # read on the faces cut again around each tile.)
        ink = _split_either_way(crop, int(glyphs.polarity[i]), face_frac=0.92 / _CROP, values=False)
        inks[(int(r), int(c))] = ink
        if ink.glyph is not None:
            order.append((int(r), int(c)))
            crops[(int(r), int(c))] = crop, int(glyphs.polarity[i])
    letterness = np.zeros(at.shape, np.float32)
    for rc, v in zip(order, reader.letterness([inks[rc] for rc in order], letters)):
        letterness[rc] = v
    valued = np.zeros(at.shape, bool)
    doubted = [rc for rc in order if _DOUBTED <= letterness[rc] < _LETTERNESS]
    if values and doubted:
        # (Read with its value only where the doubt lies: the value's digits are read again
        # for every face later, on the faces cut around each tile.)
        full = [(rc, ink) for rc in doubted
                if (ink := _split_either_way(*crops[rc], face_frac=0.92 / _CROP)).glyph is not None and ink.corner is not None]
        if full:
            guesses = reader.score([ink for _, ink in full], letters, values).decide(None, values)
            for (rc, _), g in zip(full, guesses):
                valued[rc] = bool(g.value_agrees) and g.p_rotation >= _VALUE_TURN
    return Faces(inks, order, letterness, valued)


def _read_inks(
    grey: np.ndarray,
    ev: Evidence,
    kind_idx: np.ndarray,
    centres: dict[tuple[int, int], np.ndarray],
    face_px: float,
    p: int,
) -> dict[tuple[int, int], FaceInk]:
    """The ink of every face-up tile, its crop centred on the face. The faces found at half
    resolution are a few pixels off, enough to push the small value digits out of a crop a
    square wide; the letter, found at full resolution, sits at one place on every face of a
    set: each face is cut again around its letter, moved by the set's usual offset (turned
    with the tile when the upright cut finds no value; ``centres`` corrected). A face whose
    letter is well under the board's letters' size holds no letter."""
    side = _CROP * p
    frac = min(0.97, face_px / side)

    def cut(rc: tuple[int, int], centre: np.ndarray) -> FaceInk:
        j = int(ev.tile_set[rc])
        pol = ev.tile_polarity[j] if j < len(ev.tile_polarity) else None
        crop = face_crop(grey, (float(centre[0]), float(centre[1])), side)
        if ev.d_tile[rc] > _TILE_RADIUS or j in ev.extra.get("ink_guessed", ()):
            # A body unlike its set's (a lamp's glare, a tint), or a set's ink not seen: the
            # face tells its ink; failing a letter that way, its glyph's or its set's way.
            g = int(ev.glyph_at[rc])
            hint = int(ev.glyphs.polarity[g]) if g >= 0 else pol
            return _split_either_way(crop, hint, face_frac=frac)
        return split_face(crop, polarity=pol, face_frac=frac)

    # Where each letter lies at full resolution: known already where its glyph was read (a
    # crop around the glyph, :func:`read_glyph_faces`), else from a first cut around the face.
    # Each face is then cut once, around its letter moved by its set's usual offset.
    seen: Faces | None = ev.extra.get("faces")

    def seen_ink(rc: tuple[int, int]) -> FaceInk | None:
        return seen.inks.get(rc) if seen is not None and ev.glyph_at[rc] >= 0 else None

    inks: dict[tuple[int, int], FaceInk] = {}
    letter_at: dict[tuple[int, int], np.ndarray] = {}
    turned: dict[tuple[int, int], list[tuple[int, np.ndarray, FaceInk]]] = {}
    ev.extra["turned_cuts"] = turned
    for rc, centre in centres.items():
        rc = (int(rc[0]), int(rc[1]))
        if kind_idx[rc] != 1:
            continue
        g = int(ev.glyph_at[rc])
        known = seen.inks.get(rc) if seen is not None and g >= 0 else None
        if known is not None and known.box is not None:
            gx, gy = float(ev.glyphs.x[g]), float(ev.glyphs.y[g])
            origin = np.array([round(gx - side / 2.0), round(gy - side / 2.0)], np.float64)
        else:
            known = inks[rc] = cut(rc, centre)
            origin = np.round(np.asarray(centre, np.float64) - side / 2.0)
        if known.box is not None:
            x, y, w, h = known.box
            letter_at[rc] = origin + (x + w / 2.0, y + h / 2.0)
    # A letter box much longer than the letters' usual one took in something beside the
    # letter (a neighbour's edge, a shadow): its centre does not say where the face lies.
    # Usual for its own set where the set shows enough faces: sets may be printed in
    # fonts of different sizes (one set's letters a quarter taller than another's).
    spans = {rc: float(max(b.box[2], b.box[3])) for rc in letter_at if (b := inks.get(rc) or seen_ink(rc)) is not None and b.box}
    usual = float(median(list(spans.values()))) if len(spans) >= 5 else np.inf
    set_spans: dict[int, list[float]] = {}
    for rc, span in spans.items():
        set_spans.setdefault(int(ev.tile_set[rc]), []).append(span)
    set_usual = {j: float(np.median(v)) if len(v) >= 5 else usual for j, v in set_spans.items()}
    letter_at = {rc: at for rc, at in letter_at.items() if spans.get(rc, 0.0) <= 1.25 * set_usual.get(int(ev.tile_set[rc]), usual)}
    by_set: dict[int, list[np.ndarray]] = {}
    doubtful: dict[int, list[np.ndarray]] = {}
    doubted = ev.extra.get("doubted")
    for rc, at in letter_at.items():
        # (Not from letters the network doubted, where a set has others: a piece of a letter
        # taken for one lies off its face's middle, and would move every face's cut.)
        mine = doubtful if doubted is not None and doubted[rc] else by_set
        mine.setdefault(int(ev.tile_set[rc]), []).append(np.asarray(centres[rc], np.float64) - at)
    for j, offs in doubtful.items():
        by_set.setdefault(j, offs)
    every = np.median(np.concatenate([np.stack(v) for v in by_set.values()]), axis=0) if by_set else None
    set_offset = {j: np.median(np.stack(offs), axis=0) if len(offs) >= 3 else every for j, offs in by_set.items()}
    for rc, centre in centres.items():
        rc = (int(rc[0]), int(rc[1]))
        if kind_idx[rc] == 1 and rc not in letter_at and rc not in inks:
            inks[rc] = cut(rc, centre)
    for rc, at in letter_at.items():
        offset = set_offset[int(ev.tile_set[rc])]
        moved = at + offset
        if np.hypot(*(moved - centres[rc])) > 1.5:
            centres[rc] = moved
            inks[rc] = cut(rc, moved)
        elif rc not in inks:
            inks[rc] = cut(rc, centres[rc])
        if inks[rc].glyph is not None and inks[rc].corner is None:
            # The usual offset is an upright face's (the letter printed a little above the
            # middle); on a turned tile it turns with the face, and a face cut as if upright
            # can lose its value past the crop's edge. Each other turn's cut that finds ink in
            # the corner that turn puts the value in is kept aside for the letters to judge
            # (:func:`_turned_faces`): the face's edge can leave ink there too.
            for k in (1, 2, 3):
                dx, dy = float(offset[0]), float(offset[1])
                for _ in range(k):
                    dx, dy = -dy, dx  # a quarter turn clockwise (y down)
                turned_at = at + np.array([dx, dy])
                ink = cut(rc, turned_at)
                if ink.glyph is not None and ink.corner == CORNER_OF_TURN[k]:
                    turned.setdefault(rc, []).append((k, turned_at, ink))
    # As at half resolution (:func:`gather_evidence`): a mark well under the board's letters'
    # size is no letter (a token's disc on a blank face reads as an O).
    spans = {rc: max(i.box[2], i.box[3]) for rc, i in inks.items() if i.glyph is not None and i.box is not None}
    if len(spans) >= 5:
        usual = float(median(list(spans.values())))
        for rc, span in spans.items():
            if span < _LETTER_SPAN * usual:
                inks[rc] = replace(inks[rc], glyph=None, digits=(), corner=None, rival_corner=None, rival_digits=())
    return inks


_CAP_SHORT = (0.72, 0.6)  # a letter's upright height, in the board's capitals' height: no doubt above (a W kept clear of its value: 0.77), none left below
_CAP_WEIGHT = 4.0  # log-belief taken from a turn at which the letter would stand that short (as a wrong corner's)
_CAP_LEAST = 5  # faces read surely, without which the board's capitals' height is not known


def _cap_height(scored: FaceScores, faces: list[FaceInk]) -> FaceScores:
    """The turns at which a face's letter would stand shorter than the board's capitals,
    ruled out: every capital of a font is as tall as the others (the cap height), whatever
    its width, so a letter's box is that tall along the tile's upright axis. A box half as
    tall as wide is a letter on its side (an E turned a quarter, whose picture the network
    takes upright for an O). The capitals' height is that of the faces read surely, along
    the turn they were read at; what is taller (diacritics, a Q's tail) says nothing."""
    if len(faces) < _CAP_LEAST:
        return scored
    boxes = np.array([f.box if f.box is not None else (0, 0, 0, 0) for f in faces], np.float64)
    # (N, 4): the box's extent along the tile's upright axis at each turn.
    upright = np.where(np.arange(4)[None, :] % 2 == 0, boxes[:, 3:4], boxes[:, 2:3])
    # The faces read surely (as FaceScores.decide reads them with no prior).
    turn, _, p_letter, p_turn = scored.best()
    rows = np.arange(len(faces))
    sure = (p_turn > 0.9) & (p_letter > 0.9) & (boxes[:, 2] > 0)
    if sure.sum() < _CAP_LEAST:
        return scored
    cap = float(median(upright[rows[sure], turn[sure]]))
    hi, lo = _CAP_SHORT
    short = np.clip((hi - upright / cap) / (hi - lo), 0.0, 1.0)
    short[boxes[:, 2] <= 0] = 0.0
    if not short.any():
        return scored
    return replace(scored, logp=scored.logp - _CAP_WEIGHT * short[:, :, None])


def _turned_faces(
    inks: dict[tuple[int, int], FaceInk], centres: dict[tuple[int, int], np.ndarray],
    turned: dict[tuple[int, int], list[tuple[int, np.ndarray, FaceInk]]], reader: LetterReader,
    letters: list[str], values: dict[str, int],
) -> None:
    """Faces cut as if upright that found no value, cut again as each other turn places the
    face (:func:`_read_inks`): a cut is taken (``inks`` and ``centres`` in place) when the
    letters read there are best at that turn and the value read in that turn's corner is
    the letter's. Ink the face's edge leaves in that corner reads as no such value."""
    # (Not a face whose mark was found too small for a letter.)
    alts = [(rc, k, at, ink) for rc, cuts in turned.items() if rc in inks and inks[rc].glyph is not None
            for k, at, ink in cuts]
    if not alts:
        return
    guesses = reader.score([a[3] for a in alts], letters, values).decide(None, values)
    taken: set[tuple[int, int]] = set()
    for (rc, k, at, ink), g in zip(alts, guesses):
        if rc not in taken and g.rotation == 90 * k and g.value_agrees:
            inks[rc], centres[rc] = ink, at
            taken.add(rc)


# A letter read whole at least this surely, its value found apart, is no letter maimed (the
# other edition's letters maimed by a value taken in: at most 0.62; blurred E's whole: 0.85 up).
_SURE_WHOLE = 0.8


def _faces_apart(inks: dict[tuple[int, int], FaceInk], reader: LetterReader, letters: list[str],
                 values: dict[str, int]) -> None:
    """Faces whose letter took in ink where a value printed against it lies
    (:attr:`companion.vision.face.FaceInk.apart`), read both ways: the face read with that
    ink apart is taken (``inks`` in place) where the value read there is the letter read
    there, the face read whole reads no value that is its letter's, and the letter reads
    surer apart (a letter's own stroke taken for its value leaves a letter maimed).

    A face read whole as a letter surely (:data:`_SURE_WHOLE`), with value ink of its own
    found in a corner, keeps its letter: its value misread (a faint 1 read as a 0) is no
    reason to cut a stroke off it (a blurred E's foot, broken off its stem beside the value's
    corner, read with the 1 as a 4: an F). A value taken into the letter leaves a letter
    read unsurely (Hasbro's P and its 3, an R: at most 0.62 on the other edition's photos,
    with a neighbour's ink taken for its value), and the 1 of a Q's 10 touching its tail
    leaves the letter as it was."""
    rcs = [rc for rc, f in inks.items() if f.glyph is not None and f.apart is not None]
    if not rcs:
        return
    faces = [inks[rc] for rc in rcs] + [inks[rc].apart for rc in rcs]
    guesses = reader.score(faces, letters, values).decide(None, values)
    for m, rc in enumerate(rcs):
        whole, apart = guesses[m], guesses[len(rcs) + m]
        if not (apart.value_agrees and not whole.value_agrees and apart.p_letter > whole.p_letter):
            continue
        if whole.value is not None and apart.letter != whole.letter and whole.p_letter >= _SURE_WHOLE:
            continue
        inks[rc] = inks[rc].apart
