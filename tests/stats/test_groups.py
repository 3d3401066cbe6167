import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tests.conftest import (
    PLANTED_SHARES,
    TREND_SIZES,
    TREND_YEARS,
    make_trend_documents,
    planted_share_matrix,
)
from topics.stats.comparison import Groups, Trend, TwoGroups
from topics.stats.groups import TREND_CLASSES, classify_trends, compare_groups
from topics.stats.trends import (
    cochran_armitage,
    compare_years,
    homogeneity_test,
    linear_trend,
    log_odds_z,
)


def _docs(counts: dict, by: str = "year") -> pd.DataFrame:
    rows = [{by: g, "topic": t, "topic_label": f"t{t}"} for g, per in counts.items() for t, n in per.items() for _ in range(n)]
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- Cochran-Armitage


def test_cochran_armitage_by_hand():
    x, n, s = [2, 5, 9], [20, 25, 30], [2023, 2024, 2025]
    big_n = 75
    p = 16 / 75
    s_bar = (20 * 2023 + 25 * 2024 + 30 * 2025) / big_n
    t = 2 * (2023 - s_bar) + 5 * (2024 - s_bar) + 9 * (2025 - s_bar)
    v = p * (1 - p) * (20 * (2023 - s_bar) ** 2 + 25 * (2024 - s_bar) ** 2 + 30 * (2025 - s_bar) ** 2)
    z, p_value = cochran_armitage(x, n, s)
    assert float(z) == pytest.approx(t / math.sqrt(v))
    assert float(p_value) == pytest.approx(math.erfc(abs(t / math.sqrt(v)) / math.sqrt(2)))
    assert float(z) > 0  # 10 % -> 20 % -> 30 %


def test_cochran_armitage_equals_n_times_squared_correlation():
    # An independent route: z^2 = N r^2, r the correlation of score and outcome over documents.
    x, n, s = np.array([3, 9, 4, 12]), np.array([40, 55, 30, 61]), np.array([1.0, 2.0, 4.0, 5.0])
    score = np.repeat(s, n)
    outcome = np.concatenate([np.r_[np.ones(k), np.zeros(m - k)] for k, m in zip(x, n)])
    r = np.corrcoef(score, outcome)[0, 1]
    z, _ = cochran_armitage(x, n, s)
    assert float(z) ** 2 == pytest.approx(n.sum() * r**2)
    assert np.sign(z) == np.sign(r)


def test_cochran_armitage_published_example():
    # Agresti, Categorical Data Analysis: infant malformation by maternal alcohol
    # consumption, scores 0, 0.5, 1.5, 4, 7; the trend statistic is 6.57 (P = 0.01) and
    # Pearson's X^2 = 12.1 on 4 df (P = 0.02).
    present = np.array([48, 38, 5, 1, 1])
    absent = np.array([17066, 14464, 788, 126, 37])
    z, p = cochran_armitage(present, present + absent, [0, 0.5, 1.5, 4.0, 7.0])
    assert float(z) ** 2 == pytest.approx(6.57, abs=0.005) and float(p) == pytest.approx(0.0104, abs=5e-4)
    chi2, p_chi2 = homogeneity_test(present, present + absent)
    assert float(chi2) == pytest.approx(12.08, abs=0.01) and float(p_chi2) == pytest.approx(0.017, abs=1e-3)


def test_cochran_armitage_broadcasts_and_handles_degenerate_rows():
    x = np.array([[0, 0, 0], [5, 5, 5], [1, 2, 3]])
    n = np.array([5, 5, 5])
    z, p = cochran_armitage(x, n, [1, 2, 3])
    assert z.shape == (3,)
    assert z[0] == 0 and p[0] == 1  # no successes
    assert z[1] == 0 and p[1] == 1  # only successes
    assert z[2] == pytest.approx(float(cochran_armitage([1, 2, 3], n, [1, 2, 3])[0]))


def test_flat_share_rejected_at_the_nominal_rate():
    # 20,000 flat tables with a small year: the test keeps its level.
    rng = np.random.default_rng(11)
    sizes = np.array(TREND_SIZES)
    x = rng.binomial(sizes, 0.1, size=(20_000, len(sizes)))
    _, p = cochran_armitage(x, sizes, TREND_YEARS)
    assert np.mean(p < 0.05) == pytest.approx(0.05, abs=0.006)  # 4 standard errors


