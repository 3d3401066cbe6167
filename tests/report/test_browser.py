"""The report in a real browser: headless Chromium opens it from file://."""

import os
import shutil
from pathlib import Path

import pytest

import topics

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
REQUIRED = os.environ.get("TOPICS_REQUIRE_BROWSER") == "1"


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        if REQUIRED:
            pytest.fail(f"chromium not found at {CHROMIUM}; `make browser` installs it")
        pytest.skip("chromium is not installed (make browser)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"],
        )
        yield b
        b.close()


def open_report(browser, path: Path):
    page = browser.new_page()
    events = {"console": [], "requests": [], "dialogs": [], "errors": []}
    page.on("console", lambda m: events["console"].append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: events["errors"].append(str(e)))
    page.on("request", lambda r: events["requests"].append(r.url) if not r.url.startswith(("file:", "data:", "blob:")) else None)

    def on_dialog(d):
        events["dialogs"].append(d.message)
        d.dismiss()

    page.on("dialog", on_dialog)
    page.goto(path.resolve().as_uri(), wait_until="load")
    page.wait_for_timeout(1500)
    return page, events


def test_report_draws_every_chart_offline(browser, sample_analysis, tmp_path):
    path = topics.write_report(sample_analysis, tmp_path / "report.html")
    page, events = open_report(browser, path)
    charts = page.locator("div.js-plotly-plot")
    n = charts.count()
    assert n == len(topics.report.render.build_figures(sample_analysis))
    for i in range(n):
        assert charts.nth(i).locator("svg.main-svg").count() >= 1, f"chart {i} did not draw"
    assert events["console"] == [] and events["errors"] == []
    assert events["requests"] == []
    # the year selector really filters the map
    visible = "document.getElementById('chart-map').data.filter(t => t.visible !== false).length"
    before = page.evaluate(visible)
    page.get_by_text("2024 only").first.click()
    page.wait_for_timeout(300)
    after = page.evaluate(visible)
    assert 0 < after < before
    page.close()


def test_injected_markup_shows_as_text_and_never_runs(browser, sample_corpus, tmp_path):
    payloads = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "\"'><svg onload=alert(1)>"]
    corpus = sample_corpus.copy()
    # every abstract opens with a payload, so every topic card and hover label carries one
    corpus["abstract"] = [payloads[i % 3] + " " + a for i, a in enumerate(corpus["abstract"])]
    corpus.loc[:2, "title"] = payloads
    analysis = topics.analyze(corpus, embedder="lsa", cache=False)
    path = topics.write_report(analysis, tmp_path / "xss.html")
    page, events = open_report(browser, path)
    assert events["dialogs"] == [], "a payload executed"
    assert events["errors"] == [] and events["requests"] == []
    body = page.inner_text("#topics")
    for p in payloads:
        assert p in body, f"{p!r} is not shown as text"
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("main svg[onload]").count() == 0
    page.close()


@pytest.mark.parametrize("name", ["trend_analysis", "status_analysis"])
def test_trend_and_grouping_reports_draw_every_chart(browser, request, tmp_path, name):
    analysis = request.getfixturevalue(name)
    path = topics.write_report(analysis, tmp_path / f"{name}.html")
    page, events = open_report(browser, path)
    charts = page.locator("div.js-plotly-plot")
    keys = list(topics.report.render.build_figures(analysis))
    assert charts.count() == len(keys)
    for key in keys:
        chart = page.locator(f"#chart-{key}")
        assert chart.locator("svg.main-svg").count() >= 1, f"{key} did not draw"
        # every trace made it into the page: plotly's own data on the div
        assert page.evaluate(f"document.getElementById('chart-{key}').data.length") >= 1, key
    assert events["console"] == [] and events["errors"] == [] and events["requests"] == []
    if name == "trend_analysis":
        # one band and one line per topic in the small multiples, drawn as SVG paths
        n_topics = analysis.comparison.table["topic"].nunique()
        assert page.evaluate("document.getElementById('chart-trends').data.length") == 2 * n_topics
        assert page.locator("#chart-trends g.trace.scatter").count() == 2 * n_topics
        assert page.locator("#chart-slopes g.trace.bars g.point").count() == n_topics
    else:
        rows = page.evaluate("document.getElementById('chart-heatmap').calcdata[0][0].z.length")
        cols = page.evaluate("document.getElementById('chart-heatmap').calcdata[0][0].z[0].length")
        assert (rows, cols) == (len(analysis.comparison), len(analysis.groups))
        assert page.locator("#chart-heatmap g.hm, #chart-heatmap image").count() >= 1
    page.close()


def test_your_themes_chart_draws(browser, sample_corpus, tmp_path):
    analysis = topics.analyze(sample_corpus, embedder="lsa", cache=False, themes=["self-supervised learning", "optimal transport"])
    path = topics.write_report(analysis, tmp_path / "themes.html")
    page, events = open_report(browser, path)
    chart = page.locator("#themes div.js-plotly-plot")
    assert chart.count() == 1 and chart.locator("svg.main-svg").count() >= 1
    assert page.locator("#themes .card").count() == 2
    assert events["console"] == [] and events["errors"] == [] and events["requests"] == []
    page.close()
