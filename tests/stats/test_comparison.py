"""The comparison objects of topics.stats.comparison: which kind compare_groups returns,
and what each kind says (narrate) and draws at a glance (overview). What the report makes
of each kind is tested in tests/report/test_kinds.py. Small hand-made documents tables
only, no model."""

import dataclasses
import re

import pandas as pd
import pytest

from tests.conftest import TREND_YEARS, make_trend_documents
from topics.stats import narration
from topics.stats.comparison import Comparison, Groups, Trend, TwoGroups
from topics.stats.groups import compare_groups
from topics.stats.trends import compare_years


def _docs(counts: dict, by: str = "year") -> pd.DataFrame:
    rows = [{by: g, "topic": t, "topic_label": f"t{t}"} for g, per in counts.items() for t, n in per.items() for _ in range(n)]
    return pd.DataFrame(rows)


def _per_area(docs: pd.DataFrame, areas: dict, by: str = "year", **kwargs) -> Comparison:
    """The comparison of ``docs`` with topics pooled into areas, as the pipeline builds it."""
    by_area = docs.assign(topic=docs["topic"].map(areas), topic_label=docs["topic"].map(areas).map(lambda a: f"area {a}"))
    comparison = compare_groups(by_area, by, **kwargs)
    return comparison.per_area(comparison.table)


TWO_YEARS = {2024: {0: 2, 1: 15, 2: 3, -1: 5}, 2025: {0: 30, 1: 30, 2: 20, -1: 9}}
VENUES = {"ICLR": {0: 40, 1: 30, 2: 30}, "ICML": {0: 10, 1: 60, 2: 30}, "NeurIPS": {0: 20, 1: 45, 2: 35}}
STATUS = {"Oral": {0: 30, 1: 10}, "Poster": {0: 100, 1: 300}}


@pytest.fixture(scope="module")
def years():
    return _docs(TWO_YEARS)


@pytest.fixture(scope="module")
def two(years):
    return compare_groups(years)


@pytest.fixture(scope="module")
def pair():
    return compare_groups(_docs(STATUS, by="status"), by="status")


@pytest.fixture(scope="module")
def trend_docs():
    return make_trend_documents(0)


@pytest.fixture(scope="module")
def trend(trend_docs):
    return compare_groups(trend_docs)


@pytest.fixture(scope="module")
def venues():
    return _docs(VENUES, by="venue")


@pytest.fixture(scope="module")
def grouped(venues):
    return compare_groups(venues, by="venue")


# --------------------------------------------------------------------------- which kind


def test_compare_groups_returns_the_kind_of_its_groups(two, pair, trend, grouped, trend_docs, venues):
    assert type(two) is TwoGroups and two.kind == "two_groups" and two.by == "year" and two.groups == (2024, 2025)
    assert type(pair) is TwoGroups and pair.by == "status" and pair.groups == ("Oral", "Poster")
    assert type(trend) is Trend and trend.kind == "trend" and trend.groups == TREND_YEARS and trend.step == "year"
    assert type(grouped) is Groups and grouped.kind == "groups" and grouped.groups == ("ICLR", "ICML", "NeurIPS")
    assert all(isinstance(c, Comparison) for c in (two, pair, trend, grouped))
    # the table is the per-topic DataFrame, one row per topic
    assert isinstance(two.table, pd.DataFrame) and len(two) == len(two.table) == 3
    assert len(grouped) == 3 and len(trend) == trend_docs["topic"].nunique()
    # ordered or not decides between a trend and unordered groups
    assert type(compare_groups(trend_docs, ordered=False)) is Groups
    tiers = trend_docs.assign(tier=trend_docs["year"].map({2021: "a", 2022: "a", 2023: "b", 2024: "c", 2025: "c"}))
    steps = compare_groups(tiers, by="tier", groups=["a", "b", "c"], ordered=True)
    assert type(steps) is Trend and steps.step == "step" and steps.scores == (0.0, 1.0, 2.0)
    assert type(compare_groups(venues, by="venue", ordered=True)) is Trend
    # two groups are two groups whether ordered or not, and compare_years agrees
    assert type(compare_groups(venues[venues["venue"] != "ICML"], by="venue")) is TwoGroups
    assert type(compare_groups(trend_docs, groups=[2021, 2025], ordered=False)) is TwoGroups
    assert type(compare_years(trend_docs, 2021, 2025)) is TwoGroups


