"""The optional cuML components. Skipped without cuML and a CUDA device (every machine here)."""

from __future__ import annotations

import numpy as np
import pytest

from topics import gpu


def test_without_cuml_the_error_says_how_to_install(monkeypatch):
    monkeypatch.setattr(gpu, "cuml_available", lambda: False)
    with pytest.raises(ImportError, match=r"pip install 'topics\[gpu\]'"):
        gpu.gpu_components(n_neighbors=15, n_components=5, min_cluster_size=20, min_samples=6)


needs_gpu = pytest.mark.skipif(not gpu.cuml_available(), reason="needs RAPIDS cuML and a CUDA device")


@needs_gpu
def test_gpu_components_carry_the_topic_model_parameters():
    umap_model, hdbscan_model = gpu.gpu_components(n_neighbors=12, n_components=5, min_cluster_size=20, min_samples=6, random_state=0)
    assert type(umap_model).__module__.startswith("cuml") and type(hdbscan_model).__module__.startswith("cuml")
    assert umap_model.n_neighbors == 12 and umap_model.n_components == 5
    assert hdbscan_model.min_cluster_size == 20 and hdbscan_model.min_samples == 6


@needs_gpu
def test_gpu_umap_and_hdbscan_separate_well_separated_groups():
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(3, 32)) * 10
    x = np.vstack([c + rng.normal(size=(300, 32)) for c in centres]).astype(np.float32)
    umap_model, hdbscan_model = gpu.gpu_components(n_neighbors=15, n_components=5, min_cluster_size=50, min_samples=10, random_state=0)
    labels = np.asarray(hdbscan_model.fit_predict(umap_model.fit_transform(x)))
    truth = np.repeat([0, 1, 2], 300)
    from sklearn.metrics import adjusted_rand_score

    assert adjusted_rand_score(truth, labels) > 0.9
