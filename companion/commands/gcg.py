"""`companion gcg`: game records in GCG.

``companion gcg rescore FILE`` replays a record on a board and scores every event again from
the geometry and the tile values alone (:mod:`companion.rules.rescore`; a stacking game's
record, ``--game stacking`` or ``#game-type stacking``, by :mod:`companion.rules.stacking_record`),
beside what the file says. Exit 0 when all agree, 1 when any event disagrees, 2 when the file
cannot be read as a GCG record or replayed (one line naming the file and the line).

This module parses the arguments and prints; reading the file is
:func:`companion.core.gcg.read_record`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from companion.core.gcg import LETTERED_ROWS, GameRecord, describe, read_record
from companion.core.tiles import tileset_names
from companion.rules.rescore import Rescore
from companion.table import games


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("gcg", help="GCG game records: rescore", description="GCG game records.")
    gsub = p.add_subparsers(dest="gcg_command", metavar="COMMAND", required=True)
    r = gsub.add_parser(
        "rescore",
        help="score every event of a GCG file again from the board and compare",
        description=(
            "Replay a GCG record move by move, score every event again from the geometry and "
            "the tile values alone, and show the recomputed scores and running totals beside "
            "the recorded ones. Exit 0 when all agree, 1 when any disagrees, 2 for bad input."
        ),
    )
    r.add_argument("file", type=Path, help="the GCG file")
    r.add_argument(
        "--tileset",
        choices=tileset_names(),
        help="tile values to score with (default: the file's #tile-set, else de for a German "
        "#lexicon, else en)",
    )
    r.add_argument(
        "--game",
        choices=games.having("rescore"),
        help="the rules to score by (default: stacking for a record with '#game-type stacking', else "
        "classic; scrabble3: the 21x21 board, its bonuses, and the #scrabble3 note lines for pick-offs "
        "and blank swaps, see docs/scrabble3.md)",
    )
    r.add_argument("--json", action="store_true", help="print a machine-readable document")
    r.set_defaults(func=run_rescore)


def run_rescore(args: argparse.Namespace) -> int:
    # Names and letters may be anything (Ę, Ü, é): on a terminal that cannot show them, show an
    # escape rather than fail half-way through the table.
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")
    record = read_record(args.file)
    game = games.find_game(args.game) if args.game else games.record_game(record)
    result = game.rescore(record, args.tileset, str(args.file))
    if args.json:
        json.dump(to_json(result, str(args.file)), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print_table(result, str(args.file), sys.stdout)
    return 0 if result.agrees else 1


# --- presentation ------------------------------------------------------------------------------


def header_notes(result: Rescore) -> list[str]:
    """What the reader should know about how the file was read."""
    record = result.record
    notes = [f"tile set {result.tileset.name} ({result.tileset.reason})"]
    if record.orientation == LETTERED_ROWS:
        notes.append(
            "#orientation lettered-rows: rows are lettered (H4 is row H, column 4, across), so "
            "the board is the standard one transposed; the premium squares are symmetric, "
            "the scores the same"
        )
    named = games.named_game(record)
    if named is not None:
        notes += named.record_notes(record, result.tileset.name)
    nicks = [p.nick for p in record.players]
    for nick in sorted({n for n in nicks if nicks.count(n) > 1}):
        notes.append(f"players share the nickname {nick!r}: events are attributed by turn order")
    return notes


def _player_names(record: GameRecord) -> list[str]:
    """Nicknames, with the seat number added where two players share one."""
    nicks = [p.nick for p in record.players]
    return [n if nicks.count(n) == 1 else f"{n}({p.number})" for n, p in zip(nicks, record.players)]


def _recorded_totals(result: Rescore) -> list[int | None]:
    out: list[int | None] = [None] * len(result.record.players)
    for r in result.events:
        out[r.seat] = r.event.total
    return out


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


def print_table(result: Rescore, source: str, out: TextIO) -> None:
    record = result.record
    players = _player_names(record)
    names = " v ".join(players) or "no players"
    print(f"{source}: {names}", file=out)
    for note in header_notes(result):
        print(f"  {note}", file=out)
    if not result.events:
        print("no events to rescore", file=out)
        return
    nick_w = max([6, *(len(n) for n in players)])
    event_w = max([5, *(len(describe(r.event)) for r in result.events)])
    print(
        f"{'line':>5}  {'player':<{nick_w}}  {'event':<{event_w}}  {'recorded':>10}  {'recomputed':>10}",
        file=out,
    )
    for r in result.events:
        e = r.event
        wrong = [w for w, ok in (("score", r.score_agrees), ("total", r.total_agrees)) if not ok]
        mark = f"<< {' and '.join(wrong)} differ{'s' if len(wrong) == 1 else ''}" if wrong else ""
        tail = "  ".join(x for x in (mark, r.remark) if x)
        print(
            f"{e.line:>5}  {players[r.seat]:<{nick_w}}  {describe(e):<{event_w}}  "
            f"{_signed(e.score):>5} {e.total:>4}  {_signed(r.score):>5} {r.total:>4}"
            + (f"  {tail}" if tail else ""),
            file=out,
        )
    recorded = _recorded_totals(result)
    finals = ", ".join(
        f"{name} {rec if rec is not None else '-'}/{new}"
        for name, rec, new in zip(players, recorded, result.totals())
    )
    print(f"final (recorded/recomputed): {finals}", file=out)
    bad = len(result.disagreements)
    if bad:
        print(f"{bad} of {len(result.events)} events disagree", file=out)
    else:
        print(f"all {len(result.events)} events agree", file=out)


def to_json(result: Rescore, source: str) -> dict:
    record = result.record
    recorded = _recorded_totals(result)
    return {
        "file": source,
        "agrees": result.agrees,
        "tileset": {"name": result.tileset.name, "reason": result.tileset.reason},
        "orientation": record.orientation,
        "notes": header_notes(result),
        "players": [{"seat": p.number, "nick": p.nick, "name": p.name} for p in record.players],
        "events": [
            {
                "line": r.event.line,
                "player": record.players[r.seat].nick,
                "seat": record.players[r.seat].number,
                "kind": r.event.kind,
                "event": describe(r.event),
                "recorded": {"score": r.event.score, "total": r.event.total},
                "recomputed": {"score": r.score, "total": r.total},
                "score_agrees": r.score_agrees,
                "total_agrees": r.total_agrees,
                "remark": r.remark,
            }
            for r in result.events
        ],
        "totals": [
            {"player": p.nick, "recorded": rec, "recomputed": new}
            for p, rec, new in zip(record.players, recorded, result.totals())
        ],
        "disagreements": len(result.disagreements),
    }
