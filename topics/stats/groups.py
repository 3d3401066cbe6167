"""Topic prevalence across any grouping: several years, venues, acceptance status.

:func:`compare_groups` takes the tidy documents table (one row per document with
``topic`` and the grouping column; ``topic_label`` is used when present) and chooses the
analysis from the grouping:

* **two groups** -- the table of :func:`topics.stats.trends.compare_years` for any column:
  shares, Newcombe interval of the difference, log-odds z, Fisher's exact test,
  Benjamini-Hochberg q and a direction;
* **three or more ordered groups** (years) -- a *trend* table: per topic the share in each
  group, the Cochran-Armitage test for a linear trend in proportions, its BH q over
  topics, the slope in percentage points per year with a 95 % interval, and a class
  (emerging, growing, fading, stable, no clear trend; :func:`classify_trends`);
* **three or more unordered groups** (venues) -- per topic Pearson's chi-square test of
  equal shares in every group, its BH q, and per group the log-odds z-score of that
  group against all the others with the pooled shares as prior.

The tests themselves are array functions in :mod:`topics.stats.trends`
(:func:`~topics.stats.trends.cochran_armitage`, :func:`~topics.stats.trends.linear_trend`,
:func:`~topics.stats.trends.homogeneity_test`); they and :func:`classify_trends` work on counts
with the groups on the last axis and broadcast over any leading axes, so thousands of
simulated tables are tested in one call.

Shares are of the documents that have a topic unless ``include_outliers=True`` (then
topic -1 is a row and every document counts); each table says which in
``outliers_counted``.

:func:`check_group_sizes` states the rule for groups too small to compare: a small group
beside much larger ones is named in a warning, and a trend over years that one small,
outlying year would dominate is refused (:func:`topics.analyze` checks it before any work).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from topics.stats.comparison import Comparison, Groups, OneGroup, Trend, TwoGroups
from topics.stats.narration import span_halves
from topics.stats.trends import (
    benjamini_hochberg,
    cochran_armitage,
    homogeneity_test,
    linear_trend,
    log_odds_z,
    topic_labels,
    two_group_table,
    wilson_interval,
)

__all__ = [
    "TREND_CLASSES",
    "check_group_sizes",
    "classify_trends",
    "compare_groups",
    "describe_group",
    "resolve_groups",
]

logger = logging.getLogger(__name__)

TREND_CLASSES = ("emerging", "growing", "fading", "stable", "no clear trend")

#: A group is *small* with fewer than this many papers ...
SMALL_GROUP_PAPERS = 5
#: ... or less than this share of the papers compared (:func:`check_group_sizes`).
SMALL_GROUP_SHARE = 0.01
#: A small year further than this many years from the nearest other year is *outlying*.
OUTLYING_YEAR_GAP = 2
#: The warning on small groups names at most this many (in order), then says how many more.
MAX_SMALL_GROUPS_LISTED = 12


# --------------------------------------------------------------------------- trend classes


def _trend_arrays(counts, totals, scores, *, alpha: float, stable_margin: float, emerging_ratio: float) -> dict:
    """Every statistic of the trend table; counts (..., topics, groups), totals (..., groups)."""
    x = np.asarray(counts, dtype=float)
    n = np.broadcast_to(np.asarray(totals, dtype=float)[..., None, :], x.shape)
    s = np.asarray(scores, dtype=float)
    z, p = cochran_armitage(x, n, s)
    slope, low, high = linear_trend(x, n, s)
    _, chi2_p = homogeneity_test(x, n)
    if x.shape[-2] == 0:
        q = chi2_q = np.zeros(x.shape[:-1])
    else:
        q = stats.false_discovery_control(p, axis=-1, method="bh")
        chi2_q = stats.false_discovery_control(chi2_p, axis=-1, method="bh")
    early, late = (np.array(half, dtype=bool) for half in span_halves(s))
    with np.errstate(invalid="ignore", divide="ignore"):
        early_share = x[..., early].sum(-1) / n[..., early].sum(-1)
        late_share = x[..., late].sum(-1) / n[..., late].sum(-1)
        pooled = x.sum(-1) / n.sum(-1)
    span = s.max() - s.min()
    clear = q < alpha
    # A linear trend that the two halves of the span contradict comes from a peak or dip.
    rising = clear & (slope > 0) & (late_share > early_share)
    falling = clear & (slope < 0) & (late_share < early_share)
    emerging = rising & (early_share < emerging_ratio * late_share)
    flat_enough = np.maximum(np.abs(low), np.abs(high)) * span <= stable_margin * pooled
    stable = ~clear & (chi2_q >= alpha) & flat_enough
    trend = np.select([emerging, rising, falling, stable], list(TREND_CLASSES[:4]), TREND_CLASSES[4])
    return {"z": z, "p_value": p, "q_value": q, "slope": slope, "low": low, "high": high, "chi2_q": chi2_q, "trend": trend}


def classify_trends(
    counts,
    totals,
    scores,
    *,
    alpha: float = 0.05,
    stable_margin: float = 0.5,
    emerging_ratio: float = 0.25,
) -> np.ndarray:
    """The trend class of each topic from its counts per group (the rule of :func:`compare_groups`).

    Parameters
    ----------
    counts
        Documents per topic and group, shape ``(..., topics, groups)``; any leading axes
        are independent tables (e.g. simulated replicates).
    totals
        Documents per group (the denominators), shape ``(..., groups)``.
    scores
        The group scores, shape ``(groups,)``: the years.
    alpha, stable_margin, emerging_ratio
        As in :func:`compare_groups`.

    Returns
    -------
    numpy.ndarray of str, shape ``(..., topics)``
        One of :data:`TREND_CLASSES` per topic; the Benjamini-Hochberg correction runs
        over the topics axis of each table.
    """
    return _trend_arrays(counts, totals, scores, alpha=alpha, stable_margin=stable_margin, emerging_ratio=emerging_ratio)["trend"]


# --------------------------------------------------------------------------- tables


def _sort_groups(values) -> list:
    values = list(values)
    try:
        return sorted(values)
    except TypeError:  # mixed types
        return sorted(values, key=str)


def _native(value):
    return value.item() if isinstance(value, np.generic) else value


def resolve_groups(documents: pd.DataFrame, by: str, groups: Sequence | None = None) -> list:
    """The groups of ``documents[by]`` to compare: ``groups`` checked against the values
    present, or every value present, sorted. Raises ValueError naming a missing column,
    an unknown or repeated group, fewer than two groups, or (groups not given) a column
    other than year with a different value for every paper (``doc_id``, ``title``)."""
    if by not in documents.columns:
        raise ValueError(f"no column {by!r} to group by (columns: {', '.join(map(str, documents.columns))})")
    present = _sort_groups(_native(v) for v in documents[by].dropna().unique())
    if groups is None and by != "year" and len(present) > 2 and len(present) == documents[by].notna().sum():
        raise ValueError(
            f"column {by!r} has a different value for each of its {len(present)} papers: there are no groups to compare; "
            "group by a column that papers share (year, venue, status), or name the groups to compare"
        )
    if groups is None:
        if len(present) < 2:
            found = ", ".join(map(str, present)) or "none"
            if by == "year":
                raise ValueError(f"need at least two years to compare, found {len(present)} ({found})")
            raise ValueError(f"column {by!r} has {len(present)} value{'s' if len(present) != 1 else ''} ({found}); need at least two groups to compare")
        return present
    groups = [_native(g) for g in groups]
    for g in groups:
        if g not in present:
            raise ValueError(f"{by} {g!r} is not in the documents ({by} values present: {', '.join(map(str, present))})")
    if len(set(groups)) != len(groups):
        raise ValueError(f"{by} groups repeat: {', '.join(map(str, groups))}")
    if len(groups) < 2:
        raise ValueError(f"need at least two {'years' if by == 'year' else by + ' groups'} to compare, got {', '.join(map(str, groups))}")
    return groups


def check_group_sizes(sizes: dict, by: str = "year", *, chosen: bool = False) -> None:
    """Warn about groups too small to compare; refuse a trend that one outlying year dominates.

    A group is *small* when it has fewer than :data:`SMALL_GROUP_PAPERS` (5) papers or
    less than :data:`SMALL_GROUP_SHARE` (1 %) of the papers compared.

    * A trend over three or more years scores each year by its value, so one small year
      far from the others (more than :data:`OUTLYING_YEAR_GAP`, 2, years from the nearest
      other year: one paper of 1999 beside 2024 and 2025) sets the spacing of the whole
      trend and makes a false one. Such a year raises :class:`ValueError` saying which
      years to choose instead, unless the years were ``chosen`` explicitly: then it is a
      logged warning.
    * Any other small group with a group at least ten times as large is named in a
      logged warning: its shares and tests rest on very few papers. Several such groups
      (the early years of a long trend) are named together in one warning, with their
      papers, at most :data:`MAX_SMALL_GROUPS_LISTED` (12) of them.

    Parameters
    ----------
    sizes
        Papers per compared group, ``{group: count}``.
    by
        The grouping column; the trend rule applies to ``"year"``.
    chosen
        Whether the user named the groups (``--years``); an outlying year is then a warning.
    """
    total = sum(sizes.values())
    if not total:
        return
    largest = max(sizes, key=sizes.get)

    def small(n: int) -> bool:
        return n < SMALL_GROUP_PAPERS or n < SMALL_GROUP_SHARE * total

    named = set()
    if by == "year" and len(sizes) >= 3:
        years = sorted(sizes)
        for y in years:
            gap = min(abs(y - other) for other in years if other != y)
            if small(sizes[y]) and gap > OUTLYING_YEAR_GAP:
                others = [str(o) for o in years if o != y]
                message = (
                    f"year {y} has {sizes[y]} of the {total} papers and lies {gap} years from the nearest other year: "
                    f"a trend over {', '.join(map(str, years))} would rest on that one year's spacing (no trend is fitted where a "
                    f"year with fewer than {SMALL_GROUP_PAPERS} papers or {100 * SMALL_GROUP_SHARE:g} % of them lies more than "
                    f"{OUTLYING_YEAR_GAP} years from the next year); choose the years to compare with --years, "
                    f"e.g. --years {' '.join(others)}"
                )
                if not chosen:
                    raise ValueError(message)
                logger.warning("%s", message)
                named.add(y)
    few = {g: n for g, n in sizes.items() if g not in named and small(n) and sizes[largest] >= 10 * n}
    if len(few) == 1:
        (g, n), = few.items()
        logger.warning(
            "%s %s has only %d of the %d papers compared (%s %s has %d): its shares and tests rest on very few papers",
            by, g, n, total, by, largest, sizes[largest],
        )
    elif few:
        listed = [f"{g} ({n})" for g, n in list(few.items())[:MAX_SMALL_GROUPS_LISTED]]
        if len(few) > MAX_SMALL_GROUPS_LISTED:
            listed.append(f"{len(few) - MAX_SMALL_GROUPS_LISTED} more")
        listing = ", ".join(listed[:-1]) + " and " + listed[-1]
        logger.warning(
            "%d %s have only %d to %d papers each of the %d compared (%s %s has %d): %s; "
            "their shares and tests rest on very few papers",
            len(few), "years" if by == "year" else f"{by} groups", min(few.values()), max(few.values()), total,
            by, largest, sizes[largest], listing,
        )


def _is_number(value) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def compare_groups(
    documents: pd.DataFrame,
    by: str = "year",
    groups: Sequence | None = None,
    *,
    ordered: bool | None = None,
    include_outliers: bool = False,
    alpha: float = 0.05,
    prior_strength: float | None = None,
    stable_margin: float = 0.5,
    emerging_ratio: float = 0.25,
) -> Comparison:
    """Compare topic prevalence between the groups of any column.

    Parameters
    ----------
    documents
        One row per document with ``topic`` and the column ``by`` (``topic_label``
        optional). Documents with no value in ``by`` are left out.
    by
        The grouping column: ``"year"`` (default), ``"venue"``, ``"status"``, any other.
    groups
        The groups to compare, in order. Default: every value present, sorted.
    ordered
        Whether the groups are ordered (a trend test) or not (a test of equal shares).
        Default: ordered for ``by="year"`` only. Numeric groups are scored by their
        value (so 2021, 2023, 2025 are two years apart), others by their position in
        ``groups``.
    include_outliers
        Count topic -1 as a topic and every document in the denominators.
    alpha
        The false-discovery rate below which a difference or trend is called clear.
    prior_strength
        ``a0`` of the log-odds prior (:func:`topics.stats.trends.log_odds_z`); default the
        number of topics.
    stable_margin
        Trends only: "stable" needs the 95 % interval of the change over the whole span
        (slope x span) inside +-``stable_margin`` x the topic's pooled share.
    emerging_ratio
        Trends only: a clear rise is "emerging" when the topic's share in the first
        half of the span is below ``emerging_ratio`` x its share in the second half.

    Returns
    -------
    Comparison
        A :class:`~topics.stats.comparison.TwoGroups`, :class:`~topics.stats.comparison.Trend`
        or :class:`~topics.stats.comparison.Groups` whose ``table`` has one row per topic,
        with these columns:

        :class:`~topics.stats.comparison.TwoGroups` (two groups, ordered or not): the columns of
        :func:`topics.stats.trends.compare_years` with the two groups in place of the years:
        ``topic``, ``label``, ``n_<a>``, ``n_<b>``, ``share_<a>``, ``share_<b>``,
        ``diff_pp`` (b minus a), ``ci_low_pp``, ``ci_high_pp`` (Newcombe), ``z``,
        ``p_value`` (Fisher), ``q_value`` (BH), ``direction``, ``outliers_counted``;
        sorted by ``z``. ``direction`` is "grew" / "shrank" / "no clear change" for
        years, else "higher in <group>" / "no clear difference".

        :class:`~topics.stats.comparison.Trend` (three or more ordered groups): ``topic``, ``label``, ``n_<g>`` and
        ``share_<g>`` for every group, ``slope_pp`` (percentage points per year, or per
        step for non-numeric groups; :func:`topics.stats.trends.linear_trend`), ``slope_low_pp``,
        ``slope_high_pp`` (95 % interval), ``z`` and ``p_value`` (Cochran-Armitage,
        :func:`topics.stats.trends.cochran_armitage`), ``q_value`` (BH over topics), ``chi2_q`` (BH q of
        :func:`topics.stats.trends.homogeneity_test`: does the share differ between groups at all?),
        ``trend``, ``outliers_counted``; sorted by ``z`` (steepest rise first).
        ``trend`` follows this rule, in order:

        * *emerging*: ``q_value < alpha``, rising, and the share in the first half of the
          span (groups scored below its midpoint) is under ``emerging_ratio`` (1/4) of
          the share in the second half: the topic was rare and rose recently;
        * *growing*: ``q_value < alpha`` and rising;
        * *fading*: ``q_value < alpha`` and falling;
        * *stable*: no clear trend, no clear difference between groups either
          (``chi2_q >= alpha``), and the interval of the change over the span stays
          within +-``stable_margin`` (1/2) of the topic's pooled share: the data rule
          out large changes;
        * *no clear trend*: the rest -- too few papers to tell, or shares that move
          without a linear trend (a peak in a middle year: see ``chi2_q`` and
          :func:`topics.stats.bursts.detect_bursts`).

        :class:`~topics.stats.comparison.Groups` (three or more unordered groups): ``topic``, ``label``, ``n_<g>``
        and ``share_<g>`` for every group, ``share_all`` (pooled), ``z_<g>`` for every
        group (log-odds z of the group against all the others, prior = pooled shares),
        ``chi2``, ``p_value`` (:func:`topics.stats.trends.homogeneity_test`), ``q_value`` (BH),
        ``leans`` ("more in <g>" or "less in <g>" for the group with the largest
        ``|z|`` where ``q_value < alpha``, else "no clear difference"),
        ``outliers_counted``; sorted by ``chi2`` (largest difference first).

        Each also holds ``by``, ``groups`` (in order) and ``sizes`` (documents counted
        per group); a trend also ``scores`` and ``step`` ("year" or "step").

    Raises
    ------
    ValueError
        If ``by`` is not a column, fewer than two groups are present or named, a named group
        is absent or repeated, or (trends) a tiny year far from the others would set the
        trend's spacing.

    Examples
    --------
    >>> by_year = topics.compare_groups(analysis.documents, by="year")
    >>> type(by_year).__name__, by_year.sizes[2024] > 0
    ('TwoGroups', True)
    """
    if "topic" not in documents.columns:
        raise ValueError("documents table lacks column topic")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    groups = resolve_groups(documents, by, groups)
    numeric = all(_is_number(g) for g in groups)
    ordered = (by == "year") if ordered is None else bool(ordered)
    if ordered and numeric:
        groups = sorted(groups)
    docs = documents if include_outliers else documents[documents["topic"] != -1]
    docs = docs[docs[by].isin(groups)]
    totals = docs.groupby(by).size().reindex(groups, fill_value=0)
    empty = [g for g in groups if totals[g] == 0]
    if empty:
        raise ValueError(f"{by} {', '.join(map(str, empty))} has no documents with a topic; cannot compare shares")
    common = {"by": by, "groups": tuple(groups), "sizes": {g: int(totals[g]) for g in groups}}
    if len(groups) == 2:
        table = _two_groups(documents[documents[by].isin(groups)], by, *groups, include_outliers=include_outliers,
                            prior_strength=prior_strength, alpha=alpha)
        return TwoGroups(table, **common)
    counts = pd.crosstab(docs["topic"], docs[by]).reindex(columns=groups, fill_value=0)
    table = _count_columns(counts, docs, groups, totals.to_numpy())
    if ordered:
        scores = np.array(groups, dtype=float) if numeric else np.arange(len(groups), dtype=float)
        table = _trend_columns(table, counts.to_numpy(), totals.to_numpy(), scores, include_outliers=include_outliers,
                               alpha=alpha, stable_margin=stable_margin, emerging_ratio=emerging_ratio)
        return Trend(table, **common, scores=tuple(scores.tolist()), step="year" if numeric and by == "year" else "step")
    table = _group_columns(table, counts.to_numpy(), totals.to_numpy(), groups, include_outliers=include_outliers,
                           alpha=alpha, prior_strength=prior_strength)
    return Groups(table, **common)


def _two_groups(documents: pd.DataFrame, by: str, a, b, *, include_outliers: bool, prior_strength: float | None,
                alpha: float) -> pd.DataFrame:
    """:func:`compare_groups` of two groups: :func:`two_group_table` with each topic's ``direction``."""
    out = two_group_table(documents, by, a, b, include_outliers=include_outliers, prior_strength=prior_strength)
    clear = out["q_value"] < alpha
    if by == "year":
        words = np.where(out["diff_pp"] > 0, "grew", "shrank"), "no clear change"
    else:
        words = np.where(out["diff_pp"] > 0, f"higher in {b}", f"higher in {a}"), "no clear difference"
    out.insert(len(out.columns) - 1, "direction", np.where(clear, words[0], words[1]))
    return out.sort_values(["z", "topic"], ascending=[False, True]).reset_index(drop=True)


