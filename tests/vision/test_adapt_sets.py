"""The set a profiled reading names (companion/vision/adapt.py): the prototypes name a set only
where the rules named none from the square's colour, and a face the profiled rules read blank
where it has a letter keeps their set only asked about, unless the prototypes back it.

On development strangers 52080-52239 the prototypes had put another set in place of one the
rules named from the square's own colour 36 times, every one wrong (red tiles named white,
52203), and the rules, reading green faces with white letters as blanks of a white set printed
in black, named 20 faces white at up to 0.99 (52142)."""

from __future__ import annotations

import numpy as np

from companion.core.tiles import get_tileset
from companion.vision.adapt import adapt
from companion.vision.model import Beliefs, load_square_model
from companion.vision.prototypes import Match
from companion.vision.reading import BLANK_FACE, CellReading


def _witnesses(letter: str, sets: dict[str, float]) -> tuple[Beliefs, Match]:
    """The network and the prototypes, both sure of a face-up ``letter`` upright, the prototypes'
    set beliefs ``sets``."""
    letters = load_square_model().letters
    one = np.zeros((1, len(letters)))
    one[0, letters.index(letter)] = 1.0
    beliefs = Beliefs(kind=np.array([[0.01, 0.98, 0.01]]), letter=one, turn=np.array([[0.97, 0.01, 0.01, 0.01]]),
                      token=np.array([[1.0, 0.0]]), embedding=np.zeros((1, 96), np.float32))
    found = Match(kind=np.array([[0.01, 0.98, 0.01]]), similarity=np.array([0.97]), letters=tuple(letters),
                  letter=one.copy(), turn=np.array([[0.97, 0.01, 0.01, 0.01]]),
                  sets=tuple(sets), set=np.array([list(sets.values())]))
    return beliefs, found


def test_the_prototypes_name_a_set_only_where_the_rules_named_none() -> None:
    face = CellReading(2, 3, "tile", letter="E", rotation=0, rgb=(130, 45, 38), set="red", confidence=0.95)
    beliefs, sure_white = _witnesses("E", {"red": 0.01, "white": 0.99})
    (cell,) = adapt([face], [face], beliefs, sure_white, get_tileset("en"), ["red", "white"])
    assert cell.set == "red"  # named from its own colour: the embedding hardly sees colour

    unnamed = CellReading(2, 3, "tile", letter="E", rotation=0, rgb=(150, 120, 110), set=None, confidence=0.95)
    (cell,) = adapt([unnamed], [unnamed], beliefs, sure_white, get_tileset("en"), ["red", "white"])
    assert cell.set == "white"
    _, unsure = _witnesses("E", {"red": 0.2, "white": 0.8})
    (cell,) = adapt([unnamed], [unnamed], beliefs, unsure, get_tileset("en"), ["red", "white"])
    assert cell.set is None


def test_a_face_the_profiled_rules_read_blank_keeps_their_set_only_asked_about() -> None:
    profiled = CellReading(1, 11, "tile", letter=BLANK_FACE, rotation=0, rgb=(150, 170, 145), set="white",
                           confidence=0.9)
    plain = CellReading(1, 11, "tile", letter="E", rotation=0, rgb=(150, 170, 145), set=None, confidence=0.9)
    beliefs, leaning = _witnesses("E", {"green": 0.34, "white": 0.66})
    doubts: list[int] = []
    (cell,) = adapt([profiled], [plain], beliefs, leaning, get_tileset("en"), ["green", "white"], doubts=doubts)
    assert cell.letter == "E" and cell.set == "white"
    assert cell.confidence <= 0.45 and doubts == [0]

    _, backing = _witnesses("E", {"green": 0.01, "white": 0.99})
    doubts = []
    (cell,) = adapt([profiled], [plain], beliefs, backing, get_tileset("en"), ["green", "white"], doubts=doubts)
    assert cell.letter == "E" and cell.set == "white" and cell.confidence > 0.45 and doubts == []
