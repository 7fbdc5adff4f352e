"""`companion run` as systemd runs it: READY=1, watchdog pings, a clean stop on SIGTERM."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from companion.core.errors import CONFIG_EXIT

TABLE = '[camera]\nsource = "synthetic"\n[web]\nhost = "127.0.0.1"\nport = 0\n'


def _recv_or_report(server: socket.socket, proc: subprocess.Popen) -> bytes:
    """The next notification; on a time-out, the failure says what the process printed."""
    try:
        return server.recv(4096)
    except TimeoutError:
        proc.kill()
        out, err = proc.communicate(timeout=30)
        raise AssertionError(f"no notification; stdout: {out[-2000:]!r} stderr: {err[-2000:]!r}") from None


def test_run_notifies_systemd_pings_the_watchdog_and_stops_on_sigterm(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[game]\nplayers = 2\n" + TABLE)
    with tempfile.TemporaryDirectory(dir="/tmp") as d, socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        path = str(Path(d) / "notify")
        server.bind(path)
        server.settimeout(60)  # only a guard against a hang: every step waits for a message
        # faulthandler: a process that does not end is asked (SIGABRT) to print every thread's stack.
        env = {**os.environ, "NOTIFY_SOCKET": path, "WATCHDOG_USEC": "100000",
               "COMPANION_DATA_DIR": str(tmp_path / "data"), "PYTHONFAULTHANDLER": "1"}
        proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "run", "--mock", "--config", str(config)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        try:
            assert _recv_or_report(server, proc).startswith(b"READY=1\n")
            assert _recv_or_report(server, proc) == b"WATCHDOG=1"
            assert _recv_or_report(server, proc) == b"WATCHDOG=1"
            proc.send_signal(signal.SIGTERM)
            while (msg := _recv_or_report(server, proc)) == b"WATCHDOG=1":
                pass
            assert msg == b"STOPPING=1"
            try:
                out, err = proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGABRT)
                out, err = proc.communicate(timeout=30)
                raise AssertionError(f"still running 60 s after STOPPING=1; its threads: {err[-6000:]}") from None
        finally:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "table ready (2 players, synthetic camera" in out
    assert "Traceback" not in err
    assert (tmp_path / "data" / "games.sqlite").exists()


def _get_state(out_lines: list[str], proc: subprocess.Popen) -> dict:
    deadline = time.monotonic() + 60
    port = None
    while port is None:
        assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        line = proc.stdout.readline()
        out_lines.append(line)
        if m := re.search(r"live page is at http://localhost:(\d+)/", line):
            port = int(m.group(1))
    while True:
        line = proc.stdout.readline()
        out_lines.append(line)
        if "table ready" in line:
            break
        assert time.monotonic() < deadline and proc.poll() is None
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=10) as r:
        return json.loads(r.read())


def _env(tmp_path: Path) -> dict[str, str]:
    """`companion run`'s environment in a test: its data folder in ``tmp_path``, no systemd."""
    env = {**os.environ, "COMPANION_DATA_DIR": str(tmp_path / "data")}
    env.pop("NOTIFY_SOCKET", None)
    return env


def _photos(tmp_path: Path, names: list[str]) -> Path:
    """A folder of the renderer's photos of a board, one a name."""
    import cv2

    from companion.sim.camera import SyntheticSource

    photos = tmp_path / "photos"
    photos.mkdir()
    with SyntheticSource(seed=3) as source:
        for name in names:
            cv2.imwrite(str(photos / name), source.read().image)
    return photos