def _count_columns(counts: pd.DataFrame, docs: pd.DataFrame, groups: Sequence, n: np.ndarray) -> pd.DataFrame:
    """``topic``, ``label``, then ``n_<g>`` and ``share_<g>`` for every group (``counts``: a
    topic x group crosstab with ``groups`` as columns; ``n``: the documents counted per group)."""
    x = counts.to_numpy()
    out = pd.DataFrame({"topic": counts.index.to_numpy()})
    out["label"] = out["topic"].map(topic_labels(docs)).astype(object).fillna(out["topic"].astype(str))
    for j, g in enumerate(groups):
        out[f"n_{g}"] = x[:, j]
    for j, g in enumerate(groups):
        out[f"share_{g}"] = x[:, j] / n[j]
    return out


def _trend_columns(out: pd.DataFrame, x: np.ndarray, n: np.ndarray, scores: np.ndarray, *, include_outliers: bool,
                   alpha: float, stable_margin: float, emerging_ratio: float) -> pd.DataFrame:
    """:func:`compare_groups` of three or more ordered groups: the slope, its test and each topic's ``trend``."""
    r = _trend_arrays(x, n, scores, alpha=alpha, stable_margin=stable_margin, emerging_ratio=emerging_ratio)
    out["slope_pp"] = 100 * r["slope"]
    out["slope_low_pp"] = 100 * r["low"]
    out["slope_high_pp"] = 100 * r["high"]
    for key in ("z", "p_value", "q_value", "chi2_q", "trend"):
        out[key] = r[key]
    out["outliers_counted"] = include_outliers
    return out.sort_values(["z", "topic"], ascending=[False, True]).reset_index(drop=True)


