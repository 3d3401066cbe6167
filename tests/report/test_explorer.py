"""The paper explorer's data (topics.report.explorer): nearest papers, which papers a
large corpus keeps, the payload, and JSON that cannot leave its <script> element."""

import dataclasses
import json
import re

import numpy as np
import pandas as pd
import pytest

import topics
from topics.report.explorer import explorer_data, explorer_rows, explorer_script, nearest_papers, script_json, unpack
from topics.text import plain_text

PAYLOADS = ["</script><script>alert(1)</script>", "<img src=x onerror=alert(1)>", "\"'><svg onload=alert(1)>",
            "<!--<script>", "a & b \u2028 c \u2029 d"]


def test_nearest_papers_by_hand():
    # unit vectors at angles 0, 10, 30, 100 and 180 degrees
    angles = np.deg2rad([0, 10, 30, 100, 180])
    x = np.c_[np.cos(angles), np.sin(angles)] * np.array([[1], [2], [0.5], [3], [1]])  # lengths do not matter
    idx, sim = nearest_papers(x, k=2)
    assert idx.tolist() == [[1, 2], [0, 2], [1, 0], [2, 4], [3, 2]]
    assert sim[0].tolist() == pytest.approx([np.cos(np.deg2rad(10)), np.cos(np.deg2rad(30))])
    assert sim[4].tolist() == pytest.approx([np.cos(np.deg2rad(80)), np.cos(np.deg2rad(150))])
    assert idx.dtype == np.int64 and sim.dtype == np.float32
    # k larger than the other papers: each keeps all of them; one paper has none
    assert nearest_papers(x[:3], k=5)[0].tolist() == [[1, 2], [0, 2], [1, 0]]
    assert nearest_papers(x[:1], k=5)[0].shape == (1, 0)
    with pytest.raises(ValueError, match="k must be a positive integer, got 0"):
        nearest_papers(x, k=0)
    with pytest.raises(ValueError, match="2-D"):
        nearest_papers(np.ones(3))


def test_nearest_papers_in_chunks_match_the_full_product():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 16)).astype(np.float32)
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    full = unit @ unit.T
    np.fill_diagonal(full, -np.inf)
    expected = np.argsort(-full, axis=1, kind="stable")[:, :5]
    for chunk in (1, 7, 64, None):
        idx, sim = nearest_papers(x, k=5, chunk_size=chunk)
        np.testing.assert_array_equal(idx, expected)
        np.testing.assert_allclose(sim, np.take_along_axis(full, expected, axis=1), rtol=1e-5)
    assert not (idx == np.arange(300)[:, None]).any()  # never itself


def test_explorer_rows_keep_each_topics_share_nearest_its_centre():
    # topic 0: 6 papers, topic 1: 3, outliers: 1; the first of each group sits off-centre
    topic = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, -1])
    emb = np.array([[0, 1], [1, 0.1], [1, 0], [1, -0.1], [1, 0.05], [1, -0.05],
                     [-1, 0.9], [-1, 1], [-1, 1.1], [0, -1]], dtype=float)
    assert explorer_rows(topic, emb, max_papers=10).tolist() == list(range(10))
    rows = explorer_rows(topic, emb, max_papers=5)
    # quotas: 6 * 5/10 = 3, 3 * 5/10 = 1.5, 1 * 5/10 = 0.5: 3 + 1 + 0, the larger remainder
    # (1.5 vs 0.5, both .5: the earlier group, -1, sorts first) gets the fifth: -1 keeps 1
    assert len(rows) == 5
    kept = pd.Series(topic[rows]).value_counts().to_dict()
    assert kept == {0: 3, 1: 1, -1: 1}
    assert 0 not in rows  # the off-centre paper of topic 0 is dropped
    assert 7 in rows  # topic 1's middle paper is nearest its centre
    np.testing.assert_array_equal(rows, explorer_rows(topic, emb, max_papers=5))
    with pytest.raises(ValueError, match="max_papers must be a positive integer, got 0"):
        explorer_rows(topic, emb, max_papers=0)
    with pytest.raises(ValueError, match="9 embeddings for 10 papers"):
        explorer_rows(topic, emb[:9], max_papers=5)


