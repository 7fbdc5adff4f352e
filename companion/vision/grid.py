"""Where the playing grid lies in an image, and the board seen from straight above.

A :class:`GridLocation` maps grid coordinates to image pixels: ``(x, y)`` in squares, ``x``
along a row from the left edge of column 0, ``y`` down from the top edge of row 0, so that the
grid's outer corners are ``(0, 0)``, ``(cols, 0)``, ``(cols, rows)`` and ``(0, rows)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.errors import CompanionError


class NoBoardFound(CompanionError):
    """The image holds no board grid the finder can see."""


@dataclass(frozen=True, eq=False)
class GridLocation:
    rows: int
    cols: int
    homography: np.ndarray  # 3x3, grid squares -> image pixels
    score: float = 1.0  # the finder's belief that this is the grid, 0..1

    def to_image(self, points: np.ndarray) -> np.ndarray:
        """Grid coordinates (N, 2) to image pixels (N, 2)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)

    def to_grid(self, points: np.ndarray) -> np.ndarray:
        """Image pixels (N, 2) to grid coordinates (N, 2)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.homography)).reshape(-1, 2)

    @property
    def corners(self) -> np.ndarray:
        """The grid's outer corners in the image: top-left, top-right, bottom-right, bottom-left."""
        return self.to_image(np.array([[0, 0], [self.cols, 0], [self.cols, self.rows], [0, self.rows]], float))

    @classmethod
    def from_corners(cls, corners: np.ndarray, rows: int = 15, cols: int = 15, score: float = 1.0) -> "GridLocation":
        src = np.array([[0, 0], [cols, 0], [cols, rows], [0, rows]], np.float64)
        dst = np.asarray(corners, np.float64).reshape(4, 2)
        return cls(rows, cols, cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)), score)


def rectify(image: np.ndarray, location: GridLocation, cell_px: int = 48, margin: float = 0.5) -> np.ndarray:
    """The board seen from straight above: square ``(r, c)`` covers pixels
    ``[(margin + r) * cell_px, (margin + r + 1) * cell_px)`` down and likewise across, with
    ``margin`` squares of the image kept around the grid (tiles at the edge overhang it)."""
    size_x = int(round((location.cols + 2 * margin) * cell_px))
    size_y = int(round((location.rows + 2 * margin) * cell_px))
    # Rectified pixel -> grid square -> image pixel.
    to_grid = np.array([[1 / cell_px, 0, -margin], [0, 1 / cell_px, -margin], [0, 0, 1]], np.float64)
    m = location.homography @ to_grid
    return cv2.warpPerspective(
        image, m, (size_x, size_y), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
    )
