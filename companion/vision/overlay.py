"""What the camera found, drawn over its frame: the grid, each square's reading, the row and
column names, a line of figures. ``companion look``, ``calibrate --overlay`` and ``read
--overlay`` all draw with :func:`draw_reading` (and :func:`draw_nothing_found` when the finder
saw no board), so aiming the camera, checking a calibration and checking a reading show one
picture.

The grid is drawn from the reading's corners through the same homography the reader uses
(:meth:`GridLocation.from_corners`): a drawn line is where the reader believes the board's line
is, so one that misses the printed line shows a misfit of the finder, not of the drawing.

Colours (BGR): the grid green, a face-up tile's letter yellow, a face-down tile a grey cross, a
token a cyan ring, a square read with low confidence outlined red. Row 1 and column A are the
reading's first row and column: the board's edge nearest the top of the image and its left edge.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any
from pathlib import Path

import cv2
import numpy as np

from companion.core.atomic import write_atomic
from companion.core.errors import CompanionError
from companion.vision.grid import GridLocation
from companion.vision.reading import BoardReading

GRID = (0, 255, 0)
LETTER = (0, 230, 255)
BACK = (170, 170, 170)
TOKEN = (255, 255, 0)
DOUBT = (0, 0, 255)
LABEL = (255, 255, 255)
LOW_CONFIDENCE = 0.5  # below: the square is outlined (the CLI's "read with low confidence")
FONT = cv2.FONT_HERSHEY_SIMPLEX


def line_px(image: np.ndarray) -> int:
    """Stroke width that stays visible on a 640 px webcam frame and on a 4608 px still."""
    return max(1, round(min(image.shape[:2]) / 700))


def location_of(reading: BoardReading) -> GridLocation:
    return GridLocation.from_corners(np.asarray(reading.corners, np.float64), reading.rows, reading.cols)


def grid_segments(location: GridLocation) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each of the grid's lines as two image points (a homography keeps lines straight)."""
    r, c = location.rows, location.cols
    ends = [((0, i), (c, i)) for i in range(r + 1)] + [((j, 0), (j, r)) for j in range(c + 1)]
    pts = location.to_image(np.array([p for seg in ends for p in seg], np.float64)).reshape(-1, 2, 2)
    return [(a, b) for a, b in pts]


def column_name(col: int) -> str:
    return chr(ord("A") + col) if col < 26 else str(col + 1)


def draw_reading(image: np.ndarray, reading: BoardReading, caption: str | None = None) -> np.ndarray:
    """A copy of ``image`` (BGR) with the reading drawn over it."""
    out = np.ascontiguousarray(image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR))
    location = location_of(reading)
    px = line_px(out)
    for a, b in grid_segments(location):
        cv2.line(out, _pt(a), _pt(b), GRID, px, cv2.LINE_AA)
    square = _square_px(location)
    for cell in reading.cells:
        centre = location.to_image(np.array([[cell.col + 0.5, cell.row + 0.5]]))[0]
        if cell.confidence < LOW_CONFIDENCE:
            quad = location.to_image(np.array([[cell.col, cell.row], [cell.col + 1, cell.row],
                                               [cell.col + 1, cell.row + 1], [cell.col, cell.row + 1]], float))
            inset = centre + (quad - centre) * 0.85
            cv2.polylines(out, [np.round(inset).astype(np.int32)], True, DOUBT, px, cv2.LINE_AA)
        if cell.kind == "tile":
            _letter(out, cell.letter or "?", centre, square * 0.55, px)
        elif cell.kind == "back":
            d = square * 0.25
            for sx in (-1, 1):
                cv2.line(out, _pt(centre + (-d, -d * sx)), _pt(centre + (d, d * sx)), BACK, px * 2, cv2.LINE_AA)
        if cell.token:
            cv2.circle(out, _pt(centre), max(2, round(square * 0.35)), TOKEN, px, cv2.LINE_AA)
    _edge_names(out, location, square, px)
    if caption is None:
        caption = summary(reading)
    _caption(out, caption, px, LABEL)
    return out


def draw_nothing_found(image: np.ndarray, why: str) -> np.ndarray:
    """The frame with the reason no board was found across its top."""
    out = np.ascontiguousarray(image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR))
    _caption(out, why, line_px(out), DOUBT)
    return out


def summary(reading: BoardReading) -> str:
    """One line of what was found: the grid's score, tiles, backs, doubtful squares, time."""
    tiles = sum(c.kind == "tile" for c in reading.cells)
    backs = sum(c.kind == "back" for c in reading.cells)
    doubt = sum(c.confidence < LOW_CONFIDENCE for c in reading.cells)
    score = reading.extra.get("grid_score")
    parts = [f"grid {reading.rows}x{reading.cols}" + (f" score {score:.2f}" if score is not None else "")]
    parts.append(f"{tiles} tile{'s' if tiles != 1 else ''}")
    if backs:
        parts.append(f"{backs} face down")
    parts.append(f"{doubt} doubtful")
    if reading.extra.get("hand"):
        parts.append("a hand over the board")
    if reading.elapsed_ms:
        parts.append(f"{reading.elapsed_ms:.0f} ms")
    return ", ".join(parts)


def _pt(p: Sequence[float]) -> tuple[int, int]:
    return int(round(float(p[0]))), int(round(float(p[1])))


def _square_px(location: GridLocation) -> float:
    """A square's side in the image, averaged over the grid (it differs under perspective)."""
    tl, tr, br, bl = location.corners
    across = (np.linalg.norm(tr - tl) + np.linalg.norm(br - bl)) / 2 / location.cols
    down = (np.linalg.norm(bl - tl) + np.linalg.norm(br - tr)) / 2 / location.rows
    return float(min(across, down))


