"""The filters that make the house lists out of Debian's word lists."""

from __future__ import annotations

from companion.lexicon.sources import english_words, german_words, scowl_files


def test_scowl_files_are_the_words_lists_of_every_spelling_and_variant_1_up_to_size_80():
    wanted = [
        "american-words.10",
        "australian-words.80",
        "australian_variant_1-words.35",
        "british-words.55",
        "british_variant_1-words.60",
        "british_z-words.70",
        "canadian-words.20",
        "canadian_variant_1-words.80",
        "english-words.80",
        "variant_1-words.40",
    ]
    unwanted = [
        "english-words.95",  # size 95: words most people would not call English
        "variant_1-words.95",
        "variant_2-words.50",  # less accepted spellings
        "british_variant_2-words.10",
        "variant_3-words.50",
        "english-proper-names.50",
        "american-upper.50",
        "english-abbreviations.10",
        "english-contractions.35",
        "australian-contractions.35",
        "special-hacker.50",
        "special-roman-numerals.35",
        "README",
    ]
    assert scowl_files(sorted(unwanted + wanted, reverse=True)) == sorted(wanted)


def test_scowl_max_size_is_a_parameter():
    assert scowl_files(["english-words.70", "english-words.80"], max_size=70) == [
        "english-words.70"
    ]


def test_english_keeps_lines_of_a_to_z_only_upper_cased():
    lines = [
        b"qi",
        b"za",
        b"aardvark's",  # possessive
        b"OK'd",  # capital and apostrophe
        b"Zulu",  # capital
        "café".encode("utf-8"),  # accent, as Debian writes it
        "café".encode("latin-1"),  # accent, as upstream SCOWL writes it
        b"a",  # too short
        b"x" * 15,
        b"y" * 16,  # longer than the board
        b"well-known",
        b"",
        b"qi",  # repeated across size files
    ]
    assert english_words(lines) == {"QI", "ZA", "X" * 15}


def test_english_max_length_is_a_parameter():
    assert english_words([b"y" * 16, b"y" * 22], max_length=21) == {"Y" * 16}


def test_german_upper_cases_nouns_writes_sharp_s_as_ss_and_drops_acronyms_and_accents():
    lines = [
        "Straße",
        "essen",
        "Essen",  # the same word for the board
        "Äpfel",
        "u\u0308ber",  # Ü decomposed, as some files write it
        "ABC",  # acronym
        "AKWs",  # abbreviation with a plural s
        "GmbH",
        "eBay",
        "Café",  # é is no tile of the de set
        "Señora",
        "Ü",  # one letter
        "",
    ]
    assert german_words(lines) == {"STRASSE", "ESSEN", "ÄPFEL", "ÜBER"}


def test_german_length_counts_tiles_after_sharp_s_became_ss():
    fourteen = "a" * 13 + "ß"  # 15 tiles
    fifteen = "a" * 14 + "ß"  # 16 tiles
    assert german_words([fourteen, fifteen]) == {"A" * 13 + "SS"}
