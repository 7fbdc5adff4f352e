"""Honest confidence: the probability that a square's reading is right, from all the evidence.

The hand-written reader (:mod:`companion.vision.cells`) gives one confidence per square, and it
is a poor probability (docs/vision-stranger.md: thousands of squares right at confidence near
0, and a few wrong at 0.9). The learned network (:mod:`companion.vision.model`) gives its own
beliefs. Here both become one calibrated probability per field, for the rules' answer:

- the **evidence** of a square (:func:`evidence`): the rules' confidence; the network's
  probability of the rules' kind, letter, turn and token; its best other kind, letter and turn
  and their probabilities; whether it agrees; whether the profile knows the sets' backs;
- a **group** by what the rules read: empty, a lettered face-up tile, a face-up blank, a face-down
  tile, and a face-up blank where no profile knows the backs (a blank and a back look alike
  there: its own group lets the calibrator say so);
- per field (kind, letter, turn, token, and the square as a whole) and group, a tiny logistic
  model over the evidence's logits: P(field right) = sigmoid(w . x). Its weights are monotone
  where they should be: never less sure as the rules' confidence or the network's probability
  of the answer rises, nor as the network's best alternative falls (a weight of the wrong sign
  is held at 0 when fitting).

The weights are fitted by ``scripts/fit_confidence.py`` on development renders (the network's
training distribution, :mod:`companion.sim.trainscene`, on seeds neither the network nor the
benchmarks use) and kept in ``data/confidence.json`` with their provenance. Applying them is a
few multiply-adds a square. docs/vision-confidence.md has the figures.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Sequence

import numpy as np

from companion.core.errors import CompanionError
from companion.core.tiles import TileSet, base_letter
from companion.vision.reading import BLANK_FACE, KINDS, ROTATIONS, CellReading

FIELDS: tuple[str, ...] = ("kind", "letter", "rotation", "token", "set", "square")
# A reading made with a profile the adaptation used (:mod:`companion.vision.adapt`: the table's
# calibration photos) is calibrated apart from one without: its answers are the adaptation's,
# its witnesses more (the reading without the profile, the prototypes), and only it names sets.
PARTS: tuple[str, ...] = ("plain", "profiled")
# A face-up blank where no profile knows the sets' backs is a group of its own: there a back and a
# blank look alike (a plain tile of an unknown colour), and the calibrator learns how often the
# one is the other.
GROUPS: tuple[str, ...] = ("empty", "letter", "blank", "back", "blank_no_backs")
# The evidence, one column each; every probability enters as its logit (clipped: a network's
# 0 or 1 is not infinitely sure). Columns absent for a group (a turn for an empty square) or a
# part (the prototypes without a profile) are 0.
FEATURES: tuple[str, ...] = (
    "bias", "rules", "kind", "kind_alt", "letter", "letter_alt", "turn", "turn_alt", "token",
    "agree_kind", "agree_letter", "agree_turn", "backs_known",
    # A profiled reading's: the adaptation doubted the square; the rules without the profile
    # read the same kind, letter and turn; the prototypes' belief in the kind, letter and set
    # read (where the square is like the table's own; of no set named where the reading names
    # none); the profile names two sets or more; the reading names no set for a tile or a back.
    "doubt", "plain_agree", "proto_kind", "proto_letter", "proto_set", "two_sets", "set_none",
    # The network's least belief in a field of the answer (kind; letter and turn of a face), and
    # whether it and the rules both put the answer under even odds: evidence split both ways.
    "net_least", "both_doubt",
)
# The sign a weight must have: +1 may not be negative, -1 may not be positive, 0 free. More of
# the rules' or the network's belief in the answer never lowers the confidence; a stronger
# alternative never raises it; the network agreeing never lowers it; a doubt never raises it.
MONOTONE: dict[str, int] = {
    "bias": 0, "rules": 1, "kind": 1, "kind_alt": -1, "letter": 1, "letter_alt": -1, "turn": 1,
    "turn_alt": -1, "token": 1, "agree_kind": 1, "agree_letter": 1, "agree_turn": 1, "backs_known": 0,
    "doubt": -1, "plain_agree": 1, "proto_kind": 1, "proto_letter": 1, "proto_set": 1, "two_sets": 0,
    "set_none": 0, "net_least": 1, "both_doubt": -1,
}
LOGIT_CLIP = 9.0
# Split evidence is asked about, never guessed: where the network's best kind, or turn of a face,
# is another than the rules' and the calibrated square is under SPLIT_SURE, the square and each
# field the two see apart are held at SPLIT_CAP, under the table's SURE (0.5; model.DISAGREE_CAP,
# which this module may not import). Where the evidence together is very sure it stands. The
# network's letters split it only where it is very sure (LETTER_SPLIT): on the 80 real photos
# the network named another letter than the rules on 100 tiles under 0.9, all read right by
# the rules (and on the development strangers 61 of 71 such tiles), where it never saw
# another kind of a tile. Nor does its back against the rules' blank (or the reverse):
# Evidence.apart_kind says why.
SPLIT_SURE = 0.9
SPLIT_CAP = 0.45
# The network's letters split the evidence only where it is this sure of another letter (and
# so gives the rules' at most the rest), one that is not the rules' with or without diacritics:
# on the 80 real photos it is that sure of another letter on 22 tiles, each an Ä (Ö, Ü) whose
# marks it reads as an A, all read right by the rules; on the development strangers it is that
# sure on an E the rules took for an F, read as 0.65-0.70.
LETTER_SPLIT = 0.99
SIMILAR = 0.9  # the prototypes speak of a square this like one of the table's own (adapt.Weights.similar)
DATA = "confidence.json"


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, np.float64), 1e-12, 1.0 - 1e-12)
    return np.clip(np.log(p) - np.log1p(-p), -LOGIT_CLIP, LOGIT_CLIP)


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


@dataclass(frozen=True)
class Evidence:
    """Per square (row-major): its group index (:data:`GROUPS`) and feature row (:data:`FEATURES`);
    the reading's part (:data:`PARTS`)."""

    group: np.ndarray  # (N,) int
    x: np.ndarray  # (N, len(FEATURES)) float64
    part: int = 0
    # Per square, whether the network's best kind (one it can tell from the rules': not a back
    # against a blank) or turn of a face is another than the rules': :data:`SPLIT_SURE`.
    apart_kind: np.ndarray | None = None
    apart_turn: np.ndarray | None = None
    # Per square, whether the network is :data:`LETTER_SPLIT` sure of another letter of a face.
    apart_letter: np.ndarray | None = None