def test_explorer_data_holds_every_paper_of_a_small_corpus(sample_analysis):
    data = explorer_data(sample_analysis)
    docs = sample_analysis.documents
    p = data["papers"]
    assert data["n_papers"] == data["n_documents"] == len(docs) == 90
    assert data["by"] == "year" and data["groups"] == ["2024", "2025"] and "group" not in p
    for field in ("title", "abstract", "year", "topic", "area", "confidence", "low", "pos", "x", "y", "neighbors", "similarity"):
        assert len(p[field]) == 90, field
    assert p["abstract"] == docs["abstract"].tolist()
    assert p["topic"] == docs["topic"].tolist() and p["area"] == docs["area"].tolist()
    assert p["confidence"] == [round(100 * c) for c in docs["confidence"]]
    assert p["low"] == docs["low_confidence"].astype(int).tolist()
    assert p["x"] == pytest.approx(sample_analysis.coords[:, 0].tolist(), abs=1e-3)
    # no titles in the sample: each paper is named by its abstract's first sentence, its LaTeX as text
    assert all(t and plain_text(a).startswith(t.rstrip(".…")[:20]) for t, a in zip(p["title"], p["abstract"]))
    assert not any("$" in t for t in p["title"])
    near, sims = nearest_papers(sample_analysis.embeddings, k=5)
    assert p["neighbors"] == near.tolist()
    assert p["similarity"] == np.rint(100 * sims).astype(int).tolist()
    assert [t["id"] for t in data["topics"]] == sorted(sample_analysis.topics["topic"].tolist(), key=lambda t: (t == -1, t))
    assert [a["label"] for a in data["areas"]] == sample_analysis.areas.loc[sample_analysis.areas["area"] != -1, "label"].tolist()
    assert data["has_url"] is False and data["themes"] == [] and "packed" not in data
    json.loads(script_json(data))  # plain JSON, no NaN


def test_explorer_data_links_groups_and_themes(status_analysis, sample_corpus):
    docs = status_analysis.documents.copy()
    docs["url"] = [f"https://example.org/{i}" for i in range(len(docs))]
    docs.loc[0, "url"] = "javascript:alert(1)"
    docs.loc[1, "url"] = None
    data = explorer_data(dataclasses.replace(status_analysis, documents=docs))
    p = data["papers"]
    assert data["has_url"] and p["url"][0] == "" and p["url"][1] == "" and p["url"][2] == "https://example.org/2"
    assert data["by"] == "status" and data["groups"] == ["Oral", "Poster", "Spotlight"]
    assert [data["groups"][g] for g in p["group"]] == docs["status"].tolist()
    themed = topics.analyze(sample_corpus, embedder="lsa", cache=False, themes=["self-supervised learning", "optimal transport"])
    data = explorer_data(themed)
    assert data["themes"] == ["self-supervised learning", "optimal transport"]
    members = themed.themes.members
    for k, theme in enumerate(data["themes"]):
        ids = {d for d, t in zip(themed.documents["doc_id"], data["papers"]["themes"]) if k in t}
        assert ids == set(members.loc[members["theme"] == theme, "doc_id"]) and ids


def test_a_large_corpus_keeps_a_stated_number_of_papers(sample_analysis):
    data = explorer_data(sample_analysis, max_papers=40)
    p = data["papers"]
    assert (data["n_papers"], data["n_documents"], data["max_papers"]) == (40, 90, 40)
    rows = explorer_rows(sample_analysis.documents["topic"], sample_analysis.embeddings, max_papers=40)
    assert p["pos"] == rows.tolist()
    assert p["abstract"] == sample_analysis.documents["abstract"].iloc[rows].tolist()
    # neighbours point into the kept papers, and are theirs
    assert max(max(n) for n in p["neighbors"]) < 40
    assert p["neighbors"] == nearest_papers(sample_analysis.embeddings[rows], k=5)[0].tolist()


def test_script_json_cannot_leave_its_script_element():
    text = script_json({"title": PAYLOADS, "n": 1})
    assert "<" not in text and ">" not in text and "&" not in text
    assert "\u2028" not in text and "\u2029" not in text
    assert json.loads(text) == {"title": PAYLOADS, "n": 1}  # the escapes read back as the same text
    with pytest.raises(ValueError):
        script_json({"x": float("nan")})


def test_long_texts_travel_packed_and_unpack_to_the_same(sample_analysis):
    plain = explorer_data(sample_analysis)
    packed = explorer_data(sample_analysis, pack_above=0)
    assert "papers" not in packed and packed["n_papers"] == 90
    assert re.fullmatch(r"[A-Za-z0-9+/=]+", packed["packed"])
    assert unpack(packed) == plain and unpack(plain) is plain
    assert len(script_json(packed)) < 0.7 * len(script_json(plain))


def test_untrusted_titles_and_abstracts_round_trip(sample_analysis, monkeypatch):
    docs = sample_analysis.documents.copy()
    docs.loc[: len(PAYLOADS) - 1, "title"] = PAYLOADS
    docs.loc[: len(PAYLOADS) - 1, "abstract"] = [p + " abstract" for p in PAYLOADS]
    analysis = dataclasses.replace(sample_analysis, documents=docs)
    for pack_above in (None, 0):
        data = explorer_data(analysis, pack_above=pack_above)
        text = script_json(data)
        assert "</script" not in text.lower() and "<" not in text
        papers = unpack(json.loads(text))["papers"]
        assert papers["title"][: len(PAYLOADS)] == PAYLOADS
        assert papers["abstract"][: len(PAYLOADS)] == [p + " abstract" for p in PAYLOADS]


def test_explorer_script_writes_text_only():
    js = explorer_script()
    assert "</script" not in js.lower()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in js, sink
    assert "textContent" in js
