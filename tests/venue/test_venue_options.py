"""The venue screen's options are its service's configuration: a bad one is one line and exit 78
(ConfigError), which systemd/companion-venue.service does not restart into."""

from __future__ import annotations

import subprocess
import sys

import pytest

from companion.core.errors import CONFIG_EXIT


@pytest.mark.parametrize("args, said", [
    (["club", "--broker", "nohost"], "--broker: HOST:PORT, like 192.168.1.10:1883, not 'nohost'"),
    (["club", "--port", "70000"], "--port: from 0 to 65535, not 70000"),
    (["club", "--ca-file", "/nonexistent/ca.pem"], "--ca-file: no such file: /nonexistent/ca.pem"),
    (["club", "--password-file", "/nonexistent/pw"], "/nonexistent/pw: cannot read"),
    (["a/b#"], ""),
])
def test_a_bad_option_is_one_line_and_exit_78(args: list[str], said: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "companion", "venue", *args], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == CONFIG_EXIT, (proc.returncode, proc.stderr)
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("companion: ") and said in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
