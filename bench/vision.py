"""How well and how fast the board reader reads: real photos, synthetic photos, hands.

- Real: the 80 labelled photos of ``../shared/photos/scrabscrap/truth`` (tile set de), read
  through the same pipeline as ``companion read`` (decode, find the grid, read every square),
  without a profile, with a profile of the empty board (from the session's own board-00a shot,
  which is not measured), and with a profile learned from labelled photos that are not
  measured (spiel-15 and board-neu/warp-*, see the profile's notes in the output).
- Tesseract: the same photos with ``--backend tesseract`` (a subset: it is slow).
- Another edition: the scrabble-detector-project photos and their letter labels
  (:func:`other_edition`), read without a profile.
- Synthetic: the project's own renders with every feature (backs, rotations, two sets,
  tokens), mounted camera, read with a profile giving each set's face and back colour, as a
  table with two sets would be calibrated.
- A stranger's photo: the renderer's oblique phone scenes read with no profile
  (:func:`stranger_phone`), as an unseen board is first read.
- A stranger's table (:func:`stranger`): held-out fonts, tile colours, cloths and lamps,
  overhead and phone views, without a profile and with the one the table makes; reliability
  tables per field (docs/vision-stranger.md says how to read them).
- A fresh process: ``companion read --json`` run as a command per photo (every 8th), as an
  outside measurement runs it: the elapsed_ms it prints and the command's whole wall time.
- Hands: renders with a hand over the board: every square under the hand must be read with
  confidence below 0.5, and the stabiliser must emit nothing while the hand is there.

Times are per photo on one core (OpenCV and BLAS single-threaded), elapsed_ms as the contract
defines it (decoding included).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import cv2
import numpy as np

from bench import one_core
from bench.reliability import Reliability
from companion.core.board import STANDARD
from companion.core.tiles import get_tileset
from companion.vision.profile import Profile, TileSetColour
from companion.vision.model import combine
from companion.vision.reader import decode_image, prepare, read_board, read_file
from companion.vision.grid import NoBoardFound
from companion.vision.reading import BLANK_FACE, BoardReading, CellReading, compare, empty_cells

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared"
PHOTOS = SHARED / "photos" / "scrabscrap"
TESSERACT_EVERY = 8  # every 8th labelled photo for the Tesseract backend
# 200 scenes hold ~6,400 tiles: one error is 0.016 % of a field, so a rate near the 0.1 % target is
# measured, not decided by whether one error falls in the sample (with the 30 scenes used before,
# one error was already 0.1 %). The first 30 (seeds 1000-1029) are reported too, as before.
SYNTHETIC_SCENES = 200
SYNTHETIC_FIRST = 30
HAND_SCENES = 20
PHONE_SCENES = 40  # oblique phone scenes read without a profile (stranger_phone)
# A stranger's tables (stranger): 200 scenes, about 45,000 squares, so that the bound of
# one confident error in 10,000 squares is measured; seeds 50000 on (development seeds below).
STRANGER_SCENES = 200
STRANGER_SEED = 50000
FIELDS = ("kind", "letter", "rotation", "token", "set")


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, float), q)) if values else float("nan")


def _truth_photos() -> list[tuple[str, Path, list[CellReading]]]:
    root = PHOTOS / "truth"
    out = []
    for line in (root / "index.tsv").read_text().splitlines():
        if not line.strip():
            continue
        folder, name = line.split("\t")
        doc = json.loads((root / folder / f"{name}.json").read_text())
        image = (root / folder / doc["image"]).resolve()
        out.append((f"{folder}/{name}", image, [CellReading.from_json(c) for c in doc["cells"]]))
    return out


def _plain(cell: CellReading) -> str | None:
    """``back`` or ``blank`` for a tile with nothing printed on it as seen (a face-down tile, a
    face-up blank), which only a profile of the backs tells apart; None otherwise."""
    return "back" if cell.kind == "back" else "blank" if cell.kind == "tile" and cell.letter == BLANK_FACE else None


def _backs_and_blanks(seen: list[tuple[str, str, float]]) -> dict[str, Any]:
    """Squares a back or a blank in truth or in the reading: per (truth, read) pair, how many,
    their mean confidence and how many at 0.5 or more (a back read as a blank at 0.5 or more is
    a face-down tile the table takes for a blank without asking)."""
    pairs: dict[str, list[float]] = {}
    for t, r, conf in seen:
        pairs.setdefault(f"{t} read {r}", []).append(conf)
    return {k: {"squares": len(v), "mean_confidence": round(float(np.mean(v)), 3),
                "at_0.5_or_more": int(sum(c >= 0.5 for c in v))} for k, v in sorted(pairs.items())}


class Tally:
    """Errors by field over many boards, and the times."""

    def __init__(self, with_reliability: bool = False, unnamed_sets: bool = False) -> None:
        self.with_reliability = with_reliability
        # Tiles and backs of a set the profile does not name (its calibration refused or did not
        # keep it): read as of no set, as they must be, or as one of the sets it names. Only
        # where the truth knows every set (the stranger scenes under their table's profile).
        self.unnamed = {"squares": 0, "read_as_a_named_set": 0, "at_0.5_or_more": 0} if unnamed_sets else None
        self.errors = {k: 0 for k in ("cells", "square", "tiles", "sets", *FIELDS)}
        self.boards = 0
        self.perfect = 0
        self.times: list[float] = []
        self.wrong: list[str] = []
        self.confident_wrong = 0
        self.asked = 0  # squares read as holding a tile below the table's SURE: the table asks
        self.backs_and_blanks: list[tuple[str, str, float]] = []  # (truth, read, confidence)
        self.reliability = {k: Reliability() for k in ("square", *FIELDS)}

    def add(self, name: str, truth: Sequence[CellReading], reading: BoardReading) -> None:
        errors = board_errors(truth, reading)
        lost = bool(reading.extra.get("not_found"))
        cells = {(c.row, c.col): c for c in reading.cells}
        # A reader that gives each field its own probability (the calibrated reader,
        # companion/vision/confidence.py) is judged field by field on it; any other on its one
        # confidence per square.
        fields = reading.extra.get("field_confidence") or {}
        for t in truth:
            r = cells[(t.row, t.col)]
            i = t.row * reading.cols + t.col

            def conf(field: str) -> float:
                return float(fields[field][i]) if field in fields else r.confidence

            rel = self.reliability
            rel["square"].add(r.confidence, not lost and not compare([t], [r])["square"])
            rel["kind"].add(conf("kind"), not lost and r.kind == t.kind)
            rel["token"].add(conf("token"), not lost and r.token == t.token)
            if t.kind == "tile":
                rel["letter"].add(conf("letter"), not lost and r.letter == t.letter)
                if t.rotation is not None:
                    rel["rotation"].add(conf("rotation"), not lost and r.rotation == t.rotation)
            if t.kind != "empty" and t.set is not None:
                rel["set"].add(conf("set"), not lost and r.set == t.set)
            self.asked += r.kind != "empty" and r.confidence < 0.5
            if self.unnamed is not None and t.kind != "empty" and t.set is None:
                self.unnamed["squares"] += 1
                self.unnamed["read_as_a_named_set"] += r.set is not None
                self.unnamed["at_0.5_or_more"] += r.set is not None and r.confidence >= 0.5
            if _plain(t) or _plain(r):
                self.backs_and_blanks.append((_plain(t) or t.kind, _plain(r) or r.kind, r.confidence))
        for k in self.errors:
            self.errors[k] += errors.get(k, 0)
        self.boards += 1
        self.perfect += errors["square"] == 0
        self.times.append(reading.elapsed_ms)
        by_pos = {(c.row, c.col): c for c in reading.cells}
        for t in truth:
            r = by_pos[(t.row, t.col)]
            if compare([t], [r])["square"]:
                self.confident_wrong += r.confidence >= 0.5
                if len(self.wrong) < 25:
                    self.wrong.append(
                        f"{name} ({t.row},{t.col}) truth {t.kind} {t.letter or ''} r{t.rotation} "
                        f"read {r.kind} {r.letter or ''} r{r.rotation} conf {r.confidence:.2f}"
                    )

    def result(self) -> dict[str, Any]:
        cells = max(self.errors["cells"], 1)
        out: dict[str, Any] = {
            "boards": self.boards,
            "boards_perfect": self.perfect,
            "boards_perfect_pct": round(100.0 * self.perfect / max(self.boards, 1), 2),
            "squares": self.errors["cells"],
            "square_error_pct": round(100.0 * self.errors["square"] / cells, 4),
            "field_error_pct": {
                "kind": round(100.0 * self.errors["kind"] / cells, 4),
                "letter": round(100.0 * self.errors["letter"] / max(self.errors["tiles"], 1), 4),
                "rotation": round(100.0 * self.errors["rotation"] / max(self.errors["tiles"], 1), 4),
                "token": round(100.0 * self.errors["token"] / cells, 4),
                "set": round(100.0 * self.errors["set"] / max(self.errors["sets"], 1), 4) if self.errors["sets"] else None,
            },
            "field_errors": {k: self.errors[k] for k in FIELDS},
            "wrong_with_confidence_0.5_or_more": self.confident_wrong,
            "tiles_asked_below_0.5": self.asked,
            "backs_and_blanks": _backs_and_blanks(self.backs_and_blanks),
            "elapsed_ms_median": round(statistics.median(self.times), 1) if self.times else None,
            "elapsed_ms_p95": round(percentile(self.times, 95), 1) if self.times else None,
            "examples_of_errors": self.wrong,
        }
        if self.with_reliability:
            out["reliability"] = {k: v.table() for k, v in self.reliability.items() if v.confidence}
        if self.unnamed is not None:
            out["unnamed_set"] = dict(self.unnamed)
        return out


def real(photos, profile_for: Callable[[str], Profile | None], backend: str = "own") -> dict[str, Any]:
    tally = Tally()
    not_found = []
    for name, path, truth in photos:
        try:
            reading = read_file(path, tileset="de", profile=profile_for(name), backend=backend)
        except NoBoardFound:
            not_found.append(name)
            reading = _not_read(15)
        tally.add(name, truth, reading)
    return {**tally.result(), "grid_not_found": not_found}


def fresh_process(photos) -> dict[str, Any]:
    """``companion read --json`` in a new process per photo, as an outside measurement runs
    it: the elapsed_ms it prints (process start excluded, as the contract says) and the whole
    command's wall time."""
    elapsed, wall = [], []
    for _name, path, _truth in photos:
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "companion", "read", str(path), "--tileset", "de", "--json"],
                             capture_output=True, text=True, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
        wall.append((time.perf_counter() - t) * 1000.0)
        if out.returncode == 0:
            elapsed.append(float(json.loads(out.stdout)["elapsed_ms"]))
    return {
        "photos": len(photos),
        "read": len(elapsed),
        "elapsed_ms_median": round(statistics.median(elapsed), 1) if elapsed else None,
        "command_wall_ms_median": round(statistics.median(wall), 1) if wall else None,
    }


