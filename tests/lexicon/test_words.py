"""What a word may be, and the word-list file format that import reads and export writes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.core.tiles import get_tileset
from companion.core.errors import CompanionError
from companion.lexicon.words import MAX_LENGTH, format_word_list, normalise, parse_word_list

EN = get_tileset("en")
DE = get_tileset("de")


def test_normalise_upper_cases_and_keeps_the_alphabet():
    assert normalise("quixotic", EN) == "QUIXOTIC"
    assert normalise("straße", DE) == "STRASSE"
    assert normalise("u\u0308ber", DE) == "ÜBER"


@pytest.mark.parametrize(
    "text, why",
    [
        ("", "empty"),
        ("two words", "space"),
        ("tab\tbed", "space"),
        ("don't", "does not have"),
        ("café", "does not have: É"),
        ("a", "1 letter"),
        ("a" * (MAX_LENGTH + 1), f"{MAX_LENGTH + 1} letters"),
    ],
)
def test_normalise_says_why_a_text_is_no_word(text, why):
    with pytest.raises(CompanionError, match=why):
        normalise(text, EN)


def test_umlauts_are_letters_of_de_only():
    with pytest.raises(CompanionError):
        normalise("äpfel", EN)
    assert normalise("äpfel", DE) == "ÄPFEL"


def test_max_length_is_a_parameter():
    assert normalise("a" * 21, EN, max_length=21) == "A" * 21


def test_parse_accepts_lower_case_any_order_crlf_and_a_byte_order_mark():
    data = "\ufeffzebra\r\nApple\r\nqi\r\nQI\r\n".encode("utf-8")
    parsed = parse_word_list(data, EN)
    assert parsed.problems == ()
    assert parsed.words == {"ZEBRA", "APPLE", "QI"}
    assert parsed.lines == 4


def test_parse_reports_every_bad_line_by_number():
    data = b"qi\nhello world\n\nfoo\xff\ncaf\xc3\xa9\nx\n" + b"a" * 16 + b"\nok\n\n"
    parsed = parse_word_list(data, EN)
    assert parsed.words == {"QI", "OK"}
    assert [(p.line, p.message.split()[-1]) for p in parsed.problems] == [
        (2, "it"),  # 'hello world' has a space in it
        (3, "line"),  # empty line
        (4, "UTF-8"),
        (5, "É"),
        (6, "15"),  # 'x' has 1 letter; words have 2 to 15
        (7, "15"),
        (9, "line"),  # an empty line at the end is a line too
    ]
    assert str(parsed.problems[0]) == "line 2: 'hello world' has a space in it"


def test_an_empty_file_has_no_lines():
    assert parse_word_list(b"", EN).lines == 0


def test_format_sorts_by_code_point_umlauts_after_z():
    assert format_word_list(["ÄPFEL", "ZOO", "AB"]) == "AB\nZOO\nÄPFEL\n".encode("utf-8")


de_words = st.text(alphabet=sorted(DE.alphabet), min_size=2, max_size=MAX_LENGTH)


@given(st.sets(de_words, max_size=50))
def test_parse_reads_back_what_format_writes(words):
    parsed = parse_word_list(format_word_list(words), DE)
    assert parsed.problems == ()
    assert parsed.words == words
    assert format_word_list(parsed.words) == format_word_list(words)


# Any text but what ends a line or marks the file's start, each of which the format reserves.
one_line = st.text(st.characters(blacklist_characters="\n\r\ufeff"), max_size=20)


@given(st.lists(one_line, max_size=20))
def test_parse_never_raises_and_accounts_for_every_line(texts):
    data = "".join(f"{t}\n" for t in texts).encode("utf-8", "surrogatepass")
    parsed = parse_word_list(data, EN)
    bad = {p.line for p in parsed.problems}
    assert len(bad) == len(parsed.problems)
    assert all(1 <= n <= parsed.lines for n in bad)
    good = [normalise(t, EN) for i, t in enumerate(texts, 1) if i not in bad]
    assert parsed.words == set(good)
