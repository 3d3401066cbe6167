"""New papers into the topics of a fitted model, without refitting.

:func:`assign_documents` places each new paper the way a fitted
:class:`topics.TopicModel` places every paper that its consensus did not cluster itself
(the papers outside the landmarks, :mod:`topics.clustering.neighbors`): by the
papers it is nearest to. Three things per paper:

* **topic**: the paper's ``n_neighbors + 1`` nearest fitted papers (cosine; among the
  landmarks where the model had some) vote with their similarities; the paper joins the
  topic with the most votes if that topic holds at least the model's ``outlier_share`` of
  all the votes (outliers' votes included), else it is an outlier (-1). This is the rule
  of :func:`topics.clustering.consensus.assign_outliers` and of the landmark extension,
  so a new paper gets the topic a fitted paper in its place would have got
  (``reduce_outliers=True`` models: any share, as in the fit). A paper the model was
  fitted on -- the same vector, byte for byte, as a text's vector depends on that text
  alone -- keeps the topic and confidence the fit gave it (:func:`fitted_rows`), so
  assigning a model's own papers gives back its topics (BERTopic's ``transform`` does not:
  its issues 103, 370, 905 and 1582).
* **confidence**: the share of the model's clusterings (its consensus runs, each read at
  four granularities) in which the paper lands in its topic, where the paper's cluster in
  each clustering is the one its neighbours vote for -- the quantity a fitted paper's
  ``confidence_`` is (:func:`topics.clustering.consensus.membership_confidence`), computed
  as the landmark extension computes it.
* **novel**: the paper is far from every topic. Its ``similarity`` is the cosine between
  it and the nearest topic centroid; it is novel when that is below the
  ``novelty_quantile`` quantile (default 5 %) of the same similarity over the fitted papers
  (:func:`novelty_cut`; each fitted paper measured against its own topic's centroid
  without itself). The rule is calibrated on the fitted corpus, not a tuned constant: a
  paper like the fitted ones is called novel with probability ``novelty_quantile``, so of
  a new year's papers about that share is novel by chance, and a clearly larger share
  points at topics the model does not have.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from topics.clustering.consensus import membership_confidence
from topics.clustering.neighbors import nearest_neighbors, vote
from topics.naming.labels import OUTLIER_NAME
from topics.vectors import unit_rows

__all__ = [
    "NOVELTY_QUANTILE", "assign_documents", "centroid_similarity", "fitted_rows", "fitted_similarity", "novelty_cut", "place_runs",
    "vote_topics",
]

#: The share of fitted papers that :func:`novelty_cut` leaves below the cut: a paper like
#: the fitted ones is called novel with this probability.
NOVELTY_QUANTILE = 0.05


def _check(model, embeddings: np.ndarray) -> np.ndarray:
    if not hasattr(model, "labels_"):
        from sklearn.exceptions import NotFittedError

        raise NotFittedError("this TopicModel is not fitted yet; call fit(corpus, embeddings) first")
    x = np.asarray(embeddings, dtype=np.float32)
    dim = model.embeddings_.shape[1]
    if x.ndim != 2 or x.shape[1] != dim:
        raise ValueError(f"embeddings must have shape (n, {dim}) like the model's, got {x.shape}; embed with the same backend")
    if not np.isfinite(x).all():
        raise ValueError("embeddings contain NaN or infinite values")
    return x


def _centroids(model) -> tuple[np.ndarray, np.ndarray]:
    """The topic ids (without -1) and their unit centroids, one row each."""
    ids = np.array(sorted(t for t in model.topic_embeddings_ if t != -1), dtype=int)
    if not len(ids):
        raise ValueError("the model has no topic (every paper is an outlier); nothing to assign to")
    return ids, np.stack([np.asarray(model.topic_embeddings_[t], dtype=np.float64) for t in ids])


def centroid_similarity(model, embeddings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each paper's nearest topic centroid and its cosine similarity to it.

    Returns ``(topic, similarity)``, arrays of one value per row of ``embeddings``; the
    outlier topic has no centroid here.
    """
    ids, centroids = _centroids(model)
    sims = unit_rows(_check(model, embeddings), dtype=np.float64) @ centroids.T
    best = sims.argmax(axis=1)
    return ids[best], sims[np.arange(len(sims)), best]


