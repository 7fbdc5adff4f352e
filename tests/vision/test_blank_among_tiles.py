"""A blank whose every corner has a neighbour at it: its outline's weak corners say little.

A face's corners show its rounded outline only where nothing covers them. Where something
stands at each corner (beside the square or across the corner), a neighbour's overhang may
hide a corner and its edge may run along one: the outline's vote against a face is kept
small there (companion.vision.cells.shapes._corners_hidden), while its vote for one stands."""

import numpy as np

from companion.vision.cells.shapes import _corners_hidden
from companion.sim.scene import preset

from .rendered import read_rendered


def test_corners_are_hidden_only_where_something_stands_at_each_of_them():
    held = np.zeros((5, 5), bool)
    held[1, 2] = held[3, 2] = True  # above and below the middle square: all four corners
    hidden = _corners_hidden(held)
    assert hidden[2, 2]
    held[3, 2] = False  # nothing at the bottom corners now
    assert not _corners_hidden(held)[2, 2]
    held[3, 1] = held[3, 3] = True  # ... but across both bottom corners
    assert _corners_hidden(held)[2, 2]
    # The board's edge holds nothing: a square on it has a corner with nothing at it.
    edge = np.zeros((3, 3), bool)
    edge[1, :] = True
    assert not _corners_hidden(edge)[0, 1]


def test_blanks_among_tiles_are_faces():
    # Development scenes: pale blanks with a tile or back at each corner (a neighbour's
    # corner across one, an overhang on another) whose outline voted -3 against a face,
    # and were read empty. Every square of these scenes is read as the kind it holds.
    cases = {6104: (14, 1), 6139: (6, 5), 6273: (2, 12)}
    for seed, rc in cases.items():
        scene, cells = read_rendered(preset("mounted", np.random.default_rng(seed), features=True), seed)
        assert scene.truth.cell(*rc).letter == "?"
        assert (cells[rc].kind, cells[rc].letter) == ("tile", "?"), (seed, cells[rc])
        wrong = [(t.row, t.col) for t in scene.truth.cells if cells[(t.row, t.col)].kind != t.kind]
        assert wrong == [], (seed, wrong)
