"""The benchmark's "one core": every thread pool held to one thread, even where numpy and OpenCV
were loaded before the benchmark (so the environment variable OpenBLAS reads at load came too late)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_one_core_pins_every_pool_loaded_before_the_benchmark() -> None:
    pytest.importorskip("threadpoolctl")
    script = (
        "import json, cv2, numpy\n"  # numpy's and OpenCV's OpenBLAS loaded before bench, unpinned
        "from threadpoolctl import threadpool_info\n"
        "before = {i['filepath']: i['num_threads'] for i in threadpool_info()}\n"
        "from bench import one_core\n"
        "pools = one_core()\n"
        "after = {i['filepath']: i['num_threads'] for i in threadpool_info()}\n"
        "print(json.dumps({'before': before, 'after': after, 'pools': pools, 'cv2': cv2.getNumThreads()}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**env, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout)
    assert got["after"] and set(got["after"].values()) == {1}, got
    assert got["cv2"] == 1
    assert ", 1 thread" in got["pools"]["square_network"], got["pools"]
    if (os.cpu_count() or 1) > 1:  # (on a machine of one core there was nothing to pin)
        assert max(got["before"].values()) > 1, got
