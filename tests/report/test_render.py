import json
import re

import pytest
from markupsafe import escape
from plotly.offline import get_plotlyjs

import topics
from topics.report import explorer, kinds
from topics.report.charts import build_figures
from topics.report.explorer import unpack_text
from topics.report.render import render_report, seed_range, write_report
from topics.stats.comparison import Trend, TwoGroups


@pytest.fixture(scope="module")
def html(sample_analysis):
    return render_report(sample_analysis, caveats=("A caveat about the data.",), dataset="bundled sample")


def test_sections_and_charts(html, sample_analysis):
    for anchor in ('id="summary"', 'id="charts"', 'id="comparison"', 'id="topics"', 'id="methods"'):
        assert anchor in html
    for key in build_figures(sample_analysis):
        assert f'id="chart-{key}"' in html
    assert "A caveat about the data." in html and "bundled sample" in html
    n_topics = int((sample_analysis.topics["topic"] != -1).sum())
    assert html.count('class="card"') == n_topics
    assert "2024: 19" in html and "2025: 71" in html
    assert f"seed</dt><dd>{sample_analysis.settings.random_state}" in html.replace("Random seed", "seed")


def test_summary_comes_from_narrate(html, sample_analysis):
    comparison = sample_analysis.comparison
    assert isinstance(comparison, TwoGroups) and comparison.by == "year"
    for sentence in comparison.narrate():
        assert str(escape(sentence)) in html  # as Jinja's autoescape writes it
    # two years: the areas lead the summary
    for sentence in comparison.narrate(areas=sample_analysis.area_comparison):
        assert str(escape(sentence)) in html


def test_paper_explorer_section(html, sample_analysis):
    assert 'id="papers"' in html and 'href="#papers"' in html and 'id="explorer-search"' in html
    assert 'id="map-search"' in html  # the map's own search box
    data = explorer_payload(html)
    assert data["n_papers"] == data["n_documents"] == 90
    assert data["papers"]["abstract"] == sample_analysis.documents["abstract"].tolist()
    assert "the list holds" not in html  # every paper is in it
    # every topic card and area row opens the explorer filtered to it
    cards = re.findall(r'class="card"[^>]*data-explore-topic="(-?\d+)"', html)
    assert [int(t) for t in cards] == [t for t in sample_analysis.topics["topic"] if t != -1]
    areas = re.findall(r'data-explore-area="(-?\d+)"', html)
    assert [int(a) for a in areas] == [a for a in sample_analysis.areas["area"] if a != -1]
    assert "<th>link</th>" not in html and "<th>themes</th>" not in html  # no url column, no themes


def test_report_states_how_many_papers_the_explorer_holds(sample_analysis, monkeypatch):
    monkeypatch.setattr(explorer, "EXPLORER_MAX_PAPERS", 40)
    html = render_report(sample_analysis)
    assert "the list holds 40 of the 90 papers (at most 40)" in html
    data = explorer_payload(html)
    assert data["n_papers"] == len(data["papers"]["title"]) == 40
    # the tables still count every paper
    assert html.count('class="card"') == int((sample_analysis.topics["topic"] != -1).sum())


def test_explorer_links_and_themes_columns(sample_analysis):
    import dataclasses

    docs = sample_analysis.documents.assign(url=[f"https://example.org/{i}" for i in range(90)])
    html = render_report(dataclasses.replace(sample_analysis, documents=docs))
    assert "<th>link</th>" in html
    assert explorer_payload(html)["papers"]["url"][5] == "https://example.org/5"


def test_plotly_inlined_once_and_nothing_remote(html):
    # plotly.js once, gzip-compressed, in an element no browser runs; the page unpacks it
    packed = re.findall(r'<script type="application/octet-stream" id="plotly-js">([A-Za-z0-9+/=]+)</script>', html)
    assert len(packed) == 1 and unpack_text(packed[0]) == get_plotlyjs()
    assert len(packed[0]) < 0.45 * len(get_plotlyjs())
    assert "plotly.js v" not in html  # not also inlined as plain text
    assert len(re.findall(r"<script[^>]*\bsrc=", html)) == 0
    assert '<link rel="stylesheet"' not in html and "@import" not in html
    assert not re.search(r"""(src|href)=["']https?://""", html)
    assert "Content-Security-Policy" in html  # a second guard: the browser blocks any request