# --------------------------------------------------------------------------- slope


def test_linear_trend_is_the_weighted_least_squares_slope():
    x, n, s = np.array([3, 9, 4, 12]), np.array([40, 55, 30, 61]), np.array([2021.0, 2022, 2024, 2025])
    slope, low, high = linear_trend(x, n, s)
    expected = np.polyfit(s, x / n, 1, w=np.sqrt(n))[0]
    assert float(slope) == pytest.approx(expected)
    # the interval by hand: binomial variance of the fitted shares
    d = s - (n * s).sum() / n.sum()
    fitted = x.sum() / n.sum() + expected * d
    se = math.sqrt((n * d**2 * fitted * (1 - fitted)).sum()) / (n * d**2).sum()
    assert (float(low), float(high)) == pytest.approx((expected - 1.959964 * se, expected + 1.959964 * se), rel=1e-6)


def test_slope_interval_covers_the_true_slope():
    rng = np.random.default_rng(5)
    sizes, years = np.array(TREND_SIZES), np.array(TREND_YEARS)
    true = 0.02  # 2 points a year from 5 %
    x = rng.binomial(sizes, 0.05 + true * (years - 2021), size=(20_000, len(sizes)))
    _, low, high = linear_trend(x, sizes, years)
    assert np.mean((low <= true) & (true <= high)) == pytest.approx(0.95, abs=0.007)


def test_homogeneity_matches_scipy():
    x, n = np.array([3, 9, 4, 12]), np.array([40, 55, 30, 61])
    chi2, p = homogeneity_test(x, n)
    expected = stats.chi2_contingency(np.vstack([x, n - x]), correction=False)
    assert float(chi2) == pytest.approx(expected.statistic) and float(p) == pytest.approx(expected.pvalue)


# --------------------------------------------------------------------------- classes


def test_classes_come_out_right_on_planted_trends():
    calls = {label: [] for label in PLANTED_SHARES}
    for seed in range(20):
        comp = compare_groups(make_trend_documents(seed)).table.set_index("label")
        for label in calls:
            calls[label].append(comp.loc[label, "trend"])
    assert calls["emerging"].count("emerging") == 20
    assert calls["fading"].count("fading") == 20
    assert calls["growing"].count("growing") >= 18  # the rest: not yet clear, never fading
    assert "fading" not in calls["growing"]
    assert calls["flat"].count("stable") >= 10  # about three in four (see the next test); else "no clear trend"
    assert sum(c in ("emerging", "growing", "fading") for c in calls["flat"]) <= 3
    assert all(c != "growing" and c != "emerging" for c in calls["bump"])


def test_flat_topic_called_a_trend_at_about_the_nominal_rate():
    # 4,000 draws of the generator in one vectorised call (about a tenth of a second).
    rng = np.random.default_rng(2024)
    shares = planted_share_matrix()
    counts = rng.multinomial(TREND_SIZES, shares.T, size=(4000, len(TREND_SIZES))).transpose(0, 2, 1)
    totals = np.broadcast_to(np.array(TREND_SIZES), (4000, len(TREND_SIZES)))
    classes = classify_trends(counts, totals, TREND_YEARS)
    flat = list(PLANTED_SHARES).index("flat")
    called = np.isin(classes[:, flat], ["emerging", "growing", "fading"]).mean()
    # Benjamini-Hochberg over the eight topics keeps a null topic at or below alpha
    assert 0.01 < called < 0.06
    _, p = cochran_armitage(counts[:, flat], totals, TREND_YEARS)
    assert np.mean(p < 0.05) == pytest.approx(0.05, abs=0.014)  # the raw test at its level
    # and the planted movers are found nearly every time
    for label, expected in (("emerging", "emerging"), ("fading", "fading")):
        assert np.mean(classes[:, list(PLANTED_SHARES).index(label)] == expected) > 0.99
    assert np.mean(classes[:, list(PLANTED_SHARES).index("growing")] == "growing") > 0.9
    assert np.mean(classes[:, flat] == "stable") > 0.7


