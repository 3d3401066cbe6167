import numpy as np
import pandas as pd
import pytest

from tests.conftest import values
from topics import figures
from topics.figures.style import OUTLIER_COLOR, area_shades


def test_topic_map_year_buttons_and_escaping():
    docs = pd.DataFrame(
        {
            "topic": [0, 0, 1, -1],
            "topic_label": ["a", "a", "b", "outliers (no topic)"],
            "year": [2024, 2025, 2025, 2024],
            "title": ["<script>alert(1)</script>", "", "", ""],
            "abstract": ["x.", "Second paper. More.", "Third.", "Fourth."],
        }
    )
    coords = np.array([[0, 0], [1, 1], [5, 5], [9, 9]], dtype=float)
    d = figures.topic_map(docs, coords).to_dict()
    assert len(d["data"]) == 5  # (0, 2024), (0, 2025), (1, 2025), (-1, 2024), then the search trace
    hover = " ".join(h for t in d["data"][:4] for h in t["hovertext"])
    assert "<script>" not in hover and "&lt;script&gt;" in hover
    assert "Second paper." in hover  # first sentence stands in for a missing title
    assert d["data"][0]["hovertemplate"] == "<b>%{hovertext}</b><br>2024 · a<extra></extra>"
    assert [values(t["customdata"]) for t in d["data"][:4]] == [[0], [1], [2], [3]]  # rows of documents
    search = d["data"][-1]
    assert search["meta"] == "search" and list(search["x"]) == [] and search["showlegend"] is False
    buttons = d["layout"]["updatemenus"][0]["buttons"]
    assert [b["label"] for b in buttons] == ["Both years", "2024 only", "2025 only"]
    assert buttons[1]["args"][0]["visible"] == [True, False, False, True, True]
    assert buttons[2]["args"][0]["visible"] == [False, True, True, False, True]
    # no areas: each topic its own colour, its name shown
    assert {(a["text"], a["visible"]) for a in d["layout"]["annotations"]} == {("a", True), ("b", True)}
    assert d["data"][3]["marker"]["color"] == OUTLIER_COLOR
    assert d["layout"]["meta"]["x_span"] == 9
    with pytest.raises(ValueError, match="coords"):
        figures.topic_map(docs, coords[:2])


def test_topic_map_colours_follow_areas_with_area_names_at_their_centres():
    docs = pd.DataFrame(
        {
            "topic": [0, 0, 1, 1, 2, 2, -1],
            "topic_label": ["a", "a", "b", "b", "c", "c", "outliers"],
            "area": [0, 0, 0, 0, 1, 1, -1],
            "area_label": ["<i>left</i>", "<i>left</i>", "<i>left</i>", "<i>left</i>", "right", "right", "none"],
            "year": [2024, 2025] * 3 + [2024],
            "abstract": ["A."] * 7,
        }
    )
    coords = np.array([[0, 0], [2, 0], [0, 2], [2, 2], [10, 10], [12, 12], [5, 5]], dtype=float)
    d = figures.topic_map(docs, coords).to_dict()
    shades = area_shades({0: 0, 1: 0, 2: 1, -1: -1})
    colour = {t["legendgroup"]: t["marker"]["color"] for t in d["data"][:-1]}
    assert colour == {"0": shades[0], "1": shades[1], "2": shades[2], "-1": OUTLIER_COLOR}
    notes = {a["name"]: [] for a in d["layout"]["annotations"]}
    for a in d["layout"]["annotations"]:
        notes[a["name"]].append(a)
    # area names: at the median of their papers, escaped, always shown
    assert [(a["text"], a["x"], a["y"], a.get("visible", True)) for a in notes["area"]] == [
        ("<b>&lt;i&gt;left&lt;/i&gt;</b>", 1, 1, True), ("<b>right</b>", 11, 11, True)]
    # topic names: hidden until a page shows them on zoom
    assert [(a["text"], a["visible"]) for a in notes["topic"]] == [("a", False), ("b", False), ("c", False)]


