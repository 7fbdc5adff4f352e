"""A board is accepted only when it holds still: readings over a stream of frames.

One frame can catch a hand halfway, a tile in the air, a square misread in glare. The table
takes a board only from the :class:`Stabiliser`: it emits a reading when ``agree`` readings in
a row say the same of every square (kind, letter, rotation, set, token; confidence is not
compared), none of those frames had a hand over the board or motion on it, and none of them
has a patch of neighbouring squares believed less than ``min_confidence`` (``UNSURE_PATCH``:
what the hand detector may miss still leaves the squares under it unsure). It never emits a board with a hand on it, and it
emits each stable board once: the next emission needs a board that differs from the last one
emitted and has settled in its turn.

Pure logic over values: the caller gives each reading its timestamp (from the source's
monotonic clock, or a fake one in tests); nothing here reads a clock except
:func:`capture_burst`, whose clock is injected too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from typing import Protocol

from companion.vision.reading import BoardReading

AGREE = 3  # readings in a row that must agree before a board is emitted
MIN_CONFIDENCE = 0.5  # a square believed less than this is unsure
# Neighbouring unsure squares (8-connected) that make a frame unfit: something lies over that
# part of the board (a hand, an arm, a sleeve covers several squares at once). A lone unsure
# square is not that: it is emitted with its low confidence, and the table asks about it if it
# matters (a new tile) or keeps what it has accepted there.
UNSURE_PATCH = 3


class Disturbance(Protocol):
    """What the hand detector says of a frame (:class:`companion.vision.hands.Hands` is one)."""

    present: bool  # a hand, arm or anything else over the board
    motion: bool  # the board moved or changed since the frame before


class _Source(Protocol):
    def read(self) -> object | None: ...


def largest_unsure_patch(reading: BoardReading, min_confidence: float = MIN_CONFIDENCE) -> int:
    """The number of squares in the largest 8-connected group of squares believed less than
    ``min_confidence``."""
    unsure = {(c.row, c.col) for c in reading.cells if c.confidence < min_confidence}
    largest = 0
    while unsure:
        stack = [unsure.pop()]
        size = 0
        while stack:
            r, c = stack.pop()
            size += 1
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    if (r + dr, c + dc) in unsure:
                        unsure.discard((r + dr, c + dc))
                        stack.append((r + dr, c + dc))
        largest = max(largest, size)
    return largest


def board_key(reading: BoardReading) -> Hashable:
    """What two readings must share to agree: every square's kind, letter, rotation, set and
    token, in order. Confidence, colour and the reader's diagnostics are left out."""
    return (reading.rows, reading.cols) + tuple((c.kind, c.letter, c.rotation, c.set, c.token) for c in reading.cells)


@dataclass(frozen=True)
class Rejection:
    """Why the last pushed reading did not count towards a stable board (for logs and tests)."""

    reason: str  # "hand", "motion", "low confidence", "gap", "changed" or "" when it counted


