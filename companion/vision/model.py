"""The learned square reader: a small network reads every square of a rectified board.

From each square cut with a rim of its neighbours (:mod:`companion.vision.squares`) it gives four
beliefs: kind (empty / face up / face down), letter (every tile set's letters and ``?`` for a
face-up blank), turn and token, each a probability made honest by temperature scaling on renders
it never learned from (scripts/train_squares.py; docs/vision-model.md). It runs through
onnxruntime (PyPI, with wheels for the Pi's aarch64): on one core it runs the network in less than
half the time OpenCV's ``dnn`` module takes (17 ms against 40 a photo here, docs/vision-speed.md),
the same answers within float rounding. Where onnxruntime does not import, OpenCV's ``dnn``
(already the camera pipeline's dependency) reads the same ONNX file.

How its answers meet the hand-written reader's (:mod:`companion.vision.cells`) is
:data:`SQUARE_READER`'s choice, made by the figures in docs/vision-model.md:

- ``rules``: the hand-written reader alone.
- ``model``: the network alone (colours and set names still from the rules, where the rules see
  the same kind).
- ``both``: the rules' answer, doubted by the model: where the two see another kind, letter or
  turn, the confidence is capped below the table's SURE (:data:`DISAGREE_CAP`), so the table
  asks. (``rules_sure`` of :func:`combine` would take the model's answer where the rules are
  below it; :data:`RULES_SURE` 0 never does: measured, the model's answers lost letters the
  rules had right.) The token is always the rules': the model's token head sees tokens on
  real photos' empty squares (470 of 18,000 squares).
- ``calibrated``: the rules' answer, its confidence the probability that it is right given the
  rules' confidence and the network's beliefs (:mod:`companion.vision.confidence`); except a
  plain square's kind (empty, or a tile without a letter), which is the network's where it is
  sure of it (:mod:`companion.vision.plain_kinds`), and where the calibrated probability says
  the rules' *kind* is less likely than a third (:data:`KIND_SWITCH`), the network's kind,
  letter and turn (:func:`switch_kinds`), asked about at the table.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from typing import Any, Sequence

import cv2
import numpy as np

from companion.core.errors import CompanionError
from companion.core.tiles import TileSet
from companion.vision.confidence import Witnesses, calibrate_cells, evidence
from companion.vision.plain_kinds import plain_kinds, unsure_empty
from companion.vision.reading import BLANK_FACE, BLANK_TURN, KINDS, ROTATIONS, CellReading
from companion.vision.squares import SIZE, cut

SQUARE_READERS: tuple[str, ...] = ("rules", "model", "both", "calibrated")
# The default, chosen by the figures (docs/vision-confidence.md): "calibrated" keeps the rules'
# answers with more honest confidences; on strangers it halves the ECE and asks about 44 % fewer
# tiles, with as many confident errors as the rules, and on the real tournament photos it asks
# about none. ("both" has fewer confident errors on strangers, but its doubts made the table
# ask about real photos the rules read right: the replays of tests/table/test_replay.py then
# recorded a pass for a play.)
SQUARE_READER = "calibrated"
RULES_SURE = 0.0  # the rules keep their answer at any confidence (docs/vision-model.md)
DISAGREE_CAP = 0.45  # below the table's SURE (0.5): a square the two readers see apart is asked
# A square has three kinds, whose probabilities sum to one: where the calibrated probability of
# the rules' kind is under a third, another kind is more likely than theirs, and the network's
# kind (its choice between the other two) is the better answer to show. Measured on the
# development strangers (docs/vision-model.md), such squares are mostly face-down tiles the
# rules took for empty squares or blanks, and lettered tiles under a lamp's glare read empty;
# the network reads most of them right. On the 80 real tournament photos no square is under it.
KIND_SWITCH = 1.0 / 3.0
OUTPUTS = ("kind", "letter", "turn", "token", "embedding")


class _OpenCVNet:
    """The network through OpenCV's ``dnn`` (where onnxruntime is not installed)."""

    def __init__(self, onnx: bytes) -> None:
        self.net = cv2.dnn.readNetFromONNX(np.frombuffer(onnx, np.uint8))
        self.net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
        self.threads = f"OpenCV dnn, {cv2.getNumThreads()} thread(s) now"
        # One network, its input and outputs its own state: two tables' threads (a house match's
        # two boards) running it at once broke OpenCV's forward pass (an assertion on a buffer's shape).
        self.lock = threading.Lock()

    def __call__(self, blob: np.ndarray) -> list[np.ndarray]:
        with self.lock:
            self.net.setInput(blob)
            return list(self.net.forward(list(OUTPUTS)))


