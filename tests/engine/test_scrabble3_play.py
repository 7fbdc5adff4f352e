"""Scrabble III hints on the command line, and a whole computer game judged by the rules."""

from __future__ import annotations

import json

from companion.cli import main
from companion.engine.scrabble3 import generator_for, self_play
from companion.rules import scrabble3 as s3
from tests.commands.test_scrabble3_gcg import GAME


def test_hint_names_the_pick_off(tmp_path, capsys):
    path = tmp_path / "s3.gcg"
    path.write_text(GAME, encoding="utf-8")
    assert main(["hint", "--game", "scrabble3", str(path), "--turn", "2", "--rack", "ILY", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["game"] == "scrabble3" and doc["legal_moves"] == 2
    # DREAMY on the board: pick off M11 (or L11 and M11) and stretch to DREAMILY, 48 each.
    assert {(m["position"], m["word"], m["score"], tuple(m["pick_off"])) for m in doc["moves"]} == {
        ("11H", ".....ILY", 48, ("M11",)),
        ("11H", "....MILY", 48, ("L11", "M11")),
    }
    assert doc["moves"][0]["bonuses"]["stretch"] == 30


def test_hint_names_a_flipped_jqxz(tmp_path, capsys):
    path = tmp_path / "s3.gcg"
    path.write_text(GAME, encoding="utf-8")
    assert main(["hint", "--game", "scrabble3", str(path), "--turn", "2", "--rack", "JLI"]) == 0
    out = capsys.readouterr().out
    # The picked Y serves DREAMILY; the J flipped stands in for the L or the I.
    assert "11H  ....MIlY           47  (pick off L11 M11, J flipped on N11)" in out


def test_hint_bad_rack_is_one_line(tmp_path, capsys):
    path = tmp_path / "s3.gcg"
    path.write_text(GAME, encoding="utf-8")
    assert main(["hint", "--game", "scrabble3", str(path), "--rack", "ABCDEFGHI"]) == 2
    assert "1 to 8 tiles" in capsys.readouterr().err


def test_a_computer_game_ends_legally(english_lexicon):
    gen = generator_for(english_lexicon)
    state, verdicts = self_play(gen, english_lexicon, seed=3)
    assert state.over
    played = [v for v in verdicts if v.kind is s3.VerdictKind.PLAYED]
    assert played and all(v.score.words[0].word.text in english_lexicon for v in played)
    assert all(len(v.score.words[0].word) >= s3.BIG_WORD for v in played)
    for i, p in enumerate(state.players):
        mine = sum(v.points for v in verdicts if v.player == i and v.kind in (
            s3.VerdictKind.PLAYED, s3.VerdictKind.FINAL_RACKS, s3.VerdictKind.FINAL_RACKS_INVALID))
        assert p.score == mine + p.end_adjustment
