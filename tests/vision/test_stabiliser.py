"""The stabiliser: a board is emitted only when it holds still, never with a hand on it, and
each stable board once."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pytest

from companion.vision.reading import BoardReading, CellReading
from companion.vision.stabiliser import Stabiliser, board_key, capture_burst

N = 5  # small boards keep the tests readable; the stabiliser does not care about the size


@dataclass(frozen=True)
class Flags:
    present: bool = False
    motion: bool = False


CLEAR, HAND, MOVING = Flags(), Flags(present=True), Flags(motion=True)


def board(text: str = "", confidence: float = 0.9, low: tuple[int, int] | None = None, **changes: object) -> BoardReading:
    """A 5x5 reading from rows of text: letters are tiles, ``#`` a back, ``.`` empty; ``low`` a
    square read with confidence 0.3."""
    rows = (text.split("/") if text else []) + ["....."] * N
    cells = []
    for r in range(N):
        for c in range(N):
            ch = rows[r][c] if c < len(rows[r]) else "."
            conf = 0.3 if low == (r, c) else confidence
            if ch == ".":
                cells.append(CellReading(r, c, confidence=conf))
            elif ch == "#":
                cells.append(CellReading(r, c, "back", rgb=(200, 180, 150), set="ivory", confidence=conf))
            else:
                cells.append(CellReading(r, c, "tile", ch, 0, rgb=(230, 220, 200), set="ivory", confidence=conf))
    out = BoardReading(N, N, ((0, 0), (1, 0), (1, 1), (0, 1)), tuple(cells))
    for (r, c), value in changes.get("cells", {}).items():  # type: ignore[union-attr]
        i = r * N + c
        out = replace(out, cells=out.cells[:i] + (replace(out.cells[i], **value),) + out.cells[i + 1 :])
    return out


def feed(stab: Stabiliser, items: list[tuple[BoardReading, Flags]], start: float = 0.0, step: float = 0.2) -> list[BoardReading | None]:
    return [stab.push(start + i * step, reading, flags) for i, (reading, flags) in enumerate(items)]


A, B = board("CAT"), board("CAT/A/R")


def emitted(out: list[BoardReading | None]) -> list[int]:
    return [i for i, x in enumerate(out) if x is not None]


# ---------------------------------------------------------------------------------------------


def test_k_agreeing_readings_emit_once() -> None:
    stab = Stabiliser()
    out = feed(stab, [(A, CLEAR)] * 6)
    assert emitted(out) == [2]
    assert board_key(out[2]) == board_key(A)
    assert stab.emitted is out[2]


@pytest.mark.parametrize("k", [1, 2, 5])
def test_k_is_configurable(k: int) -> None:
    out = feed(Stabiliser(agree=k), [(A, CLEAR)] * 7)
    assert emitted(out) == [k - 1]


def test_agreement_ignores_confidence_but_not_the_other_fields() -> None:
    out = feed(Stabiliser(), [(A, CLEAR), (board("CAT", 0.6), CLEAR), (board("CAT", 0.99), CLEAR)])
    assert emitted(out) == [2]
    assert min(c.confidence for c in out[2].cells) == pytest.approx(0.6)  # as sure as the least sure frame
    for field, value in [("rotation", 90), ("set", "blue"), ("token", True), ("letter", "K")]:
        other = board("CAT", cells={(0, 1): {field: value}})
        out = feed(Stabiliser(), [(A, CLEAR), (other, CLEAR), (A, CLEAR), (A, CLEAR)])
        assert emitted(out) == [], field  # the odd reading breaks the run: A has only two in a row
    back = board("C#T")
    assert emitted(feed(Stabiliser(), [(A, CLEAR), (back, CLEAR), (A, CLEAR)])) == []


def test_readings_must_be_consecutive() -> None:
    out = feed(Stabiliser(), [(A, CLEAR), (A, CLEAR), (B, CLEAR), (A, CLEAR), (A, CLEAR), (A, CLEAR)])
    assert emitted(out) == [5]


def test_nothing_is_emitted_while_a_hand_or_motion_is_there() -> None:
    for flags in (HAND, MOVING, Flags(True, True)):
        out = feed(Stabiliser(), [(A, flags)] * 8)
        assert emitted(out) == []
        # one bad frame inside a run breaks it
        out = feed(Stabiliser(), [(A, CLEAR), (A, CLEAR), (A, flags), (A, CLEAR), (A, CLEAR), (A, CLEAR)])
        assert emitted(out) == [5]


def test_a_patch_of_unsure_squares_blocks_the_board_a_lone_one_does_not() -> None:
    # Something over part of the board leaves neighbouring squares unsure: no board.
    patch = {(r, c): {"confidence": 0.3} for r, c in ((2, 2), (2, 3), (3, 3))}
    covered = board("CAT", cells=patch)
    stab = Stabiliser()
    assert emitted(feed(stab, [(covered, CLEAR)] * 6)) == []
    assert stab.last.reason == "low confidence"
    assert emitted(feed(Stabiliser(min_confidence=0.25), [(covered, CLEAR)] * 3)) == [2]
    # One unsure square alone is emitted, with its low confidence: the table decides.
    doubtful = board("CAT", low=(3, 3))
    out = feed(Stabiliser(), [(doubtful, CLEAR)] * 3)
    assert emitted(out) == [2] and out[2].cell(3, 3).confidence == pytest.approx(0.3)


def test_each_stable_board_is_emitted_once_and_again_only_after_a_change() -> None:
    stab = Stabiliser()
    script = [(A, CLEAR)] * 4 + [(A, HAND)] * 3 + [(A, CLEAR)] * 4  # a hand passes, nothing is played
    script += [(B, MOVING)] + [(B, CLEAR)] * 4  # a move
    script += [(A, CLEAR)] * 4  # the move is taken back
    out = feed(stab, script)
    assert emitted(out) == [2, 14, 18]
    assert [board_key(out[i]) for i in emitted(out)] == [board_key(A), board_key(B), board_key(A)]


def test_a_board_misread_for_one_frame_does_not_count_as_a_change() -> None:
    glitch = board("CAT", cells={(4, 4): {"kind": "tile", "letter": "O", "rotation": 0}})
    out = feed(Stabiliser(), [(A, CLEAR)] * 3 + [(glitch, CLEAR)] + [(A, CLEAR)] * 3)
    assert emitted(out) == [2]


def test_reset_allows_the_same_board_again() -> None:
    stab = Stabiliser()
    assert emitted(feed(stab, [(A, CLEAR)] * 3)) == [2]
    stab.reset()
    assert emitted(feed(stab, [(A, CLEAR)] * 3, start=10)) == [2]


def test_time_must_not_run_backwards() -> None:
    stab = Stabiliser()
    stab.push(5.0, A, CLEAR)
    with pytest.raises(ValueError):
        stab.push(4.0, A, CLEAR)


def test_a_long_gap_between_frames_restarts_the_run() -> None:
    stab = Stabiliser(max_gap=1.0)
    assert stab.push(0.0, A, CLEAR) is None
    assert stab.push(0.5, A, CLEAR) is None
    assert stab.push(3.0, A, CLEAR) is None  # the camera stalled: what happened meanwhile is unknown
    assert stab.push(3.5, A, CLEAR) is None
    assert stab.push(4.0, A, CLEAR) is not None


def test_min_still_needs_the_run_to_last() -> None:
    stab = Stabiliser(agree=3, min_still=1.0)
    out = [stab.push(t, A, CLEAR) for t in (0.0, 0.1, 0.2, 0.5, 0.9, 1.05)]
    assert emitted(out) == [5]


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        Stabiliser(agree=0)
    with pytest.raises(ValueError):
        Stabiliser(min_confidence=1.5)


def test_no_hand_info_means_only_readings_are_judged() -> None:
    assert emitted(feed(Stabiliser(), [(A, None)] * 3)) == [2]  # type: ignore[list-item]


# ---------------------------------------------------------------------------------------------
# capture burst


class ListSource:
    def __init__(self, items: list[tuple[BoardReading, Flags]], clock: StepClock) -> None:
        self.items, self.clock, self.reads = list(items), clock, 0

    def read(self) -> object | None:
        if not self.items:
            return None
        self.reads += 1
        reading, flags = self.items.pop(0)
        return type("F", (), {"timestamp": self.clock.now, "reading": reading, "flags": flags})()


class StepClock:
    """A clock that moves on by ``step`` each time a frame is read (through the source)."""

    def __init__(self, step: float = 0.25) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        return self.now

    def tick(self) -> None:
        self.now += self.step


def analyse_with(clock: StepClock):
    def analyse(frame: object) -> tuple[BoardReading, Flags]:
        clock.tick()
        return frame.reading, frame.flags  # type: ignore[attr-defined]

    return analyse


def test_capture_burst_returns_the_first_stable_board() -> None:
    clock = StepClock()
    source = ListSource([(B, HAND), (B, MOVING), (A, CLEAR), (A, CLEAR), (A, CLEAR), (B, CLEAR)], clock)
    got = capture_burst(source, analyse_with(clock), timeout=5.0, clock=clock)
    assert got is not None and board_key(got) == board_key(A)
    assert source.reads == 5


def test_capture_burst_gives_up_at_the_timeout() -> None:
    clock = StepClock(step=0.25)
    source = ListSource([(A, HAND)] * 100, clock)
    assert capture_burst(source, analyse_with(clock), timeout=2.0, clock=clock) is None
    assert 8 <= source.reads <= 10  # 2 s at a frame each 0.25 s


def test_capture_burst_returns_none_when_the_source_ends() -> None:
    clock = StepClock()
    source = ListSource([(A, CLEAR), (A, CLEAR)], clock)
    assert capture_burst(source, analyse_with(clock), timeout=60.0, clock=clock) is None


def test_capture_burst_answers_even_when_the_board_did_not_change() -> None:
    """A pass: the board after the press is the one before it; the burst still answers."""
    clock = StepClock()
    stab = Stabiliser()
    feed(stab, [(A, CLEAR)] * 3)
    source = ListSource([(A, CLEAR)] * 3, clock)
    got = capture_burst(source, analyse_with(clock), clock=clock)
    assert got is not None and board_key(got) == board_key(A)


def test_capture_burst_with_k_one_takes_the_first_clean_frame() -> None:
    clock = StepClock()
    source = ListSource([(A, HAND), (B, CLEAR)], clock)
    got = capture_burst(source, analyse_with(clock), clock=clock, agree=1)
    assert got is not None and board_key(got) == board_key(B)


# ---------------------------------------------------------------------------------------------
# With the hand detector: a hand passing over a fixed board


def test_the_stabiliser_emits_nothing_while_a_drawn_hand_is_over_the_board() -> None:
    from companion.vision.hands import OCCLUDED, HandTracker, apply_occlusion
    from tests.vision.test_hands import SKINS, coverage, draw_arm, draw_board

    rng = np.random.default_rng(7)
    image, location = draw_board(rng, size=640, cell=32)
    truth = BoardReading(15, 15, tuple(map(tuple, location.corners)),
                         tuple(CellReading(r, c, confidence=0.95) for r in range(15) for c in range(15)))
    frames: list[tuple[np.ndarray, np.ndarray | None]] = [(image, None)] * 4
    for skin in ("very light", "medium", "very dark"):
        frame, mask = draw_arm(rng, image, location, SKINS[skin])
        frames += [(frame, mask)] * 3 + [(image, None)] * 4

    def fooled(under: np.ndarray) -> BoardReading:
        """A reader the hand fools: it reads a confident tile wherever the hand is."""
        cells = [CellReading(c.row, c.col, "tile", "H", 0, confidence=0.9) if under[c.row, c.col] else c for c in truth.cells]
        return replace(truth, cells=tuple(cells))

    tracker, stab = HandTracker(location), Stabiliser()
    emissions = []
    for t, (frame, mask) in enumerate(frames):
        noisy = np.clip(frame + np.random.default_rng(t).normal(0, 2, frame.shape), 0, 255).astype(np.uint8)
        hands = tracker.update(noisy)
        under = coverage(mask, location) > 0.1 if mask is not None else np.zeros((15, 15), bool)
        reading = apply_occlusion(fooled(under), hands)
        assert all(reading.cell(r, c).confidence < 0.5 for r, c in zip(*np.nonzero(under)))
        assert (hands.occlusion[under] >= OCCLUDED).all()
        out = stab.push(float(t), reading, hands)
        if out is not None:
            emissions.append(t)
        if mask is not None:
            assert out is None
    assert len(emissions) == 1  # the bare board, once: the passing hands changed nothing
    assert board_key(stab.emitted) == board_key(truth)