class _OnnxRuntimeNet:
    """The network through onnxruntime, on as many threads as OpenCV is given (one in the
    benchmark; the camera pipeline's share otherwise), never spinning while idle: the waiting
    threads would take the core the rest of the reading needs. A session may be run by several
    threads at once."""

    def __init__(self, onnx: bytes, ort: Any) -> None:
        options = ort.SessionOptions()
        options.intra_op_num_threads = max(1, cv2.getNumThreads())
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(onnx, options, providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0].name
        self.threads = f"onnxruntime {ort.__version__}, {options.intra_op_num_threads} thread(s)"

    def __call__(self, blob: np.ndarray) -> list[np.ndarray]:
        return self.session.run(list(OUTPUTS), {self.input: blob})


def _runtime(onnx: bytes) -> _OnnxRuntimeNet | _OpenCVNet:
    """onnxruntime where it imports, else OpenCV's ``dnn`` (see the module's doc)."""
    try:
        import onnxruntime
    except ImportError:
        return _OpenCVNet(onnx)
    return _OnnxRuntimeNet(onnx, onnxruntime)


@dataclass(frozen=True)
class SquareModel:
    # The squares (N, 3, SIZE, SIZE) float32 in 0..1 -> the heads' logits and the embedding (OUTPUTS);
    # ``net.threads`` says which runtime, on how many threads.
    net: _OnnxRuntimeNet | _OpenCVNet = field(compare=False)
    letters: tuple[str, ...]
    temperatures: dict[str, float]


@dataclass(frozen=True)
class Beliefs:
    """Per square (row-major), calibrated probabilities of each head, and the embedding."""

    kind: np.ndarray  # (N, 3): KINDS
    letter: np.ndarray  # (N, L): SquareModel.letters
    turn: np.ndarray  # (N, 4): ROTATIONS
    token: np.ndarray  # (N, 2): no, yes
    embedding: np.ndarray  # (N, E)

    def set_letters(self, letters: Sequence[str], tileset: TileSet) -> np.ndarray:
        """The letter beliefs over ``tileset``'s own letters and the blank only, renormalised
        (``letters``: the network's letter classes, every tile set's)."""
        allowed = np.array([ch in tileset.alphabet or ch == BLANK_FACE for ch in letters])
        p = self.letter * allowed
        return p / np.maximum(p.sum(axis=1, keepdims=True), 1e-12)


@cache
def load_square_model() -> SquareModel:
    data = resources.files("companion.vision").joinpath("data")
    try:
        meta = json.loads(data.joinpath("squares.json").read_text("utf-8"))
        onnx = data.joinpath("squares.onnx").read_bytes()
    except FileNotFoundError:
        raise CompanionError("the square model is missing (companion/vision/data/squares.onnx: `make model`)") from None
    return SquareModel(_runtime(onnx), tuple(meta["letters"]), dict(meta["temperatures"]))


def softmax(logits: np.ndarray, temperature: float) -> np.ndarray:
    """Each row's softmax of ``logits`` / ``temperature`` (the heads' calibrated probabilities,
    the prototypes' best matches)."""
    z = logits.astype(np.float64) / temperature
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def beliefs_of(squares: np.ndarray) -> Beliefs:
    """Beliefs of cut squares (N, SIZE, SIZE, 3) uint8 BGR."""
    model = load_square_model()
    if squares.shape[1:] != (SIZE, SIZE, 3):
        raise ValueError(f"squares of shape {squares.shape[1:]}, expected {(SIZE, SIZE, 3)}")
    blob = np.ascontiguousarray(squares.transpose(0, 3, 1, 2), np.float32) / np.float32(255.0)
    outs = dict(zip(OUTPUTS, model.net(blob)))
    t = model.temperatures
    return Beliefs(
        kind=softmax(outs["kind"], t["kind"]), letter=softmax(outs["letter"], t["letter"]),
        turn=softmax(outs["turn"], t["turn"]), token=softmax(outs["token"], t["token"]),
        embedding=np.asarray(outs["embedding"], np.float32),
    )


