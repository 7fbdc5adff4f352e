#!/usr/bin/env python3
"""Fit the confidence calibrator (``make confidence``): companion/vision/data/confidence.json.

Development renders: :func:`companion.sim.trainscene.training_scene` on seeds 91000 on, each
read through the whole pipeline (the grid found, not given) as a table reads it: once without a
profile, and once with the profile the table's own calibration makes of itself
(:func:`bench.vision.table_profile`: the empty board, each set's alphabet and backs, photographed
on the same table; the reading adapted by it, docs/vision-adapt.md). Each reading's witnesses
(the rules' answers, the network's beliefs, the adaptation's; :class:`companion.vision.
confidence.Witnesses`) and its truth are kept in ``--cache``; the calibrator is fitted on them:
per part (without / with the profile), field and group a monotone logistic
(:func:`companion.vision.confidence.fit_logistic`), then per part and field a monotone map of its
probability to the rightness observed (:func:`~companion.vision.confidence.fit_map`). Never the
network's seeds (70000-71599 training, 90000-90119 validation), nor the stranger benchmark's
(50000-50199) or its development seeds (52000 on). Same seeds, same bytes.

    python scripts/fit_confidence.py --seed0 91000 --scenes 300 --processes 2

``--measure CACHE``: the figures (bench/reliability.py's) of the shipped calibrator, or of the
one just fitted, on a cache made by ``--dev SEED0 N`` of the stranger development scenes
(bench.vision.stranger_tables; measured only, never fitted on).
"""

from __future__ import annotations

import argparse
import json
import pickle
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.vision.confidence import (  # noqa: E402
    DATA, FEATURES, FIELDS, GROUPS, PARTS, Calibrator, Evidence, fit_logistic, fit_map,
)

FORBIDDEN = {"the network's training": range(70000, 71600), "the network's validation": range(90000, 90120),
             "the stranger benchmark": range(50000, 50200), "the stranger development sample": range(52000, 53000)}
# Which squares each field is fitted on: a field a group does not have (a turn of a blank, a
# letter of an empty square) follows from another (Calibrator.field_probabilities); a set only
# where a profile names sets.
APPLIES = {"kind": (0, 1, 2, 3, 4), "letter": (1, 2, 4), "rotation": (1,), "token": (0, 1, 2, 3, 4),
           "set": (1, 2, 3, 4), "square": (0, 1, 2, 3, 4)}
# A face's letter and turn are judged on the squares that are faces (as the benchmark's
# reliability tables judge them): whether a face is there at all is the kind's probability.
# Fitted on every square read as a face, a blank read without the backs known got a letter's
# probability of about a quarter (in the fit of ddac196, 1,061 of 1,391 such squares were not blank
# faces): that is the kind's doubt, which the kind's probability carries already.
GIVEN_A_FACE = ("letter", "rotation")
MIN_ROWS = 30  # fewer squares of a group than this: its weights are the field's over all groups
PER_KNOT = 400  # squares per run of the monotone map


@dataclass(frozen=True)
class Record:
    """One reading of one scene, as kept in the cache: what the calibrator sees, the truth, and
    (to measure a calibrator as the reader would apply it) the confidences the reading ended
    with beside the calibrated ones it had before a hand or the photo's edge lowered them."""

    seed: int
    part: str  # "no_profile" or "table_profile"
    tileset: str
    truth: list
    witnesses: Any  # companion.vision.confidence.Witnesses, the network's embedding dropped; None: not found
    before: np.ndarray | None = None  # the square's calibrated confidence before the hands
    after: np.ndarray | None = None  # the reading's confidence


def _light(witnesses: Any) -> Any:
    """The witnesses without the network's embedding (the calibrator does not use it)."""
    from dataclasses import replace

    b = witnesses.beliefs
    beliefs = replace(b, kind=b.kind.astype(np.float32), letter=b.letter.astype(np.float32),
                      turn=b.turn.astype(np.float32), token=b.token.astype(np.float32),
                      embedding=np.zeros((len(b.kind), 0), np.float32))
    return replace(witnesses, beliefs=beliefs)


