"""Unit rows: the one row normalisation of the package."""

import numpy as np
import pytest

from topics.vectors import ZERO_NORM, unit_rows


def test_rows_get_unit_length_and_keep_their_dtype():
    x = np.array([[3.0, 4.0], [0.0, 2.0]], dtype=np.float32)
    out = unit_rows(x)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.0, 1.0]], rtol=1e-7)
    assert x[0, 0] == 3.0  # the input is not changed
    assert unit_rows(x, dtype=np.float64).dtype == np.float64


def test_a_zero_row_stays_zero_without_a_warning():
    with np.errstate(all="raise"):
        out = unit_rows(np.array([[0.0, 0.0], [1.0, 0.0]]))
    np.testing.assert_array_equal(out, [[0.0, 0.0], [1.0, 0.0]])
    tiny = unit_rows(np.array([[ZERO_NORM / 2, 0.0]]))
    assert tiny[0, 0] == pytest.approx(0.5)  # shorter than ZERO_NORM: divided by it


def test_the_same_bits_as_the_division_it_replaces():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 384)).astype(np.float32)
    for dtype in (None, np.float64):
        y = np.asarray(x, dtype=dtype)
        expected = y / np.maximum(np.linalg.norm(y, axis=1, keepdims=True), 1e-12)
        assert unit_rows(x, dtype=dtype).tobytes() == expected.tobytes()


def test_a_vector_that_is_not_rows_is_refused():
    with pytest.raises(ValueError, match="2-D"):
        unit_rows(np.ones(3))
