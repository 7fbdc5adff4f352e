"""Scrabble III game records: GCG with a pragma and note lines for what GCG cannot say.

GCG has no word for tiles taken *off* the board. A Scrabble III record declares the extension
with the pragma ``#scrabble3`` (``#scrabble3 stretch=extended`` for the EX+TENDED stretch
table) and says the rest in ``#note`` lines that start ``scrabble3:``, each following the event
it belongs to. Other GCG readers skip an unknown pragma and show a note as text.

    #note scrabble3: pick-off N11            the play first picked off N11 (1 or 2 squares)
    #note scrabble3: pick-off N11 O11
    #note scrabble3: swap-blank E5           a blank swapped for its letter (rule 7) before the
                                             event (after the pick-off: a pick-swapper)
    #note scrabble3: flipped Q M10           the blank laid on M10 is a flipped Q (rule 12)
    #note scrabble3: final-racks             a play with the other's rack (rule 13): scores +50
                                             and leaves the board as it was
    #note scrabble3: final-racks invalid     an invalid one: the play event scores +0 and the
                                             withdrawal after it (``--``) charges its would-be points

A play's word is written as GCG writes any play: the whole main word from its first square,
``.`` for a tile left on the board, a letter for a tile laid (a picked-off tile laid again
included). An invalid regular play (rule 2) is the usual phony: the play with its would-be
score, then ``--`` taking it back. Squares are GCG's (column letter, row number: A1 to U21).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from companion.core.board import Board, Coord, Tile
from companion.core.gcg import Event, GameRecord, Play
from companion.core.move import format_square, parse_position, placement_from_notation
from companion.core.tiles import TileSet
from companion.core.errors import CompanionError
from companion.rules import scrabble3 as s3
from companion.rules.common import IllegalPlay
from companion.rules.rescore import GamePlay

PRAGMA = "#scrabble3"
NOTE = "scrabble3:"


@dataclass(frozen=True)
class Scrabble3Notes:
    pick_off: tuple[Coord, ...] = ()
    swaps: tuple[Coord, ...] = ()
    flipped: tuple[tuple[Coord, str], ...] = ()
    final_racks: str | None = None  # None, "good" or "invalid"


def _square(text: str) -> Coord:
    try:
        coord, _ = parse_position(text, s3.LAYOUT)
    except CompanionError:
        raise CompanionError(f"{text!r} is not a square like N11") from None
    if not text[:1].isalpha():
        raise CompanionError(f"{text!r} is not a square like N11 (column letter, then row)")
    return coord


def notes_of(event: Event) -> Scrabble3Notes:
    """The extension's notes of one event."""
    out = Scrabble3Notes()
    for note in event.notes:
        text = note.strip()
        if not text.lower().startswith(NOTE):
            continue
        words = text[len(NOTE):].split()
        if not words:
            raise CompanionError("an empty scrabble3 note")
        key, args = words[0].lower(), words[1:]
        if key == "pick-off":
            if not 1 <= len(args) <= s3.MAX_PICK:
                raise CompanionError("scrabble3: pick-off names 1 or 2 squares")
            out = replace(out, pick_off=out.pick_off + tuple(_square(a) for a in args))
        elif key == "swap-blank":
            if not args:
                raise CompanionError("scrabble3: swap-blank names a square")
            out = replace(out, swaps=out.swaps + tuple(_square(a) for a in args))
        elif key == "flipped":
            if len(args) != 2 or args[0].upper() not in s3.JQXZ:
                raise CompanionError("scrabble3: flipped is followed by J, Q, X or Z and a square")
            out = replace(out, flipped=out.flipped + ((_square(args[1]), args[0].upper()),))
        elif key == "final-racks":
            if args not in ([], ["invalid"]):
                raise CompanionError("scrabble3: final-racks is alone or followed by 'invalid'")
            out = replace(out, final_racks="invalid" if args else "good")
        else:
            raise CompanionError(f"unknown scrabble3 note {words[0]!r}")
    return out


