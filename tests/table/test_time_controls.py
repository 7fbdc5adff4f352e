"""Every time control the clock engine has, at the classic table: the page's presets and any
control of the configuration file (stages by moves, increment, Bronstein, delay, overtime at
any rate), each behaving as the engine says once a move is made."""

from __future__ import annotations

import pytest

from companion.clock.engine import MINUTE_MS
from companion.table.classic import ClassicSession
from companion.table.games import classic_control
from companion.table.session import PRESETS, ActionError, control_spec, time_control

WORDS = frozenset({"HOUSE", "BOAT"})


def _after_one_move(control, think_ms: int) -> tuple[int, ClassicSession]:
    """The mover's remaining time after a move of ``think_ms``."""
    s = ClassicSession(["Ann", "Bob"], control=control, seed=7, lexicon_for=lambda ts: WORDS, now_ms=0)
    s.resume(0)
    mover = s.state.to_move
    s.play(think_ms, "8D", "HOUSE")
    return s.clocks.remaining_ms(mover, think_ms), s


@pytest.mark.parametrize("name", [k for k, (_, c) in PRESETS.items() if c is not None])
def test_every_preset_plays_and_round_trips_through_the_log_form(name):
    label, control = PRESETS[name]
    assert time_control(control_spec(control))[1] == control
    left, s = _after_one_move(name, 4_000)
    assert s.control_label == label
    first = control.stages[0]
    expected = first.time_ms - 4_000 + first.increment_ms + min(first.bronstein_ms, 4_000) \
        + min(first.delay_ms, 4_000)
    assert left == expected


def test_stages_by_moves_add_the_next_stage_after_them():
    spec = {"stages": [{"minutes": 1, "moves": 1}, {"minutes": 2, "increment_seconds": 5}], "overtime": False}
    label, _ = time_control(spec)
    assert label == "1 min for 1 moves, then 2 min + 5 s a move"
    left, _ = _after_one_move(spec, 10_000)
    assert left == MINUTE_MS - 10_000 + 2 * MINUTE_MS


def test_overtime_at_any_rate_and_bad_controls_are_one_line():
    label, control = time_control({"stages": [{"minutes": 20}], "overtime": {"points_per_minute": 5, "cap_minutes": 3}})
    assert control.overtime.points_per_minute == 5 and control.overtime.cap_ms == 3 * MINUTE_MS
    assert label == "20 min, overtime 5 points a minute up to 3 min"
    for bad in ({"stages": []}, {"stages": [{"minutes": 10, "moves": 5}]},
                {"stages": [{"minutes": 10, "increment_seconds": 2, "delay_seconds": 2}]},
                {"stages": [{"minutes": 10}], "overtime": "yes"}):
        with pytest.raises(ActionError) as e:
            time_control(bad)
        assert str(e.value).startswith("time control:") and "\n" not in str(e.value)


def test_the_configuration_file_s_control_is_played_as_written(tmp_path):
    from companion.table.config import load_config

    path = tmp_path / "config.toml"
    path.write_text("[clock]\novertime = false\nstages = [{ minutes = 90, moves = 40 }, "
                    "{ minutes = 30, bronstein_seconds = 30 }]\n")
    cfg = load_config(path)
    spec = classic_control(cfg)
    assert time_control(spec)[1] == cfg.control


def test_a_changed_configuration_is_for_the_next_game_and_said(tmp_path):
    from companion.table.config import load_config
    from companion.table.games import Classic, configuration_note, document, new_game
    from companion.table.store import open_store

    path = tmp_path / "config.toml"
    path.write_text('[game]\nchallenge = "double"\n[clock]\nstages = [{ minutes = 25 }]\n')
    store = open_store(tmp_path)
    session = Classic.from_config(load_config(path), store)(0)
    assert configuration_note(session, load_config(path)) is None
    # The file changed while the game was kept: it goes on, and what the file asks is said.
    path.write_text('[game]\nchallenge = "single"\n[clock]\novertime = false\nstages = [{ minutes = 90, moves = 40 }, '
                    '{ minutes = 30, delay_seconds = 5 }]\n')
    cfg = load_config(path)
    note = configuration_note(session, cfg)
    assert note["differs"] == ["control", "challenge"]
    assert note["settings"]["control"] == "90 min for 40 moves, then 30 min, delay 5 s"
    session.configured = note
    doc = document(session, 0)
    assert doc["configured"]["settings"]["challenge"] == "single" and doc["clock"]["control"].startswith("25 min")
    # The page's New game with the file's settings: the next game runs them, the note is gone.
    new_game(session, 1000, control=note["settings"]["control_spec"], challenge="single")
    assert session.control_label == note["settings"]["control"] and configuration_note(session, cfg) is None
    assert document(session, 1000)["configured"] is None
    store.close()
