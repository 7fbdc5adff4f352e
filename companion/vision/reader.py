"""One image in, one board reading out: the pipeline behind ``companion read``.

Decode the image, find the grid (refining the profile's grid when a mounted camera has one),
see the board from straight above, read every square. Each step lives in its own module; this
one only wires them and times the whole.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from companion.core.board import layout_for_grid
from companion.core.tiles import get_tileset
from companion.core.errors import CompanionError
from companion.pi.heap import keep_freed_memory
from companion.vision import BACKENDS
from companion.vision.adapt import adapt_reading
from companion.vision.backs import backs_like_faces
from companion.vision.bag_bound import beyond_the_bag
from companion.vision.cells import CELL_PX, MARGIN, read_board_cells
from companion.vision.cells.set_passes import named_where_switched
from companion.vision.cells.token_discs import token_in_doubt
from companion.vision.grid import GridLocation, locate_grid, rectify
from companion.core.imagesize import MAX_IMAGE_BYTES, check_pixels
from companion.vision.hands import HandTracker, apply_occlusion, detect_hands, view_from_rectified
from companion.vision.model import SQUARE_READER, SQUARE_READERS, asked, network_run, read_squares_fields
from companion.vision.profile import Profile
from companion.vision.prototypes import usable
from companion.vision.reading import BLANK_FACE, BoardReading

# What the calibrated reader keeps beside its field probabilities: the evidence and what it was
# made of (scripts/fit_confidence.py fits from them).
KEPT = ("evidence", "witnesses")


def decode_image(data: bytes, source: str = "image") -> np.ndarray:
    """BGR pixels of a JPEG or PNG (anything OpenCV decodes); one clear line otherwise."""
    if not data:
        raise CompanionError(f"{source}: empty file, not an image")
    check_pixels(data, source)  # before decoding: a small file can decode to gigabytes
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        raise CompanionError(f"{source}: not an image OpenCV can decode (JPEG or PNG expected)")
    return image


def read_image_bytes(path: Path) -> bytes:
    if path.is_dir():
        raise CompanionError(f"{path}: is a directory, not an image")
    try:
        size = path.stat().st_size
        if size > MAX_IMAGE_BYTES:
            raise CompanionError(f"{path}: {size} bytes is too large for a camera image")
        return path.read_bytes()
    except FileNotFoundError:
        raise CompanionError(f"{path}: no such file") from None
    except PermissionError:
        raise CompanionError(f"{path}: permission denied") from None
    except OSError as exc:
        raise CompanionError(f"{path}: cannot read ({exc.strerror})") from None


def profile_hint(profile: Profile | None, image: np.ndarray, grid: int) -> GridLocation | None:
    """The profile's grid for this image, scaled when the image has another size."""
    if profile is None or profile.corners is None or profile.grid != grid:
        return None
    corners = np.asarray(profile.corners, np.float64)
    if profile.image_size is not None:
        w, h = profile.image_size
        corners = corners * np.array([image.shape[1] / w, image.shape[0] / h])
    return GridLocation.from_corners(corners, grid, grid)


def prepare(tileset: str = "en", grid: int = 15) -> None:
    """Load and build, once per process, what every reading uses: the letter network, the
    square network and its confidence calibrator, the tile set and layout, OpenCV's colour
    tables (its first Lab conversion builds them, about 170 ms) and the line detector; and the
    C heap set to keep freed buffers for the next reading (:mod:`companion.pi.heap`). Part of
    starting the process, as a camera's stream pays it once: ``companion read`` calls it before
    the clock of elapsed_ms starts."""
    import numpy.ma  # noqa: F401  (numpy imports these on first use: nanmedian, default_rng)
    import numpy.random  # noqa: F401

    from companion.vision.confidence import load_calibrator
    from companion.vision.letters import load_model
    from companion.vision.model import load_square_model
    from companion.vision.lines import _lsd

    keep_freed_memory()
    load_model()
    load_square_model()
    load_calibrator()
    get_tileset(tileset)
    layout_for_grid(grid)
    _lsd()
    cv2.cvtColor(np.zeros((1, 1, 3), np.uint8), cv2.COLOR_BGR2LAB)


