"""Topic prevalence per year (or any grouping) and the statistics that compare it.

Pure pandas/numpy/scipy. The array functions (intervals, :func:`log_odds_z`,
:func:`benjamini_hochberg`, and for three or more groups :func:`cochran_armitage`,
:func:`linear_trend`, :func:`homogeneity_test`) take counts; the table functions take the
tidy documents table (one row per document with at least ``year`` and ``topic``;
``topic_label`` is used when present) and return a new table. Comparisons of three or
more years and of other groupings are built on them in :mod:`topics.stats.groups`. Years differ in size, so everything is expressed as *shares*
of a year's documents, never raw counts.

Outliers (``topic == -1``) are excluded by default: the shares are then shares of the
documents that have a topic. ``include_outliers=True`` keeps topic -1 as a row and
counts every document in the denominators. Each table has an ``outliers_counted``
column that says which.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from topics.stats.comparison import TwoGroups

__all__ = [
    "benjamini_hochberg",
    "cochran_armitage",
    "compare_years",
    "homogeneity_test",
    "linear_trend",
    "log_odds_z",
    "newcombe_diff_ci",
    "pick_years",
    "prevalence",
    "screened_benjamini_hochberg",
    "topic_labels",
    "two_group_table",
    "wilson_interval",
]

Z95 = float(stats.norm.ppf(0.975))


def wilson_interval(successes, n, *, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a binomial proportion (arrays broadcast).

    Returns ``(low, high)`` as proportions; ``n == 0`` gives ``(0, 1)``.
    """
    x = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, x / n, 0.0)
        denom = 1 + z**2 / n
        centre = (p + z**2 / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denom
    low = np.where(n > 0, np.clip(centre - half, 0, 1), 0.0)
    high = np.where(n > 0, np.clip(centre + half, 0, 1), 1.0)
    return low, high


def newcombe_diff_ci(x_a, n_a, x_b, n_b, *, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's hybrid score interval for ``p_b - p_a`` (his method 10, 1998).

    Combines the Wilson intervals ``(l_a, u_a)`` and ``(l_b, u_b)`` of the two proportions:
    ``low = d - sqrt((p_b - l_b)^2 + (u_a - p_a)^2)``, ``high = d + sqrt((u_b - p_b)^2 +
    (p_a - l_a)^2)`` with ``d = p_b - p_a``. Returns proportions (not percentage points).
    """
    x_a, n_a, x_b, n_b = (np.asarray(v, dtype=float) for v in (x_a, n_a, x_b, n_b))
    p_a, p_b = x_a / n_a, x_b / n_b
    l_a, u_a = wilson_interval(x_a, n_a, z=z)
    l_b, u_b = wilson_interval(x_b, n_b, z=z)
    d = p_b - p_a
    low = d - np.sqrt((p_b - l_b) ** 2 + (u_a - p_a) ** 2)
    high = d + np.sqrt((u_b - p_b) ** 2 + (p_a - l_a) ** 2)
    return low, high


def log_odds_z(y_a, y_b, *, prior_strength: float | None = None) -> np.ndarray:
    """Log-odds-ratio z-scores with an informative Dirichlet prior ("Fightin' Words").

    Monroe, Colaresi & Quinn (2008), eq. 22: with topic counts ``y_a`` and ``y_b`` in the
    two years, totals ``n_a`` and ``n_b``, and the prior ``alpha_w = a0 * pooled share of
    topic w``, ``a0 = prior_strength``::

        delta_w = log((y_bw + alpha_w) / (n_b + a0 - y_bw - alpha_w))
                - log((y_aw + alpha_w) / (n_a + a0 - y_aw - alpha_w))
        var_w   = 1/(y_bw + alpha_w) + 1/(n_b + a0 - y_bw - alpha_w)
                + 1/(y_aw + alpha_w) + 1/(n_a + a0 - y_aw - alpha_w)
        z_w     = delta_w / sqrt(var_w)

    ``prior_strength`` defaults to the number of topics, i.e. one pseudo-document per
    topic on average, spread in proportion to the pooled shares. Positive z: more
    prevalent in year b.
    """
    y_a = np.asarray(y_a, dtype=float)
    y_b = np.asarray(y_b, dtype=float)
    n_a, n_b = y_a.sum(), y_b.sum()
    pooled = y_a + y_b
    a0 = float(len(pooled) if prior_strength is None else prior_strength)
    alpha = a0 * pooled / pooled.sum()
    if len(pooled) < 2:
        return np.full(len(pooled), np.nan)  # one topic holds every document: nothing to contrast
    delta = np.log((y_b + alpha) / (n_b + a0 - y_b - alpha)) - np.log((y_a + alpha) / (n_a + a0 - y_a - alpha))
    var = 1 / (y_b + alpha) + 1 / (n_b + a0 - y_b - alpha) + 1 / (y_a + alpha) + 1 / (n_a + a0 - y_a - alpha)
    return delta / np.sqrt(var)


def benjamini_hochberg(p_values) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (q-values), in the input order."""
    p = np.asarray(p_values, dtype=float)
    if p.size == 0:
        return p
    return stats.false_discovery_control(p, method="bh")


def screened_benjamini_hochberg(p_values, least_p_values, *, alpha: float = 0.05) -> np.ndarray:
    """Benjamini-Hochberg q-values over the tests that can pass, for discrete tests
    (Tarone's screen for the false-discovery rate, Gilbert 2005).

    A discrete test (Fisher's exact test of a handful of papers) has a least p-value it
    can reach, fixed by its margins before the data are looked at: 5 papers drawn from a
    topic of which 60 % is the latest year are all of the latest year with probability
    about 0.6^5 = 0.08, so that test can never pass, yet Benjamini-Hochberg counts it.
    Tarone (1990) leaves out the tests that cannot reach the level they would be held to;
    Gilbert (2005) does it for Benjamini-Hochberg: with ``m(k)`` the number of tests whose
    ``least_p_values`` is at most ``alpha / k``, take the smallest ``k`` with ``m(k) <= k``
    and adjust the ``m(k)`` tests left as Benjamini-Hochberg does among themselves. The
    screen reads the margins only, not the p-values, so the false-discovery rate stays
    at ``alpha`` (Gilbert 2005). With every least p-value 0 it is
    :func:`benjamini_hochberg`.

    Returns the q-values in the input order, ``nan`` for the tests left out (they cannot
    pass at ``alpha``); the q-values are for the level ``alpha`` the screen was set at.

    Examples
    --------
    >>> q = screened_benjamini_hochberg([0.001, 0.02, 0.03, 0.5], [1e-6, 1e-6, 0.3, 0.3])
    >>> [round(float(v), 3) for v in q[:2]], bool(np.isnan(q[2:]).all())
    ([0.002, 0.02], True)
    """
    p = np.asarray(p_values, dtype=float)
    least = np.asarray(least_p_values, dtype=float)
    if p.shape != least.shape:
        raise ValueError(f"{p.size} p-values for {least.size} least p-values")
    q = np.full(p.shape, np.nan)
    if p.size == 0:
        return q
    # m(k) never grows with k, so the first k with m(k) <= k exists (m(m) <= m)
    ks = np.arange(1, p.size + 1)
    m_k = np.searchsorted(np.sort(least), alpha / ks, side="right")
    k = int(ks[np.argmax(m_k <= ks)])
    kept = least <= alpha / k
    q[kept] = benjamini_hochberg(p[kept])
    return q


def _arrays(successes, totals, scores=None):
    x = np.asarray(successes, dtype=float)
    n = np.broadcast_to(np.asarray(totals, dtype=float), x.shape)
    if scores is None:
        return x, n
    s = np.broadcast_to(np.asarray(scores, dtype=float), x.shape)
    return x, n, s


def _centred(successes, totals, scores):
    """Counts, totals, the pooled proportion ``p`` and the scores centred on their
    ``n``-weighted mean ``s_j - s_bar``: what the trend test and the slope share."""
    x, n, s = _arrays(successes, totals, scores)
    big_n = n.sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = x.sum(-1) / big_n
        s_bar = (n * s).sum(-1) / big_n
    return x, n, p, s - s_bar[..., None]


def cochran_armitage(successes, totals, scores) -> tuple[np.ndarray, np.ndarray]:
    """Cochran-Armitage test for a linear trend in proportions (Armitage 1955).

    With ``x_j`` successes out of ``n_j`` in group ``j`` scored ``s_j`` (the year), the
    pooled proportion ``p = sum(x) / N`` and ``s_bar = sum(n s) / N``::

        T = sum_j x_j (s_j - s_bar)
        V = p (1 - p) sum_j n_j (s_j - s_bar)^2
        z = T / sqrt(V)

    ``z`` is standard normal under equal proportions in every group (Agresti 2013,
    *Categorical Data Analysis*, sec. 5.3.5; this is the asymptotic form with the
    ``p (1 - p)`` variance, which is the linear-by-linear association statistic times
    ``sqrt(N / (N - 1))``). Arrays broadcast; groups are on the last axis.

    Returns
    -------
    (z, p_value)
        Signed z (positive: proportions rise with the score) and the two-sided p-value.
        Where no trend can be seen (no successes, only successes, or one group with
        documents) ``z = 0`` and ``p = 1``.
    """
    x, n, p, d = _centred(successes, totals, scores)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (x * d).sum(-1)
        v = p * (1 - p) * (n * d**2).sum(-1)
        z = np.where(v > 0, t / np.sqrt(np.where(v > 0, v, 1)), 0.0)
    return z, np.where(v > 0, 2 * stats.norm.sf(np.abs(z)), 1.0)


def linear_trend(successes, totals, scores, *, z: float = Z95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The linear trend that the Cochran-Armitage test tests, with a 95 % interval.

    The slope is the least-squares slope of the proportions ``x_j / n_j`` on the scores,
    weighted by ``n_j``: ``b = sum_j x_j (s_j - s_bar) / S`` with
    ``S = sum_j n_j (s_j - s_bar)^2``. Its variance is the binomial variance of the
    proportions on the fitted line, ``sum_j n_j (s_j - s_bar)^2 f_j (1 - f_j) / S^2``
    with ``f_j = p + b (s_j - s_bar)`` kept inside ``[0.5 / n_j, 1 - 0.5 / n_j]``, and
    the interval is ``b +- z * sqrt(variance)`` (Wald). Arrays broadcast; groups on the
    last axis.

    Returns
    -------
    (slope, low, high)
        In proportion per unit of score (per year for years); multiply by 100 for
        percentage points.
    """
    x, n, p, d = _centred(successes, totals, scores)
    with np.errstate(invalid="ignore", divide="ignore"):
        big_s = (n * d**2).sum(-1)
        b = np.where(big_s > 0, (x * d).sum(-1) / np.where(big_s > 0, big_s, 1), np.nan)
        safe_n = np.where(n > 0, n, 1)
        fitted = np.clip(p[..., None] + b[..., None] * d, 0.5 / safe_n, 1 - 0.5 / safe_n)
        var = (n * d**2 * fitted * (1 - fitted)).sum(-1) / big_s**2
        half = z * np.sqrt(var)
    return b, b - half, b + half


def homogeneity_test(successes, totals) -> tuple[np.ndarray, np.ndarray]:
    """Pearson's chi-square test that the proportion is the same in every group.

    The 2 x k table of successes and failures in ``k`` groups:
    ``X^2 = sum_j (x_j - n_j p)^2 / (n_j p (1 - p))`` with the pooled ``p``, on
    ``k - 1`` degrees of freedom (groups with ``n_j = 0`` do not count). The
    approximation wants expected counts of about 5 or more. Arrays broadcast; groups on
    the last axis.

    Returns
    -------
    (chi2, p_value)
        ``chi2 = 0`` and ``p = 1`` where nothing can differ (no successes, only
        successes, or fewer than two groups with documents).
    """
    x, n = _arrays(successes, totals)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = x.sum(-1) / n.sum(-1)
        q = p * (1 - p)
        expected = n * p[..., None]
        terms = np.where(n > 0, (x - expected) ** 2 / np.where(n > 0, n, 1), 0.0)
        chi2 = np.where(q > 0, terms.sum(-1) / np.where(q > 0, q, 1), 0.0)
    df = (n > 0).sum(-1) - 1
    ok = (q > 0) & (df > 0)
    return np.where(ok, chi2, 0.0), np.where(ok, stats.chi2.sf(chi2, np.maximum(df, 1)), 1.0)


def _check_documents(documents: pd.DataFrame, by: str = "year") -> None:
    missing = {by, "topic"} - set(documents.columns)
    if missing:
        raise ValueError(f"documents table lacks column(s) {', '.join(sorted(missing))}")


def topic_labels(documents: pd.DataFrame) -> pd.Series:
    """The label of each topic (``topic_label`` of its first document), by topic; empty without labels."""
    if "topic_label" in documents:
        return documents.drop_duplicates("topic").set_index("topic")["topic_label"]
    return pd.Series(dtype=str)


def prevalence(documents: pd.DataFrame, *, by: str = "year", include_outliers: bool = False) -> pd.DataFrame:
    """Documents and share of each group's documents per topic (groups are years by default).

    Parameters
    ----------
    documents
        One row per document with ``topic`` and the column ``by``.
    by
        The column that defines the groups: ``"year"``, or any other (``"venue"``,
        ``"status"``). Documents without a value in it are left out.
    include_outliers
        Keep topic -1 as a row and count every document in the denominators.

    Returns
    -------
    pandas.DataFrame
        One row per (group, topic), every topic present in every group (zeros included):
        ``<by>`` (the group: ``year`` by default), ``topic``, ``label``, ``n_docs``,
        ``<by>_total`` (the denominator: ``year_total`` by default), ``share`` (0-1),
        ``ci_low``, ``ci_high`` (95 % Wilson interval of the share),
        ``outliers_counted``. Sorted by group, then topic; ``attrs["by"]`` is ``by``.

    Raises
    ------
    ValueError
        If the table lacks ``topic`` or ``by``, or no document has a topic.

    Examples
    --------
    >>> shares = topics.prevalence(analysis.documents)
    >>> shares.groupby("year")["share"].sum().round(6).tolist()
    [1.0, 1.0]
    """
    _check_documents(documents, by)
    if by in ("topic", "label", "n_docs", "share", "ci_low", "ci_high", "outliers_counted"):
        raise ValueError(f"cannot group by {by!r}: it names a column of the prevalence table")
    docs = documents if include_outliers else documents[documents["topic"] != -1]
    docs = docs[docs[by].notna()]
    if docs.empty:
        raise ValueError("no documents with a topic to count")
    counts = pd.crosstab(docs["topic"], docs[by])
    tidy = counts.stack().rename("n_docs").reset_index()
    totals = docs.groupby(by).size()
    total = f"{by}_total"
    tidy[total] = tidy[by].map(totals)
    tidy["share"] = tidy["n_docs"] / tidy[total]
    tidy["ci_low"], tidy["ci_high"] = wilson_interval(tidy["n_docs"], tidy[total])
    tidy["label"] = tidy["topic"].map(topic_labels(docs)).astype(object).fillna(tidy["topic"].astype(str))
    tidy["outliers_counted"] = include_outliers
    cols = [by, "topic", "label", "n_docs", total, "share", "ci_low", "ci_high", "outliers_counted"]
    out = tidy[cols].sort_values([by, "topic"]).reset_index(drop=True)
    out.attrs["by"] = by
    return out


def compare_years(
    documents: pd.DataFrame,
    year_a: int | None = None,
    year_b: int | None = None,
    *,
    include_outliers: bool = False,
    alpha: float = 0.05,
    prior_strength: float | None = None,
) -> TwoGroups:
    """Compare topic prevalence between two years, topic by topic.

    Parameters
    ----------
    documents
        One row per document with ``year`` and ``topic`` (``topic_label`` optional).
    year_a, year_b
        The earlier and later year. Default: the two years present (an error if the
        table holds more or fewer than two and none are given).
    include_outliers
        Count topic -1 as a topic and all documents in the denominators.
    alpha
        The false-discovery rate below which a change is called "grew" or "shrank".
    prior_strength
        ``a0`` of the log-odds prior (:func:`log_odds_z`); default the number of topics.

    Returns
    -------
    topics.TwoGroups
        Its ``table``: one row per topic, sorted by ``z`` (largest growth first): ``topic``, ``label``,
        ``n_<a>``, ``n_<b>``, ``share_<a>``, ``share_<b>`` (0-1), ``diff_pp``
        (``share_b - share_a`` in percentage points), ``ci_low_pp``, ``ci_high_pp``
        (95 % Newcombe hybrid score interval; NaN where one topic holds every counted
        paper, so that its change is zero by construction), ``z`` (log-odds z-score, informative
        Dirichlet prior), ``p_value`` (two-sided Fisher exact test), ``q_value``
        (Benjamini-Hochberg over topics), ``direction`` ("grew", "shrank" or
        "no clear change"), ``outliers_counted``.

    Raises
    ------
    ValueError
        If a year is not in the table, both years are the same, only one is given, or the
        table holds other than two years and none are named.

    Examples
    --------
    >>> table = topics.compare_years(analysis.documents, 2024, 2025).table
    >>> {"share_2024", "share_2025", "diff_pp", "q_value", "direction"} <= set(table.columns)
    True
    """
    _check_documents(documents)
    year_a, year_b = pick_years(documents, year_a, year_b)
    out = two_group_table(documents, "year", year_a, year_b, include_outliers=include_outliers, prior_strength=prior_strength)
    out["direction"] = np.where(out["q_value"] < alpha, np.where(out["diff_pp"] > 0, "grew", "shrank"), "no clear change")
    out = out.sort_values(["z", "topic"], ascending=[False, True]).reset_index(drop=True)
    out = out[[c for c in out.columns if c != "outliers_counted"] + ["outliers_counted"]]
    docs = documents if include_outliers else documents[documents["topic"] != -1]
    sizes = {y: int((docs["year"] == y).sum()) for y in (year_a, year_b)}
    return TwoGroups(out, by="year", groups=(year_a, year_b), sizes=sizes)


def two_group_table(
    documents: pd.DataFrame,
    by: str,
    group_a,
    group_b,
    *,
    include_outliers: bool = False,
    prior_strength: float | None = None,
) -> pd.DataFrame:
    """The statistics of :func:`compare_years` for any two values of any column.

    ``documents[by]`` holds the group of each document; ``group_b`` is compared with
    ``group_a`` (``diff_pp = share_b - share_a``). Returns the columns of
    :func:`compare_years` up to ``q_value``, then ``outliers_counted`` (no ``direction``:
    its wording depends on the grouping), in topic order.
    """
    docs = documents if include_outliers else documents[documents["topic"] != -1]
    docs = docs[docs[by].isin([group_a, group_b])]
    counts = pd.crosstab(docs["topic"], docs[by]).reindex(columns=[group_a, group_b], fill_value=0)
    if counts.empty:
        raise ValueError(f"no documents with a topic in {by} {group_a} or {group_b}")
    y_a = counts[group_a].to_numpy()
    y_b = counts[group_b].to_numpy()
    n_a, n_b = int(y_a.sum()), int(y_b.sum())
    for group, n in ((group_a, n_a), (group_b, n_b)):
        if n == 0:
            raise ValueError(f"{by} {group} has no documents with a topic; cannot compare shares")
    low, high = newcombe_diff_ci(y_a, n_a, y_b, n_b)
    if len(counts) == 1:  # the only topic holds every paper of both groups: its change is 0 by construction
        low, high = np.full(1, np.nan), np.full(1, np.nan)
    p_values = np.array(
        [stats.fisher_exact([[a, n_a - a], [b, n_b - b]], alternative="two-sided")[1] for a, b in zip(y_a, y_b)]
    )
    diff = y_b / n_b - y_a / n_a
    out = pd.DataFrame(
        {
            "topic": counts.index.to_numpy(),
            f"n_{group_a}": y_a,
            f"n_{group_b}": y_b,
            f"share_{group_a}": y_a / n_a,
            f"share_{group_b}": y_b / n_b,
            "diff_pp": 100 * diff,
            "ci_low_pp": 100 * low,
            "ci_high_pp": 100 * high,
            "z": log_odds_z(y_a, y_b, prior_strength=prior_strength),
            "p_value": p_values,
            "q_value": benjamini_hochberg(p_values),
        }
    )
    out.insert(1, "label", out["topic"].map(topic_labels(docs)).astype(object).fillna(out["topic"].astype(str)))
    out["outliers_counted"] = include_outliers
    return out


def pick_years(documents: pd.DataFrame, year_a: int | None = None, year_b: int | None = None) -> tuple[int, int]:
    """The (earlier, later) years to compare: the two given, or the only two present."""
    present = sorted(int(y) for y in documents["year"].unique())
    if year_a is None and year_b is None:
        if len(present) != 2:
            found = ", ".join(map(str, present)) or "none"
            raise ValueError(
                f"need exactly two years to compare by default, found {len(present)} ({found}); name the two years"
            )
        return present[0], present[1]
    if year_a is None or year_b is None:
        raise ValueError("give both years to compare, or neither")
    for y in (year_a, year_b):
        if y not in present:
            raise ValueError(f"year {y} is not in the corpus (years present: {', '.join(map(str, present))})")
    if year_a == year_b:
        raise ValueError(f"cannot compare year {year_a} with itself")
    return (year_a, year_b) if year_a < year_b else (year_b, year_a)
