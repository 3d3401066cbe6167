"""Bursts of attention to a topic over years: Kleinberg's two-state automaton.

Kleinberg (2002), "Bursty and hierarchical structure in streams", section 4 (the
"enumerating" model for documents arriving in batches): in batch ``t`` (a year), ``r_t``
of ``d_t`` documents belong to the topic. A hidden state is either *base* (the topic's
share is its overall rate ``p0 = sum(r) / sum(d)``) or *burst* (share ``p1 = s * p0``).
The cost of a state sequence is the negative binomial log-likelihood of the counts plus
``gamma * ln(T)`` for every move from base into burst (leaving a burst is free); the
cheapest sequence, found with the Viterbi algorithm, marks the burst years.

What it adds to a trend test: the *when* of a surge. A topic that peaks in a middle year
and falls back has no linear trend (:func:`topics.stats.groups.compare_groups` calls it "no
clear trend"); its burst says which years it peaked in. For a topic that rises steadily
the burst only repeats the trend (it covers the last years). With two years there is
nothing to add to the two-year comparison, and with 3-5 years a burst is close to "the
years whose share is well above the topic's average" (for ``s = 2``, above about 1.4
times it, by enough papers to pay the transition cost). Topics with few papers are
skipped (``min_docs``): a couple of papers can make a burst.

The automaton makes no promise about chance: with the years of 400 papers drawn at random,
some topic had a burst in 65 of 200 corpora over three years and 130 of 200 over five.
So each burst is tested (:func:`burst_p_values`): the topic's papers in the burst's years
against its papers in the others (one-sided Fisher's exact test, the hypergeometric tail),
multiplied by the number of spans of consecutive years the automaton could have chosen
(a Bonferroni bound over the scan, since the span was chosen by looking at the counts),
and Benjamini-Hochberg over the topics tested. The report tells only the bursts with
``q_value`` under 0.05 (:func:`topics.stats.narration.clear_bursts`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import pandas as pd

from topics.stats.rising import is_single_word, nested_phrases
from topics.stats.trends import benjamini_hochberg, topic_labels

__all__ = ["BURST_COLUMNS", "PHRASE_BURST_COLUMNS", "burst_p_values", "detect_bursts", "kleinberg_states", "phrase_bursts"]

#: The columns of :func:`detect_bursts`.
BURST_COLUMNS = ["topic", "label", "start", "end", "share_burst", "share_all", "weight", "p_value", "q_value"]

#: The columns of :func:`phrase_bursts`.
PHRASE_BURST_COLUMNS = ["phrase", "start", "n_latest", "share_burst", "share_all", "weight"]


def _state_costs(successes, totals, s: float) -> tuple[np.ndarray, np.ndarray]:
    r = np.asarray(successes, dtype=float)
    d = np.broadcast_to(np.asarray(totals, dtype=float), r.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        p0 = r.sum(-1, keepdims=True) / d.sum(-1, keepdims=True)
    p0 = np.nan_to_num(p0)
    p1 = np.minimum(s * p0, 1 - 1e-12)

    def cost(p):  # -log likelihood without the binomial coefficient (the same in both states)
        with np.errstate(divide="ignore", invalid="ignore"):
            return -(np.where(r > 0, r * np.log(p), 0.0) + np.where(d - r > 0, (d - r) * np.log1p(-p), 0.0))

    return cost(p0), cost(p1)


def kleinberg_states(successes, totals, *, s: float = 2.0, gamma: float = 1.0) -> np.ndarray:
    """The cheapest base (0) / burst (1) state of every batch (Kleinberg 2002, two states).

    Parameters
    ----------
    successes, totals
        The topic's documents and all documents per batch; batches on the last axis, any
        leading axes are independent series.
    s
        The burst state's rate as a multiple of the base rate (``s > 1``).
    gamma
        The cost of entering a burst is ``gamma * ln(T)`` for ``T`` batches.

    Returns
    -------
    numpy.ndarray of int
        0 (base) or 1 (burst), the shape of ``successes``. A series with no documents of
        the topic stays in the base state. Ties go to the base state.
    """
    if s <= 1:
        raise ValueError(f"s must be above 1 (the burst rate is s times the base rate), got {s}")
    if gamma < 0:
        raise ValueError(f"gamma must be 0 or more, got {gamma}")
    base, burst = _state_costs(successes, totals, s)
    n_batches = base.shape[-1]
    if n_batches == 0:
        return np.zeros(base.shape, dtype=int)
    tau = gamma * np.log(n_batches) if n_batches > 1 else 0.0
    burst = np.where(np.isnan(burst), np.inf, burst)
    # total[..., 0 or 1]: cheapest cost of the first t batches ending in that state
    total0, total1 = base[..., 0], burst[..., 0] + tau
    from_burst0 = np.zeros(base.shape, dtype=bool)  # best predecessor of state 0 was burst
    from_burst1 = np.zeros(base.shape, dtype=bool)
    for t in range(1, n_batches):
        stay0, leave1 = total0, total1  # into base: from base, or from burst (free)
        from_burst0[..., t] = leave1 < stay0
        new0 = np.minimum(stay0, leave1) + base[..., t]
        enter, stay1 = total0 + tau, total1  # into burst: from base (pay tau), or stay
        from_burst1[..., t] = stay1 < enter
        new1 = np.minimum(enter, stay1) + burst[..., t]
        total0, total1 = new0, new1
    states = np.zeros(base.shape, dtype=int)
    current = (total1 < total0).astype(int)
    for t in range(n_batches - 1, -1, -1):
        states[..., t] = current
        if t:
            current = np.where(current == 1, from_burst1[..., t], from_burst0[..., t]).astype(int)
    return states


def detect_bursts(
    documents: pd.DataFrame,
    *,
    by: str = "year",
    s: float = 2.0,
    gamma: float = 1.0,
    min_docs: int = 20,
    include_outliers: bool = False,
) -> pd.DataFrame:
    """Bursts of each topic over the years (or any ordered numeric column).

    Parameters
    ----------
    documents
        One row per document with ``topic`` and ``by`` (``topic_label`` optional).
    by
        The batch column; its values are sorted (years).
    s, gamma
        As in :func:`kleinberg_states`.
    min_docs
        Topics with fewer documents over all batches are skipped.
    include_outliers
        Count topic -1 as a topic and every document in the denominators.

    Returns
    -------
    pandas.DataFrame
        One row per burst (a topic can have several; topics without one have none):
        ``topic``, ``label``, ``start``, ``end`` (first and last batch of the burst),
        ``share_burst`` (the topic's share of the documents in those batches),
        ``share_all`` (its share over all batches, the base rate), ``weight`` (the cost
        saved by the burst state: the log-likelihood gain, Kleinberg's burst weight),
        ``p_value`` and ``q_value`` of its test against chance (:func:`burst_p_values`);
        sorted by ``weight``, largest first.
    """
    if min_docs < 0:
        raise ValueError(f"min_docs must be 0 or more, got {min_docs}")
    if by not in documents.columns or "topic" not in documents.columns:
        raise ValueError(f"documents table needs columns topic and {by}")
    docs = documents if include_outliers else documents[documents["topic"] != -1]
    docs = docs[docs[by].notna()]
    columns = BURST_COLUMNS
    if docs.empty:
        return pd.DataFrame(columns=columns)
    counts = pd.crosstab(docs["topic"], docs[by])
    counts = counts[sorted(counts.columns)]
    totals = counts.sum(axis=0).to_numpy()
    counts = counts[counts.sum(axis=1) >= min_docs]
    batches = list(counts.columns)
    x = counts.to_numpy()
    states = kleinberg_states(x, totals[None, :], s=s, gamma=gamma)
    base, burst = _state_costs(x, totals[None, :], s)
    labels = topic_labels(docs)
    rows, spans = [], []
    for i, topic in enumerate(counts.index):
        t = 0
        while t < len(batches):
            if states[i, t] != 1:
                t += 1
                continue
            end = t
            while end + 1 < len(batches) and states[i, end + 1] == 1:
                end += 1
            span = slice(t, end + 1)
            rows.append(
                {
                    "topic": topic,
                    "label": labels.get(topic, str(topic)),
                    "start": batches[t],
                    "end": batches[end],
                    "share_burst": x[i, span].sum() / totals[span].sum(),
                    "share_all": x[i].sum() / totals.sum(),
                    "weight": float((base[i, span] - burst[i, span]).sum()),
                }
            )
            spans.append((int(x[i, span].sum()), int(x[i].sum()), int(totals[span].sum())))
            t = end + 1
    p, q = burst_p_values(spans, n_docs=int(totals.sum()), n_batches=len(batches), n_tested=len(counts))
    table = pd.DataFrame(rows, columns=columns[:-2]).assign(p_value=p, q_value=q)
    return table.sort_values("weight", ascending=False, kind="stable").reset_index(drop=True)


def burst_p_values(spans, *, n_docs: int, n_batches: int, n_tested: int) -> tuple[np.ndarray, np.ndarray]:
    """The p- and q-values of bursts (module docs): ``spans`` holds, per burst, the topic's
    papers in the burst's batches, the topic's papers in all, and all papers in the burst's
    batches; ``n_docs`` all papers, ``n_batches`` the batches, ``n_tested`` the topics the
    automaton ran on (each a hypothesis: one without a burst counts with p = 1).

    The p-value is the one-sided hypergeometric tail times the number of spans of
    consecutive batches short of all of them, ``T (T + 1) / 2 - 1``, at most 1.

    Examples
    --------
    >>> p, q = burst_p_values([(30, 40, 100), (6, 40, 100)], n_docs=500, n_batches=5, n_tested=10)
    >>> bool(q[0] < 0.001), bool(q[1] > 0.05)
    (True, True)
    """
    from scipy.stats import hypergeom

    spans = np.asarray(spans, dtype=float).reshape(-1, 3)
    if not len(spans):
        return np.empty(0), np.empty(0)
    in_burst, of_topic, in_span = spans.T
    scans = max(n_batches * (n_batches + 1) // 2 - 1, 1)
    p = np.minimum(hypergeom.sf(in_burst - 1, n_docs, of_topic, in_span) * scans, 1.0)
    padded = np.concatenate([p, np.ones(max(n_tested - len(p), 0))])
    return p, benjamini_hochberg(padded)[: len(p)]


def phrase_bursts(
    phrases: Sequence[set[str]],
    years: Sequence[int],
    *,
    s: float = 2.0,
    gamma: float = 1.0,
    min_count: int | None = None,
    top_n: int = 15,
    single_words: bool = False,
) -> pd.DataFrame:
    """The phrases in a burst in the last year (Kleinberg 2002, over three or more years).

    The same two-state automaton as :func:`detect_bursts`, run on each phrase's papers
    per year (:func:`topics.stats.rising.paper_phrases`) instead of a topic's: a phrase
    is listed when its cheapest state sequence ends in the burst state, that is when
    its share in the last year (and the years of the burst before it) is about ``s``
    times its share over all years, by enough papers to pay the cost of entering the
    burst. Only phrases that at least ``min_count`` papers of the last year use are run
    (default 1 % of the last year's papers, at least 5: the automaton makes no
    false-discovery promise that a floor on the last year could bend, unlike
    :func:`topics.stats.rising.rising_phrases`, which floors the total count); single
    words are left out unless ``single_words``, and a phrase held inside a longer listed
    one that most of its last-year papers use is dropped for it, as
    :func:`topics.stats.rising.rising_phrases` does.

    Returns
    -------
    pandas.DataFrame
        One row per phrase (:data:`PHRASE_BURST_COLUMNS`): ``start`` the first year of the
        burst that holds the last year, ``n_latest`` its papers of the last year,
        ``share_burst`` its share of the papers of the burst's years, ``share_all`` its
        share over all years, ``weight`` the log-likelihood the burst state saves over
        the burst's years (Kleinberg's weight); largest weight first, at most ``top_n``.
    """
    years = np.asarray(years)
    if len(phrases) != len(years):
        raise ValueError(f"{len(phrases)} phrase sets for {len(years)} years")
    batches = sorted(int(y) for y in set(years.tolist()))
    if len(batches) < 3:
        return pd.DataFrame(columns=PHRASE_BURST_COLUMNS)
    column = {y: j for j, y in enumerate(batches)}
    totals = np.array([(years == y).sum() for y in batches], dtype=float)
    min_count = max(5, int(np.ceil(0.01 * totals[-1]))) if min_count is None else int(min_count)
    per_year: dict[str, Counter] = {}
    latest_docs: dict[str, set[int]] = {}
    for i, (ps, year) in enumerate(zip(phrases, years.tolist())):
        for p in ps:
            per_year.setdefault(p, Counter())[column[int(year)]] += 1
            if year == batches[-1]:
                latest_docs.setdefault(p, set()).add(i)
    tested = sorted(p for p, c in per_year.items() if c[len(batches) - 1] >= min_count and (single_words or not is_single_word(p)))
    if not tested:
        return pd.DataFrame(columns=PHRASE_BURST_COLUMNS)
    x = np.array([[per_year[p][j] for j in range(len(batches))] for p in tested], dtype=float)
    states = kleinberg_states(x, totals[None, :], s=s, gamma=gamma)
    base, burst = _state_costs(x, totals[None, :], s)
    listed = np.flatnonzero(states[:, -1] == 1)
    dropped = nested_phrases([tested[i] for i in listed], latest_docs)
    rows = []
    for i in (i for i in listed if tested[i] not in dropped):
        start = len(batches) - 1
        while start > 0 and states[i, start - 1] == 1:
            start -= 1
        span = slice(start, len(batches))
        rows.append({
            "phrase": tested[i], "start": batches[start], "n_latest": int(x[i, -1]),
            "share_burst": float(x[i, span].sum() / totals[span].sum()), "share_all": float(x[i].sum() / totals.sum()),
            "weight": float((base[i, span] - burst[i, span]).sum()),
        })
    table = pd.DataFrame(rows, columns=PHRASE_BURST_COLUMNS)
    return table.sort_values(["weight", "phrase"], ascending=[False, True], kind="stable").head(top_n).reset_index(drop=True)