def _empty_profiles() -> tuple[Callable[[str], Profile | None], list[str]]:
    """Each session's own empty-board shot (board-00a) as a mounted camera's calibration;
    board-neu has none, and borrows spiel-15's (a different session: a harder test)."""
    from companion.vision.calibration import calibrate_empty

    made: dict[str, Profile] = {}
    used = []
    for session in ("spiel-13", "spiel-14", "spiel-15"):
        shot = PHOTOS / session / "board-00a.jpg"
        image = decode_image(shot.read_bytes(), str(shot))
        made[session] = calibrate_empty(image, Profile(tileset="de"), f"{session}/{shot.name}")
        used.append(f"{session}/board-00a.jpg")

    def profile_for(name: str) -> Profile | None:
        session = name.split("/")[0]
        return made.get(session, made["spiel-15"])

    return profile_for, used


def _labelled_profile() -> tuple[Profile, dict[str, Any]]:
    from bench.scrabscrap import allowed_empties, allowed_labelled
    from companion.vision.labelled import profile_from_labelled

    labelled = allowed_labelled(PHOTOS, SHARED / "games" / "scrabscrap")
    empties = allowed_empties(PHOTOS)
    profile = profile_from_labelled(labelled, empties, get_tileset("de"), STANDARD)
    return profile, profile.notes


DETECTOR = SHARED / "photos" / "scrabble-detector-project" / "ImageData" / "RealPictures"


