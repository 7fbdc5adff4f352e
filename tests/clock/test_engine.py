"""The clock engine, every mode, with time given as plain numbers of milliseconds."""

from __future__ import annotations

import pytest

from companion.clock.engine import (
    MINUTE_MS,
    Clock,
    ClockGroup,
    Corrected,
    FlagFell,
    Ignored,
    Lap,
    Lockout,
    LostOnTime,
    Overtime,
    Paused,
    Resumed,
    Stage,
    Started,
    Stopwatch,
    Switched,
    TimeControl,
    format_ms,
    overtime_penalty,
    scrabble,
    sudden_death,
)

S = 1000
M = MINUTE_MS


def kinds(events):
    return [type(e).__name__ for e in events]


def started(control, sides=2, at=0):
    """A clock whose side 0 is on move from ``at`` (side 1 pressed to start it)."""
    clock = Clock(control, sides)
    assert clock.press(sides - 1, at) == [Started(0, at)]
    return clock


# --- sudden death ------------------------------------------------------------------------------


def test_sudden_death_counts_down_the_side_on_move_only():
    clock = started(sudden_death(5))
    assert clock.remaining_ms(0, 90 * S) == 5 * M - 90 * S
    assert clock.remaining_ms(1, 90 * S) == 5 * M
    [switch] = clock.press(0, 90 * S)
    assert switch == Switched(0, 1, 90 * S, move=1, used_ms=90 * S, remaining_ms=5 * M - 90 * S, stage=0)
    assert clock.remaining_ms(0, 100 * S) == 5 * M - 90 * S
    assert clock.remaining_ms(1, 100 * S) == 5 * M - 10 * S
    assert (clock.moves(0), clock.moves(1)) == (1, 0)


def test_sudden_death_flag_falls_at_the_exact_millisecond_and_the_game_is_lost():
    clock = started(sudden_death(1), at=1000)
    assert clock.poll(1000 + M - 1) == []
    assert clock.remaining_ms(0, 1000 + M - 1) == 1
    # Looked at late: the fall is dated when it happened, and the face stops at 0:00.
    assert clock.poll(1000 + M + 5000) == [FlagFell(0, 1000 + M), LostOnTime(0, 1000 + M)]
    assert clock.over and clock.loser == 0
    assert clock.remaining_ms(0, 1000 + M + 9000) == 0


def test_a_press_after_the_flag_fell_is_too_late():
    clock = started(sudden_death(1))
    events = clock.press(0, M + 1)
    assert kinds(events) == ["FlagFell", "LostOnTime", "Ignored"]
    assert clock.moves(0) == 0


def test_a_press_at_exactly_zero_is_too_late_and_one_ms_before_is_in_time():
    early = started(sudden_death(1))
    assert kinds(early.press(0, M - 1)) == ["Switched"]
    late = started(sudden_death(1))
    assert kinds(late.press(0, M)) == ["FlagFell", "LostOnTime", "Ignored"]


def test_the_side_not_on_move_and_presses_before_the_start():
    clock = Clock(sudden_death(5), 3)
    assert clock.remaining_ms(0, 10 * S) == 5 * M  # nothing runs before the start
    assert clock.press(0, 10 * S) == [Started(1, 10 * S)]  # player 0 starts player 1's clock
    assert clock.press(2, 11 * S) == [Ignored(2, 11 * S, "not on move")]
    assert kinds(clock.press(1, 12 * S)) == ["Switched"]
    assert clock.on_move == 2
    assert kinds(clock.press(2, 13 * S)) == ["Switched"]
    assert clock.on_move == 0  # three sides go round


def test_time_must_not_run_backwards():
    clock = started(sudden_death(5), at=100)
    with pytest.raises(ValueError, match="backwards"):
        clock.press(0, 99)


# --- Fischer, Bronstein, simple delay -----------------------------------------------------------


