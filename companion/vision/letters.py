"""The project's own letter classifier: a small network over gradient histograms of the
normalised letter picture (see :mod:`companion.vision.face`).

It knows every letter of every tile set and the ten digits (for the printed values). The
shipped model (``data/letters.npz``) is learned from the glyph atlas alone by
``scripts/train_letters.py``, deterministically. A profile can add the user's own tiles
(``calibrate --layout alphabet``, or labelled photos): their pictures are kept in the profile
and read by nearest neighbours beside the network, which is what makes a stranger's font
read as well as a known one.

Inference is a few matrix products over a batch: every tile of a full board in all four
turns costs milliseconds on one core.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

import cv2
import numpy as np

from companion.core.errors import CompanionError
from companion.vision.face import fit_square

DIGITS = "0123456789"
OTHER = "#"  # the class of ink that is no letter and no digit
_CELL = 6  # HOG cell side in pixels of the normalised picture
_BINS = 8


def _cell_histograms(x: np.ndarray) -> np.ndarray:
    """(N, S, S) pictures -> (N, C, C, BINS) orientation histograms of gradient magnitude."""
    n, s, _ = x.shape
    gx = np.zeros_like(x)
    gy = np.zeros_like(x)
    gx[:, :, 1:-1] = x[:, :, 2:] - x[:, :, :-2]
    gy[:, 1:-1, :] = x[:, 2:, :] - x[:, :-2, :]
    mag, ang = cv2.cartToPolar(gx.reshape(n * s, s), gy.reshape(n * s, s))
    # Unsigned orientation; bin centres at (k + 0.5) * 180 / BINS, so that a quarter turn of the
    # picture moves every vote by exactly BINS / 2 bins (see glyph_features' turns).
    pos = ang.reshape(n, s, s) * (_BINS / np.pi) - 0.5
    lo = np.floor(pos)
    frac = pos - lo
    # (BINS is a power of two: the mask is the modulo, -1 included, and far cheaper.)
    lo = lo.astype(np.int32) & (_BINS - 1)
    hi = (lo + 1) & (_BINS - 1)
    mag = mag.reshape(n, s, s)
    c = s // _CELL
    # Each pixel votes into its cell's two nearest orientation bins: one bincount per batch.
    cell = np.arange(s) // _CELL
    base = ((np.arange(n, dtype=np.int32)[:, None, None] * c + cell[:, None]) * c + cell[None, :]) * _BINS
    size = n * c * c * _BINS
    w_hi = mag * frac
    cells = np.bincount((base + lo).ravel(), (mag - w_hi).ravel(), size)
    cells += np.bincount((base + hi).ravel(), w_hi.ravel(), size)
    return cells.astype(np.float32).reshape(n, c, c, _BINS)


def _features(cells: np.ndarray, pooled: np.ndarray) -> np.ndarray:
    n = cells.shape[0]
    blocks = np.concatenate(
        [cells[:, :-1, :-1], cells[:, 1:, :-1], cells[:, :-1, 1:], cells[:, 1:, 1:]], axis=3
    ).reshape(n, -1, 4 * _BINS)
    blocks /= np.sqrt((blocks**2).sum(2, keepdims=True) + 1e-3)
    np.minimum(blocks, 0.2, out=blocks)
    blocks /= np.sqrt((blocks**2).sum(2, keepdims=True) + 1e-3)
    return np.concatenate([blocks.reshape(n, -1), pooled.reshape(n, -1)], axis=1)


def glyph_features(batch: np.ndarray, turns: bool = False) -> np.ndarray:
    """Features of normalised letter pictures (N, GLYPH_PX, GLYPH_PX), 0..1 ink: histograms
    of gradient orientation in 6-pixel cells normalised over 2x2 blocks (as HOG), and the ink
    pooled to 8x8. Computed for the whole batch at once.

    With ``turns``, (N, 4, D): the features of each picture turned back by 0, 90, 180 and 270
    degrees (as :func:`turned` turns them), got by permuting cells and orientation bins rather
    than computing four times: a quarter turn moves each gradient by half the bins."""
    x = np.asarray(batch, np.float32)
    if x.ndim == 2:
        x = x[None]
    n, s, _ = x.shape
    cells = _cell_histograms(x)
    pooled = x.reshape(n, 8, s // 8, 8, s // 8).mean((2, 4))
    if not turns:
        return _features(cells, pooled)
    # np.rot90 by k turns the picture counter-clockwise: gradient angles grow by k * 90
    # degrees as the image shows them (y down), which is -k * 90 in the maths sense.
    # The four turns go through the features as one batch (turn-major), then interleave.
    # (Each turn's cells written into one array; an odd turn's bins move by half their count,
    # an even turn's by none: np.roll's copies and the concatenation's are saved.)
    c_all = np.empty((4 * n, *cells.shape[1:]), cells.dtype)
    half = _BINS // 2
    for k in range(4):
        cells_k, out = np.rot90(cells, k=k, axes=(1, 2)), c_all[k * n : (k + 1) * n]
        if k % 2:
            out[..., :half], out[..., half:] = cells_k[..., half:], cells_k[..., :half]
        else:
            out[...] = cells_k
    p_all = np.concatenate([np.rot90(pooled, k=k, axes=(1, 2)) for k in range(4)])
    feats = _features(c_all, p_all)
    return np.ascontiguousarray(feats.reshape(4, n, -1).transpose(1, 0, 2))


@dataclass(frozen=True, eq=False)
class LetterModel:
    """A one-hidden-layer network: standardise, ReLU layer, softmax over ``classes``."""

    classes: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    meta: dict

    def logits(self, features: np.ndarray) -> np.ndarray:
        z = (features - self.mean) * self.scale
        h = np.maximum(z @ self.w1 + self.b1, 0.0)
        return h @ self.w2 + self.b2

    def index(self, characters: str | list[str]) -> np.ndarray:
        return np.array([self.classes.index(ch) for ch in characters], np.int64)

    def to_arrays(self) -> dict[str, np.ndarray]:
        meta = dict(self.meta, classes=list(self.classes))
        return {
            "meta": np.frombuffer(json.dumps(meta, ensure_ascii=False, sort_keys=True).encode(), np.uint8),
            "mean": self.mean.astype(np.float32),
            "scale": self.scale.astype(np.float32),
            "w1": self.w1.astype(np.float16),
            "b1": self.b1.astype(np.float32),
            "w2": self.w2.astype(np.float16),
            "b2": self.b2.astype(np.float32),
        }

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> LetterModel:
        meta = json.loads(bytes(arrays["meta"]).decode("utf-8"))
        return cls(
            tuple(meta.pop("classes")),
            arrays["mean"].astype(np.float32),
            arrays["scale"].astype(np.float32),
            arrays["w1"].astype(np.float32),
            arrays["b1"].astype(np.float32),
            arrays["w2"].astype(np.float32),
            arrays["b2"].astype(np.float32),
            meta,
        )


@cache
def load_model() -> LetterModel:
    """The shipped model, built by ``scripts/train_letters.py`` from the atlas alone."""
    try:
        with resources.files("companion.vision").joinpath("data", "letters.npz").open("rb") as f:
            with np.load(f, allow_pickle=False) as npz:
                return LetterModel.from_arrays({k: npz[k] for k in npz.files})
    except FileNotFoundError:
        raise CompanionError("the letter model is missing (run scripts/train_letters.py)") from None


def softmax(z: np.ndarray, axis: int = -1) -> np.ndarray:
    z = z - z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def turned(glyphs: np.ndarray) -> np.ndarray:
    """(N, S, S) pictures -> (N, 4, S, S): each turned upright as if the tile lay turned 0, 90,
    180, 270 degrees clockwise (so undoing that turn: counter-clockwise by as much)."""
    return np.stack([np.rot90(glyphs, k=k, axes=(1, 2)) for k in range(4)], axis=1)


# ---------------------------------------------------------------------------------------------
# Reading faces: letter, turn, value


# The corner the value digits are seen in, relative to the letter, for each clockwise turn of
# the tile: upright they are bottom-right; a quarter turn clockwise carries them bottom-left.
CORNER_OF_TURN: dict[int, tuple[int, int]] = {0: (1, 1), 1: (-1, 1), 2: (-1, -1), 3: (1, -1)}


@dataclass(frozen=True)
class LetterGuess:
    letter: str  # a letter of the tile set, or "?" (no glyph: a blank face)
    rotation: int  # 0, 90, 180, 270
    p_letter: float  # belief in the letter (over turns)
    p_rotation: float  # belief in the turn (over letters)
    value: str | None = None  # the value digits as read, upright, when there were any
    value_agrees: bool | None = None


@dataclass(frozen=True)
class FaceScores:
    """Log-beliefs over (turn, letter) per face, and the value digits read at each turn."""

    logp: np.ndarray  # (N, 4, L)
    values: list[list[str | None]]
    letters: list[str]
    # (N,) the network's belief that the picture is one of the letters (in its likeliest turn)
    # rather than ink that is no letter: what tells a letter from the board's print.
    letterness: np.ndarray | None = None

    def concat(self, other: FaceScores) -> FaceScores:
        """These faces' scores followed by ``other``'s (over the same letters)."""
        def both(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
            return None if a is None or b is None else np.concatenate([a, b])

        return FaceScores(np.concatenate([self.logp, other.logp]), list(self.values) + list(other.values),
                          self.letters, both(self.letterness, other.letterness))

    def subset(self, rows: list[int]) -> FaceScores:
        """The scores of some faces only (in the order given)."""
        idx = np.asarray(rows, np.int64)
        return FaceScores(
            self.logp[idx], [self.values[i] for i in rows] if self.values else [], self.letters,
            None if self.letterness is None else self.letterness[idx],
        )

    def best(self, rotation_prior: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Each face's most likely turn index and letter index under a prior over turns, with
        the belief in that letter (over every turn) and in that turn (over every letter)."""
        prior = np.log((np.full(4, 0.25) if rotation_prior is None else rotation_prior) + 1e-6)
        n = len(self.logp)
        score = self.logp + prior[None, :, None]
        flat = score.reshape(n, -1)
        p = np.exp(flat - flat.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        p = p.reshape(score.shape)
        best = p.reshape(n, -1).argmax(1)
        ks, lis = np.unravel_index(best, score.shape[1:])
        return ks, lis, p.sum(1)[np.arange(n), lis], p.sum(2)[np.arange(n), ks]

    def decide(self, rotation_prior: np.ndarray | None = None, value_of: dict[str, int] | None = None) -> list[LetterGuess]:
        """The most likely (letter, turn) of each face under a prior over turns."""
        n = len(self.logp)
        if n == 0:
            return []
        ks, lis, p_letter, p_turn = self.best(rotation_prior)
        out = []
        for i in range(n):
            k, li = int(ks[i]), int(lis[i])
            letter = self.letters[li]
            read = self.values[i][k] if self.values else None
            agrees = None if read is None or value_of is None else read == str(value_of.get(letter, -1))
            out.append(LetterGuess(letter, 90 * k, float(p_letter[i]), float(p_turn[i]), read, agrees))
        return out


@dataclass(frozen=True, eq=False)
class LetterReader:
    """The network plus, when a profile has them, the user's own letters (nearest neighbours)."""

    model: LetterModel
    own_features: np.ndarray | None = None  # (M, D) features of the user's letter pictures
    own_labels: tuple[str, ...] = ()

    def _network(self, faces: list, letters: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The faces' letter pictures (N, S, S), their features in the four turns (N, 4, D),
        the network's logits (N, 4, classes), and its belief that each picture is one of
        ``letters`` in its likeliest turn rather than ink that is no letter (N,)."""
        n = len(faces)
        glyphs = np.stack([f.glyph for f in faces])
        feats = glyph_features(glyphs, turns=True)  # (N, 4, D)
        logits = self.model.logits(feats.reshape(n * 4, -1)).reshape(n, 4, -1)
        with_other = softmax(logits[:, :, self.model.index(list(letters) + [OTHER])])
        return glyphs, feats, logits, with_other[..., :-1].max(2).max(1).astype(np.float32)

    def letterness(self, faces: list, letters: list[str]) -> np.ndarray:
        """(N,) how much each face's picture (each must have a glyph) looks like one of
        ``letters`` in its likeliest turn: :meth:`score`'s ``letterness`` alone, without
        reading turns and values."""
        return self._network(faces, letters)[3] if faces else np.zeros(0, np.float32)

    def score(self, faces: list, letters: list[str], values: dict[str, int]) -> FaceScores:
        """Log-beliefs over (turn, letter) for each face (which must have a glyph): the
        network's over the four turns (with the user's own letters when known), plus the
        corner of the value digits, plus agreement of the digits read with each letter's
        value. All faces and all digits go through the network in one batch each."""
        n = len(faces)
        if n == 0:
            return FaceScores(np.zeros((0, 4, len(letters)), np.float32), [], letters, np.zeros(0, np.float32))
        glyphs, feats, logits, letterness = self._network(faces, letters)
        idx = self.model.index(letters)
        # Each letter's belief at each turn against every class the network knows: a
        # picture turned wrongly looks like no letter (ink that is no letter, a digit), and
        # normalising over the tile set's letters alone would make any turn's best guess as
        # sure as the right turn's (an F turned a quarter is "#" 0.33, "O" 0.12: O alone of
        # the letters).
        logp = np.log(softmax(logits)[:, :, idx] + 1e-6)  # (N, 4, L)
        if self.own_features is not None and len(self.own_labels):
            logp = 0.5 * logp + 0.5 * self._own_logp(feats, letters)
        logp = _alike_turns(glyphs, logp)
        # The corner the digits are in says the turn (one of two, when another corner holds
        # ink as much like them: which of the two, the letter and the readings say).
        for i, face in enumerate(faces):
            if face.corner is not None:
                for k in range(4):
                    if CORNER_OF_TURN[k] not in (face.corner, face.rival_corner):
                        logp[i, k] -= 4.0
        read_values: list[list[str | None]] = [[None] * 4 for _ in range(n)]
        # What the value read says of each letter at each turn (added to ``logp`` at the end).
        vt = np.zeros_like(logp)
        rivals = [i for i, f in enumerate(faces) if f.rival_corner is not None]
        if rivals:
            self._rival_values(faces, rivals, letters, values, vt, read_values)
        # The digits themselves, read for every turn, say the value.
        owners = [(i, j) for i, f in enumerate(faces) if f.rival_corner is None for j in range(len(f.digits))]
        if owners:
            pics = np.stack([faces[i].digits[j][0] for i, j in owners])
            dfeat = glyph_features(pics, turns=True)
            dl = self.model.logits(dfeat.reshape(len(pics) * 4, -1)).reshape(len(pics), 4, -1)
            dp = softmax(dl[:, :, self.model.index(DIGITS)])  # (M, 4, 10)
            best = dp.argmax(-1)
            sure = dp.max(-1)
            value_str = np.array([str(values.get(letter, -1)) for letter in letters])
            counts = np.array([0 if f.rival_corner is not None else len(f.digits) for f in faces])
            first = np.concatenate([[0], np.cumsum(counts)[:-1]])
            # One digit (most values): every face and turn at once.
            one = np.flatnonzero(counts == 1)
            if len(one):
                m = first[one]
                for k in range(4):
                    texts = np.array([DIGITS[d] for d in best[m, k]])
                    agrees = texts[:, None] == value_str[None, :]
                    sure_k = sure[m, k][:, None]
                    vt[one, k] += np.where(agrees, np.log(0.5 + 0.5 * sure_k), np.log(1.0 - 0.97 * sure_k))
                    for i, t in zip(one, texts):
                        read_values[i][k] = str(t)
            # Two or more: read them in order, left to right as they stand upright; two
            # pieces lying across the line of text at a turn are one digit there, read whole.
            many = np.flatnonzero(counts > 1)
            across = [(i, k) for i in many for k in range(4)
                      if faces[i].digits_whole is not None and faces[i].pieces_along == 1 - k % 2]
            whole: dict[tuple[int, int], tuple[str, float]] = {}
            if across:
                wfeat = glyph_features(np.stack([faces[i].digits_whole for i, _ in across]), turns=True)
                wfeat = wfeat[np.arange(len(across)), [k for _, k in across]]
                wp = softmax(self.model.logits(wfeat)[:, self.model.index(DIGITS)])
                whole = {ik: (DIGITS[int(wp[m].argmax())], float(wp[m].max())) for m, ik in enumerate(across)}
            for i in many:
                face = faces[i]
                rows = range(first[i], first[i] + counts[i])
                for k in range(4):
                    order = sorted(rows, key=lambda m: _upright(*face.digits[owners[m][1]][1:], k)[0])
                    text = "".join(DIGITS[int(best[m, k])] for m in order)
                    certainty = float(np.prod([sure[m, k] for m in order]))
                    if (i, k) in whole:
                        text, certainty = whole[i, k]
                    read_values[i][k] = text
                    agrees = value_str == text
                    # A value read surely and disagreeing is strong evidence against a letter.
                    vt[i, k] += np.where(agrees, np.log(0.5 + 0.5 * certainty), np.log(1.0 - 0.97 * certainty))
        pairs = [li for li, letter in enumerate(letters) if 10 <= values.get(letter, -1) <= 99]
        if pairs:
            self._blurred_pairs(faces, pairs, letters, values, logp, vt)
        return FaceScores(logp + vt, read_values, letters, letterness)

    def _blurred_pairs(self, faces: list, pairs: list[int], letters: list[str], values: dict[str, int],
                       logp: np.ndarray, vt: np.ndarray) -> None:
        """Two digits blurred into one piece ("10" printed small): at each turn where the
        value's ink is one piece as long along that turn's line of text as it is across (a
        single digit is taller than wide), the piece is also read as two digits side by side,
        and each letter worth two digits (``pairs``) is weighed by how likely its value is to
        look so (``vt`` in place, where that is likelier than the piece read as one digit)."""
        # Only where a letter worth two digits could come near the face's best with its value
        # read at its best (the value's term is at most 0): elsewhere the others decide.
        reach = logp[:, :, pairs].max(2) >= (logp + vt).max((1, 2))[:, None] - _PAIR_REACH
        jobs = []  # (face, turn, first half, second half)
        for i, k in zip(*np.nonzero(reach)):
            f = faces[i]
            g = f.rival_digits if f.rival_corner is not None and CORNER_OF_TURN[k] == f.rival_corner else f.digits
            if len(g) == 1:
                for first, second in _two_digits(g[0][0], k):
                    jobs.append((i, k, first, second))
        if not jobs:
            return
        pics = np.stack([h for job in jobs for h in job[2:]])
        turn_of = np.repeat([job[1] for job in jobs], 2)
        feats = glyph_features(pics, turns=True)[np.arange(len(pics)), turn_of]
        p = softmax(self.model.logits(feats)[:, self.model.index(list(DIGITS) + [OTHER])])
        best: dict[tuple[int, int, int], float] = {}
        for m, (i, k, _, _) in enumerate(jobs):
            for li in pairs:
                value = str(values.get(letters[li], -1))
                like = float(p[2 * m, DIGITS.index(value[0])] * p[2 * m + 1, DIGITS.index(value[1])])
                best[i, k, li] = max(best.get((i, k, li), 0.0), like)  # the likelier place to cut
        for (i, k, li), like in best.items():
            # (One digit read or two, whichever says the letter's value likelier: a cut
            # through a piece that was one digit after all says nothing.)
            vt[i, k, li] = max(vt[i, k, li], np.log(0.03 + 0.97 * like))

    def _rival_values(self, faces: list, rivals: list[int], letters: list[str], values: dict[str, int],
                      vt: np.ndarray, read_values: list[list[str | None]]) -> None:
        """The value evidence of faces with ink in two corners (in place): at each turn the
        ink in the corner that turn puts the value in is read, and each letter is weighed by
        how likely its value is to look so (a token's rim reads as no digit at all)."""
        groups = []  # (face, turn, pictures with their offsets)
        for i in rivals:
            f = faces[i]
            for k in range(4):
                groups.append((i, k, f.rival_digits if CORNER_OF_TURN[k] == f.rival_corner else f.digits))
        pics = np.stack([d[0] for _, _, g in groups for d in g])
        turn_of = np.array([k for _, k, g in groups for _ in g])
        feats = glyph_features(pics, turns=True)[np.arange(len(pics)), turn_of]
        p = softmax(self.model.logits(feats)[:, self.model.index(list(DIGITS) + [OTHER])])
        m = 0
        for i, k, g in groups:
            rows = range(m, m + len(g))
            m += len(g)
            order = sorted(rows, key=lambda r: _upright(*g[r - rows.start][1:], k)[0])
            text = "".join(DIGITS[int(p[r, :-1].argmax())] for r in order)
            read_values[i][k] = text
            # How likely each letter's value is to look as this ink does at this turn (the
            # chance it reads as each of its digits, in order; none for ink that is no digit).
            for li, letter in enumerate(letters):
                value = str(values.get(letter, -1))
                like = 0.0
                if len(value) == len(order) and value.isdigit():
                    like = float(np.prod([p[r, DIGITS.index(ch)] for r, ch in zip(order, value)]))
                vt[i, k, li] += np.log(0.03 + 0.97 * like)

    def _own_logp(self, feats: np.ndarray, letters: list[str]) -> np.ndarray:
        """log p(letter) from the nearest of the user's own pictures (per turn)."""
        n = feats.shape[0]
        own = self.own_features
        a = feats.reshape(n * 4, -1)
        a = a / (np.linalg.norm(a, axis=1, keepdims=True) + 1e-6)
        b = own / (np.linalg.norm(own, axis=1, keepdims=True) + 1e-6)
        sim = a @ b.T  # cosine similarity (N*4, M)
        out = np.full((n * 4, len(letters)), -8.0, np.float32)
        labels = np.array(self.own_labels)
        for li, letter in enumerate(letters):
            cols = labels == letter
            if cols.any():
                best = sim[:, cols].max(1)
                out[:, li] = best
        # Similarities to log-probabilities: a softmax with a sharp temperature.
        return np.log(softmax(out * 25.0) + 1e-6).reshape(n, 4, len(letters))


def _symmetry(glyphs: np.ndarray, k: int) -> np.ndarray:
    """(N,) correlation of each picture with itself turned by k quarter turns (1: the same
    picture at every turn, as an O; about 0: nothing alike)."""
    a = glyphs.reshape(len(glyphs), -1)
    b = np.rot90(glyphs, k=k, axes=(1, 2)).reshape(len(glyphs), -1)
    a = a - a.mean(1, keepdims=True)
    b = b - b.mean(1, keepdims=True)
    return (a * b).sum(1) / (np.sqrt((a * a).sum(1) * (b * b).sum(1)) + 1e-9)


def _alike_turns(glyphs: np.ndarray, logp: np.ndarray) -> np.ndarray:
    """The network's beliefs with what it cannot know taken out: a picture that is the same
    turned upside down (H, I, N, O, S, X, Z as printed) says nothing of which of the two
    turns the tile lies at, whatever small differences the network weighs (an I turned is
    a 1 to it; the digits' corner tells), and one the same at a quarter turn (O) nothing of
    any turn. Each turn's belief is raised towards the best of the turns alike, in
    proportion to how alike the picture is (correlation 0.7 nothing, 0.9 all)."""
    out = logp.copy()
    half = np.clip((_symmetry(glyphs, 2) - 0.7) / 0.2, 0.0, 1.0)[:, None, None]
    if half.any():
        best = np.maximum(out, np.roll(out, 2, axis=1))
        out += half * (best - out)
    quarter = np.clip((_symmetry(glyphs, 1) - 0.7) / 0.2, 0.0, 1.0)[:, None, None]
    if quarter.any():
        best = out.max(1, keepdims=True)
        out += quarter * (best - out)
    return out


_PAIR_REACH = 4.0  # log-belief under the face's best within which a two-digit letter is weighed (a turn prior moves at most 3.6)


def _two_digits(picture: np.ndarray, k: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """A value's one piece (a normalised picture) cut in two across the line of text of a
    tile turned ``k`` quarter turns clockwise (along x at 0 and 180 degrees, y at 90 and 270),
    where least ink joins the halves: the pairs of pictures in reading order, one for each
    place the join may be (its middle third; a fifth of the way along, as the narrow first
    digit of "10" leaves it), none when the piece is shorter along the line than across it
    (one digit) or more than twice as long (a bar, a line)."""
    along_x = k in (0, 2)
    pic = picture if along_x else picture.T
    ys, xs = np.nonzero(pic > 0.2)
    if len(xs) == 0:
        return []
    x0, x1, y0, y1 = int(xs.min()), int(xs.max()) + 1, int(ys.min()), int(ys.max()) + 1
    if not 0.95 * (y1 - y0) <= x1 - x0 <= 2.0 * (y1 - y0):
        return []  # (two digits side by side are as long as tall, up to twice: a bar is longer)
    profile = pic[y0:y1, x0:x1].sum(0)
    n = x1 - x0
    cuts = set()
    for lo, hi in ((n // 3, n - n // 3), (int(round(0.2 * n)), n - int(round(0.2 * n)))):
        lo = max(1, lo)
        if hi > lo:
            cuts.add(x0 + lo + int(np.argmin(profile[lo:hi])))
    out = []
    for cut in sorted(cuts):
        a, b = pic[y0:y1, x0:cut], pic[y0:y1, cut + 1 : x1]
        if a.size == 0 or b.size == 0 or a.max() < 0.3 or b.max() < 0.3:
            continue
        halves = [fit_square(h if along_x else h.T) for h in (a, b)]
        # Reading order: left to right as the tile stands upright (k = 1: the text runs down).
        out.append((halves[1], halves[0]) if k in (2, 3) else (halves[0], halves[1]))
    return out


def _upright(dx: float, dy: float, k: int) -> tuple[float, float]:
    """An offset seen on a tile turned k quarter turns clockwise, turned back upright."""
    for _ in range(k):
        dx, dy = dy, -dx  # a quarter turn counter-clockwise (y down)
    return dx, dy


def letter_reader(arrays: dict[str, np.ndarray] | None = None) -> LetterReader:
    """The shipped network, with the user's letters from a profile's arrays when present."""
    model = load_model()
    if arrays and "letter_glyphs" in arrays and "letter_codes" in arrays:
        glyphs, codes = np.ascontiguousarray(arrays["letter_glyphs"]), np.ascontiguousarray(arrays["letter_codes"])
        feats, labels = _own_letters(glyphs.tobytes(), glyphs.shape, glyphs.dtype.str, codes.tobytes(), codes.dtype.str)
        return LetterReader(model, feats, labels)
    return LetterReader(model)


@lru_cache(maxsize=8)
def _own_letters(glyphs: bytes, shape: tuple[int, ...], dtype: str, codes: bytes, codes_dtype: str
                 ) -> tuple[np.ndarray, tuple[str, ...]]:
    """The features of a profile's letter pictures and their letters, worked out once per
    profile (a reading asks twice, and every photo of a table the same), keyed by the arrays'
    bytes: a profile changed in place is a new key. The features are read-only (shared)."""
    pictures = np.frombuffer(glyphs, np.dtype(dtype)).reshape(shape).astype(np.float32) / 255.0
    feats = glyph_features(pictures)
    feats.flags.writeable = False
    return feats, tuple(chr(int(c)) for c in np.frombuffer(codes, np.dtype(codes_dtype)))