def _exact(shares, sizes):
    """Counts exactly proportional to the shares (no sampling noise)."""
    return np.rint(np.asarray(shares) * np.asarray(sizes)).astype(int)


def test_class_rule_on_exact_tables():
    years = np.array([2021, 2022, 2023, 2024, 2025])
    big = np.array([2000] * 5)
    shares = np.array([
        [0.0, 0.005, 0.01, 0.05, 0.10],  # emerging: a quarter rule: early 0.25 % vs late 7.5 %
        [0.05, 0.06, 0.07, 0.08, 0.09],  # growing: early 5.5 % vs late 8.5 %
        [0.20, 0.18, 0.16, 0.14, 0.12],  # fading
        [0.15] * 5,  # stable: large years, no change
        [0.05, 0.08, 0.12, 0.08, 0.05],  # a peak: varies, no trend
    ])
    rest = 1 - shares.sum(0)
    counts = _exact(np.vstack([shares, rest]), big)
    classes = classify_trends(counts, counts.sum(0), years)
    assert classes[:5].tolist() == ["emerging", "growing", "fading", "stable", "no clear trend"]
    # the same flat share in tiny years is not "stable": the data cannot rule out large changes
    small = np.array([10, 10, 10, 10, 10])
    tiny = _exact(np.vstack([[0.2] * 5, [0.8] * 5]), small)
    assert classify_trends(tiny, small, years)[0] == "no clear trend"
    assert set(TREND_CLASSES) == {"emerging", "growing", "fading", "stable", "no clear trend"}


def test_trend_table_columns_and_values():
    docs = make_trend_documents(3)
    result = compare_groups(docs)
    comp = result.table
    years = list(TREND_YEARS)
    assert comp.columns.tolist() == [
        "topic", "label", *[f"n_{y}" for y in years], *[f"share_{y}" for y in years],
        "slope_pp", "slope_low_pp", "slope_high_pp", "z", "p_value", "q_value", "chi2_q", "trend", "outliers_counted",
    ]
    assert isinstance(result, Trend) and result.kind == "trend" and result.groups == tuple(years) and result.step == "year"
    assert result.by == "year" and result.scores == tuple(float(y) for y in years) and result.unit == "topic"
    assert result.sizes == {y: int((docs["year"] == y).sum()) for y in years}
    row = comp.set_index("label").loc["fading"]
    x = np.array([row[f"n_{y}"] for y in years])
    n = np.array(TREND_SIZES)
    assert row["share_2022"] == pytest.approx(x[1] / n[1])
    z, p = cochran_armitage(x, n, years)
    assert row["z"] == pytest.approx(float(z)) and row["p_value"] == pytest.approx(float(p))
    assert row["slope_pp"] == pytest.approx(100 * float(linear_trend(x, n, years)[0]))
    assert comp["z"].is_monotonic_decreasing
    assert comp["q_value"].tolist() == pytest.approx(stats.false_discovery_control(comp["p_value"]).tolist())


def test_years_are_scored_by_value_and_other_ordered_groups_by_position():
    docs = make_trend_documents(1)
    gaps = compare_groups(docs, groups=[2025, 2021, 2023])  # sorted, scored 2021, 2023, 2025
    assert gaps.groups == (2021, 2023, 2025) and gaps.scores == (2021.0, 2023.0, 2025.0)
    tiers = docs.assign(tier=docs["year"].map({2021: "low", 2022: "low", 2023: "mid", 2024: "high", 2025: "high"}))
    comp = compare_groups(tiers, by="tier", groups=["low", "mid", "high"], ordered=True)
    assert isinstance(comp, Trend) and comp.scores == (0.0, 1.0, 2.0) and comp.step == "step"
    assert comp.groups == ("low", "mid", "high")
    assert comp.table.set_index("label").loc["emerging", "trend"] == "emerging"


# --------------------------------------------------------------------------- two groups


