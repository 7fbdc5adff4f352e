"""`companion roll`: the dungeon's dice, or whole obstacle placements, as the roll button gives them.

    companion roll [--dice 2|4] [--seed S] [--obstacles N] [--json]
"""

from __future__ import annotations

import argparse
import json

from companion.clock.dice import DICE_COUNTS, dice_rng, placement, roll


def dice_count(text: str) -> int:
    """argparse type: 2 or 4 dice."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if n not in DICE_COUNTS:
        raise argparse.ArgumentTypeError(f"the dungeon is played with 2 or 4 dice, not {n}")
    return n


def _obstacles(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 1 <= n <= 100:
        raise argparse.ArgumentTypeError(f"between 1 and 100 obstacles, not {n}")
    return n


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "roll",
        help="roll the dungeon's dice",
        description="Roll two or four six-sided dice (from the system's cryptographic generator, "
        "or reproducibly from --seed). With --obstacles N, roll N obstacle placements of the "
        "dungeon's set-up: a column and a row from two pairs of dice, a kind from one die.",
    )
    p.add_argument("--dice", type=dice_count, default=2, metavar="2|4", help="how many dice (default 2)")
    p.add_argument("--seed", help="any text: the same seed gives the same dice")
    p.add_argument("--obstacles", type=_obstacles, metavar="N", help="roll N obstacle placements")
    p.add_argument("--json", action="store_true", help="print a machine-readable document")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    rng = dice_rng(args.seed)
    doc: dict = {"dice": args.dice, "seed": args.seed}
    if args.obstacles:
        places = [placement(args.dice, rng) for _ in range(args.obstacles)]
        doc["obstacles"] = [
            {"column": p.column, "row": p.row, "kind": p.kind, "die": p.die, "rolls": [list(r) for r in p.dice]}
            for p in places
        ]
        if not args.json:
            for i, p in enumerate(places, 1):
                rolls = " ".join("+".join(map(str, r)) for r in p.dice)
                print(f"{i:>3}. column {p.column:>2}, row {p.row:>2}: {p.kind} (die {p.die}; rolls {rolls})")
    else:
        dice = roll(args.dice, rng)
        doc["roll"] = list(dice)
        if not args.json:
            print(" ".join(str(d) for d in dice) + f"   (total {sum(dice)})")
    if args.json:
        print(json.dumps(doc))
    return 0
