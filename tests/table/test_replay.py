"""`companion replay-photos`: whole tournament games rebuilt from their photos, against the records.

scrabscrap's records name squares transposed against the photos (../shared/README.md), hence
--transpose. A photo cannot tell a pass from an exchange: both are turns without tiles. The
blank's letter is not printed on it: at the table the player says it. With the game's score sheet
given for that (--blanks-from, only its blank letters are used) every move is the record's; without
it the word list names the blank, and where the house list does not hold the word (RYE, QUEER in
the German list) the move stands with the likeliest letter and a question, and only that letter
can differ from the record.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from companion.core.gcg import Exchange, Pass, Play, decode_gcg, parse_gcg
from companion.table.replay import declared_blanks
from tests.core.gcg_syntax import check_lines

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
GAMES = {"spiel-13": ("nu19_timon-alex", "Timon,Alex"), "spiel-14": ("hh19-inessa-stefan", "Inessa,Stefan")}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, timeout=600)


def _blanks_masked(word: str) -> str:
    return "".join("?" if ch.islower() else ch for ch in word)


@pytest.mark.parametrize("folder,blanks_said", [("spiel-13", True), ("spiel-14", True), ("spiel-14", False)])
def test_replay_photos_reproduces_the_tournament_record(folder, blanks_said, tmp_path):
    photos = SHARED / "photos" / "scrabscrap" / folder
    if not photos.is_dir():
        pytest.skip(f"the photos are not at {photos} (../shared beside the checkout)")
    name, players = GAMES[folder]
    record = SHARED / "games" / "scrabscrap" / f"{name}.gcg"
    out = tmp_path / "game.gcg"
    said = ["--blanks-from", str(record)] if blanks_said else []
    proc = run("replay-photos", str(photos), "--tileset", "de", "--transpose", "--players", players, "--gcg-out", str(out), *said)
    assert proc.returncode in (0, 1), proc.stderr
    got = parse_gcg(out.read_text(encoding="utf-8")).events
    want = [e for e in parse_gcg(decode_gcg(record.read_bytes())).events if isinstance(e, (Play, Pass, Exchange))]
    assert len(got) == len(want)
    exact = 0
    for g, w in zip(got, want):
        assert g.nick == w.nick
        if isinstance(w, Play):
            assert isinstance(g, Play), (g, w)
            assert (g.position, _blanks_masked(g.word), g.score, g.total) == (w.position, _blanks_masked(w.word), w.score, w.total)
            if g.word != w.word:
                # Only a blank the house list could not name (then the players are asked), or
                # one it named otherwise than the players did (QUEEN for QUEER).
                assert any(ch.islower() for ch in w.word)
            exact += g.word == w.word
        else:
            assert isinstance(g, Pass) and g.score == 0 and g.total == w.total
    plays = sum(isinstance(w, Play) for w in want)
    if blanks_said:
        # Every move read from the photos, the blanks' letters as the players said them.
        assert exact == plays and proc.returncode == 0, proc.stdout
    else:
        assert plays - 2 <= exact < plays
    # The photos before the game (names laid out in tiles, the empty board) are not turns.
    assert "(the empty board:" in proc.stdout
    # Every line as Macondo and Quackle read it (the racks: the tiles played).
    assert check_lines(out.read_text(encoding="utf-8")) == []


def test_declared_blanks_are_the_score_sheets_lower_case_letters():
    record = parse_gcg("#player1 a A\n#player2 b B\n>a: ?EEQU 1A QUEEr +48 48\n>b: ?Y F13 rY. +31 31\n>a: -ABC +0 48\n")
    assert declared_blanks(record) == {(0, 4): "R", (12, 5): "R"}


def test_replay_photos_refuses_a_folder_without_photos(tmp_path):
    (tmp_path / "notes.txt").write_text("no photos here")
    for folder in (tmp_path, tmp_path / "missing"):
        proc = run("replay-photos", str(folder), "--tileset", "de")
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    proc = run("replay-photos", str(tmp_path), "--players", "solo")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    proc = run("replay-photos", str(tmp_path), "--blanks-from", str(tmp_path / "notes.txt"))
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "notes.txt" in proc.stderr, proc.stderr
