"""Where the playing grid lies in an image, and the board seen from straight above.

A :class:`GridLocation` maps grid coordinates to image pixels: ``(x, y)`` in squares, ``x``
along a row from the left edge of column 0, ``y`` down from the top edge of row 0, so that the
grid's outer corners are ``(0, 0)``, ``(cols, 0)``, ``(cols, rows)`` and ``(0, rows)``.

:func:`locate_grid` finds the grid in a photo without markers:

1. Coarse (on a copy 384 pixels across, halved by Gaussian pyramid): line segments (LSD), the
   pencils of lines that meet in the grid's vanishing points, and along each rectified axis
   the run of ``n + 1`` equally spaced lines best supported (:mod:`companion.vision.lines`).
   The strongest pair of pencils is tried first; a striped table can take that place (a
   checked cloth both places of the first pair), so the next pairs follow when the first does
   not verify: the premium squares and the lines' fit judge each, and a cloth has neither.
2. Refine (on a copy with about 24 pixels per square): across every grid line, at one or two
   places per square, the profile of the image is searched for a thin line, darker or lighter
   than the flanks either side (whichever the board shows, in the colour channel that shows it
   best: red lines on pink squares vanish in grey); each line found is one point-on-line
   constraint, and the homography is refitted to all of them by iteratively reweighted least
   squares (Tukey), so that lines hidden under tiles, tile edges and print weigh nothing. Once
   the grid is close, lines beside squares that hold something are left out while enough of
   the board's own remain: the gap between two tiles is a line too, but at the height of
   their faces, displaced in an oblique view.
3. Extent: the coarse run may be off by whole squares (the letter table in a board's band can
   pass for columns). The classic premium squares (:mod:`companion.core.board`) settle it when
   their colours fit the layout clearly at one shift of up to four squares; otherwise the
   window of ``rows x cols`` squares holding the most grid-line pieces wins. Then the
   refinement again, with windows narrowing from 0.4 to 0.05 of a square, and the layout is
   checked once more on the fitted grid.
4. Verify: ``score`` (0..1, :func:`_score`) compares the lines seen where the fit puts them
   with those seen through the squares' middles and beyond the grid; premium squares where
   the layout puts them vouch for a board whose lines are hidden under tiles. A score under
   :data:`GOOD_SCORE` sends the search on (the next pair of pencils, then a copy 1024 pixels
   across for a board small in a phone photo, then on each copy in turn the wider search:
   pairs of pencils refitted to their segments that meet, for a table's stripes pulling a
   vanishing point off the board's); the best is kept, and under :data:`MIN_SCORE` the image
   is refused with :class:`NoBoardFound`.
5. Lens (:mod:`companion.vision.lens`): a wide lens bends the board's lines, and a homography
   fitted to all of them is right in the middle and a fifth to a third of a square off at
   the far corners. The lines are sought once more, wider, and the homography refitted
   through each barrel term of a range; a term that brings them clearly nearer their lines
   and moves a corner by more than a tenth of a square is kept (``GridLocation.lens``):
   ``to_image``, ``to_grid`` and :func:`rectify` then go through it. On the real photos here
   the lines are straight enough that no lens is kept.

The search ends on a grid both the lines and the layout vouch for (:func:`_verified`); one
only the lines vouch for is held while the search goes on, and only a verified grid with
lines as clear replaces it.

Orientation (the board-reading contract): corners are top-left, top-right, bottom-right,
bottom-left of the board as it lies; row 0 is the grid edge nearest the top of the image, col 0
the edge nearest its left. A photo is never mirrored, so once the top edge is chosen the rest
follows. The top edge is the one whose two corners have the smallest mean y. A board turned
by about 45 degrees has two edges nearly as high: the rule stays the same (smallest mean y,
and on an exact tie the edge with the smaller mean x, i.e. the upper-left edge, so the left
corner of the diamond becomes top-left); it flips between the two as the board turns through
45 degrees, which no rule on one image can avoid. A mounted camera keeps the orientation of
its profile: with a ``hint`` the corners are labelled as the hint's nearest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import cv2
import numpy as np

from companion.core.errors import CompanionError
from companion.vision.frame import frame_lattices, holds
from companion.vision.layout import cell_colours, layout_shift
from companion.vision.lens import Lens, fit_lens
from companion.vision.lines import coarse_lattices, coarse_min_length, detect_segments
from companion.vision.probe import Probe, Probes, cell_px, project, shift, shrink
from companion.vision.refine import Look, find_lines, fit_rigid, refine
from companion.vision.score import EXTENT_MARGIN, extent, score

COARSE_TRIES = (384, 1024)  # longest side of the copies the coarse search runs on, in turn
LSD_SHARE = 0.85
GOOD_SCORE = 0.7  # a fit this good ends the search
MIN_SCORE = 0.3  # below this the image holds no grid the finder believes in
LINES_TO_STOP = 0.5  # the search ends on a good score only when the lines alone score this
LINES_ALONE = 0.9  # ... and, unless they score this, when the premium layout agrees this surely
LAYOUT_AGREES = 0.1
# Windows (squares either side of a line's predicted place) the refinement searches in turn:
# wide first, since the coarse grid can be a third of a square off in a far corner, then,
# once the extent is settled, narrowing onto the lines.
FIRST_WINDOW = 0.3
SHIFTED_WINDOW = 0.4
REFINE_WINDOWS = (0.2, 0.1, 0.05)
HINT_WINDOWS = (0.3, 0.15, 0.08, 0.05)  # a mounted camera's grid is a fraction of a square off
HINT_MOVE = 0.5  # squares: a refined hint that moved farther followed something else


class NoBoardFound(CompanionError):
    """The image holds no board grid the finder can see."""


@dataclass(frozen=True, eq=False)
class GridLocation:
    rows: int
    cols: int
    homography: np.ndarray  # 3x3, grid squares -> image pixels
    score: float = 1.0  # the finder's belief that this is the grid, 0..1
    # The camera's lens bends the board's lines: ``homography`` then maps the grid to where a
    # perfect lens would have put it, and the lens from there to the photo (lens.py).
    lens: Lens | None = None

    def to_image(self, points: np.ndarray) -> np.ndarray:
        """Grid coordinates (N, 2) to image pixels (N, 2)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
        out = cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)
        return out if self.lens is None else self.lens.distort(out)

    def to_grid(self, points: np.ndarray) -> np.ndarray:
        """Image pixels (N, 2) to grid coordinates (N, 2)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        if self.lens is not None:
            pts = self.lens.undistort(pts)
        return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), np.linalg.inv(self.homography)).reshape(-1, 2)

    @property
    def corners(self) -> np.ndarray:
        """The grid's outer corners in the image: top-left, top-right, bottom-right, bottom-left."""
        return self.to_image(np.array([[0, 0], [self.cols, 0], [self.cols, self.rows], [0, self.rows]], float))

    def moved_from(self, other: "GridLocation") -> float:
        """How far this grid lies from ``other``: the largest move of a corner, in ``other``'s
        squares."""
        ideal = np.array([[0, 0], [other.cols, 0], [other.cols, other.rows], [0, other.rows]], float)
        return float(np.abs(other.to_grid(self.corners) - ideal).max())

    @classmethod
    def from_corners(cls, corners: np.ndarray, rows: int = 15, cols: int = 15, score: float = 1.0) -> "GridLocation":
        src = np.array([[0, 0], [cols, 0], [cols, rows], [0, rows]], np.float64)
        dst = np.asarray(corners, np.float64).reshape(4, 2)
        return cls(rows, cols, cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)), score)

    def out_of_view(self, shape: tuple[int, ...], samples: int = 4) -> np.ndarray:
        """(rows, cols): the share of each square that lies outside a photo of ``shape``
        (height, width, ...), from ``samples`` x ``samples`` points spread over it. A photo may
        cut a board's far rows off; what lies there was never seen."""
        t = (np.arange(samples) + 0.5) / samples
        gx, gy = np.meshgrid((np.arange(self.cols)[:, None] + t).ravel(), (np.arange(self.rows)[:, None] + t).ravel())
        x, y = self.to_image(np.column_stack((gx.ravel(), gy.ravel()))).T
        x, y = x.reshape(gx.shape), y.reshape(gy.shape)
        height, width = shape[:2]
        outside = ~((x >= 0) & (x < width) & (y >= 0) & (y < height))
        return outside.reshape(self.rows, samples, self.cols, samples).mean((1, 3))

    def scaled(self, factor: float) -> "GridLocation":
        """The same grid in a copy of the image resized by ``factor``."""
        return self.moved(np.diag([factor, factor, 1.0]))

    def moved(self, m: np.ndarray) -> "GridLocation":
        """The same grid in a copy of the image scaled and moved by the affine ``m`` (3 x 3, one
        scale on both axes: a resized copy)."""
        lens = None if self.lens is None else self.lens.moved(m)
        return GridLocation(self.rows, self.cols, m @ self.homography, self.score, lens)