def test_topic_sizes_uses_shares():
    prev = pd.DataFrame(
        {"year": [2024, 2024, 2025, 2025], "topic": [0, 1, 0, 1], "label": ["a", "b", "a", "b"], "n_docs": [1, 3, 30, 10],
         "year_total": [4, 4, 40, 40], "share": [0.25, 0.75, 0.75, 0.25], "ci_low": [0.05, 0.3, 0.6, 0.1],
         "ci_high": [0.7, 0.95, 0.86, 0.4], "outliers_counted": False}
    )
    d = figures.topic_sizes(prev).to_dict()
    assert [t["name"] for t in d["data"]] == ["2024 (n = 4)", "2025 (n = 40)"]
    assert sorted(values(d["data"][1]["x"])) == [25.0, 75.0]
    assert "share" in d["layout"]["xaxis"]["title"]["text"]


def test_topic_terms_small_multiples():
    terms = pd.DataFrame({"topic": [0, 0, 1], "label": ["a", "a", "b"], "rank": [1, 2, 1], "term": ["x", "y", "z"], "weight": [0.5, 0.2, 0.9]})
    d = figures.topic_terms(terms, columns=2).to_dict()
    assert len(d["data"]) == 2
    assert list(d["data"][0]["y"]) == ["y", "x"]  # best term at the top
    assert [a["text"] for a in d["layout"]["annotations"]] == ["0: a", "1: b"]


def _many_docs():
    # topic 0: 900 papers, topic 1: 90, topic 2: 10; half in each year.
    topic = np.repeat([0, 1, 2], [900, 90, 10])
    year = np.tile([2024, 2025], 500)
    rng = np.random.default_rng(0)
    docs = pd.DataFrame({"topic": topic, "topic_label": [f"t{t}" for t in topic], "year": year,
                         "title": [f"paper {i}" for i in range(1000)], "abstract": "An abstract."})
    return docs, rng.normal(size=(1000, 2)) + topic[:, None] * 10


def test_map_sample_is_proportional_per_topic_and_year_with_a_floor():
    docs, _ = _many_docs()
    rows = figures.map_sample(docs, max_points=100, random_state=0)
    counts = docs.iloc[rows].groupby(["topic", "year"]).size().to_dict()
    # Six groups: floor = min(20, 100 // 6) = 16. 450 per (0, year): round(450 * 100 / 1000) = 45;
    # 45 per (1, year): max(round(4.5), min(45, 16)) = 16; 5 per (2, year): all 5.
    assert counts == {(0, 2024): 45, (0, 2025): 45, (1, 2024): 16, (1, 2025): 16, (2, 2024): 5, (2, 2025): 5}
    assert len(set(rows)) == len(rows) == 132 and list(rows) == sorted(rows)
    np.testing.assert_array_equal(rows, figures.map_sample(docs, max_points=100, random_state=0))  # seeded
    assert not np.array_equal(rows, figures.map_sample(docs, max_points=100, random_state=1))
    np.testing.assert_array_equal(figures.map_sample(docs, max_points=1000), np.arange(1000))
    with pytest.raises(ValueError, match="max_points must be a positive integer, got 0"):
        figures.map_sample(docs, max_points=0)


def test_topic_map_draws_a_sample_and_says_so():
    docs, coords = _many_docs()
    fig = figures.topic_map(docs, coords, max_points=100)
    d = fig.to_dict()
    assert sum(len(values(t["x"])) for t in d["data"]) == 132
    assert d["layout"]["meta"] == {"n_points": 132, "n_documents": 1000, "x_span": pytest.approx(np.ptp(coords[:, 0]))}
    # each drawn point carries its row in documents, so that a click finds its paper
    rows = np.sort(np.concatenate([values(t["customdata"]) for t in d["data"][:-1]]))
    np.testing.assert_array_equal(rows, figures.map_sample(docs, max_points=100, random_state=0))
    xs = {r: x for t in d["data"][:-1] for r, x in zip(values(t["customdata"]), values(t["x"]))}
    assert all(xs[r] == pytest.approx(coords[r, 0]) for r in rows)
    assert "132 of 1,000 papers" in d["layout"]["title"]["text"]
    # Topic names sit at the medians of all papers, not of the sample.
    centre = {a["text"]: (a["x"], a["y"]) for a in d["layout"]["annotations"]}
    assert centre["t1"] == pytest.approx(tuple(np.median(coords[900:990], axis=0)))
    every = figures.topic_map(docs, coords, max_points=None).to_dict()
    assert sum(len(values(t["x"])) for t in every["data"]) == 1000
    assert every["layout"]["title"]["text"].startswith("Topic map: every paper")


