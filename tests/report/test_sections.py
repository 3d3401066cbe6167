"""The report's sections as rows and cards (topics.report.sections): topic_cards,
area_rows, theme_section, read against the analysis they come from."""

import dataclasses

import numpy as np

import pytest

import topics

from topics.figures.style import PALETTE, topic_colors
from topics.report.kinds import tag
from topics.report.sections import area_rows, theme_section, topic_cards
from topics.themes.tracking import narrate_themes, track


def test_topic_cards_one_per_topic_with_the_comparison_numbers(sample_analysis):
    cards = topic_cards(sample_analysis)
    topics = sample_analysis.topics
    assert [c["topic"] for c in cards] == topics.loc[topics["topic"] != -1, "topic"].tolist()
    comp = sample_analysis.comparison.table.set_index("topic")
    colors = topic_colors(topics["topic"])
    docs = sample_analysis.documents
    for card in cards:
        row = comp.loc[card["topic"]]
        assert (card["n_a"], card["n_b"]) == (row["n_2024"], row["n_2025"])
        assert (card["share_a"], card["share_b"]) == pytest.approx((row["share_2024"], row["share_2025"]))
        assert card["direction"] == row["direction"]
        assert [g["name"] for g in card["per_group"]] == [2024, 2025]
        assert [g["n"] for g in card["per_group"]] == [row["n_2024"], row["n_2025"]]
        assert (card["tag"], card["tag_class"]) == tag(sample_analysis.comparison, row)
        assert card["color"] == colors[card["topic"]]
        assert card["n_low"] == int(docs.loc[docs["topic"] == card["topic"], "low_confidence"].sum())
        assert card["recovered"] is None and card["n_seeds"] is None  # no stability seeds were run
        reps = sample_analysis.representatives
        assert len(card["papers"]) == (reps["topic"] == card["topic"]).sum() > 0
    assert sum(c["n_docs"] for c in cards) == (docs["topic"] != -1).sum()


@pytest.mark.parametrize("name", ["trend_analysis", "status_analysis"])
def test_topic_cards_list_every_group(request, name):
    analysis = request.getfixturevalue(name)
    table = analysis.comparison.table.set_index("topic")
    for card in topic_cards(analysis):
        assert [g["name"] for g in card["per_group"]] == analysis.groups
        row = table.loc[card["topic"]]
        assert [g["share"] for g in card["per_group"]] == pytest.approx([row[f"share_{g}"] for g in analysis.groups])
        assert card["direction"] == ""  # a trend or a grouping has no two-group direction
        assert (card["tag"], card["tag_class"]) == tag(analysis.comparison, row)


def test_area_rows_match_the_area_comparison(sample_analysis):
    rows = area_rows(sample_analysis)
    areas = sample_analysis.areas[sample_analysis.areas["area"] != -1]
    assert rows and [r["label"] for r in rows] == areas["label"].tolist()
    comp = sample_analysis.area_comparison.table.set_index("topic")  # one row per area
    topic_comp = sample_analysis.comparison.table.set_index("topic")
    topics = sample_analysis.topics
    for r, area in zip(rows, areas.itertuples(index=False)):
        c = comp.loc[area.area]
        assert r["area"] == area.area and r["n_docs"] == area.n_docs
        assert (r["diff"], r["low"], r["high"], r["q"]) == pytest.approx((c["diff_pp"], c["ci_low_pp"], c["ci_high_pp"], c["q_value"]))
        assert (r["share_a"], r["share_b"]) == pytest.approx((c["share_2024"], c["share_2025"]))
        assert r["direction"] == c["direction"]
        assert sorted(t["topic"] for t in r["topics"]) == sorted(topics.loc[topics["area"] == area.area, "topic"].tolist())
        for t in r["topics"]:
            assert t["diff"] == pytest.approx(topic_comp.loc[t["topic"], "diff_pp"])
    # every topic (outliers aside) is listed under exactly one area
    listed = [t["topic"] for r in rows for t in r["topics"]]
    assert sorted(listed) == sorted(topics.loc[topics["topic"] != -1, "topic"].tolist())


@pytest.mark.parametrize("name", ["trend_analysis", "status_analysis"])
def test_area_rows_are_only_for_two_groups(request, name):
    analysis = request.getfixturevalue(name)
    assert analysis.kind in ("trend", "groups")
    assert area_rows(analysis) == []


def test_no_theme_section_without_themes(sample_analysis):
    assert sample_analysis.themes is None
    assert theme_section(sample_analysis) is None