@dataclass(frozen=True)
class Witnesses:
    """What a reading's evidence is made of, beside the rules' answers: the network's beliefs,
    whether the profile knows the backs, and the adaptation (:class:`companion.vision.adapt.
    Adapted`, or None without a profile it used). Kept with the reading so that the calibrator
    can be fitted again from them (scripts/fit_confidence.py)."""

    rules: Sequence[CellReading]
    beliefs: Any
    backs_known: bool
    adapted: Any = None


def group_of(cell: CellReading, backs_known: bool) -> int:
    if cell.kind == "empty":
        return 0
    if cell.kind == "back":
        return 3
    if cell.letter == BLANK_FACE:
        return 2 if backs_known else 4
    return 1


def _answer(c: CellReading) -> tuple:
    return (c.kind, c.letter, c.rotation)


def evidence(rules: Sequence[CellReading], beliefs: Any, letters: Sequence[str], tileset: TileSet,
             backs_known: bool, adapted: Any = None) -> Evidence:
    """The evidence of every square for the rules' answer. ``beliefs``: the network's
    (:class:`companion.vision.model.Beliefs`); ``letters``: its letter classes; ``adapted``: the
    adaptation's :class:`~companion.vision.adapt.Adapted` (a profiled reading) or None."""
    n = len(rules)
    col = {f: i for i, f in enumerate(FEATURES)}
    x = np.zeros((n, len(FEATURES)))
    x[:, col["bias"]] = 1.0
    x[:, col["backs_known"]] = float(backs_known)
    letter_p = beliefs.set_letters(letters, tileset)
    index = {ch: i for i, ch in enumerate(letters)}
    group = np.array([group_of(c, backs_known) for c in rules], np.int64)
    kind_i = np.array([KINDS.index(c.kind) for c in rules])
    rows = np.arange(n)
    pk = beliefs.kind[rows, kind_i]
    others = beliefs.kind.copy()
    others[rows, kind_i] = -1.0
    x[:, col["rules"]] = logit(np.array([c.confidence for c in rules]))
    x[:, col["kind"]] = logit(pk)
    x[:, col["kind_alt"]] = logit(others.max(axis=1))
    best = beliefs.kind.argmax(axis=1)
    x[:, col["agree_kind"]] = best == kind_i
    # A back and a blank are both a plain tile: the network tells them apart by colours it
    # learned, not by this table's backs (which only a profile knows); its one against the
    # other is no split (the groups blank_no_backs and back carry how often they are confused).
    plain_tile = np.array([c.kind == "back" or (c.kind == "tile" and c.letter == BLANK_FACE) for c in rules])
    apart_kind = (best != kind_i) & ~(plain_tile & np.isin(best, [KINDS.index("tile"), KINDS.index("back")]))
    apart_turn = np.zeros(n, bool)
    apart_letter = np.zeros(n, bool)
    tok = np.array([int(c.token) for c in rules])
    x[:, col["token"]] = logit(beliefs.token[rows, tok])
    for i, c in enumerate(rules):
        if c.kind != "tile":
            continue
        li = index.get(c.letter or "")
        if li is None:  # a letter the network has no class for: no letter evidence
            continue
        lp = letter_p[i]
        alt = lp.copy()
        alt[li] = -1.0
        x[i, col["letter"]] = logit(lp[li])
        x[i, col["letter_alt"]] = logit(alt.max())
        x[i, col["agree_letter"]] = lp.argmax() == li
        other = int(alt.argmax())
        apart_letter[i] = lp[other] >= LETTER_SPLIT and base_letter(letters[other]) != base_letter(c.letter or "")
        if c.letter != BLANK_FACE and c.rotation in ROTATIONS:
            ti = ROTATIONS.index(c.rotation)
            tp = beliefs.turn[i]
            talt = tp.copy()
            talt[ti] = -1.0
            x[i, col["turn"]] = logit(tp[ti])
            x[i, col["turn_alt"]] = logit(talt.max())
            x[i, col["agree_turn"]] = tp.argmax() == ti
            apart_turn[i] = tp.argmax() != ti
    least = x[:, col["kind"]].copy()
    face = np.array([c.kind == "tile" for c in rules])
    for f in ("letter", "turn"):  # 0 where a face has no such evidence (a blank's turn)
        least = np.where(face & (x[:, col[f]] != 0), np.minimum(least, x[:, col[f]]), least)
    x[:, col["net_least"]] = least
    x[:, col["both_doubt"]] = (least < 0) & (x[:, col["rules"]] < 0)
    if adapted is None:
        return Evidence(group, x, 0, apart_kind, apart_turn, apart_letter)
    _adapted_evidence(x, col, rules, adapted)
    return Evidence(group, x, 1, apart_kind, apart_turn, apart_letter)


