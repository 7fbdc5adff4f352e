"""The grid found lies on the board's own squares, not a square off or skewed across them.

A grid found a square off, or skewed by a square at the board's far end, reads every square of
a row or column wrong, so the finder is measured here on the renderer's scenes (exact truth,
lens included: :meth:`RenderedScene.to_image`) by the worst error of any grid intersection,
in squares. Which corner the finder calls top-left is the contract's business (tested in
test_grid.py); here only the lattice counts, so the error is the least over the four labellings.
"""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.grid import GridLocation, locate_grid
from companion.sim.render import RenderedScene, render
from companion.sim.scene import preset


def lattice_error(found: GridLocation, scene: RenderedScene) -> float:
    """The found grid's worst intersection error against the scene's truth, in squares, the
    least over the four ways of labelling its corners."""
    n = found.rows
    g = np.stack(np.meshgrid(np.arange(n + 1.0), np.arange(n + 1.0)), -1).reshape(-1, 2)
    got = found.to_grid(scene.to_image(g))
    errors = []
    x, y = g[:, 0], g[:, 1]
    for _ in range(4):
        errors.append(float(np.abs(got - np.column_stack((x, y))).max()))
        x, y = n - y, x
    return min(errors)


@pytest.mark.parametrize(
    "name, seed",
    [
        # A board with pale lines on a table striped a couple of degrees off its columns: the
        # stripes' pencil skewed the columns by squares at the far end, and the top row was
        # then found on the board's frame.
        ("mounted", 5312),
        # Oblique photos on cluttered tables where the same pull skewed a family of lines.
        ("phone", 5165),
        ("phone", 5287),
    ],
)
def test_a_table_s_lines_do_not_skew_the_grid(name, seed):
    spec = preset(name, np.random.default_rng(seed), features=True)
    scene = render(spec, seed)
    found = locate_grid(scene.image, spec.grid, spec.grid)
    # Lens distortion alone leaves up to about a quarter of a square at the far corners of a
    # homography; a row off is a whole one.
    assert lattice_error(found, scene) < 0.4
