"""More faces of a letter than the table's sets hold are asked about (companion/vision/bag_bound.py):
counted on the whole board against the sets the profile names and within each tile colour
against one set, so that no board a game could have made is asked about."""

from __future__ import annotations

import numpy as np

from bench.vision import stranger_tables, truth_for
from companion.core.tiles import get_tileset
from companion.vision.bag_bound import beyond_the_bag
from companion.vision.reader import read_board
from companion.vision.reading import BLANK_FACE, CellReading


def _faces(letters: str) -> list[CellReading]:
    return [CellReading(i // 15, i % 15, "tile", letter=ch, rotation=0, confidence=0.9) for i, ch in enumerate(letters)]


def test_a_tenth_i_of_one_colour_is_asked_about_and_a_second_sets_are_not() -> None:
    en = get_tileset("en")
    cells = _faces("I" * 10 + "EE") + [CellReading(1, 0, "empty", confidence=0.99)]
    one = np.zeros(len(cells), int)
    over = beyond_the_bag(cells, en, one, named_sets=1)
    assert over[:10].all() and not over[10:].any()
    nine = _faces("I" * 9 + "EE")
    assert not beyond_the_bag(nine, en, np.zeros(len(nine), int), named_sets=1).any()
    # Ten I in two colours: two sets may hold them (Scrabble House), even with no profile.
    two = np.array([0] * 5 + [1] * 5 + [0, 0, 0])
    assert not beyond_the_bag(cells, en, two, named_sets=1).any()
    # Ten I of one colour where the profile names two sets: a set seen in two lights, or two
    # sets a light brought together, may hold them.
    assert not beyond_the_bag(cells, en, one, named_sets=2).any()
    blanks = _faces(BLANK_FACE * 3)
    assert beyond_the_bag(blanks, en, np.zeros(3, int), named_sets=1).all()


def test_a_hazy_photo_reading_e_f_l_and_t_as_i_asks_about_each_i() -> None:
    # Development stranger 52085: a foggy phone photo, two sets; E, F, L and T read as I.
    ((seed, phone, spec, scene, profile, why),) = stranger_tables(1, 52085)
    truth = truth_for(scene, None)
    reading = read_board(scene.image, tileset=spec.tileset, grid=spec.grid, profile=None)
    read_i = [(c, t) for c, t in zip(reading.cells, truth) if c.kind == "tile" and c.letter == "I"]
    assert len(read_i) > 18 and sum(t.letter != "I" for _, t in read_i) >= 10
    assert all(c.confidence < 0.5 for c, _ in read_i)
    letter = reading.extra["field_confidence"]["letter"]
    assert all(letter[i] < 0.5 for i, c in enumerate(reading.cells) if c.kind == "tile" and c.letter == "I")
