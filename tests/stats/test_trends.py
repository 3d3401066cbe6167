import math

import numpy as np
import pandas as pd
import pytest

from topics.stats.comparison import TwoGroups
from topics.stats.trends import (
    benjamini_hochberg,
    compare_years,
    log_odds_z,
    newcombe_diff_ci,
    prevalence,
    screened_benjamini_hochberg,
    wilson_interval,
)


def test_wilson_matches_formula_by_hand():
    x, n, z = 7, 20, 1.959963984540054
    p = x / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low, high = wilson_interval(x, n)
    assert low == pytest.approx(centre - half) and high == pytest.approx(centre + half)
    low0, high0 = wilson_interval(0, 19)
    assert low0 == 0 and high0 == pytest.approx(z * z / (19 + z * z))


def test_newcombe_matches_published_example():
    # Newcombe (1998), Stat Med 17:873, example (a): 56/70 vs 48/80, method 10.
    low, high = newcombe_diff_ci(48, 80, 56, 70)
    assert float(low) == pytest.approx(0.0524, abs=1e-4)
    assert float(high) == pytest.approx(0.3339, abs=1e-4)


def test_log_odds_z_by_hand():
    y_a, y_b = np.array([2, 8]), np.array([9, 11])
    a0 = 4.0
    alpha = a0 * (y_a + y_b) / (y_a + y_b).sum()
    n_a, n_b = 10, 20
    w = 0
    d = math.log((y_b[w] + alpha[w]) / (n_b + a0 - y_b[w] - alpha[w])) - math.log((y_a[w] + alpha[w]) / (n_a + a0 - y_a[w] - alpha[w]))
    v = 1 / (y_b[w] + alpha[w]) + 1 / (n_b + a0 - y_b[w] - alpha[w]) + 1 / (y_a[w] + alpha[w]) + 1 / (n_a + a0 - y_a[w] - alpha[w])
    z = log_odds_z(y_a, y_b, prior_strength=a0)
    assert z[0] == pytest.approx(d / math.sqrt(v))
    assert z[0] > 0 > z[1]  # topic 0 went from 20 % to 45 %


def test_benjamini_hochberg_by_hand():
    q = benjamini_hochberg([0.01, 0.04, 0.03, 0.5])
    assert q == pytest.approx([0.04, 0.04 * 4 / 3, 0.04 * 4 / 3, 0.5])


def test_screened_benjamini_hochberg_by_hand():
    p = [0.001, 0.004, 0.6, 0.035, 0.5]
    least = [1e-6, 1e-5, 0.2, 0.004, 0.1]
    # k = 1: 3 tests can reach 0.05 (1e-6, 1e-5, 0.004); k = 2: 3 reach 0.025; k = 3: 3 reach
    # 0.0167 -> k = 3, the three left adjusted among themselves
    q = screened_benjamini_hochberg(p, least)
    assert q[[0, 1, 3]] == pytest.approx([0.003, 0.006, 0.035])
    assert np.isnan(q[[2, 4]]).all()
    # plain Benjamini-Hochberg over all five passes only the first two at 0.05
    assert (benjamini_hochberg(p) <= 0.05).sum() == 2 and (q <= 0.05).sum() == 3


def test_screened_benjamini_hochberg_without_a_floor_is_benjamini_hochberg():
    p = np.random.default_rng(0).uniform(size=50) ** 3
    assert screened_benjamini_hochberg(p, np.zeros(50)) == pytest.approx(benjamini_hochberg(p))
    assert screened_benjamini_hochberg([], []).size == 0
    with pytest.raises(ValueError, match="2 p-values for 3"):
        screened_benjamini_hochberg([0.1, 0.2], [0, 0, 0])


def _docs(counts: dict[int, dict[int, int]]) -> pd.DataFrame:
    rows = [{"year": y, "topic": t, "topic_label": f"t{t}"} for y, per in counts.items() for t, n in per.items() for _ in range(n)]
    return pd.DataFrame(rows)


def fisher_by_hand(a, n_a, b, n_b):
    total, k = n_a + n_b, a + b
    def pmf(x):
        return math.comb(n_a, x) * math.comb(n_b, k - x) / math.comb(total, k)
    observed = pmf(a)
    return sum(pmf(x) for x in range(max(0, k - n_b), min(k, n_a) + 1) if pmf(x) <= observed * (1 + 1e-7))


