"""Pale blanks on a board of nearly their colour are told by their rim: across a side whose
neighbour is empty, a tile shows its bevel, the side wall of its slab turned to the camera, its
foot and shadow; an empty square shows its grid line (companion.vision.rims). Drawn profiles for
the measure itself, a rendered scene (companion.sim.render) for the reading."""

from dataclasses import replace

import numpy as np

from companion.vision.rims import INSETS, side_profiles, side_score
from companion.sim.scene import Square, preset

from .rendered import read_rendered


def _drawn(rng: np.random.Generator, kind: str) -> np.ndarray:
    """A 3x3-square patch (48 px squares, 200 grey board, light grid lines) whose middle
    square holds ``kind``: "empty"; "tile", a face of the board's grey with a darker wall
    3 px wide along its right side inside the square; "shadow", an empty square with a soft
    shadow across its right side (unlike both)."""
    p = 48
    img = np.full((3 * p, 3 * p), 200.0, np.float32)
    for i in range(4):
        img[i * p - 1 : i * p + 2, :] = 225.0
        img[:, i * p - 1 : i * p + 2] = 225.0
    x1 = 2 * p
    if kind == "tile":
        img[p + 2 : 2 * p - 2, x1 - 6 : x1 - 2] = 120.0  # the wall turned to the camera
        img[p + 2 : 2 * p - 2, x1 - 2 : x1 + 1] = 160.0  # its foot in the gap
    elif kind == "shadow":
        ramp = np.clip((np.arange(3 * p) - (x1 - 14)) / 14.0, 0, 1)
        img *= 1 - 0.3 * ramp[None, :] * (np.arange(3 * p)[:, None] >= p) * (np.arange(3 * p)[:, None] < 2 * p)
    return img + rng.normal(0, 2.0, img.shape).astype(np.float32)


def _right_side(img: np.ndarray) -> np.ndarray:
    return side_profiles(img, np.array([72.0], np.float32), np.array([72.0], np.float32), 48)[0, 1]


def test_a_walls_rim_is_a_faces_and_a_grid_line_is_an_empty_squares():
    rng = np.random.default_rng(3)
    tiles = np.stack([_right_side(_drawn(rng, "tile")) for _ in range(6)])
    empties = np.stack([_right_side(_drawn(rng, "empty")) for _ in range(8)])
    assert len(tiles[0]) == len(INSETS)
    assert side_score(_right_side(_drawn(rng, "tile")), tiles, empties) > 0.5
    assert side_score(_right_side(_drawn(rng, "empty")), tiles, empties) < -0.5
    # A shadow across the side is neither: it says little either way.
    assert abs(side_score(_right_side(_drawn(rng, "shadow")), tiles, empties)) < 0.5


def test_pale_blanks_among_words_are_faces_by_their_rims():
    # A development scene's board and camera (seed 5040: a classic board whose plain squares
    # are nearly ivory), with blanks inside words; each blank has an empty neighbour on at
    # least one side. The reader found them empty before the rims were compared.
    content = {(7, 3 + i): Square.tile(ch) for i, ch in enumerate("PLA?ET")}
    content.update({(3 + i, 5): Square.tile(ch) for i, ch in enumerate("QUI?T")})
    content.update({(11 + i, 11): Square.tile(ch) for i, ch in enumerate("MI?")})
    content.update({(3 + i, 10): Square.tile(ch) for i, ch in enumerate("JOKES")})
    content.update({(11, 2 + i): Square.tile(ch) for i, ch in enumerate("WORD")})
    seed = 5040
    spec = replace(preset("mounted", np.random.default_rng(seed), features=True), content=content)
    _scene, cells = read_rendered(spec, seed)
    lost = [(rc, cells[rc].kind, cells[rc].letter) for rc, sq in content.items()
            if (cells[rc].kind, cells[rc].letter) != ("tile", sq.letter)]
    assert lost == []
    assert [rc for rc in cells if rc not in content and cells[rc].kind != "empty"] == []
