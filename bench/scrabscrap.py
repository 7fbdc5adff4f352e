"""The scrabscrap photos the benchmark may learn from, with their truth (not a benchmark itself:
no ``run``).

The issue allows learning only from photos that are not measured: spiel-12 (unlabelled),
spiel-15, board-neu/warp-*, and the empty board-00a shots. spiel-15's truth comes from its
game record (``games/scrabscrap/nu19_johannes-stefan.gcg``): board-NN is the board after the
record's NN-th event (see ``photos/scrabscrap/spiel_GT.md``); the record's ``#orientation
lettered-rows`` makes the replayed board come out as the photos show it. board-15 is left out:
it shows the withdrawn NEUENDER where the record does not put it. The warp-* shots show layout
SET C of ``board-neu_GT.txt``.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from companion.core.gcg import decode_gcg, parse_gcg
from companion.core.tiles import get_tileset
from companion.rules.rescore import rescore
from companion.vision.reading import CellReading

SET_C = (
    "...............",
    "...............",
    "...............",
    "...............",
    "...............",
    "..........W....",
    "..........Ö....",
    ".....YLATZI....",
    ".......E..U....",
    ".......E..Ä....",
    ".....UÜN.......",
    "....GS.........",
    "...............",
    "...............",
    "...............",
)
LEFT_OUT = {"spiel-15/board-15"}


def _cells(rows: list[str] | tuple[str, ...]) -> list[CellReading]:
    return [
        CellReading(r, c) if ch == "." else CellReading(r, c, "tile", ch, 0)
        for r, line in enumerate(rows)
        for c, ch in enumerate(line)
    ]


def allowed_labelled(photos: Path, games: Path) -> list[tuple[str, np.ndarray, list[CellReading]]]:
    record = parse_gcg(decode_gcg((games / "nu19_johannes-stefan.gcg").read_bytes()))
    replay = rescore(record, get_tileset("de"))
    out = []
    for i, event in enumerate(replay.events, start=1):
        name = f"spiel-15/board-{i:02d}"
        path = photos / "spiel-15" / f"board-{i:02d}.jpg"
        if name in LEFT_OUT or not path.is_file() or event.board is None:
            continue
        rows = ["".join("?" if (t := event.board[(r, c)]) is not None and t.blank else (t.letter if t else ".")
                        for c in range(15)) for r in range(15)]
        out.append((name, cv2.imread(str(path)), _cells(rows)))
    for n in ("07", "10", "11", "14", "21", "28"):
        path = photos / "board-neu" / f"warp-{n}.jpg"
        if path.is_file():
            out.append((f"board-neu/warp-{n}", cv2.imread(str(path)), _cells(SET_C)))
    return out


def allowed_empties(photos: Path) -> list[tuple[str, np.ndarray]]:
    path = photos / "spiel-15" / "board-00a.jpg"
    return [("spiel-15/board-00a", cv2.imread(str(path)))] if path.is_file() else []
