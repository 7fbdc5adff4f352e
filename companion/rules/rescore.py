"""Replaying a GCG record on a board and scoring every event again from geometry and tile values.

What the board alone decides and what it cannot:

- a play scores as the classic rules say (every word formed, premiums under new tiles only,
  +50 for all seven tiles), on a board built move by move;
- a withdrawn play (``--``) loses what the play scored, and its tiles leave the board. Quackle
  writes ``-- +0`` and shows the withdrawal in the running total only; that is accepted as
  Quackle's dialect as long as the total agrees;
- a challenge bonus depends on the house rule: 5 points per challenged play, or 5 per word the
  play formed. A recorded value equal to either is accepted, and the report says which;
- end-of-game rack points: in a two-player game the GCG convention gives the player who went
  out twice the value of the other rack, the other player's loss folded in. Some records (WSC
  2005 in Quackle's files) instead give it once and write the other player's deduction as a
  line of its own; and with more players each of the others deducts their own rack, so the one
  who went out gets the value once. So: twice the value in a two-player game whose record holds
  no matching deduction, else once. (No shared multiplayer record reaches its end; the rule
  follows the classic rules text: "the total scores of all other players tiles are added".)
- a last-rack deduction is the value of the rack;
- a time penalty is not in the geometry: it is taken as recorded, and marked so.

Totals are per player running sums of the recomputed scores.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from companion.core.board import STANDARD, Board, Coord, Layout, Tile
from companion.core.gcg import (
    ChallengeBonus,
    EndRackPoints,
    Event,
    Exchange,
    GameRecord,
    LastRackPenalty,
    Pass,
    Play,
    TimePenalty,
    Withdrawn,
    board_position,
    players_of_events,
)
from companion.core.move import Placement, placement_from_notation
from companion.core.tiles import TileSet, get_tileset, tileset_names
from companion.core.errors import CompanionError
from companion.rules.classic import CHALLENGE_POINTS_PER_WORD, score_play
from companion.rules.common import PlayScore, geometry_error

# The challenge bonus per play is the same five points the per-word rule gives each word.
CHALLENGE_BONUS = CHALLENGE_POINTS_PER_WORD

# Lexicons whose games are played with the German tile set: the names Macondo/Woogles and the
# German clubs' recorders write (D25WL04 is the one in the scrabscrap tournament records).
GERMAN_LEXICONS = frozenset({"GERMAN", "DEUTSCH", "RD28", "RD29", "D25WL04"})
# Names a #tile-set pragma may use for our sets, besides the sets' own names.
TILE_SET_ALIASES = {"english": "en", "german": "de", "deutsch": "de", "polish": "pl", "polski": "pl"}
# Tried in this order when the record's letters decide: English first, as the most common.
_BY_LETTERS = ("en", "de", "pl")


@dataclass(frozen=True)
class TileSetChoice:
    name: str
    reason: str  # where the choice came from, for the report


def choose_tileset(record: GameRecord, override: str | None = None) -> TileSetChoice:
    """``override`` (the command line) first, then a ``#tile-set`` pragma, then a German
    ``#lexicon``, then the letters the record plays (the first of en, de, pl that has them
    all: Ä, Ö or Ü mean German, Ą, Ę, Ł... Polish), else English: most GCG files in the wild
    are English and say nothing."""
    names = tileset_names()
    if override:
        if override not in names:
            raise CompanionError(f"unknown tile set {override!r} (known: {', '.join(names)})")
        return TileSetChoice(override, "--tileset")
    if record.tile_set:
        wanted = record.tile_set.strip().lower()
        name = TILE_SET_ALIASES.get(wanted, wanted)
        if name not in names:
            raise CompanionError(
                f"#tile-set {record.tile_set!r} is not a known tile set (known: {', '.join(names)})"
            )
        return TileSetChoice(name, f"#tile-set {record.tile_set}")
    if record.lexicon and record.lexicon.strip().upper() in GERMAN_LEXICONS:
        return TileSetChoice("de", f"#lexicon {record.lexicon}")
    letters = _letters_played(record)
    for name in _BY_LETTERS:
        if letters <= get_tileset(name).alphabet:
            if name == "en":
                break
            return TileSetChoice(name, f"the letters played ({''.join(sorted(letters - get_tileset('en').alphabet))})")
    return TileSetChoice("en", "default")


def _letters_played(record: GameRecord) -> set[str]:
    letters: set[str] = set()
    for event in record.events:
        if isinstance(event, Play):
            letters.update(ch.upper() for ch in event.word if ch.isalpha())
    return letters


@dataclass(frozen=True)
class Rescored:
    """One event scored again. ``remark`` says which convention gave the score where the board
    alone leaves a choice."""

    event: Event
    seat: int  # index into record.players
    score: int
    total: int
    score_agrees: bool
    remark: str = ""
    play: PlayScore | None = None  # for a play: its words and how each scored
    board: Board | None = None  # the board right after the event

    @property
    def total_agrees(self) -> bool:
        return self.total == self.event.total

    @property
    def agrees(self) -> bool:
        return self.score_agrees and self.total_agrees


@dataclass(frozen=True)
class Rescore:
    record: GameRecord
    tileset: TileSetChoice
    events: tuple[Rescored, ...]
    board: Board  # as the record leaves it

    @property
    def agrees(self) -> bool:
        return all(r.agrees for r in self.events)

    @property
    def disagreements(self) -> tuple[Rescored, ...]:
        return tuple(r for r in self.events if not r.agrees)

    def totals(self) -> tuple[int, ...]:
        """Each player's recomputed final total, in seat order."""
        out = [0] * len(self.record.players)
        for r in self.events:
            out[r.seat] = r.total
        return tuple(out)


