"""Tidy tables from a fitted TopicModel: documents, topics, areas, terms, representatives, similarity."""

import copy

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from topics.clustering.model import TopicModel
from topics.clustering.tables import (
    LOW_CONFIDENCE, area_table, document_table, representative_documents, term_table, topic_similarity, topic_table,
)


def test_tables(theme_corpus, theme_embeddings, theme_model):
    docs = document_table(theme_model, theme_corpus)
    assert docs.columns[:9].tolist() == ["doc_id", "venue", "year", "title", "abstract", "source", "position", "topic", "topic_label"]
    topics = topic_table(theme_model)
    assert topics["n_docs"].sum() == len(theme_corpus)
    assert topics["share"].sum() == pytest.approx(1)
    terms = term_table(theme_model)
    assert terms.groupby("topic")["weight"].apply(lambda w: w.is_monotonic_decreasing).all()
    reps = representative_documents(theme_model, theme_corpus, theme_embeddings, n=2)
    assert (reps.groupby("topic").size() == 2).all()
    assert (docs.set_index("doc_id").loc[reps["doc_id"], "topic"].to_numpy() == reps["topic"].to_numpy()).all()


def test_document_table_has_one_row_per_paper_and_flags_low_confidence(theme_corpus, theme_model):
    docs = document_table(theme_model, theme_corpus)
    assert len(docs) == len(theme_corpus) and docs["doc_id"].tolist() == theme_corpus["doc_id"].tolist()
    np.testing.assert_array_equal(docs["topic"], theme_model.labels_)
    assert docs["topic_label"].tolist() == [theme_model.topic_names_[t] for t in theme_model.labels_]
    assert docs.columns[-1] == "theme" and docs["theme"].tolist() == theme_corpus["theme"].tolist()  # extra columns kept
    assert (docs.loc[docs["topic"] == -1, "area"] == -1).all()
    # confidences on both sides of the bar: a paper below it is flagged, unless it is an outlier
    model = copy.copy(theme_model)
    model.confidence_ = np.linspace(0, 1, len(theme_corpus))
    docs = document_table(model, theme_corpus)
    expected = (model.confidence_ < LOW_CONFIDENCE) & (model.labels_ != -1)
    assert expected.any() and not expected.all()
    np.testing.assert_array_equal(docs["low_confidence"].to_numpy(), expected)
    with pytest.raises(ValueError, match=f"corpus has {len(theme_corpus) - 1} rows"):
        document_table(theme_model, theme_corpus.iloc[:-1])


def test_topic_table_counts_every_paper_once(theme_model):
    table = topic_table(theme_model)
    labels = theme_model.labels_
    assert table["topic"].tolist() == theme_model.topics
    assert table["n_docs"].tolist() == [int((labels == t).sum()) for t in table["topic"]]
    assert table["share"].tolist() == pytest.approx([(labels == t).mean() for t in table["topic"]])
    assert table["share"].sum() == pytest.approx(1)
    assert table.loc[table["topic"] != -1, "n_docs"].is_monotonic_decreasing  # largest topic first
    assert table["mean_confidence"].tolist() == pytest.approx([theme_model.confidence_[labels == t].mean() for t in table["topic"]])
    named = table[table["topic"] != -1]
    # no titles in this corpus: the three most central papers by their first words
    assert named["typical_titles"].map(lambda s: len(s.split(" | "))).eq(3).all()
    with pytest.raises(NotFittedError):
        topic_table(TopicModel())


def test_area_table_puts_every_topic_in_one_area(theme_model):
    areas = area_table(theme_model)
    assert areas["n_docs"].sum() == len(theme_model.labels_) and areas["share"].sum() == pytest.approx(1)
    named_topics = [t for t in theme_model.topics if t != -1]
    assert areas["n_topics"].sum() == len(named_topics)
    listed = [name for topics in areas["topics"] for name in topics.split("; ")]
    assert sorted(listed) == sorted(theme_model.topic_names_[t] for t in theme_model.topics)


def test_terms_and_representatives_are_ranked(theme_corpus, theme_embeddings, theme_model):
    terms = term_table(theme_model)
    assert -1 not in set(terms["topic"])
    assert terms.groupby("topic")["rank"].apply(lambda r: r.tolist() == list(range(1, len(r) + 1))).all()
    reps = representative_documents(theme_model, theme_corpus, theme_embeddings, n=3)
    assert -1 not in set(reps["topic"])
    for _, part in reps.groupby("topic"):
        assert part["rank"].tolist() == [1, 2, 3] and part["similarity"].is_monotonic_decreasing


def test_topic_similarity_is_symmetric_with_unit_diagonal(theme_model):
    sim = topic_similarity(theme_model)
    ids = [t for t in theme_model.topics if t != -1]
    assert len(sim) == len(ids) ** 2
    assert (sim["label_a"] == sim["topic_a"].map(theme_model.topic_names_)).all()
    matrix = sim.pivot(index="topic_a", columns="topic_b", values="similarity").to_numpy()
    np.testing.assert_allclose(matrix, matrix.T, atol=1e-6)
    np.testing.assert_allclose(np.diag(matrix), 1, atol=1e-5)
    assert (matrix[~np.eye(len(ids), dtype=bool)] < 0.99).all()  # four distinct themes are not one
