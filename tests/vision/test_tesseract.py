import shutil
import sys

import cv2
import numpy as np
import pytest

from companion.core.board import STANDARD
from companion.core.tiles import get_tileset
from companion.core.errors import CompanionError
from companion.vision.cells import CELL_PX, MARGIN, read_cells
from companion.vision.grid import rectify
from companion.sim.render import render
from companion.sim.scene import SceneSpec, Square
from companion.vision.tesseract import picture_for_tesseract


def _board():
    content = {(7, c): Square.tile(ch) for c, ch in zip(range(5, 10), "HOUSE")}
    scene = render(SceneSpec(content=content), seed=4)
    return scene, rectify(scene.image, scene.location, CELL_PX, MARGIN)


def test_tesseract_reads_a_clean_board():
    pytest.importorskip("pytesseract", reason="pytesseract is not installed (pip install 'companion[ocr]')")
    if shutil.which("tesseract") is None:
        pytest.skip("the tesseract program is not installed")
    _scene, top = _board()
    cells = read_cells(top, CELL_PX, MARGIN, STANDARD, get_tileset("en"), backend="tesseract")
    tiles = [c for c in cells if c.kind == "tile"]
    assert [(c.row, c.col) for c in tiles] == [(7, c) for c in range(5, 10)]
    right = sum(c.letter == ch for c, ch in zip(tiles, "HOUSE"))
    assert right >= 4  # Tesseract is the slower, weaker reader it is there to be compared with
    assert all(c.rotation == 0 for c in tiles)


def test_a_missing_pytesseract_is_one_clear_line(monkeypatch):
    _scene, top = _board()
    monkeypatch.setitem(sys.modules, "pytesseract", None)  # import fails as if not installed
    with pytest.raises(CompanionError, match="pytesseract"):
        read_cells(top, CELL_PX, MARGIN, STANDARD, get_tileset("en"), backend="tesseract")


def test_an_unknown_backend_is_refused():
    _scene, top = _board()
    with pytest.raises(CompanionError, match="backend"):
        read_cells(top, CELL_PX, MARGIN, STANDARD, get_tileset("en"), backend="guess")


def test_the_picture_given_to_tesseract_is_dark_ink_on_white_turned_upright():
    glyph = np.zeros((24, 24), np.float32)
    glyph[2:22, 10:14] = 1.0  # a bar
    glyph[2:6, 14:20] = 1.0  # with a flag at its top right
    pic = picture_for_tesseract(glyph, 1)  # a quarter turn counter-clockwise
    assert pic.dtype == np.uint8 and pic[0, 0] == 255 and pic.min() < 50
    pad = 24  # the white border added around the letter
    ink = 1.0 - cv2.resize(pic[pad:-pad, pad:-pad], (24, 24), interpolation=cv2.INTER_AREA) / 255.0
    # Turned counter-clockwise: the bar lies across, its flag at the top left.
    assert np.abs(ink - np.rot90(glyph, 1)).mean() < 0.05
    assert ink[4:10, 2:6].mean() > 0.8 and ink[18:22, 2:6].mean() < 0.2
