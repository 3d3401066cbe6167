"""The report in a real browser: headless Chromium opens it from file://."""

import os
import shutil
from pathlib import Path

import pytest

import topics
from topics.report import explorer
from topics.report.explorer import explorer_data, unpack

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
    # plotly.js is unpacked after the page loads; the charts draw, then the page says so
    page.wait_for_function("document.documentElement.dataset.charts === 'drawn'", timeout=60_000)
    page.wait_for_timeout(300)
    return page, events


def test_report_draws_every_chart_offline(browser, sample_analysis, tmp_path):
    path = topics.write_report(sample_analysis, tmp_path / "report.html")
    page, events = open_report(browser, path)
    charts = page.locator("div.js-plotly-plot")
    n = charts.count()
    assert n == len(topics.report.charts.build_figures(sample_analysis))
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
    corpus["title"] = [payloads[i % 3] + " " + t for i, t in enumerate(corpus["title"])]
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
    keys = list(topics.report.charts.build_figures(analysis))
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


# --------------------------------------------------------------------------- the paper explorer


def wait_for_explorer(page):
    page.wait_for_selector("#papers[data-ready='1']", state="attached", timeout=30_000)


def shown_rows(page) -> list[int]:
    """The payload indices of the explorer's rows, in their order on the page."""
    return [int(i) for i in page.eval_on_selector_all("#explorer-rows tr", "rows => rows.map(r => r.dataset.index)")]


def wait_for_rows(page, n: int):
    page.wait_for_function(f"document.querySelectorAll('#explorer-rows tr').length === {n}", timeout=10_000)


@pytest.fixture(scope="module")
def sample_report(sample_analysis, tmp_path_factory):
    path = topics.write_report(sample_analysis, tmp_path_factory.mktemp("explorer") / "report.html")
    return path, explorer_data(sample_analysis)["papers"]


def test_typing_in_the_search_box_filters_the_rows(browser, sample_report):
    path, papers = sample_report
    page, events = open_report(browser, path)
    wait_for_explorer(page)
    assert shown_rows(page) == list(range(90))
    text = [(t + " " + a).lower() for t, a in zip(papers["title"], papers["abstract"])]
    expected = [i for i, s in enumerate(text) if "transport" in s]
    assert 0 < len(expected) < 90
    page.fill("#explorer-search", "Transport")
    wait_for_rows(page, len(expected))
    assert shown_rows(page) == expected
    assert page.inner_text("#explorer-count").startswith(f"{len(expected)} of 90 papers match")
    # the map circles the same papers
    circled = page.evaluate("document.getElementById('chart-map').data.find(t => t.meta === 'search').customdata")
    assert sorted(circled) == [papers["pos"][i] for i in expected]
    # every word must appear; the map's own search box drives the same list
    both = [i for i in expected if "optimal" in text[i]]
    page.fill("#map-search", "transport optimal")
    wait_for_rows(page, len(both))
    assert shown_rows(page) == both and page.input_value("#explorer-search") == "transport optimal"
    page.fill("#explorer-search", "")
    wait_for_rows(page, 90)
    assert page.evaluate("document.getElementById('chart-map').data.find(t => t.meta === 'search').x.length") == 0
    assert events["console"] == [] and events["errors"] == [] and events["requests"] == []
    page.close()


def test_clicking_a_topic_card_or_an_area_lists_its_papers_and_no_others(browser, sample_report, sample_analysis):
    path, papers = sample_report
    page, events = open_report(browser, path)
    wait_for_explorer(page)
    docs = sample_analysis.documents
    topic = int(docs.loc[docs["topic"] != -1, "topic"].value_counts().index[-1])  # the smallest topic
    page.fill("#explorer-search", "the")  # a search in progress is cleared by the click
    page.locator(f".card[data-explore-topic='{topic}']").click()
    expected = [i for i, t in enumerate(papers["topic"]) if t == topic]
    wait_for_rows(page, len(expected))
    assert shown_rows(page) == expected
    assert set(page.locator("#explorer-rows tr td:nth-child(3)").all_inner_texts()) == {f"{topic}: {docs.loc[docs['topic'] == topic, 'topic_label'].iloc[0]}"}
    assert page.input_value("#filter-topic") == str(topic) and page.input_value("#explorer-search") == ""
    areas = sample_analysis.areas
    area = int(areas.loc[areas["area"] != -1, "area"].iloc[0])  # the largest area (the outliers, where any, are no area)
    page.locator(f"[data-explore-area='{area}']").click()
    expected = [i for i, a in enumerate(papers["area"]) if a == area]
    wait_for_rows(page, min(len(expected), 100))
    assert shown_rows(page) == expected[:100] and page.input_value("#filter-topic") == ""
    # sorting by confidence puts the least confident first, then reverses
    page.click("th button[data-sort='confidence']")
    page.wait_for_timeout(200)
    conf = [papers["confidence"][i] for i in shown_rows(page)]
    assert conf == sorted(conf)
    page.click("th button[data-sort='confidence']")
    page.wait_for_timeout(200)
    assert [papers["confidence"][i] for i in shown_rows(page)] == sorted(conf, reverse=True)
    assert events["console"] == [] and events["errors"] == [] and events["requests"] == []
    page.close()


