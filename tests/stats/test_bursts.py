import itertools
import math

import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_trend_documents
from topics.stats.bursts import burst_p_values, detect_bursts, kleinberg_states
from topics.stats.narration import clear_bursts


def brute_force(r, d, s=2.0, gamma=1.0):
    """Every state sequence, costed by Kleinberg's definition (binomial likelihood with
    the coefficient, gamma ln T to enter a burst, start in the base state)."""
    r, d = np.asarray(r), np.asarray(d)
    p0 = r.sum() / d.sum()
    rates = (p0, min(s * p0, 1 - 1e-12))
    tau = gamma * math.log(len(r))

    def sigma(i, t):
        p = rates[i]
        return -(math.log(math.comb(int(d[t]), int(r[t]))) + r[t] * math.log(p) + (d[t] - r[t]) * math.log1p(-p))

    best = None
    for seq in itertools.product((0, 1), repeat=len(r)):
        cost, prev = 0.0, 0
        for t, q in enumerate(seq):
            cost += sigma(q, t) + (tau if q > prev else 0.0)
            prev = q
        # ties: the sequence with fewer burst batches, then the earlier-starting base
        key = (round(cost, 9), sum(seq), seq)
        if best is None or key < best[0]:
            best = (key, seq)
    return list(best[1])


def test_states_match_brute_force_enumeration():
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(300):
        d = rng.integers(5, 200, size=5)
        p = rng.uniform(0.02, 0.3, size=5)
        r = rng.binomial(d, p)
        if r.sum() == 0:
            continue
        assert kleinberg_states(r, d).tolist() == brute_force(r, d), (r, d)
        checked += 1
    assert checked > 250


def test_states_by_hand_and_broadcasting():
    # 10 % every year except a jump to 30 % in the third: a one-year burst.
    d = np.array([100, 100, 100, 100, 100])
    r = np.array([[10, 10, 30, 10, 10], [10, 10, 10, 10, 10], [0, 0, 0, 0, 0]])
    states = kleinberg_states(r, d)
    assert states.tolist() == [[0, 0, 1, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]
    # the burst pays off: 30 papers at twice the base rate (14 %) against the cost ln 5 of entering
    p0 = 70 / 500
    gain = 30 * math.log(2) + 70 * math.log((1 - 2 * p0) / (1 - p0))
    assert gain > math.log(5)
    # a dearer transition (gamma) removes it
    assert kleinberg_states(r[0], d, gamma=gain / math.log(5) + 0.01).tolist() == [0] * 5


def test_detect_bursts_finds_the_peak_and_skips_small_topics():
    docs = make_trend_documents(4)
    bursts = detect_bursts(docs)
    assert list(bursts.columns) == ["topic", "label", "start", "end", "share_burst", "share_all", "weight", "p_value", "q_value"]
    bump = bursts[bursts["label"] == "bump"]
    assert len(bump) == 1 and bump["start"].iloc[0] <= 2023 <= bump["end"].iloc[0]
    assert bump["end"].iloc[0] == 2023  # it falls back afterwards
    assert bursts["weight"].is_monotonic_decreasing and (bursts["weight"] > 0).all()
    row = bump.iloc[0]
    years = docs[(docs["year"] >= row["start"]) & (docs["year"] <= row["end"])]
    assert row["share_burst"] == pytest.approx((years["topic_label"] == "bump").mean())
    assert "flat" not in bursts["label"].tolist()
    assert bump["q_value"].iloc[0] < 0.05 and (bursts["q_value"] >= bursts["p_value"]).all()
    few = detect_bursts(docs, min_docs=10_000)
    assert few.empty and list(few.columns) == list(bursts.columns)


def test_a_burst_is_tested_against_the_spans_the_automaton_could_choose():
    from scipy.stats import hypergeom

    # 30 of a topic's 40 papers in one of five years that holds 100 of 500 papers
    p, q = burst_p_values([(30, 40, 100)], n_docs=500, n_batches=5, n_tested=1)
    assert p[0] == pytest.approx(min(1, 14 * hypergeom.sf(29, 500, 40, 100)))  # 15 spans of consecutive years, less all five
    p, q = burst_p_values([(9, 40, 100)], n_docs=500, n_batches=5, n_tested=3)
    assert 0.05 < p[0] <= 1 and q[0] == 1  # about the base rate: what the automaton alone would call a burst
    assert burst_p_values([], n_docs=10, n_batches=3, n_tested=2)[0].size == 0


def test_bursts_told_under_randomly_drawn_years_stay_within_the_false_discovery_rate():
    # the automaton alone finds some burst in most such corpora; the test keeps to about alpha
    rng = np.random.default_rng(0)
    found, untested = 0, 0
    for _ in range(60):  # 400 papers in 15 topics of 20-40, over five years drawn at random
        docs = pd.DataFrame({"topic": rng.integers(0, 15, 400), "year": rng.choice(np.arange(2020, 2025), 400)})
        bursts = detect_bursts(docs)
        untested += len(bursts) > 0
        found += len(clear_bursts(bursts)) > 0
    assert untested >= 20 and found <= 6


def test_bad_parameters():
    with pytest.raises(ValueError, match="s must be above 1"):
        kleinberg_states([1, 2], [10, 10], s=1.0)
    with pytest.raises(ValueError, match="gamma must be 0 or more"):
        kleinberg_states([1, 2], [10, 10], gamma=-1)
    with pytest.raises(ValueError, match="min_docs"):
        detect_bursts(pd.DataFrame({"year": [2021], "topic": [0]}), min_docs=-1)


def test_a_phrase_new_in_the_last_of_three_years_bursts_and_a_steady_one_does_not():
    from topics.stats.bursts import PHRASE_BURST_COLUMNS, phrase_bursts

    phrases, years = [], []
    for year in (2021, 2022, 2023):
        for i in range(100):
            ps = {"graph neural networks"} if i < 20 else set()  # 20 % every year
            if year == 2023 and i >= 70:
                ps |= {"flow matching", "matching"}  # 30 papers, only in the last year
            phrases.append(ps)
            years.append(year)
    table = phrase_bursts(phrases, years)
    assert list(table.columns) == PHRASE_BURST_COLUMNS
    assert table["phrase"].tolist() == ["flow matching"]  # "matching": a single word, and held inside it
    row = table.iloc[0]
    assert row["start"] == 2023 and row["n_latest"] == 30 and row["share_all"] == pytest.approx(0.1) and row["weight"] > 0
    assert phrase_bursts(phrases[100:], years[100:]).empty  # two years: nothing to add to the two-year test
    assert phrase_bursts(phrases, years, min_count=31).empty


def test_a_burst_that_ended_before_the_last_year_is_not_listed():
    from topics.stats.bursts import phrase_bursts

    phrases = [{"capsule networks"} if year == 2021 and i < 30 else set() for year in (2020, 2021, 2022, 2023) for i in range(100)]
    phrases[-5:] = [{"capsule networks"}] * 5
    years = [year for year in (2020, 2021, 2022, 2023) for _ in range(100)]
    assert phrase_bursts(phrases, years).empty