def other_edition() -> dict[str, Any]:
    """Another edition, another camera, nothing learned from it: the scrabble-detector-project
    photos (a Hasbro board with white squares and label patches, phone photos of 640 x 640,
    tile set en), whose YOLO labels give each letter tile's box. Each labelled box's centre is
    mapped through the grid found into its square, which must read as that letter; a square
    read as holding something where no label lies is counted apart (the labels name letters
    only: a blank would count there too). A grid found a whole square off still reads its
    letters; its squares are then named wrongly, which only a look at the photo tells."""
    from companion.vision.grid import GridLocation

    images = sorted(DETECTOR.glob("*/images/*.jpg"))
    if not images:
        return {"skipped": f"no photos at {DETECTOR}"}
    letters = [chr(ord("A") + i) for i in range(26)]  # the labels' classes (dataset.yaml)
    out = {"images": len(images), "grid_not_found": 0, "labelled_tiles": 0, "labels_off_the_grid": 0,
           "read_as_tile": 0, "letter_right": 0, "held_squares_without_a_label": 0}
    times = []
    for path in images:
        labels = [ln.split() for ln in (path.parent.parent / "labels" / f"{path.stem}.txt").read_text().splitlines() if ln.strip()]
        try:
            reading = read_file(path, tileset="en")
        except NoBoardFound:
            out["grid_not_found"] += 1
            continue
        times.append(reading.elapsed_ms)
        height, width = cv2.imread(str(path)).shape[:2]
        to_grid = np.linalg.inv(GridLocation.from_corners(np.array(reading.corners), 15, 15).homography)
        labelled = set()
        for cls, x, y, _w, _h in labels:
            p = to_grid @ np.array([float(x) * width, float(y) * height, 1.0])
            col, row = int(np.floor(p[0] / p[2])), int(np.floor(p[1] / p[2]))
            out["labelled_tiles"] += 1
            if not (0 <= row < 15 and 0 <= col < 15):
                out["labels_off_the_grid"] += 1
                continue
            labelled.add((row, col))
            cell = reading.cell(row, col)
            out["read_as_tile"] += cell.kind == "tile"
            out["letter_right"] += cell.kind == "tile" and cell.letter == letters[int(cls)]
        out["held_squares_without_a_label"] += sum(
            1 for c in reading.cells if c.kind != "empty" and (c.row, c.col) not in labelled
        )
    on_grid = max(out["labelled_tiles"] - out["labels_off_the_grid"], 1)
    out["letter_right_pct"] = round(100.0 * out["letter_right"] / on_grid, 2)
    out["elapsed_ms_median"] = round(statistics.median(times), 1) if times else None
    return out


def upper_bound_pct(errors: int, trials: int, confidence: float = 0.95) -> float | None:
    """One-sided exact (Clopper-Pearson) upper bound on an error rate, in per cent.

    The largest rate under which seeing at most ``errors`` in ``trials`` still has a chance of
    1 - confidence: what the sample rules out, as against the rate it happened to show."""
    if trials <= 0:
        return None

    def at_most(p: float) -> float:  # P(X <= errors) for X ~ Binomial(trials, p)
        term = (1.0 - p) ** trials
        total = term
        for k in range(errors):
            term *= (trials - k) / (k + 1) * p / (1.0 - p)
            total += term
        return total

    lo, hi = errors / trials, 1.0 - 1e-12
    for _ in range(60):  # at_most falls as p rises: bisect for 1 - confidence
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if at_most(mid) > 1.0 - confidence else (lo, mid)
    return round(100.0 * hi, 4)


def synthetic(n: int, seed0: int = 1000, first: int = 0) -> dict[str, Any]:
    """``first`` > 0 also reports the first that many scenes alone, as ``first_<n>``."""
    from companion.sim.render import render
    from companion.sim.scene import preset

    tally = Tally()
    head = Tally()
    not_found = []
    for i in range(n):
        rng = np.random.default_rng(seed0 + i)
        spec = preset("mounted", rng, features=True)
        scene = render(spec, seed0 + i)
        profile = _profile_of_scene(spec)
        started = time.perf_counter()
        image = decode_image(cv2.imencode(".png", scene.image)[1].tobytes())
        try:
            reading = read_board(image, tileset=spec.tileset, grid=spec.grid, profile=profile, started=started)
        except NoBoardFound:
            # Counted as every square wrong: a board not found is a board not read.
            not_found.append(seed0 + i)
            reading = _not_read(spec.grid)
        tally.add(f"synthetic-{seed0 + i}", scene.truth.cells, reading)
        if i < first:
            head.add(f"synthetic-{seed0 + i}", scene.truth.cells, reading)
    out = {**tally.result(), "grid_not_found": not_found}
    cells, tiles, sets = tally.errors["cells"], tally.errors["tiles"], tally.errors["sets"]
    out["field_error_upper95_pct"] = {
        k: upper_bound_pct(tally.errors[k], {"kind": cells, "token": cells, "set": sets}.get(k, tiles))
        for k in FIELDS
    }
    if first:
        part = head.result()
        out[f"first_{first}"] = {
            "seeds": f"{seed0}-{seed0 + first - 1}",
            **{k: part[k] for k in ("boards", "boards_perfect", "field_error_pct", "field_errors", "examples_of_errors")},
        }
    return out


def stranger_phone(n: int, seed0: int = 30000) -> dict[str, Any]:
    """A stranger's photo as the reader first meets it: the project's own oblique phone scenes
    (turned any way, a cluttered table, blur, the lens's distortion), read with no profile, as
    ``companion read`` reads an unseen board. Without a profile no set has a name and no back
    is known, so the scenes hold face-up tiles only and sets are not counted."""
    from dataclasses import replace as _replace

    from companion.sim.render import render
    from companion.sim.scene import preset

    tally = Tally()
    not_found = []
    for i in range(n):
        seed = seed0 + i
        spec = preset("phone", np.random.default_rng(seed))
        scene = render(spec, seed)
        truth = [_replace(c, set=None) for c in scene.truth.cells]
        started = time.perf_counter()
        image = decode_image(cv2.imencode(".png", scene.image)[1].tobytes())
        try:
            reading = read_board(image, tileset=spec.tileset, grid=spec.grid, started=started)
        except NoBoardFound:
            not_found.append(seed)
            reading = _not_read(spec.grid)
        tally.add(f"phone-{seed}", truth, reading)
    out = {**tally.result(), "grid_not_found": not_found}
    out["field_error_pct"].pop("set", None)
    out["field_errors"].pop("set", None)
    return out


def _not_read(n: int) -> BoardReading:
    """A board not found: every square counts as wrong (:func:`board_errors`), at confidence 0
    (nothing was claimed)."""
    return BoardReading(n, n, ((0.0, 0.0),) * 4, empty_cells(n, n, 0.0), extra={"not_found": True})


def board_errors(truth: Sequence[CellReading], reading: BoardReading) -> dict[str, int]:
    """:func:`compare`'s errors, except that a board not found (:func:`_not_read`) is wrong on
    every square and every field truth has, as the issue counts it: its empty squares were not
    read empty, they were not read at all."""
    errors = compare(truth, reading.cells)
    if reading.extra.get("not_found"):
        for field, total in (("square", "cells"), ("kind", "cells"), ("token", "cells"),
                             ("letter", "tiles"), ("set", "sets")):
            errors[field] = errors[total]
        errors["rotation"] = sum(t.kind == "tile" and t.rotation is not None for t in truth)
    return errors


