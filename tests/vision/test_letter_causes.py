"""Causes of wrong letters on faces correctly taken for tiles: a value broken across its line
of text read as two digits, a set none of whose faces gave its colour read with the wrong
ink, one set's larger letters taken for letters that took in something beside them. Drawn faces
(companion.sim.facesynth) and rendered development scenes (never the benchmark's)."""

import numpy as np
import pytest

from companion.vision.cells.set_colours import _unseen_set_ink
from companion.vision.face import split_face
from companion.sim.scene import preset

from .rendered import read_rendered
from .test_letters import _clean_face, _decide

_FIFTH_INK = 177  # a level of 0.2 ink on the drawn faces' body (215)


def test_a_value_broken_across_its_line_of_text_is_one_digit():
    # A thin "3" broken by the threshold into its top and its foot: two pieces one above the
    # other, where a value's two digits stand side by side. Read as two digits ("23") it
    # said no letter's value, and an M whose thin stroke made it look like an N read as N.
    crop, frac = _clean_face("M", "3")
    x, y, w, h = split_face(crop, face_frac=frac).box
    ink = split_face(crop, face_frac=frac)
    assert len(ink.digits) == 1
    dx, dy = ink.digits[0][1:]
    # Cut the 3 across a little above its middle, as a thin join fades: a fifth ink.
    cy = round(y + h / 2.0 + dy * 44) - 1
    cx = round(x + w / 2.0 + dx * 44)
    crop[cy, cx - 5 : cx + 6] = np.maximum(crop[cy, cx - 5 : cx + 6], _FIFTH_INK)
    broken = split_face(crop, face_frac=frac)
    assert len(broken.digits) == 2 and broken.pieces_along == 1
    guess = _decide(broken)
    assert (guess.letter, guess.rotation, guess.value) == ("M", 0, "3")


def test_a_set_no_colour_was_found_for_prints_as_its_faces_nearest_it_do():
    # Two sets; only the first's faces gave a colour. The second (a mid blue, as light as
    # the first by luminance) prints light letters: the faces nearest its colour say so.
    colours = [np.array([200.0, 215.0, 210.0]), np.array([220.0, 145.0, 92.0])]
    pols = [1, 1]
    bodies = np.array([[198.0, 214.0, 211.0], [203.0, 216.0, 209.0], [215.0, 150.0, 95.0], [222.0, 140.0, 90.0]])
    assert _unseen_set_ink(colours, pols, [1], bodies, np.array([1, 1, -1, -1])) == {1}
    assert pols == [1, -1]
    # No face near it: its guess stays.
    pols = [1, 1]
    assert _unseen_set_ink(colours, pols, [1], bodies[:2], np.array([1, 1])) == set()
    assert pols == [1, 1]
    _unseen_set_ink(colours, pols, [1], bodies[:0], np.zeros(0, np.int64))  # no face at all
    assert pols == [1, 1]


def _read(seed: int):
    return read_rendered(preset("mounted", np.random.default_rng(seed), features=True), seed)


@pytest.mark.parametrize(
    "seed,squares",
    [
        (5182, [(5, 8), (7, 5)]),  # blue faces, light ink: no face gave blue's colour
        (5055, [(6, 7)]),  # a wood E, its set's letters a quarter taller than the ivory's
        (5120, [(7, 10)]),  # a serif M, its thin "3" broken in two
    ],
)
def test_faces_read_as_tiles_have_their_letters(seed, squares):
    scene, cells = _read(seed)
    for rc in squares:
        truth, cell = scene.truth.cell(*rc), cells[rc]
        assert (cell.kind, cell.letter, cell.rotation) == ("tile", truth.letter, truth.rotation), rc
