import numpy as np
import pandas as pd
import pytest

from tests.conftest import values
from topics import figures
from topics.figures.style import OUTLIER_COLOR


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
    assert len(d["data"]) == 4  # (0, 2024), (0, 2025), (1, 2025), (-1, 2024)
    hover = " ".join(h for t in d["data"] for h in t["hovertext"])
    assert "<script>" not in hover and "&lt;script&gt;" in hover
    assert "Second paper." in hover  # first sentence stands in for a missing title
    buttons = d["layout"]["updatemenus"][0]["buttons"]
    assert [b["label"] for b in buttons] == ["Both years", "2024 only", "2025 only"]
    assert buttons[1]["args"][0]["visible"] == [True, False, False, True]
    assert {a["text"] for a in d["layout"]["annotations"]} == {"a", "b"}
    assert d["data"][-1]["marker"]["color"] == OUTLIER_COLOR
    with pytest.raises(ValueError, match="coords"):
        figures.topic_map(docs, coords[:2])


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
    assert d["layout"]["meta"] == {"n_points": 132, "n_documents": 1000}
    assert "132 of 1,000 papers" in d["layout"]["title"]["text"]
    # Topic names sit at the medians of all papers, not of the sample.
    centre = {a["text"]: (a["x"], a["y"]) for a in d["layout"]["annotations"]}
    assert centre["t1"] == pytest.approx(tuple(np.median(coords[900:990], axis=0)))
    every = figures.topic_map(docs, coords, max_points=None).to_dict()
    assert sum(len(values(t["x"])) for t in every["data"]) == 1000
    assert every["layout"]["title"]["text"].startswith("Topic map: every paper")
