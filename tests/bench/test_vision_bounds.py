"""The vision benchmark's upper bound on an error rate: what a sample of scenes rules out."""

import math

import pytest

from bench.vision import upper_bound_pct


def _at_most(k: int, n: int, p: float) -> float:
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))


def test_no_error_gives_the_closed_form() -> None:
    # With no error seen, P(0 errors) = (1 - p)^n = 0.05 has a closed form.
    for n in (30, 957, 6400):
        assert upper_bound_pct(0, n) == pytest.approx(100 * (1 - 0.05 ** (1 / n)), abs=1e-3)


@pytest.mark.parametrize("k,n", [(1, 1000), (2, 957), (5, 6400), (40, 200)])
def test_the_bound_leaves_five_per_cent_chance_of_so_few_errors(k: int, n: int) -> None:
    bound = upper_bound_pct(k, n) / 100
    assert bound > k / n
    assert _at_most(k, n, bound) == pytest.approx(0.05, abs=1e-3)


def test_more_trials_with_the_same_rate_narrow_the_bound() -> None:
    wide, middle, narrow = upper_bound_pct(0, 256), upper_bound_pct(1, 1280), upper_bound_pct(5, 6400)
    assert narrow < middle < wide
    assert upper_bound_pct(0, 0) is None
