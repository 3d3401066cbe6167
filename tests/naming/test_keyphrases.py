"""Keyphraseness: counted from papers with author keywords, and the counts the package ships."""

import pytest

from topics.naming.keyphrases import MIN_KEYPHRASENESS, MIN_TEXTS, Keyphraseness, build, reference


def _corpus():
    # 60 papers write "gap", none chooses it; 60 write "pruning", 12 choose it; "optimal
    # transport" is written by 2 and chosen by 2
    texts = [f"Pruning closes the gap, study {i}." for i in range(60)] + ["Optimal transport plans.", "Optimal transport maps."]
    keywords = [["pruning"] if i < 12 else ["sparsity"] for i in range(60)] + [["Optimal Transport"], ["optimal transport", "maps"]]
    return texts, keywords


def test_counts_the_papers_that_write_a_term_and_those_that_choose_it():
    texts, keywords = _corpus()
    counts = build(texts, keywords, min_texts=20)
    assert counts.n_docs == 62
    assert counts.text["gap"] == 60 and "gap" not in counts.keyword
    assert counts.keyword["pruning"] == 12 and counts.text["pruning"] == 60
    assert counts.keyword["optimal transport"] == 2 and counts.text["optimal transport"] == 2  # case folded
    assert "map" not in counts.keyword  # chosen once: not counted
    assert counts("pruning") == pytest.approx(0.2)
    assert counts("gap") == 0.0
    assert counts("optimal transport") is None  # written by fewer than MIN_TEXTS papers: unknown
    assert MIN_TEXTS > 2


def test_rejects_only_known_terms_authors_almost_never_choose():
    texts, keywords = _corpus()
    counts = build(texts, keywords)
    assert counts.rejects("gap") and counts.rejects("Gaps")  # plurals and case as names are compared
    assert not counts.rejects("pruning")
    assert not counts.rejects("optimal transport")  # too rare to judge
    assert not counts.rejects("never written anywhere")
    assert counts.rejects("pruning / gap")  # a compound is as weak as its weakest part
    # the bar is a share: one keyword in 60 papers is above it, none is below
    one = Keyphraseness({"gap": 1}, {"gap": 60}, 60)
    assert 1 / 60 >= MIN_KEYPHRASENESS and not one.rejects("gap")


def test_counts_survive_a_write_and_a_read(tmp_path):
    texts, keywords = _corpus()
    counts = build(texts, keywords)
    counts.write(tmp_path / "counts.tsv.gz")
    back = Keyphraseness.read(tmp_path / "counts.tsv.gz")
    assert back == counts
    assert Keyphraseness.read(str(tmp_path / "counts.tsv.gz")) == counts


def test_the_shipped_counts_tell_field_names_from_words_every_field_writes():
    counts = reference()
    assert counts.n_docs > 10_000
    for vague in ("gap", "parameters", "distribution", "complex", "accuracy", "downstream tasks", "feature space"):
        assert counts.rejects(vague), vague
    for field in ("pruning", "fairness", "optimal transport", "self-supervised learning", "graph neural networks", "in-context learning"):
        assert not counts.rejects(field), field
        assert counts(field) > 0.1, field
    assert reference() is counts  # read once
