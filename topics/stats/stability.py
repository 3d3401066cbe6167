"""Do the topics, and the changes in their shares, survive another random seed?

UMAP's layout depends on its seed and HDBSCAN's clusters on the layout, so a topic, and
the change in its share between two years, may be an accident of one seed.
:func:`seed_stability` refits the same (unfitted copy of the) model with other seeds on
the same embeddings, matches the topics of the reference fit one to one with the
refitted topics (:func:`topics.stats.alignment.align_topics`: the optimal assignment on
the Jaccard index of the papers two topics share, centroid similarity breaking ties), and
counts in how many seeds the topic comes back and its change points the same way
("grew", "shrank" or "no clear change" at the same false-discovery rate). The table says
in how many seeds a topic had no match, and how many refitted topics had no reference
topic to match (``attrs``).

:func:`match_topics` (each topic's best match, which two topics may share) is kept for
callers that want the many-to-one view.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.base import clone

from topics.stats.alignment import align_topics
from topics.stats.comparison import TwoGroups
from topics.stats.trends import compare_years

__all__ = ["STABILITY_COLUMNS", "labeling_stability", "match_topics", "refit_labels", "refits_ran", "seed_stability"]

logger = logging.getLogger(__name__)


def match_topics(reference: Sequence[int], other: Sequence[int]) -> pd.DataFrame:
    """Match each topic of ``reference`` to the topic of ``other`` sharing the most documents.

    Both are topic labels of the same documents, in the same order; -1 (outliers) is
    never matched and never a match.

    Returns
    -------
    pandas.DataFrame
        One row per reference topic: ``topic``, ``match`` (the other labelling's topic
        with the highest Jaccard index, -1 if no document of the topic has a topic
        there), ``jaccard`` (|A and B| / |A or B| of the two document sets).
    """
    reference, other = np.asarray(reference), np.asarray(other)
    if reference.shape != other.shape:
        raise ValueError(f"labellings of different lengths: {reference.shape[0]} and {other.shape[0]}")
    table = pd.crosstab(reference, other)
    rows = []
    for topic in (t for t in table.index if t != -1):
        counts = table.loc[topic].drop(labels=-1, errors="ignore")
        if counts.empty or counts.max() == 0:
            rows.append({"topic": int(topic), "match": -1, "jaccard": 0.0})
            continue
        union = (reference == topic).sum() + table[counts.index].sum(axis=0) - counts
        jaccard = counts / union
        best = jaccard.idxmax()
        rows.append({"topic": int(topic), "match": int(best), "jaccard": float(jaccard[best])})
    return pd.DataFrame(rows, columns=["topic", "match", "jaccard"])


def seed_stability(
    model,
    corpus: pd.DataFrame,
    embeddings: np.ndarray,
    comparison: TwoGroups,
    *,
    seeds: Sequence[int] = (1, 2, 3, 4),
    min_jaccard: float = 0.5,
    refits: Sequence | None = None,
) -> pd.DataFrame:
    """Refit ``model`` with each of ``seeds`` and check which topics and changes hold.

    Parameters
    ----------
    model
        The fitted reference :class:`topics.TopicModel`; refits use an unfitted clone of
        it with only ``random_state`` changed (a consensus model draws a disjoint set of
        run seeds for each ``random_state``). Names given with ``rename`` are kept (they
        label the reference topics); topics joined with ``merge`` are compared as one
        topic against refits that do not merge, so they come back less often.
    corpus, embeddings
        What the reference was fitted on.
    comparison
        The reference two-year comparison (:func:`topics.stats.trends.compare_years`); its years and whether it
        counted outliers are used for every refit.
    seeds
        The other seeds (the reference seed would only repeat the reference fit).
    min_jaccard
        A topic "comes back" in a seed when the refitted topic it is matched to one to one
        shares at least this Jaccard index of papers with it.
    refits
        Models already fitted with ``seeds`` (in that order), to reuse instead of refitting.
        A model whose topics are Ward's hierarchy (``params_["method"] == "ward"``) is not
        refitted: its topics do not depend on the seed, so each refit would repeat them;
        the table's ``attrs["refitted"]`` is then False, so that no one reports refits
        that did not run.

    Returns
    -------
    pandas.DataFrame
        As :func:`labeling_stability`.
    """
    if not len(seeds):
        raise ValueError("give at least one seed to compare with")
    if refits is not None and len(refits) != len(seeds):
        raise ValueError(f"{len(refits)} refits for {len(seeds)} seeds")
    if refits is not None:
        others = [r.labels_ for r in refits]
    elif getattr(model, "params_", {}).get("method") == "ward":  # no seed moves Ward's topics: a refit repeats them
        others = [model.labels_] * len(seeds)
    else:
        others = [refit_labels(clone(model).set_params(random_state=int(seed)), corpus, embeddings) for seed in seeds]
    out = labeling_stability(
        corpus, model.labels_, comparison, others, seeds=seeds, min_jaccard=min_jaccard, embeddings=embeddings,
    )
    out.attrs["refitted"] = refits is not None or getattr(model, "params_", {}).get("method") != "ward"
    if out.attrs["refitted"]:
        logger.info("%d seeds: %d of %d topics came back in every one", len(seeds), int((out["unmatched"] == 0).sum()), len(out))
    else:
        logger.info("Ward's topics do not depend on the seed: no refit for %d seeds", len(seeds))
    return out


def labeling_stability(
    corpus: pd.DataFrame,
    reference: Sequence[int],
    comparison: TwoGroups,
    others: Sequence[Sequence[int]],
    *,
    seeds: Sequence[int],
    min_jaccard: float = 0.5,
    embeddings: np.ndarray | None = None,
) -> pd.DataFrame:
    """Which topics of the ``reference`` labelling, and which of their changes, hold in ``others``.

    ``others`` are topic assignments of the same documents from refits with ``seeds``;
    ``comparison`` is the reference's two-year comparison (:func:`topics.stats.trends.compare_years`).
    Each refit's topics are matched one to one with the reference's
    (:func:`topics.stats.alignment.align_topics`); with ``embeddings`` (one row per
    document) the topics' centroid similarity breaks ties between equal Jaccard indices.

    Returns
    -------
    pandas.DataFrame
        One row per topic of ``comparison`` other than -1, in its order: ``topic``,
        ``label``, ``n_seeds``, ``recovered`` (seeds in which the topic came back),
        ``unmatched`` (seeds in which it had no match: no refitted topic left to pair it
        with, or one sharing less than ``min_jaccard``; ``n_seeds - recovered``),
        ``mean_jaccard`` (of the one-to-one matches over all seeds, 0 where there was
        none), ``same_direction`` (seeds in which it came back and its change had the
        reference's direction), ``diff_pp_min`` and ``diff_pp_max`` (the range of the
        matched topics' changes, NaN where it never came back), and ``stable`` (came back
        with the same direction in every seed). ``attrs`` hold ``seeds``, ``min_jaccard``,
        ``refit_unmatched`` (per seed, in order, the refitted topics no reference topic
        was matched to) and ``refitted`` (True: ``others`` are refits that ran).
    """
    if not 0 < min_jaccard <= 1:
        raise ValueError(f"min_jaccard must be in (0, 1], got {min_jaccard}")
    if len(others) != len(seeds) or not len(seeds):
        raise ValueError(f"give one labelling per seed, got {len(others)} labellings for {len(seeds)} seeds")
    year_a, year_b = comparison.year_a, comparison.year_b
    counted = comparison.outliers_counted
    table = comparison.table
    reference_table = table[table["topic"] != -1].set_index("topic")
    reference = np.asarray(reference, dtype=int)
    reference_centroids = None if embeddings is None else _centroids(embeddings, reference)
    per_seed, refit_unmatched = [], []
    for seed, labels in zip(seeds, others):
        labels = np.asarray(labels, dtype=int)
        documents = pd.DataFrame({"year": corpus["year"].to_numpy(), "topic": labels})
        other = compare_years(documents, year_a, year_b, include_outliers=counted).table.set_index("topic")
        alignment = align_topics(
            reference, labels, min_jaccard=min_jaccard, reference_centroids=reference_centroids,
            other_centroids=None if embeddings is None else _centroids(embeddings, labels),
        )
        matched = alignment[alignment["matched"]]
        refit_unmatched.append(sorted(set(np.unique(labels[labels != -1]).tolist()) - set(matched["match"].tolist())))
        matches = alignment[alignment["topic"] != -1].set_index("topic")
        for topic in reference_table.index:
            best = matches.loc[topic] if topic in matches.index else {"match": -1, "jaccard": 0.0, "matched": False}
            back = bool(best["matched"]) and int(best["match"]) in other.index
            row = other.loc[int(best["match"])] if back else None
            per_seed.append(
                {
                    "topic": int(topic),
                    "seed": int(seed),
                    "jaccard": float(best["jaccard"]),
                    "recovered": bool(back),
                    "same_direction": bool(back and row["direction"] == reference_table.loc[topic, "direction"]),
                    "diff_pp": float(row["diff_pp"]) if back else np.nan,
                }
            )
        logger.debug("seed %d: %d topics, %d matched one to one", seed, len(other), len(matched))
    runs = pd.DataFrame(per_seed)
    summary = runs.groupby("topic", sort=False).agg(
        recovered=("recovered", "sum"),
        mean_jaccard=("jaccard", "mean"),
        same_direction=("same_direction", "sum"),
        diff_pp_min=("diff_pp", "min"),
        diff_pp_max=("diff_pp", "max"),
    )
    out = reference_table[["label"]].join(summary).reset_index()
    out.insert(2, "n_seeds", len(seeds))
    out["recovered"] = out["recovered"].astype(int)
    out["unmatched"] = len(seeds) - out["recovered"]
    out["same_direction"] = out["same_direction"].astype(int)
    out["stable"] = out["same_direction"] == len(seeds)
    out.attrs.update(
        seeds=[int(s) for s in seeds], min_jaccard=min_jaccard, refit_unmatched=refit_unmatched, refitted=True,
    )
    return out[STABILITY_COLUMNS]


def refits_ran(stability: pd.DataFrame, *, method: str | None = None) -> bool:
    """Whether the seed-stability table ``stability`` rests on refits that ran.

    False for an empty table and where no seed moves the topics: ``attrs["refitted"]``
    False (:func:`seed_stability` on Ward's hierarchy), or, for a table that lost its
    ``attrs`` (read back from a file), a model fitted with ``method`` ``"ward"``. A report
    states refits only where this is True.
    """
    if not len(stability):
        return False
    return bool(stability.attrs.get("refitted", method != "ward"))


#: The columns of :func:`labeling_stability`'s table, in order.
STABILITY_COLUMNS = [
    "topic", "label", "n_seeds", "recovered", "unmatched", "mean_jaccard", "same_direction", "diff_pp_min", "diff_pp_max", "stable",
]


def refit_labels(model, corpus: pd.DataFrame, embeddings: np.ndarray) -> np.ndarray:
    """The topic of each document of an unfitted ``model`` fitted to ``corpus``: its
    ``fit_labels`` where it has one (:meth:`topics.TopicModel.fit_labels` skips naming the
    topics, which a refit's alignment never reads), else ``fit(...).labels_``."""
    if hasattr(model, "fit_labels"):
        return np.asarray(model.fit_labels(corpus, embeddings))
    return np.asarray(model.fit(corpus, embeddings).labels_)


def _centroids(embeddings: np.ndarray, labels: np.ndarray) -> dict[int, np.ndarray]:
    """The mean embedding of each topic of ``labels`` (-1 left out)."""
    x = np.asarray(embeddings, dtype=np.float64)
    if len(x) != len(labels):
        raise ValueError(f"{len(x)} embeddings for {len(labels)} documents")
    return {int(t): x[labels == t].mean(axis=0) for t in np.unique(labels[labels != -1])}
