"""A pulled plug at any moment loses nothing: the headless demo killed with SIGKILL at random
moments of a game and started again each time ends in the state of an uninterrupted run, clocks
included (the harness and its moments: bench/restart.py).

Time is simulated (each player thinks a scripted time), so two runs can be compared to the
millisecond. Two tables: one whose frames carry the board's truth (100 kills, a minute or two:
the log and the restore are what is tested), and one whose frames are the synthetic camera's
photos read by the board reader with hands passing over the board (20 kills here, the
suite's time; 100 in ``python -m bench restart``): after a restart the reader's trackers start
anew and must settle on a still board as the uninterrupted run's did. The downtime a real
restart costs the player on move is tested in tests/table/test_store.py.
"""

from __future__ import annotations

import pytest

from bench.restart import differences, killed, uninterrupted
from companion.sim.demos import SHARED_GAME


def test_sigkill_at_100_random_moments_loses_nothing(tmp_path):
    clean = uninterrupted(tmp_path, truth=True)
    # The whole record played (Doug v Emely from ../shared: 27 events to its end; else the
    # short game the package ships).
    assert len(clean.summary["history"]) >= 8
    got = killed(tmp_path, clean, 100, truth=True)
    # Every kill resumed from the log: the restarts moved forward through the whole game.
    assert len(set(got.resumed_at)) > clean.last_step // 2
    assert differences(clean.summary, got.summary) == []  # board, scores, history, GCG; clocks within 1 s


@pytest.mark.skipif(not SHARED_GAME.is_file(),
                    reason=f"needs {SHARED_GAME} (../shared absent): 20 kills need the long record's presses")
def test_sigkill_at_20_random_moments_through_the_reader_loses_nothing(tmp_path):
    # The uninterrupted reference is the truth's run: the reader, uninterrupted, reads the whole
    # game right (python -m bench restart runs both and says so), and a run killed 20 times must
    # end in the same game.
    clean = uninterrupted(tmp_path, truth=True)
    got = killed(tmp_path, clean, 20, truth=False, seed=30)
    assert len(set(got.resumed_at)) >= 10
    assert differences(clean.summary, got.summary) == []
