"""A stranger's table set up as its user would (bench.vision.table_profile: the empty board, each
set's alphabet, its backs), on development seeds (the benchmark's are 50000 on):

- the board on a checked cloth whose checks are the board's own size is found (the finder's
  thin-line phase: a board is thin lines, a cloth is edges);
- backs that look like the square under them (a red back on a red premium square) are no
  missing tile: the calibration is accepted;
- a profile step whose colour is a premium square's own is kept out of the profile, so that the
  profile reads the table's game no worse than no profile does.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from bench.vision import table_profile
from companion.sim.render import render
from companion.sim.scene import stranger
from companion.vision.grid import locate_grid
from companion.vision.lines import thin_lines
from companion.vision.reader import read_board
from companion.vision.reading import compare

CORNERS = np.array([[0, 0], [15, 0], [15, 15], [0, 15]], float)


def _scene(seed: int):
    rng = np.random.default_rng(seed)
    phone = bool(rng.random() < 0.5)
    return stranger(rng, phone=phone), phone


def test_an_empty_board_on_checks_of_its_own_size_is_found() -> None:
    # Seed 70024: a phone over a red checked cloth, checks about a square across and turned a
    # little from the board; the usual guesses take the cloth's lines (refused before).
    spec, _ = _scene(70024)
    scene = render(replace(spec, content={}), 70024, frame=1)
    found = locate_grid(scene.image, 15, 15)
    assert float(np.abs(found.to_grid(scene.location.corners) - CORNERS).max()) < 0.35


def test_thin_lines_keep_a_line_and_drop_an_edge() -> None:
    gray = np.full((60, 60), 100, np.uint8)
    gray[:, 40:] = 200  # an edge at x = 40
    gray[:, 14:16] = 160  # a thin line at x = 14.5
    seg = np.array([[13.5, 5, 13.5, 55], [39.5, 5, 39.5, 55]], float)
    assert thin_lines(gray, seg).tolist() == [True, False]


@pytest.fixture(scope="module")
def table():
    # Seed 70009: one red set on a phone; its faces' red is the triple-word squares' own, and
    # its backs' row crosses a triple-word square of their colour. Before: the backs refused
    # ("square (7, 0) looks empty"), and the profile read 8 squares wrong where none read 3.
    spec, phone = _scene(70009)
    profile, refused = table_profile(spec, 70009, phone)
    return spec, profile, refused


def test_a_strangers_table_is_set_up_without_a_refusal(table) -> None:
    _, profile, refused = table
    assert refused == []
    assert "not kept" in profile.notes["alphabet:red"]  # its colour is the board's own: said, not used


def test_the_tables_profile_reads_its_game_no_worse(table) -> None:
    spec, profile, _ = table
    scene = render(spec, 70009)
    names = {s.name for s in profile.sets}
    truth = [c if c.set in names else replace(c, set=None) for c in scene.truth.cells]
    wrong = {}
    for part, prof in (("none", None), ("profile", profile)):
        reading = read_board(scene.image, tileset=spec.tileset, grid=spec.grid, profile=prof)
        wrong[part] = sum(compare([t], [reading.cell(t.row, t.col)])["square"] for t in truth)
    assert wrong["profile"] <= wrong["none"]
