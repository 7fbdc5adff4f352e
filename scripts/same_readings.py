"""Does a change to the reader change what it reads? Dump every reading of a fixed set of photos,
then compare two dumps.

    python scripts/same_readings.py dump before.json      # the photos below, read now
    python scripts/same_readings.py compare before.json after.json

The photos: the 80 labelled scrabscrap photos (tile set de) and the scrabble-detector-project
photos (en), without a profile; and stranger scenes of the DEVELOPMENT seeds 52000 on
(``--scenes``, 30 by default; never the benchmark's 50000-50199), each without and with the
profile its table makes (bench.vision.table_profile); ``--synthetic N`` of the project's mounted
renders (bench.vision.synthetic's seeds 1000 on, with the profile bench gives them) and ``--hands N``
renders with a hand over the board (bench.vision.hands' seeds 2000 on, with the camera's grid).
The scenes and their profiles are rendered and calibrated once and kept under build/same-readings/
(``--fresh`` makes them anew: do, when the calibration itself is what changed), so that a dump
measures the reader and nothing else; the dump keeps each profile's hash, and ``compare`` lists a
profile that differs. Each photo is read by ``both`` with the rules', the model's and the
calibrated reader's (the default) readings alongside, so one dump holds all four square readers.

``compare`` lists every reading that differs: kind, letter, rotation, rgb, set or token; the
confidence by more than 1e-6; a corner by more than 0.01 px; a board found in one and not the
other. It also prints the median wall and CPU ms of each dump (one thread), decoding included.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.vision import (  # noqa: E402
    DETECTOR,
    PHOTOS,
    _camera_profile,
    _profile_of_scene,
    _truth_photos,
    stranger_tables,
)
from companion.vision.grid import NoBoardFound  # noqa: E402
from companion.vision.profile import load_profile, save_profile  # noqa: E402
from companion.vision.reader import decode_image, prepare, read_board  # noqa: E402

CACHE = ROOT / "build" / "same-readings"
SEED0 = 52000  # development seeds: the stranger benchmark's are 50000-50199
FIELDS = ("kind", "letter", "rotation", "rgb", "set", "token")


def stranger_photos(scenes: int, fresh: bool) -> list[tuple[str, Path, str, int, Path | None]]:
    """(name, png, tileset, grid, profile or None) of each development scene, made once."""
    CACHE.mkdir(parents=True, exist_ok=True)
    out = []
    missing = [s for s in range(SEED0, SEED0 + scenes) if fresh or not (CACHE / f"{s}.json").is_file()]
    for first in missing:
        for seed, _phone, spec, scene, profile, _why in stranger_tables(1, first):
            cv2.imwrite(str(CACHE / f"{seed}.png"), scene.image)
            save_profile(profile, CACHE / f"{seed}.profile.json")
            meta = {"tileset": spec.tileset, "grid": spec.grid}
            (CACHE / f"{seed}.json").write_text(json.dumps(meta))
            print(f"made scene {seed}", file=sys.stderr)
    for seed in range(SEED0, SEED0 + scenes):
        meta = json.loads((CACHE / f"{seed}.json").read_text())
        png = CACHE / f"{seed}.png"
        out.append((f"stranger-{seed}", png, meta["tileset"], meta["grid"], None))
        out.append((f"stranger-{seed}+profile", png, meta["tileset"], meta["grid"], CACHE / f"{seed}.profile.json"))
    return out


def rendered_photos(kind: str, n: int, seed0: int, fresh: bool) -> list[tuple[str, Path, str, int, Path | None]]:
    """(name, png, tileset, grid, profile) of ``n`` of bench.vision's own renders, made once:
    ``synthetic`` (mounted, every feature) or ``hands`` (mounted, a hand over the board)."""
    from companion.sim.render import render
    from companion.sim.scene import preset

    CACHE.mkdir(parents=True, exist_ok=True)
    out = []
    for seed in range(seed0, seed0 + n):
        stem = CACHE / f"{kind}-{seed}"
        if fresh or not Path(f"{stem}.json").is_file():
            rng = np.random.default_rng(seed)
            spec = preset("mounted", rng, **({"features": True} if kind == "synthetic" else {"hand": True}))
            scene = render(spec, seed)
            profile = _profile_of_scene(spec) if kind == "synthetic" else _camera_profile(spec, seed)
            cv2.imwrite(f"{stem}.png", scene.image)
            save_profile(profile, Path(f"{stem}.profile.json"))
            Path(f"{stem}.json").write_text(json.dumps({"tileset": spec.tileset, "grid": spec.grid}))
            print(f"made {kind} scene {seed}", file=sys.stderr)
        meta = json.loads(Path(f"{stem}.json").read_text())
        out.append((f"{kind}-{seed}", Path(f"{stem}.png"), meta["tileset"], meta["grid"],
                    Path(f"{stem}.profile.json")))
    return out


def photos(scenes: int, fresh: bool, synthetic: int = 0, hands: int = 0
           ) -> list[tuple[str, Path, str, int, Path | None]]:
    out = []
    if (PHOTOS / "truth" / "index.tsv").is_file():
        out += [(f"scrabscrap/{name}", path, "de", 15, None) for name, path, _ in _truth_photos()]
    out += [(f"detector/{p.name}", p, "en", 15, None) for p in sorted(DETECTOR.glob("*/images/*.jpg"))]
    out += rendered_photos("synthetic", synthetic, 1000, fresh) + rendered_photos("hands", hands, 2000, fresh)
    return out + stranger_photos(scenes, fresh)


def cell_record(c) -> dict:
    return {"kind": c.kind, "letter": c.letter, "rotation": c.rotation, "rgb": list(c.rgb) if c.rgb else None,
            "set": c.set, "token": c.token, "confidence": float(c.confidence)}


def dump(out: Path, scenes: int, fresh: bool, only: str | None, synthetic: int = 0, hands: int = 0) -> None:
    cv2.setNumThreads(1)
    prepare("de")
    prepare("en")
    doc = {}
    for name, path, tileset, grid, prof in photos(scenes, fresh, synthetic, hands):
        if only and only not in name:
            continue
        profile = load_profile(prof) if prof else None
        w0, c0 = time.perf_counter(), time.process_time()
        image = decode_image(path.read_bytes(), str(path))
        try:
            r = read_board(image, tileset=tileset, grid=grid, profile=profile, started=w0,
                           square_reader="both", also=("rules", "model", "calibrated"))
        except NoBoardFound:
            doc[name] = {"found": False}
            continue
        cpu = (time.process_time() - c0) * 1000.0
        doc[name] = {
            "found": True, "profile": hashlib.sha256(prof.read_bytes()).hexdigest() if prof else None, "size": list(image.shape[:2]), "corners": [list(map(float, p)) for p in r.corners],
            "readers": {m: [cell_record(c) for c in b.cells] for m, b in {"both": r, **r.extra["also"]}.items()},
            "elapsed_ms": r.elapsed_ms, "cpu_ms": cpu, "model_ms": r.extra["square_model_ms"],
        }
    out.write_text(json.dumps(doc))
    times(doc, str(out))


def times(doc: dict, label: str) -> None:
    found = [v for v in doc.values() if v["found"]]
    big = [v for v in found if v["size"] == [1504, 1504]]
    for what, vs in (("all", found), ("1504x1504", big)):
        if vs:
            print(f"{label} {what} ({len(vs)}): wall median {statistics.median(v['elapsed_ms'] for v in vs):.1f} ms, "
                  f"cpu median {statistics.median(v['cpu_ms'] for v in vs):.1f} ms "
                  "(both, with rules and model readings alongside: the cpu counts the extra combine), "
                  f"model {statistics.median(v['model_ms'] for v in vs):.1f} ms")


def compare(a_path: Path, b_path: Path, common: bool = False) -> int:
    a, b = json.loads(a_path.read_text()), json.loads(b_path.read_text())
    if common:  # (a dump of some photos against one of all: only the photos both hold)
        a, b = {k: v for k, v in a.items() if k in b}, {k: v for k, v in b.items() if k in a}
    diffs = []
    for name in sorted(set(a) | set(b)):
        x, y = a.get(name), b.get(name)
        if x is None or y is None:
            diffs.append(f"{name}: only in {'after' if x is None else 'before'}")
            continue
        if x["found"] != y["found"]:
            diffs.append(f"{name}: found {x['found']} -> {y['found']}")
            continue
        if not x["found"]:
            continue
        if x.get("profile") != y.get("profile"):
            diffs.append(f"{name}: the profile differs")
        off = float(np.abs(np.array(x["corners"]) - np.array(y["corners"])).max())
        if off > 0.01:
            diffs.append(f"{name}: corners off by {off:.3f} px")
        for m in x["readers"]:
            for i, (p, q) in enumerate(zip(x["readers"][m], y["readers"][m])):
                what = [f for f in FIELDS if p[f] != q[f]]
                if abs(p["confidence"] - q["confidence"]) > 1e-6:
                    what.append(f"confidence {p['confidence']:.6f}->{q['confidence']:.6f}")
                if what:
                    diffs.append(f"{name} {m} {divmod(i, 15 if len(x['readers'][m]) == 225 else 21)}: "
                                 f"{', '.join(what)} ({p['kind']} {p['letter']} -> {q['kind']} {q['letter']})")
    for d in diffs[:200]:
        print(d)
    print(f"{len(a)} / {len(b)} photos, {len(diffs)} differences")
    times(a, str(a_path))
    times(b, str(b_path))
    return 1 if diffs else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out", type=Path)
    d.add_argument("--scenes", type=int, default=30)
    d.add_argument("--synthetic", type=int, default=0, help="also this many mounted renders (seeds 1000 on)")
    d.add_argument("--hands", type=int, default=0, help="also this many renders with a hand (seeds 2000 on)")
    d.add_argument("--fresh", action="store_true")
    d.add_argument("--only", help="only photos whose name holds this")
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    c.add_argument("--common", action="store_true", help="only the photos both dumps hold (a dump made with --only)")
    args = ap.parse_args()
    if args.cmd == "dump":
        dump(args.out, args.scenes, args.fresh, args.only, args.synthetic, args.hands)
        return 0
    return compare(args.before, args.after, args.common)


if __name__ == "__main__":
    raise SystemExit(main())
