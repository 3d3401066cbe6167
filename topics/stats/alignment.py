"""Stable topic ids: the topics of one fit matched one to one with those of another.

Two fits of the same papers (another seed, more data) number their topics
independently; topic 7 of one is not topic 7 of the other. :func:`align_topics` finds
the optimal one-to-one matching (Kuhn 1955; scipy's ``linear_sum_assignment``) of the
reference fit's topics with the other's that maximises the summed Jaccard index of the
papers they share, with the cosine similarity of their centroids, where given, as a tie
breaker (it decides between candidates that share no paper). A pair counts as matched
when it shares at least ``min_jaccard`` of its papers. :func:`relabel` then renumbers the
other fit with the reference's ids, and gives its unmatched topics new ids after the
reference's largest, so a topic keeps its id from one fit to the next.

Unlike :func:`topics.stats.stability.match_topics` (each topic's best match, which two
topics can share), the matching here is one to one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from topics.vectors import unit_rows

__all__ = ["align_topics", "relabel"]

#: Weight of the centroid similarity beside the Jaccard index: small enough never to
#: outweigh a shared paper among thousands, large enough to order pairs that share none.
CENTROID_WEIGHT = 1e-6


def align_topics(
    reference: Sequence[int],
    other: Sequence[int],
    *,
    reference_centroids: Mapping[int, np.ndarray] | None = None,
    other_centroids: Mapping[int, np.ndarray] | None = None,
    min_jaccard: float = 0.5,
) -> pd.DataFrame:
    """Match the topics of two labellings of the same papers one to one.

    ``reference`` and ``other`` are topic labels of the same papers in the same order;
    -1 (outliers) is never matched. ``*_centroids`` map topic ids to centroid vectors.

    Returns
    -------
    pandas.DataFrame
        One row per reference topic then one per unmatched other topic: ``topic`` (the
        reference topic, -1 for an other topic left over), ``match`` (the other fit's
        topic, -1 where none), ``jaccard`` (papers shared over papers in either),
        ``similarity`` (centroid cosine, NaN without centroids), ``matched``
        (``jaccard >= min_jaccard``).
    """
    from scipy.optimize import linear_sum_assignment

    reference, other = np.asarray(reference, dtype=int), np.asarray(other, dtype=int)
    if reference.shape != other.shape:
        raise ValueError(f"labellings of different lengths: {len(reference)} and {len(other)}")
    if not 0 < min_jaccard <= 1:
        raise ValueError(f"min_jaccard must be in (0, 1], got {min_jaccard}")
    ref_ids = np.unique(reference[reference != -1])
    other_ids = np.unique(other[other != -1])
    inter = np.zeros((len(ref_ids), len(other_ids)))
    both = (reference != -1) & (other != -1)
    np.add.at(inter, (np.searchsorted(ref_ids, reference[both]), np.searchsorted(other_ids, other[both])), 1)
    sizes_a = np.array([(reference == t).sum() for t in ref_ids])
    sizes_b = np.array([(other == t).sum() for t in other_ids])
    jaccard = inter / np.maximum(sizes_a[:, None] + sizes_b[None, :] - inter, 1)
    similarity = np.full_like(jaccard, np.nan)
    if reference_centroids is not None and other_centroids is not None and len(ref_ids) and len(other_ids):
        a = unit_rows(np.stack([np.asarray(reference_centroids[int(t)], dtype=float) for t in ref_ids]))
        b = unit_rows(np.stack([np.asarray(other_centroids[int(t)], dtype=float) for t in other_ids]))
        similarity = a @ b.T
    score = jaccard + CENTROID_WEIGHT * np.nan_to_num(similarity)
    rows, cols = linear_sum_assignment(score, maximize=True) if score.size else (np.array([], int), np.array([], int))
    match = dict(zip(rows.tolist(), cols.tolist()))
    out = []
    for i, t in enumerate(ref_ids):
        j = match.get(i)
        out.append({
            "topic": int(t),
            "match": int(other_ids[j]) if j is not None else -1,
            "jaccard": float(jaccard[i, j]) if j is not None else 0.0,
            "similarity": float(similarity[i, j]) if j is not None else np.nan,
        })
    used = set(match.values())
    for j, t in enumerate(other_ids):
        if j not in used:
            out.append({"topic": -1, "match": int(t), "jaccard": 0.0, "similarity": np.nan})
    table = pd.DataFrame(out, columns=["topic", "match", "jaccard", "similarity"])
    table["matched"] = table["jaccard"] >= min_jaccard
    return table


def relabel(other: Sequence[int], alignment: pd.DataFrame) -> np.ndarray:
    """``other``'s labels in the reference's ids (an :func:`align_topics` table): a matched
    topic takes its reference topic's id, an unmatched one a new id after the largest
    reference id (in order of its own id); -1 stays -1."""
    other = np.asarray(other, dtype=int)
    matched = alignment[alignment["matched"]]
    mapping = dict(zip(matched["match"].astype(int), matched["topic"].astype(int)))
    start = int(alignment["topic"].max()) + 1 if len(alignment) else 0
    left = sorted(int(t) for t in np.unique(other[other != -1]) if int(t) not in mapping)
    mapping.update({t: start + k for k, t in enumerate(left)})
    mapping[-1] = -1
    return np.array([mapping[int(t)] for t in other], dtype=int)