def test_two_years_give_the_compare_years_table():
    docs = _docs({2024: {0: 2, 1: 15, 2: 3, -1: 5}, 2025: {0: 30, 1: 30, 2: 20, -1: 9}})
    comp = compare_groups(docs)
    expected = compare_years(docs)
    pd.testing.assert_frame_equal(comp.table, expected.table)
    assert isinstance(comp, TwoGroups) and isinstance(expected, TwoGroups)
    assert comp.kind == "two_groups" and comp.year_a == 2024 and comp.group_b == 2025
    assert comp.sizes == expected.sizes == {2024: 20, 2025: 80}
    assert (comp.n_a, comp.n_b) == (expected.n_a, expected.n_b) == (20, 80)
    assert expected.year_a == 2024 and expected.year_b == 2025


def test_two_other_groups_name_the_group():
    docs = _docs({"Oral": {0: 30, 1: 10}, "Poster": {0: 100, 1: 300}}, by="status")
    result = compare_groups(docs, by="status")
    assert isinstance(result, TwoGroups)
    comp = result.table.set_index("topic")
    assert comp.loc[0, "direction"] == "higher in Oral" and comp.loc[1, "direction"] == "higher in Poster"
    assert comp.loc[0, "share_Oral"] == pytest.approx(0.75) and comp.loc[0, "diff_pp"] == pytest.approx(100 * (0.25 - 0.75))
    quiet = compare_groups(_docs({"A": {0: 5, 1: 5}, "B": {0: 6, 1: 4}}, by="status"), by="status")
    assert (quiet.table["direction"] == "no clear difference").all()
    assert not hasattr(quiet, "year_a") and quiet.group_a == "A"


# --------------------------------------------------------------------------- unordered groups


def test_unordered_groups_table():
    docs = _docs(
        {"ICLR": {0: 40, 1: 30, 2: 30}, "ICML": {0: 10, 1: 60, 2: 30}, "NeurIPS": {0: 20, 1: 45, 2: 35}}, by="venue"
    )
    result = compare_groups(docs, by="venue")
    comp = result.table
    groups = ["ICLR", "ICML", "NeurIPS"]
    assert isinstance(result, Groups) and result.kind == "groups" and result.groups == tuple(groups)
    assert comp.columns.tolist() == [
        "topic", "label", *[f"n_{g}" for g in groups], *[f"share_{g}" for g in groups], "share_all",
        *[f"z_{g}" for g in groups], "chi2", "p_value", "q_value", "leans", "outliers_counted",
    ]
    row = comp.set_index("topic").loc[0]
    assert row["share_ICLR"] == pytest.approx(0.4) and row["share_all"] == pytest.approx(70 / 300)
    # z of ICLR against the other two venues, with the pooled shares as prior (by hand)
    y_rest, y_iclr = np.array([30, 105, 65]), np.array([40, 30, 30])
    assert row["z_ICLR"] == pytest.approx(float(log_odds_z(y_rest, y_iclr)[0]))
    expected = stats.chi2_contingency(np.array([[40, 10, 20], [60, 90, 80]]), correction=False)
    assert row["chi2"] == pytest.approx(expected.statistic) and row["p_value"] == pytest.approx(expected.pvalue)
    assert row["leans"] == "more in ICLR"
    # the group with the largest |z| names the lean, with its sign
    one = comp.set_index("topic").loc[1]
    zs = {g: one[f"z_{g}"] for g in groups}
    lead = max(zs, key=lambda g: abs(zs[g]))
    assert one["leans"] == f"{'more' if zs[lead] > 0 else 'less'} in {lead}" and one["q_value"] < 0.05
    assert comp["chi2"].is_monotonic_decreasing
    same = compare_groups(_docs({"A": {0: 10, 1: 10}, "B": {0: 10, 1: 10}, "C": {0: 11, 1: 9}}, by="venue"), by="venue")
    assert (same.table["leans"] == "no clear difference").all()


