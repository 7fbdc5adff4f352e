"""`companion dungeon setup`: the solo dungeon's set-up, rolled as the rules text says.

    companion dungeon setup [--seed S] [--objects 18] [--dice 2|4] [--json]
"""

from __future__ import annotations

import argparse
import json

from companion.commands.roll import dice_count
from companion.rules.dungeon import DEFAULT_OBJECTS, MAX_OBJECTS, roll_setup


def _objects(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 1 <= n <= MAX_OBJECTS:
        raise argparse.ArgumentTypeError(f"between 1 and {MAX_OBJECTS} objects, not {n}")
    return n


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("dungeon", help="the solo dungeon", description="The solo dungeon (rules/000).")
    dsub = p.add_subparsers(dest="dungeon_command", metavar="COMMAND", required=True)
    s = dsub.add_parser(
        "setup",
        help="roll a set-up",
        description="Roll the dungeon's set-up: each object's column and row from two pairs of dice, "
        "its kind from one die (walls count as three objects), then the four edge walls. Prints every "
        "roll and, for each object, its type, its squares and how its tiles lie.",
    )
    s.add_argument("--seed", help="any text: the same seed gives the same set-up")
    s.add_argument("--objects", type=_objects, default=DEFAULT_OBJECTS, metavar="N",
                   help=f"how many objects (default {DEFAULT_OBJECTS}; a wall counts as three)")
    s.add_argument("--dice", type=dice_count, default=2, metavar="2|4", help="how many dice (default 2)")
    s.add_argument("--json", action="store_true", help="print a machine-readable document")
    s.set_defaults(func=run_setup)


def run_setup(args: argparse.Namespace) -> int:
    setup = roll_setup(args.objects, args.dice, args.seed)
    if args.json:
        print(json.dumps(setup.to_json()))
        return 0
    for i, r in enumerate(setup.rolls, 1):
        dice = " ".join("+".join(map(str, d)) for d in r.dice)
        print(f"{i:>3}. column {r.column:>2}, row {r.row:>2}: {r.rolled} (dice {dice}): {r.outcome}")
    print(f"{setup.counted} objects ({setup.objects} asked), {setup.tiles} tiles on the board")
    for line in setup.plan():
        print("    " + line)
    print("W wall (face down), M monster (face down, token), T treasure (face up, token), F fixed letter (face up)")
    return 0