def _adapted_evidence(x: np.ndarray, col: dict[str, int], rules: Sequence[CellReading], adapted: Any) -> None:
    """A profiled reading's own columns (:data:`FEATURES`' second line)."""
    x[list(adapted.doubts), col["doubt"]] = 1.0
    x[:, col["plain_agree"]] = [_answer(a) == _answer(b) for a, b in zip(rules, adapted.unprofiled)]
    x[:, col["two_sets"]] = float(len(adapted.named) >= 2)
    m = adapted.match
    seen = np.asarray(m.similarity) >= SIMILAR
    letter_at = {ch: j for j, ch in enumerate(m.letters)}
    named = [j for j, s in enumerate(m.sets) if s in adapted.named]
    for i, c in enumerate(rules):
        x[i, col["set_none"]] = c.kind != "empty" and c.set is None
        if not seen[i]:
            continue
        x[i, col["proto_kind"]] = logit(m.kind[i, KINDS.index(c.kind)])
        if c.kind == "tile" and c.letter in letter_at:
            x[i, col["proto_letter"]] = logit(m.letter[i, letter_at[c.letter]])
        if c.kind == "empty" or not named:
            continue
        p_named = m.set[i, named]
        if c.set is None:  # a set no profile names: as likely as the prototypes' sets are not the named ones
            x[i, col["proto_set"]] = logit(1.0 - float(p_named.sum()))
        elif c.set in m.sets:
            x[i, col["proto_set"]] = logit(m.set[i, m.sets.index(c.set)] / max(float(p_named.sum()), 1e-12))