def test_theme_section_rows_and_cards(sample_analysis):
    tracking = track(sample_analysis.corpus, sample_analysis.embeddings, ["self-supervised learning", "<i>graph</i>"])
    section = theme_section(dataclasses.replace(sample_analysis, themes=tracking))
    summary = tracking.summary
    assert [r["theme"] for r in section["rows"]] == [c["theme"] for c in section["cards"]] == summary["theme"].tolist()
    assert section["rows"][1]["theme"] == "<i>graph</i>"  # raw text: the template escapes it
    assert section["cards"][0]["topics"]  # the bundled sample has self-supervised papers
    sentences = narrate_themes(summary)
    for k, (row, card, s) in enumerate(zip(section["rows"], section["cards"], summary.to_dict("records"))):
        assert (row["n_a"], row["n_b"], row["n_members"]) == (s["n_2024"], s["n_2025"], s["n_members"])
        assert (row["share_a"], row["share_b"], row["diff"], row["q"]) == pytest.approx(
            (s["share_2024"], s["share_2025"], s["diff_pp"], s["q_value"]))
        assert card["sentences"] == sentences[2 * k: 2 * k + 2]
        assert card["color"] == PALETTE[k]
        # the topics the theme's papers fall into: at most all of its members
        assert sum(t["n_docs"] for t in card["topics"]) <= s["n_members"]
        assert all(0 < t["share"] <= 1 for t in card["topics"])
        listed = [p for y in card["years"] for p in y["papers"]]
        assert len(listed) == (tracking.top_papers["theme"] == s["theme"]).sum()


@pytest.fixture(scope="module")
def planted_analysis():
    from tests.conftest import make_planted_years
    from topics.embedding.embed import embed_texts
    from topics.pipeline import embedding_texts

    corpus = make_planted_years()
    return topics.analyze(corpus, embeddings=embed_texts(embedding_texts(corpus), "hashing", cache=False), random_state=0)


def test_new_in_the_last_year_leads_with_sub_topics_then_phrases(planted_analysis):
    from topics.report.render import render_report
    from topics.report.sections import new_in_year_section

    fresh = new_in_year_section(planted_analysis)
    assert fresh["year"] == 2023 and fresh["before"] == "2021, 2022"
    assert len(fresh["subtopics"]) == 1 and fresh["subtopics"][0]["n_latest"] == fresh["subtopics"][0]["n_docs"]
    assert fresh["phrases"][0]["phrase"] == "flow matching" and fresh["phrases"][0]["n_before"] == 0
    html = render_report(planted_analysis)
    section = html[html.index('<section id="new">'):]
    section = section[: section.index("</section>")]
    assert "<h2>New in 2023</h2>" in section
    assert section.index("Emerging sub-topics") < section.index("Rising phrases")
    assert "<b>flow matching</b>" in section and "Papers far from every topic" not in section


def test_a_two_year_report_without_anything_new_says_so(sample_analysis):
    from topics.report.sections import new_in_year_section

    fresh = new_in_year_section(sample_analysis)
    assert fresh["year"] == 2025 and not fresh["subtopics"] and not fresh["phrases"]


def test_novel_papers_are_stated_against_chance():
    from topics.report.sections import novel_against_chance

    assert novel_against_chance(210, 4302, 0.05) == "about"  # 215 expected
    assert novel_against_chance(400, 4302, 0.05) == "more than"
    assert novel_against_chance(100, 4302, 0.05) == "fewer than"


def test_the_map_of_the_last_year_shows_where_the_planted_sub_theme_grew(planted_analysis):
    from topics.report.charts import build_figures
    from topics.report.render import render_report

    fig = build_figures(planted_analysis)["growth"]
    heat, peaks = fig.data[0], fig.data[1]
    assert fig.layout.meta["latest"] == 2023 and fig.layout.meta["before"] == "2021, 2022"
    docs = planted_analysis.documents
    planted = (docs["doc_id"].isin(planted_analysis.corpus.loc[planted_analysis.corpus["theme"].str.endswith("flow"), "doc_id"])).to_numpy()
    coords = planted_analysis.coords
    # the largest difference on the map lies among the planted papers: they are 5 % of the
    # papers, and at least half of the 10 nearest the peak
    z = np.asarray(heat.z, dtype=float)
    iy, ix = np.unravel_index(np.nanargmax(z), z.shape)
    nearest = np.argsort(np.hypot(coords[:, 0] - heat.x[ix], coords[:, 1] - heat.y[iy]))[:10]
    assert planted[nearest].mean() >= 0.5
    assert len(peaks.x) >= 1  # circled and named by the topic the planted papers sit in
    nearest = np.argsort(np.hypot(coords[:, 0] - peaks.x[0], coords[:, 1] - peaks.y[0]))[:10]
    assert planted[nearest].mean() >= 0.5
    assert peaks.text[0] == docs.loc[planted, "topic_label"].mode()[0]
    html = render_report(planted_analysis)
    section = html[html.index('<section id="new">'):]
    section = section[: section.index("</section>")]
    assert section.index("Rising phrases") < section.index("Where 2023 grew on the map") < section.index('id="chart-growth"')
    assert "Circled" in section and html.count('id="chart-growth"') == 1
