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


def _docs(counts: dict[int, dict[int, int]], labels: dict[int, str]) -> pd.DataFrame:
    """A documents table from {year: {topic: n_papers}}."""
    rows = [{"year": y, "topic": t, "topic_label": labels[t]} for y, per in counts.items() for t, n in per.items() for _ in range(n)]
    return pd.DataFrame(rows)


LONG_LABELS = {
    0: "graph neural networks / graph structure & message passing",
    1: "reinforcement learning / policy gradient",
    2: "kernel methods",
    3: "supercalifragilisticexpialidociousnessofeverythingunderthesun",
    4: "variational inference / approximate posterior / evidence lower bound",
    5: "x",
}


@pytest.mark.parametrize("columns", [2, 3, 4, 6])
def test_share_trends_titles_fit_their_panel(columns):
    import html

    years = range(2015, 2022)
    counts = {y: {0: 5 + 10 * k, 1: 40, 2: 60 - 8 * k, 3: 30, 4: 30 + (k % 2) * 20, 5: 20} for k, y in enumerate(years)}
    docs = _docs(counts, LONG_LABELS)
    prev, comp = prevalence(docs), compare_groups(docs)
    d = figures.share_trends(prev, comp, columns=columns).to_dict()
    width = max(20, 140 // columns)  # characters a line: what 11-px text fits in a panel of a 1,100-px figure
    trend = comp.table.set_index("topic")["trend"]
    titles = [a["text"] for a in d["layout"]["annotations"]]
    assert len(titles) == 6
    for title in titles:
        lines = [html.unescape(line) for line in title.split("<br>")]
        assert 1 <= len(lines) <= 2, title
        assert all(len(line) <= width for line in lines), (width, lines)
        assert "<" not in title.replace("<br>", "")  # a name is text, never markup
        topic = int(lines[0].split(":")[0])
        assert lines[-1].endswith(f"· {trend[topic]}")  # the class always shows, at the end
        shown = " ".join(lines)[: -len(f" · {trend[topic]}")].replace("…", "")
        full = f"{topic}: {LONG_LABELS[topic]}"
        # the title is the start of the name, cut only where it must be
        assert full.replace(" ", "").startswith(shown.replace(" ", "")), (shown, full)
        if len(full) + len(f" · {trend[topic]}") <= width:
            assert lines == [f"{full} · {trend[topic]}"]
    raw = {int(t.split(":")[0]): t for t in titles}
    if columns == 4:  # 35 characters: two lines, the second cut before the class
        assert raw[0] == "0: graph neural networks / graph<br>structure &amp; message… · growing"
        assert raw[4] == "4: variational inference /<br>approximate posterior… · stable"  # no dangling "/"
        assert raw[5] == "5: x · no clear trend"  # a short name stays on one line


def test_share_trends_axes_fit_the_line_not_the_widest_band():
    # 1987: ten papers, none in topic 0 -- a Wilson band up to ~28 %; later years: 2-4 % of 1,000 papers.
    counts = {1987: {0: 0, 1: 10}, 1988: {0: 20, 1: 980}, 1989: {0: 30, 1: 970}, 1990: {0: 30, 1: 970}, 1991: {0: 40, 1: 960}}
    docs = _docs(counts, {0: "small", 1: "big"})
    prev = prevalence(docs)
    assert prev.loc[(prev["topic"] == 0) & (prev["year"] == 1987), "ci_high"].iloc[0] > 0.25
    d = figures.share_trends(prev, columns=2).to_dict()
    # panels by mean share: "big" first (yaxis), "small" second (yaxis2)
    assert [a["text"] for a in d["layout"]["annotations"]] == ["1: big", "0: small"]
    small_band, small_line = d["data"][2], d["data"][3]
    peak = max(values(small_line["y"]))
    assert peak == pytest.approx(4.0)
    assert list(d["layout"]["yaxis2"]["range"]) == pytest.approx([0, 1.5 * peak])  # from zero to 1.5 x the line's peak
    assert max(values(small_band["y"])) > 25  # the band itself is intact, only cut by the axis
    # a topic near 100 % stops at 100 %
    big_line = d["data"][1]
    assert max(values(big_line["y"])) > 90 and list(d["layout"]["yaxis"]["range"]) == pytest.approx([0, 100])


DOMINANT = {0: "neural networks", 1: "deep learning", 2: "kernels", 3: "rest a", 4: "rest b", 5: "rest c", 6: "rest d"}


@pytest.fixture(scope="module")
def dominated():
    # topic 0 holds 60 % falling to 50 %; topics 1 and 2 move between 1 % and 10 %; four small ones stay put.
    years = range(1987, 1992)
    counts = {y: {0: 600 - 50 * k, 1: 10 + 17 * k, 2: 80 - 17 * k} | {t: 78 for t in (3, 4, 5, 6)} for k, y in enumerate(years)}
    docs = _docs(counts, DOMINANT)
    return prevalence(docs), compare_groups(docs)


def test_trend_movers_puts_each_topic_on_its_own_peak_when_one_dominates(dominated):
    prev, comp = dominated
    d = figures.trend_movers(prev, comp, n_topics=3).to_dict()
    shares = {t["name"].split(" (")[0]: list(100 * prev[prev["label"] == t["name"].split(" (")[0]].sort_values("year")["share"])
              for t in d["data"]}
    assert set(shares) == {"neural networks", "deep learning", "kernels"}
    # peaks 60 % against 8 %: each line is drawn as a share of its own peak, so every shape shows
    for trace in d["data"]:
        s = shares[trace["name"].split(" (")[0]]
        assert values(trace["y"]) == pytest.approx([100 * v / max(s) for v in s])
        assert max(values(trace["y"])) == pytest.approx(100)
    assert "peak" in d["layout"]["yaxis"]["title"]["text"]
    # a menu switches to the shares themselves and back
    menu = d["layout"]["updatemenus"][0]
    assert [b["label"] for b in menu["buttons"]] == ["Share of papers (%)", "Each topic's peak = 100"] and menu["active"] == 1
    share_button, peak_button = menu["buttons"]
    for k, trace in enumerate(d["data"]):
        assert list(share_button["args"][0]["y"][k]) == pytest.approx(shares[trace["name"].split(" (")[0]])
        assert list(peak_button["args"][0]["y"][k]) == pytest.approx(values(trace["y"]))
    assert "share of the year's papers" in share_button["args"][1]["yaxis.title.text"]
    # the hover always gives the share itself
    neural = next(t for t in d["data"] if t["name"].startswith("neural networks"))
    assert f"{shares['neural networks'][0]:.1f} %" in neural["hovertext"][0] and neural["hovertext"][0].count("59.9 %") == 1
    # asked for, the shares themselves
    plain = figures.trend_movers(prev, comp, n_topics=3, scale="share").to_dict()
    for trace in plain["data"]:
        assert values(trace["y"]) == pytest.approx(shares[trace["name"].split(" (")[0]])
    assert plain["layout"]["yaxis"]["title"]["text"] == "share of the year's papers (%)"
    assert plain["layout"]["updatemenus"][0]["active"] == 0
    with pytest.raises(ValueError, match="scale must be 'auto', 'share' or 'peak', got 'log'"):
        figures.trend_movers(prev, comp, scale="log")


def test_trend_movers_keeps_shares_when_peaks_are_alike(trend):
    prev, comp = trend
    d = figures.trend_movers(prev, comp).to_dict()  # peaks 9.5 % to 27.5 %: within a factor of four
    assert d["layout"]["updatemenus"][0]["active"] == 0
    assert d["layout"]["yaxis"]["title"]["text"] == "share of the year's papers (%)"
    peak = figures.trend_movers(prev, comp, scale="peak").to_dict()
    assert all(max(values(t["y"])) == pytest.approx(100) for t in peak["data"])
