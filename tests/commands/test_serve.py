"""`companion serve` and `companion demo --serve`: the live page from the command line."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request

from companion.cli import main


def test_demo_serve_plays_the_built_in_game_on_the_page(tmp_path):
    # The built-in game, whatever ../shared holds: a copy of it given as the file.
    from importlib import resources

    game = tmp_path / "sample.gcg"
    game.write_bytes(resources.files("companion").joinpath("data", "sample.gcg").read_bytes())
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "demo", str(game), "--serve", "--host", "127.0.0.1", "--port", "0",
         "--delay", "0", "--linger", "0"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "the live page is at http://localhost:" in out
    pin_line = next(line for line in out.splitlines() if "organiser's PIN" in line)
    assert pin_line.split()[-1].isdigit() and len(pin_line.split()[-1]) == 6
    assert "Ann: 5H .IRAFFE" in out and "Ann 55, Bob 16" in out


def test_serve_answers_on_its_port_until_stopped():
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port", "0", "--names", "Ann", "Bob"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        url = None
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if "the live page is at" in line:
                url = line.split(" at ", 1)[1].split()[0].replace("localhost", "127.0.0.1")
        assert url, "no address printed"
        with urllib.request.urlopen(url + "api/state", timeout=10) as r:
            doc = json.load(r)
        assert [p["name"] for p in doc["players"]] == ["Ann", "Bob"]
    finally:
        proc.terminate()
        assert proc.wait(timeout=20) == 0


def test_bad_arguments_are_one_line(capsys):
    assert main(["serve", "--names", "Solo"]) == 2
    assert "2 to 4 players" in capsys.readouterr().err
    assert main(["serve", "--control", "forever"]) == 2
    assert main(["serve", "--port", "70000"]) == 2
