"""What the tiles kept on the rack are worth, in points of future scoring: a static leave.

Hand-set from the principles every strong player knows, not copied from any table:

- a blank is worth most (about 25 points: it makes bingos), an S next (about 8: it hooks);
- letters that make common endings and bingo-prone racks (E R A N T, then L D I) are slightly
  positive; awkward letters (V, W, U, and Q above all) are negative;
- a second copy of a letter costs (vowels more), a third more;
- Q without U costs extra;
- balance: a leave with far more vowels than consonants (or the reverse) costs, about 3 points
  per tile of imbalance beyond one.

Letters outside the table (the German set's Ä Ö Ü, ...) get a value from their tile value:
one-point letters 0, dearer letters less the dearer they are. The German set's vowels include
Ä Ö Ü.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from companion.core.tiles import BLANK, TileSet

TILE: dict[str, float] = {
    BLANK: 25.0, "S": 8.0, "Z": 2.5, "X": 3.0, "E": 2.5, "R": 1.5, "A": 1.0, "N": 1.0,
    "T": 1.0, "H": 1.0, "L": 0.5, "D": 0.5, "C": 0.5, "M": 0.5, "P": 0.0, "I": -0.5,
    "O": -1.0, "K": -1.0, "Y": -0.5, "J": -2.0, "G": -2.0, "B": -2.0, "F": -2.0, "U": -3.5,
    "W": -3.5, "V": -6.0, "Q": -7.0,
}
VOWELS = frozenset("AEIOUÄÖÜ")
DUPLICATE = 3.0
DUPLICATE_VOWEL = 4.0
Q_WITHOUT_U = 5.0
IMBALANCE = 3.0


def tile_value(letter: str, tileset: TileSet) -> float:
    if letter in TILE:
        return TILE[letter]
    return -0.8 * max(0, tileset.value(letter) - 1)


def leave_value(tiles: Iterable[str], tileset: TileSet) -> float:
    """The value of keeping ``tiles`` (letters, ``?`` for a blank)."""
    counts = Counter(tiles)
    if not counts:
        return 0.0
    value = 0.0
    vowels = consonants = 0
    for letter, n in counts.items():
        value += n * tile_value(letter, tileset)
        if letter != BLANK and n > 1:
            per = DUPLICATE_VOWEL if letter in VOWELS else DUPLICATE
            value -= per * (n - 1) * (n - 1 + 1) / 2  # 1 extra: per; 2 extra: 3 per
        if letter == BLANK:
            continue
        if letter in VOWELS:
            vowels += n
        else:
            consonants += n
    if counts["Q"] and not counts["U"]:
        value -= Q_WITHOUT_U
    value -= IMBALANCE * max(0, abs(vowels - consonants) - 1)
    return value
