"""The C heap keeps a reading's freed buffers for the next one (companion.pi.heap)."""

import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]

# Reads a photo three times in a fresh process; prints the page faults the last reading took.
_READ = """
import resource, sys
from pathlib import Path
import cv2
cv2.setNumThreads(1)
if sys.argv[1] == "keep":
    from companion.pi.heap import keep_freed_memory
    assert keep_freed_memory() and keep_freed_memory()
else:
    # read_board keeps freed memory itself: glibc's own behaviour is measured with that off,
    # its thresholds pinned at their starting values (128 KiB). glibc otherwise raises them
    # to the largest buffer freed so far, so whether a reading's buffers are mapped afresh
    # hangs on the order the reader happens to allocate them in (a buffer larger than any
    # freed before is mapped and unmapped again); pinned, every large buffer is.
    import ctypes, ctypes.util
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    assert libc.mallopt(-3, 128 * 1024) and libc.mallopt(-1, 128 * 1024)  # M_MMAP_THRESHOLD, M_TRIM_THRESHOLD
    import companion.pi.heap
    companion.pi.heap.keep_freed_memory = lambda: False
from companion.vision.reader import read_file
for _ in range(2):
    read_file(Path(sys.argv[2]))
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
read_file(Path(sys.argv[2]))
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(mode: str, photo: Path) -> int:
    out = subprocess.run([sys.executable, "-c", _READ, mode, str(photo)], capture_output=True, text=True, check=True,
                         cwd=ROOT, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    return int(out.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator is what companion.pi.heap sets")
def test_a_reading_reuses_the_memory_of_the_one_before(tmp_path):
    from companion.sim import render, scene

    photo = tmp_path / "board.jpg"
    cv2.imwrite(str(photo), render.render(scene.preset("mounted", np.random.default_rng(1)), 1).image)
    default, kept = _faults("default", photo), _faults("keep", photo)
    # glibc at its starting thresholds maps each large buffer afresh and gives it back when
    # freed: the pages are faulted in and zeroed again at every reading. Kept, the readings
    # before serve it, whatever order they were allocated in.
    assert kept < 0.2 * default, (default, kept)