def novelty_cut(model, *, quantile: float = NOVELTY_QUANTILE) -> float:
    """The similarity below which :func:`assign_documents` calls a paper novel: the
    ``quantile`` quantile of :func:`fitted_similarity` over all fitted papers."""
    if not 0 < quantile < 1:
        raise ValueError(f"quantile must be between 0 and 1, got {quantile}")
    return float(np.quantile(fitted_similarity(model), quantile))


def fitted_similarity(model) -> np.ndarray:
    """Each fitted paper's cosine similarity to its nearest topic centroid, where its own
    topic's centroid is recomputed without it (leave-one-out: the paper pulled the fitted
    centroid towards itself, a new paper cannot); outliers are measured against every
    centroid. One value per paper of the model."""
    ids, centroids = _centroids(model)
    raw = np.asarray(model.embeddings_, dtype=np.float64)
    x = unit_rows(raw, dtype=np.float64)
    labels = np.asarray(model.labels_)
    sims = x @ centroids.T
    position = {int(t): k for k, t in enumerate(ids)}
    sums = np.stack([raw[labels == t].sum(axis=0) for t in ids])
    counts = np.array([(labels == t).sum() for t in ids])
    for k, t in enumerate(ids):
        members = np.flatnonzero(labels == t)
        if counts[k] < 2:
            sims[members, k] = -np.inf  # a topic of one paper has no centroid without it
            continue
        rest = sums[k] - raw[members]  # the topic's centroid without each member, up to scale
        sims[members, position[int(t)]] = np.einsum("ij,ij->i", x[members], unit_rows(rest, dtype=np.float64))
    return sims.max(axis=1)


def fitted_rows(model, embeddings: np.ndarray) -> np.ndarray:
    """For each row of ``embeddings``, the position of the model's paper with the same
    vector (equal bytes), or -1: which new papers are papers the model was fitted on."""
    x = np.ascontiguousarray(_check(model, embeddings))
    fitted = np.ascontiguousarray(np.asarray(model.embeddings_, dtype=np.float32))
    known: dict[bytes, int] = {}
    for i in range(len(fitted) - 1, -1, -1):  # the first of equal rows wins
        known[fitted[i].tobytes()] = i
    return np.array([known.get(row.tobytes(), -1) for row in x], dtype=np.int64)


def place_runs(model, embeddings: np.ndarray) -> np.ndarray:
    """The cluster of each new paper in each of the model's clusterings (``runs_``): the
    one its ``n_neighbors + 1`` nearest fitted papers vote for, as for the papers a fit
    extends to from its landmarks. Shape ``(n_clusterings, n_papers)``."""
    x = _check(model, embeddings)
    runs = np.asarray(model.runs_)
    if not len(x):
        return np.empty((len(runs), 0), dtype=runs.dtype)
    indices, distances = _neighbors(model, x)
    return vote(runs[:, np.asarray(model.fitted_documents_)], indices, distances, np.arange(len(x)))


