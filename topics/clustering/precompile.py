"""Compile a fit's numba kernels at installation: ``python -m topics.clustering.precompile``.

``make setup`` runs it, so that the first ``topics report`` reads the compiled kernels
from numba's on-disk cache (:mod:`topics.clustering.kernels`) instead of compiling them:
on a 2-core AVX-512 machine it takes about 30 s once, after which ``make report`` on the
bundled files takes about 18 s with nothing else cached instead of 41-43 s (``benchmarks/run.py``).
"""

from __future__ import annotations

import time

import numpy as np

from topics.clustering.consensus import ConsensusClusterer
from topics.clustering.layout import map_coordinates

__all__ = ["compile_kernels"]


def compile_kernels() -> float:
    """Compile, and keep in numba's on-disk cache, the kernels of a fit: UMAP's (a seeded
    layout on a given neighbour graph, and the 2-D map), HDBSCAN's, and those pynndescent
    compiles as it is imported. Returns the seconds it took."""
    start = time.perf_counter()
    import bertopic  # noqa: F401  (imports umap and pynndescent, whose cached kernels compile here)

    points = np.random.default_rng(0).normal(size=(300, 16)).astype(np.float32)
    ConsensusClusterer(n_runs=1, n_jobs=1, min_cluster_size=10, random_state=0).fit(points)
    map_coordinates(points)
    return time.perf_counter() - start


if __name__ == "__main__":
    print(f"topics: numba kernels compiled and cached in {compile_kernels():.0f} s")
