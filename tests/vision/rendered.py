"""Rendered scenes read square by square, as the reader's tests need them: a profile naming each
set's face and back colour (what calibration gives a mounted camera), the board seen from above,
every square's reading by its place."""

from __future__ import annotations

import numpy as np

from companion.core.board import STANDARD
from companion.core.tiles import get_tileset
from companion.vision.cells import CELL_PX, MARGIN, read_board_cells
from companion.vision.grid import locate_grid, rectify
from companion.vision.profile import Profile, TileSetColour
from companion.sim.render import RenderedScene, render
from companion.sim.scene import SceneSpec, preset


def read_rendered(spec: SceneSpec, seed: int, found_grid: bool = True) -> tuple[RenderedScene, dict]:
    """``spec`` rendered with ``seed`` and read. ``found_grid``: the grid as the reader finds it
    (the scene's exact grid would hide a pixel's misfit); else the scene's own."""
    scene = render(spec, seed)
    names = sorted({sq.set for sq in spec.content.values() if sq.kind != "empty"})
    profile = Profile(tileset=spec.tileset, sets=tuple(TileSetColour(n, spec.looks[n].body) for n in names)).with_arrays(
        set_backs=np.array([spec.looks[n].back for n in names], np.uint8).reshape(-1, 3))
    location = locate_grid(scene.image, spec.grid, spec.grid) if found_grid else scene.location
    top = rectify(scene.image, location, CELL_PX, MARGIN)
    reading = read_board_cells(top, CELL_PX, MARGIN, STANDARD, get_tileset(spec.tileset), profile=profile)
    return scene, {(c.row, c.col): c for c in reading.cells}


def named_faces(cases: dict[int, list[tuple[int, int]]]):
    """The named squares of mounted development scenes (seed: squares), each holding a face in
    truth, read: (seed, square, truth, reading) for each."""
    for seed, squares in cases.items():
        scene, cells = read_rendered(preset("mounted", np.random.default_rng(seed), features=True), seed)
        for rc in squares:
            truth = scene.truth.cell(*rc)
            assert truth.kind == "tile", (seed, rc, truth)
            yield seed, rc, truth, cells[rc]


def faces_misread(cases: dict[int, list[tuple[int, int]]]) -> list[tuple[int, tuple[int, int], object]]:
    """Of the named squares of mounted development scenes (seed: squares), each holding a face
    in truth, those not read as a face with its letter: (seed, square, reading)."""
    return [(seed, rc, read) for seed, rc, truth, read in named_faces(cases)
            if (read.kind, read.letter) != ("tile", truth.letter)]