def rectify(image: np.ndarray, location: GridLocation, cell_px: int = 48, margin: float = 0.5) -> np.ndarray:
    """The board seen from straight above: square ``(r, c)`` covers pixels
    ``[(margin + r) * cell_px, (margin + r + 1) * cell_px)`` down and likewise across, with
    ``margin`` squares of the image kept around the grid (tiles at the edge overhang it)."""
    size_x = int(round((location.cols + 2 * margin) * cell_px))
    size_y = int(round((location.rows + 2 * margin) * cell_px))
    # Rectified pixel -> grid square -> image pixel.
    to_grid = np.array([[1 / cell_px, 0, -margin], [0, 1 / cell_px, -margin], [0, 0, 1]], np.float64)
    m = location.homography @ to_grid
    if location.lens is None:
        return cv2.warpPerspective(
            image, m, (size_x, size_y), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
        )
    # Through the lens: every rectified pixel's place in the photo, computed on a coarse
    # lattice (the map is smooth over a few pixels) and interpolated.
    step = 4
    xs, ys = np.arange(0, size_x + step, step, dtype=np.float64), np.arange(0, size_y + step, step, dtype=np.float64)
    gx, gy = np.meshgrid(xs, ys)
    x, y = project(m, gx.ravel(), gy.ravel())
    d = location.lens.distort(np.column_stack((x, y))).astype(np.float32)
    coarse = d.reshape(len(ys), len(xs), 2)
    # Coarse pixel j lies at fine pixel step * j: resizing by `step` with the corners aligned.
    fine = _upsample(coarse, step)[:size_y, :size_x]
    return cv2.remap(image, fine[..., 0], fine[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _upsample(coarse: np.ndarray, step: int) -> np.ndarray:
    """A map sampled every ``step`` pixels (its points at 0, step, 2 step, ...) at every
    pixel, by bilinear blending of the four coarse points round each."""
    n_y, n_x = coarse.shape[:2]
    t = (np.arange(step, dtype=np.float32) / step)
    # Along x: each coarse cell's step pixels between its two ends.
    left, right = coarse[:, :-1], coarse[:, 1:]
    row = (left[:, :, None] * (1 - t)[None, None, :, None] + right[:, :, None] * t[None, None, :, None])
    row = np.concatenate((row.reshape(n_y, (n_x - 1) * step, 2), coarse[:, -1:]), axis=1)
    top, bottom = row[:-1], row[1:]
    out = top[:, None] * (1 - t)[None, :, None, None] + bottom[:, None] * t[None, :, None, None]
    return np.concatenate((out.reshape((n_y - 1) * step, -1, 2), row[-1:]), axis=0)


# --- finding -----------------------------------------------------------------------------


def _orient(h: np.ndarray, rows: int, cols: int, hint: GridLocation | None) -> np.ndarray:
    """The same grid relabelled to the contract's orientation (see the module docstring)."""
    grid = np.array([[0, 0], [cols, 0], [cols, rows], [0, rows]], np.float64)
    x, y = project(h, grid[:, 0], grid[:, 1])
    img = np.column_stack((x, y))
    # Shoelace area: the grid's corner order is clockwise on screen (y down); a homography
    # found from lines alone may have mirrored it.
    area = np.sum(img[:, 0] * np.roll(img[:, 1], -1) - np.roll(img[:, 0], -1) * img[:, 1])
    if area < 0:
        img = img[[1, 0, 3, 2]]
    turns = [0, 2] if rows != cols else [0, 1, 2, 3]
    cands = [np.roll(img, -r, axis=0) for r in turns]
    if hint is not None:
        ref = hint.corners
        best = min(cands, key=lambda c: float(np.sum((c - ref) ** 2)))
    else:
        best = min(cands, key=lambda c: (round(float(c[0, 1] + c[1, 1]) / 2, 6), float(c[0, 0] + c[1, 0]) / 2))
    return GridLocation.from_corners(best, rows, cols).homography


def locate_grid(image_bgr: np.ndarray, rows: int = 15, cols: int = 15, hint: GridLocation | None = None) -> GridLocation:
    """Where the ``rows x cols`` playing grid lies in ``image_bgr`` (module docstring).

    With ``hint`` (a mounted camera's grid from its profile) the grid is only refined near it,
    and the hint itself comes back (with its score) when the image shows too little of the
    board. Without one, raises :class:`NoBoardFound` when no grid is there."""
    if image_bgr is None or image_bgr.ndim not in (2, 3) or image_bgr.size == 0 or min(image_bgr.shape[:2]) < 16:
        if hint is not None:
            return GridLocation(rows, cols, hint.homography / hint.homography[2, 2], 0.0)
        raise NoBoardFound("no board found: the image is empty or too small")
    image = image_bgr if image_bgr.ndim == 2 or image_bgr.shape[2] == 3 else image_bgr[:, :, :3]
    if image.dtype != np.uint8:
        image = cv2.convertScaleAbs(image)
    if hint is not None:
        return _refine_hint(image, rows, cols, hint)
    best: _Found | None = None
    # A grid only the lines vouch for: it ends the search unless a grid both vouch for turns up.
    held: _Found | None = None
    # Each copy's usual guesses first, smallest copy first; the wider search on each only when
    # none has found the grid (the generators stop at the None between the two and resume).
    tries = [px for k, px in enumerate(COARSE_TRIES) if k == 0 or COARSE_TRIES[k - 1] < max(image.shape[:2])]
    # Each copy made once, whichever searches run on it (the usual, the thin lines', the outline's).
    copies = {px: _Copy(image, px) for px in tries}
    searches = [_attempts(image, rows, cols, px, copy=copies[px]) for px in tries]
    thin = [_attempts(image, rows, cols, px, thin=True, copy=copies[px]) for px in tries]
    done = False
    for phase in ("usual", "thin", "wider"):
        for search in thin if phase == "thin" else searches:
            for found in search:
                if found is None:
                    break
                if held is not None:
                    # Only a grid the layout agrees with, its lines as clear, replaces it.
                    done = _verified(found) and found.lines >= held.lines
                    if done:
                        best = found
                        break
                    continue
                if best is None or (found.score, found.lines) > (best.score, best.lines):
                    best = found
                # The layout alone does not end the search: it can vouch for a grid that is
                # right over most of the board but a square off at its far end.
                if best.score >= GOOD_SCORE and best.lines >= LINES_TO_STOP:
                    done = _verified(best)
                    if not done:
                        held = best
                if done:
                    break
            if done:
                break
        if done:
            break
    if held is not None and not done:
        best = held
    if best is None or best.score < MIN_SCORE:
        # The last guesses, from the board's outline (companion/vision/frame.py): only when no
        # other guess found a grid, so that no board found before moves.
        for found in _attempts(image, rows, cols, tries[-1], frame=True, copy=copies[tries[-1]]):
            if found is not None and (best is None or (found.score, found.lines) > (best.score, best.lines)):
                best = found
    if best is None:
        raise NoBoardFound("no board found: no grid of lines in the image")
    found_score, h = best.score, best.h
    if found_score < MIN_SCORE:
        raise NoBoardFound(f"no board found: the best grid of lines fits poorly (score {found_score:.2f})")
    # The lens last: the board's lines, bent where a wide lens bends them, fitted once more.
    lens = None
    fitted = fit_lens(image.shape, best.probe, h, rows, cols)
    if fitted is not None:
        lens, h = fitted
    return GridLocation(rows, cols, _orient(h, rows, cols, None), found_score, lens)


def _verified(found: "_Found") -> bool:
    """Whether both the lines and the premium layout vouch for a grid whose score ends the
    search. Most of a cloth's lattice beside the board can show its lines too (its checks'
    edges, the board's lines where they overlap), but the premium squares then fall where the
    layout puts them no better than by chance (52092's red checks: lines 0.75, the layout's
    sureness 0.03). Nearly all its lines showing, a grid needs no layout."""
    return found.lines >= LINES_ALONE or (found.layout or 0.0) >= LAYOUT_AGREES


def _refine_hint(image: np.ndarray, rows: int, cols: int, hint: GridLocation) -> GridLocation:
    """A mounted camera: refine the profile's grid where it lies (it may have moved a little);
    keep it when the image shows too few lines (a board nearly covered, a hand over it, a dark
    frame). Never raises: the hint with its score is the answer when nothing better shows."""
    h0 = hint.homography / hint.homography[2, 2]
    cell = cell_px(h0, rows, cols) if np.isfinite(h0).all() else 0.0
    if not np.isfinite(cell) or cell < 3 or image is None or image.size == 0 or min(image.shape[:2]) < 16:
        return GridLocation(rows, cols, h0, 0.0)
    probe = Probe(image, cell)
    # A mounted camera drifts by moving and turning: that first (robust to print and tiles,
    # having three unknowns), then the full refit from there.
    lines, look = find_lines(probe, h0, rows, cols, HINT_WINDOWS[0], None, 2)
    rigid = fit_rigid(h0, lines, rows, cols, HINT_WINDOWS[0])
    h, look, lines = refine(probe, rigid, rows, cols, HINT_WINDOWS, look)
    if lines.gaps:
        # Too few of the board's own lines show beside the tiles: the calibrated grid is only
        # moved and turned onto the lines (see refine.fit_rigid), never stretched onto the
        # tiles' gaps.
        lines, _ = find_lines(probe, rigid, rows, cols, HINT_WINDOWS[-1] * 2, look)
        h = fit_rigid(rigid, lines, rows, cols, HINT_WINDOWS[-1] * 2)
    found_score = score(probe, h, rows, cols, look)
    moved = np.abs(_project_corners(h, rows, cols) - _project_corners(h0, rows, cols)).max() / cell
    if found_score < MIN_SCORE or moved > HINT_MOVE:
        score0 = score(probe, h0, rows, cols, look)
        if score0 >= found_score or moved > HINT_MOVE:
            return GridLocation(rows, cols, h0, score0)
    return GridLocation(rows, cols, _orient(h, rows, cols, hint), found_score)


def _project_corners(h: np.ndarray, rows: int, cols: int) -> np.ndarray:
    x, y = project(h, np.array([0.0, cols, cols, 0.0]), np.array([0.0, 0.0, rows, rows]))
    return np.column_stack((x, y))


class _Copy:
    """The photo's copy ``coarse_px`` across that the coarse searches run on, made when first
    asked for and shared by them: the shrunk copy, its grey picture for the segment detector
    (and their scales), the probes of the photo, and the segments of the grey picture."""

    def __init__(self, image: np.ndarray, coarse_px: int) -> None:
        self.image, self.coarse_px = image, coarse_px
        self._made: tuple[np.ndarray, float, np.ndarray, float, Probes] | None = None
        self._segments: np.ndarray | None = None

    def made(self) -> tuple[np.ndarray, float, np.ndarray, float, Probes]:
        """The shrunk copy and its scale, its grey picture and that one's scale, the probes."""
        if self._made is None:
            image, coarse_px = self.image, self.coarse_px
            small = shrink(image, coarse_px)
            k = small.shape[1] / image.shape[1]
            gray = small if small.ndim == 2 else cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
            kg = k
            lsd_px = round(coarse_px * LSD_SHARE)
            if max(gray.shape) > 1.01 * lsd_px:
                f = lsd_px / max(gray.shape)
                size = (max(1, round(gray.shape[1] * f)), max(1, round(gray.shape[0] * f)))
                gray = cv2.resize(gray, size, interpolation=cv2.INTER_AREA)
                kg = gray.shape[1] / image.shape[1]
            self._made = (small, k, gray, kg, Probes(image, (small, k)))
        return self._made

    def segments(self) -> np.ndarray:
        """The grey picture's segments as the pencil search takes them (the outline's search
        takes the longer of them: the detector runs once)."""
        if self._segments is None:
            gray = self.made()[2]
            self._segments = detect_segments(gray, coarse_min_length(gray.shape))
            self._segments.flags.writeable = False  # (shared: no search may change them)
        return self._segments


def _attempts(
    image: np.ndarray, rows: int, cols: int, coarse_px: int, thin: bool = False, frame: bool = False,
    copy: _Copy | None = None,
) -> Iterator["_Found | None"]:
    """Coarse guesses on a copy ``coarse_px`` across, each refined, its extent settled and
    judged, best guess first; a None where the usual guesses end and the wider search begins
    (see :func:`companion.vision.lines.coarse_lattices`). ``frame``: the guesses from the
    board's outline instead (:func:`companion.vision.frame.frame_lattices`). ``copy``: that
    copy, shared with the other searches on it (made here when not given)."""
    copy = _Copy(image, coarse_px) if copy is None else copy
    small, k, gray, kg, probes = copy.made()
    guesses: Iterator[tuple[np.ndarray, np.ndarray | None] | None]
    if frame:
        guesses = frame_lattices(gray, rows, cols, copy.segments())
    else:
        seg = None if thin else copy.segments()
        guesses = (g if g is None else (g, None)
                   for g in coarse_lattices(gray, rows, cols, np.random.default_rng(0), thin, seg))
    for guess in guesses:
        if guess is None:
            yield None
            if thin:
                return
            continue
        coarse, outline = guess
        h = np.diag([1 / kg, 1 / kg, 1.0]) @ coarse
        if not np.isfinite(h).all() or cell_px(h, rows, cols) < 3:
            continue  # squares of a few pixels: no board this finder can read
        probe = probes(cell_px(h, rows, cols))
        look: Look | None
        h, look, _ = refine(probe, h, rows, cols, (FIRST_WINDOW,), None)
        dx, dy, sure = extent(probe, h, rows, cols, look)
        by_layout = sure is not None
        # The grid has had its widest window already. Moved by whole squares, the lines it
        # gained at one end may lie farther off, and the channel is chosen again: the first
        # choice was made on lines that are partly not the board's.
        if (dx, dy) == (0, 0):
            h, look, _ = refine(probe, h, rows, cols, REFINE_WINDOWS, look)
        else:
            h, look, _ = refine(probe, shift(h, dx, dy), rows, cols, (SHIFTED_WINDOW, *REFINE_WINDOWS), None)
        assert look is not None
        placed: tuple[int, int, float] | None
        if sure is not None and sure >= 1.0:
            # The layout placed the grid surely (its colours fit as well as a board's ever do):
            # the refinement since moved it by less than half a square, and the layout says the
            # same of the fitted grid (as it did on every photo and rendered board here).
            placed = (0, 0, sure)
        else:
            # The layout once more on the fitted grid, whose squares' colours are now sampled
            # where they are: as far as the extent was searched when the lines set it, else nearby.
            margin = 2 if by_layout else EXTENT_MARGIN
            placed = layout_shift(cell_colours(probe, h, rows, cols, margin), rows, cols, margin)
        if placed is not None and placed[:2] != (0, 0):
            h, look, _ = refine(probe, shift(h, placed[0], placed[1]), rows, cols, (0.1, 0.06), look)
            placed = layout_shift(cell_colours(probe, h, rows, cols, 2), rows, cols, 2)
        # A grid the layout places is a board's: its lines out of the photo (a crop through
        # the board) are not held against it. Any other grid's lines must show along their
        # length (score.score).
        on_layout = placed is not None and placed[:2] == (0, 0)
        line_score = score(probe, h, rows, cols, look, on_layout)
        if line_score < GOOD_SCORE:
            # Judge in the channel that shows the lines best on the fitted grid: the one
            # chosen on the rough grid can miss them.
            _, best_look = find_lines(probe, h, rows, cols, 0.06, None, 1)
            if best_look != look:
                line_score = score(probe, h, rows, cols, best_look, on_layout)
        if outline is not None and not holds(outline / kg, _project_corners(h, rows, cols), cell_px(h, rows, cols)):
            continue
        found_score = line_score
        if placed is not None and placed[:2] == (0, 0):
            # The premium squares where the layout puts them vouch for a grid whose lines are
            # mostly hidden under tiles.
            found_score = max(found_score, 0.5 + 0.5 * placed[2])
        yield _Found(found_score, h, line_score, placed[2] if on_layout else None, probe)


@dataclass(frozen=True)
class _Found:
    score: float  # the grid's score, the layout's vouching included
    h: np.ndarray
    lines: float  # the score of its lines alone
    layout: float | None  # how surely the layout placed it where it is (None: not there)
    probe: Probe  # the copy of the photo it was measured in
