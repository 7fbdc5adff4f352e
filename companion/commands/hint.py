"""`companion hint GCG_FILE`: the best moves for the position before a turn of a recorded game.

    companion hint GAME.gcg [--turn N] [--rack RACK] [--top K] [--tileset en|de] [--game scrabble3] [--json]

Turn N counts the record's plays, passes and exchanges from 1 (default: the last turn); the rack
is the one recorded for that turn unless ``--rack`` names one (``?`` for a blank). Each move is
printed in GCG notation (``8D`` across, ``D8`` down, ``.`` for a tile already on the board,
lower case for a blank) with its score; ``elapsed_ms`` is the time to generate every legal move
and rank them. Bad input is one line and exit 2. With ``--game scrabble3`` the record is
replayed by Scrabble III's rules (its note lines for pick-offs and blank swaps, docs/scrabble3.md)
and the moves are Scrabble III's: racks of up to 8, the 6-letter main word, wild JQXZ (a
flipped one is named), pick-off stretches (the squares picked are named).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from companion.core.gcg import read_record
from companion.core.tiles import tileset_names
from companion.table import games


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text} is not 1 or more")
    return n


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "hint",
        help="the best moves before a turn of a GCG record",
        description="The best moves for the position before turn N of a recorded game.",
    )
    p.add_argument("file", type=Path, help="the GCG file")
    p.add_argument("--turn", type=_positive, help="the turn, counted from 1 (default: the last)")
    p.add_argument("--rack", help="the rack to play (default: the rack recorded for the turn)")
    p.add_argument("--top", type=_positive, default=5, help="how many moves (default 5)")
    p.add_argument("--tileset", choices=tileset_names(), help="default: as `gcg rescore` chooses")
    p.add_argument("--game", choices=games.having("hint"), default="classic", help="the rules (default classic)")
    p.add_argument("--json", action="store_true", help="print a machine-readable document")
    p.set_defaults(func=run_hint)


def run_hint(args: argparse.Namespace) -> int:
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")
    record = read_record(args.file)
    found = games.find_game(args.game).hint(record, turn=args.turn, rack=args.rack, top=args.top,
                                            tileset=args.tileset, source=str(args.file))
    if args.json:
        doc = {
            "file": str(args.file), "turn": found.turn, "player": found.player, "rack": found.rack,
            **({"game": found.game} if found.game else {}),
            "tileset": found.tileset, "moves": found.moves, "legal_moves": found.legal_moves,
            "elapsed_ms": round(found.elapsed_ms, 2), "load_ms": round(found.load_ms, 2),
        }
        json.dump(doc, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    who = f" ({found.player})" if found.player else ""
    print(f"{args.file}: turn {found.turn}{who}, rack {found.rack}, {found.label}")
    if not found.moves:
        print("no legal move: pass or exchange")
    for i, (m, remark) in enumerate(zip(found.moves, found.remarks), 1):
        print(f"{i:>3}. {m['position']:<4} {m['word']:<16} {m['score']:>4}{remark}")
    print(f"{found.legal_moves} legal moves, {found.elapsed_ms:.1f} ms")
    return 0
