"""Sentences that state what a comparison found (topics.stats.narration), on hand-made tables."""

import pandas as pd
import pytest

from topics.stats import narration
from topics.stats.comparison import Groups, Trend, TwoGroups


def test_narrate_states_clear_changes():
    rows = [
        {"topic": 0, "label": "optimal transport", "share_2024": 0.0, "share_2025": 0.042, "diff_pp": 4.2, "ci_low_pp": 1.0,
         "ci_high_pp": 7.0, "z": 3.0, "q_value": 0.01, "direction": "grew", "outliers_counted": False},
        {"topic": 1, "label": "speech", "share_2024": 0.3, "share_2025": 0.29, "diff_pp": -1.0, "ci_low_pp": -9.0,
         "ci_high_pp": 6.0, "z": -0.2, "q_value": 0.8, "direction": "no clear change", "outliers_counted": False},
    ]
    table = pd.DataFrame(rows)
    comp = TwoGroups(table, by="year", groups=(2024, 2025), sizes={2024: 100, 2025: 500})
    text = comp.narrate()
    assert text == narration.narrate_years(comp)
    assert "1 topic changed clearly" in text[0]
    assert text[1] == "Optimal transport grew from 0.0 % to 4.2 % of papers (+4.2 points, 95 % CI +1.0 to +7.0; q = 0.01)."
    table = table.copy()
    table.loc[0, "direction"] = "no clear change"
    quiet = TwoGroups(table, by="year", groups=(2024, 2025), sizes={2024: 100, 2025: 500}).narrate()
    assert "no topic's share changed clearly" in quiet[0]
    assert any(s.startswith("The largest estimated rise: optimal transport") for s in quiet)

def test_narrate_trends_by_hand():
    table = pd.DataFrame([
        {"topic": 0, "label": "diffusion models", "share_2021": 0.01, "share_2022": 0.03, "share_2023": 0.09, "slope_pp": 4.0,
         "slope_low_pp": 2.5, "slope_high_pp": 5.5, "z": 6.0, "q_value": 1e-6, "trend": "emerging", "outliers_counted": False},
        {"topic": 1, "label": "gans", "share_2021": 0.2, "share_2022": 0.15, "share_2023": 0.1, "slope_pp": -5.0,
         "slope_low_pp": -7.0, "slope_high_pp": -3.0, "z": -4.0, "q_value": 0.001, "trend": "fading", "outliers_counted": False},
        {"topic": 2, "label": "speech", "share_2021": 0.1, "share_2022": 0.2, "share_2023": 0.1, "slope_pp": 0.0,
         "slope_low_pp": -3.0, "slope_high_pp": 3.0, "z": 0.0, "q_value": 1.0, "trend": "no clear trend", "outliers_counted": False},
    ])
    comp = Trend(table, by="year", groups=(2021, 2022, 2023), sizes={2021: 100, 2022: 150, 2023: 1200},
                 scores=(2021.0, 2022.0, 2023.0), step="year")
    bursts = pd.DataFrame([{"topic": 2, "label": "speech", "start": 2022, "end": 2022, "share_burst": 0.2, "share_all": 0.11, "weight": 3.0,
                            "q_value": 0.01},
                           {"topic": 0, "label": "diffusion models", "start": 2023, "end": 2023, "share_burst": 0.09, "share_all": 0.07, "weight": 9.0,
                            "q_value": 0.01}])
    text = comp.narrate(bursts=bursts)
    assert text == narration.narrate_trend(comp, bursts=bursts)
    assert text[0] == ("From 2021 to 2023 (3 years with 100, 150 and 1,200 papers with a topic), 2 of 3 topics moved clearly "
                       "(Cochran-Armitage trend test, false-discovery rate q < 0.05): 1 emerging and 1 fading; 1 shows no clear trend.")
    assert text[1] == "Diffusion models emerged from 1.0 % of papers in 2021 to 9.0 % in 2023 (+4.0 points a year, 95 % CI +2.5 to +5.5; q = 1e-06)."
    assert text[2].startswith("Gans faded from 20.0 % of papers in 2021 to 10.0 % in 2023 (-5.0 points a year")
    # a burst is told only where it adds something: for the topic without a clear trend
    assert text[3] == "Speech has no clear trend but a burst in 2022 (Kleinberg 2002): 20.0 % of papers then, against 11.0 % over all years."
    assert len(text) == 4
    # a burst that chance explains, or one never tested (an analysis saved before the test), is not told
    assert comp.narrate(bursts=bursts.assign(q_value=0.2)) == text[:3]
    assert comp.narrate(bursts=bursts.drop(columns="q_value")) == text[:3]