class Stabiliser:
    """Emits a reading once ``agree`` clean, consecutive readings agree on every square.

    ``max_gap``: seconds between two readings beyond which the run starts again (the camera
    stalled; what happened in between is unknown). ``min_still``: seconds the agreeing run must
    span, on top of the count, for cameras with a high frame rate."""

    def __init__(
        self,
        agree: int = AGREE,
        min_confidence: float = MIN_CONFIDENCE,
        *,
        max_gap: float | None = None,
        min_still: float = 0.0,
    ) -> None:
        if agree < 1:
            raise ValueError(f"agree must be at least 1, not {agree}")
        if not 0.0 <= min_confidence <= 1.0:
            raise ValueError(f"min_confidence {min_confidence} outside 0..1")
        self.agree = int(agree)
        self.min_confidence = float(min_confidence)
        self.max_gap = max_gap
        self.min_still = float(min_still)
        self._run: list[tuple[float, BoardReading]] = []
        self._run_key: Hashable | None = None
        self._emitted_key: Hashable | None = None
        self._emitted: BoardReading | None = None
        self._last_time: float | None = None
        self.last = Rejection("")

    @property
    def emitted(self) -> BoardReading | None:
        """The last board emitted: what the table believes lies on the table."""
        return self._emitted

    @property
    def settled(self) -> bool:
        """The current run has agreed long enough (whether or not it was new)."""
        return self._run_key is not None and self._enough()

    def reset(self) -> None:
        """Forget the run and the last emission: the next stable board is emitted even if it is
        the same as before (a new game, a moved camera)."""
        self._run, self._run_key, self._emitted_key, self._emitted, self._last_time = [], None, None, None, None
        self.last = Rejection("")

    def _break(self, reason: str) -> None:
        self._run, self._run_key = [], None
        self.last = Rejection(reason)

    def _enough(self) -> bool:
        return len(self._run) >= self.agree and self._run[-1][0] - self._run[0][0] >= self.min_still

    def push(self, timestamp: float, reading: BoardReading, hands: Disturbance | None = None) -> BoardReading | None:
        """Takes one reading; returns a board when this reading makes a new board stable."""
        if self._last_time is not None and timestamp < self._last_time:
            raise ValueError(f"timestamp {timestamp} is before the previous one {self._last_time}")
        gap = self._last_time is not None and self.max_gap is not None and timestamp - self._last_time > self.max_gap
        self._last_time = timestamp
        if gap:
            self._run, self._run_key = [], None
        if hands is not None and hands.present:
            self._break("hand")
            return None
        if hands is not None and hands.motion:
            self._break("motion")
            return None
        if largest_unsure_patch(reading, self.min_confidence) >= UNSURE_PATCH:
            self._break("low confidence")
            return None
        key = board_key(reading)
        if key != self._run_key:
            self._run, self._run_key = [], key
            self.last = Rejection("gap" if gap else "changed")
        else:
            self.last = Rejection("")
        self._run.append((timestamp, reading))
        if len(self._run) > self.agree and self._run[-1][0] - self._run[1][0] >= self.min_still:
            self._run.pop(0)  # keep the run as short as the rules allow: its oldest reading is not needed
        if not self._enough() or key == self._emitted_key:
            return None
        board = _merge(self._run)
        self._emitted_key, self._emitted = key, board
        return board


def _merge(run: list[tuple[float, BoardReading]]) -> BoardReading:
    """The run's last reading with each square's confidence the lowest the run gave it: the
    board is as sure as its least sure frame."""
    last = run[-1][1]
    cells = tuple(
        replace(cell, confidence=min(r.cells[i].confidence for _, r in run)) for i, cell in enumerate(last.cells)
    )
    extra = dict(last.extra)
    extra.update({"frames": len(run), "since": run[0][0], "until": run[-1][0]})
    return replace(last, cells=cells, extra=extra)


def capture_burst(
    source: _Source,
    analyse: Callable[[object], tuple[BoardReading, Disturbance | None]],
    *,
    timeout: float = 5.0,
    clock: Callable[[], float] = time.monotonic,
    agree: int = AGREE,
    min_confidence: float = MIN_CONFIDENCE,
) -> BoardReading | None:
    """After a clock press: read frames from ``source`` until ``agree`` of them agree on a
    clean board, and return it; None when ``timeout`` seconds pass first or the source ends.

    ``analyse`` turns a frame (what ``source.read()`` returned) into its reading, occlusion
    applied, and its hand report. The board returned may be the same as before the press (a
    pass, or a player who pressed too early and lifted nothing): a fresh stabiliser is used, so
    that the burst answers for the board as it lies now."""
    stabiliser = Stabiliser(agree, min_confidence)
    deadline = clock() + timeout
    while clock() <= deadline:
        frame = source.read()
        if frame is None:
            return None
        reading, hands = analyse(frame)
        stamp = getattr(frame, "timestamp", None)
        board = stabiliser.push(clock() if stamp is None else stamp, reading, hands)
        if board is not None:
            return board
    return None