def _neighbors(model, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The new papers' nearest fitted papers (positions among ``fitted_documents_``)."""
    reference = np.asarray(model.fitted_documents_)
    k = min(int(model.params_["n_neighbors"]) + 1, len(reference))
    return nearest_neighbors(x, n_neighbors=k, among=np.asarray(model.embeddings_)[reference])


def vote_topics(labels: np.ndarray, neighbors: np.ndarray, distances: np.ndarray, *, min_share: float) -> np.ndarray:
    """The topic each row's neighbours vote for, by the rule of
    :func:`topics.clustering.consensus.assign_outliers`.

    ``neighbors`` (rows, k) are positions in ``labels``, ``distances`` their cosine
    distances. Each neighbour votes for its topic with its similarity ``1 - distance``
    (at least 0); a row takes the topic with the most votes if it holds at least
    ``min_share`` of all its neighbours' votes (outliers' included), else -1. Ties go to
    the smaller topic id.
    """
    labels = np.asarray(labels, dtype=int)
    nb = np.asarray(neighbors)
    weights = np.clip(1.0 - np.asarray(distances, dtype=np.float64), 0.0, None)
    ids = np.unique(labels[labels != -1])
    if not len(ids):
        return np.full(len(nb), -1, dtype=int)
    index = np.searchsorted(ids, labels[nb])  # position of each neighbour's topic
    index[labels[nb] == -1] = len(ids)  # the outliers' column
    cells = np.arange(len(nb))[:, None] * (len(ids) + 1) + index
    votes = np.bincount(cells.ravel(), weights=weights.ravel(), minlength=len(nb) * (len(ids) + 1))
    votes = votes.reshape(len(nb), len(ids) + 1)
    total = votes.sum(axis=1)
    best = votes[:, :-1].argmax(axis=1)
    top = votes[np.arange(len(nb)), best]
    ok = (top > 0) & (top >= min_share * total)
    return np.where(ok, ids[best], -1)


def assign_documents(model, embeddings: np.ndarray, *, novelty_quantile: float = NOVELTY_QUANTILE) -> pd.DataFrame:
    """Place new papers in the topics of a fitted model (module docs: the three rules).

    Parameters
    ----------
    model
        A fitted :class:`topics.TopicModel` (or one loaded with :func:`topics.load`).
    embeddings
        ``(n, dim)`` embeddings of the new papers, from the backend the model was fitted with.
    novelty_quantile
        The share of fitted papers below the novelty cut (:func:`novelty_cut`).

    Returns
    -------
    pandas.DataFrame
        One row per paper, in order: ``topic`` (-1: outlier), ``topic_label``,
        ``confidence`` (share of the model's clusterings in which the paper lands in its
        topic), ``similarity`` (cosine to the nearest topic centroid), ``nearest_topic``
        (that centroid's topic), ``novel`` (``similarity`` below the cut). ``attrs`` hold
        ``novelty_cut`` and ``novelty_quantile``.
    """
    x = _check(model, embeddings)
    cut = novelty_cut(model, quantile=novelty_quantile)
    columns = ["topic", "topic_label", "confidence", "similarity", "nearest_topic", "novel"]
    if not len(x):
        out = pd.DataFrame({c: pd.Series(dtype=t) for c, t in zip(columns, (int, object, float, float, int, bool))})
        out.attrs.update(novelty_cut=cut, novelty_quantile=novelty_quantile)
        return out
    reference = np.asarray(model.fitted_documents_)
    indices, distances = _neighbors(model, x)
    min_share = 0.0 if model.reduce_outliers else float(model.outlier_share)
    topics = vote_topics(np.asarray(model.labels_)[reference], indices, distances, min_share=min_share)
    runs = np.asarray(model.runs_)
    new_runs = vote(runs[:, reference], indices, distances, np.arange(len(x)))
    # a run cluster stands for the topic most of its papers have; the new papers join
    # the count as the papers outside the landmarks do in the fit
    confidence = membership_confidence(
        np.concatenate([np.asarray(model.labels_), topics]), np.concatenate([runs, new_runs], axis=1)
    )[len(model.labels_):]
    same = fitted_rows(model, x)
    known = same >= 0  # papers the model was fitted on keep what the fit gave them
    topics = np.where(known, np.asarray(model.labels_)[np.maximum(same, 0)], topics)
    confidence = np.where(known, np.asarray(model.confidence_)[np.maximum(same, 0)], confidence)
    nearest, similarity = centroid_similarity(model, x)
    out = pd.DataFrame(
        {
            "topic": topics.astype(int),
            # an outlier is named as the fit names its outliers, also where the fit had none
            "topic_label": [model.topic_names_.get(int(t), OUTLIER_NAME if t == -1 else "") for t in topics],
            "confidence": confidence,
            "similarity": similarity,
            "nearest_topic": nearest.astype(int),
            "novel": similarity < cut,
        },
        columns=columns,
    )
    out.attrs.update(novelty_cut=cut, novelty_quantile=novelty_quantile)
    return out
