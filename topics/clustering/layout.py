"""UMAP layouts on a precomputed neighbour graph: the 2-D topic map, and helpers the
consensus runs share.

Computing the exact cosine neighbour graph once (:func:`topics.clustering.neighbors.nearest_neighbors`)
and handing it to every UMAP fit (``precomputed_knn``) skips UMAP's approximate search
and the numba compilation it costs in each new process (~40 s for 4,364 abstracts).
Below 4,096 papers UMAP computes exact distances itself, cheaply, and is left to.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np

from topics.clustering.kernels import cache_umap_kernels
from topics.clustering.order import canonical_order
from topics.clustering.neighbors import landmark_rows, nearest_neighbors, spread

__all__ = ["map_coordinates"]

#: From this many papers UMAP would run its approximate search (pynndescent); the
#: exact graph is passed to it instead.
EXACT_GRAPH_FROM = 4_096


@contextlib.contextmanager
def no_search_index_warning():
    """Silence, here only, UMAP's warning that a precomputed graph has no search index.

    Without one, UMAP cannot transform new data; nothing in this package does.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"precomputed_knn\[2\]", category=UserWarning)
        yield


def umap_knn(knn: tuple[np.ndarray, np.ndarray] | None) -> tuple:
    """UMAP's ``precomputed_knn`` argument; copies, because UMAP edits the arrays in place."""
    if knn is None:
        return (None, None, None)
    return (knn[0].copy(), knn[1].copy(), None)


def graph_for_umap(graph, n: int, k: int):
    """The first ``k`` columns of ``graph`` where UMAP would otherwise search approximately."""
    return (graph[0][:, :k], graph[1][:, :k]) if n >= EXACT_GRAPH_FROM else None


def map_coordinates(
    embeddings: np.ndarray,
    *,
    n_neighbors: int = 15,
    random_state: int = 0,
    neighbors: tuple[np.ndarray, np.ndarray] | None = None,
    landmarks: np.ndarray | None = None,
) -> np.ndarray:
    """2-D UMAP layout of ``embeddings`` for the topic map (cosine metric, seeded).

    Parameters
    ----------
    embeddings
        One row per paper.
    n_neighbors
        UMAP's neighbourhood.
    random_state
        UMAP's seed, an int (the analysis's, resolved once by :func:`topics.analyze`).
    neighbors
        A precomputed graph (:func:`topics.clustering.neighbors.nearest_neighbors`, or a fitted
        ``TopicModel.neighbors_``) with at least ``n_neighbors`` columns; default
        computed here.
    landmarks
        Positions of the papers to lay out with UMAP (a fitted ``TopicModel.landmarks_``);
        ``neighbors`` must then be a :func:`topics.clustering.neighbors.landmark_graph`. Every other
        paper is placed at the similarity-weighted mean of its nearest landmarks
        (:func:`topics.clustering.neighbors.spread`). Default: lay out every paper. UMAP
        reads them in :func:`topics.clustering.order.canonical_order`, so that the map
        does not depend on the order of the rows.

    Returns
    -------
    numpy.ndarray
        ``float32`` array of shape ``(n_docs, 2)``.
    """
    from umap import UMAP

    embeddings = np.asarray(embeddings, dtype=np.float32)
    n = embeddings.shape[0]
    # laid out in a canonical order (topics.clustering.order), so the map does not depend on the row order
    fitted = np.arange(n) if landmarks is None else np.asarray(landmarks)
    fitted = fitted[canonical_order(embeddings[fitted])]
    k = int(min(n_neighbors, len(fitted) - 1))
    if neighbors is not None and (neighbors[0].shape[0] != n or neighbors[0].shape[1] < k):
        raise ValueError(f"neighbors must have {n} rows and at least {k} columns, got shape {neighbors[0].shape}")
    if landmarks is not None and neighbors is None:
        raise ValueError("landmarks need their neighbour graph (a fitted TopicModel's neighbors_)")
    if neighbors is None and n >= EXACT_GRAPH_FROM:
        neighbors = nearest_neighbors(embeddings, n_neighbors=k)
    knn = None
    if neighbors is not None:
        rows = landmark_rows((neighbors[0][:, :k], neighbors[1][:, :k]), fitted)
        if (rows[0] < 0).any():
            raise ValueError("the landmarks' neighbours must be landmarks (topics.clustering.neighbors.landmark_graph)")
        knn = graph_for_umap(rows, len(fitted), k)
    cache_umap_kernels()
    reducer = UMAP(
        n_neighbors=k,
        n_components=2,
        min_dist=0.1,
        metric="cosine",
        random_state=int(random_state),
        n_jobs=1,
        precomputed_knn=umap_knn(knn),
    )
    with no_search_index_warning():
        coords = reducer.fit_transform(embeddings[fitted]).astype(np.float32)
    out = np.zeros((n, 2), dtype=np.float32)
    out[fitted] = coords
    rest = np.setdiff1d(np.arange(n), fitted)
    if len(rest):
        out[rest] = spread(out, neighbors[0], neighbors[1], rest)
    return out
