"""The configuration file: defaults, every setting read, every mistake one line naming the key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from companion.clock.engine import MINUTE_MS, Overtime, Stage, Stopwatch, TimeControl, scrabble
from companion.clock.pins import DEFAULT_PINS
from companion.table.games import GAMES
from companion.table.config import EXAMPLE, Config, load_config, parse_config
from companion.core.errors import CompanionError


@pytest.fixture(autouse=True)
def no_user_config(tmp_path, monkeypatch):
    monkeypatch.delenv("COMPANION_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def test_no_file_means_the_documented_defaults():
    cfg = load_config()
    assert cfg == Config(source="defaults")
    assert cfg.control == scrabble(25, 10, 10)
    assert cfg.pins == DEFAULT_PINS


def test_the_example_is_the_defaults():
    assert parse_config(EXAMPLE, "example") == Config(source="example")


def test_a_classical_multi_stage_control_and_scrabble_house():
    cfg = parse_config(
        """
        [game]
        players = 4
        boards = 2
        [clock]
        overtime = false
        stages = [{ minutes = 90, moves = 40 }, { minutes = 30, increment_seconds = 30 }]
        [pins]
        pause_button = false
        """
    )
    assert cfg.control == TimeControl((Stage(90 * MINUTE_MS, 40), Stage(30 * MINUTE_MS, increment_ms=30_000)))
    assert cfg.pins.pause_button is None
    group = cfg.clocks()
    assert [c.sides for c in group.clocks] == [2, 2]


def test_delays_and_overtime_settings():
    cfg = parse_config(
        """
        [clock]
        overtime_points_per_minute = 5
        overtime_cap_minutes = 2.5
        stages = [{ minutes = 5, delay_seconds = 3 }]
        """
    )
    assert cfg.control == TimeControl((Stage(5 * MINUTE_MS, delay_ms=3000),), Overtime(5, 150_000))
    b = parse_config("[clock]\nstages = [{ minutes = 5, bronstein_seconds = 2.5 }]")
    assert b.control.stages[0].bronstein_ms == 2500


def test_the_solo_dungeon_runs_a_stopwatch():
    cfg = parse_config('[game]\nplayers = 1\n[clock]\nkind = "stopwatch"\n[dice]\ncount = 4\nseed = "cave"')
    assert cfg.control is None
    assert isinstance(cfg.clocks().clocks[0], Stopwatch)
    assert (cfg.dice, cfg.seed) == (4, "cave")


def test_the_game_is_named_or_the_first_of_the_registry_that_seats_the_players():
    assert parse_config("").game == "classic"
    assert parse_config("[game]\nplayers = 1\n[clock]\nkind = \"stopwatch\"").game == "dungeon"
    assert parse_config("[game]\nplayers = 4\nboards = 2").game == "house"
    assert parse_config("[game]\nplayers = 4").game == "classic"
    assert parse_config("[game]\nname = \"classic\"\nplayers = 3").game == "classic"


def test_only_the_pins_in_use_must_differ():
    cfg = parse_config("[game]\nplayers = 2\n[pins]\nplayer_buttons = [17, 27, 5, 23]")
    assert cfg.used_pins().player_buttons == (17, 27)


@pytest.mark.parametrize(
    "text, message",
    [
        ("[game]\nplayers = 5", "game.players: between 1 and 4, not 5"),
        ("[game]\nplayers = 3\nboards = 2", "game.boards: 3 players cannot share 2 boards evenly"),
        ("[game]\nname = \"chess\"", f"game.name: one of {', '.join(GAMES)}, not 'chess'"),
        ("[game]\nname = \"dungeon\"\nplayers = 2", "game.players: The solo dungeon is for 1 player, not 2"),
        ("[game]\nname = \"house\"\nplayers = 4", "game.boards: Scrabble House (two boards, four players) is played on 2"),
        ("[game]\ncolour = \"red\"", "game.colour: unknown key"),
        ("[game]\nplayerz = 2", "game.playerz: unknown key"),
        ("[clok]\n", "clok: unknown key"),
        ("[clock]\nkind = \"hourglass\"", "clock.kind: one of countdown, stopwatch, not 'hourglass'"),
        ("[clock]\nkind = \"stopwatch\"", "clock.kind: a stopwatch is for one player"),
        ("[clock]\nstages = []", "clock.stages: a list of stages"),
        ("[clock]\nstages = [{ minutes = -1 }]", "clock.stages[0].minutes: above 0"),
        ("[clock]\nstages = [{ minutes = \"25\" }]", "clock.stages[0].minutes: a number, not '25'"),
        ("[clock]\nstages = [{ moves = 40 }]", "clock.stages[0].minutes: missing"),
        ("[clock]\nstages = [{ minutes = 90 }, { minutes = 30 }]", "clock.stages[0].moves: missing"),
        ("[clock]\nstages = [{ minutes = 90, moves = 40 }]", "clock.stages[0].moves: the last stage"),
        ("[clock]\nstages = [{ minutes = 5, increment_seconds = 2, delay_seconds = 2 }]", "clock.stages[0]: one of increment_seconds, delay_seconds"),
        ("[clock]\nstages = [{ minutes = 5, increment = 2 }]", "clock.stages[0].increment: unknown key"),
        ("[clock]\novertime = \"yes\"", "clock.overtime: true or false"),
        ("[clock]\novertime_cap_minutes = 0", "clock.overtime_cap_minutes: above 0"),
        ("[dice]\ncount = 3", "dice.count: 2 or 4 dice, not 3"),
        ("[dice]\nseed = 1.5", "dice.seed: a text or a whole number"),
        ("[pins]\nbuzzer = 40", "pins.buzzer: GPIO40 is not a usable pin"),
        ("[pins]\nbuzzer = 0", "pins.buzzer: GPIO0 is not a usable pin (the HAT ID EEPROM's)"),
        ("[pins]\nbuzzer = \"GPIO12\"", "pins.buzzer: a BCM pin number (GPIO17 is 17), not 'GPIO12'"),
        ("[pins]\nroll_button = 17", "pins.roll_button: GPIO17 is already pins.player_buttons[0]"),
        ("[pins]\nplayer_buttons = [17]", "pins.player_buttons: 2 players need 2 buttons, not 1"),
        ("[pins]\nplayer_leds = [5]", "pins.player_leds: 2 players need 2 LEDs"),
        ("[pins]\nplayer_buttons = [17, 17]", "pins.player_buttons[1]: GPIO17 is already pins.player_buttons[0]"),
        ("[pins]\nplayer_buttons = 17", "pins.player_buttons: a list of BCM pin numbers"),
        ("pins = 3", "pins: a table"),
        ("[game]\nnames = [\"Ann\"]", "game.names: 2 names of 1 to 24 characters, one per player"),
        ("[game]\nnames = [\"Ann\", \"ANN\"]", "game.names: two players have the same name"),
        ("[game]\nnames = [\"Ann\", \"   \"]", "game.names: 2 names"),
        ("[game]\nchallenge = \"twice\"", "game.challenge: one of void, single, double, five-points"),
        ("[pins\n", "not valid TOML"),
    ],
)
def test_every_mistake_is_one_line_naming_the_key(text, message):
    with pytest.raises(CompanionError) as err:
        parse_config(text, "table.toml")
    assert str(err.value).startswith("table.toml: ")
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_names_and_challenge_mode():
    cfg = parse_config('[game]\nplayers = 3\nnames = ["Ann", " Ben  K ", "Cy"]\nchallenge = "five-points"\n')
    assert cfg.player_names() == ["Ann", "Ben K", "Cy"] and cfg.challenge == "five-points"
    assert parse_config("").player_names() == ["Player 1", "Player 2"] and parse_config("").challenge == "single"


def test_where_the_file_is(tmp_path, monkeypatch):
    xdg = tmp_path / "config" / "companion" / "config.toml"
    xdg.parent.mkdir(parents=True)
    xdg.write_text("[game]\nplayers = 3\n")
    assert load_config().players == 3
    env = tmp_path / "env.toml"
    env.write_text("[game]\nplayers = 4\n")
    monkeypatch.setenv("COMPANION_CONFIG", str(env))
    assert load_config().players == 4
    env.unlink()
    with pytest.raises(CompanionError, match="no such configuration file"):
        load_config()
    with pytest.raises(CompanionError, match="no such configuration file"):
        load_config(tmp_path / "missing.toml")
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(b"# caf\xe9\n")
    with pytest.raises(CompanionError, match="cannot read"):
        load_config(bad)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, timeout=60)


def test_companion_config_check_and_example(tmp_path: Path):
    example = run("config", "example")
    assert example.returncode == 0 and example.stdout == EXAMPLE
    good = tmp_path / "good.toml"
    # The example's camera is the Pi's; here the check would refuse it as `run` would.
    good.write_text(example.stdout.replace('source = "picamera2"', 'source = "synthetic"'))
    proc = run("config", "check", str(good))
    assert proc.returncode == 0, proc.stderr
    assert "overtime: 10 points a started minute, lost at -10:00" in proc.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text("[pins]\nbuzzer = 99\n")
    proc = run("config", "check", str(bad))
    # 78, sysexits' EX_CONFIG: the unit's RestartPreventExitStatus does not restart into it.
    assert proc.returncode == 78 and proc.stdout == ""
    assert proc.stderr == f"companion: {bad}: pins.buzzer: GPIO99 is not a usable pin: BCM 2 to 27\n"


def test_camera_and_web_tables():
    from companion.table.config import parse_config

    c = parse_config('[game]\ntileset = "de"\n[camera]\nsource = "device"\ndevice = "/dev/video2"\nprofile = "p.json"\n'
                     '[web]\nhost = "127.0.0.1"\nport = 0\nmax_clients = 5\n')
    assert (c.tileset, c.camera.source, c.camera.device, c.camera.profile) == ("de", "device", "/dev/video2", "p.json")
    assert (c.web.host, c.web.port, c.web.max_clients) == ("127.0.0.1", 0, 5)
    d = parse_config("")
    assert (d.camera.source, d.camera.device, d.web.port, d.web.host, d.tileset) == ("picamera2", 0, 8080, "0.0.0.0", "en")


def test_camera_settings_default_from_the_mount_table():
    from companion.pi.mount import CAMERAS, height_mm

    d = parse_config("")
    # A Camera Module 3's live mode, its lens fixed at the standard module's height.
    assert d.camera.size == CAMERAS[0].modes[1] == (2304, 1296)
    assert d.camera.focus_cm == round(height_mm(CAMERAS[0]) / 10, 1) == 57.5
    assert d.camera.exposure_ms is None and d.camera.gain is None
    # A webcam: 1080p, not OpenCV's 640x480; a folder of photos: their own size.
    assert parse_config('[camera]\nsource = "device"').camera.size == CAMERAS[2].modes[0] == (1920, 1080)
    assert parse_config('[camera]\nsource = "folder"\nfolder = "x"').camera.size is None
    c = parse_config('[camera]\nsize = [4608, 2592]\nfocus_cm = "auto"\nexposure_ms = 10\ngain = 2.5\n'
                     '[game]\nplayers = 4\nboards = 2\n[camera2]\nsource = "device"\nfocus_cm = 32.5')
    assert (c.camera.size, c.camera.focus_cm, c.camera.exposure_ms, c.camera.gain) == ((4608, 2592), None, 10.0, 2.5)
    assert (c.camera2.size, c.camera2.focus_cm) == ((1920, 1080), 32.5)


@pytest.mark.parametrize("text, key", [
    ('[camera]\nsource = "usb"', "camera.source"),
    ('[camera]\nsource = "folder"', "camera.folder"),
    ('[camera]\nfolder = 3', "camera.folder"),
    ('[camera]\ndevice = -1', "camera.device"),
    ('[camera]\ndevice = true', "camera.device"),
    ('[camera]\ndevice = "/dev/video0"', "camera.device"),
    ('[camera]\nprofile = 1', "camera.profile"),
    ('[camera]\nlens = 1', "camera.lens"),
    ('[camera]\nsize = [1920]', "camera.size"),
    ('[camera]\nsize = [1920, 10]', "camera.size"),
    ('[camera]\nsize = "1920x1080"', "camera.size"),
    ('[camera]\nfocus_cm = 0', "camera.focus_cm"),
    ('[camera]\nfocus_cm = "near"', "camera.focus_cm"),
    ('[camera]\nexposure_ms = -1', "camera.exposure_ms"),
    ('[camera]\ngain = 40', "camera.gain"),
    ('[game]\nboards = 2\nplayers = 4\n[camera2]\nsize = [1, 1]', "camera2.size"),
    ('[web]\nport = 70000', "web.port"),
    ('[web]\nport = "80"', "web.port"),
    ('[web]\nhost = ""', "web.host"),
    ('[web]\nmax_clients = 0', "web.max_clients"),
    ('[web]\nssl = true', "web.ssl"),
    ('[game]\ntileset = "fr"', "game.tileset"),
    ('web = 1', "web"),
])
def test_camera_and_web_mistakes_are_one_line_naming_the_key(text, key):
    from companion.table.config import parse_config

    with pytest.raises(CompanionError) as e:
        parse_config(text, "cfg.toml")
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(f"cfg.toml: {key}: "), msg