def table_profile(spec: Any, seed: int, phone: bool) -> tuple[Profile | None, list[str]]:
    """The profile a stranger's table makes of itself, as its user calibrates it: the empty
    board, then each set's alphabet, then each set's backs (on the middle row), photographed
    where the game is (same table, light and camera; the sensor's noise anew each photo, as
    ``frame`` renders it). A phone moves between photos: its profile keeps no grid corners.
    Each step the calibration refuses is named; the profile is what the others made."""
    from dataclasses import replace as _replace

    from companion.core.errors import CompanionError
    from companion.vision.alphabet import alphabet_order
    from companion.vision.calibration import calibrate_alphabet, calibrate_backs, calibrate_empty
    from companion.sim.render import _turn_square, render
    from companion.sim.scene import Square

    refused: list[str] = []
    n = spec.grid
    empty = render(_replace(spec, content={}), seed, frame=1)
    k = empty.quarter_turns
    profile = Profile(tileset=spec.tileset, grid=n)
    try:
        profile = calibrate_empty(empty.image, profile, "empty")
    except CompanionError as exc:
        refused.append(f"empty: {exc}")
    if phone:
        profile = _replace(profile, corners=None, image_size=None)
    # Squares as the user sees them (row 0 at the image's top) -> the board as printed.
    printed = lambda sq: _turn_square(sq, n, (4 - k) % 4)  # noqa: E731
    upright = (-90 * k) % 360
    names = sorted({sq.set for sq in spec.content.values() if sq.kind != "empty"})
    for frame, name in enumerate(names, start=2):
        order = alphabet_order(get_tileset(spec.tileset))
        content = {printed(divmod(i, n)): Square.tile(ch, rotation=upright, set=name) for i, ch in enumerate(order)}
        photo = render(_replace(spec, content=content), seed, frame=frame).image
        try:
            profile, _ = calibrate_alphabet(photo, profile, f"alphabet:{name}", name)
        except CompanionError as exc:
            refused.append(f"alphabet {name}: {exc}")
            continue
        row = [(n // 2, c) for c in range(n)]
        backs = {printed(sq): Square.back(set=name) for sq in row}
        photo = render(_replace(spec, content=backs), seed, frame=frame + 10).image
        try:
            profile, _ = calibrate_backs(photo, profile, f"backs:{name}", name, row)
        except CompanionError as exc:
            refused.append(f"backs {name}: {exc}")
    return profile, refused


def stranger_tables(n: int, seed0: int) -> Iterator[tuple[int, bool, Any, Any, Profile | None, list[str]]]:
    """:func:`stranger`'s scenes: seed, phone or not, spec, rendered scene, the profile its table
    makes and the calibration steps refused."""
    from companion.sim.render import render
    from companion.sim.scene import stranger as stranger_scene

    for i in range(n):
        seed = seed0 + i
        rng = np.random.default_rng(seed)
        phone = bool(rng.random() < 0.5)
        spec = stranger_scene(rng, phone=phone)
        scene = render(spec, seed)
        profile, why = table_profile(spec, seed, phone)
        yield seed, phone, spec, scene, profile, why


def truth_for(scene: Any, prof: Profile | None) -> list[CellReading]:
    """The scene's truth as a reading with ``prof`` can know it: a set the profile does not name
    (its calibration refused) can only be read as a set of no name; without a profile no set
    has one."""
    names = {s_.name for s_ in prof.sets} if prof is not None else set()
    return [c if c.set in names else replace(c, set=None) for c in scene.truth.cells]


def stranger(n: int, seed0: int = 50000) -> dict[str, Any]:
    """A stranger's table (:func:`companion.sim.scene.stranger`: held-out font families and
    tile colours, checked, striped, patterned cloths and wood, lamps' hot spots, boards'
    colours moved far, overhead and phone views, some tiles face down), read without a
    profile (sets not counted: nothing names them) and with the profile the table makes
    (:func:`table_profile`), by the default square reader. Reliability tables per field
    (bench/reliability.py). One pass reads every scene for this and for the readers side by
    side (:func:`stranger_raw`)."""
    return stranger_default(stranger_raw(n, seed0))


def stranger_default(raw: dict[str, Any]) -> dict[str, Any]:
    """:func:`stranger`'s figures from :func:`stranger_raw`'s pass: the default reader's."""
    d = raw["default"]
    out: dict[str, Any] = {}
    for part, tally in d["parts"].items():
        res = {**tally.result(), "grid_not_found": raw["not_found"][part]}
        if part == "no_profile":
            res["field_error_pct"].pop("set", None)
            res["field_errors"].pop("set", None)
        res["by_view_square_error_pct"] = {v: d["views"][v][part].result()["square_error_pct"] for v in d["views"]}
        out[part] = res
    out["calibration_refused"] = {str(k): v for k, v in d["refused"].items()}
    out["calibration_withheld"] = {str(k): v for k, v in d["withheld"].items()}
    out["scenes_worse_with_the_profile"] = d["worse"]
    return out


def stranger_adapt(n: int, seed0: int = STRANGER_SEED) -> dict[str, Any]:
    """The table's profile with and without its prototypes (docs/vision-adapt.md), beside no
    profile, each scene of :func:`stranger` read three times through :func:`read_board`: the
    profile without prototypes is the reader before the adaptation (the rules with the profile
    alone). Per part: squares wrong, wrong at 0.5 or more, scenes worse than without a profile."""
    from companion.vision.prototypes import NOTE

    parts = ("no_profile", "profile_rules_alone", "profile_adapted")
    tallies = {p: Tally() for p in parts}
    worse: dict[str, list[str]] = {p: [] for p in parts[1:]}
    for seed, _phone, spec, scene, profile, _why in stranger_tables(n, seed0):
        before = replace(profile, notes={k: v for k, v in profile.notes.items() if k != NOTE})
        wrong = {}
        for part, prof in zip(parts, (None, before, profile)):
            truth = truth_for(scene, prof)
            try:
                reading = read_board(scene.image, tileset=spec.tileset, grid=spec.grid, profile=prof)
            except NoBoardFound:
                reading = _not_read(spec.grid)
            tallies[part].add(f"stranger-{seed}", truth, reading)
            wrong[part] = board_errors(truth, reading)["square"]
        for part in parts[1:]:
            if wrong[part] > wrong["no_profile"]:
                worse[part].append(f"{seed}: {wrong['no_profile']} -> {wrong[part]}")
    out: dict[str, Any] = {"scenes": n, "seeds": f"{seed0}-{seed0 + n - 1}"}
    for part, tally in tallies.items():
        res = tally.result()
        out[part] = {k: res[k] for k in ("squares", "square_error_pct", "field_errors",
                                         "wrong_with_confidence_0.5_or_more", "elapsed_ms_median")}
        if part != "no_profile":
            out[part]["scenes_worse_than_no_profile"] = worse[part]
    return out


def _profile_of_scene(spec: Any) -> Profile:
    """What calibrating the scene's table would tell: each set's face and back colour."""
    names = sorted({sq.set for sq in spec.content.values() if sq.kind != "empty" and sq.set})
    sets = tuple(TileSetColour(n, tuple(int(v) for v in spec.looks[n].body)) for n in names)
    backs = np.array([spec.looks[n].back for n in names], np.uint8).reshape(-1, 3)
    return Profile(tileset=spec.tileset, grid=spec.grid, sets=sets).with_arrays(set_backs=backs)


def _camera_profile(spec: Any, seed: int) -> Profile:
    """A mounted camera's grid, as ``calibrate`` would fix it from the board without the hand."""
    from dataclasses import replace as _replace

    from companion.vision.grid import locate_grid
    from companion.sim.render import render

    clear = render(_replace(spec, hand=None), seed).image
    location = locate_grid(clear, spec.grid, spec.grid)
    return Profile(
        tileset=spec.tileset,
        grid=spec.grid,
        corners=tuple((float(x), float(y)) for x, y in location.corners),
        image_size=(clear.shape[1], clear.shape[0]),
    )


@dataclass(frozen=True)
class Flags:
    """What the stabiliser is told of a frame: a hand over the board, motion on it."""

    present: bool
    motion: bool


def hands(n: int, seed0: int = 2000) -> dict[str, Any]:
    """Hands over a mounted camera's board (its grid fixed by calibration, as at the table)."""
    from companion.vision.grid import GridLocation
    from companion.vision.hands import HandTracker
    from companion.sim.render import hand_sequence, render
    from companion.sim.scene import preset, random_hand
    from companion.vision.stabiliser import Stabiliser

    covered = 0
    confident = 0
    frames_confident = 0
    frames_with_hand = 0
    emitted_with_hand = 0
    sequences = 0
    not_found = 0
    for i in range(n):
        rng = np.random.default_rng(seed0 + i)
        spec = preset("mounted", rng, hand=True)
        scene = render(spec, seed0 + i)
        try:
            profile = _camera_profile(spec, seed0 + i)
        except NoBoardFound:
            not_found += 1
            continue
        reading = read_board(scene.image, tileset=spec.tileset, grid=spec.grid, profile=profile)
        sure = [(r, c) for r, c in scene.covered if reading.cell(r, c).confidence >= 0.5]
        covered += len(scene.covered)
        confident += len(sure)
        frames_confident += bool(sure)
    for i in range(max(2, n // 4)):
        rng = np.random.default_rng(seed0 + 500 + i)
        spec = preset("mounted", rng, hand=False)
        try:
            profile = _camera_profile(spec, seed0 + 500 + i)
        except NoBoardFound:
            not_found += 1
            continue
        frames = hand_sequence(spec, seed0 + 500 + i, random_hand(rng, spec.grid))
        # As the table runs it: the reader on each frame, the hand tracker over the stream
        # (hands, motion, an arm crossing the board's edge), the stabiliser told of both.
        stab = Stabiliser()
        tracker = HandTracker(GridLocation.from_corners(np.array(profile.corners), spec.grid, spec.grid))
        sequences += 1
        for k, frame in enumerate(frames):
            reading = read_board(frame.image, tileset=spec.tileset, grid=spec.grid, profile=profile,
                                 tracker_for=lambda location: tracker)
            out = stab.push(float(k), reading, Flags(reading.extra["hand"], reading.extra["motion"]))
            if frame.hand_mask.any():
                frames_with_hand += 1
                emitted_with_hand += out is not None
    return {
        "frames": n,
        "grid_not_found_without_the_hand": not_found,
        "squares_under_hand": covered,
        "squares_under_hand_with_confidence_0.5_or_more": confident,
        "frames_with_a_confident_square_under_the_hand": frames_confident,
        "hand_pass_sequences": sequences,
        "frames_with_hand": frames_with_hand,
        "stabiliser_emissions_while_hand": emitted_with_hand,
    }


# ---------------------------------------------------------------------------------------------
# Time (issue 22: at most 120 ms per 1504 x 1504 photo on one core, decoding included). Each photo
# is read from its file's bytes as ``companion read`` reads it, once by the default square reader
# and once by ``both``; the wall time is the reading's elapsed_ms (decoding included, as the
# contract says), the CPU time the process's over the same span. The machine is shared: the wall
# time counts the waits for a core other work took, the CPU time does not (a loaded machine still
# inflates it a little, through shared caches). Photos: the 80 labelled scrabscrap photos (the
# camera's own JPEGs) and the stranger benchmark's overhead scenes (renders, kept as PNG: a
# lossless file decodes slower than a camera's JPEG, and the figure says so apart).

TIMING_STRANGER_SCENES = 40  # seeds 50000 on; the 1504 x 1504 ones (overhead) are timed


def _timing_photos(stranger_scenes: int) -> dict[str, list[tuple[str, bytes, str, int]]]:
    from companion.sim.render import render
    from companion.sim.scene import stranger as stranger_scene

    sets: dict[str, list[tuple[str, bytes, str, int]]] = {}
    if (PHOTOS / "truth" / "index.tsv").is_file():
        sets["scrabscrap_jpeg"] = [(name, path.read_bytes(), "de", 15) for name, path, _ in _truth_photos()]
    scenes = []
    for i in range(stranger_scenes):
        seed = STRANGER_SEED + i
        rng = np.random.default_rng(seed)
        spec = stranger_scene(rng, phone=bool(rng.random() < 0.5))  # as stranger_tables draws them
        if spec.camera.size != (1504, 1504):
            continue
        image = render(spec, seed).image
        scenes.append((f"stranger-{seed}", cv2.imencode(".png", image)[1].tobytes(), spec.tileset, spec.grid))
    sets["stranger_png"] = scenes
    return sets


def timing(stranger_scenes: int = TIMING_STRANGER_SCENES, readers: Sequence[str] | None = None) -> dict[str, Any]:
    """Median wall and CPU ms per 1504 x 1504 photo, decoding included, on one core: the default
    square reader, the rules alone and ``both``, the model's share, the decoding's, and a Raspberry Pi 4 estimate.
    ``readers``: only these square readers (``("calibrated",)``: the default's figures alone, in a
    third of the time)."""
    from companion.vision.model import SQUARE_READER

    threads = one_core()  # (before the network's session is made: it takes OpenCV's threads)
    prepare("de")
    prepare("en")
    out: dict[str, Any] = {
        "how": "each photo's bytes decoded and read as companion read does, by each square reader in turn; "
               "wall = elapsed_ms (decoding included), cpu = the process's CPU time over the same span; one thread",
        "threads": threads,
        "pi4_ratio": f"{PI4_RATIO:g}x (the model's share {PI4_RATIO_MODEL:g}x): Geekbench 5 single-core, about 270 "
                     "(Pi 4, Cortex-A72 1.5 GHz) against about 1,350 (this machine's core); applied to the CPU "
                     "medians; an estimate, not a measurement on a Pi",
    }
    # The default, the rules alone (what the network adds to it), and both.
    readers = tuple(dict.fromkeys((SQUARE_READER, "rules", "both") if readers is None else readers))
    for set_name, photos in _timing_photos(stranger_scenes).items():
        got: dict[str, dict[str, list[float]]] = {m: {"wall": [], "cpu": [], "model_wall": [], "model_cpu": []}
                                                  for m in readers}
        decode_wall, decode_cpu, not_found = [], [], []
        for name, data, tileset, grid in photos:
            w0, c0 = time.perf_counter(), time.process_time()
            decode_image(data, name)
            decode_wall.append((time.perf_counter() - w0) * 1000.0)
            decode_cpu.append((time.process_time() - c0) * 1000.0)
            for m in readers:
                w0, c0 = time.perf_counter(), time.process_time()
                try:
                    reading = read_board(decode_image(data, name), tileset=tileset, grid=grid, started=w0,
                                         square_reader=m)
                except NoBoardFound:
                    not_found.append(name)
                    break
                cpu = (time.process_time() - c0) * 1000.0
                got[m]["wall"].append(reading.elapsed_ms)
                got[m]["cpu"].append(cpu)
                got[m]["model_wall"].append(float(reading.extra["square_model_ms"]))
                got[m]["model_cpu"].append(float(reading.extra["square_model_cpu_ms"]))
        part: dict[str, Any] = {"photos": len(photos), "grid_not_found": sorted(set(not_found)),
                                "decoding_wall_ms_median": round(statistics.median(decode_wall), 1),
                                "decoding_cpu_ms_median": round(statistics.median(decode_cpu), 1)}
        for m, t in got.items():
            if not t["wall"]:
                continue
            cpu, model_cpu = statistics.median(t["cpu"]), statistics.median(t["model_cpu"])
            part[m] = {
                "wall_ms_median": round(statistics.median(t["wall"]), 1),
                "wall_ms_p95": round(percentile(t["wall"], 95), 1),
                "cpu_ms_median": round(cpu, 1),
                "model_wall_ms_median": round(statistics.median(t["model_wall"]), 1),
                "model_cpu_ms_median": round(model_cpu, 1),
                "pi4_estimate_ms": round((cpu - model_cpu) * PI4_RATIO + model_cpu * PI4_RATIO_MODEL),
            }
        out[set_name] = part
    return out


def run() -> dict[str, Any]:
    threads = one_core()
    prepare("de")  # process start, as companion read does before its clock starts
    result: dict[str, Any] = {"threads": threads}
    if (PHOTOS / "truth" / "index.tsv").is_file():
        photos = _truth_photos()
        result["real"] = {"photos": len(photos), "tileset": "de"}
        result["real"]["no_profile"] = real(photos, lambda name: None)
        result["real"]["fresh_process_every_8th"] = fresh_process(photos[::TESSERACT_EVERY])
        profile_for, used = _empty_profiles()
        result["real"]["empty_board_profile"] = {"learned_from": used, **real(photos, profile_for)}
        labelled, notes = _labelled_profile()
        result["real"]["labelled_profile"] = {"learned_from": notes, **real(photos, lambda name: labelled)}
        subset = photos[::TESSERACT_EVERY]
        try:
            result["real"]["tesseract_no_profile"] = {
                "photos": [name for name, _, _ in subset],
                **real(subset, lambda name: None, backend="tesseract"),
            }
        except Exception as exc:  # a machine without tesseract still gets the other figures
            result["real"]["tesseract_no_profile"] = {"skipped": str(exc)}
    else:
        result["real"] = {"skipped": f"no labelled photos at {PHOTOS / 'truth'}"}
    result["other_edition_detector_project"] = other_edition()
    result["synthetic_mounted_every_feature"] = {
        "scenes": SYNTHETIC_SCENES,
        "seeds": f"1000-{1000 + SYNTHETIC_SCENES - 1}",
        **synthetic(SYNTHETIC_SCENES, first=SYNTHETIC_FIRST),
    }
    result["stranger_phone_no_profile"] = {
        "scenes": PHONE_SCENES,
        "seeds": f"30000-{30000 + PHONE_SCENES - 1}",
        **stranger_phone(PHONE_SCENES),
    }
    # One pass over the stranger's scenes for the default reader and the readers side by side.
    raw = stranger_raw(STRANGER_SCENES, STRANGER_SEED)
    result["stranger"] = {
        "scenes": STRANGER_SCENES,
        "seeds": f"{STRANGER_SEED}-{STRANGER_SEED + STRANGER_SCENES - 1}",
        **stranger_default(raw),
    }
    result["hands"] = hands(HAND_SCENES)
    result["square_readers_side_by_side"] = side_by_side(STRANGER_SCENES, raw)
    result["timing"] = timing()
    real_default = result["real"].get("no_profile", {})
    syn = result["synthetic_mounted_every_feature"]
    result["summary"] = (
        f"real (no profile): {real_default.get('square_error_pct')} % squares wrong, "
        f"{real_default.get('boards_perfect')}/{real_default.get('boards')} boards perfect, "
        f"median {real_default.get('elapsed_ms_median')} ms, p95 {real_default.get('elapsed_ms_p95')} ms; "
        f"synthetic fields {syn['field_error_pct']}; phone, no profile: "
        f"{result['stranger_phone_no_profile']['field_error_pct']}; stranger: "
        f"{result['stranger']['no_profile']['square_error_pct']} % squares wrong without a profile, "
        f"{result['stranger']['table_profile']['square_error_pct']} % with the table's; hands: "
        f"{result['hands']['squares_under_hand_with_confidence_0.5_or_more']}/{result['hands']['squares_under_hand']} "
        f"covered squares confident, {result['hands']['stabiliser_emissions_while_hand']} emissions with a hand"
    )
    return result



# ---------------------------------------------------------------------------------------------
# The square readers side by side (issue 22): the hand-written rules, the learned model and the
# two combined (companion/vision/model.py), each reading the very same grid and rectified board
# of every photo in one run, so that a difference is the square reader's alone.

READERS = ("rules", "model", "both", "calibrated", "both_rules_at_0.5", "both_rules_at_0.9")
# The two readers combined otherwise than the default (model.RULES_SURE: the rules' answer
# always, doubted by the model): where they disagree, the model's answer where the rules are
# below 0.5 or 0.9.
VARIANTS = {"both_rules_at_0.5": 0.5, "both_rules_at_0.9": 0.9}
SIDE_STRANGER_SCENES = 200
# A Raspberry Pi 4's core against this machine's: Geekbench 5 single-core scores, about 270
# (Pi 4, Cortex-A72 at 1.5 GHz) against about 1,350 (a server core of AMD's EPYC Zen 3): 5x.
# Convolutions gain more than the average from x86's wider vectors: the model's share is scaled
# by 8, the rest by 5 (an estimate, not a measurement on a Pi).
PI4_RATIO = 5.0
PI4_RATIO_MODEL = 8.0


def _readings(image: np.ndarray, **kw: Any) -> tuple[dict[str, BoardReading], float, float]:
    """Each reader's reading of one photo, the photo's CPU ms (decoding excluded, the calibrated
    reading: the rules, the network and the calibrator) and the model's ms."""
    c0 = time.process_time()
    reading = read_board(image, square_reader="calibrated", also=("rules", "model", "both"), **kw)
    cpu = (time.process_time() - c0) * 1000.0
    out = {"calibrated": reading, **reading.extra["also"]}
    for name, sure in VARIANTS.items():
        cells = combine(out["rules"].cells, out["model"].cells, "both", sure)
        out[name] = replace(reading, cells=tuple(cells), extra={})  # no field probabilities of its own
    return out, cpu, float(reading.extra["square_model_cpu_ms"])


def _tallies(with_reliability: bool = False, unnamed_sets: bool = False) -> dict[str, Tally]:
    return {m: Tally(with_reliability, unnamed_sets) for m in READERS}


def side_by_side_real() -> dict[str, Any]:
    """The 80 labelled scrabscrap photos, no profile, each reader."""
    if not (PHOTOS / "truth" / "index.tsv").is_file():
        return {"skipped": f"no labelled photos at {PHOTOS / 'truth'}"}
    tallies = _tallies(True)
    cpu, model = [], []
    for name, path, truth in _truth_photos():
        image = decode_image(path.read_bytes(), str(path))
        try:
            readings, ms, mms = _readings(image, tileset="de")
            cpu.append(ms)
            model.append(mms)
        except NoBoardFound:
            readings = {m: _not_read(15) for m in READERS}
        for m in READERS:
            tallies[m].add(name, truth, readings[m])
    out: dict[str, Any] = {m: _brief(t.result()) for m, t in tallies.items()}
    out["cpu_ms_median_both"] = round(statistics.median(cpu), 1) if cpu else None
    out["model_ms_median"] = round(statistics.median(model), 1) if model else None
    return out


def _brief(res: dict[str, Any]) -> dict[str, Any]:
    keep = ("boards", "squares", "square_error_pct", "field_error_pct", "field_errors",
            "wrong_with_confidence_0.5_or_more", "tiles_asked_below_0.5", "backs_and_blanks", "examples_of_errors",
            "reliability", "unnamed_set")
    out = {k: res[k] for k in keep if k in res}
    if "reliability" in out:  # what the table would ask about: squares under its SURE (0.5)
        out["squares_below_0.5"] = sum(b["squares"] for b in out["reliability"]["square"]["bins"]
                                       if float(b["bin"].split("-")[1]) <= 0.5)
    if "reliability" in out:
        out["ece_pct"] = {k: v["ece_pct"] for k, v in out["reliability"].items()}
        out["wrong_at_0.9_or_more"] = out["reliability"]["square"]["wrong_at_0.9_or_more"]
        out["wrong_at_0.5_or_more_by_field"] = {k: v["wrong_at_0.5_or_more"] for k, v in out["reliability"].items()}
    return out


def side_by_side_other_edition() -> dict[str, Any]:
    """The scrabble-detector-project's labelled letters (as :func:`other_edition`), each reader."""
    from companion.vision.grid import GridLocation

    images = sorted(DETECTOR.glob("*/images/*.jpg"))
    if not images:
        return {"skipped": f"no photos at {DETECTOR}"}
    letters = [chr(ord("A") + i) for i in range(26)]
    right = {m: 0 for m in READERS}
    as_tile = {m: 0 for m in READERS}
    rel = {m: Reliability() for m in READERS}  # the letter's confidence against its rightness
    on_grid = 0
    not_found = 0
    for path in images:
        labels = [ln.split() for ln in (path.parent.parent / "labels" / f"{path.stem}.txt").read_text().splitlines() if ln.strip()]
        image = decode_image(path.read_bytes(), str(path))
        try:
            readings, _, _ = _readings(image, tileset="en")
        except NoBoardFound:
            not_found += 1
            continue
        height, width = image.shape[:2]
        to_grid = np.linalg.inv(GridLocation.from_corners(np.array(readings["rules"].corners), 15, 15).homography)
        for cls, x, y, _w, _h in labels:
            p = to_grid @ np.array([float(x) * width, float(y) * height, 1.0])
            col, row = int(np.floor(p[0] / p[2])), int(np.floor(p[1] / p[2]))
            if not (0 <= row < 15 and 0 <= col < 15):
                continue
            on_grid += 1
            for m in READERS:
                cell = readings[m].cell(row, col)
                as_tile[m] += cell.kind == "tile"
                ok = cell.kind == "tile" and cell.letter == letters[int(cls)]
                right[m] += ok
                fields = readings[m].extra.get("field_confidence") or {}
                rel[m].add(float(fields["letter"][row * 15 + col]) if "letter" in fields else cell.confidence, ok)
    tables = {m: rel[m].table() for m in READERS}
    return {"images": len(images), "grid_not_found": not_found, "labelled_tiles_on_the_grid": on_grid,
            **{m: {"read_as_tile": as_tile[m], "letter_right": right[m],
                   "letter_right_pct": round(100.0 * right[m] / max(on_grid, 1), 2),
                   "letter_ece_pct": tables[m]["ece_pct"],
                   "letter_wrong_at_0.5_or_more": tables[m]["wrong_at_0.5_or_more"],
                   "letter_wrong_at_0.9_or_more": tables[m]["wrong_at_0.9_or_more"],
                   "letter_reliability": tables[m]["bins"]} for m in READERS}}


def side_by_side_stranger(n: int, seed0: int = STRANGER_SEED, raw: dict[str, Any] | None = None) -> dict[str, Any]:
    """:func:`stranger`'s scenes, without and with the table's profile, each reader (``raw``:
    :func:`stranger_raw`'s pass when made already)."""
    return stranger_summary([raw if raw is not None else stranger_raw(n, seed0)])


def stranger_raw(n: int, seed0: int) -> dict[str, Any]:
    """What :func:`side_by_side_stranger` and :func:`stranger` count, of ``n`` scenes from
    ``seed0``, each scene rendered, calibrated and read once (picklable: a run split over
    processes is put together by :func:`stranger_summary`). Each photo is read by ``both`` with
    the other readers' readings of the same grid beside it; the default reader's reading is
    one of them, its elapsed_ms the reading's less the model's part (the rules' reading comes
    first, then the network's)."""
    from companion.vision.model import SQUARE_READER

    parts = {p: _tallies(True, p == "table_profile") for p in ("no_profile", "table_profile")}
    not_found: dict[str, list[int]] = {"no_profile": [], "table_profile": []}
    worse: dict[str, list[str]] = {m: [] for m in READERS}
    cpu, model = [], []
    default = {"parts": {"no_profile": Tally(True), "table_profile": Tally(True, unnamed_sets=True)},
               "views": {v: {"no_profile": Tally(), "table_profile": Tally()} for v in ("overhead", "phone")},
               "refused": {}, "withheld": {}, "worse": []}
    for seed, phone, spec, scene, profile, why in stranger_tables(n, seed0):
        if why:
            default["refused"][seed] = why
        kept_out = [f"{k}: {v.split(': ', 1)[1]}" for k, v in profile.notes.items()
                    if isinstance(v, str) and (" not kept" in v or ": not learned" in v)]
        if kept_out:
            default["withheld"][seed] = kept_out
        wrong: dict[str, dict[str, int]] = {}
        for part, prof in (("no_profile", None), ("table_profile", profile)):
            truth = truth_for(scene, prof)
            started = time.perf_counter()
            image = decode_image(cv2.imencode(".png", scene.image)[1].tobytes())
            try:
                readings, ms, mms = _readings(image, tileset=spec.tileset, grid=spec.grid, profile=prof, started=started)
                if part == "no_profile" and spec.camera.size == (1504, 1504):
                    cpu.append(ms)
                    model.append(mms)
                # The default reader's reading, timed as itself: the one pass reads as "calibrated"
                # (the rules, the network, the calibrator) before the others; the rules alone
                # would not have run the network.
                first = readings["calibrated"]
                mine = replace(readings[SQUARE_READER], elapsed_ms=first.elapsed_ms - (
                    float(first.extra["square_model_ms"]) if SQUARE_READER == "rules" else 0.0))
            except NoBoardFound:
                not_found[part].append(seed)
                readings = {m: _not_read(spec.grid) for m in READERS}
                mine = _not_read(spec.grid)
            for m in READERS:
                parts[part][m].add(f"stranger-{seed}", truth, readings[m])
                wrong.setdefault(m, {})[part] = board_errors(truth, readings[m])["square"]
            default["parts"][part].add(f"stranger-{seed}", truth, mine)
            default["views"]["phone" if phone else "overhead"][part].add(f"stranger-{seed}", truth, mine)
            wrong.setdefault("default", {})[part] = board_errors(truth, mine)["square"]
        for m in READERS:
            if wrong[m]["table_profile"] > wrong[m]["no_profile"]:
                worse[m].append(f"{seed}: {wrong[m]['no_profile']} -> {wrong[m]['table_profile']}")
        if wrong["default"]["table_profile"] > wrong["default"]["no_profile"]:
            default["worse"].append(f"{seed}: {wrong['default']['no_profile']} -> "
                                    f"{wrong['default']['table_profile']} squares wrong")
    return {"n": n, "seed0": seed0, "parts": parts, "not_found": not_found, "worse": worse, "cpu": cpu, "model": model,
            "default": default}


def _merge(a: Tally, b: Tally) -> Tally:
    for k in a.errors:
        a.errors[k] += b.errors[k]
    a.boards += b.boards
    a.perfect += b.perfect
    a.times += b.times
    a.wrong = (a.wrong + b.wrong)[:25]
    a.confident_wrong += b.confident_wrong
    a.asked += b.asked
    a.backs_and_blanks += b.backs_and_blanks
    if a.unnamed is not None and b.unnamed is not None:
        a.unnamed = {k: a.unnamed[k] + b.unnamed[k] for k in a.unnamed}
    for k in a.reliability:
        a.reliability[k].extend(b.reliability[k])
    return a


def stranger_summary(raws: list[dict[str, Any]]) -> dict[str, Any]:
    raws = sorted(raws, key=lambda r: r["seed0"])
    first = raws[0]
    for r in raws[1:]:
        for part in first["parts"]:
            for m in READERS:
                _merge(first["parts"][part][m], r["parts"][part][m])
            first["not_found"][part] += r["not_found"][part]
        for m in READERS:
            first["worse"][m] += r["worse"][m]
        first["cpu"] += r["cpu"]
        first["model"] += r["model"]
    n = sum(r["n"] for r in raws)
    seed0 = first["seed0"]
    out: dict[str, Any] = {"scenes": n, "seeds": f"{seed0}-{seed0 + n - 1}"}
    for part, tallies in first["parts"].items():
        res = {m: _brief(t.result()) for m, t in tallies.items()}
        if part == "no_profile":
            for r in res.values():
                r["field_error_pct"].pop("set", None)
                r["field_errors"].pop("set", None)
                r.get("reliability", {}).pop("set", None)
                r.get("ece_pct", {}).pop("set", None)
        out[part] = {**res, "grid_not_found": first["not_found"][part]}
    out["scenes_worse_with_the_profile"] = first["worse"]
    cpu, model = first["cpu"], first["model"]
    if cpu:
        med, mmed = statistics.median(cpu), statistics.median(model)
        out["cpu_ms_per_1504_photo_median"] = {
            "photos": len(cpu), "whole_reading_calibrated": round(med, 1), "model_share": round(mmed, 1),
            "pi4_estimate_ms": round((med - mmed) * PI4_RATIO + mmed * PI4_RATIO_MODEL, 0),
            "pi4_ratio": f"{PI4_RATIO:g}x (model {PI4_RATIO_MODEL:g}x), Geekbench 5 single-core, an estimate",
        }
    return out


def side_by_side(stranger_scenes: int = SIDE_STRANGER_SCENES, raw: dict[str, Any] | None = None) -> dict[str, Any]:
    one_core()
    prepare("de")
    return {
        "readers": {"rules": "companion/vision/cells/ alone", "model": "the learned model (model.py) alone",
                    "both": "the rules' answer; where the model sees another kind, letter or turn, asked "
                            "(confidence capped at 0.45). Not the default (model.SQUARE_READER is calibrated): "
                            "docs/vision-model.md says why",
                    "calibrated": "the default: the rules' answer, its confidence (and each field's) the calibrated "
                                  "probability of being right from the rules' and the network's evidence "
                                  "(companion/vision/confidence.py, docs/vision-confidence.md)",
                    "both_rules_at_0.5": "as both, but the model's answer where the rules are below 0.5",
                    "both_rules_at_0.9": "as both, but the model's answer where the rules are below 0.9",
                    "both_rules_always": "as both, the rules' answer always"},
        "timing": "CPU time of the process (one thread), decoding excluded: the machine is shared",
        "scrabscrap_80_no_profile": side_by_side_real(),
        "other_edition_detector_project": side_by_side_other_edition(),
        "stranger": side_by_side_stranger(stranger_scenes, raw=raw),
    }
