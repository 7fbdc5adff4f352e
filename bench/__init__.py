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

# "On one core": OpenBLAS reads this when numpy loads, which a benchmark module's imports (cv2)
# may do before companion's own package sets it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


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
