import pytest

from companion.core.tiles import get_tileset, tileset_names
from companion.core.errors import CompanionError


def test_known_sets():
    assert tileset_names() == ["de", "en", "pl", "ro", "super3"]


def test_english_set():
    en = get_tileset("en")
    assert en.size == 100 and en.blanks == 2
    assert en.counts["E"] == 12 and en.values["Q"] == 10 and en.values["K"] == 5
    assert sum(en.counts[k] * en.values[k] for k in en.counts) == 187


def test_german_set_has_umlauts_and_no_sharp_s():
    de = get_tileset("de")
    assert de.size == 102 and de.blanks == 2
    assert {"Ä", "Ö", "Ü"} <= de.alphabet and "ß" not in de.alphabet
    assert (de.values["Ä"], de.values["Ö"], de.values["Ü"], de.values["Y"]) == (6, 8, 6, 10)
    assert de.counts["E"] == 15 and de.counts["N"] == 9


def test_polish_set():
    pl = get_tileset("pl")
    assert pl.size == 100 and pl.blanks == 2
    assert set("ĄĆĘŁŃÓŚŹŻ") <= pl.alphabet and not set("QVX") & pl.alphabet
    assert (pl.values["Ź"], pl.values["Ń"], pl.values["Ć"]) == (9, 7, 6)


def test_scrabble_three_set():
    s3 = get_tileset("super3")
    assert s3.size == 298 and s3.blanks == 3 and s3.scoop == 100
    assert all(s3.counts[ch] == 3 for ch in "JQXZ")
    assert s3.counts["E"] == 38


def test_blank_is_worth_nothing_whatever_it_stands_for():
    en = get_tileset("en")
    assert en.value("Z", blank=True) == 0 and en.value("?") == 0 and en.value("Z") == 10
    assert en.rack_value("QZ?") == 20


def test_words_and_racks_are_checked_against_the_alphabet():
    de = get_tileset("de")
    # Upper-casing turns ß into SS, which is how German players lay it.
    assert de.normalise_word("größe") == "GRÖSSE"
    with pytest.raises(CompanionError, match="É"):
        de.normalise_word("café")
    with pytest.raises(CompanionError):
        get_tileset("en").parse_rack("AB1")
    with pytest.raises(CompanionError, match="unknown tile set"):
        get_tileset("klingon")


def test_romanian_set_has_no_k_q_w_y():
    ro = get_tileset("ro")
    assert ro.size == 100 and ro.blanks == 2
    assert not {"K", "Q", "W", "Y"} & ro.alphabet and len(ro.alphabet) == 22
    assert ro.counts["A"] == 11 and ro.values["X"] == 10 and ro.values["B"] == 9
