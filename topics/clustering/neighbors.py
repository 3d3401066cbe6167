"""Exact cosine neighbours, and landmarks for corpora too large to cluster whole.

Every clustering step of the package starts from the same object: each paper's
nearest neighbours by cosine similarity of its embedding. :func:`nearest_neighbors`
computes them exactly, block by block (a matrix product and a top-k per block of 1,024
rows, so memory stays at ``1,024 x n`` similarities).

An exact graph costs ``O(n^2)``; so do, in effect, the UMAP runs of a consensus
(measured: n^2.0 between 4,364 and 20,000 papers, 139 s for one run at 100,000 on one
core). Above a size the consensus is therefore fitted on **landmarks**
(:func:`choose_landmarks`, a seeded random sample) and every other paper is attached
to its ``k`` nearest landmarks (:func:`landmark_graph`): it takes the label its
landmarks vote for (:func:`vote`), and its map position is the similarity-weighted mean
of theirs (:func:`spread`). This is the landmark (Nyström-style) extension used by
landmark MDS/Isomap and by UMAP's own ``transform``, which also places a new point at
the weighted mean of its neighbours' positions.
"""

from __future__ import annotations

import numpy as np

from topics.vectors import unit_rows

__all__ = [
    "choose_landmarks",
    "drawn_neighbors",
    "extend_values",
    "landmark_graph",
    "landmark_rows",
    "landmark_step",
    "nearest_neighbors",
    "place_again",
    "resolve_seed",
    "spread",
    "vote",
]

#: Rows per block of :func:`nearest_neighbors`: 1,024 x 100,000 similarities are 400 MB.
BLOCK_ROWS = 1_024
#: Rows per block of :func:`vote`: ``k x k`` label comparisons each.
VOTE_ROWS = 65_536


