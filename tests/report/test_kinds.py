"""What the report makes of each kind of comparison (topics.report.kinds): the verdict on
a topic (tag), the rows of the table of every topic (rows), the default title and file
name, and a kind without a view. Small hand-made documents tables only, no model."""

import dataclasses

import pandas as pd
import pytest

from tests.conftest import TREND_YEARS
from tests.stats.test_comparison import VENUES, _docs
from tests.stats.test_comparison import pair, trend, trend_docs, two, years  # noqa: F401  the same comparisons, as fixtures
from topics.report import kinds
from topics.report.kinds import KINDS, ComparisonView, file_stem, register_kind, tag, title, view
from topics.stats.comparison import TwoGroups
from topics.stats.groups import compare_groups, describe_group


@pytest.fixture(scope="module")
def grouped():
    return compare_groups(_docs(VENUES, by="venue"), by="venue")


# --------------------------------------------------------------------------- tag


def _row(comparison, label):
    return comparison.table.set_index("label").loc[label].to_dict()


def test_tag_per_kind(two, pair, trend, grouped):
    # a trend: rising classes "grew", fading "shrank", the rest no tag
    assert tag(trend, _row(trend, "fading")) == ("fading", "shrank")
    assert tag(trend, _row(trend, "emerging")) == ("emerging", "grew")
    assert tag(trend, {"trend": "growing"}) == ("growing", "grew")
    assert tag(trend, {"trend": "stable"}) == ("", "") and tag(trend, {"trend": "no clear trend"}) == ("", "")
    # two years: grew / shrank
    assert tag(two, _row(two, "t0")) == ("grew", "grew") and tag(two, _row(two, "t1")) == ("shrank", "shrank")
    assert tag(two, {"direction": "no clear change"}) == ("", "")
    # two other groups and unordered groups: a lean
    assert tag(pair, _row(pair, "t0")) == ("higher in Oral", "lean")
    assert tag(pair, _row(pair, "t1")) == ("higher in Poster", "lean")
    assert tag(pair, {"direction": "no clear difference"}) == ("", "")
    assert tag(grouped, _row(grouped, "t0")) == ("more in ICLR", "lean")
    assert tag(grouped, {"leans": "less in ICML"}) == ("less in ICML", "lean")
    assert tag(grouped, {"leans": "no clear difference"}) == ("", "")
    for comparison in (two, pair, trend, grouped):
        assert tag(comparison, None) == ("", "")


# --------------------------------------------------------------------------- rows


def test_two_groups_rows(two):
    stability = pd.DataFrame({"topic": [0, 1], "same_direction": [3, 1], "n_seeds": [3, 3]})
    rows = kinds.rows(two, stability=stability)
    assert len(rows) == len(two.table)
    assert all(set(r) == {"topic", "label", "n_a", "n_b", "share_a", "share_b", "diff", "low", "high", "z", "p", "q", "direction", "held"}
               for r in rows)
    assert [r["topic"] for r in rows] == two.table["topic"].tolist()
    row = next(r for r in rows if r["topic"] == 0)
    expected = two.table.set_index("topic").loc[0]
    assert (row["n_a"], row["n_b"]) == (2, 30) and row["share_a"] == pytest.approx(0.1) and row["share_b"] == pytest.approx(0.375)
    assert (row["diff"], row["low"], row["high"]) == pytest.approx((expected["diff_pp"], expected["ci_low_pp"], expected["ci_high_pp"]))
    assert (row["z"], row["q"], row["direction"]) == (expected["z"], expected["q_value"], "grew")
    assert row["held"] == "3/3" and next(r for r in rows if r["topic"] == 1)["held"] == "1/3"
    assert next(r for r in rows if r["topic"] == 2)["held"] == ""
    assert all(r["held"] == "" for r in kinds.rows(two))


def test_trend_rows(trend):
    bursts = pd.DataFrame({"topic": [4, 4, 0, 1], "start": [2024, 2022, 2025, 2022], "end": [2024, 2023, 2025, 2022],
                           "q_value": [0.01, 0.02, 0.001, 0.3]})  # topic 1's burst is within chance: not shown
    rows = kinds.rows(trend, bursts=bursts)
    assert len(rows) == len(trend.table) and [r["topic"] for r in rows] == trend.table["topic"].tolist()
    assert all(set(r) == {"topic", "label", "shares", "slope", "low", "high", "z", "q", "trend", "row_class", "burst"} for r in rows)
    by_label = {r["label"]: r for r in rows}
    expected = trend.table.set_index("label").loc["fading"]
    fading = by_label["fading"]
    assert fading["shares"] == pytest.approx([expected[f"share_{y}"] for y in TREND_YEARS])
    assert (fading["slope"], fading["low"], fading["high"]) == pytest.approx(
        (expected["slope_pp"], expected["slope_low_pp"], expected["slope_high_pp"]))
    assert fading["trend"] == "fading" and fading["row_class"] == "shrank" and fading["burst"] == ""
    assert by_label["emerging"]["row_class"] == "grew" and by_label["emerging"]["burst"] == "2025"
    assert by_label["bump"]["burst"] == "2022–2023, 2024"  # sorted by start, a span with a dash
    assert next(r for r in rows if r["topic"] == 1)["burst"] == ""
    assert all(r["burst"] == "" for r in kinds.rows(trend))