def options_of(record: GameRecord) -> s3.Scrabble3Options:
    """The options the ``#scrabble3`` pragma names (the defaults without one)."""
    options = s3.DEFAULT_OPTIONS
    for line in record.pragmas:
        parts = line.split()
        if not parts or parts[0] != PRAGMA:
            continue
        for part in parts[1:]:
            key, _, value = part.partition("=")
            if key == "stretch" and value in {m.value for m in s3.StretchTable}:
                options = replace(options, stretch=s3.StretchTable(value))
            elif key == "final-racks" and value in ("on", "off"):
                options = replace(options, swap_final_racks=value == "on")
            else:
                raise CompanionError(f"{PRAGMA}: unknown setting {part!r}")
    return options


class Scrabble3Scoring:
    """Scrabble III's replay of a record for :func:`companion.rules.rescore.rescore`."""

    layout = s3.LAYOUT

    def __init__(self, options: s3.Scrabble3Options = s3.DEFAULT_OPTIONS) -> None:
        self.options = options

    def before(self, board: Board, event: Event) -> Board:
        """Blanks swapped for their letters before the event (or after its pick-off: the
        pick-off's squares are not swapped, so the order does not change the board)."""
        for square in notes_of(event).swaps:
            tile = board[square]
            if tile is None or not tile.blank:
                raise CompanionError(f"swap-blank {format_square(square)}: there is no blank there")
            board = board.with_tiles([(square, Tile(tile.letter))])
        return board

    def play(self, board: Board, event: Play, position: str, tiles: TileSet) -> GamePlay:
        notes = notes_of(event)
        pick = None
        if notes.pick_off:
            found = s3.find_pick_off(board, notes.pick_off)
            if isinstance(found, IllegalPlay):
                raise CompanionError(f"{event.position} {event.word}: {found.message}")
            pick = found
        rest = board.without(pick.squares) if pick else board
        placement = placement_from_notation(rest, position, event.word)
        if not placement.tiles:
            raise CompanionError(f"{event.position} {event.word}: every square already holds that tile")
        error = s3.shape_error(board, placement, pick)
        if error is not None:
            raise CompanionError(f"{event.position} {event.word}: {error.message}")
        blanks = {t.coord for t in placement.tiles if t.blank}
        for square, _ in notes.flipped:
            if square not in blanks:
                raise CompanionError(f"flipped: {format_square(square)} is not a blank laid by this play")
        score = s3.score_play(board, placement, tiles, pick=pick, options=self.options)
        picked = tuple(zip(pick.squares, pick.tiles)) if pick else ()
        if notes.final_racks == "good":
            points = score.total + s3.FINAL_RACKS_BONUS
            return GamePlay(board, score, points, placement, points, on_board=False,
                            remark=f"final racks: {score.total} + {s3.FINAL_RACKS_BONUS}")
        if notes.final_racks == "invalid":
            return GamePlay(board, score, 0, placement, score.total, on_board=False,
                            remark=f"final racks, invalid: {score.total} would-be points charged")
        after = rest.with_tiles((t.coord, t.tile) for t in placement.tiles)
        return GamePlay(after, score, score.total, placement, score.total, picked, remark=describe(score, pick))


def describe(score: s3.Scrabble3Score, pick: s3.PickOff | None = None) -> str:
    """The bonuses of a play in a few words (the rescore table's remark column)."""
    parts = []
    if pick is not None:
        parts.append("picked off " + " ".join(format_square(s) for s in pick.squares))
    if score.big_play:
        parts.append(f"{score.tiles_from_rack}-tiler {score.big_play}")
    if score.stretch:
        parts.append(f"stretch by {score.stretched_by} {score.stretch}")
    if score.jqxz:
        parts.append(f"JQXZ {score.jqxz}")
    if score.capped:
        parts.append(f"cap -{score.capped}")
    return ", ".join(parts)
