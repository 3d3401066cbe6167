"""What counts as a term: the phrase analyser, name candidates, phrases, and the vocabularies."""

import pickle

from topics.naming.terms import (
    GENERIC_PHRASES, GENERIC_TERMS, HEAD_ONLY_TERMS, NOT_ALONE_TERMS, PhraseAnalyzer, is_bad_word, is_name_candidate, is_phrase,
)


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


def test_analyzer_remembers_tokens_only_when_asked():
    from topics.naming.terms import PhraseAnalyzer

    text = "Optimal transport (OT) aligns distributions; OT maps are smooth."
    remembering = PhraseAnalyzer(acronyms={"OT": "optimal transport"}, remember=True)
    first = remembering.tokens(text)
    assert remembering.tokens(text) is first  # the second pass reads the first
    plain = PhraseAnalyzer(acronyms={"OT": "optimal transport"})
    assert plain.tokens(text) == first and plain.tokens(text) is not plain.tokens(text)
    assert remembering(text) == plain(text)


def test_no_phrase_crosses_punctuation_and_acronyms_become_words():
    analyzer = PhraseAnalyzer(acronyms={"PDEs": "partial differential equations"})
    grams = analyzer("We solve partial differential equations (PDEs) quickly.")
    assert "partial differential" in grams and "differential equations" in grams
    assert "equations pdes" not in grams and "pdes" not in grams and "equations partial" not in grams


def test_phrases_are_several_words_or_long_compounds_that_are_not_adjectives():
    assert is_phrase("optimal transport") and is_phrase("graph neural networks")
    assert is_phrase("mixture-of-experts") and is_phrase("out-of-distribution")
    assert not is_phrase("transport")
    assert not is_phrase("long-tailed") and not is_phrase("fine-tuning")  # two parts are one word
    assert not is_phrase("cross-domain-adapted")  # a long compound that ends like an adjective ...
    assert is_phrase("multi-task-learning")  # ... unless the ending is a noun in research names


def test_bad_words_are_stop_words_generic_words_numbers_and_single_letters():
    for bad in ("the", "results", "propose", "2024", "x"):
        assert is_bad_word(bad), bad
    for good in ("transport", "ab", "gpt-4", "protein"):
        assert not is_bad_word(good), good


def test_the_vocabularies_shape_which_names_are_allowed():
    # a head word ends a name but neither starts one nor stands alone
    assert "models" in HEAD_ONLY_TERMS and "data" in HEAD_ONLY_TERMS
    assert is_name_candidate("language models") and is_name_candidate("tabular data")
    assert is_name_candidate("data augmentation") and not is_name_candidate("models")  # a head word may start a field name
    assert not is_name_candidate("learning models")  # but two broad words name nothing
    # a broad modifier starts a name but is none alone
    assert "neural" in NOT_ALONE_TERMS and HEAD_ONLY_TERMS <= NOT_ALONE_TERMS
    assert is_name_candidate("neural fields") and not is_name_candidate("neural")
    # generic words and phrases never name a topic
    assert "approach" in GENERIC_TERMS and not is_name_candidate("transport approach")
    for phrase in ("deep learning", "neural networks", "training data"):
        assert phrase in GENERIC_PHRASES and not is_name_candidate(phrase), phrase
    assert all(p == p.strip() and p for p in GENERIC_PHRASES)


def test_an_analyzer_travels_with_its_acronyms_but_not_its_memory():
    text = "Optimal transport (OT) aligns distributions; OT maps are smooth."
    analyzer = PhraseAnalyzer(acronyms={"OT": "optimal transport"}, remember=True)
    analyzer.tokens(text)
    clone = pickle.loads(pickle.dumps(analyzer))
    assert clone.acronyms == {"OT": "optimal transport"} and clone(text) == analyzer(text)
    assert "optimal transport" in clone("OT maps") and "ot" not in clone("OT maps")
    # the remembered tokens stay behind: a worker gets what a fresh analyzer would send
    assert pickle.dumps(analyzer) == pickle.dumps(PhraseAnalyzer(acronyms={"OT": "optimal transport"}))
