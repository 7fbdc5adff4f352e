"""Calibration from the user's own tiles: ``calibrate --layout alphabet``.

The contract's layout: every letter of the tile set once, face up and upright, in the tile
set's alphabetical order (the order its file lists them: A Ą B C Ć ... for Polish, A ... Z Ä
Ö Ü for German) from the top-left square, left to right, wrapping after the last column,
then one blank tile. The layout is the contract: the reader does not search for letters
elsewhere, but it checks what it sees and names the first square that breaks the layout.

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
from companion.vision.cells import CELL_PX, MARGIN, read_board_cells
from companion.vision.face import GLYPH_PX
from companion.vision.letters import glyph_features, load_model, softmax


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
) -> dict[str, np.ndarray]:
    """The user's letters from a photo of the alphabet layout (module doc), as profile arrays.
    A square that breaks the layout (empty where a letter belongs, a letter where the blank
    or nothing belongs, a letter the network is sure is another) is one CompanionError line.
    (:func:`companion.vision.cells.learn_alphabet` adds the set's face colour.)"""
    return _learn(rectified, cell_px, margin, tileset, layout)[0]


def _learn(
    rectified: np.ndarray,
    cell_px: int,
    margin: float,
    tileset: TileSet | None,
    layout: Layout | None,
) -> tuple[dict[str, np.ndarray], tuple[int, int, int]]:
    from companion.core.board import STANDARD
    from companion.core.tiles import get_tileset

    tileset = tileset or get_tileset("en")
    layout = layout or STANDARD
    order = alphabet_order(tileset)
    if len(order) > layout.rows * layout.cols:
        raise CompanionError(f"tile set {tileset.name} has more letters than the board has squares")
    found = read_board_cells(rectified, cell_px, margin, layout, tileset)
    model = load_model()
    letters = [ch for ch in order if ch != BLANK]
    index = model.index(letters)
    pictures: list[np.ndarray] = []
    labels: list[str] = []
    for i, want in enumerate(order):
        r, c = divmod(i, layout.cols)
        cell = found.cells[i]  # row-major: square i is the i-th tile of the layout
        where = f"square ({r}, {c}) (row {r + 1}, column {c + 1})"
        if cell.kind == "empty":
            raise CompanionError(f"alphabet layout: {where} should hold {want!r} but looks empty")
        ink = found.inks.get((r, c))
        if want == BLANK:
            if ink is not None and ink.glyph is not None:
                raise CompanionError(f"alphabet layout: {where} should hold the blank but shows a letter")
            continue
        if ink is None or ink.glyph is None:
            raise CompanionError(f"alphabet layout: {where} should hold {want!r} but no letter is seen there")
        # Upright by the layout's contract: the picture as it stands. A letter the network
        # is sure is another one means the tiles are out of order.
        p = softmax(model.logits(glyph_features(ink.glyph))[0][index])
        best = letters[int(p.argmax())]
        if best != want and p.max() > 0.97 and p[letters.index(want)] < 0.005:
            raise CompanionError(f"alphabet layout: {where} should hold {want!r} but reads as {best!r}")
        for v in variations(ink.glyph, seed=i):
            pictures.append(v)
            labels.append(want)
    # Nothing past the layout: a tile there is a mistake in laying it out.
    for i in range(len(order), layout.rows * layout.cols):
        if found.cells[i].kind != "empty" and found.cells[i].confidence > 0.5:
            r, c = divmod(i, layout.cols)
            raise CompanionError(f"alphabet layout: square ({r}, {c}) should be empty (the layout ends before it)")
    faces = [found.cells[i].rgb for i in range(len(order)) if found.cells[i].rgb is not None]
    rgb = tuple(int(round(float(np.median([f[k] for f in faces])))) for k in range(3)) if faces else (0, 0, 0)
    return samples_to_arrays(pictures, labels), rgb  # type: ignore[return-value]
