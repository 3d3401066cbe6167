"""Figures of how topics relate and of the user's themes (topics.figures.relations):
topic_similarity_heatmap, topic_hierarchy, theme_shares."""

import numpy as np
import pandas as pd
import pytest

from tests.conftest import values
from topics import figures


def _similarity_table(sim, labels):
    ids = range(len(labels))
    return pd.DataFrame([{"topic_a": a, "label_a": labels[a], "topic_b": b, "label_b": labels[b], "similarity": sim[a][b]}
                         for a in ids for b in ids])


def test_similarity_and_hierarchy():
    ids = [0, 1, 2]
    sim = np.array([[1, 0.9, 0.1], [0.9, 1, 0.2], [0.1, 0.2, 1]])
    rows = [{"topic_a": a, "label_a": f"t{a}", "topic_b": b, "label_b": f"t{b}", "similarity": sim[a, b]} for a in ids for b in ids]
    table = pd.DataFrame(rows)
    heat = figures.topic_similarity_heatmap(table).to_dict()["data"][0]
    z = np.array(values(heat["z"]))
    assert z.shape == (3, 3) and np.allclose(np.diag(z), 1)
    assert abs(list(heat["y"]).index("0: t0") - list(heat["y"]).index("1: t1")) == 1  # related topics adjacent
    dend = figures.topic_hierarchy(table).to_dict()
    assert len(dend["data"]) == 2  # two merges for three topics
    assert set(dend["layout"]["yaxis"]["ticktext"]) == {"0: t0", "1: t1", "2: t2"}
    # t0 and t1 (cosine 0.9) join at distance 0.1; t2 joins them at the mean distance 0.85
    assert sorted(max(values(t["x"])) for t in dend["data"]) == pytest.approx([0.1, 0.85])
    ticks = dict(zip(dend["layout"]["yaxis"]["ticktext"], dend["layout"]["yaxis"]["tickvals"]))
    first = min(dend["data"], key=lambda t: max(values(t["x"])))
    assert {values(first["y"])[0], values(first["y"])[-1]} == {ticks["0: t0"], ticks["1: t1"]}  # the merge's ends sit on its topics


def test_theme_shares_draws_shares_and_intervals():
    prev = pd.DataFrame({
        "theme": ["optimal transport", "optimal transport", "<b>x</b>", "<b>x</b>"],
        "year": [2024, 2025, 2024, 2025], "n_docs": [5, 10, 1, 0], "year_total": [100, 200, 100, 200],
        "share": [0.05, 0.05, 0.01, 0.0], "ci_low": [0.02, 0.03, 0.0, 0.0], "ci_high": [0.11, 0.09, 0.05, 0.02],
    })
    d = figures.theme_shares(prev).to_dict()
    assert [t["name"] for t in d["data"]] == ["optimal transport", "&lt;b&gt;x&lt;/b&gt;"]
    first = d["data"][0]
    assert values(first["y"]) == pytest.approx([5.0, 5.0])
    assert values(first["error_y"]["array"]) == pytest.approx([6.0, 4.0])  # 11 - 5, 9 - 5 points
    assert values(first["error_y"]["arrayminus"]) == pytest.approx([3.0, 2.0])
    # themes are nudged apart along the year axis, and the ticks still name the years
    assert values(first["x"])[0] < 2024 < values(d["data"][1]["x"])[0]
    assert d["layout"]["xaxis"]["ticktext"] == ["2024", "2025"]
    assert "5 of 100 papers" in first["hovertext"][0]
    with pytest.raises(ValueError, match="lacks column"):
        figures.theme_shares(prev.drop(columns="ci_low"))


def test_similarity_heatmap_is_symmetric_and_labelled_topic_colon_label():
    sim = np.array([[1.0, 0.3, 0.7, 0.1], [0.3, 1.0, 0.2, 0.6], [0.7, 0.2, 1.0, 0.05], [0.1, 0.6, 0.05, 1.0]])
    labels = ["rl", "vision", "<b>x</b>", "speech"]
    heat = figures.topic_similarity_heatmap(_similarity_table(sim, labels)).to_dict()["data"][0]
    z = np.array(values(heat["z"]))
    assert list(heat["x"]) == list(heat["y"])  # rows and columns in the same (hierarchy) order
    assert sorted(heat["y"]) == sorted(["0: rl", "1: vision", "2: &lt;b&gt;x&lt;/b&gt;", "3: speech"])
    assert z == pytest.approx(z.T)
    # every cell is the similarity of the two topics its row and column name
    ids = [int(label.split(":")[0]) for label in heat["y"]]
    assert z == pytest.approx(sim[np.ix_(ids, ids)])
    assert heat["zmin"] == 0 and heat["zmax"] == 1


def test_hierarchy_needs_two_topics():
    one = _similarity_table([[1.0]], ["only"])
    with pytest.raises(ValueError, match="at least two topics"):
        figures.topic_hierarchy(one)
    heat = figures.topic_similarity_heatmap(one).to_dict()["data"][0]  # a heatmap of one topic is still drawn
    assert list(heat["y"]) == ["0: only"]


def test_theme_shares_one_trace_per_theme_and_one_theme_sits_on_its_years():
    prev = pd.DataFrame({
        "theme": ["a", "a", "b", "b", "\"c\" & d", "\"c\" & d"], "year": [2024, 2025] * 3,
        "n_docs": [1, 2, 3, 4, 5, 6], "year_total": [10, 20] * 3,
        "share": [0.1, 0.1, 0.3, 0.2, 0.5, 0.3], "ci_low": [0.0] * 6, "ci_high": [0.6] * 6,
    })
    d = figures.theme_shares(prev).to_dict()
    assert [t["name"] for t in d["data"]] == ["a", "b", "&#34;c&#34; &amp; d"]
    assert [values(t["y"]) for t in d["data"]] == [pytest.approx([10.0, 10.0]), pytest.approx([30.0, 20.0]), pytest.approx([50.0, 30.0])]
    # three themes spread over a quarter of a year, the middle one on the year itself
    assert [values(t["x"])[0] for t in d["data"]] == pytest.approx([2023.875, 2024.0, 2024.125])
    single = figures.theme_shares(prev[prev["theme"] == "a"]).to_dict()
    assert values(single["data"][0]["x"]) == pytest.approx([2024.0, 2025.0])
    with pytest.raises(ValueError, match="no themes"):
        figures.theme_shares(prev.iloc[:0])
