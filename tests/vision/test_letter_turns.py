"""A face's turn when the network alone cannot say it: the letter's height against the board's
capitals (every capital of a font is as tall), and a thin "1" paler than the digits' level.
Scores made up for the rule alone, drawn faces (companion.sim.facesynth) and rendered
development scenes (never the benchmark's)."""

import numpy as np
import pytest

from companion.vision.cells.inks import _cap_height
from companion.vision.face import FaceInk, split_face
from companion.vision.letters import FaceScores
from companion.sim.scene import preset

from .rendered import read_rendered
from .test_letters import _clean_face, _decide

_BODY, _INK = 215.0, 25.0  # the drawn faces' body and ink grey levels


def _scores(boxes: list[tuple[int, int, int, int]], best: list[dict[tuple[int, str], float]]):
    """Faces with these letter boxes (x, y, w, h), each believing (turn, letter) as given and
    nothing else; letters E, O, W."""
    letters = ["E", "O", "W"]
    logp = np.full((len(boxes), 4, len(letters)), -12.0, np.float32)
    for i, beliefs in enumerate(best):
        for (k, letter), p in beliefs.items():
            logp[i, k, letters.index(letter)] = np.log(p)
    faces = [FaceInk(np.zeros((24, 24), np.float32), box=b) for b in boxes]
    return FaceScores(logp, [], letters), faces


def test_a_box_half_as_tall_as_the_capitals_is_a_letter_on_its_side():
    # Five Es read surely upright, 22 pixels tall; a face whose box is 22 wide and 11 tall,
    # which the network takes for an O upright a little more than for an E at 270 degrees.
    boxes = [(0, 0, 15, 22)] * 5 + [(0, 0, 22, 11), (0, 0, 22, 17)]
    best = [{(0, "E"): 0.999}] * 5 + [{(0, "O"): 0.5, (3, "E"): 0.4}, {(0, "W"): 0.9, (1, "E"): 0.05}]
    scored, faces = _scores(boxes, best)
    assert (scored.decide()[5].letter, scored.decide()[5].rotation) == ("O", 0)
    guesses = _cap_height(scored, faces).decide()
    assert (guesses[5].letter, guesses[5].rotation) == ("E", 270)
    # A W printed smaller to keep clear of its value (0.77 of the capitals' height) stays.
    assert (guesses[6].letter, guesses[6].rotation) == ("W", 0)


def test_too_few_sure_faces_say_nothing():
    boxes = [(0, 0, 15, 22)] * 3 + [(0, 0, 22, 11)]
    best = [{(0, "E"): 0.999}] * 3 + [{(0, "O"): 0.5, (3, "E"): 0.4}]
    scored, faces = _scores(boxes, best)
    assert _cap_height(scored, faces) is scored


def _paled(crop: np.ndarray, level: float, corner: tuple[slice, slice]) -> np.ndarray:
    """``crop`` with the ink inside ``corner`` (the value's) brought to ``level`` (0..1)."""
    out = crop.astype(np.float32).copy()
    part = out[corner]
    ink = np.clip((_BODY - part) / (_BODY - _INK), 0.0, 1.0)
    part[...] = _BODY - np.minimum(ink, level) * (_BODY - _INK)
    return np.round(out).astype(crop.dtype)


_VALUE = (slice(30, 46), slice(30, 46))  # the drawn face's bottom-right corner, where the value is


def test_a_faint_one_says_the_turn():
    # An O's "1" blurred to a fifth of the letter's ink: under the digits' level, yet the only
    # mark in a corner. Upside down, the O is read at 180 degrees by it, not upright.
    crop, frac = _clean_face("O", "1")
    faint = _paled(crop, 0.2, _VALUE)
    ink = split_face(faint, face_frac=frac)
    assert ink.corner == (1, 1)
    turned = np.ascontiguousarray(np.rot90(faint, 2))
    ink = split_face(turned, face_frac=frac)
    assert ink.corner == (-1, -1)
    guess = _decide(ink)
    assert (guess.letter, guess.rotation) == ("O", 180)


def test_faint_stripes_are_no_value():
    # Grain as faint as that "1", across the whole face: lines, in no one corner.
    crop, frac = _clean_face("O", "1")
    crop = _paled(crop, 0.0, _VALUE)  # no value
    for y in range(6, 44, 6):
        crop[y, 4:44] = np.minimum(crop[y, 4:44], round(_BODY - 0.2 * (_BODY - _INK)))
    assert split_face(crop, face_frac=frac).corner is None


def test_faint_marks_in_two_corners_say_nothing():
    # The faint "1" and as faint a mark where a turned tile's value would be: no corner.
    crop, frac = _clean_face("O", "1")
    faint = _paled(crop, 0.2, _VALUE)
    mark = np.ascontiguousarray(np.rot90(faint, 2))[:16, :16]
    faint[:16, :16] = np.minimum(faint[:16, :16], mark)
    assert split_face(faint, face_frac=frac).corner is None


@pytest.mark.parametrize(
    "seed,square",
    [
        (5134, (7, 3)),  # an E on its side (a quarter turn), its "1" unseen: an O upright to the network
        (5675, (5, 11)),  # the same
        (5715, (3, 12)),  # an O upside down, its thin "1" at a fifth of the letter's ink
        (5754, (5, 4)),  # an S upside down, the same
        (5536, (5, 9)),  # an O on its side, its "1" lying along the top
        (5488, (8, 12)),  # an I on its side, the same
    ],
)
def test_turns_the_network_cannot_tell(seed, square):
    scene, cells = read_rendered(preset("mounted", np.random.default_rng(seed), features=True), seed)
    truth, cell = scene.truth.cell(*square), cells[square]
    assert (cell.kind, cell.letter, cell.rotation) == ("tile", truth.letter, truth.rotation)
