"""The board finder alone (``python -m bench finder``, bench/finder.json): boards found, and how
far their corners lie from the truth, on a stranger's tables and on the real photos.

- Stranger's tables (:func:`companion.sim.scene.stranger`, the held-out seeds of the stranger
  benchmark, 50000 on): each scene and its empty board (the photo ``calibrate --layout empty``
  is given), overhead and phone views apart. A board is found when ``locate_grid`` answers;
  its corner error is the largest distance of a found corner from the true one, in squares
  (the renderer's exact corners, lens distortion included: the finder measures a barrel
  lens's bend on the board's lines, companion/vision/lens.py). A grid more than half a
  square off is counted apart: found, but the wrong squares.
- The development sweep (``python -m bench.finder sweep [N [SEED0]] OUT.json``, seeds
  52000-52399 by default, never the benchmark's): the same on each scene's game photo and
  empty-board photo, one row a photo (found or not, corner error, the finder's CPU ms, the
  table, lamps, lens and tilt), the renders kept under build/finder-sweep/.
- Real photos (``../shared/photos``): boards found per folder (no corners are labelled there);
  the screenshots of a game's page hold no board and must be refused.

Docs: docs/vision-finder.md.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

import cv2
import numpy as np

from bench import one_core
from bench.vision import SHARED, percentile

SCENES = 60
SEED = 50000
OFF = 0.5  # squares: a grid farther off than this reads the wrong squares


def corner_error(found: np.ndarray, exact: np.ndarray, n: int) -> float:
    """The largest distance (squares) of a found corner from its true one, the corners matched
    in the order that fits best (orientation is judged elsewhere)."""
    cell = float(np.mean(np.linalg.norm(np.roll(exact, -1, axis=0) - exact, axis=1))) / n
    worst = [float(np.linalg.norm(np.roll(found, r, axis=0) - exact, axis=1).max()) for r in range(4)]
    return min(worst) / cell


def _summary(errors: list[float | None], times: list[float]) -> dict[str, Any]:
    found = [e for e in errors if e is not None]
    right = [e for e in found if e <= OFF]
    return {
        "photos": len(errors),
        "not_found": len(errors) - len(found),
        "off_more_than_half_a_square": len(found) - len(right),
        "corner_error_median_squares": round(percentile(right, 50), 3) if right else None,
        "corner_error_p90_squares": round(percentile(right, 90), 3) if right else None,
        "median_ms": round(percentile(times, 50), 1) if times else None,
    }


def stranger(n: int = SCENES, seed0: int = SEED) -> dict[str, Any]:
    from companion.sim.render import render
    from companion.sim.scene import stranger as stranger_scene
    from companion.vision.grid import NoBoardFound, locate_grid

    cases: dict[str, tuple[list[float | None], list[float]]] = {}
    misses: list[str] = []
    for seed in range(seed0, seed0 + n):
        rng = np.random.default_rng(seed)
        phone = bool(rng.random() < 0.5)
        spec = stranger_scene(rng, phone=phone)
        photos = (("scene", render(spec, seed)), ("empty", render(replace(spec, content={}), seed, frame=1)))
        for what, scene in photos:
            g = spec.grid
            exact = scene.to_image(np.array([[0, 0], [g, 0], [g, g], [0, g]], float))
            errors, times = cases.setdefault(f"{'phone' if phone else 'overhead'}_{what}", ([], []))
            started = time.perf_counter()
            try:
                err: float | None = corner_error(locate_grid(scene.image, g, g).corners, exact, g)
            except NoBoardFound:
                err = None
            times.append((time.perf_counter() - started) * 1000)
            errors.append(err)
            if err is None or err > OFF:
                miss = "not found" if err is None else f"{err:.2f} squares off"
                misses.append(f"{seed} {what} ({spec.photo.table}): {miss}")
    out: dict[str, Any] = {k: _summary(*v) for k, v in sorted(cases.items())}
    out["missed"] = misses
    return out


SWEEP_SEED, SWEEP_SCENES = 52000, 400  # the development seeds (never the benchmark's 50000-50199)
SWEEP_CACHE = Path(__file__).resolve().parents[1] / "build" / "finder-sweep"


def dev_photos(n: int = SWEEP_SCENES, seed0: int = SWEEP_SEED) -> Iterator[dict[str, Any]]:
    """Each development scene's game photo and its empty-board photo (the one ``calibrate
    --layout empty`` is given), rendered once and kept under build/finder-sweep/ (a render
    costs more than finding the board): per photo its seed, ``what`` (scene or empty), the
    view, the table, the lens, the image and the grid's true corners."""
    from companion.sim.render import render
    from companion.sim.scene import stranger as stranger_scene

    SWEEP_CACHE.mkdir(parents=True, exist_ok=True)
    for seed in range(seed0, seed0 + n):
        meta_path = SWEEP_CACHE / f"{seed}.json"
        if not meta_path.is_file():
            rng = np.random.default_rng(seed)
            phone = bool(rng.random() < 0.5)
            spec = stranger_scene(rng, phone=phone)
            g = spec.grid
            exact = {}
            for what, scene in (("scene", render(spec, seed)), ("empty", render(replace(spec, content={}), seed, frame=1))):
                cv2.imwrite(str(SWEEP_CACHE / f"{seed}-{what}.png"), scene.image, [cv2.IMWRITE_PNG_COMPRESSION, 1])
                exact[what] = scene.to_image(np.array([[0, 0], [g, 0], [g, g], [0, g]], float)).tolist()
            meta = {"phone": phone, "grid": g, "table": spec.photo.table, "lamps": spec.photo.lamps,
                    "lens": spec.camera.distortion, "tilt": spec.camera.tilt_deg, "tiles": len(spec.content), "exact": exact}
            meta_path.write_text(json.dumps(meta))
        meta = json.loads(meta_path.read_text())
        for what in ("scene", "empty"):
            image = cv2.imread(str(SWEEP_CACHE / f"{seed}-{what}.png"))
            yield {"seed": seed, "what": what, "phone": meta["phone"], "table": meta["table"],
                   "lamps": meta["lamps"], "lens": meta["lens"], "tilt": meta["tilt"], "tiles": meta["tiles"] if what == "scene" else 0,
                   "grid": meta["grid"], "image": image, "exact": np.array(meta["exact"][what])}


