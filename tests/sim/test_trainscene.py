"""The learned square reader's training scenes (companion/sim/trainscene.py): the look-alike
option draws backs of the board's own colours and tokens of the faces', never a stranger's
colour, and leaves the plain scenes (``make model``'s first stage) as they were."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from companion.sim.scene import STRANGER_LOOKS
from companion.sim.trainscene import HELD_OUT_MARGIN, training_scene

STRANGER = [c for lk in STRANGER_LOOKS.values() for c in (lk.body, lk.back)]


def _dist(a, b) -> float:
    return float(np.linalg.norm(np.subtract(a, b)))


def test_plain_scenes_draw_no_look_alike_token():
    for seed in range(40):
        assert not training_scene(np.random.default_rng(seed)).token_colours


def test_look_alikes_are_the_board_s_and_the_face_s_colours_never_a_stranger_s():
    backs_on_board = tokens_on_face = 0
    for seed in range(60):
        spec = training_scene(np.random.default_rng(seed), look_alikes=True)
        st = spec.style
        board = (st.square, st.dl, st.tl, st.dw, st.tw)
        for look in spec.looks.values():
            if min(_dist(look.back, c) for c in board) < 40:
                backs_on_board += 1
            assert _dist(look.back, look.body) > 40  # a back still differs from its face
        for body, rim in spec.token_colours.values():
            assert min(_dist(body, lk.body) for lk in spec.looks.values()) < 60
            tokens_on_face += 1
            for c in (body, rim):
                assert all(_dist(c, h) > HELD_OUT_MARGIN for h in STRANGER)
        # The look-alike backs keep the held-out rule too (the project's own looks aside).
        for look in spec.looks.values():
            if min(_dist(look.back, c) for c in board) < 25:
                assert all(_dist(look.back, h) > HELD_OUT_MARGIN for h in STRANGER)
    assert backs_on_board >= 25 and tokens_on_face >= 60, (backs_on_board, tokens_on_face)


def test_the_look_alike_option_leaves_the_rest_of_a_scene_drawn_alike():
    # Only the content's rates (more backs and tokens) and the colours change: board, camera
    # and light come from the same draws up to the content.
    a = training_scene(np.random.default_rng(3))
    b = training_scene(np.random.default_rng(3), look_alikes=True)
    assert a.style == b.style and a.tileset == b.tileset
    assert {n: replace(lk, back=(0, 0, 0)) for n, lk in a.looks.items()} == {
        n: replace(lk, back=(0, 0, 0)) for n, lk in b.looks.items()}
