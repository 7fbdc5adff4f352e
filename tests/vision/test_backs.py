"""Calibrating a set's backs (the dungeon's walls and monsters lie face down): learned from a
photo of backs alone, they are read beside many white faces too, whose brightness changes the
photo's exposure (the backs are matched by their ratio to the board's plain squares)."""

from __future__ import annotations

import pytest

from companion.commands.demo import _Camera
from companion.errors import CompanionError
from companion.vision.calibration import calibrate_backs
from companion.vision.reader import read_board
from companion.vision.scene import Square
from tests.table.dungeon_world import SET, calibrated


@pytest.fixture(scope="module")
def camera():
    return _Camera("en", 15)


def test_backs_need_the_sets_faces_first_and_tiles_face_down(camera):
    with pytest.raises(CompanionError, match="calibrate its alphabet first"):
        calibrate_backs(camera._photo({}), camera.profile, "x", SET, [(3, 3)])
    profile = calibrated(camera)
    with pytest.raises(CompanionError, match=r"square \(3, 3\) looks empty"):
        calibrate_backs(camera._photo({}), profile, "x", SET, [(3, 3)])
    with pytest.raises(CompanionError, match=r"square \(3, 3\) shows a letter"):
        calibrate_backs(camera._photo({(3, 3): Square.tile("K", set=SET)}), profile, "x", SET, [(3, 3)])


def test_backs_are_read_beside_many_faces(camera):
    profile = calibrated(camera)
    assert profile.arrays["set_backs_rel"].shape == (1, 3)
    content = {(r, c): Square.tile(ch, set=SET) for r, word in ((0, "LANTERN"), (4, "NOTABLE"), (12, "EMBRACE"))
               for c, ch in enumerate(word)}
    backs = [(0, 7), (1, 7), (2, 7), (7, 0), (7, 1), (7, 2), (7, 12), (7, 13), (7, 14), (10, 2), (10, 3), (10, 4)]
    content.update({s: Square.back(set=SET) for s in backs})
    reading = read_board(camera._photo(content), tileset="en", grid=15, profile=profile)
    seen = {(c.row, c.col): c for c in reading.cells}
    assert [s for s in backs if seen[s].kind != "back" or seen[s].confidence < 0.5] == []
    assert all(seen[s].kind == "tile" for s in content if s not in backs)
