"""Speed and accuracy figures: ``make bench`` (``python -m bench [NAME...]``).

A benchmark is a module ``bench/<name>.py`` with a function ``run() -> dict``; the runner
imports every such module (or the ones named), writes what ``run`` returns to
``bench/<name>.json`` (with the machine it ran on under ``"machine"``, unless the module
recorded it itself), and prints one line: the dict's ``"summary"`` if it has one, else its
top-level numbers.
"""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

# "On one core": OpenBLAS reads this when numpy loads, which a benchmark module's imports (cv2)
# may do before companion's own package sets it. (Too late when numpy was loaded before bench,
# as `python -c "import cv2; from bench.vision import timing"` does: one_core() pins it then.)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def one_core() -> dict[str, object]:
    """Every thread pool in the process held to one thread, whatever loaded first: OpenCV's, each
    BLAS library's (numpy's OpenBLAS and OpenCV's own; threadpoolctl finds them as they are
    loaded, so the environment variable read at load time is not needed) and the square
    network's runtime (its session is made anew with OpenCV's one thread). Without it a
    reading's CPU time exceeded its wall time: BLAS's threads ran beside it. Returns the pools
    as they are now, for the benchmark's record."""
    import cv2

    from companion.vision.model import load_square_model

    cv2.setNumThreads(1)
    pools: dict[str, object] = {"opencv": cv2.getNumThreads()}
    try:
        from threadpoolctl import threadpool_info, threadpool_limits
    except ImportError:  # (the dev extra holds it; without it only the environment variable holds)
        pools["blas"] = f"not pinned (threadpoolctl not installed); OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}"
    else:
        threadpool_limits(1)
        pools["blas"] = {Path(i["filepath"]).name: i["num_threads"] for i in threadpool_info()}
    load_square_model.cache_clear()  # (a session made before had OpenCV's threads of then)
    pools["square_network"] = load_square_model().net.threads
    return pools


def machine_info() -> dict[str, object]:
    """What the figures depend on, so that numbers from a Pi and a laptop are not confused."""
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "machine": platform.machine(),
        "system": platform.system(),
        "cpu_count": os.cpu_count(),
        "executable": sys.executable,
    }