def test_groups_rows(grouped):
    rows = kinds.rows(grouped)
    assert len(rows) == len(grouped.table) and [r["topic"] for r in rows] == grouped.table["topic"].tolist()
    assert all(set(r) == {"topic", "label", "shares", "share_all", "zs", "chi2", "q", "leans", "row_class"} for r in rows)
    row = next(r for r in rows if r["topic"] == 0)
    expected = grouped.table.set_index("topic").loc[0]
    assert row["shares"] == pytest.approx([0.4, 0.1, 0.2]) and row["share_all"] == pytest.approx(70 / 300)
    assert row["zs"] == pytest.approx([expected[f"z_{g}"] for g in grouped.groups])
    assert row["leans"] == "more in ICLR" and row["row_class"] == "lean"
    quiet = compare_groups(_docs({"A": {0: 10, 1: 10}, "B": {0: 10, 1: 10}, "C": {0: 11, 1: 9}}, by="venue"), by="venue")
    assert all(r["row_class"] == "" and r["leans"] == "no clear difference" for r in kinds.rows(quiet))


# --------------------------------------------------------------------------- title and file name


def test_title_and_file_stem_per_kind(two, pair, trend, grouped, trend_docs):
    assert title(two, "ICLR") == "ICLR 2024 vs 2025: topics and trends" and file_stem(two, "iclr") == "iclr-2024-vs-2025"
    assert title(pair, "ICLR") == "ICLR: topics by status (Oral, Poster)" and file_stem(pair, "iclr") == "iclr-by-status"
    assert title(trend, "ICLR") == "ICLR 2021–2025: topics and trends" and file_stem(trend, "iclr") == "iclr-2021-2025"
    assert title(grouped, "Papers") == "Papers: topics by venue (ICLR, ICML, NeurIPS)"
    assert file_stem(grouped, "topics") == "topics-by-venue"
    tiers = trend_docs.assign(tier=trend_docs["year"].map({2021: "low", 2022: "low", 2023: "mid", 2024: "high", 2025: "high"}))
    steps = compare_groups(tiers, by="tier", groups=["low", "mid", "high"], ordered=True)
    assert title(steps, "ICLR") == "ICLR low–high: topics and trends" and file_stem(steps, "iclr") == "iclr-by-tier"


def test_one_group_has_no_rows_no_tag_and_names_its_group():
    docs = pd.DataFrame({"year": 2024, "topic": [0] * 6 + [1] * 3, "topic_label": ["diffusion"] * 6 + ["graphs"] * 3})
    one = describe_group(docs)
    assert kinds.rows(one) == [] and tag(one, one.table.iloc[0]) == ("", "") and tag(one, None) == ("", "")
    assert title(one, "ICLR") == "ICLR 2024: topics" and file_stem(one, "iclr") == "iclr-2024"
    tiers = describe_group(docs.drop(columns="year").assign(tier="top"), by="tier")
    assert title(tiers, "ICLR") == "ICLR, tier top: topics" and file_stem(tiers, "iclr") == "iclr-tier-top"


def test_headings_per_kind(two, pair, trend, grouped):
    assert view(two).heading(two) == "What changed from 2024 to 2025?"
    assert view(pair).heading(pair) == "How do the topics differ by status?"
    assert view(trend).heading(trend) == "How did the topics move from 2021 to 2025?"
    assert view(grouped).heading(grouped) == "How do the topics differ by venue?"
    assert {k: v.template for k, v in KINDS.items()} == {k: f"kinds/{k}.html.j2" for k in ("two_groups", "trend", "groups", "one_group")}


@dataclasses.dataclass(frozen=True, eq=False)
class _Toy(TwoGroups):
    kind = "toy_kind"


def test_a_kind_without_a_view_is_named_and_a_kind_is_registered_once(two, monkeypatch):
    toy = _Toy(**two.__dict__)
    with pytest.raises(ValueError, match="kind of comparison 'toy_kind'; the report has no view of it"):
        title(toy, "ICLR")
    monkeypatch.setitem(KINDS, "toy_kind", ComparisonView("toy_kind", lambda c: "Toy?", title=lambda c, venue: f"{venue} toy"))
    assert title(toy, "ICLR") == "ICLR toy" and file_stem(toy, "iclr") == "iclr-by-year" and kinds.rows(toy) == []
    with pytest.raises(ValueError, match="kind of comparison 'toy_kind' exists already"):
        register_kind(ComparisonView("toy_kind", lambda c: ""))
