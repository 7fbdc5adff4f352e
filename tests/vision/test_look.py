"""`companion look`, `read --overlay` and `calibrate --overlay`: one picture of what the camera found.

The grid drawn over a real photo must lie on the board's printed lines. The lines of these boards
are thin and dark: a black-hat filter (the closing minus the image) is bright on them and dim
inside the squares. The drawn grid's pixels (exactly the grid's green in the lossless PNG) must
find it clearly brighter than the same pixels moved a quarter or half a square, in every part
of the board, not only on average.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.overlay import GRID
from companion.sim.render import render
from companion.sim.scene import SceneSpec, mounted_camera, mounted_photo

SHARED = Path(__file__).parents[2].parent / "shared" / "photos" / "scrabscrap"
PHOTOS = ["board-neu/board-01.jpg", "board-neu/warp-14.jpg", "spiel-14/board-10.jpg"]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """`companion ARGS` in this process (the command line's own entry), its exit and output."""
    from companion.cli import main

    def command(*args: str) -> subprocess.CompletedProcess[str]:
        code = main(list(args))
        out = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, out.out, out.err)

    return command


def grid_pixels(picture: Path) -> np.ndarray:
    """Where the overlay drew its grid: pixels of exactly the grid's colour."""
    image = cv2.imread(str(picture))
    assert image is not None, picture
    return np.all(image == GRID, axis=2)


def line_strength(photo: np.ndarray, mask: np.ndarray, shift: int) -> float:
    gray = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
    hat = cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, cv2.getStructuringElement(cv2.MORPH_RECT, (15, 15)))
    ys, xs = np.nonzero(mask)
    ys, xs = np.clip(ys + shift, 0, gray.shape[0] - 1), np.clip(xs + shift, 0, gray.shape[1] - 1)
    return float(hat[ys, xs].mean()) if len(ys) else 0.0


