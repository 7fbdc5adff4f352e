"""Which words the shipped house lists take from Debian's word lists, and why.

``scripts/build_lexicons.py`` reads the files and writes ``data/``; this module holds the
decisions, as pure functions, so that the tests can check them on a few lines.

English (``en``, also played by ``super3``): SCOWL, Debian package ``scowl``
(``/usr/share/dict/scowl/<category>-<kind>.<size>``).

- Sizes 10 to 80. SCOWL's README calls 80 the size with "all the strange and unusual words
  people like to use in word games such as Scrabble"; 95 holds words most people would not
  call English. Size 70 is where QI and SYZYGY come in, size 80 where ZA does.
- Categories ``english`` (words common to every spelling) plus every national spelling,
  ``american``, ``british``, ``british_z`` (British with -ize), ``canadian``, ``australian``,
  because players at one table spell differently; plus the ``variant_1`` categories
  (``variant_1``, which is mostly American, ``british_variant_1``, ``canadian_variant_1``,
  ``australian_variant_1``): SCOWL puts one of two equally good spellings in the main list at
  random and the other in variant_1 ("variants which are considered almost equal").
  ``variant_2`` (a step further: "also generally considered acceptable", 2,040 more words
  such as GIPSY and ABACI) and ``variant_3`` ("seldom used and may not even be considered
  correct") are left out; a table that wants a word of theirs can add it.
- Kind ``words`` only. Not ``proper-names``, ``upper`` (capitalised words: names, languages,
  months), ``abbreviations``, ``contractions``, nor the ``special-*`` lists (hacker jargon,
  roman numerals): none of them is playable.
- Lines of a-z only: drops possessives and anything else with an apostrophe, words with
  accents (café, arête: about 700 at these sizes, none also listed without its accent), and
  anything with a capital (OK'd). Kept words are upper-cased.

German (``de``): ``/usr/share/dict/ngerman``, Debian package ``wngerman`` (GPL-2+), UTF-8.

- Upper-cased: nouns are valid in German Scrabble, and the list writes them capitalised.
- ``ß`` becomes ``SS``: the ``de`` set has no ß tile, and German players write it so.
- Dropped: entries with a capital after the first letter, i.e. acronyms and abbreviations
  (ABC, AKWs, GmbH, MHz); and words with a letter the ``de`` set lacks (é, ñ, à, ...), since
  no tile could spell them. ngerman does not mark proper names, so names (BERLIN) remain;
  a table that minds can delete them or import a tournament list.

Both: 2 to ``max_length`` letters (15 by default, the board's width; see
:data:`companion.lexicon.words.MAX_LENGTH`), counted after ß became SS, every word passing
:func:`companion.lexicon.words.normalise` like any imported word.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Iterable

from companion.core.tiles import get_tileset
from companion.core.errors import CompanionError
from companion.lexicon.words import MAX_LENGTH, normalise

SCOWL_CATEGORIES = (
    "english",
    "american",
    "british",
    "british_z",
    "canadian",
    "australian",
    "variant_1",
    "british_variant_1",
    "canadian_variant_1",
    "australian_variant_1",
)
SCOWL_KIND = "words"
SCOWL_MAX_SIZE = 80

_SCOWL_NAME = re.compile(r"(?P<category>[a-z_0-9]+)-(?P<kind>[a-z-]+)\.(?P<size>[0-9]+)")
_ENGLISH_LINE = re.compile(rb"[a-z]+")


def scowl_files(names: Iterable[str], max_size: int = SCOWL_MAX_SIZE) -> list[str]:
    """The SCOWL file names, out of a directory's listing, that the English list is built from."""
    chosen = []
    for name in names:
        m = _SCOWL_NAME.fullmatch(name)
        if (
            m
            and m["category"] in SCOWL_CATEGORIES
            and m["kind"] == SCOWL_KIND
            and int(m["size"]) <= max_size
        ):
            chosen.append(name)
    return sorted(chosen)


def english_words(lines: Iterable[bytes], max_length: int = MAX_LENGTH) -> set[str]:
    """The words of the English list among SCOWL lines.

    Bytes, not text: the a-z test needs no decoding, so this works whatever encoding a SCOWL
    build uses for its accented words (upstream Latin-1, Debian UTF-8).
    """
    en = get_tileset("en")
    words = set()
    for line in set(lines):  # the size files overlap across spellings
        if _ENGLISH_LINE.fullmatch(line):
            try:
                words.add(normalise(line.decode("ascii"), en, max_length=max_length))
            except CompanionError:
                pass  # too short or too long
    return words


def german_words(lines: Iterable[str], max_length: int = MAX_LENGTH) -> set[str]:
    """The words of the German list among ngerman's lines (decoded text)."""
    de = get_tileset("de")
    words = set()
    for line in lines:
        line = unicodedata.normalize("NFC", line)
        if not line or line[1:].lower() != line[1:]:
            continue  # an acronym or abbreviation
        try:
            words.add(normalise(line, de, max_length=max_length))
        except CompanionError:
            pass  # a letter the set lacks, or a length the board cannot hold
    return words
