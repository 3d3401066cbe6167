"""Topics of a small corpus: Ward's hierarchy of the embeddings, split down to a size.

On a few hundred abstracts, UMAP + HDBSCAN have little density to work with: a
consensus of twenty runs is stable but groups papers worse than a plain hierarchy
(``benchmarks/small_corpus.py``: pair F1 against a reading of the 90 bundled abstracts,
and NMI against official areas on samples of AAAI 2021). :func:`ward_topics` builds
Ward's agglomerative hierarchy of the unit-length embeddings (Ward 1963; scipy's
``linkage``) and walks it from the root, splitting a group into its two branches while
both hold at least ``min_cluster_size`` papers -- the smallest topic the reader wants
(:func:`topics.clustering.model.ward_min_size`) -- and keeps the partition along the way with
the highest silhouette: the cut is set by the data and the smallest topic the reader
wants, not by a number of topics. It is deterministic: the same embeddings give the same
topics, whatever the seed. :func:`ward_areas` takes the areas from the same walk, at a
coarser partition, so each area holds whole topics.
"""

from __future__ import annotations

import numpy as np

from topics.vectors import unit_rows

__all__ = ["FixedClusterer", "ward_areas", "ward_topics"]


def ward_topics(embeddings: np.ndarray, *, min_cluster_size: int, max_share: float = 1.0) -> np.ndarray:
    """Topic per paper (0, 1, ... largest first; no outliers) from Ward's hierarchy.

    The hierarchy is split from the root, the highest merge first, while both branches
    of a group hold at least ``min_cluster_size`` papers; of the partitions this passes
    through, the one with the highest mean silhouette (cosine; Rousseeuw 1987) is kept,
    so a theme is not cut in two only because it is large enough to be.

    ``max_share`` passes over the partitions in which one group holds more than that
    share of the papers (when any other partition is left). On abstracts' embeddings the
    silhouette is low and rises with the number of groups, except at the root's first
    split: a few papers unlike the rest break off, and the two groups score highest of
    all. On six samples of 90 and 150 AAAI and IJCAI papers the plain rule chose that
    split every time, and on the 90 bundled abstracts with groups of at least four (one
    topic of 83 papers); ``TopicModel`` asks that no topic hold more than half the
    corpus.
    """
    from sklearn.metrics import silhouette_score

    x = unit_rows(_checked(embeddings))
    if min_cluster_size < 1:
        raise ValueError(f"min_cluster_size must be at least 1, got {min_cluster_size}")
    if not 0 < max_share <= 1:
        raise ValueError(f"max_share must be in (0, 1], got {max_share}")
    best_groups, best_score = None, -np.inf
    best_any, best_any_score = None, -np.inf  # whatever their largest group
    for groups in _splits(x, min_cluster_size):
        if best_any is None:
            best_any = groups
        if len(groups) == 1:
            continue
        score = silhouette_score(x, _labels(groups, len(x)), metric="cosine")
        if score > best_any_score:
            best_any, best_any_score = groups, score
        if score > best_score and max(map(len, groups)) <= max_share * len(x):
            best_groups, best_score = groups, score
    if best_groups is None:  # no partition keeps every group under max_share
        best_groups = best_any
    return _labels(sorted(best_groups, key=lambda g: (-len(g), min(g))), len(x))


def ward_areas(embeddings: np.ndarray, labels: np.ndarray, *, min_cluster_size: int, n_areas: int) -> dict[int, int]:
    """Area per topic from the same walk down Ward's hierarchy that cut the topics.

    :func:`ward_topics` keeps one partition of the walk; an earlier one, with
    ``n_areas`` groups, is coarser and holds each topic whole, so it groups the topics
    by the papers' own hierarchy rather than by their centroids
    (:func:`topics.clustering.areas.topic_areas`), which leave one area of all the
    topics near the corpus's middle. Areas are numbered by size, largest first; a topic
    goes to the area holding most of its papers.
    """
    x = unit_rows(_checked(embeddings))
    labels = np.asarray(labels)
    coarse = None
    for groups in _splits(x, min_cluster_size):
        coarse = groups
        if len(groups) >= n_areas:
            break
    coarse = sorted(coarse, key=lambda g: (-len(g), min(g)))
    area_of = _labels(coarse, len(x))
    return {int(t): int(np.bincount(area_of[labels == t]).argmax()) for t in np.unique(labels) if t != -1}


def _checked(embeddings: np.ndarray) -> np.ndarray:
    """``embeddings`` as float64, after checking that they are at least 2 rows."""
    x = np.asarray(embeddings, dtype=np.float64)
    if x.ndim != 2 or len(x) < 2:
        raise ValueError(f"need a 2-D array of at least 2 embeddings, got shape {x.shape}")
    return x


def _splits(x: np.ndarray, min_cluster_size: int):
    """The partitions of the walk from the root of Ward's hierarchy of ``x``, one more
    group each: the highest merge is split first, while both its branches hold at least
    ``min_cluster_size`` papers. Each partition is a list of arrays of row positions."""
    import heapq

    from scipy.cluster.hierarchy import linkage, to_tree

    root = to_tree(linkage(x, method="ward"))
    open_, done = [(-root.dist, root.id, root)], []
    yield [np.asarray(root.pre_order())]
    while open_:
        _, _, node = heapq.heappop(open_)
        left, right = node.get_left(), node.get_right()
        if left is None or left.get_count() < min_cluster_size or right.get_count() < min_cluster_size:
            done.append(node)
            continue
        for child in (left, right):
            heapq.heappush(open_, (-child.dist, child.id, child))
        yield [np.asarray(n.pre_order()) for _, _, n in open_] + [np.asarray(n.pre_order()) for n in done]


def _labels(groups, n: int) -> np.ndarray:
    labels = np.empty(n, dtype=int)
    for k, members in enumerate(groups):
        labels[members] = k
    return labels


class FixedClusterer:
    """A clustering step for BERTopic whose labels are already known.

    BERTopic takes any object with ``fit`` and ``labels_`` as its clustering model; this
    one hands back ``labels`` (and, like :class:`topics.clustering.consensus.ConsensusClusterer`,
    ``core_labels_``), so topics found another way get BERTopic's terms.
    """

    def __init__(self, labels: np.ndarray, *, min_cluster_size: int = 1):
        self.labels = np.asarray(labels, dtype=int)
        self.min_cluster_size = min_cluster_size

    def fit(self, X, y=None) -> FixedClusterer:
        if len(X) != len(self.labels):
            raise ValueError(f"{len(self.labels)} labels for {len(X)} documents")
        self.labels_ = self.core_labels_ = self.labels.copy()
        return self
