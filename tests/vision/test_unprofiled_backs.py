"""Face-down tiles of a set no profile names (docs/vision-backs.md): a back is a tile, never an
empty square. Without a backs profile a back in a colour unlike every lettered face (a blank
wears its set's face colour) fits no kind the colours weigh; it was read empty (the scores'
capped misfits left empty first) or a blank. And the network's kind, where it is sure of it,
settles a plain square's kind (:mod:`companion.vision.plain_kinds`)."""

from __future__ import annotations

import numpy as np
import pytest

from companion.sim.render import render
from companion.sim.scene import STRANGER_LOOKS, SceneSpec, Square, board_style
from companion.vision.colour import colour_distance, to_lab
from companion.vision.glare import glare_kinds
from companion.vision.model import Beliefs
from companion.vision.plain_kinds import NET_SURE, plain_kinds
from companion.vision.reader import read_board
from companion.vision.reading import CellReading

WORD = "QUARTZ"
BACKS = [(3, 3), (3, 11), (10, 5), (11, 12), (12, 2)]  # two plain squares, three double words


def _scene(look: str, style: str) -> SceneSpec:
    content = {(7, 4 + i): Square.tile(ch, set=look) for i, ch in enumerate(WORD)}
    content.update({rc: Square.back(set=look) for rc in BACKS})
    return SceneSpec(content=content, style=board_style(style), looks={look: STRANGER_LOOKS[look]})


@pytest.mark.parametrize("seed", [1, 2])
def test_backs_unlike_every_face_are_backs_without_a_profile(seed: int) -> None:
    # Yellow tiles with blue backs on a pale board: the backs' colour is no face's and no
    # square's. Every one read empty before (at 0.01: asked about, never read as a tile). The
    # default reader reads them as backs where the network is sure of one; a back it does not
    # read is asked about, never read empty surely.
    scene = render(_scene("yellow", "band"), seed)
    reading = read_board(scene.image, tileset="en", grid=15)
    read = [reading.cell(*rc) for rc in BACKS]
    assert any(c.kind == "back" for c in read), read
    assert all(c.kind == "back" or c.confidence < 0.5 for c in read), read
    assert all(c.set is None for c in read)
    assert "".join(reading.cell(7, 4 + i).letter or "." for i in range(len(WORD))) == WORD
    held = {(c.row, c.col) for c in reading.cells if c.kind != "empty"}
    assert held <= set(BACKS) | {(7, 4 + i) for i in range(len(WORD))}


def test_a_back_glare_could_make_of_a_face_stays_in_doubt() -> None:
    # Black tiles with grey backs: glare over a black face explains grey, so the colour
    # cannot tell a back from a blank under a lamp. Whatever it reads, never empty, never a
    # sure blank (a guard: so it read before the change too).
    scene = render(_scene("black", "classic"), 1)
    reading = read_board(scene.image, tileset="en", grid=15)
    read = [reading.cell(*rc) for rc in BACKS]
    assert all(c.kind != "empty" for c in read), read
    assert all(c.confidence < 0.5 for c in read if c.kind != "back"), read


def test_a_square_nothing_explains_is_a_back_only_where_backs_are_unnamed() -> None:
    # A dark blue square on a paper-white board beside lighter blue faces: glare only adds
    # white, so it explains the square over neither the board nor the faces (it comes nearer
    # the faces). With a back of any colour possible (no backs profile) it is face down, a
    # back; otherwise the scores' face stands.
    white = np.full(3, 255.0)
    paper, blue = np.array([238.0, 240.0, 240.0]), np.array([205.0, 142.0, 92.0])
    dark = 0.7 * blue
    dist = lambda a, b: colour_distance(to_lab(a), to_lab(b))  # noqa: E731
    scores = np.array([[[-20.0, -12.0, -60.0, -6.0]]], np.float32)  # the outlier first, then a face
    args = (scores, dark[None, None], [(0, paper, 4.0, 0.0), (1, blue, 4.0, -2.0)], white[None, None], dist,
            np.zeros((1, 1), bool))
    assert glare_kinds(*args, unnamed_backs=True)[0, 0] == 2
    assert glare_kinds(*args)[0, 0] == 1


def _beliefs(kind: list[list[float]]) -> Beliefs:
    n = len(kind)
    return Beliefs(kind=np.array(kind), letter=np.full((n, 1), 1.0), turn=np.full((n, 4), 0.25),
                   token=np.tile([1.0, 0.0], (n, 1)), embedding=np.zeros((n, 1), np.float32))


def test_the_network_sure_of_a_plain_kind_settles_it() -> None:
    sure, unsure = NET_SURE + 0.05, NET_SURE - 0.05
    rules = [
        CellReading(0, 0, "tile", "?", 0, (200, 200, 200), None, False, 0.4),  # blank, net: empty, sure
        CellReading(0, 1, "back", rgb=(90, 60, 40), confidence=0.3),  # back of no set, net: empty, sure
        CellReading(0, 2, "empty", token=True, confidence=0.2),  # empty, net: back, sure
        CellReading(0, 3, "empty", confidence=0.2),  # empty, net: back, unsure
        CellReading(0, 4, "tile", "?", 0, (200, 200, 200), None, False, 0.4),  # blank, net: back, sure
        CellReading(0, 5, "tile", "E", 0, (200, 200, 200), None, False, 0.6),  # letter, net: empty, sure
        CellReading(0, 6, "empty", confidence=0.2),  # empty, net: a face, sure
        CellReading(0, 7, "back", rgb=(90, 60, 40), confidence=0.8),  # a sure back, net: empty, sure
        CellReading(0, 8, "back", rgb=(90, 60, 40), set="red", confidence=0.3),  # a named back, net: empty, sure
    ]
    rest = lambda p: (1.0 - p) / 2  # noqa: E731
    beliefs = _beliefs([
        [sure, rest(sure), rest(sure)], [sure, rest(sure), rest(sure)], [rest(sure), rest(sure), sure],
        [rest(unsure), rest(unsure), unsure], [rest(sure), rest(sure), sure], [sure, rest(sure), rest(sure)],
        [rest(sure), sure, rest(sure)], [sure, rest(sure), rest(sure)], [sure, rest(sure), rest(sure)],
    ])
    cells, changed = plain_kinds(rules, beliefs)
    assert changed == [0, 1, 2]
    assert [c.kind for c in cells] == ["empty", "empty", "back", "empty", "tile", "tile", "empty", "back", "back"]
    assert cells[2].token and cells[2].set is None and cells[2].confidence == pytest.approx(sure)
    assert cells[3:] == rules[3:]
