"""How high a camera must hang above the board, and how many pixels a square then gets.

A camera looking straight down from height ``h`` sees ``2 h tan(fov / 2)`` along each axis of
its image. The board (plus a margin for the grid finder and a hand's shadow) must fit along
both axes, so the height is set by the narrower field of view; the pixels a square gets are
the sensor mode's pixels over the ground each axis covers, the smaller of the two. A lens that
is only sold by its diagonal field of view is split into horizontal and vertical fields by its
aspect ratio (``tan`` of the half angles in proportion to the sides, as for a rectilinear lens).

hardware/README.md's camera table is :func:`camera_table`'s output; a test keeps them equal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

BOARD_MM = 370  # a standard board, edge to edge
MARGIN_MM = 30  # seen beyond each edge
SQUARE_MM = 19  # a 15x15 board's square on a 37 cm board (the renderer's tiles assume the same)
READER_PX = 48  # pixels per square the board reader rectifies to (vision/cells/geometry.py CELL_PX)


@dataclass(frozen=True)
class Camera:
    name: str
    hfov_deg: float
    vfov_deg: float
    modes: tuple[tuple[int, int], ...]  # sensor modes worth using, width x height


def split_diagonal(dfov_deg: float, aspect_w: int, aspect_h: int) -> tuple[float, float]:
    """Horizontal and vertical field of view of a rectilinear lens known by its diagonal."""
    t = math.tan(math.radians(dfov_deg) / 2) / math.hypot(aspect_w, aspect_h)
    return (2 * math.degrees(math.atan(t * aspect_w)), 2 * math.degrees(math.atan(t * aspect_h)))


def height_mm(camera: Camera, field_mm: float = BOARD_MM + 2 * MARGIN_MM) -> float:
    """The lowest lens height at which a square ``field_mm`` across fills neither axis beyond."""
    return field_mm / (2 * math.tan(math.radians(min(camera.hfov_deg, camera.vfov_deg)) / 2))


def px_per_square(camera: Camera, mode: tuple[int, int], height: float, square_mm: float = SQUARE_MM) -> float:
    ground_w = 2 * height * math.tan(math.radians(camera.hfov_deg) / 2)
    ground_h = 2 * height * math.tan(math.radians(camera.vfov_deg) / 2)
    return min(mode[0] / ground_w, mode[1] / ground_h) * square_mm


_WEBCAM_H, _WEBCAM_V = split_diagonal(70, 16, 9)
CAMERAS = (
    Camera("Camera Module 3 (standard)", 66, 41, ((4608, 2592), (2304, 1296))),
    Camera("Camera Module 3 Wide", 102, 67, ((4608, 2592), (2304, 1296))),
    # Assumed: 70 degrees diagonal, 16:9, a 1080p sensor (a typical USB webcam's datasheet).
    Camera("USB webcam (70° diagonal, 16:9)", _WEBCAM_H, _WEBCAM_V, ((1920, 1080), (1280, 720))),
)


def camera_table(board_mm: float = BOARD_MM, margin_mm: float = MARGIN_MM) -> str:
    """The README's table: height, ground covered and pixels per square for each camera."""
    field = board_mm + 2 * margin_mm
    rows = [
        "| camera | field of view (h x v) | lens height | ground seen | mode | px per square |",
        "|---|---|---|---|---|---|",
    ]
    for cam in CAMERAS:
        h = height_mm(cam, field)
        gw = 2 * h * math.tan(math.radians(cam.hfov_deg) / 2)
        gh = 2 * h * math.tan(math.radians(cam.vfov_deg) / 2)
        for i, mode in enumerate(cam.modes):
            px = px_per_square(cam, mode, h)
            ok = "" if px >= READER_PX else " (below 48)"
            head = (
                f"| {cam.name} | {cam.hfov_deg:.1f}° x {cam.vfov_deg:.1f}° | {h / 10:.1f} cm | "
                f"{gw / 10:.0f} x {gh / 10:.0f} cm |"
                if i == 0 else "| | | | |"
            )
            rows.append(f"{head} {mode[0]}x{mode[1]} | {math.floor(px)}{ok} |")
    return "\n".join(rows)


# What `companion run` asks of a camera by default ([camera] in the configuration): the table's
# live-play modes (a Camera Module 3's 2304x1296: 57 px a square, fast; a webcam's 1080p, since
# OpenCV's own 640x480 gives the grid finder about 15 px a square) and, for a Camera Module 3 with
# its autofocus, the lens fixed at the standard module's height (autofocus hunts when a hand
# passes). A Wide module hangs at its own height: focus_cm = 32.5.
LIVE_SIZE = {"picamera2": CAMERAS[0].modes[1], "device": CAMERAS[2].modes[0]}
FOCUS_CM = round(height_mm(CAMERAS[0]) / 10, 1)