def nearest_neighbors(
    embeddings: np.ndarray, *, n_neighbors: int = 15, among: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Exact cosine nearest neighbours of every row of ``embeddings``.

    Parameters
    ----------
    embeddings
        ``(n, dim)`` query rows.
    n_neighbors
        Neighbours per row. Without ``among`` the row itself is one of them (first,
        unless an identical row comes before it).
    among
        ``(m, dim)`` rows to search; default the queries themselves.

    Returns
    -------
    indices : ndarray of int32, shape (n, n_neighbors)
        Row positions in ``among`` (or ``embeddings``), nearest first; ties in order of
        position, so the result is deterministic.
    distances : ndarray of float32, shape (n, n_neighbors)
        Cosine distances ``1 - cos``, ascending along each row.
    """
    queries = unit_rows(embeddings, dtype=np.float32)
    base = queries if among is None else unit_rows(among, dtype=np.float32)
    m, k = len(base), int(n_neighbors)
    if not 1 <= k <= m:
        raise ValueError(f"n_neighbors must be between 1 and the number of rows searched ({m}), got {n_neighbors}")
    if base.shape[1] != queries.shape[1]:
        raise ValueError(f"queries have {queries.shape[1]} dimensions, the rows searched {base.shape[1]}")
    import torch  # already loaded with BERTopic; its top-k is ~80x faster than numpy's argpartition here

    indices = np.empty((len(queries), k), dtype=np.int32)
    distances = np.empty((len(queries), k), dtype=np.float32)
    for start in range(0, len(queries), BLOCK_ROWS):
        sims = queries[start : start + BLOCK_ROWS] @ base.T  # numpy: identical rows get identical similarities
        top = torch.topk(torch.from_numpy(sims), k, dim=1).indices.numpy()
        _break_ties(sims, top)
        top = np.sort(top, axis=1)  # by position first ...
        top_sims = np.take_along_axis(sims, top, axis=1)
        order = np.argsort(-top_sims, axis=1, kind="stable")  # ... so equal similarities keep that order
        indices[start : start + len(sims)] = np.take_along_axis(top, order, axis=1)
        distances[start : start + len(sims)] = 1.0 - np.take_along_axis(top_sims, order, axis=1)
    return indices, np.clip(distances, 0.0, 2.0)


def drawn_neighbors(
    graph: tuple[np.ndarray, np.ndarray], n_neighbors: int, pool: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each paper and ``n_neighbors - 1`` others drawn at random from its ``pool`` nearest.

    ``graph`` is an exact graph (:func:`nearest_neighbors`, each paper first) with at least
    ``pool + 1`` columns. Returns ``(indices, distances)`` of ``n_neighbors`` columns: the
    paper itself, then the drawn neighbours nearest first. The draw is seeded by ``seed``
    (a consensus run's seed; offset by 10,000 so it is not the stream UMAP draws from that
    seed), so the same graph and seed give the same neighbours. A consensus run that sees
    such a graph no longer depends on exactly which paper is the 15th nearest
    (:class:`topics.clustering.consensus.ConsensusClusterer`, ``neighbor_pool``).
    """
    indices, distances = graph
    others = int(n_neighbors) - 1
    if not 0 <= others <= pool <= indices.shape[1] - 1:
        raise ValueError(f"cannot draw {others} of {pool} neighbours from a graph of {indices.shape[1]} columns")
    rng = np.random.default_rng(10_000 + int(seed))
    keep = np.sort(np.argsort(rng.random((len(indices), pool)), axis=1)[:, :others], axis=1) + 1
    return (np.column_stack([indices[:, 0], np.take_along_axis(indices, keep, axis=1)]),
            np.column_stack([distances[:, 0], np.take_along_axis(distances, keep, axis=1)]))


def _break_ties(sims: np.ndarray, top: np.ndarray) -> None:
    """Where the ``k``-th similarity of a row is tied with rows left out, keep the tied
    rows of smallest position, as a stable sort would (in place; rare: exact duplicates)."""
    k = top.shape[1]
    kth = np.take_along_axis(sims, top, axis=1).min(axis=1, keepdims=True)
    for r in np.flatnonzero((sims == kth).sum(axis=1) > (np.take_along_axis(sims, top, axis=1) == kth).sum(axis=1)):
        top[r] = np.argsort(-sims[r], kind="stable")[:k]


def resolve_seed(random_state: int | None) -> int:
    """The integer seed of a ``random_state`` as the clustering step stores it: ``None`` is 0.

    Every estimator and function of :mod:`topics.clustering` resolves its seed here, so
    ``random_state=None`` and ``random_state=0`` give the same topics, map and landmarks.
    """
    return 0 if random_state is None else int(random_state)


def landmark_step(
    embeddings: np.ndarray, n_landmarks: int | None, *, n_neighbors: int, random_state: int = 0
) -> tuple[np.ndarray | None, tuple[np.ndarray, np.ndarray] | None]:
    """The landmarks of a corpus too large to cluster whole, and every paper's nearest ones.

    With more than ``n_landmarks`` papers, a seeded random sample of that many
    (:func:`choose_landmarks`) is clustered and every other paper follows its
    ``n_neighbors`` nearest landmarks (:func:`landmark_graph`). Returns
    ``(landmarks, graph)``, or ``(None, None)`` when every paper is clustered
    (``n_landmarks`` is ``None`` or not below the number of papers). ``random_state`` is
    the fit's seed, an int (:func:`resolve_seed` resolved it).
    """
    n = len(embeddings)
    if n_landmarks is None or n <= n_landmarks:
        return None, None
    landmarks = choose_landmarks(n, int(n_landmarks), random_state=int(random_state))
    return landmarks, landmark_graph(embeddings, landmarks, n_neighbors=n_neighbors)


def choose_landmarks(n_docs: int, n_landmarks: int, *, random_state: int = 0) -> np.ndarray:
    """Sorted positions of ``n_landmarks`` of ``n_docs`` papers, drawn at random (seeded)."""
    if not 1 <= n_landmarks <= n_docs:
        raise ValueError(f"n_landmarks must be between 1 and {n_docs}, got {n_landmarks}")
    rng = np.random.default_rng(random_state)
    return np.sort(rng.choice(n_docs, size=n_landmarks, replace=False))


def landmark_graph(
    embeddings: np.ndarray, landmarks: np.ndarray, *, n_neighbors: int
) -> tuple[np.ndarray, np.ndarray]:
    """One neighbour graph over every paper, in which only landmarks are neighbours.

    Every paper's row holds its ``n_neighbors`` nearest landmarks (a landmark's row
    starts with itself, like :func:`nearest_neighbors`'s). Indices are positions in
    ``embeddings``, so labels of the landmarks, written into an array over all papers,
    can be read through it (:func:`vote`, :func:`spread`).
    """
    landmarks = np.asarray(landmarks)
    x = np.asarray(embeddings, dtype=np.float32)
    indices, distances = nearest_neighbors(x, n_neighbors=n_neighbors, among=x[landmarks])
    return landmarks[indices].astype(np.int32), distances


def landmark_rows(graph: tuple[np.ndarray, np.ndarray], landmarks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The landmarks' own neighbour graph, read off a :func:`landmark_graph`: the landmarks'
    rows, with neighbours numbered by position among the landmarks (-1 for a neighbour
    that is not a landmark)."""
    landmarks = np.asarray(landmarks)
    position = np.full(len(graph[0]), -1, dtype=np.int32)
    position[landmarks] = np.arange(len(landmarks))
    return position[graph[0][landmarks]], graph[1][landmarks]


def _weights(distances: np.ndarray) -> np.ndarray:
    return np.maximum(1.0 - np.asarray(distances, dtype=np.float64), 1e-6)  # np.clip is 10x slower


def vote(labels: np.ndarray, neighbors: np.ndarray, distances: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """For each of ``rows``, the label with the most cosine-weighted votes among its neighbours.

    ``-1`` (outlier) is a label like any other here, so a paper among outliers is one;
    ties (sums equal to a relative 1e-9) go to the smaller label. Returns the labels of
    ``rows``; with ``labels`` of shape ``(m, n)`` (several labellings of the same papers),
    shape ``(m, len(rows))``.
    """
    labels = np.asarray(labels)
    many = labels.ndim == 2
    labelings = labels if many else labels[None]
    rows = np.asarray(rows)
    out = np.empty((len(labelings), len(rows)), dtype=labels.dtype)
    for start in range(0, len(rows), VOTE_ROWS):
        block = rows[start : start + VOTE_ROWS]
        nb, weights = neighbors[block], _weights(distances[block])
        for out_row, labeling in zip(out, labelings):
            neighbour_labels = labeling[nb]  # (rows, k)
            # each neighbour's score is the summed weight of the neighbours sharing its label
            same = neighbour_labels[:, :, None] == neighbour_labels[:, None, :]
            score = np.einsum("ijl,il->ij", same, weights)
            best = score >= score.max(axis=1, keepdims=True) * (1 - 1e-9)
            largest = neighbour_labels.max(axis=1, keepdims=True)  # a stand-in that fits any dtype
            out_row[start : start + len(block)] = np.where(best, neighbour_labels, largest).min(axis=1)
    return out if many else out[0]


def spread(values: np.ndarray, neighbors: np.ndarray, distances: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """For each of ``rows``, the cosine-weighted mean of ``values`` over its neighbours."""
    rows = np.asarray(rows)
    w = _weights(distances[rows])
    return np.einsum("ik,ikd->id", w / w.sum(axis=1, keepdims=True), np.asarray(values, dtype=np.float64)[neighbors[rows]])


def place_values(values: np.ndarray, among: np.ndarray, embeddings: np.ndarray, *, n_neighbors: int) -> np.ndarray:
    """``values`` (one row per row of ``among``: map or UMAP coordinates) for the rows of
    ``embeddings``: the similarity-weighted mean over their ``n_neighbors`` nearest rows of
    ``among`` (:func:`spread`), so that the rows of ``among`` stay where they are. In the
    dtype of ``values``."""
    k = min(n_neighbors, len(among))
    indices, distances = nearest_neighbors(embeddings, n_neighbors=k, among=np.asarray(among, dtype=np.float32))
    return spread(values, indices, distances, np.arange(len(embeddings))).astype(np.asarray(values).dtype)


def place_again(values: np.ndarray, embeddings: np.ndarray, *, n_neighbors: int) -> np.ndarray:
    """Each row's ``values`` placed as :func:`place_values` places a new row, from its
    ``n_neighbors`` nearest *other* rows: where a fitted paper would lie had it been added
    later, so that fitted and added papers can be compared on the map."""
    k = min(n_neighbors + 1, len(embeddings))
    indices, distances = nearest_neighbors(np.asarray(embeddings, dtype=np.float32), n_neighbors=k)
    rows = np.arange(len(indices))
    own = indices == rows[:, None]
    # drop each row's own column (the last one where an identical row came first)
    drop = np.where(own.any(axis=1), own.argmax(axis=1), k - 1)
    keep = np.ones_like(own)
    keep[rows, drop] = False
    indices, distances = indices[keep].reshape(len(rows), k - 1), distances[keep].reshape(len(rows), k - 1)
    return spread(values, indices, distances, rows).astype(np.asarray(values).dtype)


def extend_values(values: np.ndarray, landmarks: np.ndarray, graph: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Rows of ``values`` (one per landmark) for every document of a :func:`landmark_graph`:
    the landmarks keep theirs, every other document gets :func:`spread` of its landmarks'."""
    indices, distances = graph
    values = np.asarray(values)
    out = np.zeros((len(indices), *values.shape[1:]), dtype=values.dtype)
    out[landmarks] = values
    rest = np.setdiff1d(np.arange(len(indices)), landmarks)
    out[rest] = spread(out, indices, distances, rest)
    return out
