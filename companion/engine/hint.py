"""Hints: the best moves for the player whose turn it is, in a live game or a recorded one.

A recorded position is the board before a turn of a GCG record: the record is replayed by
:func:`companion.rules.rescore.rescore` (the same replay ``companion gcg rescore`` does) up to
that turn, and the rack is the one the record gives for the turn unless another is named.
Turns are the record's plays, passes and exchanges, counted from 1; withdrawals, challenge
bonuses and end-of-game lines are not turns, but those before the turn are replayed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from companion.core.board import Board
from companion.core.errors import CompanionError
from companion.core.gcg import LETTERED_ROWS, Exchange, GameRecord, Pass, Play, board_position
from companion.core.tiles import BLANK, TileSet
from companion.engine.movegen import Generator, Move
from companion.rules.rescore import GameScoring, rescore

MAX_RACK = 8  # Scrabble III's rack; the classic game's is 7


@dataclass(frozen=True)
class Position:
    board: Board
    turn: int  # 1-based
    player: str  # the nickname whose turn it is ("" after the last turn)
    rack: str  # as GCG writes it, "" when the record does not say


def turns(record: GameRecord) -> list[int]:
    """Indexes into ``record.events`` of the turns."""
    return [i for i, e in enumerate(record.events) if isinstance(e, (Play, Pass, Exchange))]


def position_before(
    record: GameRecord, turn: int | None, tileset: TileSet, source: str = "GCG", game: GameScoring | None = None
) -> Position:
    """The board before ``turn`` (default: the record's last turn), replayed by ``game``'s rules
    when given (see :func:`companion.rules.rescore.rescore`)."""
    idx = turns(record)
    if turn is None:
        if not idx:
            raise CompanionError(f"{source}: the record has no turns")
        turn = len(idx)
    if not 1 <= turn <= len(idx) + 1:
        raise CompanionError(f"turn {turn} is not in the record (turns 1 to {len(idx) + 1})")
    if turn <= len(idx):
        event = record.events[idx[turn - 1]]
        upto, player, rack = idx[turn - 1], event.nick, event.rack
    else:
        upto, player, rack = len(record.events), "", ""
    replayed = rescore(replace(record, events=record.events[:upto]), tileset, source, game=game)
    return Position(replayed.board, turn, player, rack)


def parse_rack(text: str, tileset: TileSet) -> str:
    """A rack as GCG writes it (``?`` for a blank), checked against the tile set."""
    rack = tileset.parse_rack(text.strip())
    n = rack.total()
    if not 1 <= n <= MAX_RACK:
        raise CompanionError(f"rack {text!r}: a rack has 1 to {MAX_RACK} tiles, not {n}")
    for letter, k in rack.items():
        if k > tileset.counts.get(letter, 0):
            raise CompanionError(f"rack {text!r}: the {tileset.name} set has only {tileset.counts.get(letter, 0)} {letter}")
    return "".join(sorted(rack.elements(), key=lambda t: (t == BLANK, t)))


@dataclass(frozen=True)
class Hints:
    moves: tuple[Move, ...]
    count: int  # how many legal moves there are in all
    elapsed_ms: float  # generating them all and ranking


def hints(generator: Generator, board: Board, rack: str, top: int = 5) -> Hints:
    started = time.perf_counter()
    raw = generator.raw_moves(board, rack)
    raw.sort(key=lambda m: (-m[0], m[1], m[2], m[3], m[4]))
    best = tuple(generator.to_move(m) for m in raw[:top])
    return Hints(best, len(raw), (time.perf_counter() - started) * 1000)


def file_position(move: Move, record: GameRecord, board: Board) -> str:
    """The move's position as the record writes positions (scrabscrap letters the rows)."""
    if record.orientation == LETTERED_ROWS:
        return board_position(move.position, LETTERED_ROWS, board.layout)
    return move.position
