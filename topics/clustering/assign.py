"""New papers into the topics of a fitted model, without refitting.

:func:`assign_documents` places each new paper by the fitted papers it is nearest to,
with a vote calibrated so that the fit's own papers, put to it, would be placed as the fit
placed them (the papers outside the landmarks, :mod:`topics.clustering.neighbors`, are
placed by the same vote unweighted). Three things per paper:

* **topic**: the paper's ``n_neighbors + 1`` nearest fitted papers (cosine; among the
  landmarks where the model had some) vote with their similarities, each topic's votes
  times its weight (``vote_weights_``); the paper joins the topic with the most votes if
  that topic holds at least the model's ``vote_cut_`` of all the votes (outliers' votes
  included), else it is an outlier (-1). Both are calibrated on the fit, as the novelty
  cut is, by putting each fitted paper to the same vote among the *other* fitted papers
  (leave-one-out, :func:`leave_one_out`): the weights (:func:`vote_weights`) make that
  vote put as many fitted papers in each topic as the fit did, and the cut
  (:func:`vote_cut`) is the least share that leaves the fit's own outlier share
  (``outlier_share_``) of them below it, never more than ``outlier_share`` (30 %);
  ``reduce_outliers=True`` models: 0, any share, as in the fit. So a paper like the
  fitted ones is an outlier about as often as they are and lands in each topic about as
  often, and a new year of the same kind of papers looks like an old year. (Until session
  24 the vote was unweighted and the cut ``outlier_share`` itself: the rule
  :func:`topics.clustering.consensus.assign_outliers` applies only to the papers the
  consensus left out, while the consensus placed the others. On 400 ICLR 2024 papers
  with random years, with the hashing backend, 50 % of the new year became outliers
  against 1 % of the fitted years -- the same vote made 41 % of the fitted papers
  outliers too -- and the unweighted vote drew papers into large, dense topics; 7 of 10
  such random splits showed a topic changing clearly; ``benchmarks/README.md``.) A fit
  with landmarks has no weights: its other papers were placed by the unweighted vote, and
  new papers are placed as they were. A model saved before ``vote_cut_`` existed assigns
  by the unweighted vote at ``outlier_share``, as then. A paper the model was
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

from collections.abc import Mapping

import numpy as np
import pandas as pd

from topics.clustering.consensus import membership_confidence
from topics.clustering.neighbors import nearest_neighbors, vote
from topics.naming.labels import OUTLIER_NAME
from topics.vectors import unit_rows

__all__ = [
    "NOVELTY_QUANTILE", "assign_documents", "centroid_similarity", "fitted_rows", "fitted_similarity", "fitted_vote_shares",
    "leave_one_out", "novelty_cut", "place_runs", "vote_cut", "vote_shares", "vote_topics", "vote_weights",
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


def vote_topics(labels: np.ndarray, neighbors: np.ndarray, distances: np.ndarray, *, min_share: float,
                topic_weights: Mapping[int, float] | None = None) -> np.ndarray:
    """The topic each row's neighbours vote for, by the rule of
    :func:`topics.clustering.consensus.assign_outliers`.

    ``neighbors`` (rows, k) are positions in ``labels``, ``distances`` their cosine
    distances. Each neighbour votes for its topic with its similarity ``1 - distance``
    (at least 0); a row takes the topic with the most votes if it holds at least
    ``min_share`` of all its neighbours' votes (outliers' included), else -1. Ties go to
    the smaller topic id. ``topic_weights`` multiply each topic's votes (a model's
    ``vote_weights_``, :func:`vote_weights`; default 1).
    """
    topic, top, total = _tally(labels, neighbors, distances, topic_weights)
    return np.where((top > 0) & (top >= min_share * total), topic, -1)


def vote_shares(labels: np.ndarray, neighbors: np.ndarray, distances: np.ndarray,
                topic_weights: Mapping[int, float] | None = None) -> np.ndarray:
    """The share of all its neighbours' votes that each row's leading topic holds (the
    votes of :func:`vote_topics`; 0 where no neighbour has a topic or every weight is 0):
    :func:`vote_topics` gives a row its topic when this is at least ``min_share``."""
    _, top, total = _tally(labels, neighbors, distances, topic_weights)
    return np.divide(top, total, out=np.zeros_like(top), where=total > 0)


def _tally(labels: np.ndarray, neighbors: np.ndarray, distances: np.ndarray,
           topic_weights: Mapping[int, float] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's leading topic (-1 where no neighbour has one), its votes and all the votes;
    each topic's votes times its weight in ``topic_weights`` (default 1)."""
    labels = np.asarray(labels, dtype=int)
    nb = np.asarray(neighbors)
    weights = np.clip(1.0 - np.asarray(distances, dtype=np.float64), 0.0, None)
    ids = np.unique(labels[labels != -1])
    if not len(ids):
        return np.full(len(nb), -1, dtype=int), np.zeros(len(nb)), weights.sum(axis=1)
    index = np.searchsorted(ids, labels[nb])  # position of each neighbour's topic
    index[labels[nb] == -1] = len(ids)  # the outliers' column
    cells = np.arange(len(nb))[:, None] * (len(ids) + 1) + index
    votes = np.bincount(cells.ravel(), weights=weights.ravel(), minlength=len(nb) * (len(ids) + 1))
    votes = votes.reshape(len(nb), len(ids) + 1)
    if topic_weights:
        votes[:, :-1] *= np.array([topic_weights.get(int(t), 1.0) for t in ids])
    best = votes[:, :-1].argmax(axis=1)
    return ids[best], votes[np.arange(len(nb)), best], votes.sum(axis=1)


