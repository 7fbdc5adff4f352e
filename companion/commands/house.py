"""`companion house explode BOARD PLAY [--json]`: a Scrabble House explosion, computed by hand.

BOARD and PLAY are text files of 15 lines of 15 characters: ``.`` an empty square, an
upper-case letter a tile upright to the player at the bottom edge (rotation 0), a lower-case
letter a tile upright to the player at the top (rotation 180). PLAY holds only the tiles just
laid, all in the mover's case. Exit 0 with the explosion; 1 when the play cannot stand (one
line: why); 2 when a file is bad (one line naming the file, line and column).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from companion.core.board import STANDARD, Board
from companion.core.move import format_square
from companion.core.tiles import get_tileset, tileset_names
from companion.core.errors import CompanionError, one_line
from companion.rules import house


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("house", help="Scrabble House: explosions by hand", description="Scrabble House tools.")
    hs = p.add_subparsers(dest="house_command", metavar="COMMAND", required=True)
    e = hs.add_parser(
        "explode",
        help="compute the explosion a play sets off",
        description="Print the new words as the mover reads them, the squares turned to him, the "
        "squares removed step by step (rule 6 b, then each round of c/d) and the board after, in "
        "the same text form. BOARD and PLAY: 15 lines of 15 characters, '.' empty, upper case a "
        "tile upright to the bottom player, lower case upright to the top player; PLAY holds only "
        "the new tiles, all in the mover's case. The play is judged as a play after the mover's "
        "first (it touches a tile or his home row); words come from the tile set's word list.",
    )
    e.add_argument("board", type=Path, metavar="BOARD")
    e.add_argument("play", type=Path, metavar="PLAY")
    e.add_argument("--tileset", default="en", choices=tileset_names(), help="the word list's tile set (default en)")
    e.add_argument("--json", action="store_true", help="print a machine-readable document")
    e.set_defaults(func=run_explode)
    d = hs.add_parser(
        "demo",
        help="a whole match at a simulated table of two boards (no hardware needed)",
        description="Play a scripted Scrabble House match at a simulated table: two boards, each "
        "photographed by its own synthetic camera and read by the board reader through its own table "
        "loop, one session and game log for both; an explosion is shown, done by the players as the page "
        "shows it, and confirmed by the camera; the match ends with a win by connection. Time is "
        "simulated. The live page is served while it plays (--headless: not).",
    )
    d.add_argument("--headless", action="store_true", help="no page: print the verdicts only")
    d.add_argument("--pace", type=float, default=None, help="seconds between steps (default 0 headless, else 3)")
    d.add_argument("--data-dir", type=Path, default=None, help="the game log's folder (default: a new temporary one)")
    d.add_argument("--linger", type=float, default=None, help="seconds to keep serving the page after the match "
                   "(default: until Ctrl-C)")
    from companion.commands.serve import add_server_arguments

    add_server_arguments(d)
    d.set_defaults(func=run_demo)


# A board's tiles are a few hundred bytes; a larger file is not one (and is not read whole).
MAX_BOARD_BYTES = 64 * 1024


def _read(path: Path, what: str) -> dict:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BOARD_BYTES + 1)
        if len(data) > MAX_BOARD_BYTES:
            raise CompanionError(f"{what} {path}: larger than {MAX_BOARD_BYTES // 1024} KB, not a board's tiles")
        text = data.decode("utf-8-sig")  # an editor's byte-order mark is not part of the text
    except FileNotFoundError:
        raise CompanionError(f"{what} {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CompanionError(f"{what} {path}: cannot be read ({exc.__class__.__name__})") from None
    try:
        return house.tiles_from_text(text)
    except CompanionError as exc:
        raise CompanionError(f"{what} {path}: {one_line(exc)}") from None


def run_explode(args: argparse.Namespace) -> int:
    tiles = _read(args.board, "BOARD")
    placed = _read(args.play, "PLAY")
    tileset = get_tileset(args.tileset)
    for what, path, ts in (("BOARD", args.board, tiles), ("PLAY", args.play, placed)):
        for (r, c), t in sorted(ts.items()):
            if t.letter not in tileset.alphabet:
                raise CompanionError(
                    f"{what} {path}: line {r + 1}, column {c + 1}: {t.letter} is not a letter of the {tileset.name} tile set"
                )
    if not placed:
        raise CompanionError(f"PLAY {args.play}: no tiles")
    seats = {house.seat_of(t) for t in placed.values()}
    mover = house.seat_of(placed[min(placed)])
    if len(seats) > 1:
        (r, c), t = next((sq, t) for sq, t in sorted(placed.items()) if house.seat_of(t) != mover)
        raise CompanionError(
            f"PLAY {args.play}: line {r + 1}, column {c + 1}: {t.letter.lower() if mover == house.BOTTOM else t.letter} "
            f"faces the {house.SEAT_NAMES[1 - mover]} player, the play's first tile the {house.SEAT_NAMES[mover]}"
        )
    for (r, c) in sorted(placed):
        if (r, c) in tiles:
            raise CompanionError(f"PLAY {args.play}: line {r + 1}, column {c + 1}: BOARD already holds a tile there")
    board = Board(STANDARD, tiles)
    from companion.lexicon import load_lexicon

    lexicon = load_lexicon(args.tileset)
    error = house.play_error(board, placed, mover, lexicon)
    if error is not None:
        print(f"companion: the play cannot stand: {error.message}", file=sys.stderr)
        return 1
    x = house.explode(board, placed, mover, lexicon)
    if args.json:
        print(json.dumps(explosion_json(x), ensure_ascii=False))
    else:
        print(explosion_text(x))
    return 0


def _sq(coords) -> list[str]:
    return [format_square(c) for c in coords]


def explosion_json(x: house.Explosion) -> dict:
    return {
        "mover": house.SEAT_NAMES[x.mover],
        "words": [{"word": w, "squares": _sq(sq)} for w, sq in zip(x.words, x.word_squares)],
        "turned": _sq(x.turned),
        "steps": [
            {
                "rule": st.rule,
                "removed": _sq(st.squares),
                "strings": [
                    {
                        "text": r.text,
                        "letters": r.letters,
                        "owner": house.SEAT_NAMES[r.owner],
                        "reason": r.reason.value,
                        "squares": _sq(r.squares),
                    }
                    for r in st.removals
                ],
            }
            for st in x.steps
        ],
        "passed": [t.letter for t in x.passed],
        "board": house.board_to_text(x.after).splitlines(),
    }


def explosion_text(x: house.Explosion) -> str:
    case = "upper case" if x.mover == house.BOTTOM else "lower case"
    lines = [
        f"mover: the {house.SEAT_NAMES[x.mover]} player ({case})",
        "words: " + " ".join(x.words),
        "turned: " + (" ".join(_sq(x.turned)) or "none"),
    ]
    if not x.steps:
        lines.append("removed: none")
    for i, st in enumerate(x.steps, 1):
        head = f"step {i} ({st.rule}): "
        for j, r in enumerate(st.removals):
            lead = head if j == 0 else " " * len(head)
            lines.append(f"{lead}{' '.join(_sq(r.squares))}  {r.describe()}")
    passed = x.passed
    if passed:
        lines.append(f"to the partner: {len(passed)} tile{'s' if len(passed) != 1 else ''}: " + " ".join(t.letter for t in passed))
    lines.append("board after:")
    lines.append(house.board_to_text(x.after))
    return "\n".join(lines)


def run_demo(args: argparse.Namespace) -> int:
    """The scripted match of :mod:`companion.sim.housedemo`, step by step, each verdict printed."""
    import tempfile

    from companion.sim.housedemo import NAMES, SCRIPT, HouseTable

    pace = args.pace if args.pace is not None else (0.0 if args.headless else 3.0)
    if pace < 0:
        raise CompanionError("--pace must not be negative")
    data_dir = args.data_dir if args.data_dir is not None else Path(tempfile.mkdtemp(prefix="companion-house-"))
    table = HouseTable(data_dir)
    print(f"Scrabble House at a simulated table (game log in {data_dir})", flush=True)
    try:
        if args.headless:
            from companion.web.hub import Hub

            hub = Hub(table.session, now_ms=table.clock).start()
            try:
                _demo_steps(table.start(hub), SCRIPT, NAMES, pace, None)
            finally:
                hub.stop()
        else:
            from companion.commands.serve import serving

            with serving(table.session, args, now_ms=table.clock) as live:
                _demo_steps(table.start(live.hub), SCRIPT, NAMES, pace, live.stop)
                if not live.stop.is_set():
                    if args.linger is None:
                        print("companion: still serving the page; Ctrl-C stops", flush=True)
                    live.wait(args.linger)
    finally:
        table.close()
    return 0


def _demo_steps(table, script, names, pace, stop) -> None:  # type: ignore[no-untyped-def]
    import time

    for step in script:
        if stop is not None and stop.is_set():
            return
        if pace:
            (stop.wait if stop is not None else time.sleep)(pace)
        verdicts = table.do(step)
        for (board, player), v in zip(step.presses, verdicts):
            print(f"{step.name:<18} board {board + 1}  {names[player]:<4} {', '.join(v['verdicts'])}", flush=True)
        doc = table.doc()
        for b in doc["boards"]:
            if b["preview"] is not None and any(v.get("verdicts") == ["explosion"] for v in verdicts):
                p = b["preview"]
                print(f"{'':<18} turn {' '.join(_sq(tuple(s) for s in p['turned'])) or 'nothing'}", flush=True)
                for st in p["steps"]:
                    for r in st["removals"]:
                        print(f"{'':<18} step {st['rule']}: {r['describe']}", flush=True)
                print(f"{'':<18} to {names[p['partner']]}: {' '.join(t['letter'] for t in p['passed'])}", flush=True)
    doc = table.doc()
    print(doc["game"]["reason"] or "End of the script", flush=True)
    for b in table.session.state.boards:
        print(house.board_to_text(b.board), flush=True)
        print(flush=True)
