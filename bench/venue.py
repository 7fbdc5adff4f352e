"""The venue: 30 simulated tables publishing whole games through a real Mosquitto (passwords,
ACLs) on the loopback to ``companion venue`` in a process of its own.

- Tables: the headless demo (truth readings: no rendering, simulated game time), each in a thread
  of this process, each playing its recorded game a step every 0.5-1.5 s of real time, so that
  the 30 tables publish at once as a venue's would.
- Verdict to screen: for every verdict the tables log (a game-log ``entry`` after the start: a
  move, a pass, an exchange, a challenge's outcome, a correction), the time from the table's append (the log's wall clock) to
  the moment the venue process applied it to its document (its wall clock: one machine, one
  clock). The page polls that document each second, so a browser adds up to 1 s more.
- Memory: the broker's and the venue process's resident memory (VmRSS) at the end, with every
  game on the screen.

``COMPANION_BENCH_VENUE_PACE`` scales the pause between steps (default 1: 0.5-1.5 s).
``COMPANION_BENCH_VENUE_RENDER=1``: the full run, each table's camera rendering its board and the
real reader reading it (no pause: rendering and reading pace the tables; long on a small machine).
``COMPANION_BENCH_VENUE_STEPS=N``: each table plays only its game's first N steps.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import json
from pathlib import Path

TABLES = 30
EVENT = "bench-night"
ROOT = Path(__file__).resolve().parents[1]


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def run() -> dict:
    from companion.sim.venuedemo import Venue, recorded_games
    from companion.venue.broker import LocalBroker, rss_kib

    render = os.environ.get("COMPANION_BENCH_VENUE_RENDER", "") == "1"
    steps = int(os.environ.get("COMPANION_BENCH_VENUE_STEPS", "0")) or 10**6
    pace = float(os.environ.get("COMPANION_BENCH_VENUE_PACE", "0" if render else "1"))
    shared = ROOT.parent / "shared" / "games"
    records = recorded_games(shared if shared.is_dir() else None)
    with tempfile.TemporaryDirectory(prefix="companion-bench-venue-") as tmp:
        folder = Path(tmp)
        broker = LocalBroker(folder / "broker", EVENT, TABLES).start()
        (folder / "screen.pw").write_text(broker.passwords["screen"])
        screen = subprocess.Popen(
            [sys.executable, "-m", "companion", "venue", EVENT, "--broker", f"127.0.0.1:{broker.port}",
             "--password-file", str(folder / "screen.pw"), "--host", "127.0.0.1", "--port", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
        venue = None
        try:
            line = screen.stdout.readline() if screen.stdout else ""
            if "http://" not in line:
                raise RuntimeError(f"companion venue did not start: {line.strip()}")
            url = line.split("http://", 1)[1].split("/", 1)[0]
            base = f"http://{url}"
            venue = Venue([records[i % len(records)] for i in range(TABLES)], folder / "tables", EVENT,
                          lambda n: broker.config(f"table{n}"), truth=not render).start()
            started = time.monotonic()

            def play(t) -> None:  # type: ignore[no-untyped-def]
                rng = random.Random(t.number)
                for step in range(1, min(t.steps, steps) + 1):
                    t.play(step)
                    time.sleep(pace * rng.uniform(0.5, 1.5))

            threads = [threading.Thread(target=play, args=(t,)) for t in venue.tables]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            played_s = time.monotonic() - started
            if not venue.flush(60):
                raise RuntimeError("the tables' outboxes did not empty")
            want = {t.number: (t.demo.session.game_id, t.demo.store.last().seq) for t in venue.tables}
            end = time.monotonic() + 30
            while time.monotonic() < end:
                doc = _get(base + "/venue.json")
                have = {g["table"]: (g["id"], g["seq"]) for g in doc["games"]}
                if have == want:
                    break
                time.sleep(0.2)
            else:
                raise RuntimeError("the venue's document did not reach every table's last event")
            delays: list[int] = []
            complete = 0
            for t in venue.tables:
                gid, _ = want[t.number]
                detail = _get(f"{base}/table/{t.number}/{gid}.json")
                seqs = [e.seq for e in t.demo.store.events(gid)]
                complete += detail["seqs"] == seqs
                # A verdict: a judged turn (an entry other than the game's start, which is logged
                # before the tables' publishers start and would time the set-up, not the venue).
                verdicts = {e.seq for e in t.demo.store.events(gid)
                            if e.kind == "entry" and e.payload["entry"]["event"]["type"] != "started"}
                delays += [d for s, d in detail["delays_ms"].items() if int(s) in verdicts]
            delays.sort()
            p95 = delays[min(len(delays) - 1, int(round(0.95 * (len(delays) - 1))))]
            result = {
                "summary": (f"{TABLES} tables, {len(delays)} verdicts: verdict to screen median "
                            f"{statistics.median(delays):.0f} ms, p95 {p95} ms; broker {broker.rss_kib()} KiB, "
                            f"venue {rss_kib(screen.pid)} KiB"),
                "tables": TABLES,
                "games_complete_on_screen": complete,
                "verdicts": len(delays),
                "events": sum(len(t.demo.store.events()) for t in venue.tables),
                "verdict_to_screen_median_ms": statistics.median(delays),
                "verdict_to_screen_p95_ms": p95,
                "verdict_to_screen_max_ms": delays[-1],
                "broker_rss_kib": broker.rss_kib(),
                "venue_rss_kib": rss_kib(screen.pid),
                "tables_process_rss_kib": rss_kib(os.getpid()),
                "played_s": round(played_s, 1),
                "pace": pace,
                "steps_per_table": None if steps == 10**6 else steps,
                "readings": ("rendered frames read by the board reader" if render
                             else "truth (no rendering): the tables' cameras are not what is measured"),
            }
            return result
        finally:
            if venue is not None:
                venue.close()
            screen.terminate()
            try:
                screen.wait(10)
            except subprocess.TimeoutExpired:
                screen.kill()
            broker.stop()