def _group_columns(out: pd.DataFrame, x: np.ndarray, n: np.ndarray, groups: Sequence, *, include_outliers: bool,
                   alpha: float, prior_strength: float | None) -> pd.DataFrame:
    """:func:`compare_groups` of three or more unordered groups: each group's log-odds z, the
    test of equal shares and where each topic ``leans``."""
    out["share_all"] = x.sum(1) / n.sum()
    z = np.column_stack(
        [log_odds_z(x.sum(1) - x[:, j], x[:, j], prior_strength=prior_strength) for j in range(len(groups))]
    )
    for j, g in enumerate(groups):
        out[f"z_{g}"] = z[:, j]
    chi2, p = homogeneity_test(x, n[None, :])
    out["chi2"] = chi2
    out["p_value"] = p
    out["q_value"] = benjamini_hochberg(p)
    if len(out):
        strongest = np.nanargmax(np.where(np.isnan(z), -np.inf, np.abs(z)), axis=1)
        lead_z = z[np.arange(len(out)), strongest]
        leans = [f"{'more' if zz > 0 else 'less'} in {groups[k]}" for k, zz in zip(strongest, lead_z)]
        out["leans"] = np.where(out["q_value"] < alpha, leans, "no clear difference")
    else:
        out["leans"] = pd.Series(dtype=str)
    out["outliers_counted"] = include_outliers
    return out.sort_values(["chi2", "topic"], ascending=[False, True]).reset_index(drop=True)


