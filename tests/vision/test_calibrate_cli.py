"""`companion calibrate` end to end on rendered photos: the empty board, then two sets' alphabets,
then a game photo read with the profile."""

from __future__ import annotations

import json
import subprocess
import sys

import cv2
import numpy as np

from companion.core.tiles import get_tileset
from companion.vision.alphabet import alphabet_order
from companion.vision.profile import load_profile
from companion.vision.reading import BoardReading, compare
from companion.sim.render import render
from companion.sim.scene import SceneSpec, Square, mounted_camera, mounted_photo


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, timeout=180)


def _scene(content, seed=5):
    rng = np.random.default_rng(seed)
    spec = SceneSpec(content=content, tileset="de", camera=mounted_camera(rng), photo=mounted_photo(rng))
    return render(spec, seed)


def _alphabet(set_name):
    order = alphabet_order(get_tileset("de"))
    return {divmod(i, 15): Square.tile(letter, set=set_name) for i, letter in enumerate(order)}


def test_calibrate_empty_then_alphabets_then_read(tmp_path):
    empty = tmp_path / "empty.png"
    cv2.imwrite(str(empty), _scene({}).image)
    profile = tmp_path / "table.json"
    proc = run("calibrate", str(empty), "--out", str(profile), "--layout", "empty", "--tileset", "de")
    assert proc.returncode == 0, proc.stderr
    p = load_profile(profile)
    assert p.corners is not None and p.tileset == "de" and "empty_bgr" in p.arrays

    for name in ("ivory", "pink"):
        photo = tmp_path / f"alphabet-{name}.png"
        cv2.imwrite(str(photo), _scene(_alphabet(name)).image)
        proc = run("calibrate", str(photo), "--layout", "alphabet", "--set", name,
                   "--profile", str(profile), "--out", str(profile))
        assert proc.returncode == 0, proc.stderr
    p = load_profile(profile)
    assert [s.name for s in p.sets] == ["ivory", "pink"]
    assert set(p.arrays["letter_sets"]) == {"ivory", "pink"}
    assert len(p.arrays["letter_codes"]) == len(p.arrays["letter_sets"])
    # Calibrating a set again replaces only its own letters.
    before = int((p.arrays["letter_sets"] == "pink").sum())
    proc = run("calibrate", str(tmp_path / "alphabet-ivory.png"), "--layout", "alphabet", "--set", "ivory",
               "--profile", str(profile), "--out", str(profile))
    assert proc.returncode == 0, proc.stderr
    p = load_profile(profile)
    assert int((p.arrays["letter_sets"] == "pink").sum()) == before
    assert [s.name for s in p.sets] == ["ivory", "pink"]  # in its place: the backs' rows follow this order

    game = {(7, c): Square.tile(ch, set="ivory" if c % 2 else "pink") for c, ch in enumerate("SCHÖN", start=5)}
    scene = _scene(game)
    photo = tmp_path / "game.png"
    cv2.imwrite(str(photo), scene.image)
    proc = run("read", str(photo), "--profile", str(profile), "--json")
    assert proc.returncode == 0, proc.stderr
    reading = BoardReading.from_json(json.loads(proc.stdout))
    # Every tile of the game read right, and no square read wrong surely. A square may be asked
    # about with the reader's best guess shown: the bare corner (14, 0), which the profiled
    # rules read empty at 0.0 and the network as a back at 0.88, is asked either way (the
    # calibrator refitted at cc597eb puts its kind under a third, so the network's guess shows).
    cells = {(c.row, c.col): c for c in reading.cells}
    assert all(compare([t], [cells[(t.row, t.col)]])["square"] == 0 for t in scene.truth.cells if t.kind == "tile")
    wrong = [cells[(t.row, t.col)] for t in scene.truth.cells if compare([t], [cells[(t.row, t.col)]])["square"]]
    assert len(wrong) <= 1 and all(c.confidence < 0.5 for c in wrong), wrong


def test_calibrate_refuses_a_photo_without_a_board(tmp_path):
    photo = tmp_path / "blank.png"
    cv2.imwrite(str(photo), np.full((400, 400, 3), 128, np.uint8))
    proc = run("calibrate", str(photo), "--out", str(tmp_path / "p.json"))
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "p.json").exists()
