"""`companion run` as systemd runs it: READY=1, watchdog pings, a clean stop on SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path


def test_run_notifies_systemd_pings_the_watchdog_and_stops_on_sigterm(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[game]\nplayers = 2\n")
    with tempfile.TemporaryDirectory(dir="/tmp") as d, socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        path = str(Path(d) / "notify")
        server.bind(path)
        server.settimeout(60)  # only a guard against a hang: every step waits for a message
        env = {**os.environ, "NOTIFY_SOCKET": path, "WATCHDOG_USEC": "100000"}
        proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "run", "--mock", "--config", str(config)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        try:
            assert server.recv(4096).startswith(b"READY=1\n")
            assert server.recv(4096) == b"WATCHDOG=1"
            assert server.recv(4096) == b"WATCHDOG=1"
            proc.send_signal(signal.SIGTERM)
            while (msg := server.recv(4096)) == b"WATCHDOG=1":
                pass
            assert msg == b"STOPPING=1"
            out, err = proc.communicate(timeout=60)
        finally:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "clocks ready (2 players" in out
    assert "Traceback" not in err


def test_run_with_a_bad_configuration_is_one_line(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[pins]\nbuzzer = 1\n")
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "run", "--mock", "--config", str(config)],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr == f"companion: {config}: pins.buzzer: GPIO1 is not a usable pin (the HAT ID EEPROM's): BCM 2 to 27\n"
