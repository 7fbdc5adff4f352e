"""Reliability tables: confidence bins against the accuracy seen in them, and the ECE."""

import pytest

from bench.reliability import Reliability


def test_an_honest_reader_has_no_calibration_error_and_a_boastful_one_has() -> None:
    honest, boastful = Reliability(), Reliability()
    for k in range(100):
        honest.add(0.8, k % 5 != 0)  # says 0.8, right 4 times in 5
        boastful.add(0.99, k % 2 == 0)  # says 0.99, right half the time
    assert honest.table()["ece_pct"] == pytest.approx(0.0)
    t = boastful.table()
    assert t["ece_pct"] == pytest.approx(49.0)
    assert t["wrong_at_0.5_or_more"] == 50 and t["wrong_at_0.9_or_more"] == 50
    assert t["bins"] == [{"bin": "0.99-1.00", "squares": 100, "mean_confidence": 0.99, "accuracy": 0.5, "wrong": 50}]


def test_bins_split_at_their_edges_and_the_last_is_closed() -> None:
    r = Reliability()
    for conf, right in ((0.0, False), (0.5, True), (0.49, False), (1.0, True)):
        r.add(conf, right)
    bins = {b["bin"]: b["squares"] for b in r.table()["bins"]}
    assert bins == {"0.00-0.10": 1, "0.40-0.50": 1, "0.50-0.60": 1, "0.99-1.00": 1}
    assert r.table()["wrong_at_0.5_or_more"] == 0
