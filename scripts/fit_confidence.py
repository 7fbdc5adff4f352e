#!/usr/bin/env python3
"""Fit the confidence calibrator (``make confidence``): companion/vision/data/confidence.json.

Development renders: :func:`companion.sim.trainscene.training_scene` on seeds 91000 on, each read
through the whole pipeline (the grid found, not given) by the rules and the network, twice: with
no profile and with the profile a calibrated table gives (each set's face and back colour, as
``bench.vision._profile_of_scene``). Every square's evidence (:func:`companion.vision.confidence.
evidence`) and whether each field of the rules' answer is right are kept in ``--cache``; the
weights are fitted on them (:func:`companion.vision.confidence.fit_logistic`, per field and
group). Never the network's seeds (70000-71599 training, 90000-90119 validation), nor the
stranger benchmark's (50000-50199) or its development seeds (52000 on). Same seeds, same bytes.

    python scripts/fit_confidence.py --seed0 91000 --scenes 300
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.vision.confidence import DATA, FEATURES, FIELDS, GROUPS, Calibrator, fit_logistic  # noqa: E402

FORBIDDEN = {"the network's training": range(70000, 71600), "the network's validation": range(90000, 90120),
             "the stranger benchmark": range(50000, 50200), "the stranger development sample": range(52000, 53000)}
FIELD_TRUTH = ("kind", "letter", "rotation", "token", "square")


def scene_rows(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Groups, features and field rightness (FIELD_TRUTH's order) of one scene's squares, read
    without and with the table's profile."""
    import cv2

    from bench.vision import _profile_of_scene, truth_for
    from companion.sim.render import render
    from companion.sim.trainscene import training_scene
    from companion.vision.grid import NoBoardFound
    from companion.vision.reader import decode_image, read_board
    from companion.vision.reading import compare

    rng = np.random.default_rng(seed)
    spec = training_scene(rng)
    scene = render(spec, seed)
    image = decode_image(cv2.imencode(".png", scene.image)[1].tobytes())
    groups, xs, ys = [], [], []
    for profile in (None, _profile_of_scene(spec)):
        try:
            reading = read_board(image, tileset=spec.tileset, grid=spec.grid, profile=profile,
                                 square_reader="calibrated")
        except NoBoardFound:
            continue  # no squares read, nothing to calibrate
        ev = reading.extra["evidence"]
        truth = truth_for(scene, profile)
        y = np.array([[r.kind == t.kind, r.letter == t.letter, r.rotation == t.rotation, r.token == t.token,
                       compare([t], [r])["square"] == 0] for t, r in zip(truth, reading.cells)], bool)
        groups.append(ev.group)
        xs.append(ev.x)
        ys.append(y)
    if not xs:
        return np.zeros(0, np.int64), np.zeros((0, len(FEATURES))), np.zeros((0, len(FIELD_TRUTH)), bool)
    return np.concatenate(groups), np.concatenate(xs), np.concatenate(ys)


def collect(seed0: int, scenes: int, cache: Path) -> None:
    for name, seeds in FORBIDDEN.items():
        if seed0 < seeds.stop and seeds.start < seed0 + scenes:
            raise SystemExit(f"seeds {seed0}-{seed0 + scenes - 1} overlap {name}'s ({seeds.start}-{seeds.stop - 1})")
    import cv2

    cv2.setNumThreads(1)
    g, x, y = [], [], []
    t0 = time.perf_counter()
    for i in range(scenes):
        gi, xi, yi = scene_rows(seed0 + i)
        g.append(gi)
        x.append(xi)
        y.append(yi)
        if (i + 1) % 20 == 0:
            print(f"{i + 1}/{scenes} scenes, {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(cache, group=np.concatenate(g), x=np.concatenate(x), y=np.concatenate(y),
                        seed0=seed0, scenes=scenes)


# Which squares each field is fitted on: a field a group does not have (a turn of a blank, a
# letter of an empty square) follows from another (Calibrator.field_probabilities).
APPLIES = {"kind": (0, 1, 2, 3, 4), "letter": (1, 2, 4), "rotation": (1,), "token": (0, 1, 2, 3, 4),
           "square": (0, 1, 2, 3, 4)}
MIN_ROWS = 30  # fewer squares of a group than this: its weights are the field's over all groups


def regroup(group: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The groups of :data:`GROUPS` (a cache of four groups: a blank without backs split off)."""
    group = group.copy()
    group[(group == 2) & (x[:, FEATURES.index("backs_known")] == 0)] = GROUPS.index("blank_no_backs")
    return group


def fit(cache: Path) -> Calibrator:
    d = np.load(cache)
    g, x, y = regroup(d["group"], d["x"]), d["x"], d["y"].astype(float)
    weights = {}
    counts: dict[str, dict[str, list[int]]] = {}
    for f in FIELDS:
        col = FIELD_TRUTH.index(f)
        overall = fit_logistic(x, y[:, col])
        w = np.tile(overall, (len(GROUPS), 1))
        counts[f] = {}
        for k in APPLIES[f]:
            m = g == k
            counts[f][GROUPS[k]] = [int(m.sum()), int(m.sum() - y[m, col].sum())]
            if m.sum() >= MIN_ROWS and 0 < y[m, col].sum() < m.sum():
                w[k] = fit_logistic(x[m], y[m, col])
            elif m.sum() >= MIN_ROWS:  # all right (or all wrong): as sure as the data allow
                p = (y[m, col].sum() + 0.5) / (m.sum() + 1.0)
                w[k] = 0.0
                w[k, 0] = np.log(p / (1 - p))
        weights[f] = w
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    meta = {
        "what": "logistic weights per field and group: P(field of the rules' answer right) = "
                "sigmoid(weights[field][group] . features) (companion/vision/confidence.py)",
        "fitted_on": f"companion.sim.trainscene seeds {int(d['seed0'])}-{int(d['seed0']) + int(d['scenes']) - 1}, "
                     "each read with no profile and with the scene's set colours and backs",
        "squares_and_wrong_per_field_and_group": counts,
        "script": "scripts/fit_confidence.py", "commit": rev,
        "square_model": "companion/vision/data/squares.onnx",
    }
    return Calibrator(weights, meta)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed0", type=int, default=91000)
    ap.add_argument("--scenes", type=int, default=300)
    ap.add_argument("--cache", type=Path, default=ROOT / "build" / "confidence" / "dev.npz")
    ap.add_argument("--out", type=Path, default=ROOT / "companion" / "vision" / "data" / DATA)
    ap.add_argument("--refit", action="store_true", help="fit on --cache as it is, rendering nothing")
    a = ap.parse_args(argv)
    if a.scenes <= 0:
        print("--scenes must be positive", file=sys.stderr)
        return 2
    if not a.refit:
        shipped = ROOT / "companion" / "vision" / "data" / DATA
        if not shipped.is_file():  # reading needs a calibrator; the evidence does not depend on it
            shipped.write_text(json.dumps(Calibrator.neutral().to_json(), indent=1) + "\n")
        collect(a.seed0, a.scenes, a.cache)
    elif not a.cache.is_file():
        print(f"{a.cache}: no such cache (run without --refit first)", file=sys.stderr)
        return 2
    cal = fit(a.cache)
    a.out.write_text(json.dumps(cal.to_json(), indent=1) + "\n")
    print(f"wrote {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
