"""The layers are checked (DESIGN.md, issue 23): import-linter's contracts in pyproject.toml pass
on the code, and a planted wrong-way import, a planted cycle or the reader importing the renderer
each fails them. The check runs on a copy of companion/'s Python files with one import planted."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONTRACTS = [c["name"] for c in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]]
LINT = Path(sys.executable).with_name("lint-imports")
if not LINT.exists():
    pytest.skip("import-linter is not installed (pip install -e '.[dev]')", allow_module_level=True)


def lint(tmp_path: Path, plant: tuple[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """lint-imports on a copy of companion/ (and pyproject.toml), with ``plant`` = (module file,
    import line) added to one module first."""
    for src in (ROOT / "companion").rglob("*.py"):
        dst = tmp_path / src.relative_to(ROOT)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
    shutil.copyfile(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    if plant is not None:
        path = tmp_path / plant[0]
        path.write_text(path.read_text(encoding="utf-8") + f"\n{plant[1]}\n", encoding="utf-8")
    # The copy comes first on the path: the contracts are checked on it, not on the installed package.
    return subprocess.run([str(LINT), "--no-cache"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})


def verdict(stdout: str, contract: str) -> str:
    """KEPT or BROKEN: the contract's line of lint-imports' summary (its name may wrap)."""
    m = re.search(re.escape(contract) + r"\s*(KEPT|BROKEN)", " ".join(stdout.split()))
    assert m, stdout
    return m[1]


def test_the_code_keeps_every_contract(tmp_path):
    result = lint(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert [verdict(result.stdout, c) for c in CONTRACTS] == ["KEPT"] * len(CONTRACTS) and len(CONTRACTS) == 3


@pytest.mark.parametrize("plant, broken, shown", [
    # core importing the web page: an arrow pointing up.
    (("companion/core/board.py", "import companion.web.hub"), "The layers", "companion.core.board -> companion.web.hub"),
    # the game log importing a game's session: a cycle in the table package.
    (("companion/table/store.py", "import companion.table.classic"), "No import cycle", "companion.table"),
    # the reader importing the renderer.
    (("companion/vision/reader.py", "import companion.sim.render"), "Only the simulated table imports the renderer",
     "companion.vision.reader -> companion.sim.render"),
], ids=["wrong-way", "cycle", "renderer"])
def test_a_planted_import_breaks_its_contract(tmp_path, plant, broken, shown):
    result = lint(tmp_path, plant)
    assert result.returncode != 0
    contract = next(c for c in CONTRACTS if c.startswith(broken))
    assert verdict(result.stdout, contract) == "BROKEN"
    assert shown in " ".join(result.stdout.split()), result.stdout
