"""`companion demo`: referees a recorded game end to end, with or without ../shared."""

from __future__ import annotations

import subprocess
import sys

from companion.cli import main
from companion.sim import demos as demo  # the demo players: where the default record is found


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, timeout=60)


def test_the_built_in_game_is_refereed_when_no_shared_game_is_there(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(demo, "SHARED_GAME", tmp_path / "absent.gcg")
    assert main(["demo", "--boards"]) == 0
    out = capsys.readouterr().out
    assert "built-in sample game" in out
    assert "(every score agrees with the record)" in out
    assert "5H .IRAFFE +28" in out
    assert "Ann    55  wins" in out
    # The board is drawn after every play with --boards, premium squares shown.
    assert out.count("=") >= 8 * 7


def test_the_real_game_when_shared_is_there(capsys):
    if not demo.SHARED_GAME.is_file():
        import pytest

        pytest.skip(f"no shared game at {demo.SHARED_GAME}")
    assert main(["demo", "--referee"]) == 0
    out = capsys.readouterr().out
    assert "doug   451  wins" in out and "(every score agrees with the record)" in out
    assert "not in the house list: TILAX" in out  # the phony emely withdrew


def test_a_given_file_and_bad_input(tmp_path):
    game = tmp_path / "g.gcg"
    game.write_text("#player1 a A\n#player2 b B\n>a: CAT 8H CAT +10 10\n>b: DAG I7 D.G +5 5\n")
    proc = run("demo", "--referee", str(game))
    assert proc.returncode == 0, proc.stderr
    assert "A  8H CAT +10  [CAT 10]  = 10" in proc.stdout
    # D and G on double letter squares: 9, not the 5 recorded; the demo says so.
    assert "B  I7 D.G +9  [DAG 9]  not in the house list: DAG  = 9  << recorded +5 5" in proc.stdout
    assert "(1 events disagree with the record)" in proc.stdout
    bad = run("demo", str(tmp_path / "missing.gcg"))
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert run("demo", "--delay", "-1").returncode == 2


def test_the_camera_reads_every_position_back(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(demo, "SHARED_GAME", tmp_path / "absent.gcg")
    assert main(["demo", "--camera"]) == 0
    out = capsys.readouterr().out
    # Every position of the built-in game photographed by the synthetic camera and read back.
    assert out.count("camera: all 225 squares read right") == 8
    assert "(camera: 1800 of 1800 squares read right over the game)" in out
