"""Squares colour alone leaves in doubt: a square washed out by a lamp's glare, a token of the
ink's colour on a face, a token where digits could be. Rendered scenes
(companion.sim.render) with their exact truth."""

import numpy as np

from companion.vision.colour import colour_distance, to_lab
from companion.vision.glare import glare_kinds, white_fit
from companion.sim.scene import Photo, SceneSpec, Square, preset

from .rendered import read_rendered


def _read(spec, seed):
    return read_rendered(spec, seed, found_grid=False)


def _words(set_name: str = "ivory") -> dict:
    content = {(7, c): Square.tile(ch, set=set_name) for c, ch in zip(range(3, 11), "QUARTETS")}
    content.update({(r, 5): Square.tile(ch, set=set_name) for r, ch in zip(range(2, 7), "JOKED")})
    content.update({(r, 9): Square.tile(ch, set=set_name) for r, ch in zip(range(8, 13), "HOWLS")})
    content.update({(11, c): Square.tile(ch, set=set_name) for c, ch in zip(range(4, 9), "BRAVE")})
    return content


def test_glare_over_a_square_is_not_a_tile():
    # A green square's look mixed half way to white is nearer an ivory body than green: fit as
    # glare, its own look explains it exactly, and the square stays empty.
    green = np.array([58.0, 127.0, 62.0])
    ivory = np.array([200.0, 224.0, 232.0])
    white = np.full(3, 255.0)
    seen = green + 0.6 * (white - green)
    assert np.allclose(white_fit(seen, green, white), seen, atol=1e-3)
    assert float(colour_distance(to_lab(seen), to_lab(ivory))) < float(colour_distance(to_lab(seen), to_lab(green)))
    scores = np.array([[[-60.0, -15.0, -70.0, -6.0]]], np.float32)  # nothing fits: the outlier wins
    dist = lambda a, b: colour_distance(to_lab(a), to_lab(b))  # noqa: E731
    kinds = glare_kinds(scores, seen[None, None], [(0, green, 4.0, 0.0), (1, ivory, 4.0, -2.0)],
                        white[None, None], dist, np.zeros((1, 1), bool))
    assert kinds[0, 0] == 0
    # A square a kind fits without glare keeps the kind the scores give it.
    scores_fit = np.array([[[-60.0, -1.0, -70.0, -6.0]]], np.float32)
    assert glare_kinds(scores_fit, seen[None, None], [(0, green, 4.0, 0.0)], white[None, None], dist,
                       np.zeros((1, 1), bool))[0, 0] == 1
    # A washed-out blue face stays a face: glare says something lies there, the scores which
    # kind (a white mix makes a slate back as pale).
    blue, slate = np.array([205.0, 142.0, 92.0]), np.array([130.0, 118.0, 110.0])
    washed = blue + 0.5 * (white - blue)
    scores_face = np.array([[[-40.0, -15.0, -30.0, -6.0]]], np.float32)
    kinds = glare_kinds(scores_face, washed[None, None], [(0, green, 4.0, 0.0), (1, blue, 4.0, -2.0), (2, slate, 4.0, -1.0)],
                        white[None, None], dist, np.zeros((1, 1), bool))
    assert kinds[0, 0] == 1
    # Over a board printed near white, glare explains a pale face only roughly: the scores'
    # reading stands.
    paper, cream = np.array([238.0, 240.0, 240.0]), np.array([200.0, 215.0, 228.0])
    scores_pale = np.array([[[-20.0, -12.0, -60.0, -6.0]]], np.float32)
    assert glare_kinds(scores_pale, cream[None, None], [(0, paper, 4.0, 0.0), (1, blue, 4.0, -2.0)],
                       white[None, None], dist, np.zeros((1, 1), bool))[0, 0] == 1
    # ... and a square showing a letter-like glyph is never looked at as glare.
    assert glare_kinds(scores, seen[None, None], [(0, green, 4.0, 0.0), (1, ivory, 4.0, -2.0)], white[None, None], dist,
                       np.ones((1, 1), bool))[0, 0] == 1


def test_glare_spots_on_a_rendered_board_leave_empty_squares_empty():
    spec = SceneSpec(content=_words(), photo=Photo(glare=3, noise=2.0, blur=0.6))
    for seed in (5, 6, 7):
        scene, cells = _read(spec, seed)
        wrong = [rc for rc, c in cells.items() if c.kind != scene.truth.cell(*rc).kind]
        assert wrong == [], (seed, wrong)


def test_a_token_of_the_inks_colour_on_a_face_is_found():
    content = _words()
    for sq in ((7, 4), (4, 5), (10, 9)):
        t = content[sq]
        content[sq] = Square.tile(t.letter, set=t.set, token="black")
    spec = preset("mounted", np.random.default_rng(8), content=content, style="green")
    scene, cells = _read(spec, 8)
    found = {rc for rc, c in cells.items() if c.token}
    assert found == {rc for rc in cells if scene.truth.cell(*rc).token}


def test_a_light_token_is_not_taken_for_the_value_digits():
    # On a blue face printed white, a gold token's middle is as light as the ink: in the tile's
    # top-left corner, opposite its digits, it must not turn a symmetric letter (I, S, N)
    # round by half a turn.
    content = _words()
    turned = {(7, 8): ("I", 0), (9, 9): ("S", 270), (12, 9): ("S", 0)}
    for sq, (letter, rot) in turned.items():
        content[sq] = Square.tile(letter, rotation=rot, set="blue", token="gold")
    spec = preset("mounted", np.random.default_rng(9), content=content, style="green")
    scene, cells = _read(spec, 9)
    for sq in turned:
        t = scene.truth.cell(*sq)
        assert (cells[sq].letter, cells[sq].rotation, cells[sq].token) == (t.letter, t.rotation, True), (sq, cells[sq])

