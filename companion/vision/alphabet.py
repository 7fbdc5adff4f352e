"""Calibration from the user's own tiles: ``calibrate --layout alphabet``.

The contract's layout: every letter of the tile set once, face up and upright, in the tile
set's alphabetical order (the order its file lists them: A Ą B C Ć ... for Polish, A ... Z Ä
Ö Ü for German) from the top-left square, left to right, wrapping after the last column,
then one blank tile. The layout is the contract: the reader does not search for letters
elsewhere, but it checks what it sees and names the first square that breaks the layout (a
letter out of order, a lettered tile past the layout's end). A tile the reader does not tell
from the board (white faces on a cream board, a face washed out under a lamp) is a letter
learned without the user's sample, not a refusal: the network reads it as it reads any
stranger's letter. The empty board's look (``empty_bgr`` of the table's profile) is what
squares are told from.

What the profile keeps (arrays): ``letter_glyphs`` (N, 24, 24) uint8, the normalised letter
pictures (0 body .. 255 ink) of the user's tiles, each with a few small variations (shift,
scale, blur) so that one sample per letter stands for the slightly different ways a face is
cut out of a photo; ``letter_codes`` (N,) int32, their letters as code points. The letter
classifier reads them by nearest neighbours beside its network (see letters.py).
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.core.board import Layout
from companion.core.tiles import BLANK, TileSet
from companion.core.errors import CompanionError
from companion.vision.cells import CELL_PX, MARGIN, Reading, read_board_cells
from companion.vision.cells.evidence import _TILE_RADIUS
from companion.vision.colour import colour_distance, to_lab
from companion.vision.face import GLYPH_PX
from companion.vision.letters import glyph_features, load_model, softmax
from companion.vision.profile import Profile


def alphabet_order(tileset: TileSet) -> list[str]:
    """The letters as the alphabet layout lays them: the set's alphabetical order (A Ä B ...),
    then ``?``."""
    return tileset.alphabetical() + ([BLANK] if tileset.blanks else [])


def variations(picture: np.ndarray, seed: int = 0, count: int = 8) -> list[np.ndarray]:
    """The picture and ``count`` small variations of it: shifted a pixel, scaled a few
    percent, blurred or sharpened a little (a face is never cut out the same way twice)."""
    rng = np.random.default_rng(seed)
    out = [picture]
    s = picture.shape[0]
    for _ in range(count):
        scale = rng.uniform(0.93, 1.07)
        m = cv2.getRotationMatrix2D((s / 2 - 0.5, s / 2 - 0.5), rng.uniform(-3, 3), scale)
        m[:, 2] += rng.uniform(-1.0, 1.0, 2)
        v = cv2.warpAffine(picture, m, (s, s), flags=cv2.INTER_LINEAR, borderValue=0)
        if rng.random() < 0.5:
            v = cv2.GaussianBlur(v, (0, 0), rng.uniform(0.3, 0.8))
        out.append(np.clip(v, 0, 1))
    return out


def samples_to_arrays(pictures: list[np.ndarray], letters: list[str]) -> dict[str, np.ndarray]:
    return {
        "letter_glyphs": np.clip(np.stack(pictures) * 255 + 0.5, 0, 255).astype(np.uint8).reshape(-1, GLYPH_PX, GLYPH_PX),
        "letter_codes": np.array([ord(ch) for ch in letters], np.int32),
    }


def learn_alphabet(
    rectified: np.ndarray,
    cell_px: int = CELL_PX,
    margin: float = MARGIN,
    tileset: TileSet | None = None,
    layout: Layout | None = None,
    empty: Profile | None = None,
) -> dict[str, np.ndarray]:
    """The user's letters from a photo of the alphabet layout (module doc), as profile arrays.
    A square that breaks the layout (empty where a letter belongs, a letter where nothing
    belongs, a letter the network is sure is another) is one CompanionError line.
    ``empty``: the table's profile, whose empty board (``empty_bgr``) tells an empty square
    from a face. (:func:`learn_faces` adds the set's face colour.)"""
    return _learn(rectified, cell_px, margin, tileset, layout, empty)[0]


def learn_faces(
    rectified: np.ndarray,
    tileset: TileSet,
    layout: Layout,
    empty: Profile | None = None,
    cell_px: int = CELL_PX,
    margin: float = MARGIN,
) -> tuple[dict[str, np.ndarray], tuple[int, int, int]]:
    """:func:`learn_alphabet`'s arrays and the set's face colour (RGB), as calibration keeps
    them."""
    return _learn(rectified, cell_px, margin, tileset, layout, empty)


def _empty_only(profile: Profile | None) -> Profile | None:
    """What of a table's profile the alphabet is read with: its empty board alone. Another
    set's letters or colours would make this set's faces that set's."""
    if profile is None or "empty_bgr" not in profile.arrays:
        return None
    empty = {"empty_bgr": profile.arrays["empty_bgr"]}
    return Profile(tileset=profile.tileset, grid=profile.grid, arrays=empty)


def _learn(
    rectified: np.ndarray,
    cell_px: int,
    margin: float,
    tileset: TileSet | None,
    layout: Layout | None,
    empty: Profile | None = None,
) -> tuple[dict[str, np.ndarray], tuple[int, int, int]]:
    from companion.core.board import STANDARD
    from companion.core.tiles import get_tileset

    tileset = tileset or get_tileset("en")
    layout = layout or STANDARD
    order = alphabet_order(tileset)
    if len(order) > layout.rows * layout.cols:
        raise CompanionError(f"tile set {tileset.name} has more letters than the board has squares")
    found = read_board_cells(rectified, cell_px, margin, layout, tileset, _empty_only(empty))
    face = _FaceColour(found, len(order))
    model = load_model()
    letters = [ch for ch in order if ch != BLANK]
    index = model.index(letters)
    pictures: list[np.ndarray] = []
    labels: list[str] = []
    unseen: list[str] = []
    for i, want in enumerate(order):
        r, c = divmod(i, layout.cols)
        cell = found.cells[i]  # row-major: square i is the i-th tile of the layout
        where = f"square ({r}, {c}) (row {r + 1}, column {c + 1})"
        ink = found.inks.get((r, c))
        if want == BLANK:
            lettered = ink is not None and ink.glyph is not None
            if lettered and cell.kind == "tile" and cell.letter not in (None, BLANK):
                raise CompanionError(f"alphabet layout: {where} should hold the blank but shows a letter")
            continue
        if cell.kind == "empty" or ink is None or ink.glyph is None:
            # A face the reader takes for an empty square, or whose letter it does not make
            # out (washed out under a lamp's spot, ink close to the face's colour): that letter
            # is read without the user's sample. A tile left out is no harm in itself; one
            # that moves the letters after it along is found by the letters it misplaces
            # (below) or by a tile past the layout's end.
            unseen.append(want)
            continue
        # Upright by the layout's contract: the picture as it stands. A letter the network
        # is sure is another one means the tiles are out of order.
        p = softmax(model.logits(glyph_features(ink.glyph))[0][index])
        best = letters[int(p.argmax())]
        if best != want and p.max() > 0.97 and p[letters.index(want)] < 0.005:
            raise CompanionError(f"alphabet layout: {where} should hold {want!r} but reads as {best!r}")
        for v in variations(ink.glyph, seed=i):
            pictures.append(v)
            labels.append(want)
    # Most letters are the user's own samples still when a few are missing; fewer than half
    # is a photo to take again.
    if len(unseen) * 2 > len(letters):
        raise CompanionError(
            f"alphabet layout: the tiles {' '.join(unseen[:6])}{' ...' if len(unseen) > 6 else ''} "
            "or their letters "
            "are not seen: lay the set's letters in order from the top-left square and take the photo again, "
            "the board evenly lit and in focus"
        )
    # Nothing past the layout: a lettered tile there is a mistake in laying it out. (A
    # premium square of the faces' colour is none: it shows no letter, and it matches its
    # look on the empty board.)
    for i in range(len(order), layout.rows * layout.cols):
        cell = found.cells[i]
        r, c = divmod(i, layout.cols)
        ink = found.inks.get((r, c))
        if cell.kind == "tile" and cell.confidence > 0.5 and ink is not None and ink.glyph is not None \
                and face.holds(r, c):
            raise CompanionError(f"alphabet layout: square ({r}, {c}) should be empty (the layout ends before it)")
    return samples_to_arrays(pictures, labels), face.rgb


class _FaceColour:
    """The colour of the set's faces in an alphabet photo: the median over the layout's squares
    read as faces (most of them), under the photo's light as the reader takes it out."""

    def __init__(self, found: Reading, count: int) -> None:
        ev = found.evidence
        rows, cols = ev.d_empty.shape
        self.lab = to_lab((ev.stats.median / np.maximum(ev.light, 1e-6)).astype(np.float32))
        self.d_empty = ev.d_empty
        faces = [divmod(i, cols) for i in range(count) if found.cells[i].kind == "tile"]
        if len(faces) * 2 < count:
            raise CompanionError(
                f"alphabet layout: only {len(faces)} of its {count} tiles are told from the board: check "
                "the layout (the set's letters in order from the top-left square, then a blank) and the "
                "light, and take the photo again"
            )
        self.face = np.median(np.array([self.lab[rc] for rc in faces]), axis=0)
        seen = [found.cells[r * cols + c].rgb for r, c in faces]
        bodies = [rgb for rgb in seen if rgb is not None]
        median = [int(round(float(np.median([f[k] for f in bodies])))) for k in range(3)] if bodies else [0] * 3
        self.rgb: tuple[int, int, int] = (median[0], median[1], median[2])

    def holds(self, r: int, c: int) -> bool:
        """Whether square (r, c) shows the set's face colour rather than its empty look."""
        d_face = float(colour_distance(self.lab[r, c], self.face))
        d_empty = float(self.d_empty[r, c]) if np.isfinite(self.d_empty[r, c]) else np.inf
        return d_face < _TILE_RADIUS and d_face < d_empty
