"""A face's set where the light moves its colour: a lamp's glare in a dim photo (the glare's
white is the camera's full scale, brightened with the photo), and a face lit lighter or
darker than the board's smooth light field follows (its hue stays its set's). Rendered
scenes (companion.sim.render) with their exact truth, read with a profile naming each
set's face and back colour."""

from dataclasses import replace

import numpy as np

from companion.sim.scene import preset

from .rendered import named_faces
from .test_sets import _read_with_glare_on_the_d, _word, _wrong_sets


def test_a_wood_face_under_glare_in_a_dim_photo_stays_wood():
    # A dim photo is brightened to a standard exposure before it is read: the lamp's white,
    # the camera's full scale, is brightened with it, well above the top of what is read.
    # Glare moves a wood face towards that white; towards the read top instead, it would
    # have to be an ivory face.
    for seed in (21, 22):
        content = {**_word(7, 2, "WOODEN", "wood"), **_word(9, 2, "SATIRE", "ivory"), **_word(5, 3, "BRAWL", "wood")}
        spec = preset("mounted", np.random.default_rng(seed), content=content, style="classic")
        spec = replace(spec, photo=replace(spec.photo, glare=0, shadows=0, white_balance=(0.6, 0.6, 0.6)))
        scene, cells = _read_with_glare_on_the_d(spec, seed, 0.4)
        assert _wrong_sets(scene, cells) == [], seed


def test_a_face_lit_apart_from_its_set_keeps_its_set_by_hue():
    # Mounted development scenes where faces lie lighter or darker than their set's colour
    # under the light found (a shadow over a cluster of ivory faces with two wood faces on the
    # board; a dim photo's ivory and wood faces at the board's bright edge): in lightness they
    # lie nearer the other set, in hue clearly nearer their own.
    cases = {6270: [(5, 8), (7, 2), (7, 4), (7, 7), (8, 5)], 6384: [(10, 2), (10, 3)], 6337: [(2, 6)],
             5928: [(11, 9), (12, 9), (12, 12), (13, 9)]}
    wrong = [(seed, rc, truth.set, read.set) for seed, rc, truth, read in named_faces(cases) if read.set != truth.set]
    assert wrong == []