def test_outliers_are_left_out_unless_asked():
    docs = _docs({2021: {0: 5, -1: 50}, 2022: {0: 5, 1: 5}, 2023: {0: 5, 1: 5}})
    comp = compare_groups(docs)
    assert -1 not in comp.table["topic"].tolist() and comp.sizes == {2021: 5, 2022: 10, 2023: 10}
    assert not comp.outliers_counted
    counted = compare_groups(docs, include_outliers=True)
    assert -1 in counted.table["topic"].tolist() and counted.table["outliers_counted"].all() and counted.outliers_counted
    assert counted.sizes == {2021: 55, 2022: 10, 2023: 10}
    assert counted.table.set_index("topic").loc[0, "share_2021"] == pytest.approx(5 / 55)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"by": "track"}, "no column 'track' to group by"),
        ({"by": "venue"}, "column 'venue' has 1 value (ICLR); need at least two groups"),
        ({"groups": [2021, 2030]}, "year 2030 is not in the documents"),
        ({"groups": [2021, 2021]}, "repeat"),
        ({"groups": [2021]}, "need at least two years to compare, got 2021"),
        ({"alpha": 1.5}, "alpha must be between 0 and 1"),
    ],
)
def test_errors_name_the_bad_value(kwargs, message):
    docs = make_trend_documents(0).assign(venue="ICLR")
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        compare_groups(docs, **kwargs)


def test_a_group_with_only_outliers_is_an_error():
    docs = _docs({2021: {-1: 3}, 2022: {0: 5, 1: 5}, 2023: {0: 5, 1: 5}})
    with pytest.raises(ValueError, match="year 2021 has no documents with a topic"):
        compare_groups(docs)


# --------------------------------------------------------------------------- group sizes


def test_an_outlying_small_year_refuses_the_trend_and_says_which_years():
    from topics.stats.groups import check_group_sizes

    with pytest.raises(ValueError, match=r"year 1999 has 1 of the 301 papers and lies 25 years .* --years 2024 2025") as err:
        check_group_sizes({1999: 1, 2024: 150, 2025: 150})
    assert "\n" not in str(err.value) and "fewer than 5 papers or 1 % of them" in str(err.value)
    # close to the next year, or large enough, or chosen by the user: no refusal
    check_group_sizes({2022: 2, 2024: 150, 2025: 150})
    check_group_sizes({1999: 40, 2024: 150, 2025: 150})
    check_group_sizes({1999: 1, 2024: 150, 2025: 150}, chosen=True)
    check_group_sizes({"a": 1, "b": 150, "c": 150}, by="status")  # not years: no spacing


def test_a_small_group_beside_large_ones_is_named_in_a_warning(caplog):
    import logging

    from topics.stats.groups import check_group_sizes

    with caplog.at_level(logging.WARNING, logger="topics.stats.groups"):
        check_group_sizes({"Oral": 3, "Poster": 400}, by="status")
    assert [r.message for r in caplog.records] == [
        "status Oral has only 3 of the 403 papers compared (status Poster has 400): its shares and tests rest on very few papers"
    ]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="topics.stats.groups"):
        check_group_sizes({2024: 19, 2025: 71})  # the bundled sample: small, but not very small
        check_group_sizes({"a": 3, "b": 4}, by="status")  # small, but none much larger
    assert not caplog.records


def test_many_small_groups_are_named_in_one_warning(caplog):
    import logging

    from topics.stats.groups import check_group_sizes

    sizes = dict(zip(range(1987, 2023), (int(round(50 * (2818 / 50) ** (j / 35))) for j in range(36))))  # 25,491 papers
    with caplog.at_level(logging.WARNING, logger="topics.stats.groups"):
        check_group_sizes(sizes)
    assert [r.message for r in caplog.records] == [
        "15 years have only 50 to 251 papers each of the 25491 compared (year 2022 has 2818): 1987 (50), 1988 (56), 1989 (63), "
        "1990 (71), 1991 (79), 1992 (89), 1993 (100), 1994 (112), 1995 (126), 1996 (141), 1997 (158), 1998 (178) and 3 more; "
        "their shares and tests rest on very few papers"
    ]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="topics.stats.groups"):
        check_group_sizes({"a": 3, "b": 4, "c": 400}, by="status")
    assert [r.message for r in caplog.records] == [
        "2 status groups have only 3 to 4 papers each of the 407 compared (status c has 400): a (3) and b (4); "
        "their shares and tests rest on very few papers"
    ]


def test_a_column_unique_per_paper_is_not_a_grouping():
    docs = make_trend_documents(0)
    docs["doc_id"] = [f"d{i}" for i in range(len(docs))]
    with pytest.raises(ValueError, match=r"column 'doc_id' has a different value for each of its \d+ papers"):
        compare_groups(docs, by="doc_id")
