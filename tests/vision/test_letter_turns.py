"""A face's turn when the network alone cannot say it: the letter's height against the board's
capitals (every capital of a font is as tall). Scores made up for the rule alone, and rendered
development scenes (never the benchmark's)."""

import numpy as np
import pytest

from companion.vision.cells import _cap_height
from companion.vision.face import FaceInk
from companion.vision.letters import FaceScores
from companion.vision.scene import preset

from .rendered import read_rendered


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


@pytest.mark.parametrize(
    "seed,square",
    [
        (5134, (7, 3)),  # an E on its side (a quarter turn), its "1" unseen: an O upright to the network
        (5675, (5, 11)),  # the same
    ],
)
def test_turns_the_network_cannot_tell(seed, square):
    scene, cells = read_rendered(preset("mounted", np.random.default_rng(seed), features=True), seed)
    truth, cell = scene.truth.cell(*square), cells[square]
    assert (cell.kind, cell.letter, cell.rotation) == ("tile", truth.letter, truth.rotation)
