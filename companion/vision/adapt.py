"""Reading with a table's profile, bounded by reading without it (issue 22: learning a table
must never make reading worse). Runs where the profile holds prototypes of this network
(:func:`companion.vision.prototypes.usable`); docs/vision-adapt.md has the figures.

The hand-written reader with a profile (``profiled``) names sets and knows backs, but a profile
also made it worse in ways no calibration photo shows: tiles of a named set read empty under a
lamp, empty squares of the set's colour read as its backs, a held-out font's letters pulled to
the user's sample of a neighbour. So the profiled reading *proposes*, and each square's answer
is chosen among what the unprofiled rules (the same rectified board read again without the
profile) allow, weighed by witnesses that the profile's colours cannot mislead: the network's
heads and the table's prototypes (its calibration photos' squares, embedded).

- **kind**: where the two rules see the same kind, that kind; where they part, the one with
  the higher score, summing the log beliefs of the network, the prototypes and the unprofiled
  rules' own confidence (the profiled rules do not witness their own answer). A tile of a set
  no profile names is read a tile by the rules without the profile and by the network: it
  stays a tile. Where both rules agree but the network and the prototypes are both at least
  :attr:`Weights.overrule` sure of another kind (a tile under a lamp's spot read empty by
  both), theirs. Under a token's disc a back the profiled rules see stands (the network sees
  the disc).
- **letter**, **turn** of a face: where the two rules part, the one of theirs the network and
  the prototypes favour; where both agree but the network and the prototypes are both
  :attr:`Weights.overrule` sure of another, theirs.
- **token**: the profiled rules' (the network's token head is not trusted, docs/vision-model.md;
  taking the unprofiled rules' token was tried: one square better on the development seeds,
  one worse on the real photos with an empty-board profile).
- **set**: the profiled rules'. Where they name none (a lamp moved a face's colour away from
  every set's), the set the prototypes give at least :attr:`Weights.set_sure`. A set the rules
  named from the square's own colour is never overruled by the prototypes: the network's
  embedding hardly sees colour, and on the development strangers every set it put in place of
  a named one lay far from the square's colour (red tiles named white, 52203). Where the
  profiled rules saw no letter on a face that has one (they read it with the ink of the set
  they took it for: green tiles with white letters taken for a white set printed in black,
  52142), the set they named rests on that mistake: the square is asked about unless the
  prototypes back the set. A face whose letter, read without the profile, is printed the other
  way round from every named set is named by neither (a set the profile does not name: with
  one set calibrated the prototypes' set belief is that set's whatever the face).
- **confidence**: where the answer is not the unprofiled rules', or the two rules parted, at
  most :data:`~companion.vision.model.DISAGREE_CAP`, under the table's SURE: the table asks;
  unless the network and the prototypes both back the answer at even odds or better (a back,
  which without a profile looks like a blank), or the unprofiled rules were under
  :attr:`Weights.unsure` (they did not know: nothing to disagree with).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from companion.core.board import Layout
from companion.core.tiles import TileSet
from companion.vision.cells import CELL_PX, MARGIN, read_board_cells
from companion.vision.cells.set_passes import unnamed_faces
from companion.vision.model import DISAGREE_CAP, Beliefs, load_square_model, network_run
from companion.vision.profile import Profile
from companion.vision import prototypes
from companion.vision.prototypes import Match
from companion.vision.reading import BLANK_FACE, BLANK_TURN, KINDS, ROTATIONS, CellReading

FLOOR = 1e-3  # a probability's floor in the log scores: no one witness vetoes an answer outright


@dataclass(frozen=True)
class Weights:
    """How much each witness counts (log-probability weights) and when prototypes speak."""

    model: float = 1.0
    # Log odds by which the witnesses must favour the unprofiled kind over the profiled one to
    # take it: where the prototypes speak, and where they do not (the network and the
    # unprofiled rules alone: the network errs on real photos' edge squares, docs/vision-adapt.md).
    margin: float = float(np.log(10.0))
    margin_alone: float = float(np.log(100.0))
    rules: float = 1.0
    proto: float = 1.0
    # Cosine to the nearest prototype below which a square is unlike anything the table showed
    # (a lamp's glare, a shadow): there the prototypes do not speak. The table's own squares
    # match at 0.95 and more.
    similar: float = 0.9
    overrule: float = 0.9  # network and prototypes both this sure of another kind than the rules: theirs
    # The unprofiled rules under this confidence did not know: no disagreement to tell (a back
    # face down among faces, which the network reads empty; Scrabble III's demo, J12).
    unsure: float = 0.01
    backed: float = 0.5  # network and prototypes both at least this for an answer: not capped
    set_sure: float = 0.9  # the prototypes' set probability at which it names the square's set


WEIGHTS = Weights()


def _score(p_model: float, p_proto: float | None, w: Weights) -> float:
    s = w.model * np.log(max(p_model, FLOOR))
    if p_proto is not None:
        s += w.proto * np.log(max(p_proto, FLOOR))
    return float(s)


@dataclass(frozen=True)
class Adapted:
    """What the adaptation read and what it saw on the way: the calibrator's evidence of a
    profiled reading (:mod:`companion.vision.confidence`)."""

    cells: list[CellReading]
    doubts: list[int]  # squares whose confidence the bound capped
    unprofiled: list[CellReading]  # the rules' reading without the profile
    match: Match  # the prototypes' beliefs
    named: tuple[str, ...]  # the sets the profile names
    unnamed: np.ndarray  # (N,) faces printed unlike every named set: a set the profile does not name


def adapt_reading(
    top_down: np.ndarray, profiled: Sequence[CellReading], grid: int, layout: Layout, tileset: TileSet,
    profile: Profile, backend: str = "own", beliefs: Beliefs | None = None, printed: Sequence[int] = (),
) -> Adapted:
    """:func:`adapt` of a rectified board: reads it again without the profile, and uses the
    network's heads and embedding (``beliefs``: the photo's one run, made by the caller; or run
    here). ``printed``: the ink polarity of each set the profile names, as the profiled rules
    found it: a face read without the profile whose ink is the other way round is a set the
    profile does not name (:func:`~companion.vision.cells.set_passes.unnamed_faces`)."""
    plain = read_board_cells(top_down, CELL_PX, MARGIN, layout, tileset, profile=None, backend=backend)
    unprofiled = plain.cells
    unnamed = unnamed_faces(printed, plain.inks, grid, grid)
    if beliefs is None:
        beliefs = network_run(top_down, grid, grid, CELL_PX, MARGIN)[1]
    found = prototypes.match(beliefs.embedding, profile.arrays)
    doubts: list[int] = []
    named = tuple(s.name for s in profile.sets)
    cells = adapt(profiled, unprofiled, beliefs, found, tileset, named, doubts=doubts, unnamed=unnamed)
    return Adapted(cells, doubts, list(unprofiled), found, named, unnamed)


def adapt(
    profiled: Sequence[CellReading], unprofiled: Sequence[CellReading], beliefs: Beliefs, match: Match | None,
    tileset: TileSet, named: Sequence[str] = (), w: Weights = WEIGHTS, doubts: list[int] | None = None,
    unnamed: np.ndarray | None = None,
) -> list[CellReading]:
    """Each square's reading with the profile, bounded by ``unprofiled`` (module doc). ``named``:
    the sets the profile names (a prototype's set that the profile keeps no colour of is not one).
    ``doubts``: given, the squares whose confidence the bound capped are added to it (a doubt
    that must outlive the square reader's own confidence). ``unnamed``: (N,) the faces whose
    ink is printed unlike every named set's; the prototypes name no set for a face there (with one set calibrated their set belief is that
    set's, whatever the face)."""
    letters = load_square_model().letters
    p_letter = beliefs.set_letters(letters, tileset)
    out = []
    for i, (a, b) in enumerate(zip(profiled, unprofiled)):
        m = match if match is not None and float(match.similarity[i]) >= w.similar else None

        def kind_score(k: str) -> float:
            # Each witness's belief in kind k: the network's, the prototypes', and the unprofiled
            # rules' (their confidence 0 is no knowledge, a third each kind: the rules are modest,
            # docs/vision-stranger.md; 1 is their kind surely). The profiled rules propose; they
            # are not a witness of their own answer.
            j = KINDS.index(k)
            own = (1.0 + 2.0 * b.confidence) / 3.0
            rules = np.log(max(own if b.kind == k else (1.0 - own) / 2, FLOOR))
            return w.rules * float(rules) + _score(float(beliefs.kind[i, j]),
                                                   float(m.kind[i, j]) if m is not None else None, w)

        # Under a token's disc the network and the prototypes see the disc (a monster on a
        # back reads empty to them): there the profiled rules' kind stands.
        token = (a.token or b.token) and a.kind == "back"
        # A back the profile's colour of the set's backs shows is doubted by the witnesses, never
        # made empty by them: the network's embedding hardly sees colour (it learned with the
        # colours swapped) and a back is told from an empty square by its colour; the reading
        # without the profile knows no backs. (A dungeon's wall read empty is a wall gone: a
        # ReadBackCamera back on a double-word square matched that square's empty prototype.)
        back_kept = a.kind == "back" and not token
        doubted = False
        # The unprofiled kind where the witnesses favour it by more than the margin.
        kind = a.kind
        margin = w.margin if m is not None else w.margin_alone
        if a.kind != b.kind and not token and kind_score(b.kind) > kind_score(a.kind) + margin:
            if back_kept and b.kind == "empty":
                doubted = True
            else:
                kind = b.kind
        cell = a if kind == a.kind else b
        if m is not None and w.overrule < 1.0 and not token:
            # Both rules see one kind, the network and the prototypes both surely another (a
            # tile under a lamp's spot read empty, a back read as a blank): theirs.
            j = int(beliefs.kind[i].argmax())
            if KINDS[j] != kind and beliefs.kind[i, j] >= w.overrule and m.kind[i, j] >= w.overrule:
                if back_kept and kind == "back" and KINDS[j] == "empty":
                    doubted = True
                else:
                    kind = KINDS[j]
                    cell = _as_kind(i, cell, kind, p_letter, letters, beliefs, m)
        if kind == "tile" and a.kind == b.kind and (a.letter, a.rotation) != (b.letter, b.rotation):
            cell = _face(i, a, b, p_letter, letters, beliefs, m, w)
        if kind == "tile" and cell.letter != BLANK_FACE and m is not None and w.overrule < 1.0:
            cell = _overrule_face(i, cell, p_letter, letters, beliefs, m, w)
        if kind != "empty" and m is not None and not (kind == "tile" and unnamed is not None and unnamed[i]):
            cell = _set(i, cell, m, named, w)
        # A face the profiled rules read blank where it has a letter: their set was judged with the
        # wrong set's ink in mind.
        misjudged = (kind == "tile" and a.kind == "tile" and a.letter == BLANK_FACE and cell.letter != BLANK_FACE
                     and cell.set is not None and cell.set == a.set
                     and not (m is not None and _set_sure(i, cell.set, m, w)))
        cell = replace(cell, token=a.token)  # tokens: the profiled rules' (see the module doc)
        parted = (a.kind, a.letter, a.rotation, a.token) != (b.kind, b.letter, b.rotation, b.token)
        moved = parted or (cell.kind, cell.letter, cell.rotation) != (b.kind, b.letter, b.rotation)
        if doubted or misjudged or (moved and b.confidence >= w.unsure and not _backed(i, cell, p_letter, letters, beliefs, m, w)):
            cell = replace(cell, confidence=min(cell.confidence, DISAGREE_CAP))
            if doubts is not None:
                doubts.append(i)
        out.append(cell)
    return out


def _backed(i: int, cell: CellReading, p_letter: np.ndarray, letters: tuple[str, ...], beliefs: Beliefs,
            m: Match | None, w: Weights) -> bool:
    """Whether the network and the prototypes both back ``cell``'s kind, letter and turn (each
    at least ``w.backed``): then an answer the profile alone knows (a back, which without a
    profile looks like a blank) keeps its confidence."""
    if m is None or w.backed > 1.0:
        return False
    k = KINDS.index(cell.kind)
    if beliefs.kind[i, k] < w.backed or m.kind[i, k] < w.backed:
        return False
    if cell.kind != "tile":
        return True
    if cell.letter not in letters or cell.letter not in m.letters:
        return False
    if p_letter[i, letters.index(cell.letter)] < w.backed or m.letter[i, m.letters.index(cell.letter)] < w.backed:
        return False
    if cell.letter == BLANK_FACE:
        return True
    t = ROTATIONS.index(cell.rotation)
    return bool(beliefs.turn[i, t] >= w.backed and m.turn[i, t] >= w.backed)


def _as_kind(i: int, cell: CellReading, kind: str, p_letter: np.ndarray, letters: tuple[str, ...],
             beliefs: Beliefs, m: Match) -> CellReading:
    """``cell`` made a ``kind`` as the network and the prototypes read it."""
    if kind == "empty":
        return CellReading(cell.row, cell.col, "empty", token=cell.token, confidence=cell.confidence)
    if kind == "back":
        return CellReading(cell.row, cell.col, "back", rgb=cell.rgb, token=cell.token, confidence=cell.confidence)
    score = np.log(np.maximum(p_letter[i], FLOOR))
    for j, ch in enumerate(letters):
        score[j] += np.log(max(float(m.letter[i, m.letters.index(ch)]) if ch in m.letters else 0.0, FLOOR))
    letter = letters[int(score.argmax())]
    turn = BLANK_TURN if letter == BLANK_FACE else ROTATIONS[int((np.log(np.maximum(beliefs.turn[i], FLOOR))
                                                                   + np.log(np.maximum(m.turn[i], FLOOR))).argmax())]
    return CellReading(cell.row, cell.col, "tile", letter=letter, rotation=turn, rgb=cell.rgb, token=cell.token,
                       confidence=cell.confidence)


def _overrule_face(i: int, cell: CellReading, p_letter: np.ndarray, letters: tuple[str, ...], beliefs: Beliefs,
                   m: Match, w: Weights) -> CellReading:
    """A face's letter or turn that the network and the prototypes are both sure is another."""
    j = int(p_letter[i].argmax())
    ch = letters[j]
    if ch != cell.letter and ch != BLANK_FACE and ch in m.letters and p_letter[i, j] >= w.overrule \
            and m.letter[i, m.letters.index(ch)] >= w.overrule:
        cell = replace(cell, letter=ch)
    t = int(beliefs.turn[i].argmax())
    if ROTATIONS[t] != cell.rotation and beliefs.turn[i, t] >= w.overrule and m.turn[i, t] >= w.overrule:
        cell = replace(cell, rotation=ROTATIONS[t])
    return cell


def _set(i: int, cell: CellReading, m: Match, named: Sequence[str], w: Weights) -> CellReading:
    """The set the prototypes are sure of, where the rules name none."""
    keep = [j for j, s in enumerate(m.sets) if s in named]
    if not keep or cell.set is not None:
        return cell
    j = max(keep, key=lambda j: m.set[i, j])
    if m.set[i, j] >= w.set_sure:
        return replace(cell, set=m.sets[j])
    return cell


def _set_sure(i: int, name: str, m: Match, w: Weights) -> bool:
    """Whether the prototypes give set ``name`` at least :attr:`Weights.set_sure`."""
    return name in m.sets and float(m.set[i, m.sets.index(name)]) >= w.set_sure


def _face(i: int, a: CellReading, b: CellReading, p_letter: np.ndarray, letters: tuple[str, ...],
          beliefs: Beliefs, match: Match | None, w: Weights) -> CellReading:
    """A face's letter and turn where the two rules part: the one the network and the
    prototypes favour."""

    def letter_score(ch: str) -> float:
        pm = float(p_letter[i, letters.index(ch)]) if ch in letters else 0.0
        pp = None
        if match is not None:
            pp = float(match.letter[i, match.letters.index(ch)]) if ch in match.letters else 0.0
        return _score(pm, pp, w)

    letter = max(sorted({str(a.letter), str(b.letter)}), key=letter_score)
    if letter == BLANK_FACE:
        return replace(a, letter=letter, rotation=BLANK_TURN)
    turns = {c.rotation for c in (a, b) if c.letter != BLANK_FACE and c.rotation is not None}

    def turn_score(t: int) -> float:
        j = ROTATIONS.index(t)
        return _score(float(beliefs.turn[i, j]), float(match.turn[i, j]) if match is not None else None, w)

    rotation = max(sorted(turns), key=turn_score) if turns else BLANK_TURN
    return replace(a, letter=letter, rotation=rotation)
