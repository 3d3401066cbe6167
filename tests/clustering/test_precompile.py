import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

# where numba keeps the compiled kernels of a fit: beside each package's sources (umap's
# through topics.clustering.kernels, the others by their own cache=True), or in
# $NUMBA_CACHE_DIR where it is set
PACKAGES = ("umap", "pynndescent", "hdbscan")


def cached_kernels() -> dict[Path, int]:
    folders = [Path(importlib.util.find_spec(name).origin).parent for name in PACKAGES]
    if os.environ.get("NUMBA_CACHE_DIR"):
        folders.append(Path(os.environ["NUMBA_CACHE_DIR"]))
    return {p: p.stat().st_mtime_ns for folder in folders for p in folder.rglob("*.nbc")}


@pytest.mark.slow
def test_what_setup_compiles_is_what_a_small_fit_needs():
    """After `python -m topics.clustering.precompile` (make setup runs it; again here, which
    costs seconds where setup did it), a fit of a small corpus and its map, in a new process,
    reads UMAP's kernels from numba's on-disk cache and writes no new compiled code."""
    env = {**os.environ, "TOPICS_NUMBA_CACHE": "1"}
    subprocess.run([sys.executable, "-m", "topics.clustering.precompile"], check=True, env=env, timeout=900, capture_output=True)
    compiled = cached_kernels()
    names = {p.name for p in compiled}
    for kernel in ("layouts._optimize_layout_euclidean_single_epoch", "umap_.smooth_knn_dist"):
        assert any(name.startswith(kernel) for name in names), names
    fit = (
        "import numpy as np, topics; x = np.random.default_rng(1).normal(size=(120, 24)).astype('float32');"
        "texts = [f'paper {i} about topic {i % 4}' for i in range(120)];"
        "m = topics.TopicModel(method='consensus', n_runs=2, random_state=0).fit(texts, x);"
        "from topics.clustering.layout import map_coordinates; map_coordinates(x)"
    )
    subprocess.run([sys.executable, "-c", fit], check=True, env=env, timeout=900, capture_output=True)
    assert cached_kernels() == compiled
