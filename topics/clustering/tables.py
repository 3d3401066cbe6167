"""Tidy tables from a fitted :class:`topics.TopicModel`.

Each builder takes the fitted model (and the corpus it was fitted on, where document
columns are needed) and returns a new DataFrame; nothing is mutated.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sklearn.utils.validation import check_is_fitted

from topics.clustering.model import TopicModel
from topics.io.corpus import CORPUS_COLUMNS
from topics.text import clean_for_terms, paper_title
from topics.vectors import unit_rows

__all__ = [
    "LOW_CONFIDENCE",
    "area_table",
    "document_table",
    "representative_documents",
    "term_table",
    "topic_similarity",
    "topic_table",
]

#: The documents table's columns: the corpus's (:data:`topics.io.corpus.CORPUS_COLUMNS`), then what the model found.
DOCUMENT_COLUMNS = [*CORPUS_COLUMNS, "topic", "topic_label", "confidence", "low_confidence", "area", "area_label"]
#: A paper whose ``confidence`` (share of runs in which it landed in its topic) is below
#: this is flagged ``low_confidence``: most runs put it elsewhere or nowhere.
LOW_CONFIDENCE = 0.5


def _check(model: TopicModel, corpus: pd.DataFrame | None = None) -> None:
    check_is_fitted(model, "labels_", msg="this TopicModel is not fitted yet; call fit(corpus, embeddings) first")
    if corpus is not None and len(corpus) != len(model.labels_):
        raise ValueError(f"corpus has {len(corpus)} rows but the model was fitted on {len(model.labels_)} documents")


def document_table(model: TopicModel, corpus: pd.DataFrame) -> pd.DataFrame:
    """One row per document with its topic, confidence and area.

    Returns
    -------
    pandas.DataFrame
        ``doc_id``, ``venue``, ``year``, ``title``, ``abstract``, ``source``,
        ``position``, ``topic`` (-1: outlier), ``topic_label``, ``confidence`` (share of
        the consensus runs in which the paper landed in its topic), ``low_confidence``
        (``confidence`` below :data:`LOW_CONFIDENCE`), ``area`` (-1 for outliers),
        ``area_label``, then the corpus's extra columns, in corpus order.

    Parameters
    ----------
    model
        A fitted :class:`topics.TopicModel` (``analysis.model``).
    corpus
        The corpus the model was fitted on, in the same order.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If ``model`` is not fitted.
    ValueError
        If ``corpus`` has another number of rows than the model was fitted on.

    Examples
    --------
    >>> docs = topics.document_table(analysis.model, corpus)
    >>> len(docs) == len(corpus)
    True
    >>> docs[["doc_id", "topic", "topic_label", "confidence"]].shape[1]
    4
    """
    _check(model, corpus)
    out = corpus.copy()
    out["topic"] = model.labels_
    out["topic_label"] = out["topic"].map(model.topic_names_)
    out["confidence"] = model.confidence_
    out["low_confidence"] = (model.confidence_ < LOW_CONFIDENCE) & (model.labels_ != -1)
    out["area"] = model.document_areas()
    out["area_label"] = out["area"].map(model.area_names_)
    extra = [c for c in corpus.columns if c not in DOCUMENT_COLUMNS]
    return out[[c for c in DOCUMENT_COLUMNS if c in out.columns] + extra].reset_index(drop=True)


def _typical_titles(model: TopicModel, corpus: pd.DataFrame | None, topic: int, n: int = 3) -> str:
    """The ``n`` papers of ``topic`` closest to its centroid: titles, else the abstracts' first words."""
    idx = np.flatnonzero(model.labels_ == topic)
    emb = unit_rows(model.embeddings_[idx])
    order = idx[np.argsort(-(emb @ model.topic_embeddings_[topic]), kind="stable")][:n]
    titles = []
    for i in order:
        title = str(corpus["title"].iloc[i]) if corpus is not None and "title" in corpus else ""
        text = paper_title(title, corpus["abstract"].iloc[i] if corpus is not None else clean_for_terms(model.texts_[i]), max_chars=80)
        titles.append(text)
    return " | ".join(titles)


