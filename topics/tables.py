"""Tidy tables from a fitted :class:`topics.TopicModel`.

Each builder takes the fitted model (and the corpus it was fitted on, where document
columns are needed) and returns a new DataFrame; nothing is mutated.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from topics.model import TopicModel

__all__ = ["document_table", "representative_documents", "term_table", "topic_similarity", "topic_table"]

DOCUMENT_COLUMNS = ["doc_id", "venue", "year", "title", "abstract", "source", "position", "topic", "topic_label"]


def _check(model: TopicModel, corpus: pd.DataFrame | None = None) -> None:
    model._check_fitted()
    if corpus is not None and len(corpus) != len(model.labels_):
        raise ValueError(f"corpus has {len(corpus)} rows but the model was fitted on {len(model.labels_)} documents")


def document_table(model: TopicModel, corpus: pd.DataFrame) -> pd.DataFrame:
    """One row per document with its topic.

    Returns
    -------
    pandas.DataFrame
        ``doc_id``, ``venue``, ``year``, ``title``, ``abstract``, ``source``,
        ``position``, ``topic`` (-1: outlier), ``topic_label``, then the corpus's extra
        columns, in corpus order.
    """
    _check(model, corpus)
    out = corpus.copy()
    out["topic"] = model.labels_
    out["topic_label"] = out["topic"].map(model.topic_names_)
    extra = [c for c in corpus.columns if c not in DOCUMENT_COLUMNS]
    return out[[c for c in DOCUMENT_COLUMNS if c in out.columns] + extra].reset_index(drop=True)


def topic_table(model: TopicModel) -> pd.DataFrame:
    """One row per topic, outliers (-1) first, then by size.

    Returns
    -------
    pandas.DataFrame
        ``topic``, ``label``, ``n_docs``, ``share`` (of all documents, outliers
        counted), ``top_terms`` (comma-separated, best first).
    """
    _check(model)
    rows = []
    n = len(model.labels_)
    for t in model.topics:
        size = int((model.labels_ == t).sum())
        rows.append(
            {
                "topic": t,
                "label": model.topic_names_[t],
                "n_docs": size,
                "share": size / n,
                "top_terms": ", ".join(w for w, _ in model.topic_terms_.get(t, [])),
            }
        )
    return pd.DataFrame(rows, columns=["topic", "label", "n_docs", "share", "top_terms"])


def term_table(model: TopicModel) -> pd.DataFrame:
    """The top c-TF-IDF terms of each topic, long form.

    Returns
    -------
    pandas.DataFrame
        ``topic``, ``label``, ``rank`` (1 = best), ``term``, ``weight``; outliers
        excluded.
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
    """
    _check(model, corpus)
    emb = np.asarray(embeddings, dtype=np.float32)
    emb = emb / np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-12)
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