@contextmanager
def _running(config: Path, tmp_path: Path, *flags: str) -> Iterator[tuple[subprocess.Popen, list[str], dict]]:
    """`companion run --mock FLAGS` on ``config`` while the block runs: the process, the lines it
    printed (the block may read more) and its page's first state; then stopped with SIGTERM, and
    it must end cleanly."""
    proc = subprocess.Popen([sys.executable, "-m", "companion", "run", "--mock", *flags, "--config", str(config)],
                            env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines: list[str] = []
        yield proc, lines, _get_state(lines, proc)
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 0 and "Traceback" not in err, err


def _served_twice(config: Path, tmp_path: Path) -> list[tuple[list[str], dict]]:
    """`companion run` started, its page's state read, stopped with SIGTERM; twice on one data
    folder (the second run resumes the first's game). Each run's printed lines and state."""
    runs = []
    for _ in range(2):
        with _running(config, tmp_path) as (_proc, lines, state):
            runs.append((lines, state))
    return runs


def test_run_serves_the_table_from_a_folder_camera_and_resumes_its_game(tmp_path):
    photos = _photos(tmp_path, ["board-0.png", "board-1.png"])
    config = tmp_path / "config.toml"
    config.write_text(f'[camera]\nsource = "folder"\nfolder = "{photos}"\n[web]\nhost = "127.0.0.1"\nport = 0\n'
                      '[clock]\nstages = [{ minutes = 10, increment_seconds = 5 }]\novertime = false\n'
                      '[game]\nnames = ["Ann", "Ben"]\nchallenge = "double"\n')
    game_ids = []
    for lines, state in _served_twice(config, tmp_path):  # the second run resumes the first's game
        assert state["clock"]["control"] == "10 min + 5 s a move"
        assert [p["name"] for p in state["players"]] == ["Ann", "Ben"]
        assert state["game"]["challenge"] == "double"
        game_ids.append(state["game"]["id"])
    assert (tmp_path / "data" / "games.sqlite").exists()
    assert game_ids[0] == game_ids[1]


def test_run_with_one_player_sets_up_the_solo_dungeon_from_the_dice_seed(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(TABLE + '[game]\nplayers = 1\nnames = ["Jo"]\n[clock]\nkind = "stopwatch"\n'
                      '[dice]\ncount = 4\nseed = "cave"\n')
    plans = []
    for lines, state in _served_twice(config, tmp_path):  # the second run goes on with the first's dungeon
        assert any("table ready (1 player, synthetic camera" in line for line in lines)
        assert state["game"]["name"] == "dungeon" and [p["name"] for p in state["players"]] == ["Jo"]
        assert state["dungeon"]["phase"] == "set-up"
        plans.append(state["dungeon"]["plan"])
    from companion.table.dungeon_snapshot import plan_json
    from companion.rules.dungeon import roll_setup

    assert plans[0] == plans[1] == json.loads(json.dumps(plan_json(roll_setup(dice=4, seed="cave"))))


def test_run_with_two_boards_serves_scrabble_house_from_two_cameras(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(TABLE + '[camera2]\nsource = "synthetic"\n'
                      '[game]\nplayers = 4\nboards = 2\nnames = ["Ann", "Bob", "Cy", "Di"]\ncolours = ["ivory", "wood"]\n'
                      '[clock]\nstages = [{ minutes = 20 }]\n')
    ids = []
    for lines, state in _served_twice(config, tmp_path):  # the second run goes on with the first's match
        assert any("table ready (4 players, synthetic and synthetic cameras" in line for line in lines)
        assert state["game"]["name"] == "house" and [p["name"] for p in state["players"]] == ["Ann", "Bob", "Cy", "Di"]
        assert len(state["boards"]) == 2
        ids.append(state["game"]["id"])
    assert ids[0] == ids[1]
    bad = _bad(tmp_path, TABLE + "[game]\nplayers = 2\nboards = 2\n")[1]
    assert "game.players: Scrabble House (two boards, four players) is for 4 players, not 2" in bad


def test_run_with_a_bad_configuration_is_one_line(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[pins]\nbuzzer = 1\n")
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "run", "--mock", "--config", str(config)],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == CONFIG_EXIT
    assert proc.stderr == f"companion: {config}: pins.buzzer: GPIO1 is not a usable pin (the HAT ID EEPROM's): BCM 2 to 27\n"


def _bad(tmp_path, text, code=CONFIG_EXIT):
    """run refusing ``text``: 78 for the configuration's fault, 2 for a camera not there (yet)."""
    config = tmp_path / "config.toml"
    config.write_text(text)
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "run", "--mock", "--config", str(config)],
        capture_output=True, text=True, timeout=60, env={**os.environ, "COMPANION_DATA_DIR": str(tmp_path / "data")},
    )
    assert proc.returncode == code, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    return config, proc.stderr


def test_run_with_a_folder_camera_without_a_folder_is_one_line(tmp_path):
    config, err = _bad(tmp_path, '[camera]\nsource = "folder"\n')
    assert err.startswith(f"companion: {config}: camera.folder: missing")


def test_run_with_a_camera_that_cannot_open_is_one_line(tmp_path):
    config, err = _bad(tmp_path, f'[camera]\nsource = "folder"\nfolder = "{tmp_path / "nowhere"}"\n', 2)
    assert err == f"companion: {config}: camera.folder: {tmp_path / 'nowhere'}: no such folder\n"


def test_run_with_a_time_control_the_table_does_not_play_is_one_line(tmp_path):
    # Every control the clock engine has is played (stages, Bronstein, delay, any overtime);
    # a stopwatch is the solo dungeon's, not a classic table's.
    config, err = _bad(tmp_path, TABLE + "[clock]\nkind = \"stopwatch\"\n")
    assert err.startswith(f"companion: {config}: clock.kind: a stopwatch is for one player"), err


def test_run_mock_takes_presses_from_the_page_and_steps_the_folder_camera(tmp_path):
    """`companion run --mock --step` as a person plays by hand: the page's buttons press the mock
    pins, and the folder camera shows its next photo at each player's press."""
    import http.cookiejar
    from urllib.error import HTTPError

    photos = _photos(tmp_path, ["move1.png", "move2.png"])
    config = tmp_path / "config.toml"
    config.write_text(f'[camera]\nsource = "folder"\nfolder = "{photos}"\n[web]\nhost = "127.0.0.1"\nport = 0\n'
                      '[game]\nnames = ["Ann", "Ben"]\n')
    with _running(config, tmp_path, "--step") as (proc, lines, state):
        port = next(int(m.group(1)) for line in lines if (m := re.search(r"localhost:(\d+)/", line)))
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        base = f"http://127.0.0.1:{port}"
        with opener.open(f"{base}/api/session", timeout=10) as r:
            session = json.loads(r.read())
        assert session["buttons"] == ["player1", "player2", "pause", "roll"]

        def press(button: str) -> None:
            request = urllib.request.Request(f"{base}/api/press", data=json.dumps({"button": button}).encode(),
                                             headers={"Content-Type": "application/json",
                                                      "X-CSRF-Token": session["csrf"]}, method="POST")
            with opener.open(request, timeout=10) as r:
                assert json.loads(r.read()) == {"ok": True}

        def said(text: str) -> None:
            deadline = time.monotonic() + 60
            while not any(text in line for line in lines):
                assert time.monotonic() < deadline and proc.poll() is None, lines
                lines.append(proc.stdout.readline())

        to_move = state["game"]["to_move"]
        press(f"player{2 - to_move}")  # the other player's button starts the clock
        said("camera: move1.png")
        said(f"press player{2 - to_move} at ")
        press("pause")
        said("pause: paused")
        try:
            press("player9")
            raise AssertionError("player9 was pressed")
        except HTTPError as exc:
            assert exc.code == 400 and "button: one of player1, player2, pause, roll" in exc.read().decode()