@pytest.mark.parametrize("name", PHOTOS)
def test_look_draws_the_grid_on_the_boards_lines(run, tmp_path: Path, name: str):
    photo_path = SHARED / name
    if not photo_path.exists():
        pytest.skip(f"{photo_path} absent (../shared): the drawn grid is not checked on a real photo")
    out = tmp_path / "view.png"
    proc = run("look", "--image", str(photo_path), "--tileset", "de", "--once", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("look: frame 1: grid 15x15") and str(out) in proc.stdout
    photo = cv2.imread(str(photo_path))
    mask = grid_pixels(out)
    ys, xs = np.nonzero(mask)
    square = (xs.max() - xs.min()) / 15
    assert 60 < square < 1504 / 15 + 1, square  # the board fills most of these 1504 px photos
    # On the drawn lines, the printed lines' darkness; a quarter and half a square off, the
    # squares' insides. Over the whole board, and in each ninth of it (tiles hide the lines under
    # them, and one photo is dim: the margin there is smaller).
    def ratio(part: np.ndarray) -> float:
        return line_strength(photo, part, 0) / max(line_strength(photo, part, round(square * f)) for f in (0.25, 0.5))

    assert ratio(mask) > 1.5, (name, ratio(mask))
    h, w = mask.shape
    for i in range(3):
        for j in range(3):
            part = np.zeros_like(mask)
            part[i * h // 3:(i + 1) * h // 3, j * w // 3:(j + 1) * w // 3] = True
            assert ratio(part & mask) > 1.2, (name, i, j, ratio(part & mask))


def test_the_check_sees_a_grid_off_the_lines(tmp_path: Path):
    # The same measure on a grid drawn a third of a square off: it must fail there.
    photo_path = SHARED / PHOTOS[0]
    if not photo_path.exists():
        pytest.skip(f"{photo_path} absent (../shared)")
    from dataclasses import replace

    from companion.vision.overlay import draw_reading
    from companion.vision.reader import read_file

    reading = read_file(photo_path, tileset="de")
    square = (reading.corners[1][0] - reading.corners[0][0]) / 15
    moved = replace(reading, corners=tuple((x + square / 3, y + square / 3) for x, y in reading.corners))
    photo = cv2.imread(str(photo_path))
    mask = np.all(draw_reading(photo, moved) == GRID, axis=2)
    assert line_strength(photo, mask, 0) < line_strength(photo, mask, round(-square / 3))


def test_read_and_calibrate_draw_the_same_picture_as_look(run, tmp_path: Path):
    rng = np.random.default_rng(5)
    spec = SceneSpec(content={}, tileset="de", camera=mounted_camera(rng), photo=mounted_photo(rng))
    empty = tmp_path / "empty.png"
    cv2.imwrite(str(empty), render(spec, 5).image)
    profile = tmp_path / "table.json"
    pictures = {k: tmp_path / f"{k}.png" for k in ("look", "read", "calibrate")}
    proc = run("calibrate", str(empty), "--out", str(profile), "--tileset", "de", "--overlay", str(pictures["calibrate"]))
    assert proc.returncode == 0, proc.stderr
    assert f"{pictures['calibrate']}: grid 15x15" in proc.stdout
    proc = run("read", str(empty), "--profile", str(profile), "--overlay", str(pictures["read"]))
    assert proc.returncode == 0, proc.stderr
    frame = tmp_path / "frame.png"
    proc = run("look", "--image", str(empty), "--profile", str(profile), "--once", "--out", str(pictures["look"]),
               "--frame", str(frame))
    assert proc.returncode == 0, proc.stderr
    assert np.array_equal(cv2.imread(str(frame)), cv2.imread(str(empty)))  # the frame itself, undrawn
    masks = {k: grid_pixels(p) for k, p in pictures.items()}
    assert masks["look"].sum() > 1000
    # The same grid from the same profile: the same pixels (the caption's figures may differ).
    assert np.array_equal(masks["look"], masks["read"]) and np.array_equal(masks["look"], masks["calibrate"])


def test_look_refreshes_from_a_folder_and_says_each_frame(run, tmp_path: Path):
    rng = np.random.default_rng(8)
    spec = SceneSpec(content={}, tileset="en", camera=mounted_camera(rng), photo=mounted_photo(rng))
    (tmp_path / "frames").mkdir()
    cv2.imwrite(str(tmp_path / "frames" / "a.png"), render(spec, 8).image)
    cv2.imwrite(str(tmp_path / "frames" / "b.png"), np.full((300, 400, 3), 90, np.uint8))  # no board
    out = tmp_path / "view.png"
    proc = run("look", "--source", f"folder:{tmp_path / 'frames'},loop", "--frames", "3", "--every", "0",
               "--tileset", "en", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert [line.split(":")[1].strip() for line in lines] == ["frame 1", "frame 2", "frame 3"]
    assert "grid 15x15" in lines[0] and "no board found" in lines[1] and "grid 15x15" in lines[2]
    assert grid_pixels(out).sum() > 1000  # the last frame had a board


@pytest.mark.parametrize("args, said", [
    (["--out", "view.gif", "--once"], "as .png or .jpg"),
    (["--out", "view.png", "--once", "--image", "missing.jpg"], "missing.jpg: no such file"),
    (["--out", "view.png", "--frames", "0"], "--frames: 1 or more"),
    (["--out", "view.png", "--once", "--source", "folder:nowhere"], "nowhere: no such folder"),
])
def test_look_refuses_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                  args: list[str], said: str):
    from companion.cli import main

    photo = tmp_path / "p.png"
    cv2.imwrite(str(photo), np.full((100, 100, 3), 90, np.uint8))
    if "--image" not in args and "--source" not in args:
        args = [*args, "--image", str(photo)]
    monkeypatch.chdir(tmp_path)
    assert main(["look", "--tileset", "en", *args]) == 2
    out = capsys.readouterr()
    assert out.out == "", out
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and said in lines[0], out.err
