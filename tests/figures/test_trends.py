import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_trend_documents, values
from topics import figures
from topics.stats.comparison import Groups, Trend, TwoGroups
from topics.stats.groups import compare_groups
from topics.stats.trends import prevalence


@pytest.fixture(scope="module")
def trend():
    docs = make_trend_documents(0)
    return prevalence(docs), compare_groups(docs)


def test_share_trends_small_multiples(trend):
    prev, comp = trend
    d = figures.share_trends(prev, comp, columns=3).to_dict()
    n_topics = comp.table["topic"].nunique()
    assert len(d["data"]) == 2 * n_topics  # a band and a line per topic
    titles = [a["text"] for a in d["layout"]["annotations"]]
    # ordered by class: the emerging topic first, the fading one after every rising one
    assert titles[0] == "0: emerging · emerging"
    order = [t.split(" · ")[1] for t in titles]
    rank = {"emerging": 0, "growing": 1, "fading": 2, "stable": 3, "no clear trend": 4}
    assert [rank[c] for c in order] == sorted(rank[c] for c in order)
    band, line = d["data"][0], d["data"][1]
    part = prev[prev["topic"] == 0].sort_values("year")
    assert values(line["y"]) == pytest.approx(list(100 * part["share"]))
    assert list(line["x"]) == ["2021", "2022", "2023", "2024", "2025"]
    assert values(band["y"]) == pytest.approx(list(100 * part["ci_high"]) + list(100 * part["ci_low"])[::-1])
    assert band["fill"] == "toself" and line["line"]["color"] == figures.topic_colors([0])[0]
    assert "of 300 papers" in line["hovertext"][0]


def test_share_trends_without_a_comparison_orders_by_size(trend):
    prev, _ = trend
    d = figures.share_trends(prev).to_dict()
    first = d["layout"]["annotations"][0]["text"]
    biggest = prev.groupby("label")["share"].mean().idxmax()
    assert first.endswith(biggest) and " · " not in first


def test_trend_movers_takes_the_steepest_slopes(trend):
    prev, comp = trend
    d = figures.trend_movers(prev, comp, n_topics=3).to_dict()
    steepest = comp.table.reindex(comp.table["slope_pp"].abs().sort_values(ascending=False).index).head(3)
    assert [t["name"].split(" (")[0] for t in d["data"]] == steepest["label"].tolist()
    for trace, cls in zip(d["data"], steepest["trend"]):
        assert trace["line"]["dash"] == ("solid" if cls in ("emerging", "growing", "fading") else "dot")
        row = steepest[steepest["label"] == trace["name"].split(" (")[0]].iloc[0]
        assert trace["name"].endswith(f"({row['slope_pp']:+.1f}/year)")
        part = prev[prev["topic"] == row["topic"]].sort_values("year")
        assert values(trace["y"]) == pytest.approx(list(100 * part["share"]))
    with pytest.raises(ValueError, match="n_topics must be at least 1"):
        figures.trend_movers(prev, comp, n_topics=0)


def test_trend_slopes(trend):
    _, comp = trend
    d = figures.trend_slopes(comp).to_dict()
    bars = d["data"][0]
    ordered = comp.table.sort_values(["slope_pp", "topic"])
    assert values(bars["x"]) == pytest.approx(ordered["slope_pp"].tolist())
    assert values(bars["error_x"]["array"]) == pytest.approx((ordered["slope_high_pp"] - ordered["slope_pp"]).tolist())
    clear = ordered["trend"].isin(["emerging", "growing", "fading"])
    assert list(bars["marker"]["opacity"]) == [1.0 if c else 0.35 for c in clear]
    assert "points per year" in d["layout"]["xaxis"]["title"]["text"]


