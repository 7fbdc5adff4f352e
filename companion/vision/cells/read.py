"""The square reader's entry point: every square of a rectified board read, each stage in turn.

Takes the rectified board (:data:`~companion.vision.cells.geometry.CELL_PX`,
:data:`~companion.vision.cells.geometry.MARGIN`), the layout, the tile set and the table's
profile; gives one :class:`~companion.vision.reading.CellReading` per square, row-major
(:func:`read_cells`), or with what was found on the way (:func:`read_board_cells`). Also
:func:`learn_empty`: the profile's empty board, from a photo of it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.core.board import Layout
from companion.core.errors import CompanionError
from companion.core.tiles import BLANK, TileSet
from companion.vision.cells.doubt import clear_of_doubt
from companion.vision.cells.evidence import Evidence
from companion.vision.cells.faces import _faces, _full_face_size
from companion.vision.cells.gather import gather_evidence
from companion.vision.cells.geometry import CELL_PX, MARGIN, Geometry, _check, half_board
from companion.vision.cells.inks import _cap_height, _faces_apart, _read_inks, _turned_faces
from companion.vision.cells.kinds import _glare_explained, _glare_kinds, _shade_explained, kind_scores, loose_empty
from companion.vision.cells.premium_print import _print_shown
from companion.vision.cells.set_passes import (
    _backs_under_glare,
    _nearest_set,
    sets_as,
    _sets_by_faded_ink,
    _sets_by_ink,
    _sets_under_glare,
)
from companion.vision.cells.shapes import _outline_evidence, _outlined, _rim_evidence
from companion.vision.cells.stats import square_stats
from companion.vision.cells.tokens import find_tokens
from companion.vision.colour import bgr_to_rgb
from companion.vision.face import FaceInk
from companion.vision.letters import LetterGuess, letter_reader, softmax
from companion.vision.profile import Profile
from companion.vision.reading import BLANK_TURN, CellReading


@dataclass
class Reading:
    """Everything :func:`read_board_cells` found: the cells, and for diagnostics and
    calibration the evidence, each face's ink and each letter's guess."""

    cells: list[CellReading]
    evidence: Evidence
    inks: dict[tuple[int, int], FaceInk]
    guesses: dict[tuple[int, int], LetterGuess]


def read_cells(
    rectified: np.ndarray,
    cell_px: int = CELL_PX,
    margin: float = MARGIN,
    layout: Layout | None = None,
    tileset: TileSet | None = None,
    profile: Profile | None = None,
    backend: str = "own",
) -> list[CellReading]:
    """Every square of a rectified board (see the module's doc), row-major."""
    return read_board_cells(rectified, cell_px, margin, layout, tileset, profile, backend).cells


def read_board_cells(
    rectified: np.ndarray,
    cell_px: int = CELL_PX,
    margin: float = MARGIN,
    layout: Layout | None = None,
    tileset: TileSet | None = None,
    profile: Profile | None = None,
    backend: str = "own",
) -> Reading:
    """:func:`read_cells` with what it found on the way."""
    from companion.core.board import STANDARD
    from companion.core.tiles import get_tileset

    layout = layout or STANDARD
    tileset = tileset or get_tileset("en")
    geo = Geometry(layout.rows, layout.cols, cell_px, margin)
    _check(rectified, geo)
    ev = gather_evidence(rectified, geo, layout, profile, sorted(tileset.alphabet), dict(tileset.values))
    scores = kind_scores(ev)
    _glare_explained(ev, geo, scores)
    # Where colour leaves a pale face and an empty square close, a tile's own outline decides:
    # its rounded corners, and its rim across the sides (both asked on the same squares).
    rims = _rim_evidence(ev, geo, scores)
    ev.extra["outline"] = _outline_evidence(ev, geo, scores)
    scores[..., 1] += rims
    ev.extra["rims"] = rims
    _shade_explained(ev, scores)
    # Where the colour only loosely says "empty" (docs/vision-backs.md): the calibrated reader
    # asks about such a square where the network sees some tile body there too, or where its
    # outline stands out from its print's empty squares'.
    loose = loose_empty(scores, ev.glyph_at >= 0)
    ev.extra["loose_empty"] = loose
    ev.extra["outlined"] = _outlined(ev, geo, scores, loose)
    probs = softmax(scores)
    kind_idx = _glare_kinds(ev, scores)
    shown = _print_shown(ev, geo, kind_idx)
    if shown.any():
        # The print rules a face out; the colour that fitted one leaves the belief in doubt.
        scores[shown, 0] = scores[shown, :3].max(-1)
        probs = softmax(scores)
        kind_idx[shown] = 0
    R, C = geo.rows, geo.cols
    p = geo.cell_px

    centres, face_px, fits = _faces(ev, geo, kind_idx)
    face_px = _full_face_size(ev, kind_idx, centres, face_px, p)
    ev.extra["fits"] = fits
    ev.extra["face_px"] = face_px
    ev.extra["centres"] = centres

    grey = ev.extra["grey"]
    inks = _read_inks(grey, ev, kind_idx, centres, face_px, p)
    reader = letter_reader(profile.arrays if profile is not None else None) if backend == "own" else None
    if reader is not None:
        _turned_faces(inks, centres, ev.extra.get("turned_cuts", {}), reader, sorted(tileset.alphabet), dict(tileset.values))
        _faces_apart(inks, reader, sorted(tileset.alphabet), dict(tileset.values))
    _sets_by_ink(ev, inks)
    _sets_under_glare(ev, inks)
    _sets_by_faded_ink(ev, inks)
    _backs_under_glare(ev, kind_idx)

    letters = sorted(tileset.alphabet)
    values = dict(tileset.values)
    with_glyph = [(rc, f) for rc, f in inks.items() if f.glyph is not None]
    guesses: dict[tuple[int, int], LetterGuess] = {}
    if reader is not None:
        scored = reader.score([f for _, f in with_glyph], letters, values)
        scored = _cap_height(scored, [f for _, f in with_glyph])
        first = scored.decide(None, values)
        # The board's usual turn is a prior for every tile.
        turns = np.ones(4)
        for g in first:
            if g.p_rotation > 0.9:
                turns[g.rotation // 90] += 1
        prior_rot = 0.1 / 4 + 0.9 * turns / turns.sum()
        final = scored.decide(prior_rot, values)
        guesses = {rc: g for (rc, _), g in zip(with_glyph, final)}
    elif backend == "tesseract":
        from companion.vision.tesseract import read_faces

        guesses = read_faces(dict(with_glyph), letters, values)
        turns = np.ones(4)
        for g in guesses.values():
            turns[g.rotation // 90] += 1
    else:
        raise CompanionError(f"unknown letter backend {backend!r} (own, tesseract)")

    rotations: dict[tuple[int, int], int | None] = {rc: g.rotation for rc, g in guesses.items()}
    tokens, token_sure, odd = find_tokens(ev, layout, kind_idx, centres, face_px, rotations)
    ev.extra["odd"] = odd
    clear = clear_of_doubt(ev, kind_idx, odd)

    # Without a back colour known, a face-down tile is no kind the scores weigh: it reads as a
    # face without ink, a blank. With two colours of tiles on the board, one set's backs may
    # wear the other's face colour (white tiles with red backs beside red tiles): a face
    # without ink is then a blank or a back, and nothing here tells which (the table asks).
    back_or_blank = len(ev.tile_colours) >= 2 and not any(np.isfinite(b).all() for b in ev.back_colours)
    out: list[CellReading] = []
    for r in range(R):
        for c in range(C):
            k = int(kind_idx[r, c])
            pk = float(probs[r, c, k])
            tok = bool(tokens[r, c])
            # A token is one more thing to be sure of: a borderline disc halves the belief.
            tk = (0.5 + 0.5 * float(token_sure[r, c]) if tok else 1.0) * float(clear[r, c])
            if k == 0:
                out.append(CellReading(r, c, "empty", token=tok, confidence=_clip(pk * tk)))
                continue
            # The body's colour under the board's reference light (this photo's light and
            # exposure divided out): what the set looks like, wherever it lies.
            pol = ev.tile_polarity[int(ev.tile_set[r, c])] if (k == 1 and ev.tile_polarity) else 1
            seen = ev.stats.body(pol)[r, c] if k == 1 else ev.stats.median[r, c]
            rgb = bgr_to_rgb(seen / ev.light[r, c])
            set_name = _nearest_set(profile, ev, r, c, k)
            if k == 2:
                out.append(CellReading(r, c, "back", rgb=rgb, set=set_name, token=tok, confidence=_clip(pk * tk)))
                continue
            g = guesses.get((r, c))
            if g is None:
                ink = inks.get((r, c))
                # No letter-sized ink: a blank face. Ink that is there but unreadable is doubt.
                doubt = 0.5 if (ink is not None and ink.ink > 0.06) else 1.0
                if back_or_blank:
                    doubt = min(doubt, _BACK_OR_BLANK / 0.9)
                out.append(CellReading(r, c, "tile", BLANK, BLANK_TURN, rgb, set_name, tok, _clip(pk * 0.9 * doubt * tk)))
                continue
            conf = pk * g.p_letter * g.p_rotation * tk
            out.append(CellReading(r, c, "tile", g.letter, g.rotation, rgb, set_name, tok, _clip(conf)))
    # A square another reader turns into a face or a back has its set from here.
    ev.extra["sets_as"] = sets_as(profile, ev)
    return Reading(out, ev, inks, guesses)


_BACK_OR_BLANK = 0.45  # belief left in a face without ink that may as well be a face-down tile


def _clip(v: float) -> float:
    return float(min(1.0, max(0.0, v)))


def learn_empty(
    rectified: np.ndarray, cell_px: int = CELL_PX, margin: float = MARGIN, layout: Layout | None = None
) -> dict[str, np.ndarray]:
    """What each square of this board looks like when empty, for a profile
    (``calibrate --layout empty``): ``empty_bgr`` (rows, cols, 3) float32, the median colour
    of each square's middle after exposure normalisation (as :func:`gather_evidence` sees
    squares). Refuses a board with letters on it, with one line."""
    from companion.core.board import STANDARD

    layout = layout or STANDARD
    geo = Geometry(layout.rows, layout.cols, cell_px, margin)
    _check(rectified, geo)
    ev = gather_evidence(rectified, geo, layout, None)
    held = int(ev.glyph_ok.sum())
    if held:
        squares = ", ".join(f"({r}, {c})" for r, c in np.argwhere(ev.glyph_ok)[:4])
        raise CompanionError(f"calibration needs the empty board, but {held} square(s) hold letters: {squares}")
    small, small_geo, _ = half_board(rectified, geo)
    return {"empty_bgr": square_stats(small, small_geo).median.astype(np.float32)}
