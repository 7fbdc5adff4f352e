"""The C inner loop (movegen.c), compiled on first use and loaded through ctypes.

The shared library is built by the system C compiler (``cc``, else ``gcc``) into
``<data dir>/engine/movegen-<hash of the source and the machine>.so`` and reused; Raspberry Pi
OS ships gcc. Without a compiler, or with ``COMPANION_ENGINE=python``, :func:`library` returns
None and the pure Python generator runs (the same moves, some fifty times slower).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path

import numpy as np

REC = 32  # int16 per move record (see movegen.c)

_LIB: list = []  # [library or None], once per process


def _source() -> bytes:
    return resources.files(__package__).joinpath("movegen.c").read_bytes()


def _compile(src: bytes, target: Path) -> bool:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        c_file = Path(tmp) / "movegen.c"
        c_file.write_bytes(src)
        so = Path(tmp) / "movegen.so"
        result = subprocess.run(
            [compiler, "-O2", "-shared", "-fPIC", "-o", str(so), str(c_file)],
            capture_output=True,
        )
        if result.returncode != 0 or not so.exists():
            return False
        os.replace(so, target)  # atomic: another process loads the old file or the new one
    return True


def library():
    """The loaded helper, or None when it cannot be had (then Python does the walking)."""
    if _LIB:
        return _LIB[0]
    lib = None
    if os.environ.get("COMPANION_ENGINE", "").lower() != "python":
        from companion.lexicon.store import data_dir

        src = _source()
        tag = hashlib.sha256(src + platform.machine().encode() + sys.version.encode()).hexdigest()[:16]
        for directory in (data_dir() / "engine", Path(tempfile.gettempdir()) / f"companion-{os.getuid()}"):
            target = directory / f"movegen-{tag}.so"
            try:
                if not target.exists() and not _compile(src, target):
                    continue
                lib = ctypes.CDLL(str(target))
                break
            except OSError:
                continue
        if lib is not None:
            i32 = np.ctypeslib.ndpointer(dtype=np.int32, flags="C_CONTIGUOUS")
            i16 = np.ctypeslib.ndpointer(dtype=np.int16, flags="C_CONTIGUOUS")
            c_int, c_long = ctypes.c_int, ctypes.c_long
            lib.generate.restype = c_long
            lib.generate.argtypes = [i32, i32, i32, i32, i32, c_int, c_int] + [i32] * 7 + [
                c_int, i32, c_int, i32, i32, c_int, i16, c_long, c_int,
            ]
    _LIB.append(lib)
    return lib


def reset() -> None:
    """Forget the loaded helper (tests switch between the two walkers)."""
    _LIB.clear()