def explorer_payload(html: str) -> dict:
    """The explorer's JSON, read back from its <script> element (unpacked where packed)."""
    from topics.report.explorer import unpack

    found = re.findall(r'<script type="application/json" id="explorer-data">(.*?)</script>', html, flags=re.S)
    assert len(found) == 1
    return unpack(json.loads(found[0]))


@pytest.mark.parametrize("packed", [False, True])
def test_untrusted_text_is_escaped(sample_corpus, monkeypatch, packed):
    payloads = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "\"'><svg onload=alert(1)>",
                "</script><script>alert(2)</script>", "<!--<script>"]
    corpus = sample_corpus.copy()
    for i, p in enumerate(payloads):
        corpus.loc[i, "abstract"] = f"{p} " + corpus.loc[i, "abstract"]
        corpus.loc[i, "title"] = p
    analysis = topics.analyze(corpus, embedder="lsa", cache=False)
    if packed:  # titles and abstracts gzip-compressed inside the payload, as for long corpora
        monkeypatch.setattr(explorer, "PACK_ABOVE", 0)
    html = render_report(analysis)
    assert "<script>alert(1)</script>" not in html and "<script>alert(2)" not in html
    assert "<img src=x onerror" not in html and "<svg onload" not in html
    # the explorer's data: one script element, nothing in it that could end it early, and the
    # very same text once read back (search results and the abstract pop-up show this text)
    element = html.split('id="explorer-data">')[1].split("</script>")[0]
    assert "<" not in element and ">" not in element
    assert html.count("<script") == html.count("</script>")
    data = explorer_payload(html)
    assert ("packed" in json.loads(element)) is packed
    assert data["papers"]["title"][: len(payloads)] == payloads
    assert [a.split(" ")[0] for a in data["papers"]["abstract"][:2]] == ["<script>alert(1)</script>", "<img"]
    assert data["papers"]["abstract"][3].startswith("</script><script>alert(2)</script> ")


def test_write_report(tmp_path, sample_analysis):
    path = write_report(sample_analysis, tmp_path / "sub" / "r.html")
    assert path.exists() and path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert not list(path.parent.glob("*.tmp"))


# --------------------------------------------------------------------------- trends and groupings


def test_trend_report(trend_analysis):
    html = render_report(trend_analysis)
    assert trend_analysis.kind == "trend" and trend_analysis.groups == [2021, 2022, 2023, 2024, 2025]
    areas = {"area_slopes"} if len(trend_analysis.area_comparison) >= 2 else set()
    assert set(build_figures(trend_analysis)) == {"trends", "movers", "slopes", "map", "terms", "similarity", "hierarchy", "growth"} | areas
    assert isinstance(trend_analysis.area_comparison, Trend) and trend_analysis.area_comparison.kind == "trend"
    assert trend_analysis.area_comparison.unit == "area"
    for key in build_figures(trend_analysis):
        assert f'id="chart-{key}"' in html
    assert "<title>TEST 2021–2025: topics and trends</title>" in html
    assert "How did the topics move from 2021 to 2025?" in html
    for sentence in trend_analysis.comparison.narrate(bursts=trend_analysis.bursts):
        assert str(escape(sentence)) in html
    # one table row per topic, with its class; the methods name the test
    table = trend_analysis.comparison.table
    for r in table.itertuples(index=False):
        assert f"<td>{r.topic}</td><td>{escape(r.label)}</td>" in html
    assert html.count("<td>emerging</td>") + html.count("<td>growing</td>") == table["trend"].isin(["emerging", "growing"]).sum()
    assert "Cochran–Armitage" in html and "Kleinberg" in html
    assert html.count('class="card"') == int((trend_analysis.topics["topic"] != -1).sum())
    # the planted themes come out: transport rises, molecules fades
    comp = table.merge(
        trend_analysis.documents.groupby("topic")["theme"].agg(lambda s: s.mode()[0]).rename("theme"), on="topic"
    )
    assert set(comp.loc[comp["theme"] == "transport", "trend"]) <= {"emerging", "growing"}
    assert set(comp.loc[comp["theme"] == "molecules", "trend"]) == {"fading"}


