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