def test_trend_figures_need_a_trend_table(trend):
    # compare_groups picks the kind from the groups: a trend over 3+ years, two groups otherwise
    _, comp = trend
    assert type(comp) is Trend and comp.groups == (2021, 2022, 2023, 2024, 2025) and comp.step == "year"
    two = compare_groups(make_trend_documents(0)[lambda d: d["year"].isin([2024, 2025])])
    assert type(two) is TwoGroups and two.groups == (2024, 2025)
    assert "slope_pp" not in two.table and "trend" not in two.table
    # a trend figure of two groups fails: they have no step, no slopes and no classes
    with pytest.raises((AttributeError, KeyError)):
        figures.trend_slopes(two)
    with pytest.raises((AttributeError, KeyError)):
        figures.trend_movers(prevalence(make_trend_documents(0)), two)


@pytest.fixture(scope="module")
def venues():
    rows = {"ICLR": {0: 40, 1: 30, 2: 30}, "<i>ICML</i>": {0: 10, 1: 60, 2: 30}, "NeurIPS": {0: 20, 1: 45, 2: 35}}
    docs = pd.DataFrame(
        [{"venue": g, "topic": t, "topic_label": ["rl", "vision", "<b>x</b>"][t]} for g, per in rows.items() for t, n in per.items() for _ in range(n)]
    )
    return docs


def test_group_heatmap(venues):
    comp = compare_groups(venues, by="venue")
    d = figures.group_heatmap(comp).to_dict()
    heat = d["data"][0]
    assert type(comp) is Groups
    groups = comp.groups
    z = np.array(values(heat["z"]))
    assert z == pytest.approx(comp.table[[f"z_{g}" for g in groups]].to_numpy())
    assert list(heat["x"]) == ["&lt;i&gt;ICML&lt;/i&gt;", "ICLR", "NeurIPS"]  # group names escaped
    clear = comp.table["leans"] != "no clear difference"
    assert [y.startswith("<b>") for y in heat["y"]] == clear.tolist()
    assert not any("<b>x</b>" in y for y in heat["y"])  # a topic name is text, never markup
    assert heat["zmid"] == 0 and heat["zmin"] == -heat["zmax"]
    with pytest.raises((AttributeError, KeyError)):  # a trend has no z per group
        figures.group_heatmap(compare_groups(make_trend_documents(0)))


def test_topic_sizes_and_shift_for_any_grouping(venues):
    prev = prevalence(venues, by="venue")
    assert prev.columns.tolist()[:5] == ["venue", "topic", "label", "n_docs", "venue_total"]
    d = figures.topic_sizes(prev).to_dict()
    assert [t["name"] for t in d["data"]] == ["&lt;i&gt;ICML&lt;/i&gt; (n = 100)", "ICLR (n = 100)", "NeurIPS (n = 100)"]
    assert "venue's papers" in d["layout"]["xaxis"]["title"]["text"]
    two = compare_groups(venues[venues["venue"] != "NeurIPS"], by="venue")
    shift = figures.prevalence_shift(two).to_dict()
    assert "Which topics are more common in &lt;i&gt;ICML&lt;/i&gt; or in ICLR?" == shift["layout"]["title"]["text"]
    bars = [t for t in shift["data"] if t["type"] == "bar"][0]
    assert type(two) is TwoGroups
    clear = two.table.sort_values("z")["direction"] != "no clear difference"
    assert list(bars["marker"]["opacity"]) == [1.0 if c else 0.35 for c in clear]
    sig = figures.significance_plot(two).to_dict()
    assert "difference" in sig["data"][0]["hovertext"][0]


def test_map_buttons_for_several_years():
    docs = pd.DataFrame({"topic": [0, 0, 1], "topic_label": ["a", "a", "b"], "year": [2021, 2022, 2023], "abstract": ["x.", "y.", "z."]})
    d = figures.topic_map(docs, np.zeros((3, 2))).to_dict()
    assert [b["label"] for b in d["layout"]["updatemenus"][0]["buttons"]] == ["All years", "2021 only", "2022 only", "2023 only"]