def test_grouping_report(status_analysis):
    html = render_report(status_analysis)
    assert status_analysis.kind == "groups" and status_analysis.groups == ["Oral", "Poster", "Spotlight"]
    areas = {"area_heatmap"} if len(status_analysis.area_comparison) >= 2 else set()
    assert set(build_figures(status_analysis)) == {"heatmap", "sizes", "map", "terms", "similarity", "hierarchy"} | areas
    assert "How do the topics differ by status?" in html and "<th>z Oral</th>" in html
    assert "<dt>Grouping</dt>" in html and "Papers per year and group" in html
    n = status_analysis.settings.documents_per_group
    assert sum(n.values()) == len(status_analysis.corpus)
    assert f"Oral: {n['Oral']}; Poster: {n['Poster']}; Spotlight: {n['Spotlight']}" in html
    with pytest.raises(AttributeError, match="has no year_a"):
        status_analysis.comparison.year_a


@pytest.fixture(scope="module")
def theme_analysis(sample_corpus):
    corpus = sample_corpus.copy()
    corpus.loc[0, "title"] = "<script>alert(1)</script>"
    return topics.analyze(corpus, embedder="lsa", cache=False, themes=["self-supervised learning", "<i>graph</i>"])


def test_your_themes_section(theme_analysis):
    html = render_report(theme_analysis)
    section = html.split('<section id="themes">')[1].split("</section>")[0]
    assert 'href="#themes"' in html and 'id="chart-themes"' in section
    assert 'id="chart-themes"' not in html.split('<div id="charts">')[1]  # drawn once, in its own section
    summary = theme_analysis.themes.summary
    assert section.count("<tr class=") == len(summary) == 2
    assert section.count('class="card"') == 2
    from topics.themes.tracking import narrate_themes

    for sentence in narrate_themes(summary):
        assert str(escape(sentence)) in section
    assert "&lt;i&gt;graph&lt;/i&gt;" in section and "<i>graph</i>" not in section
    assert "<script>alert(1)</script>" not in html
    assert "Topics its papers fall into" in section
    # the explorer lists each paper's themes and filters by them; names stay text
    assert "<th>themes</th>" in html and 'id="filter-theme"' in html
    assert explorer_payload(html)["themes"] == ["self-supervised learning", "<i>graph</i>"]
    assert "Lee &amp; Liu" in html or "Lee & Liu" in html  # the methods section states the rule


def test_no_theme_section_without_themes(html):
    assert 'id="themes"' not in html and 'href="#themes"' not in html


def test_report_states_how_many_papers_a_sampled_map_shows(sample_analysis, monkeypatch):
    from topics import figures

    full = render_report(sample_analysis)
    assert "the map shows" not in full  # 90 papers: every one is drawn
    monkeypatch.setattr(figures, "MAP_MAX_POINTS", 40)
    shown = len(figures.map_sample(sample_analysis.documents, max_points=40, random_state=0))
    sampled = render_report(sample_analysis)
    assert f"the map shows {shown:,} of the 90 papers" in sampled
    assert f"{shown:,} of 90 papers" in sampled  # in the chart title too
    assert shown < 90 and len(sampled) < len(full)


def test_methods_state_the_runs_that_were_made(trend_corpus, trend_analysis):
    from topics.clustering.model import TopicModel

    model = TopicModel(method="consensus", n_runs=3, n_epochs=30, random_state=2)
    consensus = topics.analyze(trend_corpus, embedder="lsa", model=model, random_state=2, cache=False)
    html = render_report(consensus)
    assert "consensus of 3 runs of UMAP" in html and "30 epochs each) with seeds 6 to 8." in html
    assert "cosine, one exact neighbour graph," in html and "neighbor_pool" not in html  # no pool: none is mentioned
    # Ward's topics: the runs only give the confidence
    assert trend_analysis.settings.params["method"] == "ward"
    runs = trend_analysis.settings.params["n_runs"]
    ward = render_report(trend_analysis)
    # the confidence reads each run at four granularities, as the Confidence line says
    assert f"share of {4 * runs} clusterings ({runs} UMAP + HDBSCAN runs with seeds 0 to {runs - 1}, each read at four" in ward
    assert f"share of the {4 * runs} clusterings ({runs} runs" in ward and "neighbor_pool" not in ward