@dataclass
class _Standing:
    """A play on the board, remembered for a withdrawal or a challenge bonus after it."""

    seat: int
    placement: Placement
    score: int  # what a withdrawal takes off
    words: int
    picked: tuple[tuple[Coord, Tile], ...] = ()  # tiles the play took off the board (put back)
    on_board: bool = True  # whether its tiles stayed on the board


@dataclass(frozen=True)
class GamePlay:
    """A play as a game other than the classic one scores it (see :class:`GameScoring`)."""

    board: Board  # after the play
    score: PlayScore
    points: int  # what the play event scores (the score's total, or a game's own figure)
    placement: Placement
    withdrawn: int  # what a withdrawal after it takes off (a positive number)
    picked: tuple[tuple[Coord, Tile], ...] = ()
    on_board: bool = True
    remark: str = ""


class GameScoring(Protocol):
    """How a game other than the classic one replays a record's events (Scrabble III's
    pick-offs and blank swaps, read from its note lines)."""

    layout: Layout

    def play(self, board: Board, event: Play, position: str, tiles: TileSet) -> GamePlay: ...

    def before(self, board: Board, event: Event) -> Board: ...


def _rack_value(tiles: str, tileset: TileSet) -> int:
    return tileset.rack_value(tileset.parse_rack(tiles).elements())


def rescore(
    record: GameRecord,
    tileset: TileSet | TileSetChoice,
    source: str = "GCG",
    layout: Layout = STANDARD,
    game: GameScoring | None = None,
) -> Rescore:
    """Replay ``record`` and score every event again. A record that cannot be replayed (a play
    onto a different tile, off the board, with letters the tile set lacks, a withdrawal with no
    play before it) raises :class:`CompanionError` naming the line. ``game`` scores plays by
    another game's rules (its layout replaces ``layout``)."""
    choice = tileset if isinstance(tileset, TileSetChoice) else TileSetChoice(tileset.name, "given")
    tiles = get_tileset(choice.name)
    seats = players_of_events(record)
    players = len(record.players)
    deductions = [(seat, e) for seat, e in zip(seats, record.events) if isinstance(e, LastRackPenalty)]

    board = Board(game.layout if game is not None else layout)
    totals = [0] * players
    plays: list[_Standing] = []  # standing plays, latest last
    out: list[Rescored] = []
    for seat, event in zip(seats, record.events):
        try:
            if game is not None:
                board = game.before(board, event)
            board, score, agrees, remark, play = _score_event(
                event, seat, board, plays, tiles, record, players, deductions, game
            )
        except CompanionError as exc:
            raise CompanionError(f"{source} line {event.line}: {exc}") from None
        totals[seat] += score
        out.append(Rescored(event, seat, score, totals[seat], agrees, remark, play, board))
    return Rescore(record, choice, tuple(out), board)


