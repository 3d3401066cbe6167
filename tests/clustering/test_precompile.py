import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.slow
def test_what_setup_compiles_is_what_a_small_fit_needs(tmp_path):
    """`python -m topics.clustering.precompile` (make setup) leaves nothing for a fit of a small
    corpus and its map to compile: the fit afterwards, in a new process, reads the kernels
    the first process wrote to the disk cache and writes no new compiled code."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "TOPICS_NUMBA_CACHE": "1"}
    subprocess.run([sys.executable, "-m", "topics.clustering.precompile"], check=True, env=env, timeout=900, capture_output=True)
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
