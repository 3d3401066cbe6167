"""The shared vector rule: rows scaled to unit length (:func:`unit_rows`).

Embeddings are compared by cosine similarity throughout the package, as dot products of
unit rows; every module that needs unit rows takes them from here, so that they are
computed one way (the same dtype, norm and guard against zero rows) everywhere.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import DTypeLike

__all__ = ["ZERO_NORM", "unit_rows"]

#: A row shorter than this is divided by it instead of by its length, so a zero row stays
#: zero (and no division by zero warns).
ZERO_NORM = 1e-12


def unit_rows(x, *, dtype: DTypeLike = None) -> np.ndarray:
    """The rows of ``x`` divided by their Euclidean length (at least :data:`ZERO_NORM`).

    Parameters
    ----------
    x
        A 2-D array (or anything :func:`numpy.asarray` makes one of), one vector a row.
    dtype
        The dtype to compute and return in; by default ``x``'s own (float32 stays float32).

    Returns
    -------
    numpy.ndarray
        A new array of ``x``'s shape; ``x`` is not changed.
    """
    x = np.asarray(x, dtype=dtype)
    if x.ndim != 2:
        raise ValueError(f"need a 2-D array of row vectors, got shape {x.shape}")
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), ZERO_NORM)