def test_narrate_groups_by_hand():
    table = pd.DataFrame([
        {"topic": 0, "label": "rl", "share_Oral": 0.2, "share_Poster": 0.05, "share_all": 0.07, "z_Oral": 3.1, "z_Poster": -3.1,
         "q_value": 0.004, "leans": "more in Oral", "outliers_counted": False},
        {"topic": 1, "label": "vision", "share_Oral": 0.8, "share_Poster": 0.95, "share_all": 0.93, "z_Oral": -1.0, "z_Poster": 1.0,
         "q_value": 0.3, "leans": "no clear difference", "outliers_counted": False},
    ])
    comp = Groups(table, by="status", groups=("Oral", "Poster"), sizes={"Oral": 100, "Poster": 1000})
    text = comp.narrate()
    assert text == narration.narrate_groups(comp)
    assert text[0] == ("Comparing Oral (100 papers with a topic) and Poster (1,000) by status across 2 topics, 1 topic differs clearly "
                       "in share between them (chi-square test, false-discovery rate q < 0.05).")
    assert text[1] == "Rl is more common in Oral: 20.0 % of Oral papers against 7.0 % of all (log-odds z = 3.1; q = 0.004)."
    assert len(text) == 2
    # nothing clear: the strongest leans are told as such, with p and q
    quiet = table.assign(leans="no clear difference", q_value=[0.09, 0.3], p_value=[0.004, 0.3], chi2=[9.0, 1.0])
    text = Groups(quiet, by="status", groups=("Oral", "Poster"), sizes={"Oral": 100, "Poster": 1000}).narrate()
    assert "no topic's share differs clearly between them" in text[0]
    assert text[1] == ("Not clear after the correction: rl is more common in Oral: 20.0 % of Oral papers against 7.0 % of all "
                       "(log-odds z = 3.1; p = 0.004, q = 0.09).")
    assert text[2].startswith("Not clear after the correction: vision is less common in Oral")
    assert text[-1].startswith("With 100 papers in the smallest group")


def test_capitalize_changes_only_the_first_character():
    assert narration.capitalize("gans") == "Gans"
    assert narration.capitalize("rLHF for LLMs") == "RLHF for LLMs"
    assert narration.capitalize("") == ""


def test_describe_change_by_hand():
    grew = {"label": "optimal transport", "share_2024": 0.0, "share_2025": 0.042, "diff_pp": 4.2, "ci_low_pp": 1.0,
            "ci_high_pp": 7.0, "q_value": 0.01, "direction": "grew"}
    assert narration.describe_change(grew, 2024, 2025) == (
        "Optimal transport grew from 0.0 % to 4.2 % of papers (+4.2 points, 95 % CI +1.0 to +7.0; q = 0.01).")
    shrank = {"label": "gans", "share_2024": 0.2, "share_2025": 0.125, "diff_pp": -7.5, "ci_low_pp": -10.0,
              "ci_high_pp": -5.0, "q_value": 0.00123, "direction": "shrank"}
    assert narration.describe_change(pd.Series(shrank), 2024, 2025) == (
        "Gans shrank from 20.0 % to 12.5 % of papers (-7.5 points, 95 % CI -10.0 to -5.0; q = 0.0012).")
    unclear = {"label": "speech", "share_2024": 0.3, "share_2025": 0.29, "diff_pp": -1.0, "ci_low_pp": -9.0,
               "ci_high_pp": 6.0, "q_value": 0.8, "direction": "no clear change"}
    assert narration.describe_change(unclear, 2024, 2025) == (
        "Speech went from 30.0 % to 29.0 % of papers (-1.0 points, 95 % CI -9.0 to +6.0; q = 0.8).")


def test_describe_trend_by_hand():
    row = {"label": "diffusion models", "share_2021": 0.01, "share_2022": 0.03, "share_2023": 0.09, "slope_pp": 4.0,
           "slope_low_pp": 2.5, "slope_high_pp": 5.5, "q_value": 1e-6, "trend": "emerging"}
    years = [2021, 2022, 2023]
    assert narration.describe_trend(row, years) == (
        "Diffusion models emerged from 1.0 % of papers in 2021 to 9.0 % in 2023 (+4.0 points a year, 95 % CI +2.5 to +5.5; q = 1e-06).")
    assert narration.describe_trend({**row, "trend": "growing"}, years).startswith("Diffusion models grew from 1.0 % of papers in 2021 to")
    assert narration.describe_trend({**row, "trend": "fading"}, years).startswith("Diffusion models faded from")
    flat = {"label": "speech", "share_1": 0.1, "share_2": 0.12, "share_3": 0.1, "slope_pp": 0.0, "slope_low_pp": -1.0,
            "slope_high_pp": 1.0, "q_value": 1.0, "trend": "stable"}
    assert narration.describe_trend(flat, [1, 2, 3], unit="step") == (
        "Speech was at 10.0 % of papers in 1 and 10.0 % in 3 (+0.0 points a step, 95 % CI -1.0 to +1.0; q = 1).")


