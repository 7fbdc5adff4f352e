"""The Lexicon value, and the house lists it is loaded from."""

from __future__ import annotations

import marisa_trie
import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.core.tiles import get_tileset
from companion.core.errors import CompanionError
from companion.lexicon import Lexicon, load_lexicon
from companion.lexicon.house import house_trie, list_for_tileset, manifest
from companion.lexicon.words import MAX_LENGTH, MIN_LENGTH

CHECK_WORDS = ["QI", "ZA", "SYZYGY", "QUIXOTIC", "EXPLODED", "QUIZZES"]

words = st.text(alphabet="ABCDE", min_size=2, max_size=4)


@given(base=st.sets(words), added=st.sets(words), deleted=st.sets(words), probe=words)
def test_a_lexicon_is_its_base_minus_deletions_plus_additions(base, added, deleted, probe):
    lexicon = Lexicon(marisa_trie.Trie(sorted(base)), added, deleted)
    expected = (base - deleted) | added
    assert (probe in lexicon) == (probe in expected)
    assert len(lexicon) == len(expected)
    assert list(lexicon) == sorted(expected)


def test_iteration_is_sorted_although_the_trie_is_not():
    trie = house_trie("de")
    assert list(trie.iterkeys())[:1000] != sorted(trie.iterkeys())[:1000]
    first = []
    for word in Lexicon(trie):
        first.append(word)
        if len(first) == 1000:
            break
    assert first == sorted(trie.iterkeys())[:1000]


def test_only_strings_are_looked_up():
    lexicon = Lexicon.from_words(["QI"])
    assert None not in lexicon
    assert b"QI" not in lexicon
    assert "QI" in lexicon
    assert "qi" not in lexicon  # the rules pass normalised words; no second guessing here


def test_the_default_english_list_has_the_check_words():
    lexicon = load_lexicon("en")
    assert [w for w in CHECK_WORDS if w not in lexicon] == []


def test_scrabble_iii_plays_with_the_english_list():
    assert list_for_tileset("super3") == "en"
    assert "SYZYGY" in load_lexicon("super3")


def test_an_unknown_tile_set_is_a_user_error():
    with pytest.raises(CompanionError, match="unknown tile set"):
        load_lexicon("klingon")


@pytest.mark.parametrize("name", ["en", "de"])
def test_every_shipped_word_is_spelt_in_its_tile_set_within_the_lengths(name):
    alphabet = get_tileset(name).alphabet
    trie = house_trie(name)
    lengths = {len(w) for w in trie.iterkeys()}
    letters = {ch for w in trie.iterkeys() for ch in w}
    assert min(lengths) == MIN_LENGTH and max(lengths) == MAX_LENGTH
    assert letters <= alphabet
    assert len(trie) == manifest()[name]["words"]


def test_english_list_has_every_spelling_and_no_names_or_abbreviations():
    en = load_lexicon("en")
    spellings = ["COLOUR", "COLOR", "REALISE", "REALIZE", "CENTRE", "CENTER", "TSKTSK"]
    assert [w for w in spellings if w not in en] == []
    assert [w for w in ["MISSISSIPPI", "LONDON", "NASA", "DONT", "ISNT", "OK"] if w in en] == []


def test_german_list_has_nouns_and_sharp_s_as_ss_and_no_acronyms():
    de = load_lexicon("de")
    assert [w for w in ["STRASSE", "FUSS", "ÄPFEL", "ÜBER", "ESSEN"] if w not in de] == []
    assert [w for w in ["ABC", "GMBH", "STRAßE", "CAFÉ"] if w in de] == []
