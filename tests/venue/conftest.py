"""A real Mosquitto on the loopback for the venue's tests (skipped with a message where it is not
installed: .ci/run installs Debian's ``mosquitto``)."""

from __future__ import annotations

import shutil

import pytest

EVENT = "club-night"


def have_mosquitto() -> bool:
    from pathlib import Path

    return bool(shutil.which("mosquitto") or Path("/usr/sbin/mosquitto").exists()) and bool(shutil.which("mosquitto_passwd"))


@pytest.fixture
def broker(tmp_path):
    if not have_mosquitto():
        pytest.skip("mosquitto is not installed (Debian: apt install mosquitto; .ci/run installs it)")
    from companion.venue.broker import LocalBroker

    b = LocalBroker(tmp_path / "broker", EVENT, 30).start()
    try:
        yield b
    finally:
        b.stop()
