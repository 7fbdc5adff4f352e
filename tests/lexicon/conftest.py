"""Running the real command; the test's own data directory comes from tests/conftest.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest


@pytest.fixture
def companion(data_dir: Path) -> Callable[..., subprocess.CompletedProcess]:
    """Run the real command in a new process, as a user would, with the test's data directory."""

    def run(*args: str, input: bytes | None = None) -> subprocess.CompletedProcess:
        env = {**os.environ, "COMPANION_DATA_DIR": str(data_dir)}
        return subprocess.run(
            [sys.executable, "-m", "companion", *args],
            input=input,
            capture_output=True,
            env=env,
            timeout=60,
        )

    return run
