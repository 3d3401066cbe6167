"""One consensus run: a seeded UMAP layout of the embeddings, read by HDBSCAN at a few
granularities; and the runs of a consensus spread over processes.

:class:`topics.clustering.consensus.ConsensusClusterer` builds its topics from these clusterings.
Each run is seeded and single-threaded (UMAP with a ``random_state``), so runs in
parallel processes, or on the workers of a Dask cluster (:func:`on_cluster`), give
exactly what runs in sequence give.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

__all__ = ["on_cluster", "parallel_runs", "readings"]

logger = logging.getLogger(__name__)


def readings(min_cluster_size: int) -> list[tuple[int, str]]:
    """The HDBSCAN settings each run's layout is read with: ``(min_cluster_size, selection)``.

    HDBSCAN's excess-of-mass selection is discrete: a small change of the layout flips a
    cluster between kept whole and split in two, and one reading per layout turns that
    flip into all-or-nothing evidence. Reading each layout at three granularities
    (``min_cluster_size`` x 2/3, x 1, x 3/2) and with leaf selection turns it into
    graded evidence, as Fred & Jain's evidence accumulation draws k-means runs with
    varied k. Costs little: HDBSCAN on a 5-D layout is a small part of a run.
    """
    size = int(min_cluster_size)
    return [(size, "eom"), (size, "leaf"), (max(2, round(size * 2 / 3)), "eom"), (max(2, round(size * 3 / 2)), "eom")]


def parallel_runs(X, graph, settings, seeds, n_jobs, pool: int | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """``_one_run`` (labels of each reading, layout) for every seed, in order, over ``n_jobs`` processes.

    ``settings`` is ``(n_neighbors, n_components, n_epochs, min_cluster_size, min_samples)``.
    With ``pool``, ``graph`` has ``pool + 1`` columns and each run's UMAP sees the paper and
    ``n_neighbors - 1`` others drawn by the run's seed from its ``pool`` nearest
    (:func:`topics.clustering.neighbors.drawn_neighbors`); without, the ``n_neighbors``
    columns of ``graph`` as they are.

    joblib's process pool hands large arrays to the workers as read-only memory maps, so
    the embeddings are not copied per worker; numba's on-disk cache
    (:mod:`topics.clustering.kernels`) spares the workers most of UMAP's compilation.
    Inside :func:`on_cluster` the runs go to a Dask cluster's workers instead, as many at
    once as the cluster has threads.
    """
    from joblib import Parallel, delayed, effective_n_jobs
    from tqdm.auto import tqdm

    workers = min(effective_n_jobs(n_jobs), len(seeds))
    # a bar over the runs where this module logs at INFO (the command line without -q), not a line per run
    bar = tqdm(total=len(seeds), desc="consensus runs", unit="run", disable=not logger.isEnabledFor(logging.INFO), leave=False)
    with bar:
        if workers <= 1:
            results = []
            for s in seeds:
                results.append(_one_run(X, *graph, *settings, s, pool=pool))
                bar.update()
            return results
        # no backend named: loky processes, or the backend of an enclosing on_cluster(), which
        # sends each array argument to the cluster once (joblib scatters arrays, not tuples)
        indices, distances = graph
        results = []
        for result in Parallel(n_jobs=workers, prefer="processes", return_as="generator")(
            delayed(_one_run)(X, indices, distances, *settings, s, pool=pool) for s in seeds
        ):
            results.append(result)
            bar.update()
        return results


@contextmanager
def on_cluster(scheduler) -> Iterator[None]:
    """Run the consensus runs started inside this block on a Dask cluster: ``scheduler`` is
    its address (``"tcp://10.0.0.5:8786"``) or a ``distributed.Client``. joblib's Dask
    backend sends the embeddings and the neighbour graph to the cluster once, not with
    every run, and the clusterings are those of a local fit, bit for bit (each run is
    seeded and single-threaded). A client opened here is closed at the end of the block."""
    from joblib import parallel_config

    from topics.embedding.distributed import connect

    client, owned = connect(scheduler)
    try:
        with parallel_config(backend="dask", client=client):
            yield
    finally:
        if owned:
            client.close()


def _one_run(
    X, indices, distances, k, n_components, n_epochs, min_cluster_size, min_samples, seed, pool=None
) -> tuple[np.ndarray, np.ndarray]:
    from umap import UMAP

    from topics.clustering.kernels import cache_umap_kernels
    from topics.clustering.layout import graph_for_umap, no_search_index_warning, umap_knn
    from topics.clustering.neighbors import drawn_neighbors

    cache_umap_kernels()
    n = len(X)
    if pool is None:
        knn = graph_for_umap((indices, distances), n, k)
    else:  # this run's own draw: passed at any size, since UMAP's own search would not draw
        knn = drawn_neighbors((indices, distances), k, pool, seed)
    reducer = UMAP(
        n_neighbors=k,
        n_components=min(n_components, n - 2),
        n_epochs=n_epochs,
        min_dist=0.0,
        metric="cosine",
        random_state=seed,
        init="spectral" if n > n_components + 5 else "random",
        n_jobs=1,
        precomputed_knn=umap_knn(knn),
    )
    with no_search_index_warning():
        coords = reducer.fit_transform(X)
    return _read(coords, min_cluster_size, min_samples), np.asarray(coords, dtype=np.float32)


def _read(coords: np.ndarray, min_cluster_size: int, min_samples: int | None) -> np.ndarray:
    """HDBSCAN labels of ``coords`` for each of :func:`readings`, shape ``(4, n)``.

    The readings differ only in ``min_cluster_size`` and selection, so they share one
    single-linkage tree of the mutual-reachability graph (``min_samples``, default
    ``min_cluster_size``, is the same for all): the tree is built once and condensed per
    reading with hdbscan's own ``_tree_to_labels`` (what ``HDBSCAN.fit`` calls), which
    gives the labels of a separate fit per reading at a fraction of the cost. Where that
    internal function is missing (another hdbscan version), each reading is a full fit.
    """
    from hdbscan import HDBSCAN

    settings = readings(min_cluster_size)
    min_samples = int(min_samples) if min_samples is not None else int(min_cluster_size)
    first = HDBSCAN(min_cluster_size=settings[0][0], min_samples=min_samples, cluster_selection_method=settings[0][1]).fit(coords)
    try:
        from hdbscan.hdbscan_ import _tree_to_labels

        tree = first.single_linkage_tree_.to_numpy()
        rest = [_tree_to_labels(coords, tree, size, method)[0] for size, method in settings[1:]]
    except (ImportError, AttributeError, TypeError):  # pragma: no cover - other hdbscan versions
        rest = [HDBSCAN(min_cluster_size=size, min_samples=min_samples, cluster_selection_method=method).fit(coords).labels_ for size, method in settings[1:]]
    return np.asarray([first.labels_, *rest], dtype=np.int32)