def fitted_vote_shares(model, neighbors: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """The share of the vote (:func:`vote_shares`, with the model's ``vote_weights_``) each
    paper of the model would get as a new paper: a paper the consensus clustered
    (``fitted_documents_``) from its ``n_neighbors + 1`` nearest *other* such papers
    (leave-one-out, :func:`leave_one_out`), any other paper (a fit with landmarks) from its
    nearest landmarks, as the fit placed it. ``neighbors``: :func:`leave_one_out`'s result,
    where it is at hand. One value per paper."""
    reference = np.asarray(model.fitted_documents_)
    labels = np.asarray(model.labels_)
    weights = getattr(model, "vote_weights_", None)
    shares = np.zeros(len(labels))
    shares[reference] = vote_shares(labels[reference], *(neighbors or leave_one_out(model)), weights)
    rest = np.setdiff1d(np.arange(len(labels)), reference)
    if len(rest):  # the landmark graph: positions among all papers, landmarks only
        shares[rest] = vote_shares(labels, np.asarray(model.neighbors_[0])[rest], np.asarray(model.neighbors_[1])[rest], weights)
    return shares


def leave_one_out(model) -> tuple[np.ndarray, np.ndarray]:
    """Each fitted paper's ``n_neighbors + 1`` nearest other fitted papers, as a new paper
    has them (:func:`nearest_neighbors`'s ``(indices, distances)``, positions among
    ``fitted_documents_``)."""
    x = np.asarray(model.embeddings_)[np.asarray(model.fitted_documents_)]
    k = min(int(model.params_["n_neighbors"]) + 2, len(x))  # the paper itself and n_neighbors + 1 others
    indices, distances = nearest_neighbors(x, n_neighbors=k)
    own = indices == np.arange(len(x))[:, None]
    own[~own.any(axis=1), -1] = True  # an identical paper came first and pushed it out: drop the farthest
    return indices[~own].reshape(len(x), k - 1), distances[~own].reshape(len(x), k - 1)


def vote_weights(model, neighbors: tuple[np.ndarray, np.ndarray] | None = None, *, rounds: int = 200) -> dict[int, float] | None:
    """A weight per topic for the neighbour vote, calibrated so that the fitted papers,
    voted on leave-one-out (:func:`leave_one_out`), land in each topic as often as the fit
    put them there. Unweighted, the vote draws papers into large, dense topics (on 400
    ICLR papers with the hashing backend one topic of 9.5 % got 21 % of the fitted papers'
    votes and 29 % of a new year's), so a new year of the same papers would seem to grow
    there. Multiplicative steps (damped, each at most x2) towards the fit's shares, until
    no topic is off by half a paper or after ``rounds``. ``neighbors``: as in
    :func:`fitted_vote_shares`. ``None``
    for a fit with landmarks, whose other papers were placed by the unweighted vote (new
    papers are placed as they were), and where the fit has no topic."""
    reference = np.asarray(model.fitted_documents_)
    labels = np.asarray(model.labels_)[reference]
    ids = np.unique(labels[labels != -1])
    if len(reference) < len(model.labels_) or not len(ids):
        return None
    indices, distances = neighbors or leave_one_out(model)
    target = np.array([np.sum(labels == t) for t in ids]) / np.sum(labels != -1)  # shares among the placed
    weights = np.ones(len(ids))
    for _ in range(rounds):
        voted = vote_topics(labels, indices, distances, min_share=0.0, topic_weights=dict(zip(ids.tolist(), weights)))
        got = np.array([np.sum(voted == t) for t in ids]) / max(np.sum(voted != -1), 1)
        if np.abs(got - target).max() < 0.5 / len(labels):
            break
        weights *= np.clip(target / np.maximum(got, 0.5 / len(labels)), 0.5, 2.0) ** 0.3
    return {int(t): float(w) for t, w in zip(ids, weights / weights.mean())}


def vote_cut(model, neighbors: tuple[np.ndarray, np.ndarray] | None = None) -> float:
    """The least share of its neighbours' votes (:func:`vote_shares`) a new paper's leading
    topic needs for :func:`assign_documents` to place it there, calibrated on the fit:
    the smallest share that leaves the fit's own outlier share (``outlier_share_``) of its
    papers' :func:`fitted_vote_shares` below it, and never more than the model's
    ``outlier_share`` (the share the fit asks of the papers it votes on); 0 for
    ``reduce_outliers=True`` models, which have no outliers. A fit stores it as
    ``vote_cut_``. ``neighbors``: as in :func:`fitted_vote_shares`."""
    if model.reduce_outliers:
        return 0.0
    if model.outlier_share_ >= 1:
        return float(model.outlier_share)
    shares = np.sort(fitted_vote_shares(model, neighbors))
    return float(min(shares[int(np.floor(model.outlier_share_ * len(shares)))], model.outlier_share))


def _min_share(model) -> float:
    """The share of the vote a new paper's topic needs: the model's calibrated ``vote_cut_``;
    for a model saved before it was stored, the consensus's ``outlier_share`` (0 for
    ``reduce_outliers=True``), the rule of earlier versions."""
    cut = getattr(model, "vote_cut_", None)
    if cut is not None:
        return float(cut)
    return 0.0 if model.reduce_outliers else float(model.outlier_share)


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
    min_share = _min_share(model)
    topics = vote_topics(np.asarray(model.labels_)[reference], indices, distances, min_share=min_share,
                         topic_weights=getattr(model, "vote_weights_", None))
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
