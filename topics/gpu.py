"""Optional GPU components: cuML's UMAP and HDBSCAN, as BERTopic documents them.

``pip install 'topics[gpu]'`` installs RAPIDS
cuML (CUDA 12 wheels). Where cuML imports and a CUDA device is visible,
:func:`gpu_components` builds the two expensive steps of the topic model on the GPU
with the same parameters the CPU path uses (:func:`topics.size_rule`), following
BERTopic's "GPU acceleration" recipe::

    from cuml.manifold import UMAP
    from cuml.cluster import HDBSCAN
    BERTopic(umap_model=UMAP(...), hdbscan_model=HDBSCAN(..., prediction_data=True))

Untested here: the machines this package is developed on have no GPU, so the tests of
this module are skipped there (``tests/test_gpu.py``). cuML's UMAP is not bit-for-bit
the CPU UMAP, so topics found on a GPU differ from those found on a CPU with the same
seed.
"""

from __future__ import annotations

import logging

__all__ = ["cuml_available", "gpu_components"]

logger = logging.getLogger(__name__)

INSTALL_HINT = "pip install 'topics[gpu]'"


def cuml_available() -> bool:
    """Whether cuML imports and sees at least one CUDA device."""
    try:
        import cuml  # noqa: F401
        from cuml.common import cuda  # noqa: F401
    except Exception:  # ImportError, or a CUDA runtime error raised at import
        return False
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def gpu_components(
    *,
    n_neighbors: int,
    n_components: int,
    min_cluster_size: int,
    min_samples: int,
    random_state: int | None = None,
) -> tuple[object, object]:
    """cuML ``UMAP`` and ``HDBSCAN`` with the topic model's parameters.

    Parameters
    ----------
    n_neighbors, n_components, min_cluster_size, min_samples
        As resolved by :func:`topics.size_rule` (``TopicModel.params_``).
    random_state
        Seed for cuML's UMAP. With a seed cuML runs its layout optimisation serially on
        the GPU, which is reproducible but slower; ``None`` is faster and not
        reproducible (cuML's own trade-off).

    Returns
    -------
    (cuml.manifold.UMAP, cuml.cluster.HDBSCAN)
        Unfitted; give them to ``BERTopic(umap_model=..., hdbscan_model=...)``.

    Raises
    ------
    ImportError
        cuML is not installed or no CUDA device is visible; the message says how to
        install it.
    """
    if not cuml_available():
        raise ImportError(f"the GPU components need RAPIDS cuML and a CUDA device: {INSTALL_HINT}")
    from cuml.cluster import HDBSCAN
    from cuml.manifold import UMAP

    umap_model = UMAP(
        n_neighbors=n_neighbors, n_components=n_components, min_dist=0.0, metric="cosine", random_state=random_state
    )
    hdbscan_model = HDBSCAN(
        min_cluster_size=min_cluster_size, min_samples=min_samples, metric="euclidean",
        cluster_selection_method="eom", prediction_data=True,
    )
    return umap_model, hdbscan_model