@dataclass(frozen=True)
class Calibrator:
    """Per part (:data:`PARTS`) and field: logistic weights per group (len(GROUPS), len(FEATURES)),
    then one monotone map of the logistic's probability to the rightness observed (``maps``:
    knots, interpolated; the logistic orders the squares, the map says how often each level
    was right)."""

    weights: dict[str, dict[str, np.ndarray]]
    maps: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]]
    meta: dict[str, Any]
    split: bool = True  # split evidence held under the table's SURE (False: the calibrator before it, measured)

    def field_probabilities(self, ev: Evidence) -> dict[str, np.ndarray]:
        """P(field right) per square, for every field. A field that does not apply to a group
        (a turn of a blank, a letter of an empty square) is right exactly when the fields it
        follows from are: the turn of a blank is its letter's, the letter of an empty square
        or a back is its kind's, and so is the set of an empty square or of any square without
        a profile (none is named)."""
        part = PARTS[ev.part]
        out = self._fitted(part, ev)
        if part == "profiled":
            # A tile or back of no set the profile names: the profile knows nothing of it (no
            # alphabet, no backs of its set), and its reading is judged no surer than a reading
            # without a profile would be.
            unnamed = ev.x[:, FEATURES.index("set_none")] == 1
            if unnamed.any():
                plain = self._fitted("plain", ev)
                for f in ("kind", "letter", "rotation", "token", "square"):
                    out[f] = np.where(unnamed, np.minimum(out[f], plain[f]), out[f])
        plain = (ev.group == 0) | (ev.group == 3)
        out["letter"] = np.where(plain, out["kind"], out["letter"])
        blank = (ev.group == 2) | (ev.group == 4)
        out["rotation"] = np.where(plain, out["kind"], np.where(blank, out["letter"], out["rotation"]))
        # An empty square has no set: its set is right when its kind is (a tile of a named set
        # read empty names none); without a profile no set is named at all.
        out["set"] = out["kind"] if part == "plain" else np.where(ev.group == 0, out["kind"], out["set"])
        # The whole square is right only if each field is: never surer than its least sure field.
        least = np.minimum.reduce([out[f] for f in FIELDS if f != "square"])
        out["square"] = np.minimum(out["square"], least)
        return self._split(ev, out) if self.split else out

    def _fitted(self, part: str, ev: Evidence) -> dict[str, np.ndarray]:
        """Each field's logistic of its group, through the part's map."""
        out = {}
        for f in FIELDS:
            p = sigmoid(np.einsum("ij,ij->i", ev.x, self.weights[part][f][ev.group]))
            knots = self.maps[part].get(f)
            out[f] = np.interp(p, knots[0], knots[1]) if knots is not None else p
        return out

    @staticmethod
    def _split(ev: Evidence, out: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """:data:`SPLIT_CAP` where the evidence is split (:data:`SPLIT_SURE`'s comment)."""
        if ev.apart_kind is None or ev.apart_turn is None:
            return out
        apart = {"kind": ev.apart_kind, "rotation": ev.apart_turn}
        # Both witnesses putting the answer under even odds is split evidence too, whatever
        # the fit learned of such squares on its own scenes: the square is asked about, its
        # fields keep the fit's probabilities (capping them too left the letter's right three
        # times in four at 0.45 on the stranger benchmark: its calibration error 2.4 -> 2.8 %).
        # So does a letter the network is sure is another: on 30 development strangers the
        # rules' letter was right on 14 of 16 such faces (an O the network took for a D, an I
        # for a T, in fonts it never saw); capped, 9 of those right letters sat at 0.45.
        both = ev.x[:, FEATURES.index("both_doubt")] > 0
        if ev.apart_letter is not None:
            both = both | ev.apart_letter
        split = (np.logical_or.reduce(list(apart.values())) | both) & (out["square"] < SPLIT_SURE)
        if not split.any():
            return out
        out = dict(out)
        for f, a in apart.items():
            out[f] = np.where(split & a, np.minimum(out[f], SPLIT_CAP), out[f])
        out["square"] = np.where(split, np.minimum(out["square"], SPLIT_CAP), out["square"])
        return out

    @classmethod
    def neutral(cls) -> "Calibrator":
        """Every field as sure as the rules say (a placeholder to read with before a fit)."""
        w = np.zeros((len(GROUPS), len(FEATURES)))
        w[:, FEATURES.index("rules")] = 1.0
        return cls({p: {f: w.copy() for f in FIELDS} for p in PARTS}, {p: {} for p in PARTS},
                   {"what": "neutral: the rules' confidence as it is"})

    def to_json(self) -> dict[str, Any]:
        return {**self.meta, "split_evidence_asked": self.split, "parts": list(PARTS), "fields": list(FIELDS), "groups": list(GROUPS),
                "features": list(FEATURES),
                "weights": {p: {f: np.round(w, 5).tolist() for f, w in ws.items()} for p, ws in self.weights.items()},
                "maps": {p: {f: [np.round(k[0], 5).tolist(), np.round(k[1], 5).tolist()] for f, k in ms.items()}
                         for p, ms in self.maps.items()}}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> "Calibrator":
        if tuple(doc.get("features", ())) != FEATURES or tuple(doc.get("groups", ())) != GROUPS \
                or tuple(doc.get("parts", ())) != PARTS:
            raise CompanionError(f"{DATA}: made for other features, groups or parts (`make confidence`)")
        weights: dict[str, dict[str, np.ndarray]] = {}
        maps: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = {}
        for p in PARTS:
            weights[p] = {f: np.asarray(doc["weights"][p][f], np.float64) for f in FIELDS}
            for f, w in weights[p].items():
                if w.shape != (len(GROUPS), len(FEATURES)):
                    raise CompanionError(f"{DATA}: weights of {p} {f} have shape {w.shape}")
            maps[p] = {f: (np.asarray(k[0], np.float64), np.asarray(k[1], np.float64))
                       for f, k in doc.get("maps", {}).get(p, {}).items()}
        meta = {k: v for k, v in doc.items()
                if k not in ("parts", "fields", "groups", "features", "weights", "maps", "split_evidence_asked")}
        return cls(weights, maps, meta, bool(doc.get("split_evidence_asked", True)))


@cache
def load_calibrator() -> Calibrator:
    path = resources.files("companion.vision").joinpath("data").joinpath(DATA)
    try:
        return Calibrator.from_json(json.loads(path.read_text("utf-8")))
    except FileNotFoundError:
        raise CompanionError(f"the confidence calibrator is missing (companion/vision/data/{DATA}: "
                             "`make confidence`)") from None


def fit_logistic(x: np.ndarray, y: np.ndarray, ridge: float = 1.0, iterations: int = 50) -> np.ndarray:
    """Weights of a logistic model of ``y`` (0/1) over the rows ``x``, by Newton's method, each
    weight of :data:`MONOTONE`'s sign (one of the wrong sign is held at 0 and the rest refitted)."""
    free = np.ones(x.shape[1], bool)
    free &= x.std(axis=0) > 0 if len(x) > 1 else free
    free[0] = True
    while True:
        w = np.zeros(x.shape[1])
        xs = x[:, free]
        v = np.zeros(xs.shape[1])
        for _ in range(iterations):
            p = sigmoid(xs @ v)
            grad = xs.T @ (p - y) + ridge * v
            hess = (xs * (p * (1 - p))[:, None]).T @ xs + ridge * np.eye(xs.shape[1])
            step = np.linalg.solve(hess, grad)
            v -= step
            if np.abs(step).max() < 1e-8:
                break
        w[free] = v
        sign = np.array([MONOTONE[f] for f in FEATURES])
        wrong = free & (w * sign < 0)
        if not wrong.any():
            return w
        free &= ~wrong


def fit_map(p: np.ndarray, y: np.ndarray, per_knot: int = 400) -> tuple[np.ndarray, np.ndarray]:
    """A monotone map of probabilities ``p`` to the rightness ``y`` observed: the squares sorted
    by ``p`` in runs of at least ``per_knot``, each run's rightness counted with one right and one
    wrong added (no run says 0 or 1 outright), runs pooled while a later one is less right than
    an earlier (pool adjacent violators). Knots: each pool's mean ``p`` and its rightness, and
    (0, 0) and (1, 1) at the ends so the map covers every probability. Deterministic: ties sort stably."""
    order = np.argsort(p, kind="stable")
    p, y = np.asarray(p, np.float64)[order], np.asarray(y, np.float64)[order]
    runs = max(1, len(p) // per_knot)
    bounds = np.linspace(0, len(p), runs + 1).astype(int)
    # pools: [sum p, right, count]
    pools: list[list[float]] = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        pools.append([float(p[a:b].sum()), float(y[a:b].sum()), float(b - a)])
        while len(pools) > 1 and (pools[-1][1] + 1) / (pools[-1][2] + 2) <= (pools[-2][1] + 1) / (pools[-2][2] + 2):
            last = pools.pop()
            pools[-1] = [pools[-1][0] + last[0], pools[-1][1] + last[1], pools[-1][2] + last[2]]
    xs = np.array([q[0] / q[2] for q in pools])
    ys = np.array([(q[1] + 1) / (q[2] + 2) for q in pools])
    xs, first = np.unique(xs, return_index=True)  # equal means (tied probabilities): one knot
    ys = ys[first]
    return np.r_[0.0, xs, 1.0], np.r_[0.0, ys, 1.0]


def calibrate_cells(rules: Sequence[CellReading], ev: Evidence, calibrator: Calibrator | None = None
                    ) -> tuple[list[CellReading], dict[str, np.ndarray]]:
    """The rules' answers, each square's confidence its calibrated probability of being right;
    and every field's probabilities (for the benchmark's reliability tables)."""
    from dataclasses import replace

    probs = (calibrator or load_calibrator()).field_probabilities(ev)
    square = probs["square"]
    return [replace(c, confidence=float(square[i])) for i, c in enumerate(rules)], probs
