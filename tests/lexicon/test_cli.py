"""`companion lexicon`, run as a user runs it: a new process each time, the real entry point."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Callable

# The `companion` fixture (conftest.py): runs `python -m companion ARGS...` in a new process.
Companion = Callable[..., subprocess.CompletedProcess]

CHECK_WORDS = "qi za syzygy quixotic exploded quizzes".split()


def text(stream: bytes) -> str:
    return stream.decode("utf-8")


def test_check_says_the_six_words_are_valid(companion: Companion):
    r = companion("lexicon", "check", *CHECK_WORDS)
    assert r.returncode == 0, r.stderr
    assert text(r.stdout).splitlines() == [f"{w.upper()}: valid" for w in CHECK_WORDS]


def test_check_fails_when_one_word_is_not_valid(companion: Companion):
    r = companion("lexicon", "check", "qi", "xyzzy", "café")
    assert r.returncode == 1
    lines = text(r.stdout).splitlines()
    assert lines[:2] == ["QI: valid", "XYZZY: not valid"]
    assert lines[2].startswith("café: not valid (")


def test_check_in_german(companion: Companion):
    r = companion("lexicon", "check", "--tileset", "de", "straße", "Äpfel")
    assert r.returncode == 0, r.stderr
    assert text(r.stdout).splitlines() == ["STRASSE: valid", "ÄPFEL: valid"]


def test_add_and_delete_survive_a_new_process(companion: Companion):
    assert companion("lexicon", "add", "xyzzy").returncode == 0
    assert companion("lexicon", "delete", "za").returncode == 0
    r = companion("lexicon", "check", "xyzzy", "za")
    assert text(r.stdout).splitlines() == ["XYZZY: valid", "ZA: not valid"]
    assert companion("lexicon", "check", "--tileset", "de", "xyzzy").returncode == 1


def test_a_bad_word_to_add_is_one_line_and_changes_nothing(companion: Companion):
    r = companion("lexicon", "add", "xyzzy", "two words")
    assert r.returncode == 2
    assert text(r.stderr).count("\n") == 1 and "nothing was changed" in text(r.stderr)
    assert companion("lexicon", "check", "xyzzy").returncode == 1


def test_bad_import_lines_are_reported_by_number_and_nothing_is_stored(
    companion: Companion, tmp_path: Path, data_dir: Path
):
    companion("lexicon", "add", "xyzzy")
    state = (data_dir / "lexicon" / "en" / "state.json").read_bytes()
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"qi\nhello world\n\nfoo\xff\ncaf\xc3\xa9\nx\nok\n")
    r = companion("lexicon", "import", str(bad))
    assert r.returncode != 0
    report = text(r.stderr).splitlines()
    assert [line.split(":")[1].strip() for line in report[:-1]] == [
        "line 2",
        "line 3",
        "line 4",
        "line 5",
        "line 6",
    ]
    assert "nothing was imported" in report[-1]
    assert sorted(p.name for p in (data_dir / "lexicon" / "en").iterdir()) == [
        ".lock",
        "state.json",
    ]
    assert (data_dir / "lexicon" / "en" / "state.json").read_bytes() == state
    assert text(companion("lexicon", "check", "xyzzy", "syzygy").stdout).splitlines() == [
        "XYZZY: valid",
        "SYZYGY: valid",
    ]


def test_a_long_list_of_bad_lines_is_capped(companion: Companion, tmp_path: Path):
    bad = tmp_path / "bad.txt"
    bad.write_text("qi\n" + "x\n" * 30, encoding="utf-8")
    r = companion("lexicon", "import", str(bad))
    report = text(r.stderr).splitlines()
    assert len(report) == 22
    assert report[0].endswith("line 2: 'x' has 1 letter; words have 2 to 15")
    assert report[-2] == "... and 10 more"
    assert report[-1] == f"companion: {bad}: 30 bad lines of 31; nothing was imported"


def test_import_takes_any_case_and_order_and_export_writes_it_sorted(companion: Companion):
    r = companion("lexicon", "import", "-", input=b"zebra\nApple\nqi\nQI\n")
    assert r.returncode == 0, r.stderr
    assert "3 words of standard input (4 lines)" in text(r.stdout)
    assert companion("lexicon", "export").stdout == b"APPLE\nQI\nZEBRA\n"
    assert companion("lexicon", "check", "syzygy").returncode == 1


def test_export_then_import_round_trips_exactly(companion: Companion, tmp_path: Path):
    companion("lexicon", "add", "xyzzy")
    companion("lexicon", "delete", "za")
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    assert companion("lexicon", "export", str(first)).returncode == 0
    r = companion("lexicon", "import", str(first))
    assert r.returncode == 0, r.stderr
    assert "cleared 1 addition and 1 deletion" in text(r.stdout)
    assert companion("lexicon", "export", str(second)).returncode == 0
    assert first.read_bytes() == second.read_bytes()
    words = first.read_bytes().decode("utf-8").splitlines()
    assert words == sorted(words) and "XYZZY" in words and "ZA" not in words
    assert companion("lexicon", "export").stdout == first.read_bytes()


def test_german_export_puts_umlauts_after_z(companion: Companion):
    out = companion("lexicon", "export", "--tileset", "de").stdout.decode("utf-8").splitlines()
    assert out[-1].startswith("Ü") and out.index("ZYNISCH") < out.index("ÄPFEL")


def test_reset_goes_back_to_the_house_list(companion: Companion):
    companion("lexicon", "import", "-", input=b"qi\n")
    companion("lexicon", "add", "xyzzy")
    r = companion("lexicon", "reset")
    assert r.returncode == 0
    assert "back to the house list" in text(r.stdout)
    assert text(companion("lexicon", "check", "syzygy", "xyzzy").stdout).splitlines() == [
        "SYZYGY: valid",
        "XYZZY: not valid",
    ]
    assert "already the house list" in text(companion("lexicon", "reset").stdout)


def test_info_names_the_list_in_use(companion: Companion):
    r = companion("lexicon", "info", "--tileset", "super3")
    assert r.returncode == 0, r.stderr
    assert text(r.stdout).startswith("en (tile sets en, super3): the house list (SCOWL")
