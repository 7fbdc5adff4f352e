"""A pulled plug at any moment loses nothing, through the real reader: ``python -m bench restart``.

The headless demo (``companion demo --headless --sim-time``: the synthetic camera's rendered
photos read by the board reader, hands passing over the board every third turn) is killed with
SIGKILL at 100 moments of its game and started again each time on the same game log; its end
must equal an uninterrupted run's: the board, the scores, every move of the history, the GCG,
and the clocks within a second. The uninterrupted run's end is compared with the board's truth
(``--truth-readings``) too: the reader read the whole game right.

The same harness drives tests/table/test_restart.py: 100 kills with the truth, 20 with the
reader (the suite's time).

The moments: the i-th kill aims at a step of the game in order (so the kills spread over the
whole game), then 0 to 3 more lines of the loop's trace (the press logged, the board captured,
the verdict logged, the step done) and 0 to 4 ms more; one kill in ten falls during the start-up
and the restore instead.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SEED = 20240606
KILLS = 100


def command(data: Path, summary: Path, *, truth: bool) -> list[str]:
    return [sys.executable, "-m", "companion", "demo", "--headless", "--sim-time", "--trace",
            *(["--truth-readings", "--pace", "0.05"] if truth else []),
            "--data-dir", str(data), "--summary", str(summary)]


@dataclass
class Uninterrupted:
    summary: dict[str, Any]
    ready_s: float  # how long the start took, to the line "ready"
    last_step: int
    seconds: float


def uninterrupted(tmp: Path, *, truth: bool) -> Uninterrupted:
    name = "truth" if truth else "reader"
    t0 = time.monotonic()
    proc = subprocess.Popen(command(tmp / f"clean-{name}", tmp / f"clean-{name}.json", truth=truth),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
    ready = None
    lines = []
    assert proc.stdout is not None and proc.stderr is not None
    for line in proc.stdout:
        if ready is None and line.startswith("ready "):
            ready = time.monotonic() - t0
        lines.append(line)
    err = proc.stderr.read()
    proc.stdout.close()
    proc.stderr.close()
    if proc.wait(timeout=600) != 0:
        raise AssertionError(err)
    steps = [int(m) for m in re.findall(r"^trace step (\d+) begin", "".join(lines), re.M)]
    return Uninterrupted(json.loads((tmp / f"clean-{name}.json").read_text()), ready or 0.0, max(steps),
                         time.monotonic() - t0)


@dataclass
class Killed:
    summary: dict[str, Any]
    kills: int
    resumed_at: list[int] = field(default_factory=list)
    seconds: float = 0.0


def killed(tmp: Path, clean: Uninterrupted, kills: int, *, truth: bool, seed: int = SEED) -> Killed:
    """The game killed ``kills`` times and started again each time, then played to its end."""
    rng = random.Random(seed)
    name = "truth" if truth else "reader"
    data, out = tmp / f"killed-{name}", tmp / f"killed-{name}.json"
    cmd = command(data, out, truth=truth)
    done = 0
    resumed_at: list[int] = []
    t0 = time.monotonic()
    while done < kills:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        assert proc.stdout is not None and proc.stderr is not None
        seen: list[str] = []
        target = -1
        try:
            if rng.random() < 0.1:
                # In the start-up or the restore: at a random moment, at the latest when ready.
                timer = threading.Timer(rng.uniform(0, clean.ready_s),
                                        lambda p=proc: p.poll() is None and p.send_signal(signal.SIGKILL))
                timer.start()
                for line in proc.stdout:
                    if line.startswith("ready "):
                        resumed_at.append(int(line.split()[1]))
                        break
                timer.cancel()
                if proc.poll() is not None:
                    done += 1
                    proc.wait(timeout=60)
                    continue
            else:
                target = (done * (clean.last_step - 1)) // kills
                more = rng.randint(0, 3)
                seen_target = False
                for line in proc.stdout:
                    seen.append(line)
                    if line.startswith("ready "):
                        resumed_at.append(int(line.split()[1]))
                        if resumed_at[-1] > target:
                            # Already past the step aimed at (the earlier kills landed late):
                            # a kill at once, in the restore. (Waiting for more of the loop's
                            # lines could let the run reach the game's end near it.)
                            break
                    m = re.match(r"trace \w+ (\d+)", line)
                    if not seen_target and m and int(m.group(1)) >= target:
                        seen_target = True
                    elif seen_target and line.startswith("trace "):
                        more -= 1
                    if seen_target and more <= 0:
                        break
                time.sleep(rng.uniform(0, 0.004))
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
                done += 1
            proc.wait(timeout=60)
            if proc.returncode not in (0, -signal.SIGKILL):
                raise AssertionError(proc.stderr.read())
            if proc.returncode == 0:
                raise AssertionError(f"the game ended before the kills did ({done} kills) {seen[:8]} {target}")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
            proc.stderr.close()
    final = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if final.returncode != 0:
        raise AssertionError(final.stderr)
    return Killed(json.loads(out.read_text()), done, resumed_at, time.monotonic() - t0)


def differences(clean: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """What two ends of the game disagree on: every field but the clocks exactly, the clocks
    within a second."""
    a, b = dict(clean), dict(got)
    clocks_a, clocks_b = a.pop("clocks_ms"), b.pop("clocks_ms")
    out = [f"{k}: {a.get(k)!r} != {b.get(k)!r}" for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    if len(clocks_a) != len(clocks_b) or any(abs(x - y) > 1000 for x, y in zip(clocks_a, clocks_b)):
        out.append(f"clocks_ms: {clocks_a} != {clocks_b}")
    return out


def run() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        truth = uninterrupted(tmp_path, truth=True)
        clean = uninterrupted(tmp_path, truth=False)
        got = killed(tmp_path, clean, KILLS, truth=False)
    wrong = differences(clean.summary, got.summary)
    misread = differences(truth.summary, clean.summary)
    clocks = [abs(x - y) for x, y in zip(clean.summary["clocks_ms"], got.summary["clocks_ms"])]
    return {
        "summary": f"{got.kills} SIGKILLs through the reader: the end {'equals' if not wrong else 'differs from'} "
                   f"the uninterrupted run's ({clean.summary['scores']}, {len(clean.summary['history'])} moves; "
                   f"clocks {max(clocks, default=0)} ms apart; the uninterrupted run "
                   f"{'reads the whole game right' if not misread else 'misreads'}); "
                   f"{got.seconds:.0f} s for the killed runs, {clean.seconds:.0f} s uninterrupted",
        "kills": got.kills,
        "equal": not wrong,
        "differences": wrong,
        "uninterrupted_equals_truth": not misread,
        "clocks_apart_ms": clocks,
        "restarts_resumed_at": got.resumed_at,
        "uninterrupted_s": round(clean.seconds, 1),
        "killed_runs_s": round(got.seconds, 1),
    }
