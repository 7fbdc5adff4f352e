"""The table without hardware: a recorded game played on a synthetic table, move by move.

A simulated world holds the board as the players leave it. Before each press the player's
tiles go down on it (and now and then a hand passes over the board); the synthetic camera
photographs it (the renderer, a mounted camera) and the whole table loop judges what it sees:
reader -> stabiliser -> inference -> rules -> game log -> hub -> page. A phony the record
withdrew is taken off by the director's ruling through the page's action, as at a real table.

Each step of the plan carries its number into the game log (``ref``), so a demo killed at any
moment and started again on the same data folder resumes where its log says it was: a press
logged but not judged is judged first (the board as it lies), then the next step follows.

Two switches make it cheap for tests, each where the camera is not what is tested:
``truth`` readings (the board's truth instead of the reader on rendered frames) and simulated
time (each player thinks a scripted time; nothing waits).
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from companion.core.board import Board, layout_for_grid
from companion.core.gcg import Exchange, GameRecord, Pass, Play, Withdrawn
from companion.rules import classic
from companion.rules.rescore import choose_tileset, rescore
from companion.table.store import open_store
from companion.sim.truth import SimClock, TruthFrame, reading_of_board, truth_analyser
from companion.table.classic import TableSession
from companion.table.games import resume_or_start
from companion.table.table import Press, Table, reader_analyser

HAND_FRAMES = 6  # a hand passing in truth mode: frames with it over the board


@dataclass(frozen=True)
class Step:
    ref: int
    kind: str  # "start", "turn" (a press), "withdraw" (the director's ruling), "last" (the last play stands)
    board: Board  # the board as it lies after the step
    what: str
    hand: bool  # a hand passes over the board before the press
    at_ms: int  # when it happens in simulated time


def plan(record: GameRecord, tileset: str, *, seed: int = 1, hands_every: int = 3) -> list[Step]:
    """The steps of a recorded game at the table."""
    result = rescore(record, choose_tileset(record), "demo")
    rng = random.Random(seed)
    grid = result.board.layout.rows
    board = Board(layout_for_grid(grid))
    at = 1000
    steps = [Step(0, "start", board, "the clock starts", False, at)]
    for r in result.events:
        e = r.event
        if isinstance(e, (Play, Pass, Exchange)):
            at += rng.randint(8_000, 60_000)
            board = r.board if r.board is not None else board
            what = f"{e.nick}: {e.position} {e.word}" if isinstance(e, Play) else f"{e.nick}: no tiles"
            hand = hands_every > 0 and rng.randrange(hands_every) == 0
            steps.append(Step(len(steps), "turn", board, what, hand, at))
        elif isinstance(e, Withdrawn):
            at += rng.randint(2_000, 10_000)
            board = r.board if r.board is not None else board
            steps.append(Step(len(steps), "withdraw", board, f"{e.nick}: play withdrawn", False, at))
    steps.append(Step(len(steps), "last", board, "the last play stands", False, at + 5000))
    return steps


@dataclass(frozen=True)
class _Image:
    image: Any
    timestamp: float | None = None


class World:
    """The table as the camera sees it: the board the players left, and a hand now and then.
    ``truth``: frames are the board's truth (no pixels); otherwise rendered photos.
    ``seconds``: the simulated camera's own time, ``FRAME_S`` a frame; a game on simulated time
    bounds its capture bursts by it, so its outcome does not hang on how fast this machine
    renders and reads (a loaded machine once cut bursts short by the wall clock)."""

    FRAME_S = 1.0  # as the table spaces frames that carry no timestamp

    def __init__(self, tileset: str, grid: int, truth: bool, seed: int = 7) -> None:
        self.truth = truth
        self.board = Board(layout_for_grid(grid))
        self._hand: list[Any] = []
        self._rng = random.Random(seed)
        self._frame = 0
        self.seconds = 0.0
        self.camera = None
        if not truth:
            from companion.sim.camera import ReadBackCamera

            self.camera = ReadBackCamera(tileset, grid)

    def analyser(self) -> Callable[[Any], Any]:
        if self.truth:
            return truth_analyser
        assert self.camera is not None
        return reader_analyser(self.camera.tileset, self.board.layout.rows, self.camera.profile)

    def hand_passes(self) -> None:
        if self.truth:
            self._hand = [TruthFrame(reading_of_board(self.board), hand=True) for _ in range(HAND_FRAMES)]
            return
        import numpy as np

        from companion.sim.render import hand_sequence
        from companion.sim.scene import content_from_board, random_hand

        assert self.camera is not None
        spec = replace(self.camera.spec, content=content_from_board(self.board))
        hand = random_hand(np.random.default_rng(self._rng.randrange(2**31)), spec.grid)
        scenes = hand_sequence(spec, self.camera.SEED, hand, steps_in=2, hold=1, steps_out=2, after=0)
        self._hand = [_Image(s.image) for s in scenes]

    def read(self) -> Any:
        self.seconds += self.FRAME_S
        if self._hand:
            return self._hand.pop(0)
        if self.truth:
            return TruthFrame(reading_of_board(self.board))
        from companion.sim.render import render
        from companion.sim.scene import content_from_board

        assert self.camera is not None
        self._frame += 1
        spec = replace(self.camera.spec, content=content_from_board(self.board))
        return _Image(render(spec, self.camera.SEED, frame=self._frame).image)


def summary(s: TableSession, now: int) -> dict[str, Any]:
    """What two runs of a game must agree on."""
    state = s.state
    clocks = [s.clocks.remaining_ms(i, now) for i in range(len(state.players))] if s.clocks else []
    return {
        "board": state.board.to_text(),
        "scores": [p.score for p in state.players],
        "history": s.history(),
        "over": state.over,
        "to_move": state.to_move,
        "entries": len(s.log),
        "clocks_ms": clocks,
        "gcg": s.gcg(),
    }


class Demo:
    """One demo game on a data folder (a fresh temporary one unless given)."""

    def __init__(self, record: GameRecord, tileset: str, names: list[str], *, data_dir: Path | None = None,
                 truth: bool = False, sim_time: bool = False, hands_every: int = 3, seed: int = 1,
                 trace: Callable[[str], None] | None = None, lexicon_for: Callable[[str], Any] | None = None,
                 fresh_log: bool = False) -> None:
        self.data_dir = Path(data_dir) if data_dir is not None else Path(tempfile.mkdtemp(prefix="companion-demo-"))
        self.store = open_store(self.data_dir, fresh_log=fresh_log)
        self.trace = trace or (lambda line: None)
        self.steps = plan(record, tileset, seed=seed, hands_every=hands_every)
        self.sim_time = sim_time
        sim_clock = (lambda last: SimClock(last.at_ms if last is not None else 0)) if sim_time else None
        session, self.clock = resume_or_start(self.store, names, control="tournament", challenge="single",
                                              tileset=tileset, seed=seed, lexicon_for=lexicon_for, clock=sim_clock)
        if self.store.notice:
            print(f"companion: {self.store.notice}", file=sys.stderr, flush=True)
        self.session = session
        self.resumed_at = session.last_ref
        grid = session.state.board.layout.rows
        self.world = World(tileset, grid, truth)
        done = session.last_ref
        if done >= 0:
            self.world.board = self.steps[min(done, len(self.steps) - 1)].board

    def table(self, hub: Any) -> Table:
        if self.sim_time:
            return Table(hub, self.world, self.world.analyser(), trace=self.trace, clock=lambda: self.world.seconds)
        return Table(hub, self.world, self.world.analyser(), trace=self.trace)

    def play(self, hub: Any, table: Table, *, pace_s: float = 0.0, stop: threading.Event | None = None,
             say: Callable[[str], None] | None = None, upto: int | None = None) -> None:
        """The plan's steps from where the log says the game is; ``upto``: only those before
        that step (the venue's demo plays many tables a few steps at a time)."""
        stop = stop or threading.Event()
        say = say or (lambda line: None)
        table.resume_pending()
        for step in self.steps[self.session.last_ref + 1:upto]:
            if stop.is_set():
                return
            self.trace(f"step {step.ref} begin")
            if pace_s and step.kind == "turn":
                stop.wait(pace_s)
            if self.sim_time:
                self.clock.set(step.at_ms)
            if step.kind in ("start", "turn"):
                self.world.board = step.board
                if step.hand:
                    self.world.hand_passes()
                    table.watch(2)  # the hand seen between presses: never judged
                player = hub.call(_pressing)
                if player is None:
                    continue
                verdict = table.handle(Press(player, self.clock(), step.ref))
                say(f"{step.what:<28} {_verdict_line(hub, verdict)}")
            elif step.kind == "withdraw":
                hub.call(lambda s, now, ref=step.ref: _ruled(s, now, ref))
                self.world.board = step.board
                say(f"{step.what:<28} {_verdict_line(hub, {'kind': 'ruling'})}")
            elif step.kind == "last":
                hub.call(lambda s, now, ref=step.ref: _last_stands(s, now, ref))
                say(f"{step.what:<28} {_verdict_line(hub, {'kind': 'end'})}")
            self.trace(f"step {step.ref} done")

    def summary(self, hub: Any) -> dict[str, Any]:
        return hub.call(summary)

    def close(self) -> None:
        self.store.close()


def _pressing(s: TableSession, now: int) -> int | None:
    """Who presses: before the start, the player before the first (their press starts the
    first player's clock); then the player whose clock runs."""
    if s.state.over or s.clocks is None:
        return None
    on = sorted(s.clocks.on_move())
    if not any(c.on_move is not None for c in s.clocks.clocks):
        return (s.state.to_move - 1) % len(s.state.players)
    return on[0] if on else None


def _ruled(s: TableSession, now: int, ref: int) -> None:
    s.ref = ref
    try:
        pending = s.state.pending
        if pending is not None:
            s.rule_challenge(now, "phony", (pending.player + 1) % len(s.state.players))
    finally:
        s.ref = None


def _last_stands(s: TableSession, now: int, ref: int) -> None:
    s.ref = ref
    try:
        if s.state.pending is not None and not s.state.over:
            s.act(now, classic.Accept(), by="admin")
    finally:
        s.ref = None


def _verdict_line(hub: Any, verdict: dict[str, Any]) -> str:
    doc = hub.call(lambda s, now: [(p.name, p.score) for p in s.state.players])
    scores = ", ".join(f"{n} {sc}" for n, sc in doc)
    kind = verdict.get("kind", "")
    extra = f" ({'; '.join(verdict.get('questions') or [])})" if verdict.get("questions") else ""
    return f"{kind:<10} {scores}{extra}"


def write_summary(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True), encoding="utf-8")
