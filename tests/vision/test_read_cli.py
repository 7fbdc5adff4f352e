"""`companion read` and `companion calibrate` through the command line, as the contract says."""

from __future__ import annotations

import subprocess
import sys

import cv2
import numpy as np
import pytest



def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, timeout=120)


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


def test_a_file_that_is_not_an_image(tmp_path):
    f = tmp_path / "notes.jpg"
    f.write_text("hello, not a picture")
    assert "not an image" in one_line_error(run("read", str(f), "--json"))
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    assert "empty file" in one_line_error(run("read", str(empty), "--json"))
    assert "no such file" in one_line_error(run("read", str(tmp_path / "missing.png"), "--json"))
    assert "directory" in one_line_error(run("read", str(tmp_path), "--json"))


@pytest.mark.parametrize("kind", ["blank", "noise", "stripes"])
def test_an_image_with_no_board(tmp_path, kind):
    rng = np.random.default_rng(1)
    if kind == "blank":
        img = np.full((600, 800, 3), 200, np.uint8)
    elif kind == "noise":
        img = rng.integers(0, 256, (600, 800, 3), dtype=np.uint8)
    else:
        img = np.zeros((600, 800, 3), np.uint8)
        img[:, ::40] = 255
    f = tmp_path / f"{kind}.png"
    cv2.imwrite(str(f), img)
    assert "board" in one_line_error(run("read", str(f), "--json"))


def test_bad_profile_and_options(tmp_path):
    img = tmp_path / "x.png"
    cv2.imwrite(str(img), np.zeros((50, 50, 3), np.uint8))
    bad = tmp_path / "p.json"
    bad.write_text("{")
    assert "not a profile" in one_line_error(run("read", str(img), "--profile", str(bad)))
    assert run("read", str(img), "--grid", "19").returncode == 2
    assert run("read", str(img), "--tileset", "xx").returncode == 2


def test_a_romanian_board_is_read_with_its_own_letters(tmp_path):
    """A Romanian set (no K, Q, W or Y): read through the command with ``--tileset ro``, every
    tile read as one of the set's own letters, and as the letter it is."""
    import json

    from companion.core.tiles import get_tileset
    from companion.sim.render import render
    from companion.sim.scene import preset

    spec = preset("clean", np.random.default_rng(7), tileset="ro", n_tiles=30)
    scene = render(spec, 7)
    photo = tmp_path / "ro.png"
    cv2.imwrite(str(photo), scene.image)
    proc = run("read", str(photo), "--tileset", "ro", "--json")
    assert proc.returncode == 0, proc.stderr
    cells = json.loads(proc.stdout)["cells"]
    alphabet = get_tileset("ro").alphabet | {"?"}
    tiles = [(c, t) for c, t in zip(cells, scene.truth.cells) if t.kind == "tile"]
    assert len(tiles) >= 20
    assert all(c["letter"] in alphabet for c, _ in tiles if c["kind"] == "tile")
    assert sum(c["letter"] == t.letter for c, t in tiles) >= len(tiles) - 1
