"""The simulated table's cameras: the synthetic renderer's photos as a camera source with known
truth (:class:`SyntheticSource`, a scripted sequence of boards and hands passing over them), and
the demo's camera that photographs a position and reads it back (:class:`ReadBackCamera`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from companion.core.board import Board
from companion.core.errors import CompanionError
from companion.core.move import format_square
from companion.sim import render as renderer
from companion.sim.scene import SceneSpec, content_from_board, mounted_camera, mounted_photo, preset, random_hand
from companion.vision.calibration import calibrate_empty
from companion.vision.profile import Profile
from companion.vision.reader import read_board
from companion.pi.sources import Clock, FrameSource


@dataclass(frozen=True)
class HandPass:
    """A scripted hand passing over a still board: it enters along its arm, holds, leaves, and
    the board is seen alone for ``after`` frames (the renderer's ``hand_sequence``)."""

    spec: Any  # a companion.sim.scene.SceneSpec
    hand: Any  # a companion.sim.scene.Hand
    steps_in: int = 4
    hold: int = 2
    steps_out: int = 3
    after: int = 3


class SyntheticSource(FrameSource):
    """Photos from the synthetic renderer, with their truth in each frame's ``meta["scene"]``.

    ``script``: what the camera sees, in order: a scene spec is one frame of that scene (only
    the sensor noise differs between frames of one spec), a :class:`HandPass` the frames of a
    hand passing over its board. Without a script: a board drawn at random from ``seed`` (a
    mounted camera), three still frames, a hand passing, the board alone again. ``render`` and
    ``hand_sequence`` are the renderer's functions (injectable for tests)."""

    def __init__(
        self,
        script: Sequence[Any] | None = None,
        *,
        seed: int = 0,
        loop: bool = False,
        size: tuple[int, int] | None = None,
        clock: Clock = time.monotonic,
        render: Callable[..., Any] | None = None,
        hand_sequence: Callable[..., Any] | None = None,
    ) -> None:
        super().__init__(clock)
        self._render = render or renderer.render
        self._hand_sequence = hand_sequence or renderer.hand_sequence
        self.seed, self.loop = int(seed), loop
        self.script: tuple[Any, ...] = tuple(script) if script is not None else default_script(self.seed, size)
        if not self.script:
            raise CompanionError("synthetic source: the script is empty")
        self._step = 0
        self._pending: list[Any] = []
        self._frame = 0  # noise frame number: every frame of the source differs

    def _grab(self) -> tuple[np.ndarray, Mapping[str, Any]] | None:
        if not self._pending:
            if self._step >= len(self.script):
                if not self.loop:
                    return None
                self._step = 0
            item = self.script[self._step]
            self._step += 1
            if isinstance(item, HandPass):
                self._pending = list(self._hand_sequence(item.spec, self.seed, item.hand, steps_in=item.steps_in,
                                                         hold=item.hold, steps_out=item.steps_out, after=item.after))
            else:
                self._pending = [self._render(item, self.seed, frame=self._frame)]
            if not self._pending:
                return self._grab()
        scene = self._pending.pop(0)
        self._frame += 1
        return scene.image, {"scene": scene}

    @property
    def name(self) -> str:
        return f"synthetic source (seed {self.seed})"


def default_script(seed: int, size: tuple[int, int] | None = None) -> tuple[Any, ...]:
    """A random board under a mounted camera: three still frames, a hand passing, the board
    alone again (the pass ends with three frames of it)."""
    rng = np.random.default_rng(seed)
    spec = preset("mounted", rng)
    if size is not None:
        spec = replace(spec, camera=replace(spec.camera, size=(int(size[0]), int(size[1]))))
    return (spec, spec, spec, HandPass(spec, random_hand(rng, spec.grid)))


class ReadBackCamera:
    """The synthetic camera above the demo's board: each position is rendered as a mounted
    camera would photograph it and read back through the board reader, as the table will."""

    SEED = 7

    def __init__(self, tileset: str, grid: int) -> None:
        rng = np.random.default_rng(self.SEED)
        self.spec = SceneSpec(grid=grid, tileset=tileset, camera=mounted_camera(rng), photo=mounted_photo(rng))
        self.tileset = tileset
        # Calibrated once, from the empty board, as a mounted camera is at the table.
        self.profile = calibrate_empty(self._photo({}), Profile(tileset=tileset, grid=grid), "demo empty board")
        self.squares = self.wrong = 0

    def _photo(self, content: dict[Any, Any]) -> Any:
        return renderer.render(replace(self.spec, content=content), self.SEED).image

    def learn_backs(self, set_name: str = "ivory") -> tuple[int, int, int]:
        """Teaches the profile what ``set_name``'s tiles look like face down, as a table whose
        game lays tiles face down is calibrated (``companion calibrate --layout backs``): its
        tiles face down on every square of the middle row, photographed and learned. The set's
        face colour is told (what ``--layout alphabet`` records). Without it a back reads as a
        face without ink, or as nothing at all; returns the colour learned."""
        from companion.sim.scene import Square
        from companion.vision.calibration import calibrate_backs
        from companion.vision.profile import TileSetColour

        look = self.spec.looks[set_name]
        grid = self.spec.grid
        base = self.profile
        if all(s.name != set_name for s in base.sets):
            base = replace(base, sets=(*base.sets, TileSetColour(set_name, look.body)))
        row = grid // 2
        squares = [(row, c) for c in range(grid)]
        photo = self._photo({sq: Square.back(set=set_name) for sq in squares})
        self.profile, rgb = calibrate_backs(photo, base, "demo backs", set_name, squares, grid=grid)
        return rgb

    def check(self, board: Board) -> str:
        reading = read_board(self._photo(content_from_board(board)), tileset=self.tileset, grid=board.layout.rows,
                             profile=self.profile)
        wrong = []
        for cell in reading.cells:
            tile = board[(cell.row, cell.col)]
            expected = None if tile is None else ("?" if tile.blank else tile.letter)
            seen = cell.letter if cell.kind == "tile" else None
            if seen != expected:
                wrong.append(f"{format_square((cell.row, cell.col))} read {seen or 'empty'} for {expected or 'empty'}")
        self.squares += len(reading.cells)
        self.wrong += len(wrong)
        if not wrong:
            return f"all {len(reading.cells)} squares read right in {reading.elapsed_ms:.0f} ms"
        return f"{len(wrong)} squares misread: {', '.join(wrong[:4])}"

    def summary(self) -> str:
        return f"{self.squares - self.wrong} of {self.squares} squares read right over the game"
