"""What the camera knows about a board: the board-reading contract as values.

``../shared/contracts/board-reading.md`` is the interface every reader answers through; this
module is its one implementation in code: :class:`CellReading` and :class:`BoardReading`, and
their JSON form, field for field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, Sequence

Kind = Literal["empty", "tile", "back"]
KINDS: tuple[str, ...] = ("empty", "tile", "back")
ROTATIONS: tuple[int, ...] = (0, 90, 180, 270)
BLANK_FACE = "?"  # the letter of a face-up blank tile
# A blank's rotation: nothing printed on it shows a turn, so it is read (and labelled) upright.
BLANK_TURN = 0


@dataclass(frozen=True)
class CellReading:
    row: int
    col: int
    kind: Kind = "empty"
    letter: str | None = None  # for a tile: upper-case letter as printed, or "?" for a blank
    rotation: int | None = None  # for a tile: clockwise from upright, seen from the bottom edge
    rgb: tuple[int, int, int] | None = None  # mean body colour of a tile or back
    set: str | None = None  # the tile set (from the profile) the tile belongs to
    token: bool = False
    confidence: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind {self.kind!r}")
        if self.kind == "tile":
            if not self.letter or self.rotation not in ROTATIONS:
                raise ValueError(f"a tile needs a letter and a rotation: {self}")
        elif self.letter is not None or self.rotation is not None:
            raise ValueError(f"only a face-up tile has a letter and a rotation: {self}")
        if self.kind == "empty" and (self.rgb is not None or self.set is not None):
            raise ValueError(f"an empty square has no body colour or set: {self}")
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"confidence {self.confidence}")

    def to_json(self) -> dict[str, Any]:
        return {
            "row": self.row,
            "col": self.col,
            "kind": self.kind,
            "letter": self.letter,
            "rotation": self.rotation,
            "rgb": list(self.rgb) if self.rgb is not None else None,
            "set": self.set,
            "token": self.token,
            "confidence": round(float(self.confidence), 4),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "CellReading":
        rgb = d.get("rgb")
        return cls(
            row=int(d["row"]),
            col=int(d["col"]),
            kind=d.get("kind", "empty"),
            letter=d.get("letter"),
            rotation=d.get("rotation"),
            rgb=tuple(int(v) for v in rgb) if rgb is not None else None,  # type: ignore[arg-type]
            set=d.get("set"),
            token=bool(d.get("token", False)),
            confidence=float(d.get("confidence", 1.0)),
        )


@dataclass(frozen=True)
class BoardReading:
    rows: int
    cols: int
    corners: tuple[tuple[float, float], ...]  # TL, TR, BR, BL of the playing grid, image pixels
    cells: tuple[CellReading, ...]  # rows x cols, row-major
    elapsed_ms: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict, compare=False)  # reader's own diagnostics

    def __post_init__(self) -> None:
        if len(self.cells) != self.rows * self.cols:
            raise ValueError(f"{len(self.cells)} cells for a {self.rows}x{self.cols} grid")
        for i, c in enumerate(self.cells):
            if (c.row, c.col) != divmod(i, self.cols):
                raise ValueError(f"cell {i} is ({c.row}, {c.col}): cells must be row-major")
        if len(self.corners) != 4:
            raise ValueError("four corners")

    def cell(self, row: int, col: int) -> CellReading:
        return self.cells[row * self.cols + col]

    def to_json(self) -> dict[str, Any]:
        return {
            "grid": {"rows": self.rows, "cols": self.cols},
            "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in self.corners],
            "cells": [c.to_json() for c in self.cells],
            "elapsed_ms": round(float(self.elapsed_ms), 2),
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "BoardReading":
        grid = d["grid"]
        corners = d.get("corners") or [[0, 0], [0, 0], [0, 0], [0, 0]]
        return cls(
            rows=int(grid["rows"]),
            cols=int(grid["cols"]),
            corners=tuple((float(x), float(y)) for x, y in corners),
            cells=tuple(CellReading.from_json(c) for c in d["cells"]),
            elapsed_ms=float(d.get("elapsed_ms", 0.0)),
        )

    def text(self) -> str:
        """One line per row: letters, ``#`` for a back, ``.`` for empty; a token adds nothing."""
        lines = []
        for r in range(self.rows):
            row = []
            for c in range(self.cols):
                cell = self.cell(r, c)
                if cell.kind == "tile":
                    row.append(cell.letter or BLANK_FACE)
                else:
                    row.append("#" if cell.kind == "back" else ".")
            lines.append("".join(row))
        return "\n".join(lines)


def empty_cells(rows: int, cols: int, confidence: float = 1.0) -> tuple[CellReading, ...]:
    return tuple(CellReading(r, c, confidence=confidence) for r in range(rows) for c in range(cols))


def compare(truth: Sequence[CellReading], read: Sequence[CellReading]) -> dict[str, int]:
    """Errors of ``read`` against ``truth`` field by field, over the cells truth has.

    ``kind``, ``letter`` (on cells that are face-up tiles in truth), ``rotation`` (likewise),
    ``token``, and ``set`` (on tiles and backs whose truth names a set). ``square`` counts the
    cells with any of these wrong.
    """
    errors = {"cells": 0, "square": 0, "kind": 0, "letter": 0, "rotation": 0, "token": 0, "set": 0,
              "tiles": 0, "sets": 0}
    by_pos = {(c.row, c.col): c for c in read}
    for t in truth:
        r = by_pos.get((t.row, t.col))
        errors["cells"] += 1
        wrong = False
        if r is None or r.kind != t.kind:
            errors["kind"] += 1
            wrong = True
        if t.kind == "tile":
            errors["tiles"] += 1
            if r is None or r.letter != t.letter:
                errors["letter"] += 1
                wrong = True
            if t.rotation is not None and (r is None or r.rotation != t.rotation):
                errors["rotation"] += 1
                wrong = True
        if r is None or r.token != t.token:
            errors["token"] += 1
            wrong = True
        if t.kind != "empty" and t.set is not None:
            errors["sets"] += 1
            if r is None or r.set != t.set:
                errors["set"] += 1
                wrong = True
        errors["square"] += wrong
    return errors
