"""How the process's C heap treats the large buffers a board reading allocates and frees.

Reading a photo allocates and frees many arrays of a few hundred kilobytes to a few
megabytes (the rectified board, views warped through the grid, per-square blocks). glibc
serves each such buffer with a fresh ``mmap`` and returns it with ``munmap``, so every
reading faults in and zeroes the same pages again: about 4,500 page faults and 15-20 ms of
kernel time per 1504x1504 photo here. Keeping freed memory in the heap for the next buffer
removes both; the process's peak memory stays what it was (the same buffers, reused).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

# mallopt parameters (glibc's malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
# Buffers below this come from the heap (32 MiB: glibc's own ceiling for its adaptive
# threshold on 64-bit, far above any one buffer of a camera frame's reading).
MMAP_THRESHOLD = 32 * 1024 * 1024
# Free memory at the heap's top is given back to the system only past this.
TRIM_THRESHOLD = 128 * 1024 * 1024

_done = False


def keep_freed_memory() -> bool:
    """Have glibc keep freed buffers for reuse instead of unmapping them (once per process;
    a no-op returning False where the C library is not glibc)."""
    global _done
    if _done:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False  # musl and others: their allocator, their defaults
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    # A 32-bit glibc caps the mmap threshold lower: halve until it takes.
    threshold = MMAP_THRESHOLD
    while threshold >= 1024 * 1024 and not mallopt(_M_MMAP_THRESHOLD, threshold):
        threshold //= 2
    _done = bool(mallopt(_M_TRIM_THRESHOLD, max(TRIM_THRESHOLD, 2 * threshold)))
    return _done
