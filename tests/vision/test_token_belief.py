"""A token of its face's own colour whose rim shows faintly is asked about when the learned network
believes in a token there too (companion.vision.cells.token_discs.token_in_doubt; docs/vision-
tokens.md): on a development stranger (seed 52065, a phone over red tiles), a red token on a red
tile was read absent at 0.89."""

from __future__ import annotations

import numpy as np

from bench.vision import stranger_tables
from companion.vision.cells.token_discs import _RING_BELIEVED, _RING_DOUBT, _TOKEN_BELIEVED, token_in_doubt
from companion.vision.model import DISAGREE_CAP
from companion.vision.reader import read_board


def test_a_faint_rim_is_doubt_only_where_the_network_believes_in_a_token() -> None:
    rim = np.array([_RING_DOUBT + 1, _RING_BELIEVED + 0.2, _RING_BELIEVED + 0.2, _RING_BELIEVED - 0.2, -np.inf])
    belief = np.array([0.0, _TOKEN_BELIEVED, _TOKEN_BELIEVED - 0.1, 1.0, 1.0])
    assert token_in_doubt(rim, belief).tolist() == [True, True, False, False, False]
    assert token_in_doubt(rim, None).tolist() == [True, False, False, False, False]


def test_a_red_token_on_a_red_tile_is_never_read_surely_absent() -> None:
    ((seed, phone, spec, scene, _profile, _why),) = stranger_tables(1, 52065)
    reading = read_board(scene.image, tileset=spec.tileset, grid=spec.grid)
    truth = scene.truth.cell(3, 10)
    assert truth.kind == "tile" and truth.token
    cell = reading.cell(3, 10)
    assert cell.token or cell.confidence < 0.5
    # And no square without a token is asked about for one: every face-up tile read right and
    # bare keeps the confidence its fields give it (none held at the cap for a token).
    token_p = reading.extra["field_confidence"]["token"]
    for t, c in zip(scene.truth.cells, reading.cells):
        if t.kind == "tile" and not t.token and c.kind == "tile" and not c.token:
            assert token_p[t.row * 15 + t.col] != DISAGREE_CAP, (t.row, t.col)
