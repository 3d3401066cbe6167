"""The topic-quality metrics (topics.stats.metrics), against hand computations."""

import numpy as np
import pandas as pd
import pytest

from topics.stats.comparison import TwoGroups
from topics.stats.metrics import (
    canonical,
    clear_changes_held,
    document_terms,
    keyword_match,
    label_agreement,
    names_match,
    npmi_coherence,
    seed_agreement,
    split_keywords,
    topic_diversity,
)

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
    # authors write a hyphenated word joined, hyphenated or spaced
    assert names_match("self-supervised learning", "Self Supervised Learning")
    assert names_match("self supervised learning", "self-supervised learning")
    assert names_match("self-supervised learning", "selfsupervised learning")
    assert names_match("long-tailed recognition", "long tailed recognition.")
    assert not names_match("supervised learning", "self-supervised learning")
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

def test_accented_terms_match_their_documents():
    docs = document_terms(["the Schrödinger bridge problem", "a Schrödinger bridge"])
    assert npmi_coherence({0: ["schrödinger", "bridge"]}, docs)["npmi"].iloc[0] == 1.0


def test_canonical_joins_hyphens_and_drops_case_accents_and_punctuation():
    assert canonical("Self-Supervised Learning") == canonical("selfsupervised learning") == "selfsupervised learning"
    assert canonical("self\u2010supervised") == "selfsupervised"  # the Unicode hyphen too
    assert canonical("  Schrödinger   Bridge! ") == "schrodinger bridge"
    assert canonical("GANs (2014)") == "gans 2014"


def test_document_terms_holds_ngrams_up_to_max_words():
    (terms,) = document_terms(["Optimal transport, fast!"], max_words=2)
    assert terms == {"optimal", "transport", "fast", "optimal transport", "transport fast"}
    assert "optimal transport fast" in document_terms(["Optimal transport, fast!"])[0]  # three words by default


def test_npmi_needs_documents_and_two_terms():
    table = npmi_coherence({0: ["alpha"], 1: ["alpha", "Alpha", "beta"]}, document_terms(TEXTS))
    assert np.isnan(table.loc[0, "npmi"]) and table.loc[0, "n_terms"] == 1  # one term: no pair to score
    assert table.loc[1, "n_terms"] == 2  # "Alpha" is "alpha" again
    assert table.loc[1, "npmi"] == pytest.approx(np.log(0.5 / (0.75 * 0.5)) / -np.log(0.5))
    with pytest.raises(ValueError, match="no documents"):
        npmi_coherence({0: ["alpha", "beta"]}, [])


def test_split_keywords():
    assert split_keywords(" optimal transport ; GANs;; ") == ["optimal transport", "GANs"]
    assert split_keywords(None) == [] and split_keywords(float("nan")) == [] and split_keywords("") == []


def _changes(directions):
    table = pd.DataFrame({"topic": range(len(directions)), "label": [f"t{i}" for i in range(len(directions))],
                          "direction": directions})
    return TwoGroups(table, by="year", groups=(2024, 2025), sizes={2024: 10, 2025: 10})


def test_clear_changes_held_counts_only_clear_changes():
    stability = pd.DataFrame({"topic": [0, 1, 2, 3], "stable": [True, False, False, True]})
    # topics 0 (held) and 1 (not) changed clearly; 2 and 3 did not and do not count
    assert clear_changes_held(stability, _changes(["grew", "shrank", "no clear change", "no clear change"])) == 0.5
    assert clear_changes_held(stability, _changes(["grew", "no clear change", "no clear change", "shrank"])) == 1.0
    assert np.isnan(clear_changes_held(stability, _changes(["no clear change"] * 4)))
