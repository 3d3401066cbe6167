"""The report's wording, as a newcomer reads it: plain text (no Markdown backticks, no
doubled percent signs), no count in a sentence that reads badly at zero, and sentences
short enough to read."""

import html as html_lib
import re

import pytest

import topics
from tests.test_update import _embed, first_year, second_year, updated  # noqa: F401  (fixtures)
from topics.report.render import render_report

#: The longest sentence a report may hold, in words.
MAX_WORDS = 60


def visible_text(page: str) -> str:
    """The report's text as a reader sees it: no scripts, styles or tags, entities decoded;
    each block (paragraph, cell, list item) on a line of its own."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    page = re.sub(r"</?(b|i|em|strong|code|span|a|sup|sub)\b[^>]*>", "", page)
    return html_lib.unescape(re.sub(r"<[^>]+>", "\n", page))


def sentences(text: str) -> list[str]:
    out = []
    for block in text.split("\n"):
        out += [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(])", " ".join(block.split())) if s]
    return out


def wording_problems(page: str) -> list[str]:
    text = visible_text(page)
    problems = [f"Markdown backticks: {m!r}" for m in re.findall(r".{0,30}`[^`]*`.{0,10}", text)]
    problems += [f"a doubled percent sign: {m!r}" for m in re.findall(r".{0,30}%%", text)]
    problems += [f"a count of zero: {m!r}" for m in re.findall(r"\(0 [a-z ]+\)", text)]
    problems += [f"raw LaTeX: {m!r}" for m in re.findall(r"\S*\$[^$\s]{1,20}\$\S*", text)]
    problems += [f"a sentence of {len(s.split())} words: {s[:80]!r}..." for s in sentences(text) if len(s.split()) > MAX_WORDS]
    return problems


def test_the_rules_catch_what_they_should():
    page = ("<p>With one year `topics update` adds one (0 fit none). 95 %% of them. "
            "<b>$D$istributed</b> training.</p><script>var a = `x`;</script><p>" + "word " * 90 + ".</p>")
    problems = wording_problems(page)
    assert len(problems) == 5, problems


def test_a_two_year_report_reads_well(sample_analysis):
    assert wording_problems(render_report(sample_analysis)) == []


def test_a_one_year_and_an_update_report_read_well(first_year, updated):  # noqa: F811
    one = render_report(first_year)
    assert "the command “topics update” adds a later year" in visible_text(one)
    assert wording_problems(one) == []
    page = render_report(updated)
    assert "New in 2025" in page and wording_problems(page) == []


def test_papers_without_titles_show_their_first_sentence_as_plain_text(sample_corpus):
    """The paper list's title column, the cards and the map's hover: "Distributed", never "$D$istributed"."""
    from topics.report.explorer import explorer_data

    corpus = sample_corpus.assign(title="")
    corpus["abstract"] = [rf"$D$istributed $k$-Means number {i}. " + a for i, a in enumerate(corpus["abstract"])]
    analysis = topics.analyze(corpus, embedder="lsa", random_state=0, cache=False)
    titles = explorer_data(analysis)["papers"]["title"]
    assert titles[0] == "Distributed k-Means number 0." and not any("$" in t for t in titles)
    page = render_report(analysis)
    assert "Distributed k-Means number" in visible_text(page) and wording_problems(page) == []
    hover = [h for trace in topics.report.charts.build_figures(analysis)["map"].data for h in (trace.hovertext or ())]
    assert hover and not any("$" in h for h in hover)
    assert not analysis.topics["typical_titles"].str.contains("$", regex=False).any()
