"""The Lexicon: the words a game accepts, as one value to look words up in.

A lexicon is a base list in a MARISA trie (a few hundred kB for a quarter of a million words,
loaded in well under a millisecond) plus the user's additions minus their deletions, kept as
small sets beside it so that ``lexicon add`` never has to rebuild the trie.
"""

from __future__ import annotations

import heapq
from typing import Iterable, Iterator

import marisa_trie


class Lexicon:
    """The effective word list: ``(base - deleted) | added``. Immutable.

    Words are upper case in a tile set's alphabet (see :func:`companion.lexicon.words.normalise`);
    ``word in lexicon`` does no normalising of its own, so that the rules' many look-ups stay fast.
    """

    __slots__ = ("_base", "_added", "_deleted")

    def __init__(
        self, base: marisa_trie.Trie, added: Iterable[str] = (), deleted: Iterable[str] = ()
    ) -> None:
        self._base = base
        # Kept disjoint from the base and from each other, so that len() is plain arithmetic;
        # a word both added and deleted is in, as the formula above says.
        added = frozenset(added)
        self._added = frozenset(w for w in added if w not in base)
        self._deleted = frozenset(w for w in deleted if w in base and w not in added)

    @classmethod
    def from_words(cls, words: Iterable[str]) -> Lexicon:
        # Sorted input makes the trie's bytes depend only on the set of words.
        return cls(marisa_trie.Trie(sorted(set(words))))

    @property
    def base(self) -> marisa_trie.Trie:
        return self._base

    @property
    def added(self) -> frozenset[str]:
        """Words the user added that the base list lacks."""
        return self._added

    @property
    def deleted(self) -> frozenset[str]:
        """Words of the base list the user deleted."""
        return self._deleted

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str):
            return False
        if word in self._base:
            return word not in self._deleted
        return word in self._added

    def __len__(self) -> int:
        return len(self._base) - len(self._deleted) + len(self._added)

    def __iter__(self) -> Iterator[str]:
        """Every word, sorted by code point (a trie iterates in its own order, not this one)."""
        base = (w for w in sorted(self._base.iterkeys()) if w not in self._deleted)
        return heapq.merge(base, sorted(self._added))

    def __repr__(self) -> str:
        return f"<Lexicon {len(self)} words: +{len(self._added)} -{len(self._deleted)}>"
