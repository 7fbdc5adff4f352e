"""What a square holds when its colour leaves it in doubt: a token on an empty square (its
disc reads as an O), glare over a premium square (its colour washed towards a pale tile's,
its print still there). Rendered scenes (companion.sim.render) with their exact truth."""

import numpy as np

from companion.core.board import STANDARD, Premium
from companion.sim.scene import preset

from .rendered import read_rendered


def _read(spec, seed):
    return read_rendered(spec, seed)


def test_a_token_on_an_empty_square_is_no_letter():
    # Beige and pink boards under wooden and ivory tiles: a token's disc on a plain square reads
    # as an O to the letter network, on a body near a tile's. A letter is as tall as the
    # board's other letters; the disc is half that.
    for seed in (3126, 3152):
        spec = preset("mounted", np.random.default_rng(seed), features=True)
        scene, cells = _read(spec, seed)
        tokens = [rc for rc in cells if scene.truth.cell(*rc).kind == "empty" and scene.truth.cell(*rc).token]
        assert tokens
        wrong = [(rc, cells[rc].kind, cells[rc].letter) for rc in tokens if cells[rc].kind != "empty"]
        assert wrong == [], (seed, wrong)


def test_glare_over_a_premium_square_leaves_it_empty():
    # A lamp's glare washes double-word squares (and a double letter) towards a pale face's
    # colour; their print still shows, which no face does.
    for seed in (3003, 3191):
        spec = preset("mounted", np.random.default_rng(seed), features=True)
        scene, cells = _read(spec, seed)
        premium_empty = [rc for rc in cells if scene.truth.cell(*rc).kind == "empty"
                         and STANDARD.premiums[rc[0]][rc[1]] != Premium.NONE]
        wrong = [rc for rc in premium_empty if cells[rc].kind != "empty"]
        assert wrong == [], (seed, wrong)


def test_glare_over_a_plain_square_leaves_it_empty():
    # A lamp's spot washes a plain square (grey-green, green, beige) towards white, near an
    # ivory blank's colour: glare over the square's own look explains it exactly, and the
    # spot's flank whitens the empty squares beside it. The scenes' faces (blanks among
    # them) stay faces.
    # (3095: the spot's slope across the square is no ink; its fine detail is nil.)
    for seed, square in ((3169, (3, 12)), (3112, (1, 3)), (3105, (8, 14)), (3095, (3, 9))):
        spec = preset("mounted", np.random.default_rng(seed), features=True)
        scene, cells = _read(spec, seed)
        assert scene.truth.cell(*square).kind == "empty"
        assert cells[square].kind == "empty", (seed, square, cells[square].kind)
        faces = [rc for rc in cells if scene.truth.cell(*rc).kind == "tile"]
        lost = [rc for rc in faces if cells[rc].kind != "tile"]
        assert lost == [], (seed, lost)
