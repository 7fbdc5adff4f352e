"""The shipped house lists are what scripts/build_lexicons.py makes of Debian's word lists."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from companion.lexicon.house import manifest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "build_lexicons.py"
SCOWL = Path("/usr/share/dict/scowl")
NGERMAN = Path("/usr/share/dict/ngerman")


def installed_version(package: str) -> str:
    """The version the script would record, read the script's own way."""
    spec = importlib.util.spec_from_file_location("build_lexicons", SCRIPT)
    assert spec and spec.loader
    script = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, script)  # its dataclass looks itself up there
    spec.loader.exec_module(script)
    return script.debian_version(Path("/usr/share/doc") / package)


def shipped() -> dict[str, bytes]:
    data = resources.files("companion.lexicon").joinpath("data")
    return {p.name: p.read_bytes() for p in data.iterdir() if p.is_file()}


def test_rebuilding_gives_the_shipped_files_byte_for_byte(tmp_path: Path):
    if not SCOWL.is_dir() or not NGERMAN.is_file():
        pytest.skip(
            "needs Debian's scowl and wngerman (apt-get install scowl wngerman; .ci/run does)"
        )
    for name, package in (("en", "scowl"), ("de", "wngerman")):
        version = installed_version(package)
        if version not in manifest()[name]["source"]:
            pytest.skip(
                f"installed {package} {version} is not the one the shipped list was built from "
                f"({manifest()[name]['source']}); `make lexicons` rebuilds it"
            )
    r = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(tmp_path)], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    rebuilt = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    committed = shipped()
    assert sorted(rebuilt) == sorted(committed)
    different = [name for name in rebuilt if rebuilt[name] != committed[name]]
    assert different == [], "shipped lists differ from a rebuild; run `make lexicons`"
