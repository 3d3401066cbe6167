"""Consensus topics: agreement of several UMAP + HDBSCAN runs, not the accident of one seed.

UMAP's layout depends on its random seed, and HDBSCAN's clusters on the layout, so one
run's topics split, merge and drop papers from seed to seed (on the ICLR lists, two
seeds agree at an adjusted Rand index of about 0.6). Evidence accumulation (Fred & Jain
2005, "Combining multiple clusterings using evidence accumulation") turns many runs
into one answer:

1. **Runs.** Fit UMAP ``n_runs`` times with different seeds on the same embeddings
   and the same exact neighbour graph (:func:`run_seeds`), in parallel processes, and
   read each layout with HDBSCAN at a few granularities (:func:`topics.clustering.runs.readings`): every run
   gives four clusterings.
2. **Co-association** (:func:`coassociation`): for every edge ``(i, j)`` of the exact
   cosine k-nearest-neighbour graph, the share of clusterings in which papers ``i`` and
   ``j`` landed in the same topic (outliers share no topic). Kept sparse, so it costs
   ``n * k`` numbers, not ``n^2``. It is squared (``power``), so pairs that are together
   in nearly every clustering weigh far more than pairs together in half of them.
3. **Consensus partition** (:func:`partition_graph`): the Leiden algorithm (Traag,
   Waltman & van Eck 2019; igraph's implementation) maximises the modularity of the
   co-association graph, best of ten starts. Groups smaller than HDBSCAN's ``min_cluster_size`` are not topics.
4. **Outliers** (:func:`assign_outliers`): a paper left without a topic joins the topic
   that holds at least ``min_share`` of the cosine-weighted votes of its nearest
   neighbours (repeated until nothing changes), otherwise it stays an outlier.
5. **Confidence** (:func:`membership_confidence`): per paper, the share of clusterings
   in which it landed in the cluster that corresponds to its consensus topic (the
   cluster whose papers mostly carry that topic). A paper reassigned in step 4 usually
   has a low confidence, and the tables flag it (``low_confidence``) instead of hiding it.
6. **Landmarks** (:func:`extend_labels`): for a corpus too large to cluster whole,
   :class:`topics.TopicModel` runs steps 1-5 on a random sample (:mod:`topics.clustering.neighbors`)
   and every other paper takes the topic, and in each clustering the cluster, that its
   nearest sampled papers vote for.

What each step buys, measured on the ICLR 2024 + 2025 lists (4,364 papers) from a bank
of 120 runs, as agreement between consensus fits from disjoint seeds (mean ARI over all
pairs, share of a fit's topics found again in two further fits): 10 runs, one reading,
co-association as is, one Leiden start: 0.892 / 92.5 %; 20 runs, four readings,
squared, one Leiden start: 0.898 / 98.7 %; the same with the best of ten Leiden starts
(then the default): 0.930 / 100 %.
``benchmarks/consensus.py`` repeats the comparison. On later vectors (bf16, fixed-shape
passes) ten such 20-run fits agreed at only 0.884, and a topic that splits in some
fits and not in others failed to come back (ARI between fits is lost mostly to the runs,
not to Leiden: the same 40 runs of the full lists partitioned with five Leiden random
states, each the best of ten starts, agree at mean ARI 0.967, 0.937 and 0.999 on three fits'
runs, one start each at 0.929, 0.952 and 0.962; session 22). Forty runs of 100
epochs each, at the cost of twenty of 200, give 0.929 over ten fits (0.947 over ten
others), and 98.4 % of a fit's topics back in two further fits (91.7 % before); sixty of
70 epochs, 0.937 (0.931) at 10 % more time; forty of 200, 0.953 at twice the time; eighty
of 50 epochs lay the papers out too little (35 topics, 0.899). So the default is 40 runs
of 100 epochs (``benchmarks/consensus.py --epochs``).

:class:`ConsensusClusterer` wraps the steps as a scikit-learn-style clusterer that
BERTopic takes as its ``hdbscan_model`` (with an empty dimensionality reduction, since
the runs reduce the embeddings themselves).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin

from topics.clustering.neighbors import vote
from topics.clustering.runs import parallel_runs as _parallel_runs

__all__ = [
    "ConsensusClusterer",
    "assign_outliers",
    "coassociation",
    "extend_labels",
    "membership_confidence",
    "partition_graph",
    "run_seeds",
]

logger = logging.getLogger(__name__)


def run_seeds(random_state: int, n_runs: int) -> list[int]:
    """The seeds of the runs for ``random_state``: ``random_state * n_runs`` onwards.

    Different ``random_state`` values therefore use disjoint seed sets, so two consensus
    fits with ``random_state`` 0 and 1 are independent replications.
    """
    if n_runs < 1:
        raise ValueError(f"n_runs must be at least 1, got {n_runs}")
    return list(range(int(random_state) * n_runs, (int(random_state) + 1) * n_runs))


def _edges(neighbors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n, k = neighbors.shape
    rows = np.repeat(np.arange(n), k)
    cols = np.asarray(neighbors, dtype=np.int64).ravel()
    keep = rows != cols
    return rows[keep], cols[keep]


def coassociation(labelings: Sequence[Sequence[int]], neighbors: np.ndarray) -> sp.csr_matrix:
    """Share of runs in which each pair of neighbouring papers shares a topic.

    Parameters
    ----------
    labelings
        One topic assignment per run (-1: outlier, which shares a topic with nobody).
    neighbors
        ``(n_docs, k)`` indices of each paper's nearest neighbours (itself may be among them).

    Returns
    -------
    scipy.sparse.csr_matrix
        Symmetric ``(n_docs, n_docs)`` matrix, non-zero only on neighbour pairs that
        shared a topic at least once; the diagonal is empty.
    """
    labelings = np.asarray(labelings)
    if labelings.ndim != 2 or not len(labelings):
        raise ValueError("give at least one labelling, each of one label per document")
    n = labelings.shape[1]
    if neighbors.shape[0] != n:
        raise ValueError(f"neighbour graph has {neighbors.shape[0]} rows for {n} documents")
    rows, cols = _edges(neighbors)
    together = np.zeros(len(rows))
    for labels in labelings:
        together += (labels[rows] == labels[cols]) & (labels[rows] != -1)
    matrix = sp.csr_matrix((together / len(labelings), (rows, cols)), shape=(n, n))
    matrix = matrix.maximum(matrix.T).tocsr()  # an edge found from either side counts once
    matrix.eliminate_zeros()
    return matrix


def partition_graph(
    graph: sp.spmatrix, *, resolution: float = 1.0, min_size: int = 1, random_state: int = 0, restarts: int = 10
) -> np.ndarray:
    """Leiden modularity partition of a weighted graph; groups under ``min_size`` get -1.

    Uses igraph's Leiden (Traag et al. 2019; ``Graph.community_leiden`` with the
    modularity objective, iterated until the partition no longer improves). Leiden is a
    randomised optimiser, and on a co-association graph its seed moves the result about
    as much as the runs' seeds do; so it starts ``restarts`` times (seeds ``random_state
    * restarts`` onwards, disjoint between random states) and keeps the partition of
    highest modularity. Measured on the full lists (``benchmarks/consensus.py``): one
    start per fit, mean ARI 0.898 between independent consensus fits; best of ten,
    0.930. igraph's implementation, in C, reaches the same modularity as the
    ``leidenalg`` package at a twentieth of the time (20,000 landmarks: 0.3 s a start
    against 5.2 s). Groups are numbered by size, largest first; the same graph and
    ``random_state`` give the same partition.
    """
    import random

    import igraph

    if restarts < 1:
        raise ValueError(f"restarts must be at least 1, got {restarts}")
    upper = sp.triu(graph, k=1).tocoo()
    n = graph.shape[0]
    g = igraph.Graph(n=n, edges=np.column_stack([upper.row, upper.col]), edge_attrs={"weight": upper.data})
    best, best_quality = None, -np.inf
    try:
        for seed in range(int(random_state) * restarts, (int(random_state) + 1) * restarts):
            igraph.set_random_number_generator(random.Random(seed))  # not the global random module's state
            membership = g.community_leiden(
                objective_function="modularity", weights="weight", resolution=float(resolution), n_iterations=-1
            ).membership
            quality = g.modularity(membership, weights="weight", resolution=float(resolution))
            if best is None or quality > best_quality:  # a graph without edges has NaN modularity
                best, best_quality = membership, quality
    finally:
        igraph.set_random_number_generator(random)  # igraph's default
    membership = np.asarray(best)
    sizes = np.bincount(membership, minlength=1)
    order = sorted(np.flatnonzero(sizes >= max(min_size, 1)), key=lambda c: (-sizes[c], c))
    relabel = np.full(len(sizes), -1)
    relabel[order] = np.arange(len(order))
    return relabel[membership]


def assign_outliers(
    labels: Sequence[int],
    neighbors: np.ndarray,
    distances: np.ndarray,
    *,
    min_share: float = 0.3,
    max_rounds: int = 20,
) -> np.ndarray:
    """Give outliers the topic of their neighbours where the neighbours agree enough.

    In each round, every paper still at -1 counts the cosine similarities (``1 -
    distance``) of its neighbours per topic; it joins the topic with the largest sum if
    that is at least ``min_share`` of the similarities of all its neighbours (outliers
    included, so a paper among outliers stays one). Rounds repeat until nothing changes.

    Returns
    -------
    numpy.ndarray
        The new labels; papers whose neighbourhood never agreed enough stay -1.
    """
    if not 0 <= min_share <= 1:
        raise ValueError(f"min_share must be between 0 and 1, got {min_share}")
    labels = np.array(labels, dtype=int)
    n = len(labels)
    nb = np.asarray(neighbors)
    weights = np.clip(1.0 - np.asarray(distances, dtype=float), 0.0, None)
    weights[nb == np.arange(n)[:, None]] = 0.0  # a paper does not vote for itself
    total = weights.sum(axis=1)
    n_topics = labels.max() + 1
    if n_topics <= 0:
        return labels
    for _ in range(max_rounds):
        todo = np.flatnonzero(labels == -1)
        if not len(todo):
            break
        neighbour_labels = labels[nb[todo]]
        cells = np.arange(len(todo))[:, None] * (n_topics + 1) + np.where(neighbour_labels == -1, n_topics, neighbour_labels)
        votes = np.bincount(cells.ravel(), weights=weights[todo].ravel(), minlength=len(todo) * (n_topics + 1))
        votes = votes.reshape(len(todo), n_topics + 1)[:, :n_topics]
        best = votes.argmax(axis=1)
        ok = votes[np.arange(len(todo)), best] >= min_share * np.maximum(total[todo], 1e-12)
        ok &= votes.max(axis=1) > 0
        if not ok.any():
            break
        labels[todo[ok]] = best[ok]
    return labels


def membership_confidence(labels: Sequence[int], labelings: Sequence[Sequence[int]]) -> np.ndarray:
    """Per paper, the share of runs in which it landed in its topic.

    In each run, every run cluster is identified with the consensus topic that most of
    its papers carry (ties: the smaller topic id); a paper "lands in its topic" in that
    run when its run cluster is identified with its consensus topic. Papers without a
    consensus topic (-1) get the share of runs in which they were outliers.
    """
    labels = np.asarray(labels)
    hits = np.zeros(len(labels))
    for run in np.asarray(labelings):
        clustered = run != -1
        if clustered.any():
            run_ids, run_index = np.unique(run[clustered], return_inverse=True)
            topics = labels[clustered]
            topic_ids, topic_index = np.unique(topics, return_inverse=True)
            table = np.bincount(run_index * len(topic_ids) + topic_index, minlength=len(run_ids) * len(topic_ids))
            table = table.reshape(len(run_ids), len(topic_ids))
            if topic_ids[0] == -1 and len(topic_ids) > 1:
                table[:, 0] = -1  # a run cluster stands for a topic, not for the outliers
            identified = topic_ids[table.argmax(axis=1)]
            landed = np.zeros(len(labels), dtype=bool)
            landed[clustered] = identified[run_index] == topics
            hits += landed & (labels != -1)
        hits += (labels == -1) & ~clustered
    return hits / len(labelings)


class ConsensusClusterer(BaseEstimator, ClusterMixin):
    """Consensus of ``n_runs`` UMAP + HDBSCAN runs (module docs), as a clusterer.

    Parameters
    ----------
    n_runs
        UMAP runs with different seeds (:func:`run_seeds`), each read four times.
    n_neighbors
        UMAP's neighbourhood; also the neighbours that vote in :func:`assign_outliers`.
    n_components
        Dimensions UMAP reduces to in each run.
    n_epochs
        UMAP's optimisation epochs per run; ``None`` is UMAP's default (500 below 10,000
        documents). Measured on the ICLR lists: 200 epochs cluster as well as 500 (mean
        ARI between two single runs 0.586 vs 0.590), so ten runs of 200 epochs cost less
        than five of 500 (39 s vs 55 s) and their consensus agrees better with an
        independent one (mean ARI 0.88 vs 0.85); in the same way, 40 runs of 100 epochs
        cost what 20 of 200 do (4,364 papers: 21.7 s against 20.3 s; one run on 20,000
        papers: 5.0 s against 8.8-12.1 s) and agree better (module docs).
    min_cluster_size, min_samples
        HDBSCAN's settings in each run; ``min_cluster_size`` is also the smallest
        consensus topic.
    resolution
        Leiden's resolution; larger gives more, smaller topics.
    power
        The co-association is raised to this power before the partition (step 3), so a
        pair together in every clustering keeps weight 1 and a pair together in half of
        them counts 1/4 instead of 1/2: between plain evidence accumulation (1) and
        majority voting (only pairs together in most clusterings, a large power).
    outlier_share
        ``min_share`` of :func:`assign_outliers`; 1 keeps every consensus outlier.
    neighbor_pool
        ``None`` (default): every run's UMAP sees each paper's ``n_neighbors - 1`` nearest
        others of the exact graph. An int: each run sees ``n_neighbors - 1`` others drawn
        by its seed from the ``neighbor_pool`` nearest
        (:func:`topics.clustering.neighbors.drawn_neighbors`), so the runs vary which
        papers are neighbours at the margin as they vary the layout, and the consensus
        no longer follows exactly which paper is the 15th nearest; the co-association,
        the partition and the outliers stay on the exact graph. Measured on the full
        ICLR lists (4,364 papers, ``n_neighbors`` 15; ARI of the topics;
        ``benchmarks/README.md``, session 22): seeds 0-1 of today's vectors and of the
        same rounded to float16 agree at 0.918 (seed bar) and 0.844 (across the vector
        sets) with the exact graph, 36-40 topics; with a pool of 16 at 0.912 and 0.873,
        35-38 topics; 20, 0.906 and 0.867, 33-35; 24, 0.884 and 0.855, 32-34. Judged in
        full, the 16-pool keeps the seed bar (0.895 over 12 pairs) and brings OpenVINO
        bf16's and fp32's topics to 0.850-0.863 (0.800-0.839 with the exact graph), still
        below the bar, and lowers NPMI (0.199 against 0.225); so it is not the default.
    neighbors
        A precomputed ``(indices, distances)`` exact cosine neighbour graph with at
        least ``n_neighbors + 1`` columns (``neighbor_pool + 1`` with a pool; one with fewer
        is computed again here) (each paper first) (:func:`topics.clustering.model.nearest_neighbors`); default:
        computed in ``fit``.
    n_jobs
        Processes the runs are spread over (joblib; ``None``: 1, ``-1``: every core).
        Each run is seeded and single-threaded, so the result does not depend on it.
    random_state
        Chooses the runs' seeds and Leiden's seed: an int (a :class:`topics.TopicModel`
        passes the seed it resolved).

    Attributes
    ----------
    labels_ : ndarray of int
        Consensus topic per document (-1: outlier after reassignment).
    core_labels_ : ndarray of int
        Consensus topics before outliers were reassigned.
    confidence_ : ndarray of float
        :func:`membership_confidence` of each document.
    runs_ : ndarray of int32, shape (4 * n_runs, n_docs)
        The clusterings the consensus was built from: each run's :func:`topics.clustering.runs.readings`, run by run.
    seeds_ : list of int
    reduced_embeddings_ : ndarray
        The first run's UMAP coordinates.
    neighbors_ : tuple of ndarray
        The neighbour graph used: ``(indices, distances)`` with ``n_neighbors + 1`` columns.
    """

    def __init__(
        self,
        *,
        n_runs: int = 40,
        n_neighbors: int = 15,
        n_components: int = 5,
        n_epochs: int | None = 100,
        min_cluster_size: int = 10,
        min_samples: int | None = None,
        resolution: float = 1.0,
        power: float = 2.0,
        outlier_share: float = 0.3,
        neighbor_pool: int | None = None,
        neighbors: tuple[np.ndarray, np.ndarray] | None = None,
        n_jobs: int | None = None,
        random_state: int = 0,
    ):
        self.n_runs = n_runs
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.n_epochs = n_epochs
        self.min_cluster_size = min_cluster_size
        self.min_samples = min_samples
        self.resolution = resolution
        self.power = power
        self.outlier_share = outlier_share
        self.neighbor_pool = neighbor_pool
        self.neighbors = neighbors
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X: np.ndarray, y=None) -> ConsensusClusterer:
        from topics.clustering.neighbors import nearest_neighbors

        X = np.asarray(X, dtype=np.float32)
        n = len(X)
        k = int(min(self.n_neighbors, n - 1))
        seed = int(self.random_state)
        self.seeds_ = run_seeds(seed, self.n_runs)
        pool = None if self.neighbor_pool is None else int(min(max(self.neighbor_pool, k - 1), n - 1))
        graph = self.neighbors if self.neighbors is not None else nearest_neighbors(X, n_neighbors=max(k, pool or 0) + 1)
        if graph[0].shape[0] != n or graph[0].shape[1] < k + 1:
            raise ValueError(f"neighbors must have {n} rows and at least {k + 1} columns, got {graph[0].shape}")
        if pool is not None and graph[0].shape[1] < pool + 1:
            graph = nearest_neighbors(X, n_neighbors=pool + 1)
        indices, distances = graph[0][:, : k + 1], graph[1][:, : k + 1]
        settings = (k, self.n_components, self.n_epochs, self.min_cluster_size, self.min_samples)
        seen = (indices[:, :k], distances[:, :k]) if pool is None else (graph[0][:, : pool + 1], graph[1][:, : pool + 1])
        results = _parallel_runs(X, seen, settings, self.seeds_, self.n_jobs, pool=pool)
        for s, (labels, _) in zip(self.seeds_, results):
            logger.debug("run with seed %d: %d clusters, %.1f %% outliers", s, labels[0].max() + 1, 100 * np.mean(labels[0] == -1))
        clusters = [int(labels[0].max()) + 1 for labels, _ in results]
        outliers = [100 * float(np.mean(labels[0] == -1)) for labels, _ in results]
        logger.info("%d runs: %d to %d clusters, %.1f to %.1f %% outliers", len(results), min(clusters), max(clusters),
                    min(outliers), max(outliers))
        self.runs_ = np.concatenate([labels for labels, _ in results])
        together = coassociation(self.runs_, indices).power(self.power)
        self.core_labels_ = partition_graph(together, resolution=self.resolution, min_size=self.min_cluster_size, random_state=seed)
        self.labels_ = assign_outliers(self.core_labels_, indices, distances, min_share=self.outlier_share)
        self.confidence_ = membership_confidence(self.labels_, self.runs_)
        self.reduced_embeddings_ = results[0][1]
        self.neighbors_ = (indices, distances)
        return self

    # BERTopic calls predict only when transforming new documents, which topics does not do.


def extend_labels(
    labels: Sequence[int] | np.ndarray, landmarks: np.ndarray, graph: tuple[np.ndarray, np.ndarray], *, min_share: float | None = None
) -> np.ndarray:
    """Labels of every document from the labels of the landmarks.

    ``graph`` is a :func:`topics.clustering.neighbors.landmark_graph` over all documents. Each
    document that is not a landmark takes the label its nearest landmarks vote for
    (:func:`topics.clustering.neighbors.vote`, weighted by similarity; -1 counts as a label, so a
    document among outliers is one) or, with ``min_share``, the rule of
    :func:`assign_outliers`: the topic holding at least that share of the votes, else -1.
    ``labels`` of shape ``(m, n_landmarks)`` extends ``m`` labellings at once (without
    ``min_share``).
    """
    indices, distances = graph
    labels = np.asarray(labels)
    # the runs' clusterings keep their int32 (160 rows of 207,204 papers: 133 MB, not 265)
    dtype = labels.dtype if np.issubdtype(labels.dtype, np.signedinteger) else int
    out = np.full((*labels.shape[:-1], len(indices)), -1, dtype=dtype)
    out[..., landmarks] = labels
    if min_share is not None:
        if labels.ndim != 1:
            raise ValueError("min_share extends one labelling at a time")
        return assign_outliers(out, indices, distances, min_share=min_share)
    rest = np.setdiff1d(np.arange(len(indices)), landmarks)
    out[..., rest] = vote(out, indices, distances, rest)
    return out