def test_clicking_a_paper_shows_its_abstract_and_its_neighbours(browser, sample_report):
    path, papers = sample_report
    page, events = open_report(browser, path)
    wait_for_explorer(page)
    assert page.locator("#paper-detail").is_hidden()
    page.locator("#explorer-rows tr[data-index='7'] button.paper-title").click()
    panel = page.locator("#paper-detail")
    assert panel.is_visible()
    assert panel.locator(".detail-title").inner_text() == papers["title"][7]
    assert panel.locator(".detail-abstract").inner_text() == papers["abstract"][7]
    near = panel.locator(".detail-neighbors button.paper-title")
    assert near.all_inner_texts() == [papers["title"][j] for j in papers["neighbors"][7]] and near.count() == 5
    # a neighbour opens in turn; a click on a map point opens its paper; Escape closes
    near.nth(0).click()
    assert panel.locator(".detail-abstract").inner_text() == papers["abstract"][papers["neighbors"][7][0]]
    page.evaluate(f"document.getElementById('chart-map').emit('plotly_click', {{points: [{{customdata: {papers['pos'][30]}}}]}})")
    assert panel.locator(".detail-abstract").inner_text() == papers["abstract"][30]
    page.keyboard.press("Escape")
    assert panel.is_hidden()
    assert events["console"] == [] and events["errors"] == [] and events["requests"] == []
    page.close()


def test_topic_names_appear_on_the_map_when_zoomed_in(browser, sample_report):
    path, _ = sample_report
    page, events = open_report(browser, path)
    wait_for_explorer(page)
    names = "document.getElementById('chart-map').layout.annotations.filter(a => a.name === '{}').map(a => a.visible !== false)"
    assert set(page.evaluate(names.format("topic"))) == {False} and set(page.evaluate(names.format("area"))) == {True}
    span = page.evaluate("document.getElementById('chart-map').layout.meta.x_span")
    x0 = page.evaluate("document.getElementById('chart-map').layout.xaxis.range[0]")
    page.evaluate(f"Plotly.relayout('chart-map', {{'xaxis.range': [{x0}, {x0 + span / 4}]}})")
    page.wait_for_function("document.getElementById('chart-map').layout.annotations.some(a => a.name === 'topic' && a.visible)")
    assert set(page.evaluate(names.format("topic"))) == {True}
    page.evaluate("Plotly.relayout('chart-map', {'xaxis.autorange': true})")
    page.wait_for_function("!document.getElementById('chart-map').layout.annotations.some(a => a.name === 'topic' && a.visible)")
    assert events["console"] == [] and events["errors"] == []
    page.close()


PAYLOADS = ["<img src=x onerror=alert(1)>", "</script><script>alert(2)</script>", "\"'><svg onload=alert(3)>"]


@pytest.fixture(scope="module")
def payload_analysis(sample_corpus):
    """Three papers whose titles and abstracts open with markup (the abstracts in reverse order)."""
    corpus = sample_corpus.copy()
    corpus["title"] = ""
    corpus.loc[:2, "title"] = PAYLOADS
    corpus.loc[:2, "abstract"] = [p + " " + a for p, a in zip(PAYLOADS[::-1], corpus.loc[:2, "abstract"])]
    return topics.analyze(corpus, embedder="lsa", cache=False)


@pytest.mark.parametrize("packed", [False, True])
def test_explorer_shows_payloads_as_text(browser, payload_analysis, tmp_path, monkeypatch, packed):
    payloads, analysis = PAYLOADS, payload_analysis
    if packed:
        monkeypatch.setattr(explorer, "PACK_ABOVE", 0)
    path = topics.write_report(analysis, tmp_path / "xss.html")
    assert ('"packed":' in path.read_text(encoding="utf-8")) is packed
    page, events = open_report(browser, path)
    wait_for_explorer(page)
    # search results: the payload titles, as text
    page.fill("#explorer-search", "alert")
    wait_for_rows(page, 3)
    assert sorted(page.locator("#explorer-rows button.paper-title").all_inner_texts()) == sorted(payloads)
    # the abstract pop-up and its neighbour list: text too
    page.locator("#explorer-rows tr[data-index='0'] button.paper-title").click()
    assert page.inner_text("#paper-detail .detail-title") == payloads[0]
    assert page.inner_text("#paper-detail .detail-abstract").startswith(payloads[2] + " ")
    papers = unpack(explorer_data(analysis))["papers"]
    near = page.locator("#paper-detail .detail-neighbors button.paper-title").all_inner_texts()
    assert near == [papers["title"][j] for j in papers["neighbors"][0]]
    # a neighbour that carries a payload shows it as text as well
    page.keyboard.press("Escape")
    page.locator("#explorer-rows tr[data-index='1'] button.paper-title").click()
    assert page.inner_text("#paper-detail .detail-title") == payloads[1]
    assert page.inner_text("#paper-detail .detail-abstract").startswith(payloads[1] + " ")
    page.wait_for_timeout(300)
    assert events["dialogs"] == [], "a payload executed"
    assert page.locator("img[src='x']").count() == 0 and page.locator("svg[onload]").count() == 0
    assert page.locator("script").count() == page.evaluate("document.scripts.length")
    assert events["console"] == [] and events["errors"] == [] and events["requests"] == []
    page.close()
