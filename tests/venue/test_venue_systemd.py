"""The venue's files in systemd/: the Mosquitto configuration runs (paths pointed at a test's
folder, the loopback instead of every address) and refuses what it should; the unit is one
systemd reads."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from companion.venue.broker import free_port, setup_broker
from tests.venue.conftest import have_mosquitto

ROOT = Path(__file__).parents[2]


def test_the_shipped_mosquitto_configuration_runs_with_passwords_and_acls(tmp_path):
    if not have_mosquitto():
        pytest.skip("mosquitto is not installed (Debian: apt install mosquitto; .ci/run installs it)")
    folder = tmp_path / "companion"
    users = setup_broker(folder, "club", 4)
    port = free_port()
    text = (ROOT / "systemd" / "mosquitto-venue.conf").read_text()
    assert "allow_anonymous false" in text and "listener 1883 0.0.0.0" in text
    text = text.replace("/etc/mosquitto/companion", str(folder)).replace("listener 1883 0.0.0.0", f"listener {port} 127.0.0.1")
    text = f"user {pwd.getpwuid(os.geteuid()).pw_name}\npersistence_location {tmp_path}/\n" + text
    (tmp_path / "m.conf").write_text(text)
    proc = subprocess.Popen([shutil.which("mosquitto") or "/usr/sbin/mosquitto", "-c", str(tmp_path / "m.conf")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        results: dict[str, bool] = {}
        for user, password in (("screen", users["screen"]), ("table2", "wrong")):
            c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"t-{user}", protocol=mqtt.MQTTv5)
            c.username_pw_set(user, password)
            c.on_connect = lambda cl, u, f, reason, p, user=user: results.__setitem__(user, not reason.is_failure)
            for _ in range(50):
                try:
                    c.connect("127.0.0.1", port)
                    break
                except OSError:
                    time.sleep(0.1)
            c.loop_start()
            end = time.monotonic() + 5
            while user not in results and time.monotonic() < end:
                time.sleep(0.05)
            c.disconnect()
            c.loop_stop()
        assert results == {"screen": True, "table2": False}
    finally:
        proc.terminate()
        proc.wait(10)


def test_the_venue_unit_is_one_systemd_reads(tmp_path):
    unit = (ROOT / "systemd" / "companion-venue.service").read_text()
    assert "ExecStart=/opt/companion/venv/bin/companion venue ${EVENT}" in unit
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    companion = shutil.which("companion") or str(Path(os.sys.executable).with_name("companion"))
    (tmp_path / "companion-venue.service").write_text(
        unit.replace("/opt/companion/venv/bin/companion", companion).replace("EnvironmentFile=/etc/companion/venue.env",
                                                                              "Environment=EVENT=club"))
    done = subprocess.run([analyze, "verify", str(tmp_path / "companion-venue.service")], capture_output=True, text=True)
    problems = [line for line in (done.stdout + done.stderr).splitlines()
                if "companion-venue.service" in line and "mosquitto.service" not in line]
    assert not problems, problems
