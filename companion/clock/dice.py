"""The dungeon's dice (rules/000): two or four six-sided dice for the set-up.

Dice come from the operating system's cryptographic generator (:class:`secrets.SystemRandom`)
unless a seed is given: then from :class:`random.Random` seeded with it, so that a set-up can be
rolled again exactly (a puzzle shared between friends, a test). Text seeds are hashed by
``random`` in a way that is the same on every run and machine.

An obstacle's place takes two pairs of dice: the first pair's sum is the column, the second's
the row (2 to 12, counted from zero at the top-left), then one die gives its kind. With four
dice both pairs are rolled at once; with two, the pair is rolled twice. The kind's die is the
first die of one more roll.
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass

from companion.core.errors import CompanionError

SIDES = 6
DICE_COUNTS = (2, 4)

# The rules text's table: what the obstacle die says.
OBSTACLES = {
    6: "vertical wall",
    5: "horizontal wall",
    4: "treasure",
    3: "monster",
    2: "monster",
    1: "fixed letter",
}


def dice_rng(seed: str | int | None = None) -> random.Random:
    """The generator for a game: cryptographic by default, reproducible with a seed."""
    return secrets.SystemRandom() if seed is None else random.Random(seed)


def check_count(count: int) -> int:
    if count not in DICE_COUNTS:
        raise CompanionError(f"the dungeon is played with 2 or 4 dice, not {count}")
    return count


def roll(count: int, rng: random.Random) -> tuple[int, ...]:
    """``count`` six-sided dice."""
    return tuple(rng.randint(1, SIDES) for _ in range(check_count(count)))


@dataclass(frozen=True)
class Placement:
    """One obstacle of the set-up, with the dice that placed it."""

    column: int
    row: int
    kind: str
    dice: tuple[tuple[int, ...], ...]  # every roll made, in order

    @property
    def die(self) -> int:
        """The obstacle die."""
        return self.dice[-1][0]


def placement(count: int, rng: random.Random) -> Placement:
    """Roll one obstacle's column, row and kind with ``count`` dice."""
    if check_count(count) == 4:
        first = roll(4, rng)
        rolls = [first]
        column, row = first[0] + first[1], first[2] + first[3]
    else:
        a, b = roll(2, rng), roll(2, rng)
        rolls = [a, b]
        column, row = sum(a), sum(b)
    kind_roll = roll(count, rng)
    return Placement(column, row, OBSTACLES[kind_roll[0]], (*rolls, kind_roll))