def _text(out: np.ndarray, text: str, at: tuple[int, int], scale: float, colour: tuple[int, int, int], px: int,
          centred: bool = False) -> tuple[int, int]:
    """Text with a dark outline (readable on any board); its width and height."""
    thick = max(1, round(px * scale))
    (w, h), _ = cv2.getTextSize(text, FONT, scale, thick)
    x, y = (at[0] - w // 2, at[1] + h // 2) if centred else at
    cv2.putText(out, text, (x, y), FONT, scale, (0, 0, 0), thick + 2 * px, cv2.LINE_AA)
    cv2.putText(out, text, (x, y), FONT, scale, colour, thick, cv2.LINE_AA)
    return w, h


def _letter(out: np.ndarray, letter: str, centre: np.ndarray, height: float, px: int) -> None:
    """A tile's letter. OpenCV's fonts are ASCII: a letter with a diacritic (Ä, Ö, Ü) is drawn
    as its base letter with its marks as dots or a bar above, enough to tell Ä from A."""
    base = unicodedata.normalize("NFD", letter)
    plain = "".join(ch for ch in base if not unicodedata.combining(ch)) or "?"
    marks = [ch for ch in base if unicodedata.combining(ch)]
    scale = max(0.3, height / 22.0)
    w, h = _text(out, plain, _pt(centre), scale, LETTER, px, centred=True)
    if marks:
        y = int(centre[1] - h * 0.5 - max(2, h * 0.25))
        r = max(1, round(h * 0.1))
        for dx in (-w * 0.25, w * 0.25):
            cv2.circle(out, (int(centre[0] + dx), y), r + px, (0, 0, 0), -1, cv2.LINE_AA)
            cv2.circle(out, (int(centre[0] + dx), y), r, LETTER, -1, cv2.LINE_AA)


def _edge_names(out: np.ndarray, location: GridLocation, square: float, px: int) -> None:
    """Row numbers left of the grid and column letters above it: row 1 is the top edge."""
    scale = max(0.3, square / 60.0)
    for r in range(location.rows):
        p = location.to_image(np.array([[-0.45, r + 0.5]]))[0]
        _text(out, str(r + 1), _pt(p), scale, LABEL, px, centred=True)
    for c in range(location.cols):
        p = location.to_image(np.array([[c + 0.5, -0.4]]))[0]
        _text(out, column_name(c), _pt(p), scale, LABEL, px, centred=True)


def _caption(out: np.ndarray, text: str, px: int, colour: tuple[int, int, int]) -> None:
    """The line of figures along the bottom of the frame, on black (the board's top edge
    carries the column names)."""
    scale = max(0.5, out.shape[1] / 1600)
    thick = max(1, round(px * scale))
    (w, h), base = cv2.getTextSize(text, FONT, scale, thick)
    y = out.shape[0] - 8 * px
    cv2.rectangle(out, (0, y - h - 8 * px), (w + 16 * px, out.shape[0]), (0, 0, 0), -1)
    _text(out, text, (8 * px, y - base // 2), scale, colour, px)


def write_image(path: Path, image: np.ndarray) -> None:
    """``image`` to ``path`` (PNG, or JPEG by the suffix), replaced whole: a viewer that reloads
    the file while ``look`` rewrites it never sees half a picture."""
    suffix = path.suffix.lower()
    if suffix not in (".png", ".jpg", ".jpeg"):
        raise CompanionError(f"{path}: the picture is written as .png or .jpg, not {path.suffix or 'no suffix'}")
    ok, data = cv2.imencode(suffix, image)
    if not ok:
        raise CompanionError(f"{path}: OpenCV could not encode the picture")
    try:
        write_atomic(path, data.tobytes())
    except OSError as exc:
        raise CompanionError(f"{path}: cannot write ({exc.strerror or exc})") from None


def read_and_draw(image: np.ndarray, **read: Any) -> tuple[np.ndarray, BoardReading | None]:
    """Read ``image`` as the table does (``read``: :func:`read_board`'s options) and draw what
    was found; no board is a picture saying so, and no reading."""
    from companion.vision.grid import NoBoardFound
    from companion.vision.reader import read_board

    try:
        reading = read_board(image, **read)
    except NoBoardFound as exc:
        return draw_nothing_found(image, str(exc)), None
    return draw_reading(image, reading), reading


class LatestView:
    """What the table last saw, for the organiser's camera view on the page: wraps the table's
    ``analyse`` (frame -> reading, seen) and keeps each board's latest frame and reading. The
    table reads the camera only when a button is pressed, so the view is the picture behind the
    last reading; the page asks for it again every few seconds."""

    MAX_WIDTH = 1280  # a phone's screen; a full 2304 px frame costs time to encode and send

    def __init__(self) -> None:
        import threading

        self._lock = threading.Lock()
        self._latest: dict[int, tuple[np.ndarray, BoardReading]] = {}

    def wrap(self, board: int, analyse: Any) -> Any:
        def seen(frame: Any) -> Any:
            reading, more = analyse(frame)
            with self._lock:
                self._latest[board] = (frame.image, reading)
            return reading, more

        return seen

    def jpeg(self, board: int = 0) -> bytes | None:
        """The latest frame of ``board`` with its reading drawn over it, as a JPEG; None before
        the first reading."""
        with self._lock:
            latest = self._latest.get(board)
        if latest is None:
            return None
        picture = draw_reading(*latest)
        if picture.shape[1] > self.MAX_WIDTH:
            scale = self.MAX_WIDTH / picture.shape[1]
            picture = cv2.resize(picture, (self.MAX_WIDTH, round(picture.shape[0] * scale)), interpolation=cv2.INTER_AREA)
        ok, data = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 85])
        return data.tobytes() if ok else None
