"""Every test gets its own empty user data directory: no test reads or writes the user's word
lists, and what a user has changed cannot change a test's outcome."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "data"
    monkeypatch.setenv("COMPANION_DATA_DIR", str(path))
    return path
