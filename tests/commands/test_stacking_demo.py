"""`companion demo --game stacking --headless --sim-time`: three computer players play a dealt
stacking game through the whole table loop; its record rescores to its scores; killed part-way
and started again on its data folder, it ends as the uninterrupted game ends."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.core.gcg import parse_gcg
from companion.rules.rescore import TileSetChoice
from companion.rules.stacking_record import rescore_stacking

ARGS = ["demo", "--game", "stacking", "--headless", "--sim-time", "--truth-readings", "--seed", "12"]


def demo(tmp_path: Path, name: str, *extra: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    summary = tmp_path / f"{name}.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "companion",
            *ARGS,
            "--data-dir",
            str(tmp_path / name),
            "--summary",
            str(summary),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert proc.returncode == 0, proc.stderr
    return proc, json.loads(summary.read_text(encoding="utf-8"))


def test_the_demo_plays_a_whole_stacking_game_at_the_table(tmp_path):
    proc, final = demo(tmp_path, "one")
    assert final["over"] and final["end"] == "pool-empty"
    assert f"final {', '.join(str(s) for s in final['scores'])}" in proc.stdout
    assert "buys" in proc.stdout and "x2 rainbow" in proc.stdout and "Game over" in proc.stdout
    assert "question" not in proc.stdout  # every play was seen as it was laid
    result = rescore_stacking(parse_gcg(final["gcg"]), TileSetChoice("en", "test"))
    assert result.agrees and list(result.totals()) == final["scores"]


def test_the_demo_on_a_play_area_ends_with_every_square_covered(tmp_path):
    # --area 3: the centre 3x3 squares, G7 to I9 (seed 12's deal covers them all).
    proc, final = demo(tmp_path, "area", "--area", "3")
    assert final["over"] and final["end"] == "board-full", proc.stdout
    assert "Game over (every square is covered)" in proc.stdout
    result = rescore_stacking(parse_gcg(final["gcg"]), TileSetChoice("en", "test"))
    assert result.agrees and list(result.totals()) == final["scores"]


@pytest.mark.parametrize("after", [6, 10])  # lines printed: after a purchase (line 6), after a play
def test_the_demo_killed_part_way_resumes_from_its_log(tmp_path, after):
    _, whole = demo(tmp_path, "whole")
    data = tmp_path / "killed"
    p = subprocess.Popen(
        [sys.executable, "-m", "companion", *ARGS, "--data-dir", str(data)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert p.stdout is not None
    lines = []
    deadline = time.monotonic() + 120
    while len(lines) < after and time.monotonic() < deadline:
        lines.append(p.stdout.readline())
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=30)
    assert len(lines) == after, lines
    _, again = demo(tmp_path, "killed")
    assert again["scores"] == whole["scores"] and again["board"] == whole["board"]
    assert again["gcg"] == whole["gcg"].replace(
        whole["gcg"].split("#title ")[1].split("\n")[0], again["gcg"].split("#title ")[1].split("\n")[0]
    )