def read_as_a_table(seed: int, spec: Any, scene: Any, profile: Any) -> list[Record]:
    """The scene read without a profile and with ``profile``, as records."""
    import cv2

    from bench.vision import truth_for
    from companion.vision.grid import NoBoardFound
    from companion.vision.reader import decode_image, read_board

    image = decode_image(cv2.imencode(".png", scene.image)[1].tobytes())
    out = []
    for part, prof in (("no_profile", None), ("table_profile", profile)):
        truth = truth_for(scene, prof)
        try:
            reading = read_board(image, tileset=spec.tileset, grid=spec.grid, profile=prof,
                                 square_reader="calibrated")
        except NoBoardFound:
            out.append(Record(seed, part, spec.tileset, truth, None))
            continue
        before = _square_before(reading).astype(np.float32)
        after = np.array([c.confidence for c in reading.cells], np.float32)
        out.append(Record(seed, part, spec.tileset, truth, _light(reading.extra["witnesses"]), before, after))
    return out


def _square_before(reading: Any) -> np.ndarray:
    """The square's confidence as the reader had it before a hand or the photo's edge lowered
    it: the calibrator's, the adaptation's doubts capped."""
    from companion.vision.confidence import load_calibrator
    from companion.vision.model import DISAGREE_CAP

    p = load_calibrator().field_probabilities(reading.extra["evidence"])["square"]
    adapted = reading.extra["witnesses"].adapted
    if adapted is not None and adapted.doubts:
        p = np.where(np.isin(np.arange(len(p)), adapted.doubts), np.minimum(p, DISAGREE_CAP), p)
    return p


def train_records(seed: int) -> list[Record]:
    """A training scene's records (its table's profile as bench.vision.table_profile makes it)."""
    import cv2

    from bench.vision import table_profile
    from companion.sim.render import render
    from companion.sim.trainscene import training_scene

    cv2.setNumThreads(1)
    spec = training_scene(np.random.default_rng(seed))
    phone = bool(np.random.default_rng(seed).random() < 0.5)  # training_scene's first draw
    profile, _ = table_profile(spec, seed, phone)
    return read_as_a_table(seed, spec, render(spec, seed), profile)


def dev_records(seed: int) -> list[Record]:
    """A stranger development scene's records (bench.vision.stranger_tables)."""
    import cv2

    from bench.vision import stranger_tables

    cv2.setNumThreads(1)
    ((s, _phone, spec, scene, profile, _why),) = stranger_tables(1, seed)
    return read_as_a_table(s, spec, scene, profile)


def real_records(index: int) -> list[Record]:
    """The ``index``-th labelled scrabscrap photo (bench.vision's ``real``), read without a
    profile as the benchmark reads it (measured only, never fitted on)."""
    import cv2

    from bench.vision import _truth_photos
    from companion.vision.reader import decode_image, read_board

    cv2.setNumThreads(1)
    name, path, truth = _truth_photos()[index]
    image = decode_image(path.read_bytes(), str(path))
    reading = read_board(image, tileset="de", square_reader="calibrated")
    return [Record(index, "no_profile", "de", truth, _light(reading.extra["witnesses"]),
                   _square_before(reading).astype(np.float32),
                   np.array([c.confidence for c in reading.cells], np.float32))]


def _forbid(seed0: int, scenes: int) -> None:
    for name, seeds in FORBIDDEN.items():
        if seed0 < seeds.stop and seeds.start < seed0 + scenes:
            raise SystemExit(f"seeds {seed0}-{seed0 + scenes - 1} overlap {name}'s ({seeds.start}-{seeds.stop - 1})")


