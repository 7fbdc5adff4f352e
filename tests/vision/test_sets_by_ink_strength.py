"""A face's set under glare, told by its ink's strength: glare mixes white into the ink as much
as into the body, so a face taken for another set washed out must show that set's ink faded,
never whole; and a set with too few plain faces to say its usual ink is judged by the board's
usual. Rendered development scenes (never the benchmark's)."""

import numpy as np
import pytest

from companion.sim.scene import preset

from .rendered import read_rendered


@pytest.mark.parametrize(
    "seed,square",
    [
        (5402, (10, 4)),  # an ivory face lit a little off ivory's colour, its ink whole: not wood under glare
        (5254, (5, 5)),  # a wood face under glare near ivory's colour, its ink faded; ivory has two faces
    ],
)
def test_faces_keep_their_set_under_glare(seed, square):
    scene, cells = read_rendered(preset("mounted", np.random.default_rng(seed), features=True), seed)
    truth, cell = scene.truth.cell(*square), cells[square]
    assert (cell.kind, cell.letter, cell.set) == ("tile", truth.letter, truth.set)
