"""The machine's clocks in whole milliseconds: the one place the companion reads them (the clock
engine itself is pure and is told the time)."""

from __future__ import annotations

import time


def monotonic_ms() -> int:
    """Never goes back; what the table's clocks and the buttons' time stamps count in."""
    return time.monotonic_ns() // 1_000_000


def wall_ms() -> int:
    """The calendar's time: what the game log stamps events with (it survives a restart)."""
    return time.time_ns() // 1_000_000
