import pytest

from topics.io import datasets


def test_sample_has_90_abstracts_19_and_71(sample_corpus):
    assert len(sample_corpus) == 90
    assert sample_corpus["year"].value_counts().to_dict() == {2025: 71, 2024: 19}
    assert sample_corpus["venue"].unique().tolist() == ["ICLR"]
    assert sample_corpus["doc_id"].is_unique


def test_full_lists():
    full = datasets.iclr_full()
    assert full["year"].value_counts().to_dict() == {2024: 2260, 2025: 2104}
    assert {"status", "url"} <= set(full.columns)
    assert full["title"].str.len().gt(0).all()


def test_unknown_dataset():
    with pytest.raises(ValueError, match="unknown dataset"):
        datasets.load_dataset("nope")
    assert any("non-random" in c for c in datasets.dataset_caveats("full"))


def test_the_full_lists_load_without_a_warning(caplog):
    import logging

    from topics.io.datasets import iclr_full

    with caplog.at_level(logging.WARNING):
        corpus = iclr_full()
    assert len(corpus) == 4364
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