def collect(make: Any, seeds: range, cache: Path, processes: int, source: str = "trainscene") -> None:
    """Every seed's records into ``cache`` (in the seeds' order, however many processes; what is
    read so far is saved every 20 scenes, so a long run stopped early still leaves a cache)."""
    records: list[Record] = []
    t0 = time.perf_counter()
    cache.parent.mkdir(parents=True, exist_ok=True)

    def save(done: int) -> None:
        tmp = cache.with_suffix(".part")
        with tmp.open("wb") as fh:
            pickle.dump({"source": source, "seed0": seeds.start, "scenes": done, "records": records}, fh,
                        protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(cache)

    def done(i: int, recs: list[Record]) -> None:
        records.extend(recs)
        if (i + 1) % 20 == 0 or i + 1 == len(seeds):
            save(i + 1)
            print(f"{i + 1}/{len(seeds)} scenes, {time.perf_counter() - t0:.0f} s", file=sys.stderr)

    if processes > 1:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(processes) as pool:
            for i, recs in enumerate(pool.imap(make, seeds)):
                done(i, recs)
    else:
        for i, seed in enumerate(seeds):
            done(i, make(seed))


class _Unpickler(pickle.Unpickler):
    """A cache written by this script run as ``__main__`` names its records ``__main__.Record``."""

    def find_class(self, module: str, name: str) -> Any:
        return Record if name == "Record" else super().find_class(module, name)


def load(cache: Path) -> dict[str, Any]:
    try:
        with cache.open("rb") as fh:
            return _Unpickler(fh).load()
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError) as exc:
        raise SystemExit(f"{cache}: cannot read the cache ({exc})") from None


def record_evidence(rec: Record) -> Evidence:
    from companion.core.tiles import get_tileset
    from companion.vision.confidence import evidence
    from companion.vision.model import load_square_model

    w = rec.witnesses
    return evidence(w.rules, w.beliefs, load_square_model().letters, get_tileset(rec.tileset), w.backs_known,
                    w.adapted)


def rightness(rec: Record) -> np.ndarray:
    """Per square, whether each field of :data:`FIELDS` of the rules' answer is right."""
    from companion.vision.reading import compare

    return np.array([[r.kind == t.kind, r.letter == t.letter, r.rotation == t.rotation, r.token == t.token,
                      r.set == t.set, compare([t], [r])["square"] == 0]
                     for t, r in zip(rec.truth, rec.witnesses.rules)], bool)


