"""The systemd notification protocol against a real unix datagram socket."""

from __future__ import annotations

import os
import socket
import tempfile
import uuid
from pathlib import Path

from companion.pi.notify import notify, watchdog_interval_s


def test_ready_and_watchdog_reach_a_path_socket():
    # Under /tmp: a unix socket's path is limited to about 100 bytes.
    with tempfile.TemporaryDirectory(dir="/tmp") as d:
        path = str(Path(d) / "notify")
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
            server.bind(path)
            server.settimeout(5)
            assert notify("READY=1\nSTATUS=clocks ready", {"NOTIFY_SOCKET": path})
            assert server.recv(4096) == b"READY=1\nSTATUS=clocks ready"
            assert notify("WATCHDOG=1", {"NOTIFY_SOCKET": path})
            assert server.recv(4096) == b"WATCHDOG=1"


def test_an_abstract_socket_is_written_with_an_at_sign():
    name = f"companion-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind("\0" + name)
        server.settimeout(5)
        assert notify("READY=1", {"NOTIFY_SOCKET": "@" + name})
        assert server.recv(64) == b"READY=1"


def test_outside_systemd_nothing_is_sent():
    assert notify("READY=1", {}) is False
    assert notify("READY=1", {"NOTIFY_SOCKET": "relative"}) is False


def test_the_watchdog_is_pinged_at_half_its_period():
    assert watchdog_interval_s({"WATCHDOG_USEC": "20000000"}) == 10.0
    assert watchdog_interval_s({"WATCHDOG_USEC": "20000000", "WATCHDOG_PID": str(os.getpid())}) == 10.0
    assert watchdog_interval_s({"WATCHDOG_USEC": "20000000", "WATCHDOG_PID": "1"}) is None
    assert watchdog_interval_s({}) is None
    assert watchdog_interval_s({"WATCHDOG_USEC": "soon"}) is None