def _years_docs(years, topics=(0, 1, 2, -1), per=2):
    rows = [{"topic": t, "topic_label": f"t{t}" if t != -1 else "outliers", "year": y, "title": f"p{t}-{y}-{i}", "abstract": "A."}
            for y in years for t in topics for i in range(per)]
    docs = pd.DataFrame(rows)
    return docs, np.random.default_rng(0).normal(size=(len(docs), 2))


def test_topic_map_with_many_years_has_one_trace_per_topic_and_a_year_menu():
    years = list(range(1987, 2024))  # 37 years
    docs, coords = _years_docs(years)
    d = figures.topic_map(docs, coords).to_dict()
    points, search = d["data"][:-1], d["data"][-1]
    assert len(d["data"]) == 4 + 1  # one trace per topic, then the search trace
    assert search["meta"] == "search"
    assert [t["legendgroup"] for t in points] == ["0", "1", "2", "-1"] and all(t["showlegend"] for t in points)
    # every paper drawn once, as a circle, its row in customdata and its year in the hover
    rows = np.sort(np.concatenate([values(t["customdata"]) for t in points]))
    np.testing.assert_array_equal(rows, np.arange(len(docs)))
    assert all(t["marker"]["symbol"] == "circle" for t in points)
    first = points[0]
    assert [int(y) for y in first["text"]] == docs.iloc[values(first["customdata"])]["year"].tolist()
    assert first["hovertemplate"] == "<b>%{hovertext}</b><br>%{text} · t0<extra></extra>"
    # the year control is one dropdown: all years, six periods, then each year
    (menu,) = d["layout"]["updatemenus"]
    assert menu["type"] == "dropdown"
    labels = [b["label"] for b in menu["buttons"]]
    assert labels[:7] == ["All years", "1987–1993", "1994–1999", "2000–2005", "2006–2011", "2012–2017", "2018–2023"]
    assert labels[7:] == [str(y) for y in years]
    # each entry selects its years' points in every trace (the rest fade) and leaves the search trace alone
    everything = menu["buttons"][0]["args"][0]["selectedpoints"]
    assert everything == [None] * 5
    for button, chosen in [(menu["buttons"][2], range(1994, 2000)), (menu["buttons"][7 + 10], [1997])]:
        picked = button["args"][0]["selectedpoints"]
        assert len(picked) == 5 and picked[-1] is None
        for trace, idx in zip(points, picked):
            year = docs["year"].to_numpy()[values(trace["customdata"])]
            assert sorted(idx) == [i for i, y in enumerate(year) if y in chosen]
    assert all(t["unselected"]["marker"]["opacity"] < 0.2 for t in points)


def test_topic_map_marker_symbols_mean_one_thing():
    two = figures.topic_map(*_years_docs([2024, 2025])).to_dict()
    # two years: the earlier year diamonds, the later circles, as before
    assert {(t["hovertemplate"].split("<br>")[1][:4], t["marker"]["symbol"]) for t in two["data"][:-1]} == {
        ("2024", "diamond"), ("2025", "circle")}
    assert [b["label"] for b in two["layout"]["updatemenus"][0]["buttons"]] == ["Both years", "2024 only", "2025 only"]
    # three to six years: still a button per year, but every point a circle
    six = figures.topic_map(*_years_docs(range(2020, 2026))).to_dict()
    assert len(six["data"]) == 4 * 6 + 1 and six["layout"]["updatemenus"][0]["type"] == "buttons"
    assert {t["marker"]["symbol"] for t in six["data"][:-1]} == {"circle"}
    seven = figures.topic_map(*_years_docs(range(2019, 2026))).to_dict()
    assert len(seven["data"]) == 4 + 1 and seven["layout"]["updatemenus"][0]["type"] == "dropdown"
