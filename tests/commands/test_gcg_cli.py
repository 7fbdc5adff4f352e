"""`companion gcg rescore`, run as a user runs it: in a subprocess, exit codes and output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SHARED = Path(__file__).parents[2] / ".." / "shared" / "games"

# Scores by hand: WINDY 32 (double letter W, star doubles), GALE 16 (GALE 7, AW 5, LI 2, EN 2),
# (ADEEIRT) 1+2+1+1+1+1+1 = 8, twice. ÄHNLICH: 6 doubled + 12 = 24, doubled on the star, +50 = 98.
AGREEING = """\
#player1 ann Ann
#player2 bob Bob
>ann: DINNVWY 8D WINDY +32 32
>bob: ADEEGIL 7C GALE +16 16
>bob: ADEEIRT (challenge) +5 21
>ann:  (ADEEIRT) +16 48
"""
# The recorder's slip on WINDY; the final total is right again.
DISAGREEING = AGREEING.replace("WINDY +32 32", "WINDY +30 30")
GERMAN = """\
#player1 ute Ute
#player2 jan Jan
>ute: ÄHNLICH 8D ÄHNLICH +98 98
"""


def run(*args: str, cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    # The timeout guards against a hang, not a speed: a whole game read from rendered photos
    # passes a longer one (a shared machine under load is several times slower).
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "companion", *args],
        capture_output=True, text=True, encoding="utf-8", env=env, cwd=cwd, timeout=timeout,
    )


def write(tmp_path: Path, name: str, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def assert_one_line_error(proc: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    for fragment in fragments:
        assert fragment in proc.stderr


def test_an_agreeing_game_exits_0_and_shows_both_columns(tmp_path):
    proc = run("gcg", "rescore", str(write(tmp_path, "ok.gcg", AGREEING)))
    assert proc.returncode == 0, proc.stderr
    assert "recorded" in proc.stdout and "recomputed" in proc.stdout
    assert "8D WINDY" in proc.stdout and "5 per challenged play" in proc.stdout
    assert "all 4 events agree" in proc.stdout
    assert "<<" not in proc.stdout


def test_a_disagreeing_game_exits_1_and_marks_the_events(tmp_path):
    proc = run("gcg", "rescore", str(write(tmp_path, "bad.gcg", DISAGREEING)))
    assert proc.returncode == 1, proc.stderr
    windy = next(ln for ln in proc.stdout.splitlines() if "WINDY" in ln)
    assert windy.split()[0] == "3" and "<< score and total differ" in windy
    assert "1 of 4 events disagree" in proc.stdout


def test_json_output(tmp_path):
    proc = run("gcg", "rescore", "--json", str(write(tmp_path, "bad.gcg", DISAGREEING)))
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["agrees"] is False and doc["disagreements"] == 1
    assert doc["tileset"] == {"name": "en", "reason": "default"}
    first = doc["events"][0]
    assert first == {
        "line": 3, "player": "ann", "seat": 1, "kind": "play", "event": "8D WINDY",
        "recorded": {"score": 30, "total": 30}, "recomputed": {"score": 32, "total": 32},
        "score_agrees": False, "total_agrees": False, "remark": "",
    }
    assert doc["totals"] == [{"player": "ann", "recorded": 48, "recomputed": 48},
                             {"player": "bob", "recorded": 21, "recomputed": 21}]


def test_the_tile_set_from_the_option_the_lexicon_or_the_default(tmp_path):
    german = write(tmp_path, "de.gcg", GERMAN)
    assert_one_line_error(
        run("gcg", "rescore", "--tileset", "en", str(german)), "de.gcg line 3:", "'Ä' is not in tile set 'en'"
    )
    assert run("gcg", "rescore", "--tileset", "de", str(german)).returncode == 0
    proc = run("gcg", "rescore", str(german))
    assert proc.returncode == 0 and "tile set de (the letters played (Ä))" in proc.stdout
    lexicon = write(tmp_path, "lex.gcg", GERMAN.replace("#player1", "#lexicon GERMAN\n#player1"))
    proc = run("gcg", "rescore", str(lexicon))
    assert proc.returncode == 0 and "tile set de (#lexicon GERMAN)" in proc.stdout


def test_a_malformed_file_is_one_line_naming_the_line(tmp_path):
    path = write(tmp_path, "broken.gcg", AGREEING.replace(">bob: ADEEGIL 7C GALE +16 16", ">bob: ADEEGIL 7C GALE"))
    assert_one_line_error(run("gcg", "rescore", str(path)), f"{path} line 4:", "not a GCG event")


def test_a_record_that_cannot_be_replayed_is_one_line(tmp_path):
    path = write(tmp_path, "clash.gcg", AGREEING.replace("7C GALE", "8F GALE"))
    assert_one_line_error(run("gcg", "rescore", str(path)), f"{path} line 4:", "already holds")


def test_a_missing_file_a_directory_and_a_binary_file(tmp_path):
    assert_one_line_error(run("gcg", "rescore", str(tmp_path / "nope.gcg")), "nope.gcg: no such file")
    assert_one_line_error(run("gcg", "rescore", str(tmp_path)), "is a directory")
    png = tmp_path / "photo.gcg"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x05\xe0" + bytes(range(256)))
    assert_one_line_error(run("gcg", "rescore", str(png)), "photo.gcg line 3:", "binary data")
    noise = tmp_path / "noise.gcg"
    noise.write_bytes(bytes(range(1, 256)) * 4)
    assert_one_line_error(run("gcg", "rescore", str(noise)), "noise.gcg line 1:")


def test_latin1_without_the_pragma(tmp_path):
    path = write(tmp_path, "latin1.gcg", AGREEING.replace("ann", "anné"), encoding="latin-1")
    proc = run("gcg", "rescore", str(path))
    assert proc.returncode == 0 and "anné" in proc.stdout


def test_usage_errors_are_one_line(tmp_path):
    path = write(tmp_path, "ok.gcg", AGREEING)
    assert_one_line_error(run("gcg", "rescore", "--tileset", "xx", str(path)), "invalid choice")
    assert_one_line_error(run("gcg"), "required")


needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason=f"no shared games at {SHARED}")


@needs_shared
def test_shared_games_through_the_command():
    assert run("gcg", "rescore", str(SHARED / "macondo" / "gcgio_josh2.gcg")).returncode == 0
    proc = run("gcg", "rescore", "--tileset", "de", str(SHARED / "scrabscrap" / "nu19_johannes-stefan.gcg"))
    assert proc.returncode == 1 and "4 of 30 events disagree" in proc.stdout
    assert "#orientation lettered-rows" in proc.stdout
    polish = run("gcg", "rescore", str(SHARED / "macondo" / "gcgio_polish_endgame.gcg"))
    assert polish.returncode == 0 and "tile set pl" in polish.stdout
    assert_one_line_error(
        run("gcg", "rescore", "--tileset", "en", str(SHARED / "macondo" / "gcgio_polish_endgame.gcg")),
        "gcgio_polish_endgame.gcg line 6: letter 'Ę' is not in tile set 'en'",
    )