def test_compare_years_columns_and_values():
    docs = _docs({2024: {0: 2, 1: 15, 2: 3, -1: 5}, 2025: {0: 30, 1: 30, 2: 20, -1: 9}})
    result = compare_years(docs)
    comp = result.table
    assert list(comp.columns) == [
        "topic", "label", "n_2024", "n_2025", "share_2024", "share_2025", "diff_pp",
        "ci_low_pp", "ci_high_pp", "z", "p_value", "q_value", "direction", "outliers_counted",
    ]
    assert -1 not in comp["topic"].tolist() and not comp["outliers_counted"].any()
    row = comp.set_index("topic").loc[0]
    assert row["share_2024"] == pytest.approx(2 / 20) and row["share_2025"] == pytest.approx(30 / 80)
    assert row["diff_pp"] == pytest.approx(100 * (30 / 80 - 2 / 20))
    low, high = newcombe_diff_ci(2, 20, 30, 80)
    assert (row["ci_low_pp"], row["ci_high_pp"]) == pytest.approx((100 * low, 100 * high))
    assert row["p_value"] == pytest.approx(fisher_by_hand(2, 20, 30, 80))
    assert comp["z"].is_monotonic_decreasing
    topic1 = comp.set_index("topic").loc[1]
    assert topic1["diff_pp"] < 0 and topic1["direction"] == "shrank"  # 75 % -> 37.5 %
    assert row["direction"] == "grew"
    assert isinstance(result, TwoGroups) and result.by == "year" and result.groups == (2024, 2025)
    assert (result.year_a, result.year_b, result.n_a, result.n_b) == (2024, 2025, 20, 80)
    assert result.sizes == {2024: 20, 2025: 80} and not result.outliers_counted


def test_shares_not_counts_decide_direction():
    # Topic 0 has more papers in 2025 (40 vs 10) but a smaller share (10 % vs 50 %).
    docs = _docs({2024: {0: 10, 1: 10}, 2025: {0: 40, 1: 360}})
    row = compare_years(docs).table.set_index("topic").loc[0]
    assert row["diff_pp"] < 0 and row["direction"] == "shrank"


def test_outliers_counted_when_asked():
    docs = _docs({2024: {0: 5, -1: 5}, 2025: {0: 5, -1: 15}})
    result = compare_years(docs, include_outliers=True)
    comp = result.table
    assert set(comp["topic"]) == {-1, 0} and comp["outliers_counted"].all() and result.outliers_counted
    assert result.sizes == {2024: 10, 2025: 20}
    assert comp.set_index("topic").loc[0, "share_2024"] == pytest.approx(0.5)
    prev = prevalence(docs, include_outliers=False)
    assert prev["share"].tolist() == [1.0, 1.0] and not prev["outliers_counted"].any()


def test_no_clear_change_when_q_is_large():
    docs = _docs({2024: {0: 5, 1: 5}, 2025: {0: 6, 1: 4}})
    assert (compare_years(docs).table["direction"] == "no clear change").all()


def test_year_errors():
    one_year = _docs({2024: {0: 5, 1: 5}})
    with pytest.raises(ValueError, match="need exactly two years"):
        compare_years(one_year)
    three = _docs({2023: {0: 1}, 2024: {0: 5}, 2025: {0: 3}})
    with pytest.raises(ValueError, match="need exactly two years"):
        compare_years(three)
    swapped = compare_years(three, 2025, 2023)
    assert swapped.year_a == 2023 and swapped.year_b == 2025 and swapped.groups == (2023, 2025)
    with pytest.raises(ValueError, match="not in the corpus"):
        compare_years(three, 2023, 2030)


def test_prevalence_includes_zero_rows():
    prev = prevalence(_docs({2024: {0: 4}, 2025: {0: 2, 1: 2}}))
    row = prev[(prev["year"] == 2024) & (prev["topic"] == 1)].iloc[0]
    assert row["n_docs"] == 0 and row["share"] == 0 and row["year_total"] == 4
