"""Do the topics, and the changes in their shares, survive another random seed?

UMAP's layout depends on its seed and HDBSCAN's clusters on the layout, so a topic, and
the change in its share between two years, may be an accident of one seed.
:func:`seed_stability` refits the same (unfitted copy of the) model with other seeds on
the same embeddings, matches each topic of the reference fit to the refitted topic that
shares the most papers with it (:func:`match_topics`, Jaccard index of the two paper
sets), and counts in how many seeds the topic comes back and its change points the same
way ("grew", "shrank" or "no clear change" at the same false-discovery rate).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.base import clone

from topics.stats.comparison import TwoGroups
from topics.stats.trends import compare_years

__all__ = ["labeling_stability", "match_topics", "seed_stability"]

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
        A topic "comes back" in a seed when its best match shares at least this Jaccard
        index of papers with it.
    refits
        Models already fitted with ``seeds`` (in that order), to reuse instead of refitting.

    Returns
    -------
    pandas.DataFrame
        As :func:`labeling_stability`.
    """
    if not len(seeds):
        raise ValueError("give at least one seed to compare with")
    if refits is None:
        refits = [clone(model).set_params(random_state=int(seed)).fit(corpus, embeddings) for seed in seeds]
    elif len(refits) != len(seeds):
        raise ValueError(f"{len(refits)} refits for {len(seeds)} seeds")
    return labeling_stability(corpus, model.labels_, comparison, [r.labels_ for r in refits], seeds=seeds, min_jaccard=min_jaccard)


def labeling_stability(
    corpus: pd.DataFrame,
    reference: Sequence[int],
    comparison: TwoGroups,
    others: Sequence[Sequence[int]],
    *,
    seeds: Sequence[int],
    min_jaccard: float = 0.5,
) -> pd.DataFrame:
    """Which topics of the ``reference`` labelling, and which of their changes, hold in ``others``.

    ``others`` are topic assignments of the same documents from refits with ``seeds``;
    ``comparison`` is the reference's two-year comparison (:func:`topics.stats.trends.compare_years`).

    Returns
    -------
    pandas.DataFrame
        One row per topic of ``comparison`` other than -1, in its order: ``topic``,
        ``label``, ``n_seeds``, ``recovered`` (seeds in which the topic came back),
        ``mean_jaccard`` (of the best matches over all seeds), ``same_direction`` (seeds in
        which it came back and its change had the reference's direction),
        ``diff_pp_min`` and ``diff_pp_max`` (the range of the matched topics' changes,
        NaN where it never came back), and ``stable`` (came back with the same direction
        in every seed).
    """
    if not 0 < min_jaccard <= 1:
        raise ValueError(f"min_jaccard must be in (0, 1], got {min_jaccard}")
    if len(others) != len(seeds) or not len(seeds):
        raise ValueError(f"give one labelling per seed, got {len(others)} labellings for {len(seeds)} seeds")
    year_a, year_b = comparison.year_a, comparison.year_b
    counted = comparison.outliers_counted
    table = comparison.table
    reference_table = table[table["topic"] != -1].set_index("topic")
    per_seed = []
    for seed, labels in zip(seeds, others):
        documents = pd.DataFrame({"year": corpus["year"].to_numpy(), "topic": np.asarray(labels)})
        other = compare_years(documents, year_a, year_b, include_outliers=counted).table.set_index("topic")
        matches = match_topics(reference, labels).set_index("topic")
        for topic in reference_table.index:  # every reference topic has a row in matches
            best = matches.loc[topic]
            back = best["jaccard"] >= min_jaccard and int(best["match"]) in other.index
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
        logger.info("seed %d: %d topics", seed, len(other))
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
    out["same_direction"] = out["same_direction"].astype(int)
    out["stable"] = out["same_direction"] == len(seeds)
    out.attrs.update(seeds=[int(s) for s in seeds], min_jaccard=min_jaccard)
    return out[["topic", "label", "n_seeds", "recovered", "mean_jaccard", "same_direction", "diff_pp_min", "diff_pp_max", "stable"]]
