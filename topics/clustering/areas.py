"""Areas over topics: a conference has about twenty areas and many more topics.

:func:`topic_areas` groups topics by the similarity of their centroids: Ward's
hierarchical clustering (Ward 1963) of the unit-length topic centroids, cut into
``n_areas`` groups. Every topic belongs to exactly one area, so each area's papers are
the union of its topics' papers and a reader can drill from an area into its topics.
:func:`area_rule` sets the number of areas from the number of topics (about two and a
half topics per area: 40 topics give 16 areas, 12 give 5).

Areas are named by :func:`topics.naming.labels.area_names`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from topics.vectors import unit_rows

__all__ = ["area_rule", "topic_areas"]

#: Topics per area that :func:`area_rule` aims at.
TOPICS_PER_AREA = 2.5


def area_rule(n_topics: int) -> int:
    """Areas for ``n_topics`` topics: ``round(n_topics / 2.5)``, at least 1, at most ``n_topics``."""
    if n_topics <= 0:
        return 0
    return int(min(n_topics, max(1, round(n_topics / TOPICS_PER_AREA))))


def topic_areas(
    topic_embeddings: Mapping[int, np.ndarray], sizes: Mapping[int, int], *, n_areas: int | None = None
) -> dict[int, int]:
    """Group topics into areas by Ward clustering of their centroids.

    Parameters
    ----------
    topic_embeddings
        Unit-length centroid per topic (topic -1, the outliers, gets area -1).
    sizes
        Documents per topic; areas are numbered by their number of documents, largest first.
    n_areas
        How many areas; default :func:`area_rule` of the number of topics.

    Returns
    -------
    dict
        ``{topic: area}``.
    """
    from scipy.cluster.hierarchy import fcluster, linkage

    ids = sorted(t for t in topic_embeddings if t != -1)
    out = {-1: -1} if -1 in topic_embeddings else {}
    if not ids:
        return out
    k = area_rule(len(ids)) if n_areas is None else int(n_areas)
    if not 1 <= k <= len(ids):
        raise ValueError(f"n_areas must be between 1 and the number of topics ({len(ids)}), got {n_areas}")
    if k == len(ids) or len(ids) == 1:
        groups = np.arange(len(ids))
    else:
        vectors = unit_rows(np.stack([topic_embeddings[t] for t in ids]), dtype=float)
        groups = fcluster(linkage(vectors, method="ward"), t=k, criterion="maxclust") - 1
    totals = {g: sum(sizes.get(t, 0) for t, gt in zip(ids, groups) if gt == g) for g in set(groups.tolist())}
    order = sorted(totals, key=lambda g: (-totals[g], min(t for t, gt in zip(ids, groups) if gt == g)))
    rank = {g: i for i, g in enumerate(order)}
    out.update({t: rank[int(g)] for t, g in zip(ids, groups)})
    return out
