"""From a clock press to the published verdict: the table loop on a demo game, one core.

The demo's record (the real game from ../shared when it is there, else the built-in one) at a
simulated table, through the real reader: before each press the position is rendered by the
synthetic camera (a mounted camera; not timed: at a table the camera takes those frames), then
the time is taken from the press to the moment the new state is in an open stream's queue
(reader on each frame until the stabiliser agrees, inference, rules, the game log's fsync'd
append, the page's document). OpenCV is held to one thread, as on a busy Pi.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from importlib import resources
from pathlib import Path

from bench import one_core
from companion.sim.demos import SHARED_GAME
from companion.core.gcg import decode_gcg, parse_gcg
from companion.rules.rescore import choose_tileset
from companion.table.table import Press
from companion.sim.tabledemo import Demo, _ruled
from companion.web.hub import Hub
from companion.sim.record import names_of


def _record():  # type: ignore[no-untyped-def]
    if SHARED_GAME.is_file():
        return "doug v emely (../shared)", parse_gcg(decode_gcg(SHARED_GAME.read_bytes(), "game"), "game")
    data = resources.files("companion").joinpath("data", "sample.gcg").read_bytes()
    return "built-in sample", parse_gcg(decode_gcg(data, "sample"), "sample")


def run() -> dict:
    one_core()  # its times are one core's, as bench.vision's are
    name, record = _record()
    tileset = choose_tileset(record).name
    times: list[float] = []
    kinds: list[str] = []
    with tempfile.TemporaryDirectory() as data:
        demo = Demo(record, tileset, names_of(record), data_dir=Path(data), truth=False, sim_time=True, hands_every=0)
        try:
            hub = Hub(demo.session, now_ms=demo.clock)
            sub = hub.subscribe()
            table = demo.table(hub)
            for step in demo.steps:
                demo.clock.set(step.at_ms)
                if step.kind == "start":
                    hub.call(lambda s, now: s.press((s.state.to_move - 1) % len(s.state.players), now))
                    continue
                if step.kind == "withdraw":  # the director's ruling, as the demo plays it
                    hub.call(lambda s, now, ref=step.ref: _ruled(s, now, ref))
                    demo.world.board = step.board
                    continue
                if step.kind != "turn":
                    continue
                demo.world.board = step.board
                # The camera's frames, not timed: one more than must agree, since the hand
                # tracker counts the first frame after the board changed as moving.
                frames = [demo.world.read() for _ in range(table.agree + 1)]
                demo.world._hand = frames
                player = hub.call(lambda s, now: sorted(s.clocks.on_move())[0])
                while not sub.queue.empty():
                    sub.queue.get_nowait()
                started = time.perf_counter()
                verdict = table.handle(Press(player, demo.clock(), step.ref))
                assert not sub.queue.empty()  # published
                times.append(time.perf_counter() - started)
                kinds.append(verdict["kind"])
        finally:
            demo.close()
    times.sort()
    median = statistics.median(times)
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return {
        "summary": f"press to published verdict: median {median * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms "
                   f"over {len(times)} presses ({name}, one core)",
        "game": name,
        "presses": len(times),
        "median_ms": round(median * 1000, 1),
        "p95_ms": round(p95 * 1000, 1),
        "max_ms": round(times[-1] * 1000, 1),
        "frames_per_press": 3,
        "verdicts": {k: kinds.count(k) for k in sorted(set(kinds))},
    }