def test_sizes_count_the_documents_with_a_topic_per_group(two, pair, trend, grouped, trend_docs, years):
    assert two.sizes == {2024: 20, 2025: 80} and (two.n_a, two.n_b) == (20, 80)
    assert pair.sizes == {"Oral": 40, "Poster": 400} and (pair.n_a, pair.n_b) == (40, 400)
    assert trend.sizes == {y: int((trend_docs["year"] == y).sum()) for y in TREND_YEARS}
    assert grouped.sizes == {"ICLR": 100, "ICML": 100, "NeurIPS": 100}
    counted = compare_groups(years, include_outliers=True)
    assert counted.sizes == {2024: 25, 2025: 89} and counted.outliers_counted and not two.outliers_counted


def test_year_a_only_where_the_groups_are_two_years(two, pair, trend, grouped):
    assert (two.year_a, two.year_b) == (2024, 2025) and (two.group_a, two.group_b) == (2024, 2025)
    assert (pair.group_a, pair.group_b) == ("Oral", "Poster")
    with pytest.raises(AttributeError, match="by 'status' has no year_a"):
        _ = pair.year_a
    with pytest.raises(AttributeError, match="by 'status' has no year_b"):
        _ = pair.year_b
    for other in (trend, grouped):
        with pytest.raises(AttributeError, match="has no year_a"):
            _ = other.year_a
        assert not hasattr(other, "year_b")
    assert trend.trend_over_years and not two.trend_over_years and not grouped.trend_over_years


def test_comparisons_are_frozen(two):
    with pytest.raises(dataclasses.FrozenInstanceError):
        two.by = "venue"


# --------------------------------------------------------------------------- per area


def test_per_area_keeps_kind_groups_and_sizes(two, trend, grouped):
    for comparison in (two, trend, grouped):
        table = comparison.table.head(2).copy()
        area = comparison.per_area(table)
        assert type(area) is type(comparison) and area.kind == comparison.kind
        assert area.by == comparison.by and area.groups == comparison.groups and area.sizes == comparison.sizes
        assert area.unit == "area" and comparison.unit == "topic"
        assert area.table is table and len(area) == 2
    area = trend.per_area(trend.table)
    assert area.scores == trend.scores and area.step == trend.step


def test_overview_is_the_chart_of_each_kind(two, trend, grouped):
    assert two.overview().layout.title.text == "Which topics grew or shrank from 2024 to 2025?"
    assert two.per_area(two.table).overview().layout.yaxis.title.text.startswith("area (sorted by z-score")
    assert trend.overview(title="T").layout.title.text == "T"
    assert grouped.overview().data[0].type == "heatmap"


# --------------------------------------------------------------------------- narrate


def test_two_years_narrate_is_narrate_years_led_by_the_areas(two, years):
    text = two.narrate()
    assert text == narration.narrate_years(two)
    assert text[0].startswith("Comparing 2024 (20 papers assigned to a topic) with 2025 (80) across 3 topics, ")
    assert two.narrate(max_items=1, alpha=0.01) == narration.narrate_years(two, max_items=1, alpha=0.01)
    stability = pd.DataFrame({"topic": [0, 1, 2], "label": ["t0", "t1", "t2"], "n_seeds": 2, "recovered": [2, 2, 1],
                              "stable": [True, False, False]})
    assert two.narrate(stability=stability) == narration.narrate_years(two, stability=stability)
    assert two.narrate(stability=stability)[-1].startswith("Refitted with 2 other seeds, 2 of 3 topics came back every time")
    areas = _per_area(years, {0: 0, 1: 0, 2: 1, -1: -1})
    led = two.narrate(areas=areas)
    assert led == narration.narrate_areas(areas, max_items=3) + narration.narrate_years(two)
    assert led[0].startswith("The topics fall into 2 areas; ")
    # the areas get half the items (rounded up)
    assert two.narrate(areas=areas, max_items=1) == narration.narrate_areas(areas, max_items=1) + narration.narrate_years(two, max_items=1)


