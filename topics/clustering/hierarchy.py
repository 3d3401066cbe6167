"""Topics of a small corpus: Ward's hierarchy of the embeddings, split down to a size.

On a few hundred abstracts, UMAP + HDBSCAN have little density to work with: a
consensus of twenty runs is stable but groups papers worse than a plain hierarchy
(``benchmarks/small_corpus.py``: pair F1 against a reading of the 90 bundled abstracts,
and NMI against official areas on samples of AAAI 2021). :func:`ward_topics` builds
Ward's agglomerative hierarchy of the unit-length embeddings (Ward 1963; scipy's
``linkage``) and walks it from the root, splitting a group into its two branches while
both hold at least ``min_cluster_size`` papers -- the size rule's smallest topic
(:func:`topics.clustering.model.size_rule`) -- and keeps the partition along the way with
the highest silhouette: the cut is set by the data and the smallest topic the reader
wants, not by a number of topics. It is deterministic: the same embeddings give the same
topics, whatever the seed.
"""

from __future__ import annotations

import numpy as np

__all__ = ["FixedClusterer", "ward_topics"]


def ward_topics(embeddings: np.ndarray, *, min_cluster_size: int) -> np.ndarray:
    """Topic per paper (0, 1, ... largest first; no outliers) from Ward's hierarchy.

    The hierarchy is split from the root, the highest merge first, while both branches
    of a group hold at least ``min_cluster_size`` papers; of the partitions this passes
    through, the one with the highest mean silhouette (cosine; Rousseeuw 1987) is kept,
    so a theme is not cut in two only because it is large enough to be.
    """
    import heapq

    from scipy.cluster.hierarchy import linkage, to_tree
    from sklearn.metrics import silhouette_score

    x = np.asarray(embeddings, dtype=np.float64)
    if x.ndim != 2 or len(x) < 2:
        raise ValueError(f"need a 2-D array of at least 2 embeddings, got shape {x.shape}")
    if min_cluster_size < 1:
        raise ValueError(f"min_cluster_size must be at least 1, got {min_cluster_size}")
    x = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    root = to_tree(linkage(x, method="ward"))
    open_, done = [(-root.dist, root.id, root)], []
    best_groups, best_score = [root.pre_order()], -np.inf
    while open_:
        _, _, node = heapq.heappop(open_)
        left, right = node.get_left(), node.get_right()
        if left is None or left.get_count() < min_cluster_size or right.get_count() < min_cluster_size:
            done.append(node)
            continue
        for child in (left, right):
            heapq.heappush(open_, (-child.dist, child.id, child))
        groups = [n.pre_order() for _, _, n in open_] + [n.pre_order() for n in done]
        labels = np.empty(len(x), dtype=int)
        for k, members in enumerate(groups):
            labels[members] = k
        score = silhouette_score(x, labels, metric="cosine")
        if score > best_score:
            best_groups, best_score = groups, score
    best_groups = sorted(best_groups, key=lambda g: (-len(g), min(g)))
    labels = np.empty(len(x), dtype=int)
    for k, members in enumerate(best_groups):
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
