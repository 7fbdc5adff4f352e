"""`companion config check` refuses every configuration `companion run` refuses, with the same line:
both run run.preflight. Each case below is refused by run (before it opens the pins, the cameras
and the page: the table itself is replaced by a stand-in that fails the test if reached) and by
config check; a good configuration passes both."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from companion.cli import main
from companion.commands import run as run_command
from companion.core.errors import CONFIG_EXIT

SYNTHETIC = '[camera]\nsource = "synthetic"\n'
HOUSE = '[game]\nplayers = 4\nboards = 2\n[clock]\novertime = false\n'
NO_PICAMERA2 = importlib.util.find_spec("picamera2") is None

# (name, configuration with {tmp} for the test's folder, what the one line says, as the service?)
CASES = [
    ("house for two", SYNTHETIC + "[game]\nplayers = 2\nboards = 2\n", "Scrabble House (two boards, four players) is for 4 players", False),
    ("stopwatch for two", SYNTHETIC + '[clock]\nkind = "stopwatch"\n', "clock.kind: a stopwatch is for one player", False),
    # Stages by moves, Bronstein, delay, any overtime rate and 1-180 minutes are all played at the
    # table since issue 26 (every control the clock engine has): run no longer refuses them.
    ("house with an increment", SYNTHETIC + HOUSE.replace("overtime = false", "overtime = false\n"
     "stages = [{ minutes = 25, increment_seconds = 5 }]"), "Scrabble House plays one stage, sudden death", False),
    ("missing profile", SYNTHETIC + 'profile = "{tmp}/none.json"\n', "camera.profile: {tmp}/none.json: no such profile", False),
    ("broken profile", SYNTHETIC + 'profile = "{tmp}/broken.json"\n', "camera.profile: {tmp}/broken.json", False),
    ("house's second profile", SYNTHETIC + HOUSE + '[camera2]\nprofile = "{tmp}/none.json"\n',
     "camera2.profile: {tmp}/none.json: no such profile", False),
    ("no folder", '[camera]\nsource = "folder"\nfolder = "{tmp}/nowhere"\n', "camera.folder: {tmp}/nowhere: no such folder",
     False),
    ("folder without photos", '[camera]\nsource = "folder"\nfolder = "{tmp}/empty"\n', "camera.folder: {tmp}/empty: no images",
     False),
    ("no device", '[camera]\nsource = "device"\ndevice = "{tmp}/video9"\n', "camera.device: camera device {tmp}/video9: no such",
     False),
    ("profile in a home", SYNTHETIC + 'profile = "/home/pi/table.json"\n',
     "camera.profile: /home/pi/table.json is under /home, which the service cannot see (ProtectHome=yes)", True),
    ("folder in root's home", '[camera]\nsource = "folder"\nfolder = "/root/photos"\n',
     "camera.folder: /root/photos is under /root, which the service cannot see", True),
    ("relative profile", SYNTHETIC + 'profile = "table.json"\n', "the service would look for it in /var/lib/companion", True),
    ("profile in ~", SYNTHETIC + 'profile = "~/table.json"\n', "the service's ~ is /var/lib/companion", True),
    ("bad pin", SYNTHETIC + "[pins]\nbuzzer = 1\n", "pins.buzzer: GPIO1 is not a usable pin", False),
]
if NO_PICAMERA2:
    CASES.append(("no picamera2 here", "", "camera.source: the picamera2 source needs the Raspberry Pi camera library",
                  False))


# A camera that is not there (yet) exits 2, which systemd restarts (a USB camera may come late);
# every other line is the configuration's fault: exit 78, which the unit does not restart.
CAMERA_NOT_THERE = {"no folder", "folder without photos", "no device", "no picamera2 here"}


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "empty").mkdir(exist_ok=True)
    (tmp_path / "broken.json").write_text("{not json")
    config = tmp_path / "config.toml"
    config.write_text(text.replace("{tmp}", str(tmp_path)) + '[web]\nhost = "127.0.0.1"\nport = 0\n'
                      if "[web]" not in text else text.replace("{tmp}", str(tmp_path)))
    return config


@pytest.fixture
def no_table(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """run's table, replaced: a configuration that gets there has passed every check."""
    reached: list[object] = []
    monkeypatch.setattr(run_command, "_table", lambda args, cfg, pre: reached.append(pre) or 0)
    monkeypatch.delenv(run_command.SERVICE_ENV, raising=False)
    return reached


@pytest.mark.parametrize("name, text, said, service", CASES, ids=[c[0] for c in CASES])
def test_config_check_refuses_what_run_refuses(tmp_path, monkeypatch, capsys, no_table, name, text, said, service):
    config = write(tmp_path, text)
    said = said.replace("{tmp}", str(tmp_path))
    if service:
        # As the unit starts it: COMPANION_SERVICE=1 (systemd/companion.service).
        monkeypatch.setenv(run_command.SERVICE_ENV, "1")
    code = 2 if name in CAMERA_NOT_THERE else CONFIG_EXIT
    assert main(["run", "--mock", "--config", str(config)]) == code and not no_table
    refused = capsys.readouterr().err
    monkeypatch.delenv(run_command.SERVICE_ENV, raising=False)
    assert main(["config", "check", str(config), *(["--service"] if service else [])]) == code
    checked = capsys.readouterr()
    assert checked.out == "" and checked.err == refused, (refused, checked.err)
    assert refused.count("\n") == 1 and refused.startswith(f"companion: {config}: ") and said in refused, refused
    if service:
        # Outside the service the same paths are the user's own: not refused for where they are
        # (this test's files are not there, so another line refuses them).
        main(["config", "check", str(config)])
        assert "the service" not in capsys.readouterr().err


def test_a_good_configuration_passes_both(tmp_path, capsys, no_table):
    photos = tmp_path / "photos"
    photos.mkdir()
    (photos / "a.png").write_bytes(b"")  # listed, not decoded: the check does not open the camera
    config = write(tmp_path, f'[camera]\nsource = "folder"\nfolder = "{photos}"\n')
    assert main(["config", "check", str(config), "--service"]) == 0
    out = capsys.readouterr().out
    assert "ok (as the service sees the files)" in out and f"camera: folder {photos}, profile none" in out
    assert main(["run", "--mock", "--config", str(config)]) == 0 and len(no_table) == 1
    assert no_table[0].game.name == "classic" and no_table[0].profiles == [None]