def test_fischer_adds_the_increment_after_each_move():
    clock = started(TimeControl((Stage(3 * M, increment_ms=2 * S),)))
    [sw] = clock.press(0, 10 * S)
    assert sw.remaining_ms == 3 * M - 10 * S + 2 * S
    # A quick move gains time.
    clock.press(1, 10 * S + 500)
    assert clock.remaining_ms(1, 11 * S) == 3 * M - 500 + 2 * S


def test_bronstein_gives_back_the_time_used_up_to_the_delay():
    clock = started(TimeControl((Stage(3 * M, bronstein_ms=5 * S),)))
    [sw] = clock.press(0, 3 * S)  # 3 s used, 3 s back: no loss, never a gain
    assert sw.remaining_ms == 3 * M
    [sw] = clock.press(1, 3 * S + 12 * S)  # 12 s used, 5 back
    assert sw.remaining_ms == 3 * M - 7 * S


def test_simple_delay_waits_before_counting_down():
    clock = started(TimeControl((Stage(M, delay_ms=5 * S),)))
    assert clock.remaining_ms(0, 4 * S) == M
    assert clock.remaining_ms(0, 7 * S) == M - 2 * S
    [sw] = clock.press(0, 7 * S)
    assert sw.remaining_ms == M - 2 * S and sw.used_ms == 7 * S
    # Each turn gets its own delay.
    assert clock.remaining_ms(1, 7 * S + 5 * S) == M
    # The flag falls delay + remaining after the turn began.
    events = clock.poll(7 * S + 5 * S + M)
    assert events == [FlagFell(1, 7 * S + 5 * S + M), LostOnTime(1, 7 * S + 5 * S + M)]


def test_a_pause_inside_a_simple_delay_does_not_give_the_delay_twice():
    clock = started(TimeControl((Stage(M, delay_ms=5 * S),)))
    clock.pause(3 * S)
    clock.resume(100 * S)
    assert clock.remaining_ms(0, 100 * S + 2 * S) == M
    assert clock.remaining_ms(0, 100 * S + 4 * S) == M - 2 * S


def test_a_stage_has_one_bonus():
    with pytest.raises(ValueError, match="one of"):
        Stage(M, increment_ms=1, delay_ms=1)


# --- multi-stage ------------------------------------------------------------------------------


def classical():
    """40 moves in 90 minutes, then 30 minutes with 30 s a move."""
    return TimeControl((Stage(90 * M, moves=40), Stage(30 * M, increment_ms=30 * S)))


def test_multi_stage_adds_the_next_stage_after_the_40th_move():
    clock = started(classical())
    t = 0
    for move in range(1, 41):
        t += 60 * S
        [sw] = clock.press(0, t)
        t += 1 * S
        clock.press(1, t)
        if move < 40:
            assert sw.stage == 0 and sw.remaining_ms == 90 * M - move * 60 * S
    # After move 40: 90 - 40 = 50 minutes left, + 30 minutes; no increment yet (stage 1's moves).
    assert sw == Switched(0, 1, 40 * 61 * S - S, 40, 60 * S, 50 * M + 30 * M, 1)
    assert clock.stage(0) == 1 and clock.moves(0) == 40
    [sw] = clock.press(0, t + 10 * S)
    assert sw.remaining_ms == 80 * M - 10 * S + 30 * S


def test_multi_stage_flag_in_the_first_stage_loses():
    clock = started(classical())
    assert kinds(clock.poll(90 * M)) == ["FlagFell", "LostOnTime"]


def test_stages_must_end_with_one_for_the_rest_of_the_game():
    with pytest.raises(ValueError):
        TimeControl((Stage(M, moves=40),))
    with pytest.raises(ValueError):
        TimeControl((Stage(M), Stage(M)))


# --- Scrabble overtime -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "face, points",
    [(0, 0), (-1, 10), (-1 * S, 10), (-60 * S, 10), (-60 * S - 1, 20), (-61 * S, 20), (-10 * M + 1, 100)],
)
def test_overtime_penalty_per_started_minute(face, points):
    assert overtime_penalty(-face, 10) == points


