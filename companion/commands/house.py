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
from companion.errors import CompanionError
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


def _read(path: Path, what: str) -> dict:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CompanionError(f"{what} {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CompanionError(f"{what} {path}: cannot be read ({exc.__class__.__name__})") from None
    try:
        return house.tiles_from_text(text)
    except CompanionError as exc:
        raise CompanionError(f"{what} {path}: {exc}") from None


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
