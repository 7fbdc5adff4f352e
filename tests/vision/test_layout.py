"""The premium layout settles where a grid lies: on an edition whose premium squares share
colours with its tiles and its frame, and a grid found a whole square off."""

from __future__ import annotations

import numpy as np
import pytest

from companion.core.board import STANDARD, Premium
from companion.vision.layout import even_light, layout_fit, layout_shift

WHITE, WOOD, FRAME = (236, 238, 239), (105, 150, 200), (50, 50, 200)  # BGR
LOOK = {Premium.DL: (215, 190, 150), Premium.TL: (160, 110, 60), Premium.DW: (110, 155, 205), Premium.TW: (55, 55, 205)}


def _board_colours(dx: int, dy: int, margin: int, covered: float, seed: int) -> np.ndarray:
    """Square colours seen through a grid whose squares show the board's ``(dx, dy)`` squares
    further on, with ``margin`` squares round it (a Hasbro-like
    edition: white squares, a red frame, a red triple word, a double word the tiles' colour),
    ``covered`` of the plain squares under tiles, each colour with a little noise."""
    rng = np.random.default_rng(seed)
    n = 15 + 2 * margin
    out = np.empty((n, n, 3), np.float32)
    for r in range(n):
        for c in range(n):
            br, bc = r - margin + dy, c - margin + dx  # the board's own square under it
            if not (0 <= br < 15 and 0 <= bc < 15):
                colour = FRAME
            elif STANDARD.premiums[br][bc] is not Premium.NONE:
                colour = LOOK[STANDARD.premiums[br][bc]]
            else:
                colour = WOOD if rng.random() < covered else WHITE
            out[r, c] = np.asarray(colour, np.float32) + rng.normal(0, 4, 3)
    return out


@pytest.mark.parametrize("dx,dy", [(1, 0), (0, -1), (-1, 1), (0, 0)])
@pytest.mark.parametrize("covered", [0.2, 0.45])
def test_a_grid_a_square_off_is_put_back(dx, dy, covered):
    colours = _board_colours(dx, dy, 2, covered, seed=dx * 7 + dy * 3 + int(covered * 100))
    got_dx, got_dy, fit, runner_up = layout_fit(colours, 15, 15, 2)
    # The window that lies on the board is the one starting (-dx, -dy) squares away.
    assert (got_dx, got_dy) == (-dx, -dy)
    assert fit - runner_up >= 0.15
    placed = layout_shift(colours, 15, 15, 2)
    assert placed is not None and placed[:2] == (-dx, -dy)


def test_no_layout_no_shift():
    # A board of one colour with tiles: nothing says where the premium squares are.
    rng = np.random.default_rng(3)
    colours = np.where(rng.random((19, 19, 1)) < 0.3, WOOD, WHITE).astype(np.float32) + rng.normal(0, 4, (19, 19, 3))
    assert layout_shift(colours.astype(np.float32), 15, 15, 2) is None


def test_a_lamp_nearer_one_side_does_not_hide_where_the_grid_lies():
    # A lamp beside the board: the light falls to a quarter from one side to the other, so
    # the plain squares spread over shades far apart and a premium square in the bright part
    # is as light as a plain one in the dim part. As seen, the layout fits no window clearly;
    # with the light evened out it puts the grid back (rendered 14418 and 12412 were found a
    # row off, every square read one row wrong).
    colours = _board_colours(0, -1, 2, 0.2, seed=5)
    n = colours.shape[0]
    yy, xx = np.mgrid[0:n, 0:n]
    light = 1.3 - 1.0 * xx / (n - 1)
    lit = np.clip(colours * light[..., None], 0, 255).astype(np.float32)
    _dx, _dy, fit, runner_up = layout_fit(lit, 15, 15, 2)
    assert not (fit >= 0.2 and fit - runner_up >= 0.15)  # as seen: nothing clear
    placed = layout_shift(lit, 15, 15, 2)
    assert placed is not None and placed[:2] == (0, 1)


def test_even_light_keeps_an_evenly_lit_board_and_the_unseen():
    colours = _board_colours(0, 0, 2, 0.2, seed=9)
    colours[:2] = np.nan  # off the image
    evened = even_light(colours, 2)
    assert np.isnan(evened[:2]).all()
    plain = (np.abs(colours - np.asarray(WHITE)).max(-1) < 20)
    assert np.abs(evened[plain] - colours[plain]).max() < 0.1 * 255