def test_methods_state_a_neighbour_pool_where_the_fit_had_one(trend_corpus):
    """A fit whose runs drew their neighbours from a pool (TopicModel(neighbor_pool=m)) says
    so, with the pool and the neighbours each run saw; the consensus's own graph stays exact."""
    from topics.clustering.model import TopicModel

    model = TopicModel(method="consensus", n_runs=3, n_epochs=30, neighbor_pool=12, random_state=2)
    pooled = topics.analyze(trend_corpus, embedder="lsa", model=model, random_state=2, cache=False)
    k = pooled.settings.params["n_neighbors"]
    assert pooled.settings.params["neighbor_pool"] == 12 and k - 1 < 12
    html = render_report(pooled)
    assert "cosine, each paper's neighbours drawn from one exact neighbour graph" in html
    assert (f"Each run's UMAP saw, for each paper, {k - 1} others drawn by the run's seed from its 12 nearest "
            f"(neighbor_pool = 12)") in html
    assert f"the co-association, the partition and the outliers use the exact {k} nearest." in html


def test_seed_range():
    assert seed_range(range(40, 80)) == "40 to 79"
    assert seed_range([3, 5, 6]) == "3, 5, 6"
    assert seed_range([0, 1]) == "0, 1"


def test_no_interval_on_a_change_fixed_at_zero(sample_analysis):
    """One area holds every paper: its share is 100 % in both years by construction, so the
    report gives its change no confidence interval and does not call it unclear."""
    import dataclasses

    from topics.stats.groups import compare_groups

    documents = sample_analysis.documents.assign(area=0, area_label="everything")
    selected = documents[documents["topic"] != -1]
    by_area = selected.assign(topic=selected["area"], topic_label=selected["area_label"])
    one = compare_groups(by_area, "year", list(sample_analysis.comparison.groups))
    assert one.table["ci_low_pp"].isna().all() and one.table["ci_high_pp"].isna().all()
    assert float(one.table["diff_pp"].iloc[0]) == 0.0
    areas = sample_analysis.areas.head(1).assign(area=0, label="everything", n_docs=len(selected))
    topics_table = sample_analysis.topics.assign(area=0, area_label="everything")
    analysis = dataclasses.replace(sample_analysis, area_comparison=one.per_area(one.table), areas=areas, topics=topics_table)
    html = render_report(analysis)
    assert "nan" not in re.sub(r"<script.*?</script>", "", html, flags=re.S).lower()
    assert "none: it holds every paper" in html
    assert "no area&#39;s share changed clearly" not in html and "there is no change between areas to compare" in html
    assert "which holds every paper with a topic in 2024 and in 2025" in html  # was "every papers with a topi"


def _caption(html: str, key: str) -> str:
    return re.search(rf'<section class="chart" id="section-{key}">\s*<p class="how">(.*?)</p>', html, re.S).group(1)


def test_a_caption_names_only_what_its_chart_shows(sample_analysis):
    """Grey outliers only where there are outliers, area colours only where there are areas,
    and Fisher's test only beside the p-values it gives."""
    import dataclasses

    html = render_report(sample_analysis)
    documents = sample_analysis.documents.copy()
    inside = documents["topic"] != -1
    no_outliers = dataclasses.replace(sample_analysis, documents=documents[inside], corpus=sample_analysis.corpus[inside.to_numpy()],
                                      coords=sample_analysis.coords[inside.to_numpy()])
    caption = _caption(render_report(no_outliers), "map")
    assert "grey" not in caption and "Colours follow the areas" in caption
    documents.loc[documents.index[:3], ["topic", "topic_label"]] = [-1, "outliers"]
    with_outliers = render_report(dataclasses.replace(sample_analysis, documents=documents))
    assert "grey points are outliers" in _caption(with_outliers, "map")
    one_area = dataclasses.replace(sample_analysis, areas=sample_analysis.areas.head(0))
    caption = _caption(render_report(one_area), "map")
    assert "areas" not in caption.lower() and "its own colour" in caption
    table = re.search(r'<section id="comparison">(.*?)</section>', html, re.S).group(1)
    assert "Fisher" in table and "<th>p</th>" in table
    first = kinds.rows(sample_analysis.comparison)[0]
    assert f'<td>{first["p"]:.3g}</td><td>{first["q"]:.3g}</td>' in table
