"""`companion house explode BOARD PLAY [--json]`, in process (the test's own data directory)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from companion.cli import main
from tests.rules.test_house import EXAMPLE_BOARD

PLAY = "\n".join("........KEEL..." if r == 8 else "." * 15 for r in range(15)) + "\n"


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    # The house list (SCOWL) lacks AE, which tournament lists have: the table adds it.
    assert main(["lexicon", "add", "AE"]) == 0
    board, play = tmp_path / "board.txt", tmp_path / "play.txt"
    board.write_text(EXAMPLE_BOARD)
    play.write_text(PLAY)
    return board, play


def test_explode_prints_words_turns_steps_and_the_board_after(files, capsys):
    capsys.readouterr()
    assert main(["house", "explode", str(files[0]), str(files[1])]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "mover: the bottom player (upper case)"
    assert out[1] == "words: KEEL DOCK AE"
    assert out[2] == "turned: I6 I7 I8 J8"
    assert out[3] == "step 1 (b): E8 F8 G8 H8  ACCEPT is mixed: its upside-down C E P T come off"
    assert out[4].strip() == "J8  CA is left and is not a word: its A comes off"
    assert out[5] == "step 2 (c): F9 F10 F11  STU is not a word: it comes off"
    assert out[6].startswith("step 3 (c): G11 H11 I11 J11  RADI is not a word")
    assert out[7].strip() == "E11  H is left alone: it comes off"
    assert out[8].startswith("to the partner: 13 tiles")
    assert out[9] == "board after:"
    assert out[10:] == [
        "...............", "...............", "...............", "...............",
        ".....s.........", ".....r..D......", ".....o..O......", "........C......",
        "........KEEL...", *["..............."] * 6,
    ]


def test_explode_json(files, capsys):
    capsys.readouterr()
    assert main(["house", "explode", str(files[0]), str(files[1]), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["mover"] == "bottom"
    assert [w["word"] for w in doc["words"]] == ["KEEL", "DOCK", "AE"]
    assert [s["rule"] for s in doc["steps"]] == ["b", "c", "c"]
    assert doc["steps"][1]["strings"] == [
        {"text": "STU", "letters": "STU", "owner": "top", "reason": "not-a-word", "squares": ["F9", "F10", "F11"]}
    ]
    assert doc["board"][8] == "........KEEL..."
    assert len(doc["passed"]) == 13


def test_the_top_player_explodes_back(files, tmp_path, capsys):
    capsys.readouterr()
    main(["house", "explode", str(files[0]), str(files[1]), "--json"])
    after = "\n".join(json.loads(capsys.readouterr().out)["board"]) + "\n"
    board, play = tmp_path / "b2.txt", tmp_path / "p2.txt"
    board.write_text(after)
    rows = ["." * 15] * 15
    for r, ch in ((3, "l"), (4, "l"), (5, "o"), (6, "r")):
        rows[r] = "......." + ch + "......."
    play.write_text("\n".join(rows) + "\n")
    assert main(["house", "explode", str(board), str(play)]) == 0
    out = capsys.readouterr().out
    assert "words: ROLL DO OR" in out or "words: ROLL OR DO" in out
    assert "DOCK is mixed: its upside-down C K come off" in out
    assert ".........EEL..." in out


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda b, p: (b.replace("tpecca", "tp3cca"), p), "BOARD .*: line 8, column 7: '3' is neither a letter nor '.'"),
        (lambda b, p: (b, p.replace("KEEL", "KEEl")), "PLAY .*: line 9, column 12: l faces the top player, the play's first tile the bottom"),
        (lambda b, p: ("\n".join(b.splitlines()[:14]), p), "BOARD .*: 14 lines: a board is 15 lines of 15 characters"),
        (lambda b, p: (b, p.replace("........KEEL...", "........KEEL....")), "PLAY .*: line 9: 16 characters, a board line has 15"),
        (lambda b, p: (b, p.replace("KEEL", "....")), "PLAY .*: no tiles"),
    ],
)
def test_bad_files_are_one_line_naming_line_and_column(files, capsys, change, message):
    board, play = files
    b, p = change(board.read_text(), play.read_text())
    board.write_text(b)
    play.write_text(p)
    capsys.readouterr()
    code = main(["house", "explode", str(board), str(play)])
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert re.search(message, err), err
    assert code == 2


def test_a_tile_on_a_held_square_and_an_illegal_play(files, tmp_path, capsys):
    board, play = files
    rows = ["." * 15] * 15
    rows[7] = "....T.........."
    play.write_text("\n".join(rows) + "\n")
    capsys.readouterr()
    assert main(["house", "explode", str(board), str(play)]) == 2
    assert "PLAY" in (err := capsys.readouterr().err) and "line 8, column 5: BOARD already holds a tile there" in err
    rows[7] = "." * 15
    rows[8] = "........KEEX..."
    play.write_text("\n".join(rows) + "\n")
    assert main(["house", "explode", str(board), str(play)]) == 1
    assert capsys.readouterr().err == "companion: the play cannot stand: KEEX is not in the dictionary\n"
    assert main(["house", "explode", str(tmp_path / "missing.txt"), str(play)]) == 2
    assert "no such file" in capsys.readouterr().err


def test_demo_refuses_a_negative_pace_in_one_line(capsys):
    # The whole demo's match is tests/table/test_house_game.py (the same script and table).
    assert main(["house", "demo", "--headless", "--pace", "-1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["companion: --pace must not be negative"]
