"""The dungeon's dice: fair, reproducible with a seed, cryptographic without one."""

from __future__ import annotations

import json
import random
import secrets
import subprocess
import sys
from collections import Counter

import pytest

from companion.clock.dice import OBSTACLES, dice_rng, placement, roll
from companion.core.errors import CompanionError

# chi-square with 5 degrees of freedom: the 0.999 quantile.
CHI2_5_DOF_999 = 20.515


def chi_square(counts: Counter, n: int) -> float:
    expected = n / 6
    return sum((counts[face] - expected) ** 2 / expected for face in range(1, 7))


def test_seeded_dice_are_uniform_by_chi_square():
    rng = dice_rng("chi-square")
    faces = Counter()
    for _ in range(15_000):
        faces.update(roll(4, rng))  # 60,000 dice
    assert sum(faces.values()) == 60_000
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    assert chi_square(faces, 60_000) < CHI2_5_DOF_999


def test_the_chi_square_test_can_fail():
    # A die that shows six a little too often (1 in 5 instead of 1 in 6) is caught.
    rng = random.Random(1)
    loaded = Counter(6 if rng.random() < 0.2 else rng.randint(1, 5) for _ in range(60_000))
    assert chi_square(loaded, 60_000) > CHI2_5_DOF_999


def test_the_same_seed_gives_the_same_set_up():
    a, b = dice_rng("dungeon 7"), dice_rng("dungeon 7")
    assert [placement(2, a) for _ in range(18)] == [placement(2, b) for _ in range(18)]
    c = dice_rng("dungeon 8")
    assert [roll(4, dice_rng("dungeon 7")) for _ in range(5)] != [roll(4, c) for _ in range(5)]


def test_unseeded_dice_come_from_the_systems_cryptographic_generator():
    assert isinstance(dice_rng(), secrets.SystemRandom)
    assert isinstance(dice_rng(None), random.SystemRandom)
    assert not isinstance(dice_rng(0), random.SystemRandom)


def test_placements_follow_the_rules_text():
    rng = dice_rng(3)
    for count in (2, 4):
        for _ in range(500):
            p = placement(count, rng)
            assert 2 <= p.column <= 12 and 2 <= p.row <= 12
            assert p.kind == OBSTACLES[p.die]
            assert all(len(r) == count for r in p.dice)
            if count == 4:
                first = p.dice[0]
                assert (p.column, p.row) == (first[0] + first[1], first[2] + first[3])
            else:
                assert (p.column, p.row) == (sum(p.dice[0]), sum(p.dice[1]))


def test_the_dungeon_has_two_or_four_dice():
    with pytest.raises(CompanionError, match="2 or 4 dice, not 3"):
        roll(3, dice_rng(1))


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "companion", "roll", *args], capture_output=True, text=True, timeout=60
    )


def test_companion_roll_prints_each_die_and_a_seed_repeats():
    one, two = run("--dice", "4", "--seed", "abc", "--json"), run("--dice", "4", "--seed", "abc", "--json")
    assert one.returncode == 0, one.stderr
    doc = json.loads(one.stdout)
    assert doc["dice"] == 4 and len(doc["roll"]) == 4 and all(1 <= d <= 6 for d in doc["roll"])
    assert one.stdout == two.stdout
    text = run("--seed", "abc")
    assert text.returncode == 0
    assert len(text.stdout.split("(")[0].split()) == 2


def test_companion_roll_obstacles():
    proc = run("--seed", "x", "--obstacles", "3", "--json")
    assert proc.returncode == 0, proc.stderr
    obstacles = json.loads(proc.stdout)["obstacles"]
    assert len(obstacles) == 3 and all(o["kind"] in OBSTACLES.values() for o in obstacles)
    assert run("--seed", "x", "--obstacles", "3").stdout.count("column") == 3


@pytest.mark.parametrize("args, fragment", [(["--dice", "3"], "2 or 4 dice, not 3"), (["--dice", "two"], "not a number"), (["--obstacles", "0"], "between 1 and 100")])
def test_companion_roll_bad_input_is_one_line_and_exit_2(args, fragment):
    proc = run(*args)
    assert proc.returncode == 2
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and fragment in proc.stderr
