import re

import pandas as pd
import pytest
from markupsafe import escape
from plotly.offline import get_plotlyjs

import topics
from topics.report import build_figures, render_report, write_report


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
    for sentence in topics.narrate(sample_analysis.comparison):
        assert str(escape(sentence)) in html  # as Jinja's autoescape writes it


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
    comp = pd.DataFrame(rows)
    comp.attrs.update(year_a=2024, year_b=2025, n_a=100, n_b=500)
    text = topics.narrate(comp)
    assert "1 topic changed clearly" in text[0]
    assert text[1] == "Optimal transport grew from 0.0 % to 4.2 % of papers (+4.2 points, 95 % CI +1.0 to +7.0; q = 0.01)."
    comp.loc[0, "direction"] = "no clear change"
    quiet = topics.narrate(comp)
    assert "no topic's share changed clearly" in quiet[0]
    assert any(s.startswith("The largest estimated rise: optimal transport") for s in quiet)


def test_report_states_how_many_papers_a_sampled_map_shows(sample_analysis, monkeypatch):
    from topics import plots

    full = render_report(sample_analysis)
    assert "the map shows" not in full  # 90 papers: every one is drawn
    monkeypatch.setattr(plots, "MAP_MAX_POINTS", 40)
    shown = len(plots.map_sample(sample_analysis.documents, max_points=40, random_state=0))
    sampled = render_report(sample_analysis)
    assert f"the map shows {shown:,} of the 90 papers" in sampled
    assert f"{shown:,} of 90 papers" in sampled  # in the chart title too
    assert shown < 90 and len(sampled) < len(full)
