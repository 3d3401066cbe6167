"""Scores of a topic analysis, against hand computations."""

import numpy as np
import pandas as pd
import pytest

from topics.cli import main
from topics.evaluate import describe_evaluation, score_topics
from topics.stats.metrics import document_terms, keyword_match, label_agreement, names_match, npmi_coherence, seed_agreement, topic_diversity

# d1 {a, b}, d2 {a, b}, d3 {a, c}, d4 {c}
TEXTS = ["alpha beta", "alpha beta", "alpha gamma", "gamma"]


def test_npmi_by_hand():
    docs = document_terms(TEXTS)
    table = npmi_coherence({0: ["alpha", "beta", "gamma"], -1: ["alpha"]}, docs)
    assert table["topic"].tolist() == [0]  # outliers are not scored
    # P(a)=3/4, P(b)=1/2, P(c)=1/2, P(ab)=1/2, P(ac)=1/4, P(bc)=0
    ab = np.log(0.5 / (0.75 * 0.5)) / -np.log(0.5)  # 0.41504
    ac = np.log(0.25 / (0.75 * 0.5)) / -np.log(0.25)  # -0.29248
    bc = -1.0  # never together
    assert ab == pytest.approx(0.41504, abs=1e-5) and ac == pytest.approx(-0.29248, abs=1e-5)
    assert table["npmi"].iloc[0] == pytest.approx((ab + ac + bc) / 3)
    # two terms that always occur together score 1
    assert npmi_coherence({0: ["alpha", "beta"]}, document_terms(["alpha beta"] * 3))["npmi"].iloc[0] == 1.0


def test_terms_match_across_tokenisers():
    docs = document_terms(["We use self-supervised learning here."])
    # our phrase and BERTopic's hyphen-stripped unigram are the same term
    assert "selfsupervised learning" in docs[0] and "selfsupervised" in docs[0]


def test_diversity_by_hand():
    assert topic_diversity({0: ["a", "b"], 1: ["b", "c"], -1: ["z", "z"]}) == pytest.approx(3 / 4)
    assert topic_diversity({0: ["a", "b"], 1: ["c", "d"]}) == 1.0


def test_label_agreement():
    labels = ["x", "x", "y", "y", None]
    perfect = label_agreement([0, 0, 1, 1, 5], labels)  # the unlabelled paper is left out
    assert perfect["nmi_with_outliers"] == pytest.approx(1.0) and perfect["ari_with_outliers"] == pytest.approx(1.0)
    outliers = label_agreement([0, 0, -1, -1, 0], labels)
    assert outliers["nmi_with_outliers"] == pytest.approx(1.0)  # -1 as one group still separates x from y
    assert np.isnan(outliers["nmi_without_outliers"]) or outliers["ari_without_outliers"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="label"):
        label_agreement([0, 1], [None, None])


def test_keyword_match():
    assert names_match("diffusion models", "Diffusion Model")
    assert names_match("graph neural networks", "GNN; graph neural network".split("; ")[1])
    assert not names_match("optimal transport", "transportation")
    keywords = ["optimal transport; generative models", "Optimal Transport", "wasserstein", "LLM; reasoning", "reasoning"]
    table = keyword_match({0: "optimal transport", 1: "chain of thought", -1: "outliers"}, [0, 0, 0, 1, 1], keywords)
    assert table.set_index("topic")["match"].to_dict() == {0: True, 1: False}
    assert table.set_index("topic").loc[0, "top_keywords"].startswith("optimal transport")


def test_seed_agreement():
    same = seed_agreement([[0, 0, 1, 1], [1, 1, 0, 0]])
    assert same == {"mean_ari": pytest.approx(1.0), "min_ari": pytest.approx(1.0), "topics_recovered": 1.0}
    halves = seed_agreement([[0, 0, 0, 0, 1, 1], [0, 0, 2, 2, 1, 1]])
    assert halves["topics_recovered"] == 1.0  # half of topic 0 is still a Jaccard of 0.5
    thirds = seed_agreement([[0, 0, 0, 0, 0, 0, 1, 1], [0, 0, 2, 2, 3, 3, 1, 1]])
    assert thirds["topics_recovered"] == 0.5 and thirds["mean_ari"] < 1  # a third is not
    with pytest.raises(ValueError, match="two"):
        seed_agreement([[0, 1]])


def test_score_table_and_text():
    scores = score_topics([0, 0, 1, -1], {0: ["alpha", "beta"], 1: ["gamma", "alpha"]}, TEXTS, refits=[[0, 0, 1, 1]])
    values = scores.set_index("metric")["value"]
    assert values["topics"] == 2 and values["outlier_share"] == 0.25
    assert values["diversity"] == pytest.approx(3 / 4)
    text = describe_evaluation({"a": scores, "b": scores})
    assert "outlier_share" in text and "25.0 %" in text and text.splitlines()[0].split() == ["a", "b"]


def test_cli_scores_a_labelled_table(theme_corpus, tmp_path, capsys):
    table = theme_corpus.assign(keywords=theme_corpus["theme"] + "; science")
    path = tmp_path / "papers.csv"
    table[["abstract", "year", "theme", "keywords"]].to_csv(path, index=False)
    out = tmp_path / "scores.csv"
    assert main(["evaluate", str(path), "--backend", "lsa", "--no-cache", "-q", "--refits", "1",
                 "--runs", "2", "--labels-column", "theme", "--csv", str(out)]) == 0
    scores = pd.read_csv(out).set_index("metric")["value"]
    assert scores["nmi_with_outliers"] > 0.9 and scores["seed_mean_ari"] > 0.9
    assert "nmi_with_outliers" in capsys.readouterr().out
    assert main(["evaluate", str(path), "--backend", "lsa", "--no-cache", "-q", "--refits", "0",
                 "--runs", "1", "--labels-column", "keywords", "--csv", str(out)]) == 0
    assert "keyword_match" in pd.read_csv(out)["metric"].tolist()


def test_cli_errors(tmp_path, capsys):
    path = tmp_path / "p.csv"
    pd.DataFrame({"abstract": [f"text {i}" for i in range(12)], "year": 2024}).to_csv(path, index=False)
    assert main(["evaluate", str(path), "--backend", "lsa", "--labels-column", "nope"]) == 2
    assert "no column 'nope'" in capsys.readouterr().err
    assert main(["evaluate", str(path), "--backend", "lsa", "--refits", "-1"]) == 2


def test_accented_terms_match_their_documents():
    docs = document_terms(["the Schrödinger bridge problem", "a Schrödinger bridge"])
    assert npmi_coherence({0: ["schrödinger", "bridge"]}, docs)["npmi"].iloc[0] == 1.0
