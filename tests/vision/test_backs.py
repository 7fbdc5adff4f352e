"""Calibrating a set's backs (the dungeon's walls and monsters lie face down): learned from a
photo of backs alone, they are read beside many white faces too, whose brightness changes the
photo's exposure (the backs are matched by their ratio to the board's plain squares)."""

from __future__ import annotations

import subprocess
import sys

import cv2
import pytest

from companion.sim.camera import ReadBackCamera
from companion.core.tiles import get_tileset
from companion.core.errors import CompanionError
from companion.vision.alphabet import alphabet_order
from companion.vision.calibration import calibrate_alphabet, calibrate_backs
from companion.vision.profile import load_profile, save_profile
from companion.vision.reader import read_board
from companion.sim.scene import Square
from tests.table.dungeon_world import SET, calibrated


@pytest.fixture(scope="module")
def camera():
    return ReadBackCamera("en", 15)


@pytest.fixture(scope="module")
def profile(camera):
    return calibrated(camera)


def test_backs_need_the_sets_faces_first_and_tiles_face_down(camera, profile):
    with pytest.raises(CompanionError, match="calibrate its alphabet first"):
        calibrate_backs(camera._photo({}), camera.profile, "x", SET, [(3, 3)])
    with pytest.raises(CompanionError, match=r"square \(3, 3\) looks empty"):
        calibrate_backs(camera._photo({}), profile, "x", SET, [(3, 3)])
    with pytest.raises(CompanionError, match=r"square \(3, 3\) shows a letter"):
        calibrate_backs(camera._photo({(3, 3): Square.tile("K", set=SET)}), profile, "x", SET, [(3, 3)])


def test_backs_are_read_beside_many_faces(camera, profile):
    assert profile.arrays["set_backs_rel"].shape == (1, 3)
    content = {(r, c): Square.tile(ch, set=SET) for r, word in ((0, "LANTERN"), (4, "NOTABLE"), (12, "EMBRACE"))
               for c, ch in enumerate(word)}
    backs = [(0, 7), (1, 7), (2, 7), (7, 0), (7, 1), (7, 2), (7, 12), (7, 13), (7, 14), (10, 2), (10, 3), (10, 4)]
    content.update({s: Square.back(set=SET) for s in backs})
    reading = read_board(camera._photo(content), tileset="en", grid=15, profile=profile)
    seen = {(c.row, c.col): c for c in reading.cells}
    assert [s for s in backs if seen[s].kind != "back" or seen[s].confidence < 0.5] == []
    assert all(seen[s].kind == "tile" for s in content if s not in backs)


def test_companion_calibrate_layout_backs(tmp_path, camera):
    base = tmp_path / "base.json"
    alphabet = {divmod(i, 15): Square.tile(ch, set=SET) for i, ch in enumerate(alphabet_order(get_tileset("en")))}
    profile, _ = calibrate_alphabet(camera._photo(alphabet), camera.profile, "alphabet", SET)
    save_profile(profile, base)
    photo = tmp_path / "backs.png"
    row = {(7, c): Square.back(set=SET) for c in range(15)}
    cv2.imwrite(str(photo), camera._photo(row))
    out = tmp_path / "table.json"

    def calibrate(image):
        return subprocess.run([sys.executable, "-m", "companion", "calibrate", str(image), "--out", str(out),
                               "--layout", "backs", "--set", SET, "--profile", str(base)],
                              capture_output=True, text=True, timeout=180)

    proc = calibrate(photo)
    assert proc.returncode == 0, proc.stderr
    assert f"the backs of set '{SET}' learned" in proc.stdout
    learned = load_profile(out)
    assert learned.arrays["set_backs"].shape == (1, 3) and learned.arrays["set_backs_rel"].shape == (1, 3)
    del row[(7, 4)]
    cv2.imwrite(str(photo), camera._photo(row))
    proc = calibrate(photo)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "square (7, 4) looks empty" in proc.stderr


def test_each_sets_backs_stay_its_own_when_another_set_is_calibrated_or_one_again(camera, profile):
    """The backs' rows follow the sets' order: a second set's alphabet adds a row of its own
    (not yet known), and calibrating the first set's alphabet again keeps its place, so its
    backs stay its own (before, it moved to the end and took the other set's backs)."""
    import numpy as np

    order = alphabet_order(get_tileset("en"))
    ivory = profile.arrays["set_backs"][0].copy()
    blue_alphabet = {divmod(i, 15): Square.tile(ch, set="blue") for i, ch in enumerate(order)}
    two, _ = calibrate_alphabet(camera._photo(blue_alphabet), profile, "blue alphabet", "blue")
    assert [s.name for s in two.sets] == [SET, "blue"]
    assert np.array_equal(two.arrays["set_backs"][0], ivory) and np.isnan(two.arrays["set_backs"][1]).all()
    blue_backs = {(7, c): Square.back(set="blue") for c in range(15)}
    two, _ = calibrate_backs(camera._photo(blue_backs), two, "blue backs", "blue", list(blue_backs))
    blue = two.arrays["set_backs"][1].copy()
    assert np.array_equal(two.arrays["set_backs"][0], ivory) and not np.isnan(blue).any()
    ivory_alphabet = {divmod(i, 15): Square.tile(ch, set=SET) for i, ch in enumerate(order)}
    again, _ = calibrate_alphabet(camera._photo(ivory_alphabet), two, "ivory alphabet again", SET)
    assert [s.name for s in again.sets] == [SET, "blue"]
    assert np.array_equal(again.arrays["set_backs"][0], ivory) and np.array_equal(again.arrays["set_backs"][1], blue)
    # And the table reads each set's backs as backs of that set.
    content = {(3, 3): Square.back(set=SET), (3, 5): Square.back(set="blue")}
    seen = {(c.row, c.col): c for c in read_board(camera._photo(content), tileset="en", grid=15, profile=again).cells}
    assert (seen[(3, 5)].kind, seen[(3, 5)].set) == ("back", "blue")
    # The ivory back lies on a double-word square, where the network is all but sure it sees an
    # empty square (0.9998), and the prototypes and the rules without the profile agree: its
    # calibrated kind falls under a third and the network's answer is shown (model.switch_kinds).
    # Never a sure mistake: read as the profile's back, or asked about.
    assert (seen[(3, 3)].kind, seen[(3, 3)].set) == ("back", SET) or seen[(3, 3)].confidence < 0.5