def test_describe_trend_quotes_the_pooled_halves_of_the_span():
    # the first year is high and the last one low, against the trend of the span: the
    # sentence quotes the halves the trend class compares (classify_trends), pooled
    row = {"label": "time", "share_2021": 0.3, "share_2022": 0.1, "share_2023": 0.2, "share_2024": 0.25, "slope_pp": 3.0,
           "slope_low_pp": 1.0, "slope_high_pp": 5.0, "q_value": 0.01, "trend": "growing"}
    sizes = {2021: 10, 2022: 90, 2023: 50, 2024: 50}
    assert narration.describe_trend(row, [2021, 2022, 2023, 2024], sizes=sizes) == (
        "Time grew from 12.0 % of papers in 2021 and 2022 to 22.5 % in 2023 and 2024 (+3.0 points a year, 95 % CI +1.0 to +5.0; "
        "q = 0.01).")  # (0.3 x 10 + 0.1 x 90) / 100 and (0.2 x 50 + 0.25 x 50) / 100
    # an odd number of years leaves the middle one out; longer halves are ranges
    years = list(range(2001, 2008))
    shares = [0.1, 0.5, 0.3, 0.9, 0.1, 0.2, 0.3]  # the first year below the last
    seven = {**{f"share_{y}": s for y, s in zip(years, shares)}, "label": "bounds", "slope_pp": -1.0, "slope_low_pp": -2.0,
             "slope_high_pp": -0.5, "q_value": 0.02, "trend": "fading"}
    assert narration.describe_trend(seven, years, sizes=dict.fromkeys(years, 100)).startswith(
        "Bounds faded from 30.0 % of papers in 2001–2003 to 20.0 % in 2005–2007")
    with pytest.raises(ValueError, match="sizes"):
        narration.describe_trend(row, [2021, 2022, 2023, 2024])


def test_describe_trend_keeps_small_shares_and_slopes_non_zero():
    years = [2021, 2022, 2023]
    tiny = {"label": "x", "share_2021": 0.0001, "share_2022": 0.0002, "share_2023": 0.0004, "slope_pp": 0.015,
            "slope_low_pp": 0.0031, "slope_high_pp": 0.027, "q_value": 0.017, "trend": "emerging"}
    assert narration.describe_trend(tiny, years) == (
        "X emerged from 0.010 % of papers in 2021 to 0.040 % in 2023 (+0.015 points a year, 95 % CI +0.0031 to +0.027; q = 0.017).")
    close = {"label": "time", "share_2021": 0.1004, "share_2022": 0.1003, "share_2023": 0.1002, "slope_pp": -0.012,
             "slope_low_pp": -0.021, "slope_high_pp": -0.0031, "q_value": 0.017, "trend": "fading"}
    assert narration.describe_trend(close, years) == (
        "Time faded from 10.04 % of papers in 2021 to 10.02 % in 2023 (-0.012 points a year, 95 % CI -0.021 to -0.0031; q = 0.017).")
    # slopes of one point or more keep one decimal; between 0.1 and 1, two significant digits
    steep = {**close, "slope_pp": -12.34, "slope_low_pp": -0.53, "slope_high_pp": 0.0}
    assert "(-12.3 points a year, 95 % CI -0.53 to +0.0; " in narration.describe_trend(steep, years)


def test_narrate_trend_gives_the_range_of_sizes_over_many_groups():
    def head(n_groups: int) -> str:
        groups = tuple(range(2001, 2001 + n_groups))
        sizes = {g: 100 * (i + 1) for i, g in enumerate(groups)} | {groups[-1]: 1200}
        table = pd.DataFrame([{"topic": 0, "label": "speech", **{f"share_{g}": 0.1 for g in groups}, "slope_pp": 0.0,
                               "slope_low_pp": -0.1, "slope_high_pp": 0.1, "z": 0.0, "q_value": 1.0, "trend": "stable",
                               "outliers_counted": False}])
        trend = Trend(table, by="year", groups=groups, sizes=sizes, scores=tuple(map(float, groups)), step="year")
        return narration.narrate_trend(trend)[0]

    assert head(6).startswith("From 2001 to 2006 (6 years with 100 to 1,200 papers with a topic each), no topic's share moved")
    assert head(5).startswith("From 2001 to 2005 (5 years with 100, 200, 300, 400 and 1,200 papers with a topic), no topic's")


