"""What a SQLite write-ahead log (``-wal``) holds, read from its bytes, without SQLite.

Why not ask SQLite: it silently ignores a WAL whose header is damaged and every frame after the
first one whose checksum fails, and the connection that closes last then checkpoints what it
kept into the database and deletes the WAL. A game log's recent moves would be gone without a
word. So the game log reads the WAL itself first (the format: https://sqlite.org/fileformat.html,
"The WAL file") and refuses to open a log whose WAL holds committed frames SQLite would drop.

A WAL is a 32-byte header and frames (a 24-byte header and one page each), each frame's
checksum running on from the one before. Frames of an older generation (before a checkpoint
restarted the WAL) carry other salts and are rightly ignored; so is a transaction that was being
written when the power went (no commit frame: the append had not returned).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

MAGIC_LE, MAGIC_BE = 0x377F0682, 0x377F0683
VERSION = 3007000
HEADER = 32
FRAME_HEADER = 24


@dataclass(frozen=True)
class WalState:
    frames: int  # frames in the file (whole ones)
    committed: int  # frames SQLite will use: up to the last valid commit frame
    dropped_commits: int  # commit frames of this generation SQLite would drop (damage)
    header_ok: bool

    @property
    def damaged(self) -> bool:
        """Committed frames SQLite would not see: a damaged header over frames, or a broken frame
        with commits of the same generation after it."""
        return (not self.header_ok and self.frames > 0) or self.dropped_commits > 0


def _checksum(data: bytes, big: bool, s0: int, s1: int) -> tuple[int, int]:
    words = struct.unpack(f"{'>' if big else '<'}{len(data) // 4}I", data)
    m = 0xFFFFFFFF
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & m
        s1 = (s1 + words[i + 1] + s0) & m
    return s0, s1


def read_wal(path: Path) -> WalState | None:
    """The state of the WAL at ``path``; None when there is none (absent or empty)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    if not data:
        return None
    if len(data) < HEADER:
        return WalState(0, 0, 0, False)
    magic, version, page_size, _seq, salt1, salt2, c1, c2 = struct.unpack(">8I", data[:HEADER])
    page_ok = 512 <= page_size <= 65536 and page_size & (page_size - 1) == 0
    frame_size = FRAME_HEADER + (page_size if page_ok else 4096)
    frames = (len(data) - HEADER) // frame_size
    big = magic == MAGIC_BE
    header_ok = magic in (MAGIC_LE, MAGIC_BE) and version == VERSION and page_ok
    if header_ok:
        header_ok = _checksum(data[:24], big, 0, 0) == (c1, c2)
    if not header_ok:
        return WalState(frames, 0, 0, False)
    s0, s1 = c1, c2
    committed = 0
    broken_at = frames
    for i in range(frames):
        at = HEADER + i * frame_size
        head = data[at:at + FRAME_HEADER]
        _page, size_after, f_salt1, f_salt2, f_c1, f_c2 = struct.unpack(">6I", head)
        if (f_salt1, f_salt2) != (salt1, salt2):
            broken_at = i
            break
        s0, s1 = _checksum(head[:8], big, s0, s1)
        s0, s1 = _checksum(data[at + FRAME_HEADER:at + frame_size], big, s0, s1)
        if (s0, s1) != (f_c1, f_c2):
            broken_at = i
            break
        if size_after:
            committed = i + 1
    # Past the break: a commit frame of this generation (the header's salts) is a transaction
    # that was committed (synced) and that SQLite would drop.
    dropped = 0
    for i in range(broken_at + 1, frames):
        at = HEADER + i * frame_size
        _page, size_after, f_salt1, f_salt2 = struct.unpack(">4I", data[at:at + 16])
        if (f_salt1, f_salt2) == (salt1, salt2) and size_after:
            dropped += 1
    return WalState(frames, committed, dropped, True)
