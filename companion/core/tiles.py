"""Tile sets: which letters exist, how many of each, and what each is worth.

The sets themselves are data (``tilesets/*.toml``); this module only reads and checks them.
A blank is written ``?`` on a rack; on the board it carries the letter it stands for, which
GCG writes in lower case.
"""

from __future__ import annotations

import tomllib
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Iterable, Mapping

from companion.core.errors import CompanionError

BLANK = "?"


@dataclass(frozen=True)
class TileSet:
    name: str
    description: str
    counts: Mapping[str, int]  # letter -> number of tiles, blanks as BLANK
    values: Mapping[str, int]  # letter -> points; BLANK -> 0
    scoop: int | None = None  # tiles drawn from the set for one game, when not all of them
    alphabet: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "alphabet", frozenset(k for k in self.counts if k != BLANK))

    @property
    def size(self) -> int:
        return sum(self.counts.values())

    @property
    def blanks(self) -> int:
        return self.counts.get(BLANK, 0)

    def value(self, letter: str, blank: bool = False) -> int:
        """Points of one tile: a blank is worth nothing, whatever it stands for."""
        if blank or letter == BLANK:
            return 0
        try:
            return self.values[letter]
        except KeyError:
            raise CompanionError(f"letter {letter!r} is not in tile set {self.name!r}") from None

    def alphabetical(self) -> list[str]:
        """The letters in alphabetical order, each letter with a diacritic right after its
        base letter (A < Ä < B, A < Ą < B, Z < Ź < Ż), as German and Polish alphabets order
        them. Calibration photos lay the alphabet in this order."""
        return sorted(self.alphabet, key=lambda ch: (base_letter(ch), ch))

    def rack_value(self, rack: Iterable[str]) -> int:
        return sum(self.value(t) for t in rack)

    def bag(self) -> Counter[str]:
        """Every tile of the set, as a multiset of letters (blanks as ``?``)."""
        return Counter(dict(self.counts))

    def normalise_word(self, word: str) -> str:
        """Upper-case a word and check every letter is a tile of this set.

        Python upper-cases ß to SS, which is also how German players lay it with tiles.
        """
        up = word.upper()
        bad = sorted({ch for ch in up if ch not in self.alphabet})
        if bad:
            raise CompanionError(
                f"{word!r} has letters that tile set {self.name!r} does not have: {''.join(bad)}"
            )
        return up

    def parse_rack(self, text: str) -> Counter[str]:
        """A rack as GCG writes it: letters, ``?`` for a blank."""
        rack: Counter[str] = Counter()
        for ch in text:
            up = ch.upper()
            if up != BLANK and up not in self.alphabet:
                raise CompanionError(f"rack {text!r}: {ch!r} is not a tile of set {self.name!r}")
            rack[up] += 1
        return rack


def base_letter(ch: str) -> str:
    """A letter without its diacritics (Ä -> A, Ł -> L); any other character as it is."""
    # Ł has no decomposition in Unicode; every other letter in our sets decomposes.
    return "L" if ch == "Ł" else unicodedata.normalize("NFD", ch)[0]


def tileset_names() -> list[str]:
    return sorted(
        p.name.removesuffix(".toml")
        for p in resources.files("companion.core").joinpath("tilesets").iterdir()
        if p.name.endswith(".toml")
    )


@cache
def get_tileset(name: str) -> TileSet:
    names = tileset_names()
    if name not in names:
        raise CompanionError(f"unknown tile set {name!r} (known: {', '.join(names)})")
    raw = resources.files("companion.core").joinpath("tilesets", f"{name}.toml").read_bytes()
    data = tomllib.loads(raw.decode("utf-8"))
    counts: dict[str, int] = {}
    values: dict[str, int] = {}
    for letter, (count, value) in data["letters"].items():
        if len(letter) != 1 or not letter.isupper():
            raise CompanionError(f"tile set {name}: {letter!r} is not one upper-case letter")
        counts[letter] = int(count)
        values[letter] = int(value)
    counts[BLANK] = int(data.get("blanks", 0))
    values[BLANK] = 0
    return TileSet(
        name=data["name"],
        description=data.get("description", ""),
        counts=MappingProxyType(counts),
        values=MappingProxyType(values),
        scoop=data.get("scoop"),
    )
