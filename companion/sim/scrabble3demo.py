"""Scrabble III at the simulated table: a recorded Scrabble III game (docs/scrabble3.md's GCG
extension) played on the 21x21 board through the whole table loop, as the classic demo plays
a classic record (:mod:`companion.sim.tabledemo`, whose world, camera and table it uses).

The players leave each position on the board; the camera photographs it (or, with ``truth``,
gives the board's truth) and the table judges every press with Scrabble III's rules and
inference: a pick-off shows as tiles gone or changed at a word's end, a JQXZ flipped for a
blank lies face down until a player swaps it for its letter, an invalid play is judged and the
players take it off, and when both are stuck the racks are told on the page and the
final-racks round is played, each attempt laid down and taken off again.

The game the package ships (``companion/data/scrabble3_demo.gcg``) draws a scoop of 42 tiles,
so that its bag runs out and its players are stuck, as the rule text expects.
"""

from __future__ import annotations

import threading

import tempfile
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any, Callable

from companion.core.board import EXTENDED, Board, Coord
from companion.core.gcg import GameRecord, LastRackPenalty, Pass, Play, Withdrawn, decode_gcg, parse_gcg
from companion.core.move import placement_from_notation
from companion.rules import scrabble3 as s3
from companion.rules.rescore import TileSetChoice, rescore
from companion.rules.scrabble3_gcg import Scrabble3Scoring, notes_of, options_of
from companion.sim.tabledemo import World
from companion.sim.truth import SimClock, TruthFrame, reading_of_board
from companion.table.games import resume_or_start
from companion.table.session import ActionError
from companion.table.store import open_store
from companion.table.table import Press, Table
from companion.vision.reading import BoardReading, CellReading

SCOOP = 42  # the shipped game's: 16 dealt and 26 drawn, so the bag runs out


def sample_record() -> tuple[str, GameRecord]:
    data = resources.files("companion").joinpath("data", "scrabble3_demo.gcg").read_bytes()
    source = "built-in Scrabble III game"
    return source, parse_gcg(decode_gcg(data, source), source)


@dataclass(frozen=True)
class Step:
    ref: int
    kind: str  # "start", "turn" (a press), "racks" (the racks told on the page)
    board: Board  # the board as it lies for the step
    face_down: frozenset[Coord]
    what: str
    at_ms: int
    racks: tuple[str, ...] = ()


def plan(record: GameRecord) -> list[Step]:
    """The steps of a Scrabble III record at the table."""
    result = rescore(record, TileSetChoice(s3.TILESET, "demo"), "demo", game=Scrabble3Scoring(options_of(record)))
    board = Board(EXTENDED)
    down: set[Coord] = set()
    at = 1000
    steps = [Step(0, "start", board, frozenset(), "the clock starts", at)]
    racks = {r.seat: r.event.tiles for r in result.events if isinstance(r.event, LastRackPenalty)}
    told = False
    events = list(result.events)
    for i, r in enumerate(events):
        e = r.event
        if isinstance(e, (Play, Pass)):
            notes = notes_of(e)
            down -= set(notes.swaps)
            at += 20_000
            if notes.final_racks and not told:
                told = True
                steps.append(Step(len(steps), "racks", board, frozenset(down), "the racks are told", at,
                                  tuple(racks.get(s, "") for s in range(len(record.players)))))
            if isinstance(e, Pass):
                steps.append(Step(len(steps), "turn", board, frozenset(down), f"{e.nick}: no tiles", at))
                continue
            what = f"{e.nick}: {e.position} {e.word}"
            if notes.final_racks:
                placement = placement_from_notation(board, e.position, e.word)
                shown = board.with_tiles((t.coord, t.tile) for t in placement.tiles)
                steps.append(Step(len(steps), "turn", shown, frozenset(down), what + " (final racks)", at))
                continue
            assert r.board is not None
            down = {sq for sq in down if sq in r.board} | {sq for sq, _ in notes.flipped}
            steps.append(Step(len(steps), "turn", r.board, frozenset(down), what, at))
            board = r.board
        elif isinstance(e, Withdrawn) and r.board is not None:
            board = r.board  # the players take the invalid play off; no press
            down = {sq for sq in down if sq in board}
    return steps


