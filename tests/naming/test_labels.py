"""Topic and area names: candidates scored, phrases extended, names kept distinct."""

import numpy as np
from topics.naming.terms import PhraseAnalyzer
from topics.naming.labels import name_topics


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
    from topics.naming.labels import extend_phrase

    docs = [["graph", "neural", "networks", "are"], ["deep", "graph", "neural", "networks"], ["graph", "neural", "networks"]]
    assert extend_phrase("graph neural", docs) == "graph neural networks"
    mixed = [["language", "models", "are"], ["language", "models", "can"], ["language", "models", "show"]]
    assert extend_phrase("language models", mixed) == "language models"
    acronym = [["post-training", "quantization", "ptq"]] * 3
    assert extend_phrase("post-training quantization", acronym) == "post-training quantization"


def test_a_modifier_most_papers_share_is_completed_by_its_noun():
    from topics.naming.labels import topic_names

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
    from topics.naming.labels import name_topics

    terms = {0: [("graph kernels", 1.0), ("graph", 0.9), ("molecules", 0.8)]}
    # "graph kernels": in 6 of the topic's 10 papers but in 60 of the corpus's 100 (lift 1)
    counts = {0: {"graph kernels": 6, "graph": 8, "molecules": 7}}
    corpus = {"graph kernels": 60, "graph": 10, "molecules": 9}
    name = name_topics(terms, {0: 10}, counts, corpus, n_docs=100)[0]
    assert name == "graph, molecules"  # no distinctive phrase: the best two words
    distinctive = {**corpus, "graph kernels": 8}
    assert name_topics(terms, {0: 10}, counts, distinctive, n_docs=100)[0] == "graph kernels"
    # a phrase every area uses never names a topic, however distinctive it looks here
    generic = {0: [("neural networks", 1.0), ("graph", 0.9), ("molecules", 0.8)]}
    counts = {0: {"neural networks": 6, "graph": 8, "molecules": 7}}
    assert name_topics(generic, {0: 10}, counts, {**distinctive, "neural networks": 8}, n_docs=100)[0] == "graph, molecules"


def test_names_that_share_words_but_not_a_phrase_can_coexist():
    from topics.naming.labels import name_topics

    terms = {0: [("vision-language models", 1.0)], 1: [("language models", 1.0), ("reasoning", 0.5)], 2: [("language model", 1.0), ("safety", 0.9)]}
    names = name_topics(terms, {0: 30, 1: 20, 2: 10})
    assert names[0] == "vision-language models" and names[1] == "language models"
    assert names[2] == "safety"  # "language model" reads as topic 1's name


def test_a_one_word_name_does_not_block_longer_phrases_and_extensions_keep_names_distinct():
    from topics.naming.labels import _overlaps, topic_names

    assert not _overlaps("vision transformers", {"transformers"})
    assert _overlaps("language models", {"large language models"})
    # both names would extend to "state space models"
    texts = ["state space models are fast; state space models scale"] * 3 + ["we study space models; state space models"] * 2
    labels = np.array([0, 0, 0, 1, 1])
    terms = {0: [("state space", 1.0)], 1: [("space models", 1.0)]}
    names = topic_names(terms, labels, texts, analyzer=PhraseAnalyzer())
    assert len(set(names.values())) == 2  # never two topics called "state space models"