def rows(records: list[Record]) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Per part: groups, features and rightness of every square read, and whether its truth is
    a face (a letter's or a turn's probability is that of being right given a face is there:
    :data:`GIVEN_A_FACE`)."""
    out: dict[str, list[tuple[np.ndarray, ...]]] = {p: [] for p in PARTS}
    for rec in records:
        if rec.witnesses is None:
            continue
        ev = record_evidence(rec)
        face = np.array([t.kind == "tile" for t in rec.truth], bool)
        out[PARTS[ev.part]].append((ev.group, ev.x, rightness(rec), face))
    return {p: tuple(np.concatenate([r[k] for r in v]) for k in range(4)) if v else  # type: ignore[misc]
            (np.zeros(0, np.int64), np.zeros((0, len(FEATURES))), np.zeros((0, len(FIELDS)), bool), np.zeros(0, bool))
            for p, v in out.items()}


def fit_part(g: np.ndarray, x: np.ndarray, y: np.ndarray, fields: tuple[str, ...], face: np.ndarray | None = None
             ) -> tuple[dict[str, np.ndarray], dict[str, tuple[np.ndarray, np.ndarray]], dict[str, Any]]:
    """One part's weights per field and group, its maps per field and its counts (``face``: per
    square, whether its truth is a face; None: all are)."""
    weights: dict[str, np.ndarray] = {}
    maps: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    counts: dict[str, Any] = {}
    for f in FIELDS:
        w = np.zeros((len(GROUPS), len(FEATURES)))
        w[:, FEATURES.index("rules")] = 1.0
        if f not in fields or not len(g):
            weights[f] = w
            continue
        col = FIELDS.index(f)
        applies = np.isin(g, APPLIES[f])
        if f in GIVEN_A_FACE and face is not None:
            applies &= face
        yf = y[:, col].astype(float)
        w = np.tile(fit_logistic(x[applies], yf[applies]), (len(GROUPS), 1))
        counts[f] = {}
        for k in APPLIES[f]:
            m = (g == k) & applies
            counts[f][GROUPS[k]] = [int(m.sum()), int(m.sum() - yf[m].sum())]
            if m.sum() >= MIN_ROWS and 0 < yf[m].sum() < m.sum():
                w[k] = fit_logistic(x[m], yf[m])
            elif m.sum() >= MIN_ROWS:  # all right (or all wrong): as sure as the data allow
                p = (yf[m].sum() + 0.5) / (m.sum() + 1.0)
                w[k] = 0.0
                w[k, 0] = np.log(p / (1 - p))
        weights[f] = w
        p = 1.0 / (1.0 + np.exp(-np.einsum("ij,ij->i", x[applies], w[g[applies]])))
        maps[f] = fit_map(p, yf[applies], PER_KNOT)
    return weights, maps, counts


def fit(cache: Path) -> Calibrator:
    d = load(cache)
    if d.get("source", "trainscene") != "trainscene":  # a --dev or --real cache: measured, never fitted on
        raise SystemExit(f"{cache}: made of {d['source']} (measured only, never fitted on)")
    _forbid(int(d["seed0"]), int(d["scenes"]))
    data = rows(d["records"])
    weights, maps, counts = {}, {}, {}
    for part in PARTS:
        g, x, y, face = data[part]
        fields = FIELDS if part == "profiled" else tuple(f for f in FIELDS if f != "set")
        weights[part], maps[part], counts[part] = fit_part(g, x, y, fields, face)
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    meta = {
        "what": "per part (no profile / adapted by the table's profile), field and group: logistic weights, "
                "P = map[part][field](sigmoid(weights[part][field][group] . features)) "
                "(companion/vision/confidence.py)",
        "fitted_on": f"companion.sim.trainscene seeds {int(d['seed0'])}-{int(d['seed0']) + int(d['scenes']) - 1}, "
                     "each read with no profile and with the profile its table's calibration photos make",
        "squares_and_wrong_per_field_and_group": counts,
        "script": "scripts/fit_confidence.py", "commit": rev,
        "square_model": "companion/vision/data/squares.onnx",
    }
    return Calibrator(weights, maps, meta)


# --- measuring (the development scenes: figures only) -------------------------------------------

def applied(cal: Calibrator, rec: Record, cap: bool = True) -> tuple[list, dict[str, np.ndarray]]:
    """The reading ``rec`` would have had with ``cal``: its cells and each field's probability
    (the adaptation's doubts capped, a hand's or the photo's edge's lowering kept)."""
    from dataclasses import replace

    from companion.vision.model import DISAGREE_CAP

    w = rec.witnesses
    probs = cal.field_probabilities(record_evidence(rec))
    if cap and w.adapted is not None and w.adapted.doubts:  # the square asked; its fields the fit's (reader.py)
        doubted = np.isin(np.arange(len(w.rules)), w.adapted.doubts)
        probs = {**probs, "square": np.where(doubted, np.minimum(probs["square"], DISAGREE_CAP), probs["square"])}
    lowered = rec.after < rec.before - 1e-6
    square = np.where(lowered, np.minimum(probs["square"], rec.after), probs["square"])
    probs = {f: np.where(lowered, np.minimum(p, square), p) for f, p in probs.items()}
    probs["square"] = square
    return [replace(c, confidence=float(square[i])) for i, c in enumerate(w.rules)], probs


def measure(records: list[Record], cal: Calibrator | None, cap: bool = True) -> dict[str, Any]:
    """Per part, bench/vision.py's Tally figures of the calibrated reader (``cal``; None: the
    reading's own confidences) over ``records``; and the ECE per field over the squares the
    photo showed and no hand covered (``ece_pct_seen``: the calibrator's own; a square out of
    the photo or under a hand keeps a confidence under the table's SURE by design, not by
    calibration)."""
    from dataclasses import replace

    from bench.vision import Tally, _brief
    from companion.vision.reading import BoardReading, empty_cells

    tallies = {"no_profile": Tally(True), "table_profile": Tally(True)}
    seen = {"no_profile": Tally(True), "table_profile": Tally(True)}
    for rec in records:
        n = int(round(len(rec.truth) ** 0.5))
        corners = ((0.0, 0.0),) * 4
        if rec.witnesses is None:  # the board not found: every square at confidence 0, as the benchmark counts it
            tallies[rec.part].add(f"stranger-{rec.seed}", rec.truth, BoardReading(n, n, corners, empty_cells(n, n, 0.0)))
            continue
        if cal is None:
            reading = BoardReading(n, n, corners, tuple(
                replace(c, confidence=float(a)) for c, a in zip(rec.witnesses.rules, rec.after)))
        else:
            cells, probs = applied(cal, rec, cap)
            reading = BoardReading(n, n, corners, tuple(cells), extra={"field_confidence": probs})
        tallies[rec.part].add(f"stranger-{rec.seed}", rec.truth, reading)
        shown = rec.after >= rec.before - 1e-6
        seen[rec.part].add(f"stranger-{rec.seed}", [t for t, s in zip(rec.truth, shown) if s], reading)
    out = {}
    for part, t in tallies.items():
        if not t.boards:
            continue
        res = _brief(t.result())
        out[part] = {k: res[k] for k in ("square_error_pct", "field_errors", "wrong_with_confidence_0.5_or_more",
                                         "wrong_at_0.9_or_more", "wrong_at_0.5_or_more_by_field",
                                         "tiles_asked_below_0.5", "squares_below_0.5", "ece_pct")}
        out[part]["ece_pct_seen"] = _brief(seen[part].result())["ece_pct"]
        if part == "no_profile":
            for k in ("ece_pct", "ece_pct_seen", "wrong_at_0.5_or_more_by_field"):
                out[part][k].pop("set", None)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed0", type=int, default=91000)
    ap.add_argument("--scenes", type=int, default=300)
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--cache", type=Path, default=ROOT / "build" / "confidence" / "table.pkl")
    ap.add_argument("--out", type=Path, default=ROOT / "companion" / "vision" / "data" / DATA)
    ap.add_argument("--refit", action="store_true", help="fit on --cache as it is, rendering nothing")
    ap.add_argument("--dev", type=int, nargs=2, metavar=("SEED0", "N"),
                    help="only collect stranger development scenes into --cache (to --measure on)")
    ap.add_argument("--real", action="store_true",
                    help="only collect the 80 labelled real photos into --cache (to --measure on)")
    ap.add_argument("--measure", type=Path, help="a --dev cache: print the calibrator's figures on it")
    a = ap.parse_args(argv)
    if a.scenes <= 0 or a.processes <= 0:
        print("--scenes and --processes must be positive", file=sys.stderr)
        return 2
    if a.dev:
        seed0, n = a.dev
        if not (52000 <= seed0 and seed0 + n <= 53000 and n > 0):
            raise SystemExit("--dev: the stranger development seeds are 52000-52999")
        collect(dev_records, range(seed0, seed0 + n), a.cache, a.processes, "stranger development scenes")
        return 0
    if a.real:
        from bench.vision import PHOTOS, _truth_photos

        if not (PHOTOS / "truth" / "index.tsv").is_file():
            print(f"no labelled photos at {PHOTOS / 'truth'}", file=sys.stderr)
            return 2
        collect(real_records, range(len(_truth_photos())), a.cache, a.processes, "the labelled real photos")
        return 0
    if a.measure:
        from companion.vision.confidence import load_calibrator

        if not a.measure.is_file():
            print(f"{a.measure}: no such cache (--dev first)", file=sys.stderr)
            return 2
        print(json.dumps(measure(load(a.measure)["records"], load_calibrator()), indent=1))
        return 0
    _forbid(a.seed0, a.scenes)
    if not a.refit:
        shipped = ROOT / "companion" / "vision" / "data" / DATA
        if not shipped.is_file():  # reading needs a calibrator; the witnesses do not depend on it
            shipped.write_text(json.dumps(Calibrator.neutral().to_json(), indent=1) + "\n")
        collect(train_records, range(a.seed0, a.seed0 + a.scenes), a.cache, a.processes)
    elif not a.cache.is_file():
        print(f"{a.cache}: no such cache (run without --refit first)", file=sys.stderr)
        return 2
    cal = fit(a.cache)
    a.out.write_text(json.dumps(cal.to_json(), separators=(",", ":")) + "\n")  # small: about 20 kB
    print(f"wrote {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
