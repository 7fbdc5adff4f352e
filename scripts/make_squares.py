#!/usr/bin/env python3
"""Cut the learned square reader's training data from renders (``make model`` runs it).

Each scene is :func:`companion.sim.trainscene.training_scene` of its seed, rendered, seen from
straight above through the scene's true grid, and every square cut (:func:`companion.vision.
squares.cut`) a little off where the grid is (as a found grid is: up to 0.08 of a square, 5 %
in size), labelled from the scene's truth. Most squares of a board are empty: a third of the
empty ones are kept. Same seeds, same bytes.

Seeds: training 70000 on (the fine-tuning set of look-alikes, ``--look-alikes``: 72000 on),
validation (temperature scaling, figures) 90000 on (look-alikes: 90200 on). The stranger
benchmark's 50000-50199 are never drawn.

    python scripts/make_squares.py --seed0 70000 --scenes 1200 --out build/squares/train.npz
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.sim.render import render  # noqa: E402
from companion.sim.trainscene import training_scene  # noqa: E402
from companion.vision.cells import CELL_PX, MARGIN  # noqa: E402
from companion.vision.grid import rectify  # noqa: E402
from companion.vision.reading import KINDS, ROTATIONS  # noqa: E402
from companion.vision.squares import cut, letter_classes  # noqa: E402

BENCHMARK_SEEDS = range(50000, 50200)
KEEP_EMPTY = 0.33


def scene_squares(seed: int, wide_fonts: bool = False, look_alikes: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Cut squares and labels (kind, letter or -1, turn index or -1, token) of one scene
    (``wide_fonts``, ``look_alikes``: :func:`training_scene`'s)."""
    if seed in BENCHMARK_SEEDS:
        raise SystemExit(f"seed {seed} is the stranger benchmark's: never trained on")
    rng = np.random.default_rng(seed)
    spec = training_scene(rng, wide_fonts, look_alikes)
    scene = render(spec, seed)
    n = spec.grid
    top = rectify(scene.image, scene.location, CELL_PX, MARGIN)
    jr = np.random.default_rng([seed, 1])
    shift = jr.uniform(-0.08, 0.08, (n * n, 2))
    scale = jr.uniform(0.95, 1.05, n * n)
    x = cut(top, n, n, CELL_PX, MARGIN, shift, scale)
    letters = letter_classes()
    y = np.full((n * n, 4), -1, np.int16)
    keep = np.zeros(n * n, bool)
    for i, c in enumerate(scene.truth.cells):
        y[i, 0] = KINDS.index(c.kind)
        if c.kind == "tile":
            y[i, 1] = letters.index(c.letter)
            y[i, 2] = ROTATIONS.index(c.rotation)
        y[i, 3] = int(c.token)
        keep[i] = c.kind != "empty" or c.token or jr.random() < KEEP_EMPTY
    return x[keep], y[keep]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed0", type=int, required=True)
    ap.add_argument("--scenes", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--wide-fonts", action="store_true",
                    help="letters in the training-only font families too (glyphs_train.npz; not make model's)")
    ap.add_argument("--look-alikes", action="store_true",
                    help="backs of the board's square colours, tokens of the faces' (make model-alike's fine-tuning set)")
    a = ap.parse_args(argv)
    cv2.setNumThreads(1)
    if a.scenes <= 0:
        print("--scenes must be positive", file=sys.stderr)
        return 2
    xs, ys = [], []
    t0 = time.perf_counter()
    for i in range(a.scenes):
        x, y = scene_squares(a.seed0 + i, a.wide_fonts, a.look_alikes)
        xs.append(x)
        ys.append(y)
        if (i + 1) % 50 == 0:
            print(f"{i + 1}/{a.scenes} scenes, {sum(len(v) for v in xs)} squares, {time.perf_counter() - t0:.0f} s", flush=True)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(a.out, x=np.concatenate(xs), y=np.concatenate(ys), letters=np.array(letter_classes()))
    print(f"{a.out}: {sum(len(v) for v in xs)} squares from {a.scenes} scenes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