def test_pair_trend_and_groups_narrate_with_their_functions(pair, trend, grouped, trend_docs):
    assert pair.narrate() == narration.narrate_pair(pair)
    assert pair.narrate()[0].startswith("Comparing Oral (40 papers with a topic) with Poster (400) across 2 topics, ")
    # areas lead only a comparison of two years
    areas = _per_area(_docs(STATUS, by="status"), {0: 0, 1: 1}, by="status")
    assert pair.narrate(areas=areas, max_items=1, alpha=0.01) == narration.narrate_pair(pair, max_items=1, alpha=0.01)

    bursts = pd.DataFrame([{"topic": 4, "label": "bump", "start": 2023, "end": 2023, "share_burst": 0.1, "share_all": 0.06}])
    text = trend.narrate(bursts=bursts, areas=_per_area(trend_docs, {t: t % 2 for t in range(8)}))
    assert text == narration.narrate_trend(trend, bursts=bursts)
    assert text[0].startswith("From 2021 to 2025 (5 years with ")
    assert trend.narrate(max_items=1, alpha=0.01) == narration.narrate_trend(trend, max_items=1, alpha=0.01)

    assert grouped.narrate() == narration.narrate_groups(grouped)
    assert grouped.narrate()[0].startswith("Comparing ICLR (100 papers with a topic), ICML (100) and NeurIPS (100) by venue")
    assert grouped.narrate(max_items=1, alpha=0.01) == narration.narrate_groups(grouped, max_items=1, alpha=0.01)


def test_one_group_describes_the_topics_of_one_year():
    from topics.stats.comparison import OneGroup
    from topics.stats.groups import describe_group

    docs = pd.DataFrame({
        "year": 2024, "topic": [0] * 6 + [1] * 3 + [-1],
        "topic_label": ["diffusion"] * 6 + ["graphs"] * 3 + ["outliers (no topic)"],
    })
    one = describe_group(docs)
    assert isinstance(one, OneGroup) and one.kind == "one_group" and not one.compares
    assert TwoGroups.compares and Trend.compares and Groups.compares
    assert one.groups == (2024,) and one.group == 2024 and one.sizes == {2024: 9}  # outliers not counted
    assert one.table["topic"].tolist() == [0, 1] and one.table["share_2024"].tolist() == pytest.approx([6 / 9, 3 / 9])
    assert (one.table["ci_low"] < one.table["share_2024"]).all() and (one.table["share_2024"] < one.table["ci_high"]).all()
    counted = describe_group(docs, include_outliers=True)
    assert counted.sizes == {2024: 10} and -1 in counted.table["topic"].tolist() and counted.outliers_counted
    text = one.narrate()
    assert text[0] == "The 2024 papers (9 papers with a topic) fall into 2 topics."
    assert text[1] == "The largest: diffusion (66.7 %) and graphs (33.3 %)."
    assert "nothing to compare" in text[-1] and "topics update" in text[-1]
    overview = one.overview().to_dict()
    assert len(overview["data"]) == 1 and sorted(overview["data"][0]["y"]) == ["diffusion", "graphs"]
    area = one.per_area(one.table)
    assert isinstance(area, OneGroup) and area.unit == "area"
    with pytest.raises(ValueError, match="2 values; name the group"):
        describe_group(pd.concat([docs, docs.assign(year=2025)]))
    with pytest.raises(ValueError, match="year 2030 is not in the documents"):
        describe_group(docs, group=2030)


