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


@pytest.mark.slow
def test_what_setup_compiles_is_what_a_small_fit_needs(tmp_path):
    """`python -m topics.clustering.kernels` (make setup) leaves nothing for a fit of a small
    corpus and its map to compile: the fit afterwards writes no new compiled code."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "TOPICS_NUMBA_CACHE": "1"}
    subprocess.run([sys.executable, "-m", "topics.clustering.kernels"], check=True, env=env, timeout=900, capture_output=True)
    index = {p.name for p in Path(tmp_path).rglob("*.nbi")}
    for kernel in ("layouts._optimize_layout_euclidean_single_epoch", "umap_.smooth_knn_dist"):
        assert any(name.startswith(kernel) for name in index), index
    compiled = {p: p.stat().st_mtime_ns for p in Path(tmp_path).rglob("*.nbc")}
    fit = (
        "import numpy as np, topics; x = np.random.default_rng(1).normal(size=(120, 24)).astype('float32');"
        "texts = [f'paper {i} about topic {i % 4}' for i in range(120)];"
        "m = topics.TopicModel(method='consensus', n_runs=2, random_state=0).fit(texts, x);"
        "from topics.clustering.layout import map_coordinates; map_coordinates(x)"
    )
    subprocess.run([sys.executable, "-c", fit], check=True, env=env, timeout=900, capture_output=True)
    assert {p: p.stat().st_mtime_ns for p in Path(tmp_path).rglob("*.nbc")} == compiled
