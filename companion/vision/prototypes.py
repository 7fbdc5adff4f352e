"""Prototypes: the learned reader adapted to one table from its calibration photos.

The square network (:mod:`companion.vision.model`) ends in a 96-wide embedding before its heads.
On a table it has never seen (a font, a tile colour, a board) its heads are weakest, but the
calibration photos show exactly that table: every letter of each set upright (``calibrate
--layout alphabet``), each set's backs (``--layout backs``) and the empty board (``--layout
empty``). Each such square, known by the layout, is cut as the reader cuts it
(:func:`companion.vision.squares.cut`, a few small shifts), turned a quarter at a time (the turn
label turned with it) and embedded; the profile keeps those embeddings with their labels
(arrays ``proto_*``). At reading, each square's embedding is compared (cosine) with them:
each class (kind, letter, turn, set) scores its best match, and a softmax with a temperature
fitted on development scenes (:data:`TEMPERATURE`) makes that a belief.

Prototypes only ever *choose among* what the unprofiled evidence allows (how is
:func:`companion.vision.adapt.adapt`'s); a square unlike every prototype (a set no profile
names, a letter the photo did not show) is left to that evidence.

Arrays (one row per prototype; each calibration step replaces only its own rows):

- ``proto_emb`` (N, E) float16: unit embeddings;
- ``proto_kind`` (N,) str: ``empty``, ``tile`` or ``back``;
- ``proto_letter`` (N,) str: the letter (``?`` a blank), the premium of an empty square;
- ``proto_turn`` (N,) int16: 0, 90, 180, 270, or -1 where no turn shows (blank, back, empty);
- ``proto_set`` (N,) str: the set's name ("" for the empty board).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources

import numpy as np

from companion.core.board import Layout
from companion.vision.model import beliefs_of, softmax
from companion.vision.profile import Profile
from companion.vision.reading import KINDS, ROTATIONS
from companion.vision.squares import cut

ARRAYS = ("proto_emb", "proto_kind", "proto_letter", "proto_turn", "proto_set")
# Small shifts of each cut (in squares): the grid is found a little off at reading too.
SHIFTS = ((0.0, 0.0), (0.06, 0.0), (-0.06, 0.0), (0.0, 0.06), (0.0, -0.06))
NOTE = "prototypes_of_model"  # the profile's note naming the network (model_digest)
TEMPERATURE = 0.02  # cosine similarities -> softmax (chosen on development seeds 52000-52017)


@dataclass(frozen=True)
class Known:
    """A square of a calibration photo whose content the layout fixes."""

    row: int
    col: int
    kind: str
    letter: str = ""
    turns: bool = False  # whether the face shows a turn (a letter; not a blank, back or empty)
    set: str = ""


def _unit(e: np.ndarray) -> np.ndarray:
    return e / np.maximum(np.linalg.norm(e, axis=1, keepdims=True), 1e-9)


def embed(squares: np.ndarray) -> np.ndarray:
    return _unit(beliefs_of(squares).embedding)


def learn(rectified: np.ndarray, rows: int, cols: int, cell_px: int, margin: float,
          known: list[Known], quarter_turns: bool = True) -> dict[str, np.ndarray]:
    """The prototype arrays of ``known`` squares of one calibration photo (rectified board).
    ``quarter_turns``: each cut turned a quarter at a time as well (tiles; the empty board is
    seen only as it lies)."""
    n = rows * cols
    index = np.array([k.row * cols + k.col for k in known], int)
    cuts = []
    for dx, dy in SHIFTS:
        shift = np.zeros((n, 2))
        shift[:, 0], shift[:, 1] = dx, dy
        cuts.append(cut(rectified, rows, cols, cell_px, margin, shift=shift)[index])
    pictures, kind, letter, turn, set_ = [], [], [], [], []
    for q in range(4 if quarter_turns else 1):
        for squares in cuts:
            # np.rot90 by -q turns the picture clockwise q quarters: an upright face's turn is 90q.
            pictures.append(np.rot90(squares, -q, axes=(1, 2)))
            for k in known:
                kind.append(k.kind)
                letter.append(k.letter)
                turn.append(90 * q if k.turns else -1)
                set_.append(k.set)
    emb = embed(np.ascontiguousarray(np.concatenate(pictures)))
    return {"proto_emb": emb.astype(np.float16), "proto_kind": np.array(kind, str),
            "proto_letter": np.array(letter, str), "proto_turn": np.array(turn, np.int16),
            "proto_set": np.array(set_, str)}


def empty_known(layout: Layout) -> list[Known]:
    return [Known(r, c, "empty", letter=layout.premiums[r][c].name) for r in range(layout.rows)
            for c in range(layout.cols)]


def merged(old: dict[str, np.ndarray], new: dict[str, np.ndarray], kind: str, set_name: str = "") -> dict[str, np.ndarray]:
    """``old``'s prototypes with those of one step (``kind`` of ``set_name``) replaced by ``new``."""
    if not has_prototypes(old):
        return dict(new)
    keep = ~((old["proto_kind"] == kind) & (old["proto_set"] == set_name))
    return {k: np.concatenate([old[k][keep], new[k]]) for k in ARRAYS}


