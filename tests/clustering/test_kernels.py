import os
import subprocess
import sys
from pathlib import Path

import pytest

from topics.clustering import kernels


def test_umap_kernels_get_a_disk_cache_but_not_the_twin_parallel_epoch(monkeypatch):
    import umap.layouts
    import umap.umap_
    from numba.core.caching import FunctionCache, NullCache

    monkeypatch.setattr(kernels, "_enabled", None)
    kernels.cache_umap_kernels()
    assert isinstance(umap.umap_.smooth_knn_dist._cache, FunctionCache)
    assert isinstance(umap.layouts._nb_optimize_layout_euclidean_single_epoch._cache, FunctionCache)
    # serial and parallel epochs share one Python function, so one cache name: only one is cached
    assert isinstance(umap.layouts._nb_optimize_layout_euclidean_single_epoch_parallel._cache, NullCache)


def test_switched_off_by_environment(monkeypatch):
    monkeypatch.setattr(kernels, "_enabled", None)
    monkeypatch.setenv("TOPICS_NUMBA_CACHE", "0")
    assert kernels.cache_umap_kernels() == 0


@pytest.mark.slow
def test_a_new_process_writes_then_reads_compiled_kernels(tmp_path):
    code = (
        "import numpy as np; from topics.clustering.layout import map_coordinates; x = np.random.default_rng(0).normal(size=(40, 8)).astype('float32');"
        "map_coordinates(x, n_neighbors=5)"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "TOPICS_NUMBA_CACHE": "1"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=600)
    index = sorted(p.name for p in Path(tmp_path).rglob("*.nbi"))
    assert any(name.startswith("layouts._optimize_layout_euclidean_single_epoch") for name in index), index
    stamps = {p: p.stat().st_mtime_ns for p in Path(tmp_path).rglob("*.nbc")}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=600)
    # the second process loads what the first compiled instead of writing new code
    assert {p: p.stat().st_mtime_ns for p in Path(tmp_path).rglob("*.nbc")} == stamps


def test_no_writable_cache_folder_means_compiling_as_before(monkeypatch):
    import umap.umap_
    from numba.core.caching import NullCache
    from numba.core.dispatcher import Dispatcher

    monkeypatch.setattr(umap.umap_.smooth_knn_dist, "_cache", NullCache())

    def no_locator(self):
        raise RuntimeError("cannot cache function: no locator available")

    monkeypatch.setattr(Dispatcher, "enable_caching", no_locator)
    monkeypatch.setattr(kernels, "_enabled", None)
    assert kernels.cache_umap_kernels() == 0
    assert isinstance(umap.umap_.smooth_knn_dist._cache, NullCache)

