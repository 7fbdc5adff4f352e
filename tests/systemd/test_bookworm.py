"""The Pi's Python environment, built here as systemd/install.sh builds it on Raspberry Pi OS
Bookworm: apt's numpy 1.24.2 (what python3-picamera2 and its helpers are built against) under a
venv into which pip installs the project's requirements with the `pi` extra.

What must hold (pyproject.toml's `pi` extra says why): pip leaves apt's numpy alone (a numpy 2 in
the venv would shadow it and break `import picamera2`), the OpenCV it picks imports beside numpy
1.24, and the board reader reads a photo with them as it does with the development versions.

The venv is kept in pytest's cache (rebuilt when the requirements change): the first run downloads
numpy and OpenCV (about 15 s), later runs take a few seconds. Offline, with no venv kept, the
tests skip with a message.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).parents[2]
SHARED_PHOTO = ROOT.parent / "shared" / "photos" / "scrabscrap" / "board-neu" / "board-01.jpg"
BOOKWORM_NUMPY = "1.24.2"  # Debian bookworm's python3-numpy (1:1.24.2-1), Raspberry Pi OS's too
# Installed from apt by install.sh (python3-lgpio): PyPI has only its source, which needs swig.
FROM_APT = {"lgpio"}
# A Raspberry Pi 4 or 5 on 64-bit Raspberry Pi OS Bookworm (glibc 2.36, CPython 3.11).
PI_PLATFORMS = ("manylinux_2_36_aarch64", "manylinux_2_28_aarch64", "manylinux_2_17_aarch64",
                "manylinux2014_aarch64", "linux_aarch64")


def requirements(extra: str | None = "pi") -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"]) + (list(project["optional-dependencies"][extra]) if extra else [])
    return [r for r in reqs if Requirement(r).name not in FROM_APT]


def online() -> bool:
    try:
        socket.create_connection(("pypi.org", 443), timeout=3).close()
        return True
    except OSError:
        return False


def pip(python: Path, *args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(python), "-m", "pip", "--disable-pip-version-check", *args],
                          capture_output=True, text=True, timeout=timeout)


def installs(report: Path) -> dict[str, str]:
    return {i["metadata"]["name"].lower(): i["metadata"]["version"] for i in json.loads(report.read_text())["install"]}


@pytest.fixture(scope="module")
def bookworm_venv(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv holding numpy 1.24.2 (playing apt's) and what pip adds for the `pi` extra; kept in
    pytest's cache (a run without the cache, -p no:cacheprovider, builds it afresh)."""
    cache = getattr(request.config, "cache", None)
    folder = Path(cache.mkdir("bookworm-venv")) if cache is not None else tmp_path_factory.mktemp("bookworm-venv")
    python = folder / "bin" / "python"
    stamp = folder / "requirements.sha256"
    wanted = hashlib.sha256(json.dumps([BOOKWORM_NUMPY, requirements()]).encode()).hexdigest()
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    if not online():
        pytest.skip("offline (pypi.org unreachable) and no Bookworm venv built before: numpy 1.24 not checked")
    shutil.rmtree(folder, ignore_errors=True)
    venv.create(folder, with_pip=True)
    got = pip(python, "install", "-q", f"numpy=={BOOKWORM_NUMPY}")
    assert got.returncode == 0, got.stderr
    # What pip would add to apt's numpy, without the extra (a dry run) and with it (the install).
    chosen = {}
    for name, reqs, dry in (("plain", requirements(None), ["--dry-run"]), ("pi", requirements(), [])):
        report = folder / f"{name}.json"
        got = pip(python, "install", "-q", *dry, "--report", str(report), *reqs)
        assert got.returncode == 0, got.stderr
        chosen[name] = installs(report)
    (folder / "chosen.json").write_text(json.dumps(chosen))
    stamp.write_text(wanted)
    return python


def test_pip_keeps_apts_numpy_with_the_pi_extra_only(bookworm_venv: Path):
    chosen = json.loads((bookworm_venv.parents[1] / "chosen.json").read_text())
    # The point of the extra: pip finds apt's numpy good enough and installs none over it.
    assert "numpy" not in chosen["pi"], chosen["pi"]
    # Why it exists: the plain requirements make pip put a numpy 2 over apt's 1.24 (the newest
    # OpenCV wheels require it), which is what broke `import picamera2` on the Pi.
    assert int(chosen["plain"].get("numpy", "0").split(".")[0]) >= 2, chosen["plain"]


def test_the_reader_reads_with_bookworms_numpy(bookworm_venv: Path, tmp_path: Path):
    from companion.vision.reader import read_file

    if SHARED_PHOTO.exists():
        photo, tileset = SHARED_PHOTO, "de"
    else:  # ../shared absent: a rendered board instead of a real photo
        import cv2
        import numpy as np

        from companion.sim.render import render
        from companion.sim.scene import preset

        spec = preset("mounted", np.random.default_rng(3))
        photo, tileset = tmp_path / "board.png", spec.tileset
        cv2.imwrite(str(photo), render(spec, 3).image)
    script = (
        "import json, sys, numpy, cv2\n"
        "from pathlib import Path\n"
        "from companion.vision.reader import read_file\n"
        "r = read_file(Path(sys.argv[1]), tileset=sys.argv[2])\n"
        "print(json.dumps({'numpy': numpy.__version__, 'cv2': cv2.__version__, 'text': r.text(),\n"
        "                  'corners': r.corners}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([str(bookworm_venv), "-c", script, str(photo), tileset], capture_output=True,
                          text=True, timeout=120, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    there = json.loads(proc.stdout)
    assert there["numpy"] == BOOKWORM_NUMPY
    assert tuple(int(v) for v in there["cv2"].split(".")[:2]) < (4, 12), there["cv2"]
    here = read_file(photo, tileset=tileset)
    assert there["text"] == here.text()
    assert max(abs(a - b) for p, q in zip(there["corners"], here.corners) for a, b in zip(p, q)) < 0.5


def test_the_pi_extra_has_wheels_for_a_pi(tmp_path: Path):
    # Resolved for the Pi itself (aarch64, CPython 3.11, wheels only: nothing to compile on it),
    # with numpy held at Bookworm's.
    if not online():
        pytest.skip("offline (pypi.org unreachable): the Pi's resolution not checked")
    report = tmp_path / "report.json"
    platforms = [a for p in PI_PLATFORMS for a in ("--platform", p)]
    got = pip(Path(sys.executable), "install", "-q", "--dry-run", "--ignore-installed", "--report", str(report),
              "--target", str(tmp_path / "target"), *platforms, "--python-version", "3.11",
              "--implementation", "cp", "--only-binary=:all:", f"numpy=={BOOKWORM_NUMPY}", *requirements())
    assert got.returncode == 0, got.stderr[-2000:]
    chosen = installs(report)
    assert chosen["numpy"] == BOOKWORM_NUMPY
    assert tuple(int(v) for v in chosen["opencv-python-headless"].split(".")[:2]) < (4, 12), chosen