def has_prototypes(arrays: dict[str, np.ndarray]) -> bool:
    return all(k in arrays for k in ARRAYS) and len(arrays["proto_emb"]) > 0


@cache
def model_digest() -> str:
    """The network the embeddings are of (the first 12 hex digits of squares.onnx's SHA-256):
    another network's embeddings are not comparable, so a profile keeps it (``notes``)."""
    data = resources.files("companion.vision").joinpath("data", "squares.onnx")
    try:
        return hashlib.sha256(data.read_bytes()).hexdigest()[:12]
    except FileNotFoundError:
        return "missing"


def usable(profile: Profile) -> bool:
    """Whether ``profile`` has prototypes of this network (a profile made before a new
    ``make model`` is read as without them, as a profile of version 1 is)."""
    return has_prototypes(profile.arrays) and profile.notes.get(NOTE) == model_digest()


def stamped(profile: Profile, arrays: dict[str, np.ndarray]) -> Profile:
    """``profile`` with the prototype ``arrays`` and the network they belong to."""
    return replace(profile, notes={**profile.notes, NOTE: model_digest()}).with_arrays(**arrays)


@dataclass(frozen=True)
class Match:
    """Per square (row-major), the prototypes' beliefs; a field's classes are those calibrated."""

    kind: np.ndarray  # (N, 3): P(kind), KINDS' order
    similarity: np.ndarray  # (N,) the best cosine of any prototype: how like the table's own it is
    letters: tuple[str, ...]
    letter: np.ndarray  # (N, len(letters)): P(letter | face up)
    turn: np.ndarray  # (N, 4): P(turn | a lettered face), ROTATIONS' order
    sets: tuple[str, ...]
    set: np.ndarray  # (N, len(sets)): P(set | tile or back)


def _marginal(prob: np.ndarray, rows: np.ndarray, names: np.ndarray) -> tuple[tuple[str, ...], np.ndarray]:
    """``prob``'s mass of the classes ``rows`` grouped by ``names``, normalised per square."""
    keys = tuple(sorted(set(names[rows].tolist())))
    out = np.zeros((len(prob), len(keys)))
    for j, key in enumerate(keys):
        out[:, j] = prob[:, rows & (names == key)].sum(axis=1)
    return keys, out / np.maximum(out.sum(axis=1, keepdims=True), 1e-12)


@dataclass(frozen=True)
class _Classes:
    """The prototypes grouped by class (kind, letter, turn, set), once per profile."""

    emb: np.ndarray  # (P, E) float32, sorted by class
    starts: np.ndarray  # (C,) each class's first row
    kind: np.ndarray  # (C,) per class
    letter: np.ndarray
    turn: np.ndarray
    set: np.ndarray


_GROUPED: dict[int, tuple[np.ndarray, _Classes]] = {}


def _classes(arrays: dict[str, np.ndarray]) -> _Classes:
    key = id(arrays["proto_emb"])
    hit = _GROUPED.get(key)
    if hit is not None and hit[0] is arrays["proto_emb"]:
        return hit[1]
    fields = [arrays["proto_kind"], arrays["proto_letter"], arrays["proto_turn"].astype(str), arrays["proto_set"]]
    labels = np.array(["|".join(t) for t in zip(*fields)])
    order = np.argsort(labels, kind="stable")
    classes, starts = np.unique(labels[order], return_index=True)
    kind, letter, turn, set_ = (np.array(f) for f in zip(*(c.split("|") for c in classes)))
    grouped = _Classes(arrays["proto_emb"][order].astype(np.float32), starts, kind, letter, turn, set_)
    _GROUPED.clear()  # one profile at a time is read; keep no other
    _GROUPED[key] = (arrays["proto_emb"], grouped)
    return grouped


def match(embedding: np.ndarray, arrays: dict[str, np.ndarray], temperature: float = TEMPERATURE) -> Match:
    """Each square's beliefs from the prototypes: every class (kind, letter, turn, set) scores
    its best cosine; a softmax over the classes with ``temperature``; marginals per field."""
    g = _classes(arrays)
    e = _unit(np.asarray(embedding, np.float32))
    sims = e @ g.emb.T  # (N, P), columns grouped by class
    best = np.maximum.reduceat(sims, g.starts, axis=1)  # each class's best match, per square
    prob = softmax(best, temperature)
    kinds = np.stack([prob[:, g.kind == k].sum(axis=1) for k in KINDS], axis=1)
    letters, p_letter = _marginal(prob, g.kind == "tile", g.letter)
    p_turn = np.stack([prob[:, (g.kind == "tile") & (g.turn == str(t))].sum(axis=1) for t in ROTATIONS], axis=1)
    p_turn /= np.maximum(p_turn.sum(axis=1, keepdims=True), 1e-12)
    sets, p_set = _marginal(prob, g.kind != "empty", g.set)
    return Match(kinds, sims.max(axis=1), letters, p_letter, p_turn, sets, p_set)