def _areas(directions):
    table = pd.DataFrame([
        {"topic": -1, "label": "outliers", "share_2024": 0.1, "share_2025": 0.5, "diff_pp": 40.0, "ci_low_pp": 30.0,
         "ci_high_pp": 50.0, "z": 9.0, "q_value": 1e-9, "direction": "grew", "outliers_counted": False},
        {"topic": 0, "label": "vision", "share_2024": 0.1, "share_2025": 0.3, "diff_pp": 20.0, "ci_low_pp": 10.0,
         "ci_high_pp": 30.0, "z": 4.0, "q_value": 0.001, "direction": directions[0], "outliers_counted": False},
        {"topic": 1, "label": "rl", "share_2024": 0.9, "share_2025": 0.7, "diff_pp": -20.0, "ci_low_pp": -45.0,
         "ci_high_pp": 5.0, "z": -1.5, "q_value": 0.2, "direction": directions[1], "outliers_counted": False},
    ])
    return TwoGroups(table, by="year", groups=(2024, 2025), sizes={2024: 100, 2025: 100}, unit="area")


def test_narrate_areas_leaves_out_the_outliers():
    areas = _areas(["grew", "no clear change"])
    text = narration.narrate_areas(areas)
    assert text[0] == "The topics fall into 2 areas; 1 changed clearly in share from 2024 to 2025 (1 grew, 0 shrank)."
    assert text[1] == "Area " + narration.describe_change(areas.table.iloc[1], 2024, 2025)
    assert len(text) == 2
    quiet = narration.narrate_areas(_areas(["no clear change", "no clear change"]))
    assert quiet[0] == "The topics fall into 2 areas; no area's share changed clearly from 2024 to 2025 (no q-value below 0.05)."
    assert quiet[1].startswith("The largest estimated rise among areas: vision went from 10.0 % to 30.0 %")
    assert quiet[2].startswith("The largest estimated fall among areas: rl went from 90.0 % to 70.0 %")
    only_outliers = TwoGroups(areas.table.iloc[:1], by="year", groups=(2024, 2025), sizes={2024: 100, 2025: 100})
    assert narration.narrate_areas(only_outliers) == []


def test_narrate_pair_by_hand():
    table = pd.DataFrame([
        {"topic": 0, "label": "rl", "share_Poster": 0.05, "share_Oral": 0.2, "diff_pp": 15.0, "ci_low_pp": 7.0,
         "ci_high_pp": 23.0, "z": 3.2, "q_value": 0.004, "direction": "higher in Oral", "outliers_counted": False},
        {"topic": 1, "label": "vision", "share_Poster": 0.95, "share_Oral": 0.81, "diff_pp": -14.0, "ci_low_pp": -30.0,
         "ci_high_pp": 1.0, "z": -1.0, "q_value": 0.3, "direction": "no clear difference", "outliers_counted": False},
    ])
    pair = TwoGroups(table, by="status", groups=("Poster", "Oral"), sizes={"Poster": 1000, "Oral": 100})
    text = pair.narrate()
    assert text == narration.narrate_pair(pair)
    assert text == [
        ("Comparing Poster (1,000 papers with a topic) with Oral (100) across 2 topics, 1 topic differs clearly in share "
         "(false-discovery rate q < 0.05): 1 higher in Oral and 0 higher in Poster."),
        "Rl: 20.0 % of Oral papers against 5.0 % of Poster papers (+15.0 points, 95 % CI +7.0 to +23.0; q = 0.004).",
    ]
    quiet = TwoGroups(table.assign(direction="no clear difference"), by="status", groups=("Poster", "Oral"),
                      sizes={"Poster": 1000, "Oral": 100}).narrate()
    assert "no topic's share differs clearly" in quiet[0]
    assert quiet[1].startswith("The largest estimated difference: rl: 20.0 % of Oral papers")  # |+15.0| > |-14.0|
    assert quiet[2] == "With 100 papers in the smaller group, differences of this size are within what chance allows."
