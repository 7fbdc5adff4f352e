"""A set the profile does not name (its alphabet not calibrated yet, a second colour of tiles)
is read as tiles of an unknown set, never as empty squares: learning one set's colour must not
make the reader lose the other's tiles, which it reads without any profile."""

from __future__ import annotations

import numpy as np

from companion.core.board import STANDARD
from companion.core.tiles import get_tileset
from companion.vision.cells import CELL_PX, MARGIN, read_board_cells
from companion.vision.grid import locate_grid, rectify
from companion.vision.profile import Profile, TileSetColour
from companion.sim.render import render
from companion.sim.scene import preset


def _read(seed: int, named: str):
    spec = preset("mounted", np.random.default_rng(seed), features=True)
    scene = render(spec, seed)
    top = rectify(scene.image, locate_grid(scene.image, 15, 15), CELL_PX, MARGIN)
    profile = Profile(tileset=spec.tileset, sets=(TileSetColour(named, spec.looks[named].body),))
    cells = read_board_cells(top, CELL_PX, MARGIN, STANDARD, get_tileset(spec.tileset), profile=profile).cells
    return scene, cells


def test_a_blue_set_beside_the_one_profiled_reads_as_tiles_of_no_named_set() -> None:
    scene, cells = _read(12027, "ivory")  # ivory and blue tiles; only ivory profiled (empty at 0.99 before)
    blue = [t for t in scene.truth.cells if t.kind == "tile" and t.set == "blue"]
    assert len(blue) >= 5
    read = [cells[t.row * 15 + t.col] for t in blue]
    assert all(r.kind == "tile" for r in read), [(r.row, r.col, r.kind, r.confidence) for r in read if r.kind != "tile"]
    assert all(r.set is None for r in read)
    ivory = [cells[t.row * 15 + t.col] for t in scene.truth.cells if t.kind == "tile" and t.set == "ivory"]
    assert ivory and all(r.set == "ivory" for r in ivory)


def test_a_wood_set_beside_the_one_profiled_is_not_read_empty() -> None:
    scene, cells = _read(12007, "ivory")  # ivory and wood: near in colour, still two sets
    wood = [t for t in scene.truth.cells if t.kind == "tile" and t.set == "wood"]
    assert wood and all(cells[t.row * 15 + t.col].kind == "tile" for t in wood)
