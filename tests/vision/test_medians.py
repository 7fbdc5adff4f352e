"""medians.median is numpy's median, value for value, by another route."""

import numpy as np
import pytest

from companion.vision.medians import median


@pytest.mark.parametrize("shape,axis", [((7,), 0), ((8,), 0), ((5, 9, 3), 1), ((4, 6, 9, 3), 2), ((3, 10), 1), ((10, 3), 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_median_is_numpys_median_bit_for_bit(shape, axis, dtype):
    rng = np.random.default_rng(1)
    for trial in range(40):
        x = rng.normal(size=shape) * 10
        if trial % 3 == 0 and dtype != np.int64:
            x[tuple(int(rng.integers(0, s)) for s in shape)] = np.nan  # a row with a hole: NaN, as numpy
        if trial % 5 == 0:
            x = np.round(x)  # ties
        x = x.astype(dtype)
        want, got = np.median(x, axis=axis), median(x, axis=axis)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got, want, equal_nan=dtype != np.int64)


def test_whole_numbers_give_numpys_float_median() -> None:
    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 8):
        x = rng.integers(0, 256, size=(4, n, 3), dtype=np.uint8)
        for axis in (0, 1, -1):
            ours, theirs = median(x, axis=axis), np.median(x, axis=axis)
            assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs)
