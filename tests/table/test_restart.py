"""A pulled plug at any moment loses nothing: the headless demo killed with SIGKILL at 100
random moments of a game and started again each time ends in the state of an uninterrupted
run, clocks included.

What it uses: ``companion demo --headless --truth-readings --sim-time`` in a subprocess with its
game log in a temporary folder. The camera is not what is tested here, so the frames carry the
board's truth instead of being read (tests/table/test_hands.py and bench/table.py run the
reader); time is simulated (each player thinks a scripted time), so two runs can be compared
to the millisecond and the 100 restarts take a minute or two, not hours. The downtime a real
restart costs the player on move is tested in tests/table/test_store.py.

The moments: for the i-th kill a step of the game is chosen in order (so the kills spread over
the whole game), then 0 to 3 more lines of the loop's trace (the press logged, the board
captured, the verdict logged, the step done) and 0 to 4 ms more; one kill in ten falls during
the start-up and the restore instead.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

KILLS = 100
SEED = 20240606


def _command(data: Path, summary: Path) -> list[str]:
    return [sys.executable, "-m", "companion", "demo", "--headless", "--truth-readings", "--sim-time", "--trace",
            "--pace", "0.05", "--data-dir", str(data), "--summary", str(summary)]


def _uninterrupted(tmp: Path) -> tuple[dict, float, int]:
    """The clean run's final state, how long it took to be ready, its last step."""
    t0 = time.monotonic()
    proc = subprocess.Popen(_command(tmp / "clean", tmp / "clean.json"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, bufsize=1)
    ready = None
    lines = []
    for line in proc.stdout:
        if ready is None and line.startswith("ready "):
            ready = time.monotonic() - t0
        lines.append(line)
    err = proc.stderr.read()
    proc.stdout.close()
    proc.stderr.close()
    assert proc.wait(timeout=120) == 0, err
    steps = [int(m) for m in re.findall(r"^trace step (\d+) begin", "".join(lines), re.M)]
    return json.loads((tmp / "clean.json").read_text()), ready or 0.0, max(steps)


def test_sigkill_at_100_random_moments_loses_nothing(tmp_path):
    clean, started_in, last_step = _uninterrupted(tmp_path)
    # The whole record played (Doug v Emely from ../shared: 27 events to its end; else the
    # short game the package ships).
    assert len(clean["history"]) >= 8
    rng = random.Random(SEED)
    data, out = tmp_path / "killed", tmp_path / "killed.json"
    kills = 0
    resumed_at: list[int] = []
    while kills < KILLS:
        proc = subprocess.Popen(_command(data, out), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                bufsize=1)
        try:
            if rng.random() < 0.1:
                # In the start-up or the restore: at a random moment, at the latest when ready.
                timer = threading.Timer(rng.uniform(0, started_in), lambda p=proc: p.poll() is None and p.send_signal(signal.SIGKILL))
                timer.start()
                for line in proc.stdout:
                    if line.startswith("ready "):
                        resumed_at.append(int(line.split()[1]))
                        break
                timer.cancel()
                if proc.poll() is not None or proc.returncode is not None:
                    kills += 1
                    proc.wait(timeout=60)
                    continue
            else:
                target = (kills * (last_step - 1)) // KILLS
                more = rng.randint(0, 3)
                seen_target = False
                seen = []
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
                kills += 1
            proc.wait(timeout=60)
            assert proc.returncode in (0, -signal.SIGKILL), proc.stderr.read()
            assert proc.returncode != 0, f"the game ended before the kills did ({kills} kills) {seen[:8]} {target}"
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
            proc.stderr.close()
    final = subprocess.run(_command(data, out), capture_output=True, text=True, timeout=120)
    assert final.returncode == 0, final.stderr
    got = json.loads(out.read_text())
    # Every kill resumed from the log: the restarts moved forward through the whole game.
    assert len(set(resumed_at)) > last_step // 2
    clocks_clean, clocks_got = clean.pop("clocks_ms"), got.pop("clocks_ms")
    assert got == clean  # board, scores, every move of the history, the GCG
    assert all(abs(a - b) <= 1000 for a, b in zip(clocks_clean, clocks_got)), (clocks_clean, clocks_got)
