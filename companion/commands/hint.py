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
import time
from pathlib import Path

from companion.commands.gcg import GAMES, game_scoring
from companion.core.errors import CompanionError
from companion.core.gcg import read_record
from companion.core.move import format_square
from companion.core.tiles import get_tileset, tileset_names
from companion.engine.hint import file_position, hints, parse_rack, position_before
from companion.engine.movegen import generator_for
from companion.rules.rescore import choose_tileset


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
    p.add_argument("--game", choices=GAMES, default="classic", help="the rules (default classic)")
    p.add_argument("--json", action="store_true", help="print a machine-readable document")
    p.set_defaults(func=run_hint)


def run_hint(args: argparse.Namespace) -> int:
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")
    record = read_record(args.file)
    if args.game == "scrabble3":
        return _scrabble3_hint(args, record)
    choice = choose_tileset(record, args.tileset)
    tileset = get_tileset(choice.name)
    position = position_before(record, args.turn, tileset, str(args.file))
    rack_text = args.rack if args.rack is not None else position.rack
    if not rack_text:
        raise CompanionError(f"{args.file}: turn {position.turn} has no recorded rack; give one with --rack")
    rack = parse_rack(rack_text, tileset)
    started = time.perf_counter()
    generator = generator_for(choice.name)
    load_ms = (time.perf_counter() - started) * 1000
    result = hints(generator, position.board, rack, args.top)
    moves = [
        {
            "position": file_position(m, record, position.board),
            "word": m.word,
            "letters": m.letters,
            "score": m.score,
            "tiles": m.rack_tiles,
        }
        for m in result.moves
    ]
    if args.json:
        doc = {
            "file": str(args.file),
            "turn": position.turn,
            "player": position.player,
            "rack": rack,
            "tileset": choice.name,
            "moves": moves,
            "legal_moves": result.count,
            "elapsed_ms": round(result.elapsed_ms, 2),
            "load_ms": round(load_ms, 2),
        }
        json.dump(doc, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    who = f" ({position.player})" if position.player else ""
    print(f"{args.file}: turn {position.turn}{who}, rack {rack}, {choice.name}")
    if not moves:
        print("no legal move: pass or exchange")
    for i, m in enumerate(moves, 1):
        print(f"{i:>3}. {m['position']:<4} {m['word']:<16} {m['score']:>4}")
    print(f"{result.count} legal moves, {result.elapsed_ms:.1f} ms")
    return 0


def _scrabble3_hint(args: argparse.Namespace, record) -> int:
    from companion.engine.scrabble3 import generator_for as scrabble3_generator
    from companion.rules.scrabble3_gcg import options_of

    choice, game = game_scoring(record, "scrabble3", args.tileset)
    tileset = get_tileset(choice.name)
    position = position_before(record, args.turn, tileset, str(args.file), game=game)
    rack_text = args.rack if args.rack is not None else position.rack
    if not rack_text:
        raise CompanionError(f"{args.file}: turn {position.turn} has no recorded rack; give one with --rack")
    rack = parse_rack(rack_text, tileset)
    started = time.perf_counter()
    generator = scrabble3_generator(options=options_of(record))
    load_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    found = generator.scored(position.board, rack)
    found.sort(key=lambda m: (-m[0], m[1][1:], m[2].squares if m[2] else ()))
    best = [generator.to_move(position.board, raw, pick, list(used)) for _, raw, pick, used in found[: args.top]]
    elapsed = (time.perf_counter() - started) * 1000
    moves = [
        {
            "position": m.position,
            "word": m.word,
            "score": m.total,
            "tiles": m.rack_tiles,
            "pick_off": [format_square(s) for s in m.pick_off],
            "flipped": [{"square": format_square(s), "tile": f} for s, f in m.flipped],
            "bonuses": m.score.breakdown(),
        }
        for m in best
    ]
    if args.json:
        doc = {
            "file": str(args.file), "turn": position.turn, "player": position.player, "rack": rack,
            "game": "scrabble3", "tileset": choice.name, "moves": moves, "legal_moves": len(found),
            "elapsed_ms": round(elapsed, 2), "load_ms": round(load_ms, 2),
        }
        json.dump(doc, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    who = f" ({position.player})" if position.player else ""
    print(f"{args.file}: turn {position.turn}{who}, rack {rack}, Scrabble III")
    if not moves:
        print("no legal move: pass or exchange")
    for i, m in enumerate(best, 1):
        extra = []
        if m.pick_off:
            extra.append("pick off " + " ".join(format_square(s) for s in m.pick_off))
        extra += [f"{f} flipped on {format_square(s)}" for s, f in m.flipped]
        tail = f"  ({', '.join(extra)})" if extra else ""
        print(f"{i:>3}. {m.position:<4} {m.word:<16} {m.total:>4}{tail}")
    print(f"{len(found)} legal moves, {elapsed:.1f} ms")
    return 0
