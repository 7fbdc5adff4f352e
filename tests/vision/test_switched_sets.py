"""A face or back that the network (or the table's profile) finds where the rules read another
kind takes its set from its colour, as the rules name their own: green tiles on a green board,
which the rules took for empty squares, are the profile's green tiles, not tiles of no set."""

from __future__ import annotations

from companion.vision.cells.set_passes import named_where_switched
from companion.vision.reading import CellReading


def test_only_a_square_whose_kind_changed_takes_its_colours_set() -> None:
    rules = [CellReading(0, 0, "empty", confidence=0.3), CellReading(0, 1, "tile", letter="A", rotation=0),
             CellReading(0, 2, "tile", letter="B", rotation=0), CellReading(0, 3, "empty", confidence=0.2),
             CellReading(0, 4, "tile", letter="C", rotation=0, set="red")]
    cells = [CellReading(0, 0, "tile", letter="E", rotation=0),  # the network's face: named from its colour
             CellReading(0, 1, "tile", letter="A", rotation=0),  # the rules' face of no set: stays of none
             CellReading(0, 2, "back"),  # a back the rules read as a face: the back's colour names it
             CellReading(0, 3, "tile", letter="O", rotation=0),  # a face whose colour names no set
             CellReading(0, 4, "back")]  # the back of a face's colour of no set: none
    named = {"tile": ["green", "green", "green", None, "red"], "back": ["green", None, "red", None, None]}
    out = named_where_switched(cells, rules, named)
    assert [c.set for c in out] == ["green", None, "red", None, None]
    assert [(c.kind, c.letter) for c in out] == [(c.kind, c.letter) for c in cells]
    assert named_where_switched(cells, rules, None) == cells


def test_green_tiles_the_rules_took_for_a_green_board_are_the_green_set() -> None:
    # Development seed 52079 (the benchmark's are 50000-50199): green tiles on a green board,
    # profiled. Before, the network's faces there were read as tiles of no set (10 squares).
    from bench.vision import stranger_tables, truth_for
    from companion.vision.reader import read_board

    _, _, spec, scene, profile, _ = next(stranger_tables(1, 52079))
    assert profile is not None and [s.name for s in profile.sets] == ["green"]
    truth = truth_for(scene, profile)
    reading = read_board(scene.image, tileset=spec.tileset, grid=spec.grid, profile=profile, also=("rules",))
    rules = reading.extra["also"]["rules"].cells
    found = [i for i, (c, r) in enumerate(zip(reading.cells, rules)) if c.kind == "tile" and r.kind == "empty"]
    assert len(found) >= 5
    assert all(reading.cells[i].set == "green" == truth[i].set for i in found)
