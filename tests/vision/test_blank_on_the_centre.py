"""A blank on the centre square is told by its outline and rim, as on any other square.

The centre is a class of one square: it cannot learn its own empty look from the board, and
borrows the double word's, which it is printed as (a star in its middle). Its outline and rim
are the double word's too: they are compared with the double words known empty. An empty
centre shows its star, ink in the middle, which leaves the outline out as before."""

from dataclasses import replace

import numpy as np

from companion.sim.scene import Square, preset

from .rendered import read_rendered


def _with_blank_on_the_centre(seed: int, tile_set: str):
    spec = preset("mounted", np.random.default_rng(seed), features=True)
    content = dict(spec.content)
    content[(7, 7)] = Square.tile("?", 0, tile_set)
    return replace(spec, content=content)


def test_a_wood_blank_on_a_double_words_colour_is_a_face():
    # A development scene's board and camera (seed 5408), its centre given a wood blank: the
    # board's double words are printed nearly the wood's colour, so the borrowed look fits
    # the blank about as well as the wood does, and a blank is rarer than an empty square.
    # Read empty before the centre's outline and rim were compared with the double words'.
    seed = 5408
    spec = _with_blank_on_the_centre(seed, "wood")
    _scene, cells = read_rendered(spec, seed)
    assert (cells[(7, 7)].kind, cells[(7, 7)].letter) == ("tile", "?"), cells[(7, 7)]
    held = {rc for rc, sq in spec.content.items() if sq.kind != "empty"}
    assert [rc for rc, c in cells.items() if rc not in held and c.kind != "empty"] == []


def test_an_empty_centre_stays_empty():
    # The same board with nothing on the centre: its star is ink in its middle.
    seed = 5408
    spec = preset("mounted", np.random.default_rng(seed), features=True)
    content = {rc: sq for rc, sq in spec.content.items() if rc != (7, 7)}
    _scene, cells = read_rendered(replace(spec, content=content), seed)
    assert cells[(7, 7)].kind == "empty", cells[(7, 7)]
