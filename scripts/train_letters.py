#!/usr/bin/env python3
"""Train the letter classifier the companion ships, from the glyph atlas alone.

Every letter of every tile set and the ten digits, in each of the atlas's fonts, is drawn on
synthetic tile faces (companion/sim/facesynth.py: stroke width, scale, squeeze, position,
turn, crop offset, light, resolution, blur, noise, JPEG), taken apart by the same code that
reads a real face (companion/vision/face.py), and a small network learns the normalised
pictures. No photo is used. Everything comes from one seed and runs single-threaded, so the
same atlas gives the same model.

    python scripts/train_letters.py [--out companion/vision/data/letters.npz] [--per-font N]
"""

from __future__ import annotations

import os

# One thread: BLAS reductions in another order would change the last bits of the weights.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import hashlib
import io
import sys
import time
import zipfile
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.core.tiles import get_tileset, tileset_names
from companion.vision.face import split_face
from companion.sim.facesynth import binarised, draw_face, draw_other, random_style
from companion.vision.glyphs import load_atlas
from companion.vision.letters import DIGITS, OTHER, LetterModel, glyph_features

SEED = 20240603


def letter_values() -> dict[str, list[str]]:
    """Each letter's printed values over the tile sets (a letter may be worth more in one)."""
    values: dict[str, set[str]] = {}
    for name in tileset_names():
        ts = get_tileset(name)
        for letter in ts.alphabet:
            values.setdefault(letter, set()).add(str(ts.values[letter]))
    return {k: sorted(v) for k, v in values.items()}


