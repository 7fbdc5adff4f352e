"""A game rebuilt from photos: one photo per turn, in order, read and judged as the table would.

Each photo is read (:mod:`companion.vision.reader`), the move it shows against the board
accepted so far is inferred (:mod:`companion.table.inference`) and scored by the classic rules
(premiums under new tiles only, 50 for all seven tiles). A photo that adds no tile is a turn
without tiles: a pass or an exchange, which a photo cannot tell apart (written as a pass).
A photo of the empty board starts the game afresh: a game never returns to the empty board, so
what the photos before it showed (tiles laid out to test the camera and taken off) is no part of
the game.

A turn the photos cannot settle (see :mod:`companion.table.inference` for the questions) is written
as a turn without tiles with the questions as its note, the board unchanged: the record stays
honest about what it does not know, and the next photo is judged against the board as it was.
A move whose blank the word list cannot name is written with the likeliest letter and the
question as its note. The letters the players named for their blanks may be given from the
game's score sheet (:func:`declared_blanks`): at a table they are said aloud, and no photo
shows them; everything else still comes from the photos.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Container, Mapping, Sequence

from companion.core.board import STANDARD, Board, Coord, Direction
from companion.core.gcg import Event, GameRecord, Pass, Play, Player, with_racks
from companion.core.move import notation_of, parse_position
from companion.core.tiles import TileSet
from companion.core.words import words_formed
from companion.core.errors import CompanionError
from companion.table.inference import Inferred, accept, infer_move
from companion.rules.classic import score_play

PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png")


def photos_in(folder: Path) -> list[Path]:
    """The photos of a folder in order: by name, numbers compared as numbers (board-9 before
    board-10)."""
    if not folder.is_dir():
        raise CompanionError(f"{folder}: not a folder of photos")

    def key(p: Path) -> list[object]:
        return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", p.name.lower())]

    found = sorted((p for p in folder.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES and p.is_file()), key=key)
    if not found:
        raise CompanionError(f"{folder}: no photos (JPEG or PNG) in it")
    return found


@dataclass(frozen=True)
class Turn:
    photo: Path
    event: Event
    inferred: Inferred


@dataclass(frozen=True)
class Replay:
    record: GameRecord
    turns: tuple[Turn, ...]
    board: Board
    start_photos: tuple[Path, ...]  # the photos before the game: up to the last empty board

    @property
    def questions(self) -> list[tuple[Path, str]]:
        return [(t.photo, q) for t in self.turns for q in t.inferred.questions]


def declared_blanks(record: GameRecord) -> dict[Coord, str]:
    """The letter each blank stands for, by square, as a score sheet (a GCG record) writes
    them: the lower-case letters of its plays. Nothing else of the record is used."""
    named: dict[Coord, str] = {}
    for event in record.events:
        if not isinstance(event, Play):
            continue
        try:
            (r, c), direction = parse_position(event.position, STANDARD)
        except CompanionError:
            continue
        dr, dc = direction.step
        for i, ch in enumerate(event.word):
            if ch.isalpha() and ch.islower():
                named[(r + dr * i, c + dc * i)] = ch.upper()
    return named


def main_direction(board: Board, inferred: Inferred) -> Direction:
    """The line of the move's main word (one tile: the direction of its longer word, as
    :func:`companion.core.words.words_formed` takes it)."""
    assert inferred.placement is not None
    return words_formed(board, inferred.placement)[0].direction


def replay_photos(
    photos: Sequence[Path],
    read: Callable[[Path], Sequence],
    tileset: TileSet,
    lexicon: Container[str],
    players: Sequence[str],
    *,
    transpose: bool = False,
    named_blanks: Mapping[Coord, str] | None = None,
) -> Replay:
    """The game the photos show. ``read`` gives a photo's cells (the board-reading contract's
    cells): the reader, or anything that answers like it."""
    if len(players) < 2:
        raise CompanionError("a game needs at least two players")
    board = Board(STANDARD)
    totals = [0] * len(players)
    turns: list[Turn] = []
    start: list[Path] = []
    for photo in photos:
        cells = read(photo)
        if all(c.kind == "empty" for c in cells):
            # The empty board: a game never returns to it, so the game starts here, and what
            # the photos before showed (a test of the camera, names laid out in tiles and
            # taken off) was no part of it.
            start.extend([t.photo for t in turns] + [photo])
            turns.clear()
            totals = [0] * len(players)
            board = Board(STANDARD)
            continue
        inferred = infer_move(board, cells, tileset, lexicon, transpose=transpose, named=named_blanks)
        seat = len(turns) % len(players)
        nick = players[seat]
        notes = tuple(inferred.questions)
        if inferred.placement is None:
            event: Event = Pass(nick=nick, score=0, total=totals[seat], notes=notes)
        else:
            direction = main_direction(board, inferred)
            position, word = notation_of(board, inferred.placement, direction)
            score = score_play(board, inferred.placement, tileset).total
            totals[seat] += score
            event = Play(nick=nick, position=position, word=word, score=score, total=totals[seat], notes=notes)
            board = accept(board, inferred.placement, cells, transpose=transpose)
        turns.append(Turn(photo, event, inferred))
    record = GameRecord(
        # Macondo's and Quackle's readers want a name after the nick: the nick is all we have.
        players=tuple(Player(i + 1, nick, nick) for i, nick in enumerate(players)),
        events=with_racks(tuple(t.event for t in turns)),
        tile_set=tileset.name,
    )
    return Replay(record, tuple(turns), board, tuple(start))
