"""The value digits are printed in the letter's ink: looked for at their paler level first
(thin strokes blur), then at the letter's own level, where a "1" in line with the face's rim
or touching its rounded corner stands apart from the paler rim; and ink that never reaches the
letter's level (a rounded corner's rim, a shadow) gives way to print found there, whose
corner says the turn. Drawn faces (companion.sim.facesynth) and rendered development scenes
(never the benchmark's)."""

import numpy as np
import pytest

from companion.vision.face import split_face
from companion.sim.scene import preset

from .rendered import read_rendered
from .test_letters import _clean_face, _decide

_BODY, _INK = 215.0, 25.0  # the drawn faces' body and ink grey levels


def _pale(level: float) -> int:
    """The grey level of ``level`` ink (0..1) on the drawn faces."""
    return round(_BODY - level * (_BODY - _INK))


def test_a_one_in_line_with_the_rim_is_the_value():
    # The value "1" at the bottom right; the face's rim, paler than print, runs down from
    # it to the face's bottom edge and along it: at the digits' level the 1 and the rim are
    # one long line, taken out with the rim.
    crop, frac = _clean_face("E", "1")
    assert split_face(crop, face_frac=frac).corner == (1, 1)
    pale = _pale(0.4)
    crop[41:47, 40] = np.minimum(crop[41:47, 40], pale)
    crop[46, 4:41] = np.minimum(crop[46, 4:41], pale)
    ink = split_face(crop, face_frac=frac)
    assert ink.corner == (1, 1)
    guess = _decide(ink)
    assert (guess.letter, guess.rotation, guess.value) == ("E", 0, "1")


def test_printed_value_before_pale_ink_in_another_corner():
    # The same "1" in line with the rim, and a mark as pale as a rounded corner's rim where
    # an upside-down tile's value would be: the printed digit, darker than the rim it
    # touches, says the corner, not the pale mark (an E read upside down, or as an N).
    crop, frac = _clean_face("E", "1")
    pale = _pale(0.4)
    crop[41:47, 40] = np.minimum(crop[41:47, 40], pale)
    crop[46, 4:41] = np.minimum(crop[46, 4:41], pale)
    crop[8:15, 8] = np.minimum(crop[8:15, 8], pale)
    ink = split_face(crop, face_frac=frac)
    assert ink.corner == (1, 1)
    guess = _decide(ink)
    assert (guess.letter, guess.rotation) == ("E", 0)


def test_a_dark_rim_is_no_value():
    # A rim as dark as print, broken at the letter's level into pieces of itself: none is
    # darker than the rest of the rim, so none is taken for the value.
    crop, frac = _clean_face("E", "1")
    crop[34:42, 38:42] = _BODY  # the value gone
    crop[4:44, 3] = _pale(0.9)
    crop[10:16, 3] = _pale(0.7)  # a paler stretch: the rim breaks there at the letter's level
    crop[24:30, 3] = _pale(0.7)
    assert split_face(crop, face_frac=frac).corner is None


@pytest.mark.parametrize(
    "seed,square",
    [
        (5335, (7, 5)),  # an E upside down, its "1" in line with the face's left rim
        (5373, (9, 2)),  # an N, its "1" touching the rim's bottom-right corner
        (5438, (8, 7)),  # an A upside down (a V upright), a rim's pale corner in another corner
        (5464, (8, 5)),  # an I on its side, its "1" joined to the rim
    ],
)
def test_turned_faces_keep_their_value(seed, square):
    scene, cells = read_rendered(preset("mounted", np.random.default_rng(seed), features=True), seed)
    truth, cell = scene.truth.cell(*square), cells[square]
    assert (cell.kind, cell.letter, cell.rotation) == ("tile", truth.letter, truth.rotation)
