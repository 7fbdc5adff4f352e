"""The dungeon's table as a mounted camera photographs it: a hand-moved board rendered by the
project's synthetic renderer (faces, backs, tokens), read back by the real reader.

The camera is the demo's (calibrated once from the empty board), then calibrated as a player
does at a table where tiles lie face down: the alphabet layout (the set's letters and face
colour), then rows of the set's tiles face down (the colour of its backs: the reader tells a
back from an empty square by it)."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from companion.sim.camera import ReadBackCamera
from companion.core.tiles import get_tileset
from companion.table.table import reader_analyser
from companion.vision.alphabet import alphabet_order
from companion.vision.calibration import calibrate_alphabet, calibrate_backs
from companion.sim.render import hand_sequence, render
from companion.sim.scene import Square, random_hand
from tests.rules.dungeon_table import PhysicalBoard

SET = "ivory"
TOKEN = "red"


@dataclass(frozen=True)
class Frame:
    image: Any
    timestamp: float | None = None


BACKS = tuple((7, c) for c in range(15))  # `companion calibrate --layout backs`: the middle row face down


def calibrated(camera: ReadBackCamera) -> Any:
    """The demo camera's profile with the set's alphabet and backs, from rendered calibration photos."""
    order = alphabet_order(get_tileset(camera.tileset))
    alphabet = {divmod(i, 15): Square.tile(ch, set=SET) for i, ch in enumerate(order)}
    profile, _ = calibrate_alphabet(camera._photo(alphabet), camera.profile, "rendered alphabet", SET)
    backs = {s: Square.back(set=SET) for s in BACKS}
    profile, _ = calibrate_backs(camera._photo(backs), profile, "rendered backs", SET, list(BACKS))
    return profile


class DungeonCamera:
    def __init__(self, board: PhysicalBoard, seed: int = 3) -> None:
        self.board = board
        self.camera = ReadBackCamera("en", 15)
        self.profile = calibrated(self.camera)
        self._frame = 0
        self._hand: list[Frame] = []
        self._rng = random.Random(seed)
        self.photos = 0

    def analyser(self):  # type: ignore[no-untyped-def]
        return reader_analyser("en", 15, self.profile)

    def content(self) -> dict[tuple[int, int], Square]:
        out = {}
        for s, sq in self.board.squares.items():
            token = TOKEN if sq.token else None
            if sq.kind == "tile":
                out[s] = Square.tile(sq.letter, set=SET, token=token)
            elif sq.kind == "back":
                out[s] = Square.back(set=SET, token=token)
            elif token:
                out[s] = Square.token_only(TOKEN)
        return out

    def hand_passes(self) -> None:
        """A hand over the board before the next frames (it leaves before the board is judged)."""
        spec = replace(self.camera.spec, content=self.content())
        hand = random_hand(np.random.default_rng(self._rng.randrange(2**31)), spec.grid)
        scenes = hand_sequence(spec, self.camera.SEED, hand, steps_in=2, hold=1, steps_out=2, after=0)
        self._hand = [Frame(s.image) for s in scenes]

    def read(self) -> Frame:
        self.photos += 1
        if self._hand:
            return self._hand.pop(0)
        self._frame += 1
        spec = replace(self.camera.spec, content=self.content())
        return Frame(render(spec, self.camera.SEED, frame=self._frame).image)
