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
from companion.core.tiles import TileSet
from companion.vision.reading import BLANK_FACE, KINDS, ROTATIONS, CellReading

FIELDS: tuple[str, ...] = ("kind", "letter", "rotation", "token", "square")
# A face-up blank where no profile knows the sets' backs is a group of its own: there a back and a
# blank look alike (a plain tile of an unknown colour), and the calibrator learns how often the
# one is the other.
GROUPS: tuple[str, ...] = ("empty", "letter", "blank", "back", "blank_no_backs")
# The evidence, one column each; every probability enters as its logit (clipped: a network's
# 0 or 1 is not infinitely sure). Columns absent for a group (a turn for an empty square) are 0.
FEATURES: tuple[str, ...] = (
    "bias", "rules", "kind", "kind_alt", "letter", "letter_alt", "turn", "turn_alt", "token",
    "agree_kind", "agree_letter", "agree_turn", "backs_known",
)
# The sign a weight must have: +1 may not be negative, -1 may not be positive, 0 free. More of
# the rules' or the network's belief in the answer never lowers the confidence; a stronger
# alternative never raises it; the network agreeing never lowers it.
MONOTONE: dict[str, int] = {
    "bias": 0, "rules": 1, "kind": 1, "kind_alt": -1, "letter": 1, "letter_alt": -1, "turn": 1,
    "turn_alt": -1, "token": 1, "agree_kind": 1, "agree_letter": 1, "agree_turn": 1, "backs_known": 0,
}
LOGIT_CLIP = 9.0
DATA = "confidence.json"


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, np.float64), 1e-12, 1.0 - 1e-12)
    return np.clip(np.log(p) - np.log1p(-p), -LOGIT_CLIP, LOGIT_CLIP)


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


@dataclass(frozen=True)
class Evidence:
    """Per square (row-major): its group index (:data:`GROUPS`) and feature row (:data:`FEATURES`)."""

    group: np.ndarray  # (N,) int
    x: np.ndarray  # (N, len(FEATURES)) float64


def group_of(cell: CellReading, backs_known: bool) -> int:
    if cell.kind == "empty":
        return 0
    if cell.kind == "back":
        return 3
    if cell.letter == BLANK_FACE:
        return 2 if backs_known else 4
    return 1


def evidence(rules: Sequence[CellReading], beliefs: Any, letters: Sequence[str], tileset: TileSet,
             backs_known: bool) -> Evidence:
    """The evidence of every square for the rules' answer. ``beliefs``: the network's
    (:class:`companion.vision.model.Beliefs`); ``letters``: its letter classes."""
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
    x[:, col["agree_kind"]] = beliefs.kind.argmax(axis=1) == kind_i
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
        if c.letter != BLANK_FACE and c.rotation in ROTATIONS:
            ti = ROTATIONS.index(c.rotation)
            tp = beliefs.turn[i]
            talt = tp.copy()
            talt[ti] = -1.0
            x[i, col["turn"]] = logit(tp[ti])
            x[i, col["turn_alt"]] = logit(talt.max())
            x[i, col["agree_turn"]] = tp.argmax() == ti
    return Evidence(group, x)


@dataclass(frozen=True)
class Calibrator:
    """Weights per field and group: ``weights[field]`` is (len(GROUPS), len(FEATURES))."""

    weights: dict[str, np.ndarray]
    meta: dict[str, Any]

    def field_probabilities(self, ev: Evidence) -> dict[str, np.ndarray]:
        """P(field right) per square, for every field. A field that does not apply to a group
        (a turn of a blank, a letter of an empty square) is right exactly when the fields it
        follows from are: the turn of a blank is its letter's, the letter of an empty square
        or a back is its kind's."""
        out = {f: sigmoid(np.einsum("ij,ij->i", ev.x, self.weights[f][ev.group])) for f in FIELDS}
        plain = (ev.group == 0) | (ev.group == 3)
        out["letter"] = np.where(plain, out["kind"], out["letter"])
        blank = (ev.group == 2) | (ev.group == 4)
        out["rotation"] = np.where(plain, out["kind"], np.where(blank, out["letter"], out["rotation"]))
        # The whole square is right only if each field is: never surer than its least sure field.
        least = np.minimum.reduce([out[f] for f in ("kind", "letter", "rotation", "token")])
        out["square"] = np.minimum(out["square"], least)
        return out

    @classmethod
    def neutral(cls) -> "Calibrator":
        """Every field as sure as the rules say (a placeholder to read with before a fit)."""
        w = np.zeros((len(GROUPS), len(FEATURES)))
        w[:, FEATURES.index("rules")] = 1.0
        return cls({f: w.copy() for f in FIELDS}, {"what": "neutral: the rules' confidence as it is"})

    def to_json(self) -> dict[str, Any]:
        return {**self.meta, "fields": list(FIELDS), "groups": list(GROUPS), "features": list(FEATURES),
                "weights": {f: np.round(w, 6).tolist() for f, w in self.weights.items()}}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> "Calibrator":
        if tuple(doc.get("features", ())) != FEATURES or tuple(doc.get("groups", ())) != GROUPS:
            raise CompanionError(f"{DATA}: made for other features or groups (`make confidence`)")
        weights = {f: np.asarray(doc["weights"][f], np.float64) for f in FIELDS}
        for f, w in weights.items():
            if w.shape != (len(GROUPS), len(FEATURES)):
                raise CompanionError(f"{DATA}: weights of {f} have shape {w.shape}")
        meta = {k: v for k, v in doc.items() if k not in ("fields", "groups", "features", "weights")}
        return cls(weights, meta)


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


def calibrate_cells(rules: Sequence[CellReading], ev: Evidence, calibrator: Calibrator | None = None
                    ) -> tuple[list[CellReading], dict[str, np.ndarray]]:
    """The rules' answers, each square's confidence its calibrated probability of being right;
    and every field's probabilities (for the benchmark's reliability tables)."""
    from dataclasses import replace

    probs = (calibrator or load_calibrator()).field_probabilities(ev)
    square = probs["square"]
    return [replace(c, confidence=float(square[i])) for i, c in enumerate(rules)], probs
