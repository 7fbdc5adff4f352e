"""No more tiles of a letter on the board than the table's sets hold.

A tile set holds a fixed number of each letter (``tilesets/*.toml``: nine I in English, two
blanks). A reading that shows more of one letter face up than the table's sets hold has
misread some of them, and nothing in the photo says which: a blurred, hazy photo turns E, F, L
and T into I, all sure of it (development stranger 52085: 26 I read, 19 of them wrong, 11 at
0.5 or more). Each face read as that letter is then asked about, never guessed.

Counted twice, so that a table with several sets is never asked about a board a game could
have made: on the whole board against the sets the profile names (one at least: Scrabble House
plays with two full sets), and among the faces of each tile colour the rules found (a colour is
one set's, or less than one where a light splits a set in two) against one set. A letter over
the first bound and, in some colour, the second has every face read as it asked about: what
misread it (blur, haze) lies over the whole photo.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

import numpy as np

from companion.core.tiles import BLANK, TileSet
from companion.vision.reading import BLANK_FACE, CellReading


def beyond_the_bag(cells: Sequence[CellReading], tileset: TileSet, colour: np.ndarray, named_sets: int) -> np.ndarray:
    """(N,) bool: the faces read as a letter (or a blank) of which the reading shows more than
    ``named_sets`` copies of ``tileset`` hold, and more than one copy among the faces of one
    tile ``colour`` ((N,) int, the rules' nearest tile colour of each square)."""
    bag = {(BLANK_FACE if k == BLANK else k): n for k, n in tileset.bag().items()}
    faces = [c.letter if c.kind == "tile" and c.letter in bag else None for c in cells]
    total = Counter(f for f in faces if f is not None)
    colour = np.asarray(colour).ravel()
    per_colour = Counter((f, int(colour[i])) for i, f in enumerate(faces) if f is not None)
    over = {f for f, n in total.items() if n > bag[f] * max(1, named_sets)}
    over &= {f for (f, _), n in per_colour.items() if n > bag[f]}
    return np.array([f in over for f in faces], bool)