def test_overtime_penalties_at_0_00_minus_0_01_and_minus_1_01_are_0_10_and_20():
    control = scrabble(minutes=25, points_per_minute=10, cap_minutes=10)
    for ran_over_ms, points in [(0, 0), (1 * S, 10), (61 * S, 20)]:
        clock = started(control)
        at = 25 * M + ran_over_ms
        events = clock.press(0, at)
        assert clock.remaining_ms(0, at) == -ran_over_ms
        assert format_ms(clock.remaining_ms(0, at)) == {0: "0:00", 1000: "-0:01", 61000: "-1:01"}[ran_over_ms]
        assert clock.penalty(0, at + 5 * M) == points  # the penalty stays with the move made
        # The flag falls at 0:00 itself; the time goes on below zero and the move counts.
        assert kinds(events) == ["FlagFell", "Switched"]


def test_overtime_points_per_minute_are_configurable():
    clock = started(scrabble(minutes=1, points_per_minute=5))
    clock.press(0, M + 2 * M + 1)
    assert clock.penalty(0, 4 * M) == 15


def test_overtime_runs_below_zero_until_the_cap_then_the_side_loses():
    clock = started(scrabble(minutes=25, cap_minutes=10))
    assert clock.poll(25 * M) == [FlagFell(0, 25 * M)]
    assert not clock.over
    assert clock.remaining_ms(0, 30 * M) == -5 * M
    assert clock.poll(35 * M - 1) == []
    assert clock.poll(36 * M) == [LostOnTime(0, 35 * M)]
    assert clock.over and clock.loser == 0
    assert clock.remaining_ms(0, 40 * M) == -10 * M
    assert clock.penalty(0, 40 * M) == 100
    assert kinds(clock.press(0, 40 * M)) == ["Ignored"]


def test_an_increment_does_not_buy_back_a_started_overtime_minute():
    control = TimeControl((Stage(M, increment_ms=30 * S),), Overtime(10, 10 * M))
    clock = started(control)
    clock.press(0, M + 5 * S)  # -0:05, then +30 s
    assert clock.remaining_ms(0, M + 5 * S) == 25 * S
    assert clock.penalty(0, M + 5 * S) == 10


# --- pause, correction, counter ------------------------------------------------------------------


def test_pause_and_resume_stop_the_time_and_presses_while_paused_are_ignored():
    clock = started(sudden_death(5))
    assert clock.pause(10 * S) == [Paused(10 * S)]
    assert clock.remaining_ms(0, 500 * S) == 5 * M - 10 * S
    assert clock.press(0, 500 * S) == [Ignored(0, 500 * S, "the clock is paused")]
    assert clock.poll(10 * M) == []  # no flag while paused
    assert clock.resume(10 * M) == [Resumed(10 * M)]
    [sw] = clock.press(0, 10 * M + 5 * S)
    assert sw.used_ms == 15 * S


def test_a_correction_records_who_and_why_and_moves_only_the_time():
    clock = started(TimeControl((Stage(5 * M, bronstein_ms=10 * S),)))
    [c] = clock.correct(0, 30 * S, "TD Anna", "clock started late", remaining_ms=4 * M)
    assert c == Corrected(0, 30 * S, "TD Anna", "clock started late", 5 * M - 30 * S, 4 * M, 0, 0)
    assert clock.corrections == [c]
    assert clock.remaining_ms(0, 40 * S) == 4 * M - 10 * S
    [sw] = clock.press(0, 40 * S)  # 40 s used in the turn: the Bronstein give-back still 10 s
    assert sw.remaining_ms == 4 * M - 10 * S + 10 * S
    with pytest.raises(ValueError):
        clock.correct(1, 41 * S, "", "no name", remaining_ms=M)