def describe_group(documents: pd.DataFrame, by: str = "year", group=None, *, include_outliers: bool = False) -> OneGroup:
    """The topics of one group, where there is nothing to compare (a corpus of one year).

    ``documents`` as for :func:`compare_groups`; ``group`` is the value of ``by`` whose
    papers are described (default: the only one present).

    Returns
    -------
    OneGroup
        Its ``table`` has one row per topic: ``topic``, ``label``, ``n_<g>``,
        ``share_<g>`` (of the group's papers with a topic, or of all its papers with
        ``include_outliers``), ``ci_low``, ``ci_high`` (95 % Wilson interval of the
        share), ``outliers_counted``; largest topic first.
    """
    if "topic" not in documents.columns:
        raise ValueError("documents table lacks column topic")
    if by not in documents.columns:
        raise ValueError(f"no column {by!r} to group by (columns: {', '.join(map(str, documents.columns))})")
    present = _sort_groups(_native(v) for v in documents[by].dropna().unique())
    if group is None:
        if len(present) != 1:
            raise ValueError(f"column {by!r} has {len(present)} values; name the group to describe")
        group = present[0]
    group = _native(group)
    if group not in present:
        raise ValueError(f"{by} {group!r} is not in the documents ({by} values present: {', '.join(map(str, present))})")
    docs = documents[documents[by] == group]
    if not include_outliers:
        docs = docs[docs["topic"] != -1]
    if docs.empty:
        raise ValueError(f"{by} {group} has no documents with a topic; nothing to describe")
    counts = docs["topic"].value_counts()
    out = pd.DataFrame({"topic": counts.index.to_numpy(dtype=int), f"n_{group}": counts.to_numpy(dtype=int)})
    out.insert(1, "label", out["topic"].map(topic_labels(docs)).astype(object).fillna(out["topic"].astype(str)))
    out[f"share_{group}"] = out[f"n_{group}"] / len(docs)
    out["ci_low"], out["ci_high"] = wilson_interval(out[f"n_{group}"].to_numpy(), len(docs))
    out["outliers_counted"] = include_outliers
    out = out.sort_values([f"n_{group}", "topic"], ascending=[False, True]).reset_index(drop=True)
    return OneGroup(out, by=by, groups=(group,), sizes={group: len(docs)})
