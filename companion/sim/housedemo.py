"""The Scrabble House table without hardware: two boards, each under its own synthetic camera.

Each :class:`BoardCamera` holds the board as the players leave it and photographs it as a mounted
camera would (the renderer: tiles of two sets of different colour, turned 0 or 180 degrees to
the player they face); the real reader reads those photos through the table loop. The camera is
calibrated as a mounted camera is at a real table: once, from the empty board, and told the two
sets' colours (what ``companion calibrate`` records in a profile).

:func:`laid` places a word as a player lays it: upright to him, read in his own orientation (the
top player's across runs right to left on the board, his down runs up the board).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from companion.core.board import STANDARD, Board, Coord, Tile
from companion.rules import house

SETS = ("ivory", "wood")  # board 0's set, board 1's: two of the renderer's tile looks


@dataclass(frozen=True)
class Photo:
    image: Any
    timestamp: float | None = None


class BoardCamera:
    """One board and the mounted camera above it (``seed`` picks the camera's pose and light)."""

    def __init__(self, seed: int, tileset: str = "en", sets: tuple[str, ...] = SETS, *, mounted: bool = True,
                 style: str = "green") -> None:
        import numpy as np

        from companion.vision.calibration import calibrate_empty
        from companion.vision.profile import Profile, TileSetColour
        from companion.sim.scene import (
            SceneSpec,
            board_style,
            mounted_camera,
            mounted_photo,
        )

        rng = np.random.default_rng(seed)
        self.seed, self.tileset = seed, tileset
        self.spec = SceneSpec(grid=15, tileset=tileset, style=board_style(style))
        if mounted:
            self.spec = replace(self.spec, camera=mounted_camera(rng), photo=mounted_photo(rng))
        self.board = Board(STANDARD)
        self.frames = 0
        profile = calibrate_empty(self._render(0), Profile(tileset=tileset, grid=15), f"house camera {seed}")
        looks = [self.spec.looks[n] for n in sets]
        self.profile = replace(profile, sets=tuple(TileSetColour(k.name, k.body) for k in looks)).with_arrays(
            set_backs=np.array([k.back for k in looks], np.uint8).reshape(-1, 3))

    def _render(self, frame: int) -> Any:
        from companion.sim.render import render
        from companion.sim.scene import content_from_board

        return render(replace(self.spec, content=content_from_board(self.board)), self.seed, frame=frame).image

    def read(self) -> Photo:
        """The next frame: the board as it lies now."""
        self.frames += 1
        return Photo(self._render(self.frames))

    def analyser(self) -> Callable[[Any], Any]:
        from companion.table.table import reader_analyser

        return reader_analyser(self.tileset, 15, self.profile)


def laid(seat: int, start: Coord, across: bool, word: str, colour: str | None,
         colours: dict[int, str] | None = None) -> dict[Coord, Tile]:
    """The tiles of ``word`` as ``seat`` lays it from ``start`` (its first letter's square), in
    his own reading direction; ``colours`` names a letter's set by its index in the word where it
    is not ``colour`` (a bonus tile). Squares already holding the word's letters are left out by
    the caller (:func:`lay`)."""
    step = {(house.BOTTOM, True): (0, 1), (house.BOTTOM, False): (1, 0),
            (house.TOP, True): (0, -1), (house.TOP, False): (-1, 0)}[(seat, across)]
    colours = colours or {}
    out = {}
    for i, ch in enumerate(word):
        sq = (start[0] + i * step[0], start[1] + i * step[1])
        out[sq] = Tile(ch, rotation=house.ROTATION[seat], set=colours.get(i, colour))
    return out


def lay(board: Board, tiles: dict[Coord, Tile]) -> Board:
    """``board`` with the word's new tiles; a square already holding the word's letter keeps its
    tile (the word runs through it), any other clash is the script's mistake."""
    new = {}
    for sq, t in tiles.items():
        held = board[sq]
        if held is None:
            new[sq] = t
        elif held.letter != t.letter:
            raise ValueError(f"{sq} holds {held.letter}, the word needs {t.letter}")
    return board.with_tiles(new.items())


def follow_preview(board: Board, preview: dict[str, Any]) -> Board:
    """What the players do from the page's preview: turn the squares shown to the mover, then
    take off the squares shown."""
    seat = house.seat(preview["mover"])
    turned = [(tuple(s), board[tuple(s)]) for s in preview["turned"]]
    board = board.with_tiles((s, house.facing(t, seat)) for s, t in turned if t is not None)
    return board.without([tuple(s) for s in preview["removed"]])


# ---------------------------------------------------------------------------------------------
# A whole match, scripted: what the players do, and what they press


@dataclass(frozen=True)
class Lay:
    """A player lays a word (``colours``: a letter's set by its index, for bonus tiles)."""

    board: int
    player: int
    start: Coord
    across: bool
    word: str
    colours: dict[int, str] | None = None


@dataclass(frozen=True)
class Follow:
    """The players do what the page's explosion preview shows on ``board``: the first ``steps``
    steps of it (None: all of it)."""

    board: int
    steps: int | None = None


@dataclass(frozen=True)
class Step:
    name: str
    does: tuple[Lay | Follow, ...]
    presses: tuple[tuple[int, int], ...]  # (board, player): several press at once, one per board
    expect: tuple[tuple[str, ...], ...]  # each press's verdicts as the script means them


ANN, BOB, CY, DI = range(4)
NAMES = ("Ann", "Bob", "Cy", "Di")
# Board 0 (ivory): Ann at the bottom, Bob at the top; board 1 (wood): Cy at the bottom, Di at
# the top; Ann and Cy against Bob and Di; Ann and Di start. Bob's ASHORE runs through his
# STAIR's S; Ann's OPERA takes its O: ASHORE's other tiles come off (step b) and what is left
# of STAIR, TAIR to Bob, is no word (step c); Cy gets the nine tiles and plays two on his board.
SCRIPT: tuple[Step, ...] = (
    Step("the clocks start", (), ((0, BOB), (1, CY)), (("start",), ("start",))),
    Step("first plays", (Lay(0, ANN, (8, 7), False, "RETAINS"), Lay(1, DI, (0, 11), True, "STONE")),
         ((0, ANN), (1, DI)), (("played",), ("played",))),
    Step("first replies", (Lay(0, BOB, (4, 5), False, "STAIR"), Lay(1, CY, (11, 7), False, "STAR")),
         ((0, BOB), (1, CY)), (("played",), ("played",))),
    Step("from own words", (Lay(0, ANN, (8, 3), True, "ALTER"), Lay(1, DI, (2, 7), False, "THE")),
         ((0, ANN), (1, DI)), (("played",), ("played",))),
    Step("ASHORE", (Lay(0, BOB, (4, 6), True, "ASHORE"),), ((0, BOB),), (("played",),)),
    Step("OPERA explodes", (Lay(0, ANN, (4, 3), False, "OPERA"),), ((0, ANN),), (("explosion",),)),
    Step("half done", (Follow(0, steps=1),), ((0, ANN),), (("waiting",),)),
    Step("done as shown", (Follow(0),), ((0, ANN),), (("confirmed",),)),
    Step("bonus tiles", (Lay(1, CY, (11, 7), True, "SHOE", {1: SETS[0], 3: SETS[0]}), Lay(0, BOB, (2, 12), False, "CAT")),
         ((1, CY), (0, BOB)), (("played",), ("played",))),
    Step("OAT, a pass", (Lay(0, ANN, (4, 3), True, "OAT"),), ((0, ANN), (1, DI)), (("played",), ("passed",))),
    Step("Bob passes", (), ((0, BOB),), (("passed",),)),
    Step("ROAST wins", (Lay(0, ANN, (0, 5), False, "ROAST"),), ((0, ANN),), (("played", "won"),)),
)
# The cameras: straight above, flat light (the renderer's plain camera), one per board.
CAMERA_SEEDS = (1, 3)


class HouseTable:
    """The match at a simulated table: two cameras, one Table per board, one session; the
    hub is the caller's (started: the page's, or a headless one). Time is simulated: each step
    is 20 s after the one before."""

    def __init__(self, data_dir: Any, lexicon_for: Callable[[str], Any] | None = None, *,
                 wait_s: float = 120.0) -> None:
        from companion.table.house import HouseSession
        from companion.rules.house import HouseOptions
        from companion.table.store import open_store
        from companion.sim.truth import SimClock

        self.store = open_store(data_dir)
        self.clock = SimClock(1000)
        self.wait_s = wait_s
        self.session = HouseSession(self.store, NAMES, options=HouseOptions(colours=SETS), first=ANN, seed=5,
                                    now_ms=self.clock(), lexicon_for=lexicon_for)
        self.cameras = [BoardCamera(seed, mounted=False) for seed in CAMERA_SEEDS]
        self.hub: Any = None
        self.tables: list[Any] = []
        self.ignored: list[list[str]] = [[], []]  # each board's presses the session ignored, why

    def _trace(self, board: int, line: str) -> None:
        # The loop's "press REF WHAT": a press ignored gets no verdict, only this line.
        parts = line.split(" ", 2)
        if parts[0] == "press" and len(parts) == 3 and parts[2].startswith("ignored"):
            self.ignored[board].append(parts[2])

    def start(self, hub: Any) -> HouseTable:
        import threading

        from companion.table.house import BoardHub
        from companion.table.table import Table

        self.hub = hub
        self.stop = threading.Event()
        # A burst's wall-clock bound well above a loaded machine's (the frames bound it first).
        self.tables = [Table(BoardHub(hub, i), cam, cam.analyser(), burst_s=self.wait_s,
                             trace=lambda line, i=i: self._trace(i, line)).start(self.stop)
                       for i, cam in enumerate(self.cameras)]
        return self

    def do(self, step: Step) -> list[dict[str, Any]]:
        """The step's tiles laid (or taken off), its presses made; each press's verdict (a press
        that starts a clock: ``{"kind": "start"}``)."""
        for what in step.does:
            cam = self.cameras[what.board]
            if isinstance(what, Lay):
                tiles = laid(house.seat(what.player), what.start, what.across, what.word, SETS[what.board], what.colours)
                cam.board = lay(cam.board, tiles)
            else:
                preview = self.doc()["boards"][what.board]["preview"]
                if preview is None:
                    raise ValueError(f"no explosion waits on board {what.board + 1}")
                if what.steps is not None:
                    squares = [sq for st in preview["steps"][:what.steps] for sq in st["squares"]]
                    preview = {**preview, "removed": squares}
                cam.board = follow_preview(cam.board, preview)
        return self.press(*step.presses)

    def press(self, *presses: tuple[int, int]) -> list[dict[str, Any]]:
        import time

        self.clock.set(self.clock() + 20_000)
        before = [len(t.verdicts) for t in self.tables]
        ignored = [len(x) for x in self.ignored]
        starting = [self.hub.call(lambda s, now, b=b: s.clocks.clocks[b].on_move is None) for b, _ in presses]
        for board, player in presses:
            self.tables[board].press(player, self.clock())
        out = []
        deadline = time.monotonic() + self.wait_s
        for (board, player), start in zip(presses, starting):
            while time.monotonic() < deadline:
                if start and self.hub.call(lambda s, now, b=board: s.clocks.clocks[b].on_move is not None):
                    out.append({"kind": "start", "verdicts": ["start"]})
                    break
                if len(self.ignored[board]) > ignored[board]:
                    out.append({"kind": self.ignored[board][-1], "verdicts": ["ignored"]})
                    break
                if not start and len(self.tables[board].verdicts) > before[board]:
                    out.append(self.tables[board].verdicts[-1])
                    break
                time.sleep(0.05)
            else:
                raise TimeoutError(f"no verdict for {NAMES[player]}'s press on board {board + 1}")
        return out

    def doc(self) -> dict[str, Any]:
        self.hub.call(lambda s, now: None)  # everything the game thread did is published
        return self.hub.document_json()

    def close(self) -> None:
        if self.tables:
            self.stop.set()
            for t in self.tables:
                t.stop()
        self.store.close()
