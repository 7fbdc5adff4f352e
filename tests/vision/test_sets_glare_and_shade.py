"""A set's colour group and its faces under the light: a wood group in a shadow is no ivory in
a shadow (a shadow scales every channel alike, so a darker group that is also more saturated
is another set), and a face with no letter found or a back under a lamp's glare is named by
the set whose colour glare can wash into what is seen. Rendered development scenes (never the
benchmark's) and the colours one of them showed."""

import cv2
import numpy as np
import pytest

from companion.vision.cells.set_colours import _one_set_in_two_lights
from companion.vision.colour import rgb_to_bgr
from companion.sim.scene import preset
from companion.vision.sets import shade_apart

from .rendered import read_rendered


def _bgr(lab8: tuple[int, int, int]) -> np.ndarray:
    return cv2.cvtColor(np.uint8([[lab8]]), cv2.COLOR_LAB2BGR)[0, 0].astype(np.float32)


def test_a_darker_more_saturated_group_is_not_one_set_in_two_lights():
    # Development scene 10592's two colour groups (OpenCV Lab): its wood faces, many of them in
    # a shadow, and its ivory faces. Hue alone (a, b) puts them 9.5 apart, under half the
    # sets' least hue distance; brought to one lightness they are far apart.
    sets = [rgb_to_bgr((242, 238, 209)), rgb_to_bgr((212, 174, 122))]
    wood, ivory = _bgr((149, 123, 149)), _bgr((212, 120, 140))
    bodies = np.array([wood, wood, wood, ivory, ivory], np.float32)
    masks = [np.arange(5) < 3, np.arange(5) >= 3]
    tiles, _, members = _one_set_in_two_lights(bodies, [wood, ivory], [1, 1], masks, sets)
    assert len(tiles) == 2
    # The same set in a deep shadow stays one set.
    tiles, _, members = _one_set_in_two_lights(bodies, [ivory * 0.6, ivory], [1, 1], masks, sets)
    assert len(tiles) == 1 and members[0].all()
    assert shade_apart(ivory * 0.55, ivory) < 1.0 < 10.0 < shade_apart(wood, ivory)


def test_a_wood_group_in_a_shadow_keeps_its_set():
    seed = 10592  # 37 wood faces, many under a shadow band, 25 ivory: every face's set
    scene, cells = read_rendered(preset("mounted", np.random.default_rng(seed), features=True), seed)
    wrong = [(c.row, c.col) for c in scene.truth.cells
             if c.kind == "tile" and cells[(c.row, c.col)].kind == "tile" and cells[(c.row, c.col)].set != c.set]
    assert wrong == []


@pytest.mark.parametrize(
    "seed,square,kind",
    [
        (6631, (9, 6), "tile"),  # a wood blank under glare, near ivory's colour but darker than ivory
        (6745, (12, 8), "tile"),  # a wood blank under glare
        (5472, (5, 6), "back"),  # a wood back under glare: pale tan, nothing like the slate ivory back
    ],
)
def test_no_letter_under_glare_keeps_its_set(seed, square, kind):
    scene, cells = read_rendered(preset("mounted", np.random.default_rng(seed), features=True), seed)
    truth, cell = scene.truth.cell(*square), cells[square]
    assert truth.kind == kind and truth.set == "wood"
    assert (cell.kind, cell.set) == (kind, "wood")
