"""The copy of a photo the grid finder measures in, and the board seen through a guessed grid.

A :class:`Probe` holds the photo shrunk to about :data:`WORK_CELL_PX` pixels per square, each
channel stretched to its robust range, and the typical line response of its texture. Every
measurement the finder makes (where a grid line lies, whether a line is there at all, the
colour of a square) is taken from a *view*: the probe warped through the guessed grid so that
grid lines become rows and columns of pixels, an even number of pixels per square. A profile
across a line is then a slice of that view, and averaging along the line a sum of rows: one
warp per question instead of a projected coordinate per sample.
"""

from __future__ import annotations

import cv2
import numpy as np

WORK_CELL_PX = 24.0  # pixels per square in the copy measurements are taken in
MAX_VIEW_CELL_PX = 4 * int(WORK_CELL_PX)  # pixels per square of a view through a grid, at most
LINE_WIDTH = 0.09  # distance (squares) from a line to the flanks it is compared with: past its edge
LINE_SNR = 3.0  # a line answers this many times the typical texture response
ALONG_STEP = 0.08  # profiles averaged along a line lie this far apart (squares)


def project(h: np.ndarray, gx: np.ndarray, gy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Grid points to image pixels through the homography ``h``."""
    w = h[2, 0] * gx + h[2, 1] * gy + h[2, 2]
    return (h[0, 0] * gx + h[0, 1] * gy + h[0, 2]) / w, (h[1, 0] * gx + h[1, 1] * gy + h[1, 2]) / w


def cell_px(h: np.ndarray, rows: int, cols: int) -> float:
    """Mean side of a square in the image, over the four grid edges."""
    cx, cy = project(h, np.array([0.0, cols, cols, 0.0]), np.array([0.0, 0.0, rows, rows]))
    sides = np.hypot(np.diff(np.append(cx, cx[0])), np.diff(np.append(cy, cy[0])))
    return float((sides[0] + sides[2]) / (2 * cols) + (sides[1] + sides[3]) / (2 * rows)) / 2


def shift(h: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """The grid moved by ``(dx, dy)`` squares: its square (x, y) is the old (x + dx, y + dy)."""
    return h @ np.array([[1.0, 0, dx], [0, 1.0, dy], [0, 0, 1.0]])


def shrink(image: np.ndarray, longest: int) -> np.ndarray:
    """A copy about ``longest`` pixels across: halvings by Gaussian pyramid while the image is
    over 1.25 times that, then an area resize if still over. The pyramid costs more than
    averaging 2 x 2 pixels but smooths more: lines are then located more precisely (by a
    third, on rendered boards)."""
    small = image
    while max(small.shape[:2]) > 1.25 * longest:
        small = cv2.pyrDown(small)
    if max(small.shape[:2]) > longest * 1.01:
        f = longest / max(small.shape[:2])
        size = (max(1, round(small.shape[1] * f)), max(1, round(small.shape[0] * f)))
        small = cv2.resize(small, size, interpolation=cv2.INTER_AREA)
    return small


def probe_source(image: np.ndarray, cell: float, copy: tuple[np.ndarray, float] | None) -> tuple[str, int]:
    """What a :class:`Probe` for squares of ``cell`` pixels is made from: the shrunk ``copy``
    (near enough the scale wanted), the image shrunk to that many pixels across, or the image
    itself. Two probes of one image from the same source are the same."""
    f = min(1.0, WORK_CELL_PX / max(cell, 1e-6))
    if copy is not None and 0.75 <= copy[1] / f <= 1.5:
        return ("copy", 0)
    if f < 0.95:
        return ("shrink", round(max(image.shape[:2]) * f))
    return ("image", 0)


_TRANSPOSE = np.array([[0.0, 1, 0], [1, 0, 0], [0, 0, 1]])


class Probe:
    """The photo at about :data:`WORK_CELL_PX` pixels per square, in four channels (blue,
    green, red, grey): red lines on pink squares vanish in red and in grey but not in green,
    faint lines on a pale board show best in grey, so the channel that shows the lines best is
    chosen per board. ``copy``: an already shrunk copy and its scale, used when near enough
    the scale wanted."""

    def __init__(self, image: np.ndarray, cell: float, copy: tuple[np.ndarray, float] | None = None) -> None:
        source = probe_source(image, cell, copy)
        if source[0] == "copy":
            assert copy is not None
            small, self.f = copy[0], copy[1]
        elif source[0] == "shrink":
            small = shrink(image, source[1])
            self.f = small.shape[1] / image.shape[1]
        else:
            small, self.f = image, 1.0
        if small.ndim == 2:
            small = small[:, :, None]
        else:
            small = cv2.merge([*cv2.split(small), cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)])
        self.channels = small.shape[2]
        self.shape = small.shape[:2]
        # Stretch each channel's robust range to 0..255 (one table lookup): line thresholds
        # then mean the same on a dim photo as on a bright one.
        sub = small[:: max(1, small.shape[0] // 96), :: max(1, small.shape[1] // 96)].reshape(-1, self.channels)
        i_lo, i_hi = int(0.02 * (len(sub) - 1)), int(round(0.98 * (len(sub) - 1)))
        part = np.partition(sub, (i_lo, i_hi), axis=0)
        lo, hi = part[i_lo].astype(np.float64), part[i_hi].astype(np.float64)
        gain = 255.0 / np.maximum(hi - lo, 8.0)
        table = ((np.arange(256.0)[:, None] - lo[None, :]) * gain[None, :]).astype(np.float32)
        if self.channels == 1:
            self.img = cv2.LUT(small[:, :, 0], table[:, 0])[:, :, None]
        else:
            self.img = cv2.LUT(small, table.reshape(256, 1, self.channels))
        self.noise = self._noise()
        self._planes: dict[int, np.ndarray] = {}

    def plane(self, channel: int) -> np.ndarray:
        """One channel of :attr:`img`, contiguous: OpenCV copies a strided channel on every
        warp, and most warps of a search read the same channel."""
        if channel not in self._planes:
            self._planes[channel] = np.ascontiguousarray(self.img[:, :, channel])
        return self._planes[channel]

    def _noise(self) -> np.ndarray:
        """The typical line response of plain texture, per channel: most pixels are not on a
        line, so the median over a sample of the image is the noise a line must stand out of.
        Rows are averaged in fives as profiles are averaged along their lines."""
        d = max(1, round(LINE_WIDTH * WORK_CELL_PX))
        a = max(1, round(ALONG_STEP * WORK_CELL_PX))
        height, width = self.shape
        if height <= 4 * a + 1 or width <= 2 * d + 1:
            return np.ones(self.channels, np.float32)
        # About 48 rows and 96 columns: a median needs no more.
        top = np.arange(0, height - 4 * a, max(1, height // 48))
        rows = self.img[top].copy()
        for j in range(1, 5):
            rows += self.img[top + j * a]
        rows /= 5
        c = np.arange(d, width - d, max(1, width // 96))
        resp = np.abs(rows[:, c] - 0.5 * (rows[:, c - d] + rows[:, c + d])).reshape(-1, self.channels)
        mid = (len(resp) - 1) // 2
        return np.partition(resp, mid, axis=0)[mid]

    def threshold(self, channel: int) -> float:
        """The line response that stands clearly out of the texture of this channel."""
        return LINE_SNR * float(self.noise[channel]) + 2.0

    def px(self, h: np.ndarray, rows: int, cols: int) -> int:
        """Pixels per square (even, so that half lines fall on pixels) of views through ``h``."""
        cell = cell_px(h, rows, cols) * self.f
        # (At most a few times the working resolution: a grid gone wrong, its squares of
        # thousands of pixels, must not size a view of gigabytes.)
        return int(np.clip(2 * round(cell / 2), 4, MAX_VIEW_CELL_PX))

    def view(
        self, h: np.ndarray, x0: float, y0: float, width: int, height: int, px: int, channel: int | None,
        transpose: bool = False,
    ) -> np.ndarray:
        """The board through ``h`` (grid -> original image pixels): pixel (i, j) of the view
        (height x width) shows grid point (x0 + j / px, y0 + i / px), or with ``transpose``
        (y0 + i / px, x0 + j / px); NaN outside the image. One channel, or all (last axis)."""
        hw = np.diag([self.f, self.f, 1.0]) @ h
        if transpose:
            hw = hw @ _TRANSPOSE
        to_grid = np.array([[1.0 / px, 0, x0], [0, 1.0 / px, y0], [0, 0, 1]])
        src = self.img if channel is None else self.plane(channel)
        out = cv2.warpPerspective(
            src, hw @ to_grid, (width, height), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_CONSTANT, borderValue=(np.nan,) * 4,
        )
        if channel is None and out.ndim == 2:
            out = out[:, :, None]
        return out

    def board_view(
        self, h: np.ndarray, px: int, lo: float, hi: float, channel: int | None, lo_y: float | None = None,
        hi_y: float | None = None,
    ) -> "BoardView":
        """A view of grid x in [lo, hi] and y in [lo_y, hi_y] (default the same), ``px``
        pixels per square, its origin on a whole pixel of the grid's lattice."""
        lo_y = lo if lo_y is None else lo_y
        hi_y = hi if hi_y is None else hi_y
        x0, y0 = np.floor(lo * px) / px, np.floor(lo_y * px) / px
        width = int(np.ceil((hi - x0) * px)) + 2
        height = int(np.ceil((hi_y - y0) * px)) + 2
        arr = self.view(h, x0, y0, width, height, px, channel)
        if arr.ndim == 2:
            arr = arr[:, :, None]
        return BoardView(arr, x0, y0, px, channel is not None)


class BoardView:
    """The board seen through a grid: ``arr[i, j]`` shows grid point (x0 + j / px, y0 + i / px)."""

    def __init__(self, arr: np.ndarray, x0: float, y0: float, px: int, single: bool) -> None:
        self.arr, self.x0, self.y0, self.px, self.single = arr, x0, y0, px, single

    def profiles(
        self, family: int, ks: np.ndarray, ts: np.ndarray, half: int, along: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Profiles across lines ``x = k`` (family 0) or ``y = k`` (family 1), (len(ks),
        len(ts), 2 * half + 1[, channels]): at each position ``t`` along the line, the mean of
        the profiles at ``t + along``, ``half`` pixels (1 / px squares each) either side of
        the line; and whether each lies wholly inside the image and the view. Lines and
        positions fall on the nearest pixel."""
        px = self.px
        arr = self.arr if family == 0 else self.arr.transpose(1, 0, 2)
        across0, along0 = (self.x0, self.y0) if family == 0 else (self.y0, self.x0)
        n_along, n_across = arr.shape[:2]
        cols = np.rint((np.asarray(ks, np.float64) - across0) * px).astype(int)
        offsets = np.rint(np.asarray(along) * px).astype(int)
        rows = np.rint((np.asarray(ts, np.float64) - along0) * px).astype(int)
        idx = cols[:, None] + np.arange(-half, half + 1)[None, :]
        ok_c = (idx.min(1) >= 0) & (idx.max(1) < n_across)
        ok_r = (rows + offsets.min() >= 0) & (rows + offsets.max() < n_along)
        idx = np.minimum(np.maximum(idx, 0), n_across - 1)  # (np.clip's overhead: most of its cost here)
        acc = None
        for o in offsets:
            part = arr[np.minimum(np.maximum(rows + o, 0), n_along - 1)]
            acc = part.copy() if acc is None else acc.__iadd__(part)
        assert acc is not None
        acc /= len(offsets)
        prof = np.moveaxis(acc[:, idx], 0, 1)  # (T, W, C) -> (K, T, S, C)
        inside = ok_c[:, None] & ok_r[None, :]
        off_image = np.isnan(acc).any(-1)  # (T, W): NaN only where the view left the image
        if off_image.any():
            inside &= ~off_image[:, idx].any(-1).T
        if self.single:
            prof = prof[..., 0]
        return prof, inside


class Probes:
    """The probes of one image, each made once: the finder's guesses of one search mostly have
    squares of about the same size, and a probe (a shrink, four channels stretched, the texture's
    noise) is made from its source alone (:func:`probe_source`). A probe is not changed by its
    use (its planes are a cache of its own pixels), so guesses may share one."""

    def __init__(self, image: np.ndarray, copy: tuple[np.ndarray, float] | None = None) -> None:
        self.image, self.copy = image, copy
        self._made: dict[tuple[str, int], Probe] = {}

    def __call__(self, cell: float) -> Probe:
        key = probe_source(self.image, cell, self.copy)
        if key not in self._made:
            self._made[key] = Probe(self.image, cell, self.copy)
        return self._made[key]