def read_board(
    image: np.ndarray,
    *,
    tileset: str = "en",
    grid: int = 15,
    profile: Profile | None = None,
    backend: str = "own",
    started: float | None = None,
    tracker_for: Callable[[GridLocation], HandTracker] | None = None,
    square_reader: str = SQUARE_READER,
    also: tuple[str, ...] = (),
) -> BoardReading:
    """Read every square of the board in ``image``. ``started`` is when the caller began (to
    count decoding in elapsed_ms, as the contract asks). ``tracker_for``: over a stream, the
    hand tracker for the grid found (it sees motion and what one frame cannot); without it the
    one-frame hand detector runs. ``extra["motion"]`` says what the tracker saw move.
    ``square_reader``: the rules, the learned model, both, or the rules with calibrated
    confidences (:mod:`companion.vision.model`; its field probabilities, their evidence and
    what that was made of go in ``extra["field_confidence"]``, ``extra["evidence"]`` and
    ``extra["witnesses"]``);
    ``also``: other square readers whose readings of the same photo go in ``extra["also"]``
    (the benchmark's side by side; their time is not in elapsed_ms)."""
    t0 = time.perf_counter() if started is None else started
    # Every process that reads boards keeps a reading's freed buffers for the next one (once;
    # prepare() does it too): without it each reading faults the same pages in afresh.
    keep_freed_memory()
    if backend not in BACKENDS:
        raise CompanionError(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    layout = layout_for_grid(grid)
    tiles = get_tileset(tileset)
    location = locate_grid(image, grid, grid, hint=profile_hint(profile, image, grid))
    top_down = rectify(image, location, CELL_PX, MARGIN)
    found = read_board_cells(top_down, CELL_PX, MARGIN, layout, tiles, profile, backend)
    rules = found.cells
    # Tiles whose corner may hold a token of their own colour, read without one: asked about.
    token_rim = found.evidence.extra.get("token_rim", np.full((grid, grid), -np.inf)).ravel()
    t_model, c_model = time.perf_counter(), time.process_time()
    run = None  # the network's one run, shared by the adaptation, this reader and every one in ``also``
    doubts: list[int] = []
    adapted = None
    if profile is not None and usable(profile):
        # The table's own tiles and board, learned at calibration: the reading with the
        # profile, bounded by the reading without it (docs/vision-adapt.md).
        run = network_run(top_down, grid, grid, CELL_PX, MARGIN)
        adapted = adapt_reading(top_down, rules, grid, layout, tiles, profile, backend, beliefs=run[1],
                                printed=found.evidence.tile_polarity[:len(profile.sets)])
        rules, doubts = adapted.cells, adapted.doubts
    backs_known = profile is not None and bool(np.isfinite(profile.arrays.get("set_backs", np.full(1, np.nan))).any())
    twin_backs, twin_faces = backs_like_faces(profile)

    def squares(mode: str) -> tuple[list, dict | None]:
        nonlocal run
        if run is None and mode in SQUARE_READERS and mode != "rules":
            run = network_run(top_down, grid, grid, CELL_PX, MARGIN)
        cells, fields = read_squares_fields(top_down, rules, grid, grid, CELL_PX, MARGIN, tiles, mode, backs_known,
                                            run=run, adapted=adapted, loose=found.evidence.extra.get("loose_empty"),
                                            outlined=found.evidence.extra.get("outlined"))
        # A face or back the rules read as another kind: the set its colour names under the profile.
        cells = named_where_switched(cells, found.cells, found.evidence.extra.get("sets_as"),
                                     adapted.unnamed if adapted is not None else None)
        # Where the profile's reading and the one without it parted and nothing settled it, the
        # square stays asked about whatever the square reader makes of it: split evidence is
        # never guessed. Its fields keep the calibrator's probabilities, which weigh the doubt
        # already (its feature "doubt"): held at the cap as well, their right answers (most of
        # them) sat at 0.45 in the reliability tables.
        cells, fields = asked(cells, fields, np.isin(np.arange(len(cells)), doubts), ("square",))
        # A token perhaps unseen: the square and its token asked about, its other fields as read.
        unsure = token_in_doubt(token_rim, run[1].token[:, 1] if run is not None else None)
        unsure &= ~np.array([c.token for c in cells])
        cells, fields = asked(cells, fields, unsure, ("token", "square"))
        # A plain square of a colour that is one set's backs and another set's faces: a back of
        # the one or a blank of the other, and nothing in the photo tells which.
        twin = np.array([(c.kind == "back" and c.set in twin_backs) or
                         (c.kind == "tile" and c.letter == BLANK_FACE and c.set in twin_faces) for c in cells])
        cells, fields = asked(cells, fields, twin, ("kind", "set", "square"))
        # More faces of a letter than the table's sets hold: some are misread, none says which.
        return asked(cells, fields, beyond_the_bag(cells, tiles, found.evidence.tile_set,
                                                   len(profile.sets) if profile is not None else 1), ("letter", "square"))

    cells, fields = squares(square_reader)
    model_ms = (time.perf_counter() - t_model) * 1000.0
    model_cpu_ms = (time.process_time() - c_model) * 1000.0
    corners = tuple((float(x), float(y)) for x, y in location.corners)
    # A hand or arm over the board: the squares under it cannot be trusted, whatever the
    # square reader made of them (the board's lost grid lines show where it is).
    if tracker_for is None:
        hands = detect_hands(image, location, view_from_rectified(top_down, CELL_PX, MARGIN))
    else:
        hands = tracker_for(location).update(image)

    # Squares the photo cut off (a board partly out of frame) were never seen: read as a
    # covered square is, the reader's guess kept but not believed.
    off = location.out_of_view(image.shape)

    def board(read: list, fields: dict | None = None) -> BoardReading:
        reading = BoardReading(grid, grid, corners, tuple(read))
        if off.any():
            reading = apply_occlusion(reading, off)
        if hands.present or tracker_for is not None:
            reading = apply_occlusion(reading, hands)
        if fields is None:
            return reading
        # Each field's probability (the benchmark's reliability tables), no surer than its
        # square after the photo's edge or a hand lowered it.
        lowered = np.array([b.confidence < a.confidence for a, b in zip(read, reading.cells)])
        square = np.array([c.confidence for c in reading.cells])
        per_field = {f: np.where(lowered, np.minimum(p, square), p) for f, p in fields.items() if f not in KEPT}
        return replace(reading, extra={"field_confidence": per_field, **{k: fields[k] for k in KEPT}})

    reading = board(cells, fields)
    elapsed = (time.perf_counter() - t0) * 1000.0
    extra = {**reading.extra, "grid_score": location.score, "hand": hands.present, "motion": hands.motion,
             "square_reader": square_reader,
             # The network's part (and the adaptation's, which runs it too under a profile with
             # prototypes, whatever the square reader).
             "square_model_ms": model_ms if run is not None else 0.0,
             "square_model_cpu_ms": model_cpu_ms if run is not None else 0.0}
    if also:
        extra["also"] = {m: board(*squares(m)) for m in also}
    return replace(reading, elapsed_ms=elapsed, extra=extra)


def read_file(
    path: Path, *, tileset: str = "en", grid: int = 15, profile: Profile | None = None, backend: str = "own",
    square_reader: str = SQUARE_READER,
) -> BoardReading:
    started = time.perf_counter()
    image = decode_image(read_image_bytes(path), str(path))
    return read_board(image, tileset=tileset, grid=grid, profile=profile, backend=backend, started=started,
                      square_reader=square_reader)
