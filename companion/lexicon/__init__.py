"""Word lists: the shipped house lists, the user's imports, additions and deletions.

    lexicon.py   Lexicon, the value the rules look words up in
    words.py     what a word may be (alphabet, 2..15 letters) and the word-list file format
    house.py     the shipped lists in data/, and which tile set plays with which list
    store.py     the user's changes on disk, outside the install; load_lexicon()
    sources.py   which Debian words the house lists take (used by scripts/build_lexicons.py)

``load_lexicon("en")`` is the edge that reads files; everything it returns is a plain value.
"""

from companion.lexicon.lexicon import Lexicon
from companion.lexicon.store import add_words, delete_words, import_list, load_lexicon, reset
from companion.lexicon.words import (
    MAX_LENGTH,
    MIN_LENGTH,
    format_word_list,
    normalise,
    parse_word_list,
)

__all__ = [
    "Lexicon",
    "MAX_LENGTH",
    "MIN_LENGTH",
    "add_words",
    "delete_words",
    "format_word_list",
    "import_list",
    "load_lexicon",
    "normalise",
    "parse_word_list",
    "reset",
]
