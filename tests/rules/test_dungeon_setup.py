"""The dungeon's set-up: dice, placement, overlaps, walls, counts, the camera's check, the command."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from companion.clock.dice import OBSTACLES
from companion.core.errors import CompanionError
from companion.rules.dungeon import (
    FIXED,
    MONSTER,
    TREASURE,
    WALL,
    check_setup,
    edge_wall_squares,
    expected_view,
    roll_setup,
)
from companion.vision.reading import CellReading

SEEDS = range(150)


class Dice:
    """An rng that gives the dice it is told, in order."""

    def __init__(self, *dice: int) -> None:
        self.dice = list(dice)

    def randint(self, a: int, b: int) -> int:
        assert (a, b) == (1, 6)
        return self.dice.pop(0)


def test_the_same_seed_gives_the_same_set_up_and_another_seed_another():
    assert roll_setup(seed="dungeon") == roll_setup(seed="dungeon")
    assert roll_setup(seed="dungeon").to_json() != roll_setup(seed="other").to_json()
    assert roll_setup(seed="x", dice=4) == roll_setup(seed="x", dice=4)


@pytest.mark.parametrize("dice", [2, 4])
def test_each_object_lies_where_its_dice_put_it(dice):
    for seed in SEEDS:
        setup = roll_setup(seed=seed, dice=dice)
        for r in setup.rolls:
            if dice == 4:
                assert len(r.dice) == 2 and all(len(d) == 4 for d in r.dice)
                assert (r.column, r.row) == (r.dice[0][0] + r.dice[0][1], r.dice[0][2] + r.dice[0][3])
            else:
                assert len(r.dice) == 3 and all(len(d) == 2 for d in r.dice)
                assert (r.column, r.row) == (sum(r.dice[0]), sum(r.dice[1]))
            assert r.die == r.dice[-1][0] and r.rolled == OBSTACLES[r.die]
            assert 2 <= r.row <= 12 and 2 <= r.column <= 12
        for o in setup.obstacles:
            if o.edge:
                continue
            roll = setup.rolls[o.roll]
            centre = (roll.row, roll.column)
            assert centre in o.squares
            if o.kind == WALL:
                assert roll.rolled == f"{o.orientation} wall" and o.squares[1] == centre
            elif roll.rolled.endswith("wall"):
                assert o.kind == FIXED and roll.outcome == "a fixed letter instead" and o.squares == (centre,)
            else:
                assert o.kind == roll.rolled and o.squares == (centre,)


def test_no_square_holds_two_objects_and_an_occupied_square_is_rolled_again():
    again = 0
    for seed in SEEDS:
        setup = roll_setup(seed=seed)
        squares = [s for o in setup.obstacles for s in o.squares]
        assert len(squares) == len(set(squares))
        placed = {setup.rolls[o.roll].row * 100 + setup.rolls[o.roll].column for o in setup.obstacles if not o.edge}
        for i, r in enumerate(setup.rolls):
            if r.outcome == "occupied, rolled again":
                again += 1
                # An earlier object covers the square, and no object comes of this roll.
                assert any((r.row, r.column) in o.squares for o in setup.obstacles if not o.edge and o.roll < i)
                assert all(o.roll != i for o in setup.obstacles)
        assert len(placed) == sum(1 for o in setup.obstacles if not o.edge)
    assert again > 10  # the case is met, not only imagined


def test_walls_are_three_squares_in_their_orientation():
    seen = set()
    for seed in SEEDS:
        for o in roll_setup(seed=seed).obstacles:
            if o.kind != WALL or o.edge:
                continue
            (r0, c0), (r1, c1), (r2, c2) = o.squares
            if o.orientation == "vertical":
                assert c0 == c1 == c2 and (r1 - r0, r2 - r1) == (1, 1)
            else:
                assert r0 == r1 == r2 and (c1 - c0, c2 - c1) == (1, 1)
            seen.add(o.orientation)
    assert seen == {"vertical", "horizontal"}


def test_a_wall_meeting_an_occupied_square_is_a_fixed_letter_instead():
    # A monster on (row 5, column 5), then a vertical wall centred on (row 4, column 5): its lower
    # square is the monster's, so a fixed letter lies on (4, 5) instead, counting as one.
    rng = Dice(2, 3, 2, 3, 2, 1,  # column 5, row 5, die 2: monster
               2, 3, 1, 3, 6, 1,  # column 5, row 4, die 6: vertical wall
               1, 1, 1, 1, 1, 1)  # column 2, row 2, die 1: fixed letter
    setup = roll_setup(3, rng=rng)
    assert [o.kind for o in setup.obstacles[:3]] == [MONSTER, FIXED, FIXED]
    assert setup.obstacles[1].squares == ((4, 5),) and setup.obstacles[1].counts == 1
    assert setup.rolls[1].rolled == "vertical wall" and setup.rolls[1].outcome == "a fixed letter instead"
    assert setup.counted == 3


def test_counts_walls_count_three_and_the_last_wall_may_go_past():
    for seed in SEEDS:
        setup = roll_setup(seed=seed)
        objects = [o for o in setup.obstacles if not o.edge]
        assert all(o.counts == (3 if o.kind == WALL else 1) for o in objects)
        assert setup.counted >= 18 and setup.counted - objects[-1].counts < 18
        assert setup.tiles == sum(len(o.squares) for o in setup.obstacles)
    rng = Dice(1, 1, 1, 1, 1, 1,  # column 2, row 2: fixed letter (1)
               2, 2, 2, 2, 5, 1)  # column 4, row 4: horizontal wall (3): 4 objects for 3 asked
    setup = roll_setup(3, rng=rng)
    assert setup.counted == 4 and [o.kind for o in setup.obstacles if not o.edge] == [FIXED, WALL]
    assert roll_setup(40, seed=1).counted >= 40


def test_edge_walls_reach_three_squares_in_from_each_edge_centre():
    walls = dict(enumerate(edge_wall_squares()))
    assert walls[0] == ("vertical", ((0, 7), (1, 7), (2, 7)))
    assert walls[1] == ("horizontal", ((7, 0), (7, 1), (7, 2)))
    assert walls[2] == ("vertical", ((12, 7), (13, 7), (14, 7)))
    assert walls[3] == ("horizontal", ((7, 12), (7, 13), (7, 14)))
    setup = roll_setup(seed=3)
    edges = [o for o in setup.obstacles if o.edge]
    assert len(edges) == 4 and all(o.kind == WALL and o.counts == 0 for o in edges)
    # An object already on an edge wall's square keeps it: the wall is shorter there.
    rng = Dice(6, 1, 1, 1, 3, 1)  # column 7, row 2: monster, on the top edge wall's third square
    setup = roll_setup(1, rng=rng)
    top = [o for o in setup.obstacles if o.edge][0]
    assert top.squares == ((0, 7), (1, 7)) and setup.at((2, 7)).kind == MONSTER


def test_bad_set_up_input():
    with pytest.raises(CompanionError, match="2 or 4 dice"):
        roll_setup(dice=3)
    with pytest.raises(CompanionError, match="objects"):
        roll_setup(0)


# --- the camera's check ----------------------------------------------------------------------


def cells_as_planned(setup):
    cells = []
    for e in expected_view(setup):
        if e.kind == "tile":
            cells.append(CellReading(e.row, e.col, "tile", "E", 0, token=e.token))
        else:
            cells.append(CellReading(e.row, e.col, e.kind, token=e.token))
    return cells


def test_expected_view_says_how_every_square_lies():
    setup = roll_setup(seed=11)
    view = {(e.row, e.col): e for e in expected_view(setup)}
    assert len(view) == 225
    for o in setup.obstacles:
        for s in o.squares:
            e = view[s]
            assert e.what == o.kind
            assert (e.kind, e.token) == {
                WALL: ("back", False), MONSTER: ("back", True), TREASURE: ("tile", True), FIXED: ("tile", False)
            }[o.kind]
    assert sum(1 for e in view.values() if e.kind == "empty") == 225 - setup.tiles


def test_check_setup_lists_every_square_that_differs():
    setup = roll_setup(seed=11)
    cells = cells_as_planned(setup)
    assert check_setup(expected_view(setup), cells) == []
    by = {(c.row, c.col): i for i, c in enumerate(cells)}
    wall = next(o for o in setup.obstacles if o.kind == WALL).squares[0]
    monster = next(o for o in setup.obstacles if o.kind == MONSTER).squares[0]
    cells[by[wall]] = CellReading(*wall, "tile", "A", 0)
    cells[by[monster]] = CellReading(*monster, "back")  # the token forgotten
    cells[by[(14, 14)]] = CellReading(14, 14, "back")
    problems = check_setup(expected_view(setup), cells)
    assert len(problems) == 3
    text = "\n".join(problems)
    assert "(wall): expected a tile face down, saw a tile face up" in text
    assert "(monster): expected a tile face down with a token, saw a tile face down" in text
    assert "O15: expected an empty square, saw a tile face down" in text
    assert all("\n" not in p for p in problems)


def test_a_blank_cannot_be_a_face_up_object():
    setup = roll_setup(seed=11)
    cells = cells_as_planned(setup)
    face_up = next(o for o in setup.obstacles if o.face_up).squares[0]
    i = face_up[0] * 15 + face_up[1]
    cells[i] = CellReading(*face_up, "tile", "?", 0, token=cells[i].token)
    (problem,) = check_setup(expected_view(setup), cells)
    assert "put it back in the bag" in problem


# --- the command -----------------------------------------------------------------------------


def run(*args):
    return subprocess.run([sys.executable, "-m", "companion", "dungeon", "setup", *args], capture_output=True, text=True)


def test_companion_dungeon_setup_json_has_every_roll_and_object():
    p = run("--seed", "7", "--dice", "4", "--objects", "18", "--json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc == roll_setup(18, 4, "7").to_json()
    assert doc["dice"] == 4 and doc["seed"] == "7" and doc["objects_asked"] == 18
    assert all({"dice", "column", "row", "die", "rolled", "outcome"} <= set(r) for r in doc["rolls"])
    for o in doc["objects"]:
        assert o["type"] in (WALL, MONSTER, TREASURE, FIXED)
        assert o["face"] in ("up", "down") and isinstance(o["token"], bool)
        assert all({"row", "col", "name"} == set(s) for s in o["squares"])
    assert len(doc["plan"]) == 15
    assert run("--seed", "7").returncode == 0


@pytest.mark.parametrize(
    "args, fragment",
    [(["--dice", "3"], "2 or 4 dice"), (["--objects", "0"], "between 1 and 60"), (["--objects", "x"], "not a number")],
)
def test_companion_dungeon_setup_bad_input_is_one_line_and_exit_2(args, fragment):
    p = run(*args)
    assert p.returncode == 2 and fragment in p.stderr and p.stderr.count("\n") == 1
