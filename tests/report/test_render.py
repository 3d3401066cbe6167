import re

import pandas as pd
import pytest
from markupsafe import escape
from plotly.offline import get_plotlyjs

import topics
from topics.report.render import build_figures, render_report, write_report
from topics.stats import narration
from topics.stats.comparison import Groups, Trend, TwoGroups


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
    assert f"seed</dt><dd>{sample_analysis.settings['random_state']}" in html.replace("Random seed", "seed")


def test_summary_comes_from_narrate(html, sample_analysis):
    comparison = sample_analysis.comparison
    assert isinstance(comparison, TwoGroups) and comparison.by == "year"
    for sentence in comparison.narrate():
        assert str(escape(sentence)) in html  # as Jinja's autoescape writes it
    # two years: the areas lead the summary
    for sentence in comparison.narrate(areas=sample_analysis.area_comparison):
        assert str(escape(sentence)) in html


def test_plotly_inlined_once_and_nothing_remote(html):
    assert html.count("plotly.js v") <= 2  # the library's banner, once
    assert len(re.findall(r"<script[^>]*\bsrc=", html)) == 0
    assert '<link rel="stylesheet"' not in html and "@import" not in html
    # plotly.js's own source mentions URLs (its logo link, map tiles); the page around it may not.
    page = html.replace(get_plotlyjs(), "")
    assert not re.search(r"""(src|href)=["']https?://""", page)
    assert "Content-Security-Policy" in page  # a second guard: the browser blocks any request


def test_untrusted_text_is_escaped(sample_corpus):
    payloads = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "\"'><svg onload=alert(1)>"]
    corpus = sample_corpus.copy()
    for i, p in enumerate(payloads):
        corpus.loc[i, "abstract"] = f"{p} " + corpus.loc[i, "abstract"]
        corpus.loc[i, "title"] = p
    analysis = topics.analyze(corpus, embedder="lsa", cache=False)
    html = render_report(analysis)
    assert "<script>alert(1)</script>" not in html
    assert "<img src=x onerror" not in html and "<svg onload" not in html


def test_write_report(tmp_path, sample_analysis):
    path = write_report(sample_analysis, tmp_path / "sub" / "r.html")
    assert path.exists() and path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert not list(path.parent.glob("*.tmp"))


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


# --------------------------------------------------------------------------- trends and groupings


def test_trend_report(trend_analysis):
    html = render_report(trend_analysis)
    assert trend_analysis.kind == "trend" and trend_analysis.groups == [2021, 2022, 2023, 2024, 2025]
    areas = {"area_slopes"} if len(trend_analysis.area_comparison) >= 2 else set()
    assert set(build_figures(trend_analysis)) == {"trends", "movers", "slopes", "map", "terms", "similarity", "hierarchy"} | areas
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
    n = status_analysis.settings["documents_per_group"]
    assert sum(n.values()) == len(status_analysis.corpus)
    assert f"Oral: {n['Oral']}; Poster: {n['Poster']}; Spotlight: {n['Spotlight']}" in html
    with pytest.raises(AttributeError, match="has no year_a"):
        status_analysis.comparison.year_a


def test_stability_seeds_need_two_years(trend_corpus):
    with pytest.raises(ValueError, match="two-year comparisons only"):
        topics.analyze(trend_corpus, embedder="lsa", cache=False, stability_seeds=[1])


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
    bursts = pd.DataFrame([{"topic": 2, "label": "speech", "start": 2022, "end": 2022, "share_burst": 0.2, "share_all": 0.11, "weight": 3.0},
                           {"topic": 0, "label": "diffusion models", "start": 2023, "end": 2023, "share_burst": 0.09, "share_all": 0.07, "weight": 9.0}])
    text = comp.narrate(bursts=bursts)
    assert text == narration.narrate_trend(comp, bursts=bursts)
    assert text[0] == ("From 2021 to 2023 (3 years with 100, 150 and 1,200 papers with a topic), 2 of 3 topics moved clearly "
                       "(Cochran-Armitage trend test, false-discovery rate q < 0.05): 1 emerging and 1 fading; 1 shows no clear trend.")
    assert text[1] == "Diffusion models emerged from 1.0 % of papers in 2021 to 9.0 % in 2023 (+4.0 points a year, 95 % CI +2.5 to +5.5; q = 1e-06)."
    assert text[2].startswith("Gans faded from 20.0 % of papers in 2021 to 10.0 % in 2023 (-5.0 points a year")
    # a burst is told only where it adds something: for the topic without a clear trend
    assert text[3] == "Speech has no clear trend but a burst in 2022 (Kleinberg 2002): 20.0 % of papers then, against 11.0 % over all years."
    assert len(text) == 4


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
