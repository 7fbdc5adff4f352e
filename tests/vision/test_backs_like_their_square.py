"""A face-down tile of nearly its square's colour (docs/vision-backs.md): white tiles with red
backs on the green board's red double words. The colours read each back empty (it fits the
double word's look, only loosely), and the network reads it empty at 0.95-1.0: the default
reader was sure of an empty square on 10 of these 15 backs. Now a square read empty whose
colour fits only loosely is asked about where the network sees a little of a tile body, or
where its outline stands out from its print's empty squares' (:func:`plain_kinds.unsure_empty`)."""

from __future__ import annotations

import numpy as np
import pytest

from companion.sim.render import render
from companion.sim.scene import STRANGER_LOOKS, SceneSpec, Square, board_style
from companion.vision.model import Beliefs
from companion.vision.plain_kinds import NET_BODY, unsure_empty
from companion.vision.reader import read_board
from companion.vision.reading import CellReading

WORD = "QUARTZ"
BACKS = [(1, 1), (3, 3), (11, 11), (2, 12), (4, 0)]  # four double words, a plain square on the edge


def _scene() -> SceneSpec:
    content = {(7, 4 + i): Square.tile(ch, set="white") for i, ch in enumerate(WORD)}
    content.update({rc: Square.back(set="white") for rc in BACKS})
    return SceneSpec(content=content, style=board_style("green"), looks={"white": STRANGER_LOOKS["white"]})


def test_backs_of_their_squares_colour_are_not_read_empty_surely() -> None:
    spec = _scene()
    sure_empty = 0
    for seed in (1, 2, 3):
        reading = read_board(render(spec, seed).image, tileset="en", grid=15)
        read = [reading.cell(*rc) for rc in BACKS]
        sure_empty += sum(c.kind == "empty" and c.confidence >= 0.5 for c in read)
        # Nothing else changed its answer: the word is read, no empty square read held.
        assert "".join(reading.cell(7, 4 + i).letter or "." for i in range(len(WORD))) == WORD
        held = {(c.row, c.col) for c in reading.cells if c.kind != "empty"}
        assert held <= set(BACKS) | {(7, 4 + i) for i in range(len(WORD))}
    # Before: 10 of the 15 read empty at 0.98-1.0. One double word's back (seed 1) shows
    # neither witness enough: its outline stands out less than four spreads, the network is
    # 0.97 sure of empty.
    assert sure_empty <= 1


def _beliefs(empty: list[float]) -> Beliefs:
    kind = np.array([[p, (1 - p) / 2, (1 - p) / 2] for p in empty])
    n = len(empty)
    return Beliefs(kind=kind, letter=np.full((n, 1), 1.0), turn=np.full((n, 4), 0.25),
                   token=np.tile([1.0, 0.0], (n, 1)), embedding=np.zeros((n, 1), np.float32))


@pytest.mark.parametrize("loose, empty_belief, outlined, asked", [
    (True, 1.0 - NET_BODY - 0.01, False, True),  # loose colour, the network sees a little body
    (True, 1.0 - NET_BODY + 0.01, False, False),  # ... the network sees none
    (True, 1.0, True, True),  # ... the outline stands out
    (False, 0.5, True, False),  # the colour fits closely: the colour's word stands
])
def test_unsure_empty_needs_loose_colour_and_a_body(loose: bool, empty_belief: float, outlined: bool,
                                                     asked: bool) -> None:
    cells = [CellReading(0, 0, "empty", confidence=0.9), CellReading(0, 1, "back", confidence=0.9)]
    got = unsure_empty(cells, np.array([loose, loose]), _beliefs([empty_belief] * 2), np.array([outlined] * 2))
    assert got.tolist() == [asked, False]  # a square read held is never "unsure empty"
