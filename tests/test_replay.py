"""`companion replay-photos`: whole tournament games rebuilt from their photos, against the records.

scrabscrap's records name squares transposed against the photos (../shared/README.md), hence
--transpose. A photo cannot tell a pass from an exchange: both are turns without tiles. The
blank's letter is not printed on it: the word list names it; where the house list does not hold
the word (RYE, QUEER in the German list), the move stands with the likeliest letter and a
question, and only that letter can differ from the record.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from companion.core.gcg import Exchange, Pass, Play, decode_gcg, parse_gcg

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared"
GAMES = {"spiel-13": ("nu19_timon-alex", "Timon,Alex"), "spiel-14": ("hh19-inessa-stefan", "Inessa,Stefan")}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, timeout=600)


def _blanks_masked(word: str) -> str:
    return "".join("?" if ch.islower() else ch for ch in word)


@pytest.mark.parametrize("folder", sorted(GAMES))
def test_replay_photos_reproduces_the_tournament_record(folder, tmp_path):
    photos = SHARED / "photos" / "scrabscrap" / folder
    if not photos.is_dir():
        pytest.skip(f"the photos are not at {photos} (../shared beside the checkout)")
    name, players = GAMES[folder]
    out = tmp_path / "game.gcg"
    proc = run("replay-photos", str(photos), "--tileset", "de", "--transpose", "--players", players, "--gcg-out", str(out))
    assert proc.returncode in (0, 1), proc.stderr
    got = parse_gcg(out.read_text(encoding="utf-8")).events
    want = [e for e in parse_gcg(decode_gcg((SHARED / "games" / "scrabscrap" / f"{name}.gcg").read_bytes())).events
            if isinstance(e, (Play, Pass, Exchange))]
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
    assert exact >= plays - 2
    # The photos before the game (names laid out in tiles, the empty board) are not turns.
    assert "(the empty board:" in proc.stdout


def test_replay_photos_refuses_a_folder_without_photos(tmp_path):
    (tmp_path / "notes.txt").write_text("no photos here")
    for folder in (tmp_path, tmp_path / "missing"):
        proc = run("replay-photos", str(folder), "--tileset", "de")
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    proc = run("replay-photos", str(tmp_path), "--players", "solo")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
