from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.core.gcg import parse_gcg
from companion.core.tiles import get_tileset
from companion.engine.hint import position_before

GAME = """#character-encoding UTF-8
#player1 a Anna
#player2 b Bert
>a: RETAINS 8D RETAINS +66 66
>b: QUIZ?ED 9C Q.. +0 0
>a: EEIOUAA -EEIOUAA +0 66
>b: ABCDEFG - +0 0
"""


@pytest.fixture
def game(tmp_path: Path) -> Path:
    p = tmp_path / "g.gcg"
    p.write_text(GAME.replace(">b: QUIZ?ED 9C Q.. +0 0\n", ">b: QUIZ?ED - +0 0\n"), encoding="utf-8")
    return p


def test_hint_json_gives_the_best_moves_in_gcg_notation(game, capsys, english_lexicon):
    assert main(["hint", str(game), "--turn", "1", "--top", "3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["turn"] == 1 and doc["rack"] == "AEINRST" and doc["player"] == "a"
    assert len(doc["moves"]) == 3 and doc["moves"][0]["score"] == 66
    assert doc["moves"][0]["position"][-1].isalpha()  # 8B etc.: across on row 8
    assert doc["elapsed_ms"] > 0 and doc["legal_moves"] > 100


def test_hint_after_a_play_shows_play_through_and_blanks(game, capsys):
    assert main(["hint", str(game), "--turn", "2", "--rack", "?UIZKED", "--top", "40", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    words = [m["word"] for m in doc["moves"]]
    assert any("." in w for w in words)
    assert any(any(ch.islower() for ch in w) for w in words)
    assert [m["score"] for m in doc["moves"]] == sorted((m["score"] for m in doc["moves"]), reverse=True)


def test_hint_text(game, capsys):
    assert main(["hint", str(game), "--turn", "1", "--top", "1"]) == 0
    out = capsys.readouterr().out
    assert "66" in out and "legal moves" in out


def test_position_before_replays_the_record():
    record = parse_gcg(GAME.replace(">b: QUIZ?ED 9C Q.. +0 0\n", ">b: QUIZ?ED - +0 0\n"))
    pos = position_before(record, 3, get_tileset("en"))
    assert len(pos.board) == 7 and pos.rack == "EEIOUAA"


@pytest.mark.parametrize(
    "args,message",
    [
        (["--turn", "9"], "turn 9 is not in the record"),
        (["--rack", "AB1"], "is not a tile"),
        (["--rack", "ABCDEFGHI"], "1 to 8 tiles"),
        (["--rack", "ZZZ"], "only 1 Z"),
        (["--turn", "5"], "no recorded rack"),
        (["--top", "0"], "--top"),
        (["--tileset", "xx"], "--tileset"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(game, capsys, args, message):
    with pytest.raises(SystemExit) if args[0] in ("--top", "--tileset") else _no_raise():
        code = main(["hint", str(game), *args])
        assert code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_missing_file(capsys, tmp_path):
    assert main(["hint", str(tmp_path / "none.gcg")]) == 2
    assert "no such file" in capsys.readouterr().err


class _no_raise:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