def _name_columns(model: TopicModel, level: str, key: int) -> dict:
    """What a topic's or an area's table says of its name (``level``: "topic" or "area"):
    ``label``, ``name_coverage`` (NaN where not measured), ``mixed`` and ``transferred``,
    read from the model's ``<level>_names_``, ``<level>_name_coverage_``, ``<level>_mixed_``
    and ``<level>_transferred_`` (a model without it: nothing transferred)."""
    return {
        "label": getattr(model, f"{level}_names_")[key],
        "name_coverage": getattr(model, f"{level}_name_coverage_").get(key, float("nan")),
        "mixed": bool(getattr(model, f"{level}_mixed_").get(key, False)),
        "transferred": bool(getattr(model, f"{level}_transferred_", {}).get(key, False)),
    }


def topic_table(model: TopicModel, corpus: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per topic, outliers (-1) first, then by size.

    Returns
    -------
    pandas.DataFrame
        ``topic``, ``label``, ``name_coverage`` (the share of its papers that use the
        name, :mod:`topics.naming.coverage`; NaN for -1), ``mixed`` (the name joins two
        themes, "A / B"), ``transferred`` (the name is what related papers call their
        field, an author keyword few of its own papers write: :mod:`topics.naming.fields`), ``area``, ``area_label``, ``n_docs``, ``share`` (of all
        documents, outliers counted), ``mean_confidence`` (of its papers),
        ``top_terms`` (comma-separated, best first), ``typical_titles`` (the three
        papers closest to the topic's centroid, ``" | "``-separated: titles, or the
        first words of the abstract where the corpus has no titles; empty for -1).

    Parameters
    ----------
    model
        A fitted :class:`topics.TopicModel` (``analysis.model``).
    corpus
        The corpus the model was fitted on; needed for ``typical_titles`` (empty without).

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If ``model`` is not fitted.

    Examples
    --------
    >>> table = topics.topic_table(analysis.model, corpus)
    >>> table[["topic", "label", "n_docs", "share"]].shape[1]
    4
    >>> round(float(table["share"].sum()), 6)
    1.0
    """
    _check(model, corpus)
    rows = []
    n = len(model.labels_)
    for t in model.topics:
        members = model.labels_ == t
        rows.append(
            {
                "topic": t,
                **_name_columns(model, "topic", t),
                "area": model.topic_areas_.get(t, -1),
                "area_label": model.area_names_.get(model.topic_areas_.get(t, -1), ""),
                "n_docs": int(members.sum()),
                "share": members.sum() / n,
                "mean_confidence": float(model.confidence_[members].mean()),
                "top_terms": ", ".join(w for w, _ in model.topic_terms_.get(t, [])),
                "typical_titles": _typical_titles(model, corpus, t) if t != -1 else "",
            }
        )
    return pd.DataFrame(rows, columns=TOPIC_COLUMNS)


TOPIC_COLUMNS = ["topic", "label", "name_coverage", "mixed", "transferred", "area", "area_label", "n_docs", "share", "mean_confidence", "top_terms", "typical_titles"]


def area_table(model: TopicModel) -> pd.DataFrame:
    """One row per area, outliers (-1) first, then by size.

    Returns
    -------
    pandas.DataFrame
        ``area``, ``label``, ``name_coverage``, ``mixed``, ``transferred`` (as for topics), ``n_topics``,
        ``n_docs``, ``share`` (of all documents),
        ``topics`` (its topics' names, largest first, ``"; "``-separated).

    Parameters
    ----------
    model
        A fitted :class:`topics.TopicModel` (``analysis.model``).

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If ``model`` is not fitted.

    Examples
    --------
    >>> areas = topics.area_table(analysis.model)
    >>> areas.columns[:3].tolist()
    ['area', 'label', 'name_coverage']
    >>> int(areas["n_docs"].sum()) == len(corpus)
    True
    """
    _check(model)
    doc_areas = model.document_areas()
    rows = []
    for a in model.areas:
        members = [t for t in model.topics if model.topic_areas_.get(t, -1) == a]
        rows.append(
            {
                "area": a,
                **_name_columns(model, "area", a),
                "n_topics": len([t for t in members if t != -1]),
                "n_docs": int((doc_areas == a).sum()),
                "share": float((doc_areas == a).mean()),
                "topics": "; ".join(model.topic_names_[t] for t in members),
            }
        )
    return pd.DataFrame(rows, columns=["area", "label", "name_coverage", "mixed", "transferred", "n_topics", "n_docs", "share", "topics"])


def term_table(model: TopicModel) -> pd.DataFrame:
    """The top c-TF-IDF terms of each topic, long form.

    Returns
    -------
    pandas.DataFrame
        ``topic``, ``label``, ``rank`` (1 = best), ``term``, ``weight``; outliers
        excluded.

    Parameters
    ----------
    model
        A fitted :class:`topics.TopicModel` (``analysis.model``).

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If ``model`` is not fitted.

    Examples
    --------
    >>> terms = topics.term_table(analysis.model)
    >>> terms.columns.tolist()
    ['topic', 'label', 'rank', 'term', 'weight']
    """
    _check(model)
    rows = [
        {"topic": t, "label": model.topic_names_[t], "rank": r, "term": w, "weight": s}
        for t in model.topics
        if t != -1
        for r, (w, s) in enumerate(model.topic_terms_.get(t, []), start=1)
    ]
    return pd.DataFrame(rows, columns=["topic", "label", "rank", "term", "weight"])


def representative_documents(model: TopicModel, corpus: pd.DataFrame, embeddings: np.ndarray, *, n: int = 3) -> pd.DataFrame:
    """The ``n`` documents of each topic closest to its centroid (cosine similarity).

    Returns
    -------
    pandas.DataFrame
        ``topic``, ``rank`` (1 = most central), ``doc_id``, ``year``, ``title``,
        ``abstract``, ``similarity``; outliers excluded.

    Parameters
    ----------
    model
        A fitted :class:`topics.TopicModel` (``analysis.model``).
    corpus
        The corpus the model was fitted on, in the same order.
    embeddings
        The embeddings the model was fitted on (``analysis.embeddings``).
    n
        How many documents per topic.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If ``model`` is not fitted.

    Examples
    --------
    >>> reps = topics.representative_documents(analysis.model, corpus, analysis.embeddings, n=2)
    >>> int(reps.groupby("topic")["rank"].max().max())
    2
    """
    _check(model, corpus)
    emb = unit_rows(embeddings, dtype=np.float32)
    rows = []
    for t in model.topics:
        if t == -1:
            continue
        idx = np.flatnonzero(model.labels_ == t)
        sims = emb[idx] @ model.topic_embeddings_[t]
        order = idx[np.argsort(-sims, kind="stable")][:n]
        for rank, i in enumerate(order, start=1):
            rows.append(
                {
                    "topic": t,
                    "rank": rank,
                    "doc_id": corpus["doc_id"].iloc[i],
                    "year": int(corpus["year"].iloc[i]),
                    "title": corpus["title"].iloc[i],
                    "abstract": corpus["abstract"].iloc[i],
                    "similarity": float(emb[i] @ model.topic_embeddings_[t]),
                }
            )
    return pd.DataFrame(rows, columns=["topic", "rank", "doc_id", "year", "title", "abstract", "similarity"])


def topic_similarity(model: TopicModel) -> pd.DataFrame:
    """Cosine similarity between topic centroids, long form (outliers excluded).

    Returns
    -------
    pandas.DataFrame
        ``topic_a``, ``label_a``, ``topic_b``, ``label_b``, ``similarity``; every
        ordered pair, the diagonal included.

    Parameters
    ----------
    model
        A fitted :class:`topics.TopicModel` (``analysis.model``).

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If ``model`` is not fitted.

    Examples
    --------
    >>> sim = topics.topic_similarity(analysis.model)
    >>> same = sim[sim["topic_a"] == sim["topic_b"]]
    >>> bool((same["similarity"].round(6) == 1).all())
    True
    """
    _check(model)
    ids = [t for t in model.topics if t != -1]
    if not ids:
        return pd.DataFrame(columns=["topic_a", "label_a", "topic_b", "label_b", "similarity"])
    vecs = np.stack([model.topic_embeddings_[t] for t in ids])
    sim = np.clip(vecs @ vecs.T, -1.0, 1.0)
    names = [model.topic_names_[t] for t in ids]
    a, b = np.meshgrid(np.arange(len(ids)), np.arange(len(ids)), indexing="ij")
    return pd.DataFrame(
        {
            "topic_a": np.array(ids)[a.ravel()],
            "label_a": np.array(names, dtype=object)[a.ravel()],
            "topic_b": np.array(ids)[b.ravel()],
            "label_b": np.array(names, dtype=object)[b.ravel()],
            "similarity": sim.ravel(),
        }
    )