def _body_rgb(square: np.ndarray) -> tuple[int, int, int]:
    """A square's middle colour (RGB): where the rules saw no body, a face's colour."""
    m = SIZE // 4
    mid = square[SIZE // 2 - m : SIZE // 2 + m, SIZE // 2 - m : SIZE // 2 + m].reshape(-1, 3)
    b, g, r = np.median(mid, axis=0)
    return int(r), int(g), int(b)


def model_cells(
    beliefs: Beliefs, rows: int, cols: int, tileset: TileSet, rules: Sequence[CellReading], squares: np.ndarray,
) -> list[CellReading]:
    """The model's reading of every square. A letter is one of the tile set's (or a blank)."""
    letters = load_square_model().letters
    letter_p = beliefs.set_letters(letters, tileset)
    out = []
    for i in range(rows * cols):
        r, c = divmod(i, cols)
        k = int(beliefs.kind[i].argmax())
        kind = KINDS[k]
        tok = int(beliefs.token[i].argmax())
        conf = float(beliefs.kind[i, k] * beliefs.token[i, tok])
        rule = rules[i]
        if kind == "empty":
            out.append(CellReading(r, c, "empty", token=bool(tok), confidence=conf))
            continue
        same = rule.kind == kind
        rgb = rule.rgb if same and rule.rgb is not None else _body_rgb(squares[i])
        set_ = rule.set if same else None
        if kind == "back":
            out.append(CellReading(r, c, "back", rgb=rgb, set=set_, token=bool(tok), confidence=conf))
            continue
        li = int(letter_p[i].argmax())
        letter = letters[li]
        conf *= float(letter_p[i, li])
        if letter == BLANK_FACE:
            rotation = BLANK_TURN
        else:
            ti = int(beliefs.turn[i].argmax())
            rotation = ROTATIONS[ti]
            conf *= float(beliefs.turn[i, ti])
        out.append(CellReading(r, c, "tile", letter=letter, rotation=rotation, rgb=rgb, set=set_,
                               token=bool(tok), confidence=conf))
    return out


def _answer(c: CellReading) -> tuple:
    return (c.kind, c.letter, c.rotation)


def combine(
    rules: Sequence[CellReading], model: Sequence[CellReading], mode: str, rules_sure: float = RULES_SURE,
) -> list[CellReading]:
    """Each square's answer under ``mode`` (see the module's doc); ``rules_sure`` above 1: the
    rules' answer always (the benchmark weighs the choice)."""
    if mode == "rules":
        return list(rules)
    if mode == "model":
        return list(model)
    out = []
    for a, b in zip(rules, model):
        if _answer(a) == _answer(b):
            out.append(a)
            continue
        pick = a if a.confidence >= rules_sure else replace(b, token=a.token)
        out.append(replace(pick, confidence=min(pick.confidence, DISAGREE_CAP)))
    return out


def asked(cells: Sequence[CellReading], fields: dict[str, Any] | None, where: np.ndarray, held: Sequence[str]
          ) -> tuple[list[CellReading], dict[str, Any] | None]:
    """The squares ``where`` ((N,) bool) held at :data:`DISAGREE_CAP`, so that the table asks
    about them: their confidence, and in ``fields`` the probabilities ``held`` names (the
    others as they were). The one way each doubt of the reader (the adaptation's, a token
    perhaps unseen, an empty square that may be a back) makes a square asked."""
    if not where.any():
        return list(cells), fields
    out = [replace(c, confidence=min(c.confidence, DISAGREE_CAP)) if where[i] else c for i, c in enumerate(cells)]
    if fields is not None:
        fields = {**fields, **{f: np.where(where, np.minimum(fields[f], DISAGREE_CAP), fields[f]) for f in held}}
    return out, fields


def switch_kinds(
    cells: Sequence[CellReading], fields: dict[str, np.ndarray], net: Sequence[CellReading], beliefs: Beliefs,
    tileset: TileSet,
) -> tuple[list[CellReading], dict[str, np.ndarray]]:
    """The calibrated reading with the network's kind, letter and turn where the rules' kind is
    less likely than a third (:data:`KIND_SWITCH`) and the network reads another kind; the
    token stays the rules' (see the module's doc on ``both``).

    The probability of the network's kind there is at most what the rules' leaves over, and no
    more than the network's own belief in it; and it is held under the table's SURE
    (:data:`DISAGREE_CAP`): the square is asked about, the best guess shown. Its letter and turn
    are as the network believes them, given a face is there; its set (named only where the
    rules saw the same kind: :func:`companion.vision.cells.set_passes.named_where_switched`
    names it from its colour after) and the square as a whole are no surer than the kind times
    the face's letter and turn.

    The network can be sure and wrong: a grey back on a double-word square of the dungeon's
    renders is "empty" to it at 0.9998, and the prototypes and the rules without the profile
    agree, against the profile's backs (tests/vision/test_backs.py). The square is then asked
    about with "empty" shown; on a stranger's table such a back is far more often an empty
    square whose print has the backs' colour (docs/vision-model.md)."""
    out = list(cells)
    probs = {f: np.array(v, np.float64, copy=True) for f, v in fields.items()}
    letters = load_square_model().letters
    letter_p = beliefs.set_letters(letters, tileset)
    for i, (c, m) in enumerate(zip(cells, net)):
        if m.kind == c.kind or probs["kind"][i] >= KIND_SWITCH:
            continue
        kind = min(1.0 - float(fields["kind"][i]), float(beliefs.kind[i, KINDS.index(m.kind)]), DISAGREE_CAP)
        letter = rotation = kind
        face = 1.0  # the face's letter and turn both right, if it is a face
        if m.kind == "tile":
            # A face's letter and turn as likely as the network believes them, given a face is
            # there (as the benchmark's tables and the calibrator's fit judge them: on the tiles
            # there are); that a face is there at all is the kind's probability.
            letter = float(letter_p[i, letters.index(m.letter)])
            turned = m.letter != BLANK_FACE and m.rotation in ROTATIONS
            rotation = letter * float(beliefs.turn[i, ROTATIONS.index(m.rotation)]) if turned else letter
            face = rotation
        probs["kind"][i], probs["letter"][i], probs["rotation"][i] = kind, letter, rotation
        probs["set"][i] = kind * face
        probs["square"][i] = min(kind * face, float(probs["token"][i]))
        out[i] = replace(m, token=c.token, confidence=float(probs["square"][i]))
    return out, probs


def network_run(rectified: np.ndarray, rows: int, cols: int, cell_px: int, margin: float) -> tuple[np.ndarray, Beliefs]:
    """The squares cut and the network run once: every reader of one photo shares it."""
    squares = cut(rectified, rows, cols, cell_px, margin)
    return squares, beliefs_of(squares)


def read_squares(
    rectified: np.ndarray, rules: Sequence[CellReading], rows: int, cols: int, cell_px: int, margin: float,
    tileset: TileSet, mode: str = SQUARE_READER, run: tuple[np.ndarray, Beliefs] | None = None,
) -> list[CellReading]:
    """The squares as ``mode`` reads them, given the hand-written reader's ``rules``."""
    return read_squares_fields(rectified, rules, rows, cols, cell_px, margin, tileset, mode, run=run)[0]


def read_squares_fields(
    rectified: np.ndarray, rules: Sequence[CellReading], rows: int, cols: int, cell_px: int, margin: float,
    tileset: TileSet, mode: str = SQUARE_READER, backs_known: bool = False,
    run: tuple[np.ndarray, Beliefs] | None = None, adapted: Any = None, loose: np.ndarray | None = None,
    outlined: np.ndarray | None = None,
) -> tuple[list[CellReading], dict[str, Any] | None]:
    """:func:`read_squares`, and for ``calibrated`` each field's probability of being right per
    square (:data:`companion.vision.confidence.FIELDS`), the ``evidence`` they came from and the
    ``witnesses`` it was made of (``backs_known``: the profile knows the sets' backs;
    ``adapted``: the adaptation's :class:`companion.vision.adapt.Adapted` when the rules'
    answers are its; ``loose``: the squares whose colour says empty only loosely,
    :func:`companion.vision.cells.kinds.loose_empty`, and ``outlined`` those of them whose
    outline is a tile's, :func:`companion.vision.cells.shapes._outlined`). ``run``:
    :func:`network_run` of the same squares when made already (several readers of one photo
    share the network's one run)."""
    if mode not in SQUARE_READERS:
        raise CompanionError(f"unknown square reader {mode!r} (known: {', '.join(SQUARE_READERS)})")
    if mode == "rules":
        return list(rules), None
    squares, beliefs = run if run is not None else network_run(rectified, rows, cols, cell_px, margin)
    if mode == "calibrated":
        # A plain square's kind where the network is sure of it (docs/vision-backs.md): a back
        # without a profile, an empty square a profile's backs' colour took for one.
        rules, _ = plain_kinds(rules, beliefs, squares)
        ev = evidence(rules, beliefs, load_square_model().letters, tileset, backs_known, adapted)
        cells, fields = calibrate_cells(rules, ev)
        if (fields["kind"] < KIND_SWITCH).any():
            net = model_cells(beliefs, rows, cols, tileset, rules, squares)
            cells, fields = switch_kinds(cells, fields, net, beliefs, tileset)
        if loose is not None:
            # Read empty where the colour and the network each doubt it a little: asked about.
            # The square asked; its fields keep the calibrator's probabilities (as where both
            # witnesses doubt it, confidence.Calibrator._split): held too, their calibration
            # errors rose on the stranger benchmark, the empty squares asked being mostly empty.
            cells, fields = asked(cells, fields, unsure_empty(cells, loose, beliefs, outlined), ("square",))
        return cells, {**fields, "evidence": ev, "witnesses": Witnesses(rules, beliefs, backs_known, adapted)}
    cells = model_cells(beliefs, rows, cols, tileset, rules, squares)
    return combine(rules, cells, mode), None