def sweep(n: int = SWEEP_SCENES, seed0: int = SWEEP_SEED) -> list[dict[str, Any]]:
    """The finder alone on each development photo (:func:`dev_photos`): found or not, the
    corner error in squares (:func:`corner_error`), the finder's CPU ms."""
    from companion.vision.grid import NoBoardFound, locate_grid

    rows = []
    for photo in dev_photos(n, seed0):
        g = photo["grid"]
        started = time.process_time()
        photo["lens_found"] = None
        try:
            location = locate_grid(photo.pop("image"), g, g)
            err: float | None = corner_error(location.corners, photo["exact"], g)
            photo["lens_found"] = None if location.lens is None else round(location.lens.k, 3)
        except NoBoardFound:
            err = None
        photo["ms"] = round((time.process_time() - started) * 1000, 1)
        photo["error"] = None if err is None else round(err, 3)
        del photo["exact"]
        rows.append(photo)
    return rows


def sweep_summary(rows: list[dict[str, Any]], off: float = 0.25) -> dict[str, Any]:
    """Per photo kind (scene, empty): not found, found more than ``off`` squares off at a
    corner, the corner error's median; the finder's median ms; the failures listed."""
    out: dict[str, Any] = {}
    for what in ("scene", "empty"):
        part = [r for r in rows if r["what"] == what]
        found = [r["error"] for r in part if r["error"] is not None]
        out[what] = {"photos": len(part), "not_found": len(part) - len(found),
                     f"off_more_than_{off}": sum(e > off for e in found),
                     f"off_more_than_{OFF}": sum(e > OFF for e in found),
                     "corner_error_median": round(percentile(found, 50), 3) if found else None}
    out["median_ms"] = round(percentile([r["ms"] for r in rows], 50), 1) if rows else None
    out["failures"] = [
        f"{r['seed']} {r['what']} {'phone' if r['phone'] else 'overhead'} {r['table']} lamps={r['lamps']} "
        f"lens={r['lens']:.3f} (found {r.get('lens_found')}) tilt={r['tilt']:.0f} tiles={r['tiles']}: " + ("not found" if r["error"] is None else f"{r['error']:.2f} off")
        for r in rows if r["error"] is None or r["error"] > off]
    return out


def real() -> dict[str, Any]:
    from companion.vision.grid import NoBoardFound, locate_grid

    photos = SHARED / "photos"
    if not photos.is_dir():
        return {"skipped": f"{photos} not found"}
    out: dict[str, Any] = {}
    for folder in sorted(p for p in photos.iterdir() if p.is_dir()):
        found, refused, times = [], [], []
        for path in sorted(Path(folder).rglob("*.jpg")):
            image = cv2.imread(str(path))
            if image is None:
                continue
            started = time.perf_counter()
            try:
                locate_grid(image)
                found.append(path.name)
            except NoBoardFound:
                refused.append(str(path.relative_to(folder)))
            times.append((time.perf_counter() - started) * 1000)
        out[folder.name] = {"photos": len(found) + len(refused), "found": len(found), "refused": refused,
                            "median_ms": round(percentile(times, 50), 1) if times else None}
    return out


def run() -> dict[str, Any]:
    one_core()  # its times are one core's, as bench.vision's are
    return {"stranger": stranger(), "real": real()}


if __name__ == "__main__":
    # python -m bench.finder sweep [N [SEED0]] OUT.json: the development sweep, one row a photo.
    if len(sys.argv) < 3 or sys.argv[1] != "sweep":
        sys.exit("usage: python -m bench.finder sweep [N [SEED0]] OUT.json")
    one_core()
    nums = [int(a) for a in sys.argv[2:-1]]
    result = sweep(*nums)
    Path(sys.argv[-1]).write_text(json.dumps(result, indent=0))
    print(json.dumps(sweep_summary(result), indent=1))
