"""What a word of a lexicon may be, and the word-list file format.

One check serves every way a word gets into a lexicon: the shipped house lists, an imported
file, ``companion lexicon add``. So nothing enters a lexicon that tiles of its set could not
spell on the board.

A word is stored in upper case, NFC, in the tile set's alphabet. Upper-casing goes through
:meth:`TileSet.normalise_word`, i.e. Python's full Unicode case mapping, which turns ``ß`` into
``SS``: exactly how German players write it, since the ``de`` set has no ß tile.

The file format is the one ``export`` writes and ``import`` reads: UTF-8, one word per line,
``\\n`` line ends. On reading we also accept ``\\r\\n`` and a leading byte-order mark (what
editors on Windows write), lower case, and any order: sorting is ours to do, unlike the old
program, which demanded an alphabetical file.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable

from companion.core.tiles import TileSet
from companion.core.errors import CompanionError, one_line

# A single tile forms no word.
MIN_LENGTH = 2
# The longest word a list may be made for (German compounds run past 40 letters), and the longest
# line read as a word at all: a longer one is reported by its length, never decoded or echoed.
LONGEST = 64
MAX_LINE_BYTES = 1024
# The width of the standard 15x15 board. The extended 21x21 game may want longer words later:
# every function here, the build script and the CLI take the maximum as a parameter.
MAX_LENGTH = 15

_BOM = b"\xef\xbb\xbf"
_SPACE = re.compile(r"\s")


def normalise(
    text: str, tileset: TileSet, *, min_length: int = MIN_LENGTH, max_length: int = MAX_LENGTH
) -> str:
    """``text`` as a lexicon stores it; a :class:`CompanionError` says why it cannot be a word."""
    if not text:
        raise CompanionError("empty word")
    if _SPACE.search(text):
        raise CompanionError(f"{text!r} has a space in it")
    # NFC first: a file from macOS may spell Ü as U + a combining diaeresis.
    word = tileset.normalise_word(unicodedata.normalize("NFC", text))
    if not min_length <= len(word) <= max_length:
        letters = "1 letter" if len(word) == 1 else f"{len(word)} letters"
        raise CompanionError(f"{text!r} has {letters}; words have {min_length} to {max_length}")
    return word


@dataclass(frozen=True)
class LineProblem:
    line: int  # 1-based, as an editor counts
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass(frozen=True)
class WordList:
    """What a word-list file holds: its distinct words, and every line that is not a word."""

    words: frozenset[str]
    lines: int
    problems: tuple[LineProblem, ...]


def parse_word_list(
    data: bytes, tileset: TileSet, *, min_length: int = MIN_LENGTH, max_length: int = MAX_LENGTH
) -> WordList:
    """Read a word-list file; never raises for a bad line, so that all of them can be reported."""
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    lines = data.split(b"\n")
    if lines[-1] == b"":  # the newline that ends the last line starts no line of its own
        lines.pop()
    words: set[str] = set()
    problems: list[LineProblem] = []
    for number, raw in enumerate(lines, start=1):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if len(raw) > MAX_LINE_BYTES:
            problems.append(LineProblem(number, f"a line of {len(raw):,} bytes is not a word"))
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            problems.append(LineProblem(number, "not valid UTF-8"))
            continue
        if not text:
            problems.append(LineProblem(number, "empty line"))
            continue
        try:
            words.add(normalise(text, tileset, min_length=min_length, max_length=max_length))
        except CompanionError as exc:
            problems.append(LineProblem(number, one_line(exc)))  # the line's control characters escaped
    return WordList(frozenset(words), len(lines), tuple(problems))


def format_word_list(words: Iterable[str]) -> bytes:
    """The file ``parse_word_list`` reads back to the same words: sorted, one a line, UTF-8.

    Sorted by code point, so that the order is the same everywhere (no locale): A-Z, then Ä Ö Ü.
    """
    return "".join(f"{w}\n" for w in sorted(words)).encode("utf-8")