def _score_event(
    event: Event,
    seat: int,
    board: Board,
    plays: list[_Standing],
    tiles: TileSet,
    record: GameRecord,
    players: int,
    deductions: list[tuple[int, LastRackPenalty]],
    game: GameScoring | None = None,
) -> tuple[Board, int, bool, str, PlayScore | None]:
    """(board after, recomputed score, whether the recorded score agrees, remark, the play's
    scored words when the event is a play)."""
    if isinstance(event, Play) and game is not None:
        position = board_position(event.position, record.orientation, board.layout)
        done = game.play(board, event, position, tiles)
        plays.append(_Standing(seat, done.placement, done.withdrawn, len(done.score.words), done.picked, done.on_board))
        return done.board, done.points, done.points == event.score, done.remark, done.score
    if isinstance(event, Play):
        return _score_play(event, seat, board, plays, tiles, record)
    board, score, agrees, remark = _score_other(event, seat, board, plays, tiles, players, deductions)
    return board, score, agrees, remark, None


def _score_play(
    event: Play, seat: int, board: Board, plays: list[_Standing], tiles: TileSet, record: GameRecord
) -> tuple[Board, int, bool, str, PlayScore]:
    position = board_position(event.position, record.orientation, board.layout)
    placement = placement_from_notation(board, position, event.word)
    if not placement.tiles:
        raise CompanionError(f"{event.position} {event.word}: every square already holds that tile")
    illegal = geometry_error(board, placement)
    if illegal is not None:
        raise CompanionError(f"{event.position} {event.word}: {illegal.message}")
    scored = score_play(board, placement, tiles)
    plays.append(_Standing(seat, placement, scored.total, len(scored.words)))
    board = board.with_tiles((t.coord, t.tile) for t in placement.tiles)
    return board, scored.total, scored.total == event.score, "", scored


def _score_other(
    event: Event,
    seat: int,
    board: Board,
    plays: list[_Standing],
    tiles: TileSet,
    players: int,
    deductions: list[tuple[int, LastRackPenalty]],
) -> tuple[Board, int, bool, str]:
    if isinstance(event, (Pass, Exchange)):
        return board, 0, event.score == 0, ""
    if isinstance(event, Withdrawn):
        if not plays or plays[-1].seat != seat:
            raise CompanionError(f"{event.nick} withdraws a play, but the last play on the board is not theirs")
        withdrawn = plays.pop()
        if withdrawn.on_board:
            board = board.without(withdrawn.placement.coords).with_tiles(withdrawn.picked)
        score = -withdrawn.score
        if event.score == score:
            return board, score, True, ""
        if event.score == 0:
            return board, score, True, "Quackle's '-- +0': the withdrawal shows in the total only"
        return board, score, False, ""
    if isinstance(event, ChallengeBonus):
        mine = [p for p in plays if p.seat == seat]
        if not mine:
            raise CompanionError(f"a challenge bonus for {event.nick}, who has no play on the board")
        words = mine[-1].words
        per_play, per_word = CHALLENGE_BONUS, CHALLENGE_POINTS_PER_WORD * words
        if per_play == per_word:
            return board, per_play, event.score == per_play, f"{per_play} per play = {per_word} per word ({words} word)"
        if event.score == per_play:
            return board, per_play, True, f"{per_play} per challenged play"
        if event.score == per_word:
            return board, per_word, True, f"{CHALLENGE_POINTS_PER_WORD} per word ({words} words)"
        return board, per_play, False, f"neither {per_play} per play nor {per_word} per word ({words} words)"
    if isinstance(event, EndRackPoints):
        value = _rack_value(event.tiles, tiles)
        held = sorted(event.tiles.upper())
        deducted = any(s != seat and sorted(d.tiles.upper()) == held for s, d in deductions)
        if players == 2 and not deducted:
            return board, 2 * value, event.score == 2 * value, "2 x rack value"
        why = "the other player's deduction is recorded" if players == 2 else f"{players} players"
        return board, value, event.score == value, f"1 x rack value ({why})"
    if isinstance(event, LastRackPenalty):
        value = _rack_value(event.tiles, tiles)
        return board, -value, event.score == -value, ""
    if isinstance(event, TimePenalty):
        return board, event.score, True, "as recorded: time is not on the board"
    raise CompanionError(f"cannot rescore an event of type {type(event).__name__}")
