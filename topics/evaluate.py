"""How good are the topics? Scores of a fitted analysis, as a tidy table and a short text.

:func:`score_topics` gathers the scores of :mod:`topics.stats.metrics`, each computed from the
corpus itself: NPMI coherence of each topic's top terms, topic diversity, the outlier
share, the agreement between the fit and refits with other seeds (mean adjusted Rand
index, topics and clear changes that come back), and, where the corpus has a label or
keyword column, the agreement with it. :func:`evaluate_model` refits a
:class:`topics.TopicModel` for the seed agreement; :func:`evaluate_plain_bertopic`
scores BERTopic with its defaults on the same embeddings, the baseline; and
:func:`describe_evaluation` sets tables side by side as text (``topics evaluate``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from topics.stats.metrics import (
    clear_changes_held,
    document_terms,
    keyword_match,
    label_agreement,
    npmi_coherence,
    seed_agreement,
    topic_diversity,
)

__all__ = [
    "describe_evaluation",
    "evaluate_model",
    "evaluate_plain_bertopic",
    "plain_bertopic",
    "score_topics",
]

logger = logging.getLogger(__name__)


def score_topics(
    topics: Sequence[int],
    topic_terms: Mapping[int, Sequence[str]],
    texts: Sequence[str],
    *,
    names: Mapping[int, str | Sequence[str]] | None = None,
    labels: Sequence | None = None,
    refits: Sequence[Sequence[int]] = (),
    changes_held: float | None = None,
    top_n: int = 10,
) -> pd.DataFrame:
    """Every score of one labelling of a corpus, as a tidy table.

    Parameters
    ----------
    topics
        Topic per document (-1: outlier).
    topic_terms
        Top terms per topic, best first.
    texts
        The documents (co-occurrences for NPMI are counted in them).
    names
        Topic names; needed for the keyword score.
    labels
        Reference labels per document: categories, or ``;``-separated keywords.
    refits
        Topic assignments of refits with other seeds (seed agreement needs at least one).
    changes_held
        Share of clear changes that held in every refit, where the caller computed it.

    Returns
    -------
    pandas.DataFrame
        ``metric``, ``value``, ``detail`` (what the number is), one row per score.
    """
    topics = np.asarray(topics)
    if len(topics) != len(texts):
        raise ValueError(f"{len(topics)} topic assignments for {len(texts)} documents")
    coherence = npmi_coherence(topic_terms, document_terms(texts), top_n=top_n)
    n_topics = int(len(set(topics.tolist()) - {-1}))
    rows = [
        ("topics", n_topics, "topics found (outliers not counted)"),
        ("outlier_share", float(np.mean(topics == -1)), "share of papers without a topic"),
        ("npmi", float(coherence["npmi"].mean()), f"mean NPMI coherence of each topic's top {top_n} terms (-1 to 1)"),
        ("diversity", topic_diversity(topic_terms, top_n=top_n), f"share of distinct terms among all topics' top {top_n}"),
    ]
    if len(refits):
        agree = seed_agreement([topics, *refits])
        rows += [
            ("seed_mean_ari", agree["mean_ari"], f"mean ARI between {len(refits) + 1} fits with different seeds"),
            ("seed_min_ari", agree["min_ari"], "lowest ARI between two of those fits"),
            ("topics_recovered", agree["topics_recovered"], "share of topics that came back (Jaccard >= 0.5) in every refit"),
        ]
    if changes_held is not None:
        rows.append(("changes_held", float(changes_held), "share of clear changes that held in every refit"))
    if labels is not None:
        labels = list(labels)
        if any(";" in str(v) for v in labels if v is not None):
            if names is None:
                raise ValueError("scoring against a keyword column needs topic names")
            matched = keyword_match(names, topics, labels)
            rows.append(("keyword_match", float(matched["match"].mean()) if len(matched) else float("nan"),
                         "share of topics whose name matches one of the 8 most frequent keywords of its papers"))
        else:
            for key, value in label_agreement(topics, labels).items():
                rows.append((key, value, f"{key.split('_')[0].upper()} of topics against the labels, outliers "
                             + ("as one group" if key.endswith("with_outliers") else "left out")))
    return pd.DataFrame(rows, columns=["metric", "value", "detail"])


def describe_evaluation(scores: pd.DataFrame | Mapping[str, pd.DataFrame]) -> str:
    """A short plain-text summary of one or more :func:`score_topics` tables.

    With a mapping (model name -> table) the models are shown side by side.
    """
    tables = {"topics": scores} if isinstance(scores, pd.DataFrame) else dict(scores)
    merged = None
    for name, table in tables.items():
        column = table.set_index("metric")["value"].rename(name)
        merged = column.to_frame() if merged is None else merged.join(column, how="outer")
    order = list(dict.fromkeys(m for t in tables.values() for m in t["metric"]))
    merged = merged.reindex(order)
    width = max(len(m) for m in order)
    cell = max(12, *(len(str(n)) + 2 for n in merged.columns))
    lines = [" " * width + "".join(f"{n:>{cell}}" for n in merged.columns)]
    for metric, row in merged.iterrows():
        cells = "".join(f"{_fmt(metric, v):>{cell}}" for v in row)
        lines.append(f"{metric:<{width}}{cells}")
    return "\n".join(lines)


def _fmt(metric: str, value: float) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "-"
    if metric == "topics":
        return f"{int(value)}"
    if metric in ("outlier_share", "topics_recovered", "changes_held", "keyword_match"):
        return f"{100 * value:.1f} %"
    return f"{value:.3f}"


def _two_years(corpus: pd.DataFrame) -> tuple[int, int] | None:
    years = sorted(int(y) for y in corpus["year"].unique())
    return (years[0], years[-1]) if len(years) >= 2 else None


def evaluate_model(
    model,
    corpus: pd.DataFrame,
    embeddings: np.ndarray,
    *,
    refit_seeds: Sequence[int] = (1, 2),
    labels_column: str | None = None,
) -> pd.DataFrame:
    """Score a fitted :class:`topics.TopicModel` (:func:`score_topics`), refitting a
    clone with each of ``refit_seeds`` for the seed agreement.

    With a consensus model, each ``random_state`` draws its own, disjoint set of run
    seeds, so the agreement is between independent consensus fits. With two or more
    years in the corpus, the share of clear changes (first vs last year) that held in
    every refit is scored too.
    """
    from sklearn.base import clone

    from topics.stats.stability import refit_labels

    refits = [refit_labels(clone(model).set_params(random_state=int(s)), corpus, embeddings) for s in refit_seeds]
    terms = {t: [w for w, _ in ts] for t, ts in model.topic_terms_.items()}
    return _scores(corpus, model.labels_, terms, model.topic_names_, refits, refit_seeds, labels_column)


def _scores(corpus, labels, terms, names, refits, seeds, labels_column) -> pd.DataFrame:
    from topics.stats.stability import labeling_stability
    from topics.stats.trends import compare_years

    held = None
    years = _two_years(corpus)
    if years and len(refits):
        documents = pd.DataFrame({"year": corpus["year"].to_numpy(), "topic": np.asarray(labels)})
        try:
            comparison = compare_years(documents, *years)
            comparison.table["label"] = comparison.table["topic"].astype(str)
            stability = labeling_stability(corpus, labels, comparison, refits, seeds=list(seeds))
            held = clear_changes_held(stability, comparison)
        except ValueError as exc:  # e.g. a year without any topic: nothing to compare
            logger.info("no change stability: %s", exc)
    if labels_column is not None and labels_column not in corpus:
        raise ValueError(f"no column {labels_column!r} in the corpus; columns are {', '.join(map(str, corpus.columns))}")
    return score_topics(
        labels,
        terms,
        corpus["abstract"].astype(str).tolist(),
        names=names,
        labels=corpus[labels_column].tolist() if labels_column else None,
        refits=refits,
        changes_held=held,
    )


def plain_bertopic(texts: Sequence[str], embeddings: np.ndarray, *, random_state: int = 0):
    """BERTopic with its defaults on precomputed ``embeddings``, UMAP seeded: the baseline.

    Returns
    -------
    (labels, terms, names)
        Topic per document, the top 10 terms per topic, and per topic the words of
        BERTopic's own name (``"3_transport_optimal_..."`` -> its four words), any of which
        may match a keyword.
    """
    from bertopic import BERTopic
    from umap import UMAP

    umap_model = UMAP(n_neighbors=15, n_components=5, min_dist=0.0, metric="cosine", random_state=int(random_state))
    model = BERTopic(umap_model=umap_model)
    labels, _ = model.fit_transform(list(texts), np.asarray(embeddings))
    terms = {int(t): [w for w, _ in ws][:10] for t, ws in model.topic_representations_.items()}
    names = {int(t): [w for w, _ in ws][:4] for t, ws in model.topic_representations_.items()}
    return np.asarray(labels, dtype=int), terms, names


def evaluate_plain_bertopic(
    corpus: pd.DataFrame,
    embeddings: np.ndarray,
    *,
    random_state: int = 0,
    refit_seeds: Sequence[int] = (1, 2),
    labels_column: str | None = None,
) -> pd.DataFrame:
    """:func:`score_topics` of :func:`plain_bertopic` on the same corpus and embeddings."""
    texts = corpus["abstract"].astype(str).tolist()
    labels, terms, names = plain_bertopic(texts, embeddings, random_state=random_state)
    refits = [plain_bertopic(texts, embeddings, random_state=int(s))[0] for s in refit_seeds]
    return _scores(corpus, labels, terms, names, refits, refit_seeds, labels_column)