def samples(rng: np.random.Generator, per_font: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Normalised pictures and labels: letters from faces, digits from their values."""
    atlas = load_atlas()
    values = letter_values()
    letters = sorted(values)
    classes = letters + list(DIGITS) + [OTHER]
    pictures: list[np.ndarray] = []
    labels: list[int] = []
    for font in range(len(atlas.fonts)):
        for letter in letters:
            for _ in range(per_font):
                style = random_style(rng, atlas)
                style = replace(style, font=font)
                # Values: the letter's own mostly, any one or two digits sometimes, so that
                # every digit is seen often.
                if rng.random() < 0.5:
                    value = str(rng.choice(values[letter]))
                else:
                    value = str(int(rng.integers(0, 10))) if rng.random() < 0.7 else str(int(rng.integers(10, 100)))
                if rng.random() < 0.08:
                    value = ""
                face = draw_face(rng, atlas, letter, value, style)
                ink = split_face(face, face_frac=1.0 / style.crop_scale)
                if ink.glyph is None:
                    continue
                pictures.append(ink.glyph)
                labels.append(classes.index(letter))
                if rng.random() < 0.25:
                    # As a coarse component mask shows it (glyph candidates on the board).
                    pictures.append(binarised(ink.glyph, rng))
                    labels.append(classes.index(letter))
                if len(ink.digits) == len(value) and ink.corner == (1, 1):
                    order = sorted(ink.digits, key=lambda d: d[1])
                    for (picture, _dx, _dy), digit in zip(order, value):
                        pictures.append(picture)
                        labels.append(classes.index(digit))
        # Ink that is no letter: the board's print, tokens, blobs (see facesynth.OTHER_SHAPES).
        for _ in range(per_font * 6):
            style = replace(random_style(rng, atlas), font=font)
            ink = split_face(draw_other(rng, atlas, style), face_frac=1.0 / style.crop_scale)
            if ink.glyph is None:
                continue
            picture = ink.glyph if rng.random() < 0.7 else binarised(ink.glyph, rng)
            pictures.append(picture)
            labels.append(classes.index(OTHER))
    return np.stack(pictures), np.array(labels, np.int64), classes


def train(
    x: np.ndarray, y: np.ndarray, n_classes: int, rng: np.random.Generator, hidden: int, epochs: int
) -> tuple[np.ndarray, ...]:
    """A ReLU layer and softmax, Adam on cross-entropy with weight decay and label smoothing."""
    mean = x.mean(0)
    scale = 1.0 / (x.std(0) + 1e-3)
    z = ((x - mean) * scale).astype(np.float32)
    d = z.shape[1]
    w1 = (rng.standard_normal((d, hidden)) * np.sqrt(2.0 / d)).astype(np.float32)
    b1 = np.zeros(hidden, np.float32)
    w2 = (rng.standard_normal((hidden, n_classes)) * np.sqrt(1.0 / hidden)).astype(np.float32)
    b2 = np.zeros(n_classes, np.float32)
    params = [w1, b1, w2, b2]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    beta1, beta2, decay, smooth, batch = 0.9, 0.999, 2e-4, 0.05, 256
    target = np.full((n_classes,), smooth / n_classes, np.float32)
    step = 0
    n = len(z)
    for epoch in range(epochs):
        lr = 2e-3 * 0.5 * (1 + np.cos(np.pi * epoch / epochs))
        order = rng.permutation(n)
        loss_sum = 0.0
        for i in range(0, n, batch):
            idx = order[i : i + batch]
            xb, yb = z[idx], y[idx]
            h_pre = xb @ w1 + b1
            h = np.maximum(h_pre, 0)
            logits = h @ w2 + b2
            logits -= logits.max(1, keepdims=True)
            p = np.exp(logits)
            p /= p.sum(1, keepdims=True)
            t = np.tile(target, (len(idx), 1))
            t[np.arange(len(idx)), yb] += 1 - smooth
            loss_sum += float(-(t * np.log(p + 1e-9)).sum())
            g_logits = (p - t) / len(idx)
            g_w2 = h.T @ g_logits + decay * w2
            g_b2 = g_logits.sum(0)
            g_h = g_logits @ w2.T
            g_h[h_pre <= 0] = 0
            g_w1 = xb.T @ g_h + decay * w1
            g_b1 = g_h.sum(0)
            step += 1
            for j, (p_, g) in enumerate(zip(params, (g_w1, g_b1, g_w2, g_b2))):
                m[j] = beta1 * m[j] + (1 - beta1) * g
                v[j] = beta2 * v[j] + (1 - beta2) * g * g
                mh = m[j] / (1 - beta1**step)
                vh = v[j] / (1 - beta2**step)
                p_ -= (lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        print(f"  epoch {epoch + 1}/{epochs}: loss {loss_sum / n:.4f}", flush=True)
    return mean, scale, w1, b1, w2, b2


def write_npz(arrays: dict[str, np.ndarray]) -> bytes:
    """An .npz by hand with fixed member dates, so the same model gives the same bytes."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for key in sorted(arrays):
            member = io.BytesIO()
            np.lib.format.write_array(member, arrays[key], allow_pickle=False)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, member.getvalue())
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "companion" / "vision" / "data" / "letters.npz")
    parser.add_argument("--per-font", type=int, default=80, help="faces per letter and font")
    parser.add_argument("--hidden", type=int, default=192)
    parser.add_argument("--epochs", type=int, default=20)
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    rng = np.random.default_rng(SEED)
    t0 = time.perf_counter()
    pictures, labels, classes = samples(rng, args.per_font)
    print(f"{len(labels)} pictures of {len(classes)} classes in {time.perf_counter() - t0:.0f} s", flush=True)
    features = glyph_features(pictures)
    mean, scale, w1, b1, w2, b2 = train(features, labels, len(classes), rng, args.hidden, args.epochs)
    model = LetterModel(
        tuple(classes), mean, scale, w1, b1, w2, b2,
        {"seed": SEED, "per_font": args.per_font, "hidden": args.hidden, "epochs": args.epochs,
         "samples": len(labels), "source": "glyph atlas (companion/vision/data/glyphs.npz)"},
    )
    # Accuracy on fresh faces from another seed: how well it knows the atlas, not real tiles.
    check_x, check_y, _ = samples(np.random.default_rng(SEED + 1), max(4, args.per_font // 10))
    stored = LetterModel.from_arrays(model.to_arrays())
    predicted = stored.logits(glyph_features(check_x)).argmax(1)
    accuracy = float((predicted == check_y).mean())
    data = write_npz(stored.to_arrays())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()[:16]
    print(
        f"{args.out}: {len(classes)} classes, {len(data)} bytes, held-out synthetic accuracy "
        f"{accuracy:.4f}, sha256 {digest}, {time.perf_counter() - t0:.0f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
