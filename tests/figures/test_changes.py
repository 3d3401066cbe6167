"""Figures of a comparison of two groups (topics.figures.changes): prevalence_shift, significance_plot."""

import numpy as np
import pandas as pd
import pytest

from tests.conftest import values
from topics import figures
from topics.stats.comparison import TwoGroups


@pytest.fixture
def comparison():
    comp = pd.DataFrame(
        {
            "topic": [1, 0, 2],
            "label": ["optimal transport", "speech", "<b>bold</b>"],
            "n_2024": [0, 10, 5],
            "n_2025": [20, 10, 5],
            "share_2024": [0.0, 0.5, 0.25],
            "share_2025": [0.4, 0.2, 0.1],
            "diff_pp": [40.0, -30.0, -15.0],
            "ci_low_pp": [20.0, -50.0, -35.0],
            "ci_high_pp": [55.0, -5.0, 5.0],
            "z": [3.1, -2.0, -0.9],
            "p_value": [0.001, 0.02, 0.3],
            "q_value": [0.003, 0.03, 0.3],
            "direction": ["grew", "shrank", "no clear change"],
            "outliers_counted": False,
        }
    )
    return TwoGroups(comp, by="year", groups=(2024, 2025), sizes={2024: 20, 2025: 50})


def test_prevalence_shift(comparison):
    d = figures.prevalence_shift(comparison).to_dict()
    bars = [t for t in d["data"] if t["type"] == "bar"][0]
    # sorted by z ascending, so the largest growth is drawn on top
    assert list(bars["y"]) == ["speech", "&lt;b&gt;bold&lt;/b&gt;", "optimal transport"]
    assert values(bars["x"]) == [-30.0, -15.0, 40.0]
    assert values(bars["error_x"]["array"]) == [25.0, 20.0, 15.0]
    assert values(bars["error_x"]["arrayminus"]) == [20.0, 20.0, 20.0]
    assert list(bars["marker"]["opacity"]) == [1.0, 0.35, 1.0]  # only clear changes in full colour
    assert "&lt;b&gt;bold&lt;/b&gt;" in bars["y"] and "<b>bold</b>" not in bars["y"]
    markers = [t for t in d["data"] if t["type"] == "scatter" and t.get("mode") == "markers"]
    assert [m["name"] for m in markers] == ["2024", "2025"]
    assert values(markers[1]["x"]) == pytest.approx([20.0, 10.0, 40.0])
    assert "percentage points" in d["layout"]["xaxis2"]["title"]["text"]
    assert "q = 0.003" in bars["hovertext"][2] and "+40.0 points" in bars["hovertext"][2]


def test_significance_plot(comparison):
    d = figures.significance_plot(comparison).to_dict()
    pts = d["data"][0]
    assert values(pts["y"]) == pytest.approx(list(-np.log10([0.003, 0.03, 0.3])))
    assert list(pts["text"]) == ["optimal transport", "speech", ""]
    assert d["layout"]["yaxis"]["title"]["text"].startswith("evidence")


def test_prevalence_shift_names_its_rows(comparison):
    d = figures.prevalence_shift(comparison, unit="area").to_dict()
    assert d["layout"]["title"]["text"].startswith("Which areas grew or shrank")
    assert d["layout"]["yaxis"]["title"]["text"].startswith("area (sorted by z-score")


def test_significance_plot_draws_the_alpha_line_and_sizes_dots_by_papers(comparison):
    d = figures.significance_plot(comparison, alpha=0.01).to_dict()
    line = [s for s in d["layout"]["shapes"] if s["line"].get("dash") == "dash"]
    assert len(line) == 1 and line[0]["y0"] == line[0]["y1"] == pytest.approx(2.0)  # -log10(0.01)
    assert [a["text"] for a in d["layout"]["annotations"]] == ["q = 0.01"]
    # pooled papers 20, 20 and 10: size 8 + 22 * sqrt(n / 20)
    assert values(d["data"][0]["marker"]["size"]) == pytest.approx([30.0, 30.0, 8 + 22 * np.sqrt(0.5)])
    assert d["layout"]["title"]["text"] == "Which changes from 2024 to 2025 are more than noise?"
    assert "<b>bold</b>" not in " ".join(d["data"][0]["hovertext"])  # a topic name is text, never markup
