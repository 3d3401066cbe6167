"""The report's chart declarations (topics.report.charts): every chart has a guide, each
kind of comparison shows its charts in its reading order, and a chart declared from
outside (a toy chart here) appears in a rendered report with its guide, only for the
kinds it names."""

import plotly.graph_objects as go
import pytest

from topics.report.charts import CHARTS, Chart, build_figures, charts_for, register_chart
from topics.report.render import render_report


def test_every_kind_reads_its_charts_in_order():
    assert [c.key for c in charts_for("two_groups")] == [
        "area_shift", "shift", "significance", "map", "sizes", "terms", "similarity", "hierarchy", "themes", "growth"]
    assert [c.key for c in charts_for("trend")] == [
        "trends", "movers", "slopes", "area_slopes", "map", "terms", "similarity", "hierarchy", "themes", "growth"]
    assert [c.key for c in charts_for("groups")] == [
        "heatmap", "area_heatmap", "sizes", "map", "terms", "similarity", "hierarchy", "themes"]
    assert [c.key for c in charts_for("one_group")] == ["area_sizes", "map", "sizes", "terms", "similarity", "hierarchy", "themes"]
    assert [c.key for c in charts_for("a kind nobody declared")] == ["terms", "similarity", "hierarchy", "themes"]


def test_a_chart_without_a_guide_cannot_be_declared():
    with pytest.raises(ValueError, match="chart 'bare' has no reading guide"):
        Chart("bare", lambda analysis: go.Figure(), "")
    with pytest.raises(ValueError, match="needs a key"):
        Chart("", lambda analysis: go.Figure(), "A guide.")
    with pytest.raises(ValueError, match="chart 'map' exists already"):
        register_chart(Chart("map", lambda analysis: go.Figure(), "Another map."))


def test_a_chart_for_a_kind_nobody_declared_cannot_be_registered():
    """A misspelt kind would hide the chart from every report without a word."""
    with pytest.raises(ValueError, match=r"chart 'toy' is shown for 'trends', which no kind of comparison is"):
        register_chart(_toy_chart({"trends": 60}))
    assert "toy" not in CHARTS


def test_build_figures_of_two_years(sample_analysis):
    figs = build_figures(sample_analysis)
    assert list(figs) == ["area_shift", "shift", "significance", "map", "sizes", "terms", "similarity", "hierarchy", "growth"]
    assert figs["area_shift"].layout.title.text == "Which areas grew or shrank from 2024 to 2025?"
    assert figs["shift"].layout.title.text == "Which topics grew or shrank from 2024 to 2025?"
    assert CHARTS["sizes"].how(sample_analysis, figs["sizes"]).startswith("Bars are shares of each year's papers")


def test_build_figures_of_a_trend_and_of_groups(trend_analysis, status_analysis):
    figs = build_figures(trend_analysis)
    areas = ["area_slopes"] if len(trend_analysis.area_comparison) >= 2 else []
    assert list(figs) == ["trends", "movers", "slopes", *areas, "map", "terms", "similarity", "hierarchy", "growth"]
    if areas:
        assert figs["area_slopes"].layout.title.text == "Which areas rose or fell?"
    figs = build_figures(status_analysis)
    areas = ["area_heatmap"] if len(status_analysis.area_comparison) >= 2 else []
    assert list(figs) == ["heatmap", *areas, "sizes", "map", "terms", "similarity", "hierarchy"]
    if areas:
        assert figs["area_heatmap"].layout.title.text == "Which areas lean to which group?"
    assert CHARTS["sizes"].how(status_analysis, figs["sizes"]).startswith("Bars are shares of each group's papers")


def _toy_chart(kinds) -> Chart:
    def build(analysis):
        return go.Figure(go.Bar(x=[1, 2], y=["a", "b"], orientation="h"), layout={"title": {"text": "Toy chart"}})
    return Chart("toy", build, "Toy guide: read the bars from the top.", kinds=kinds)


def test_a_declared_chart_appears_in_the_report_with_its_guide(sample_analysis, monkeypatch):
    assert "toy" not in CHARTS
    monkeypatch.setitem(CHARTS, "toy", _toy_chart({"two_groups": 45}))  # after the map, before the sizes
    html = render_report(sample_analysis)
    assert '<section class="chart" id="section-toy">' in html and 'id="chart-toy"' in html
    assert "<p class=\"how\">Toy guide: read the bars from the top.</p>" in html
    assert html.index('id="section-map"') < html.index('id="section-toy"') < html.index('id="section-sizes"')


def test_a_declared_chart_is_left_out_of_a_kind_it_does_not_name(sample_analysis, monkeypatch):
    monkeypatch.setitem(CHARTS, "toy", _toy_chart({"trend": 5, "groups": 5}))
    assert "toy" not in build_figures(sample_analysis)
    html = render_report(sample_analysis)
    assert "chart-toy" not in html and "Toy guide" not in html
