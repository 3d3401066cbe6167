"""Scores of a topic analysis, against hand computations."""

import pandas as pd
import pytest

from topics.cli import main
from topics.evaluate import describe_evaluation, score_topics

# d1 {a, b}, d2 {a, b}, d3 {a, c}, d4 {c}
TEXTS = ["alpha beta", "alpha beta", "alpha gamma", "gamma"]


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
