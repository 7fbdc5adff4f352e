"""The best moves before a turn of a recorded game, by the game's rules: the games' ``hint``
hooks in the registry (:mod:`companion.table.games`); ``companion hint`` prints them."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from companion.core.errors import CompanionError
from companion.core.gcg import GameRecord
from companion.core.move import format_square, readable_word
from companion.core.tiles import get_tileset
from companion.engine.hint import Position, file_position, hints, parse_rack, position_before
from companion.engine.movegen import generator_for
from companion.rules.rescore import GameScoring, choose_tileset


@dataclass
class HintReport:
    """The moves for the position before ``turn``, best first, as ``companion hint`` shows them."""

    turn: int
    player: str | None
    rack: str
    tileset: str
    label: str  # the game as the text's first line names it
    moves: list[dict[str, Any]]  # each move's document: position, word, score, ...
    legal_moves: int
    elapsed_ms: float
    load_ms: float
    game: str | None = None  # named in the JSON document when not the classic game
    remarks: list[str] = field(default_factory=list)  # per move, what the text adds after it


def _rack(position: Position, rack: str | None, source: str, tileset: Any) -> str:
    rack_text = rack if rack is not None else position.rack
    if not rack_text:
        raise CompanionError(f"{source}: turn {position.turn} has no recorded rack; give one with --rack")
    return parse_rack(rack_text, tileset)


def classic_hints(record: GameRecord, *, turn: int | None, rack: str | None, top: int, tileset: str | None,
                  source: str) -> HintReport:
    choice = choose_tileset(record, tileset)
    tiles = get_tileset(choice.name)
    position = position_before(record, turn, tiles, source)
    played = _rack(position, rack, source, tiles)
    started = time.perf_counter()
    generator = generator_for(choice.name)
    load_ms = (time.perf_counter() - started) * 1000
    result = hints(generator, position.board, played, top)
    moves = [
        {
            "position": file_position(m, record, position.board),
            "word": m.word,
            # As players read it: the letters played through in brackets (the page shows it).
            "shown": readable_word(position.board, m.position, m.word),
            "letters": m.letters,
            "score": m.score,
            "tiles": m.rack_tiles,
        }
        for m in result.moves
    ]
    return HintReport(position.turn, position.player, played, choice.name, choice.name, moves, result.count,
                 result.elapsed_ms, load_ms, remarks=[""] * len(moves))


def scrabble3_hints(record: GameRecord, scoring: tuple[Any, GameScoring | None], *, turn: int | None,
                    rack: str | None, top: int, source: str, name: str) -> HintReport:
    """Scrabble III's moves: racks of up to 8, the 6-letter main word, wild JQXZ (a flipped one
    is named), pick-off stretches (the squares picked are named)."""
    from companion.engine.scrabble3 import generator_for as scrabble3_generator
    from companion.rules.scrabble3_gcg import options_of

    choice, game = scoring
    tiles = get_tileset(choice.name)
    position = position_before(record, turn, tiles, source, game=game)
    played = _rack(position, rack, source, tiles)
    started = time.perf_counter()
    generator = scrabble3_generator(options=options_of(record))
    load_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    found = generator.scored(position.board, played)
    found.sort(key=lambda m: (-m[0], m[1][1:], m[2].squares if m[2] else ()))
    best = [generator.to_move(position.board, raw, pick, list(used)) for _, raw, pick, used in found[:top]]
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
    remarks = []
    for m in best:
        extra = []
        if m.pick_off:
            extra.append("pick off " + " ".join(format_square(s) for s in m.pick_off))
        extra += [f"{f} flipped on {format_square(s)}" for s, f in m.flipped]
        remarks.append(f"  ({', '.join(extra)})" if extra else "")
    return HintReport(position.turn, position.player, played, choice.name, "Scrabble III", moves, len(found), elapsed,
                 load_ms, game=name, remarks=remarks)