def test_a_correction_of_the_move_count_moves_the_stage():
    clock = started(classical())
    clock.correct(0, S, "TD", "scoresheet shows 40 moves", moves=40)
    assert clock.moves(0) == 40 and clock.stage(0) == 1


def test_a_correction_can_lift_a_loss_on_time_and_leaves_the_clock_paused():
    clock = started(sudden_death(1))
    clock.poll(2 * M)
    assert clock.over
    clock.correct(0, 2 * M, "TD", "wrong clock pressed by the arbiter", remaining_ms=30 * S)
    assert not clock.over and clock.paused
    assert clock.remaining_ms(0, 3 * M) == 30 * S
    clock.resume(3 * M)
    assert clock.remaining_ms(0, 3 * M + 10 * S) == 20 * S


# --- stopwatch, groups, lockout -----------------------------------------------------------------


def test_the_dungeon_stopwatch_counts_up_with_laps_and_pauses():
    sw = Stopwatch()
    assert sw.press(0, 1000) == [Started(0, 1000)]
    assert sw.press(0, 31_000) == [Lap(0, 31_000, 1, 30_000, 30_000)]
    sw.pause(41_000)
    assert sw.elapsed_ms(99_000) == 40_000
    sw.resume(100_000)
    assert sw.press(0, 105_000) == [Lap(0, 105_000, 2, 15_000, 45_000)]


def test_scrabble_house_runs_two_clocks_of_two_sides():
    group = ClockGroup.of(sudden_death(10), players=4, boards=2)
    # The opponents of those who play first start both clocks: 1 starts 0, 3 starts 2.
    assert group.press(1, 0) == [Started(0, 0)]
    assert group.press(3, 5) == [Started(2, 5)]
    assert group.on_move() == {0, 2}
    [sw] = group.press(2, 20 * S)
    assert (sw.side, sw.next_side) == (2, 3)
    assert group.on_move() == {0, 3}
    assert group.remaining_ms(0, 20 * S) == 10 * M - 20 * S
    assert group.remaining_ms(2, 30 * S) == 10 * M - 20 * S + 5
    assert group.toggle_pause(30 * S) == [Paused(30 * S)]
    assert group.paused
    assert group.toggle_pause(40 * S) == [Resumed(40 * S)]
    # Player 0 runs out: the team loses, and the other board's clock stops too.
    events = group.poll(10 * M + 10 * S)
    assert events == [FlagFell(0, 10 * M + 10 * S), LostOnTime(0, 10 * M + 10 * S)]
    assert group.over
    frozen = group.remaining_ms(3, 11 * M)
    assert group.remaining_ms(3, 20 * M) == frozen
    assert kinds(group.press(3, 20 * M)) == ["Ignored"]
    assert group.toggle_pause(21 * M) == []


def test_a_group_numbers_the_second_clocks_flag_by_player():
    group = ClockGroup.of(scrabble(minutes=1), players=4, boards=2)
    group.press(0, 0)
    group.press(2, 0)
    group.press(1, 1)
    events = group.poll(M + 2)
    assert FlagFell(3, M) in events and FlagFell(0, M + 1) in events


def test_players_must_share_boards_evenly():
    with pytest.raises(ValueError):
        ClockGroup.of(sudden_death(1), players=3, boards=2)


def test_lockout_makes_edges_within_the_window_one_press():
    lock = Lockout(150)
    assert lock.accept("player1", 1000)
    assert not lock.accept("player1", 1001)
    assert not lock.accept("player1", 1100)
    assert not lock.accept("player1", 1249)  # still chattering: the window runs from the last edge
    assert lock.accept("player2", 1249)  # other buttons are their own
    assert lock.accept("player1", 1399)


def test_format_ms():
    assert [format_ms(x) for x in (25 * M, 7 * S + 999, 0, -1, -S, -61 * S, 90 * M)] == [
        "25:00", "0:07", "0:00", "-0:00", "-0:01", "-1:01", "1:30:00",
    ]
