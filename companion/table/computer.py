"""Computer seats at a real board (the classic rules text's COMPUTER players, skill 1 to 5).

The companion holds a computer seat's rack: it deals the tiles (the page names them: take them
from a sorted supply, a second set laid out by letter, or from the bag when they are there),
decides the seat's move with :class:`companion.engine.player.ComputerPlayer`, shows and
announces it; a player lays the tiles as shown and presses the seat's clock button, and the
camera checks them: a tile that is not where the move puts it is a question.

Pure: the rack is a fold of the game's entries (:func:`deal` tops it up from the tiles nobody
has shown, deterministically from the game's seed and the entry), so a restart deals the same
tiles again. The humans' racks are private: a tile dealt may be on one of them (then it is not
in the bag: take it from the supply)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.core.board import Board
from companion.core.tiles import BLANK, TileSet

MAX_COMPUTERS = 3
SKILLS = range(1, 6)


def parse_computers(spec: Any, players: int) -> dict[int, int]:
    """``{"seat": skill}`` (seats from 0) as the page and the log give it; ValueError with a
    one-line reason otherwise."""
    if spec is None:
        return {}
    if not isinstance(spec, dict):
        raise ValueError("computers: {seat: skill}, like {\"1\": 3}")
    out: dict[int, int] = {}
    for k, v in spec.items():
        try:
            seat = int(k)
        except (TypeError, ValueError):
            raise ValueError(f"computers: seat {k!r} is not a number") from None
        if not 0 <= seat < players:
            raise ValueError(f"computers: seat {seat} is not one of 0 to {players - 1}")
        if not isinstance(v, int) or isinstance(v, bool) or v not in SKILLS:
            raise ValueError(f"computers: skill {v!r}: 1 (dumb) to 5 (smart)")
        out[seat] = v
    if len(out) > MAX_COMPUTERS or len(out) >= players:
        raise ValueError(f"computers: at most {MAX_COMPUTERS}, and at least one person at the table")
    return out


def deal(tileset: TileSet, board: Board, racks: Mapping[int, Sequence[str]], seat: int, n: int,
         seed: str) -> list[str]:
    """``n`` tiles for ``seat``'s rack, at random from those neither on the board nor on a
    computer's rack."""
    pool = tileset.bag() - Counter(BLANK if t.blank else t.letter for _, t in board.items())
    for rack in racks.values():
        pool = pool - Counter(rack)
    tiles = sorted(pool.elements())
    rng = random.Random(seed)
    rng.shuffle(tiles)
    return sorted(tiles[:n])


@dataclass(frozen=True)
class Shown:
    """The computer's move as the page shows it: what to lay where (or what to exchange)."""

    seat: int
    kind: str  # play, exchange, pass
    position: str = ""
    word: str = ""
    score: int = 0
    squares: tuple[tuple[int, int, str, bool], ...] = ()  # row, col, letter, blank
    tiles: str = ""  # an exchange's tiles

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "kind": self.kind, "position": self.position, "word": self.word,
                "score": self.score, "tiles": self.tiles,
                "squares": [{"row": r, "col": c, "letter": ch, "blank": b} for r, c, ch, b in self.squares]}