class Scrabble3World(World):
    """The demo's world with tiles lying face down (flipped JQXZ) where the game says."""

    def __init__(self, truth: bool, seed: int = 7) -> None:
        # The game's own set (298 tiles, English letters and values): the reader bounds how many
        # of a letter can lie on the board by it (vision/bag_bound.py).
        super().__init__(s3.TILESET, EXTENDED.rows, truth, seed)
        self.face_down: frozenset[Coord] = frozenset()
        if self.camera is not None:
            # A Scrabble III table lays JQXZ face down: its camera knows the set's backs.
            self.camera.learn_backs()

    def read(self) -> Any:
        self.seconds += self.FRAME_S
        if self._hand:
            return self._hand.pop(0)
        if self.truth:
            reading = reading_of_board(self.board)
            cells = tuple(CellReading(c.row, c.col, "back") if (c.row, c.col) in self.face_down else c
                          for c in reading.cells)
            return TruthFrame(BoardReading(reading.rows, reading.cols, reading.corners, cells))
        from companion.sim.render import render
        from companion.sim.scene import Square, content_from_board

        assert self.camera is not None
        self._frame += 1
        content = content_from_board(self.board)
        for sq in self.face_down:
            content[sq] = Square(kind="back")
        spec = replace(self.camera.spec, content=content)
        from companion.sim.tabledemo import _Image

        return _Image(render(spec, self.camera.SEED, frame=self._frame).image)


class Scrabble3Demo:
    """One demo game on a data folder (a fresh temporary one unless given)."""

    def __init__(self, record: GameRecord, names: list[str], *, data_dir: Path | None = None, truth: bool = False,
                 sim_time: bool = False, seed: int = 1, trace: Callable[[str], None] | None = None,
                 lexicon_for: Callable[[str], Any] | None = None) -> None:
        self.data_dir = Path(data_dir) if data_dir is not None else Path(tempfile.mkdtemp(prefix="companion-demo-"))
        self.store = open_store(self.data_dir)
        self.trace = trace or (lambda line: None)
        self.steps = plan(record)
        self.sim_time = sim_time
        sim_clock = (lambda last: SimClock(last.at_ms if last is not None else 0)) if sim_time else None
        options = options_of(record)
        session, self.clock = resume_or_start(
            self.store, names, game="scrabble3", control="tournament", seed=seed, scoop=SCOOP,
            stretch=options.stretch.value, lexicon_for=lexicon_for, clock=sim_clock)
        self.session = session
        self.resumed_at = session.last_ref
        self.world = Scrabble3World(truth)
        done = session.last_ref
        if done >= 0:
            step = self.steps[min(done, len(self.steps) - 1)]
            self.world.board, self.world.face_down = step.board, step.face_down

    def table(self, hub: Any) -> Table:
        if self.sim_time:
            return Table(hub, self.world, self.world.analyser(), trace=self.trace, clock=lambda: self.world.seconds)
        return Table(hub, self.world, self.world.analyser(), trace=self.trace)

    def play(self, hub: Any, table: Table, *, pace_s: float = 0.0, stop: threading.Event | None = None,
             say: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
        say = say or (lambda line: None)
        stop = stop or threading.Event()
        table.resume_pending()
        verdicts = []
        for step in self.steps[self.session.last_ref + 1:]:
            if stop.is_set():
                break
            if pace_s and step.kind != "racks":
                stop.wait(pace_s)
            if self.sim_time:
                self.clock.set(step.at_ms)
            self.world.board, self.world.face_down = step.board, step.face_down
            if step.kind == "racks":
                def tell(s: Any, now: int, step: Step = step) -> None:
                    s.ref = step.ref
                    try:
                        s.enter_racks(now, ",".join(step.racks))
                    finally:
                        s.ref = None

                try:
                    hub.call(tell)
                except ActionError as exc:
                    say(f"{step.what:<32} refused: {exc}")
                    continue
                say(f"{step.what:<32} {','.join(step.racks)}")
                continue
            player = hub.call(_pressing)
            if player is None:
                continue
            verdict = table.handle(Press(player, self.clock(), step.ref))
            verdicts.append(verdict)
            say(f"{step.what:<32} {_line(hub, verdict)}")
        return verdicts

    def summary(self, hub: Any) -> dict[str, Any]:
        def doc(s: Any, now: int) -> dict[str, Any]:
            state = s.state
            return {"board": state.board.to_text(), "scores": [p.score for p in state.players],
                    "over": state.over, "history": s.history_rows, "gcg": s.gcg(),
                    "ppt": [round(state.ppt(i), 2) for i in range(len(state.players))]}

        return hub.call(doc)

    def close(self) -> None:
        self.store.close()


def _pressing(s: Any, now: int) -> int | None:
    """Who presses: before the start the player before the first (starting the first player's
    clock), then the player the rules say is on move."""
    if s.state.over:
        return None
    if s.clocks is not None and not any(c.on_move is not None for c in s.clocks.clocks):
        return (s.state.to_move - 1) % len(s.state.players)
    return s.state.to_move


def _line(hub: Any, verdict: dict[str, Any]) -> str:
    scores = hub.call(lambda s, now: ", ".join(f"{p.name} {p.score}" for p in s.state.players))
    kinds = "/".join(verdict.get("verdicts") or [verdict.get("kind", "")])
    extra = f" ({'; '.join(verdict.get('questions') or [])})" if verdict.get("questions") else ""
    if verdict.get("face_down"):
        extra += f" (face down: {', '.join(verdict['face_down'])})"
    return f"{kinds:<22} {scores}{extra}"