# --------------------------------------------------------------------------- many years

LONG_YEARS = tuple(range(1987, 2023))
LONG_SIZES = tuple(int(round(50 * (2818 / 50) ** (j / 35))) for j in range(36))  # 50 to 2,818: NeurIPS in shape


def _long_docs() -> pd.DataFrame:
    """36 years of 50 to 2,818 papers: time rises and bounds fade, each with a first and a
    last year against its trend; diffusion appears in the last seven years."""
    t = [j / 35 for j in range(36)]
    planted = {"time": [0.40 + 0.10 * x for x in t], "bounds": [0.30 - 0.20 * x for x in t], "kernels": [0.05] * 36,
               "diffusion": [0.01 if x > 0.8 else 0.0 for x in t]}
    counts = {}
    for j, (year, n) in enumerate(zip(LONG_YEARS, LONG_SIZES)):
        per = {label: round(shares[j] * n) for label, shares in planted.items()}
        if j == 0:
            per["time"], per["bounds"] = 25, 5
        if j == 35:
            per["time"], per["bounds"] = 1200, 600
        counts[year] = per | {"other": n - sum(per.values())}
    rows = [{"year": y, "topic": t, "topic_label": label}
            for y, per in counts.items() for t, (label, n) in enumerate(per.items()) for _ in range(n)]
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def long_trend():
    return compare_groups(_long_docs())


TREND_SENTENCE = re.compile(
    r"(?P<label>\w+) (?P<verb>emerged|grew|faded) from (?P<a>[\d.]+) % of papers in (?P<early>\S+) to (?P<b>[\d.]+) % "
    r"in (?P<late>\S+) \((?P<slope>[+-][\d.]+) points a year, 95 % CI (?P<low>[+-][\d.]+) to (?P<high>[+-][\d.]+); q = "
)


def _trend_sentences(trend) -> dict:
    return {m["label"].lower(): m for m in map(TREND_SENTENCE.match, trend.narrate()[1:]) if m}


def test_a_trend_over_many_years_gives_the_range_of_sizes(long_trend):
    head = long_trend.narrate()[0]
    assert head.startswith("From 1987 to 2022 (36 years with 50 to 2,818 papers with a topic each), 4 of 5 topics moved clearly")
    assert "56, 63" not in head


def test_trend_sentences_quote_shares_that_agree_with_the_verb(long_trend):
    told = _trend_sentences(long_trend)
    assert set(told) == {"diffusion", "other", "time", "bounds"}
    classes = long_trend.table.set_index("label")["trend"]
    assert classes[["diffusion", "time", "bounds"]].tolist() == ["emerging", "growing", "fading"]
    for m in told.values():
        a, b = float(m["a"]), float(m["b"])
        assert (a < b) if m["verb"] in ("emerged", "grew") else (a > b), m.group(0)
    assert {(m["early"], m["late"]) for m in told.values()} == {("1987–2004", "2005–2022")}
    # the shares of papers in the first and second half of the span, pooled, by hand
    docs = _long_docs()
    early, late = docs[docs["year"] <= 2004], docs[docs["year"] >= 2005]
    for label in ("time", "bounds"):
        assert float(told[label]["a"]) == pytest.approx(100 * (early["topic_label"] == label).mean(), abs=0.05)
        assert float(told[label]["b"]) == pytest.approx(100 * (late["topic_label"] == label).mean(), abs=0.05)


def test_small_slopes_over_many_years_keep_their_digits(long_trend):
    table = long_trend.table.set_index("label")
    for label, m in _trend_sentences(long_trend).items():
        for key, column in (("slope", "slope_pp"), ("low", "slope_low_pp"), ("high", "slope_high_pp")):
            printed, value = float(m[key]), table.loc[label, column]
            assert printed != 0 and printed == pytest.approx(value, rel=0.05), (label, key, m.group(0))
