import numpy as np
from topics.labels import PhraseAnalyzer, is_name_candidate, name_topics


def test_phrase_analyzer_keeps_real_phrases_only():
    grams = PhraseAnalyzer()("Information across modalities and self-supervised learning of $x$ GPT-4")
    assert "self-supervised learning" in grams and "self-supervised" in grams
    assert "information modalities" not in grams  # not adjacent in the text
    assert "gpt-4" in grams and "x" not in grams


def test_name_candidates():
    assert is_name_candidate("optimal transport")
    assert is_name_candidate("long-tailed recognition")
    assert is_name_candidate("self-supervised learning")
    assert is_name_candidate("language models")
    for bad in ("proposed method", "models", "learning", "results show", "out-of-distribution ood", "data driven", "the model"):
        assert not is_name_candidate(bad), bad


def test_names_prefer_shared_phrases_and_are_distinct():
    terms = {
        0: [("transport", 0.9), ("tree systems", 0.8), ("optimal transport", 0.5), ("wasserstein", 0.4)],
        1: [("transport", 0.7), ("optimal transport", 0.6), ("sinkhorn", 0.5)],
        -1: [("misc", 0.1)],
    }
    counts = {0: {"tree systems": 1, "optimal transport": 6, "transport": 7, "wasserstein": 3}, 1: {"optimal transport": 4, "transport": 4, "sinkhorn": 3}}
    names = name_topics(terms, {0: 10, 1: 5, -1: 3}, counts)
    assert names[0] == "optimal transport"  # "tree systems" occurs in one paper only
    assert names[1] != names[0] and names[1]
    assert names[-1] == "outliers (no topic)"
    assert len(set(names.values())) == 3


def test_extend_phrase_to_the_word_that_always_follows():
    from topics.labels import extend_phrase

    docs = [["graph", "neural", "networks", "are"], ["deep", "graph", "neural", "networks"], ["graph", "neural", "networks"]]
    assert extend_phrase("graph neural", docs) == "graph neural networks"
    mixed = [["language", "models", "are"], ["language", "models", "can"], ["language", "models", "show"]]
    assert extend_phrase("language models", mixed) == "language models"
    acronym = [["post-training", "quantization", "ptq"]] * 3
    assert extend_phrase("post-training quantization", acronym) == "post-training quantization"


def test_a_modifier_most_papers_share_is_completed_by_its_noun():
    from topics.labels import PhraseAnalyzer, topic_names

    texts = [
        "Long-tailed recognition suffers from rare classes; we rebalance logits for deep clustering.",
        "We study long-tailed recognition with decoupled training and deep clustering heads.",
        "Real data are long-tailed; long-tailed recognition needs calibration.",
        "Imbalanced, long-tailed data hurt classifiers.",
        "Deep clustering of images with contrastive heads.",
        "Robots grasp objects; robots plan motions.",
        "Robot grasping from pixels; grasp planning for robots.",
        "Motion planning for robots in clutter.",
    ] + [f"Robots number {i} grasp objects." for i in range(7)]
    labels = np.array([0] * 5 + [1] * 10)
    terms = {
        0: [("long-tailed", 0.9), ("deep clustering", 0.8), ("clustering", 0.7), ("deep", 0.5)],
        1: [("robots", 0.9), ("grasp", 0.8), ("motion planning", 0.7)],
    }
    names = topic_names(terms, labels, texts, analyzer=PhraseAnalyzer())
    # "long-tailed" is in 4 of 5 papers, "deep clustering" in 3: the modifier's phrase wins
    assert names[0] == "long-tailed recognition"


def test_a_phrase_common_everywhere_does_not_name_a_topic():
    from topics.labels import name_topics

    terms = {0: [("neural networks", 1.0), ("graph", 0.9), ("molecules", 0.8)]}
    # "neural networks": in 6 of the topic's 10 papers but in 60 of the corpus's 100 (lift 1)
    counts = {0: {"neural networks": 6, "graph": 8, "molecules": 7}}
    corpus = {"neural networks": 60, "graph": 10, "molecules": 9}
    name = name_topics(terms, {0: 10}, counts, corpus, n_docs=100)[0]
    assert name == "graph, molecules"  # no distinctive phrase: the best two words
    assert name_topics(terms, {0: 10}, counts, {**corpus, "neural networks": 8}, n_docs=100)[0] == "neural networks"
