"""Areas over topics: a conference has about twenty areas and many more topics.

:func:`topic_areas` groups topics by the similarity of their centroids: Ward's
hierarchical clustering (Ward 1963) of the unit-length topic centroids, cut into
``n_areas`` groups. Every topic belongs to exactly one area, so each area's papers are
the union of its topics' papers and a reader can drill from an area into its topics.
:func:`area_rule` sets the number of areas from the number of topics (about two and a
half topics per area: 40 topics give 16 areas, 12 give 5).

:func:`area_names` names areas like topics, from c-TF-IDF terms computed over the
areas (BERTopic's ``ClassTfidfTransformer``): with fewer, larger groups the
distinctive phrases are broader ("language models" over "jailbreak attacks").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["area_names", "area_rule", "class_terms", "topic_areas"]

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
        vectors = np.stack([topic_embeddings[t] for t in ids]).astype(float)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        groups = fcluster(linkage(vectors, method="ward"), t=k, criterion="maxclust") - 1
    totals = {g: sum(sizes.get(t, 0) for t, gt in zip(ids, groups) if gt == g) for g in set(groups.tolist())}
    order = sorted(totals, key=lambda g: (-totals[g], min(t for t, gt in zip(ids, groups) if gt == g)))
    rank = {g: i for i, g in enumerate(order)}
    out.update({t: rank[int(g)] for t, g in zip(ids, groups)})
    return out


def class_terms(
    texts: Sequence[str], classes: Sequence[int], analyzer, *, top_n: int = 30
) -> dict[int, list[tuple[str, float]]]:
    """The top ``top_n`` c-TF-IDF terms of each class (BERTopic's class-based TF-IDF).

    The documents of each class are counted together with ``analyzer`` (a
    :class:`topics.labels.PhraseAnalyzer`); weights use BERTopic's
    ``ClassTfidfTransformer(reduce_frequent_words=True)``, as for topics.
    """
    from bertopic.vectorizers import ClassTfidfTransformer
    from sklearn.feature_extraction.text import CountVectorizer

    classes = np.asarray(classes)
    ids = sorted(set(classes.tolist()))
    joined = [" \n ".join(texts[i] for i in np.flatnonzero(classes == c)) for c in ids]
    vectorizer = CountVectorizer(analyzer=analyzer)
    counts = vectorizer.fit_transform(joined)
    weights = ClassTfidfTransformer(reduce_frequent_words=True).fit_transform(counts).toarray()
    vocabulary = vectorizer.get_feature_names_out()
    out = {}
    for row, c in enumerate(ids):
        best = np.argsort(-weights[row], kind="stable")[:top_n]
        out[int(c)] = [(str(vocabulary[j]), float(weights[row, j])) for j in best if weights[row, j] > 0]
    return out


def area_names(
    topic_areas_: Mapping[int, int],
    labels: Sequence[int],
    texts: Sequence[str],
    *,
    analyzer=None,
    outlier_name: str = "outliers (no topic)",
) -> dict[int, str]:
    """A name per area from c-TF-IDF terms over the areas (:func:`class_terms`).

    ``labels`` are the documents' topics; ``topic_areas_`` maps them to areas.
    """
    from topics.labels import PhraseAnalyzer, topic_names

    analyzer = analyzer or PhraseAnalyzer()
    areas = np.array([topic_areas_.get(int(t), -1) for t in labels], dtype=int)
    inside = areas != -1
    names: dict[int, str] = {-1: outlier_name} if (~inside).any() or -1 in topic_areas_ else {}
    if not inside.any():
        return names
    kept = [texts[i] for i in np.flatnonzero(inside)]
    terms = class_terms(kept, areas[inside], analyzer)
    if len(terms) == 1:  # one area: c-TF-IDF has nothing to contrast; name it by its own terms
        only = next(iter(terms))
        names[only] = topic_names(terms, areas[inside], kept, analyzer=analyzer)[only]
        return names
    names.update(topic_names(terms, areas[inside], kept, analyzer=analyzer))
    return names
