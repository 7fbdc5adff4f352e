"""The classic game's log entries: game started, an action, a correction of a misread square,
an undo. Their JSON (:func:`companion.table.store.entry_to_json`) is the game log's format: a
log written by an older companion must still fold, so a field is only ever added with a
default."""

from __future__ import annotations

from dataclasses import dataclass

from companion.core.board import Coord, Tile
from companion.rules import classic
from companion.rules.classic import ClassicOptions


@dataclass(frozen=True)
class Started:
    names: tuple[str, ...]
    options: ClassicOptions
    seed: int
    first: int
    control: str  # the time control's label


@dataclass(frozen=True)
class Acted:
    action: classic.Action
    ruling: str | None = None  # a director's challenge ruling: "valid" or "phony"


@dataclass(frozen=True)
class Corrected:
    square: Coord
    tile: Tile | None  # None: the square is empty


@dataclass(frozen=True)
class Undone:
    target: int  # seq of the entry undone


@dataclass(frozen=True)
class LogEntry:
    seq: int
    at_ms: int
    by: str  # "table" or "admin"
    event: Started | Acted | Corrected | Undone
