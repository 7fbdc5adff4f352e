"""The board finder alone (``python -m bench finder``, bench/finder.json): boards found, and how
far their corners lie from the truth, on a stranger's tables and on the real photos.

- Stranger's tables (:func:`companion.sim.scene.stranger`, the held-out seeds of the stranger
  benchmark, 50000 on): each scene and its empty board (the photo ``calibrate --layout empty``
  is given), overhead and phone views apart. A board is found when ``locate_grid`` answers;
  its corner error is the largest distance of a found corner from the true one, in squares
  (the renderer's exact corners, lens distortion included: the finder fits a homography, so
  a barrel lens leaves its far corners a fraction of a square off). A grid more than half a
  square off is counted apart: found, but the wrong squares.
- Real photos (``../shared/photos``): boards found per folder (no corners are labelled there);
  the screenshots of a game's page hold no board and must be refused.

Docs: docs/vision-finder.md.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

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
    cv2.setNumThreads(1)
    return {"stranger": stranger(), "real": real()}
