"""Name coverage: the share of a group's papers that use its name."""

import numpy as np

from topics.naming.coverage import PhraseIndex, coverage, name_parts, name_precision, phrase_key


def test_plurals_hyphens_and_case_count_as_the_same_words():
    texts = ["Self-supervised learners and diffusion models.", "A diffusion model for self supervised learning.",
             "DIFFUSION-MODELS!", "Score matching only."]
    index = PhraseIndex(texts)
    assert index.uses("diffusion models").tolist() == [True, True, True, False]
    assert index.uses("self-supervised learning").tolist() == [False, True, False, False]
    assert phrase_key("Self-Supervised Models") == "self-supervised model"
    # a hyphenated word is matched whole: "supervised learning" is not inside "self-supervised learning"
    hyphenated = PhraseIndex(["Self-supervised learning of views.", "Supervised learning with labels."])
    assert hyphenated.uses("supervised learning").tolist() == [False, True]
    assert hyphenated.uses("self supervised learning").tolist() == [True, False]


def test_coverage_on_hand_made_topics():
    texts = ["optimal transport plans", "entropic optimal transport", "graph transformers", "dataset distillation"]
    index = PhraseIndex(texts)
    topic = np.array([True, True, True, False])
    assert coverage(index, "optimal transport", topic) == 2 / 3
    assert coverage(index, "optimal transport / graph transformers", topic) == 1.0  # a compound: either part
    assert coverage(index, "dataset distillation", topic) == 0.0
    assert name_parts("a / b") == ["a", "b"]


def test_an_acronym_counts_as_its_definition_and_phrases_stop_at_punctuation():
    texts = ["We fine-tune with LoRA.", "Low-rank adaptation of weights.", "partial differential equations (PDEs) solvers"]
    index = PhraseIndex(texts, {"LoRA": "low-rank adaptation", "PDEs": "partial differential equations"})
    assert index.uses("low-rank adaptation").tolist() == [True, True, False]
    assert index.uses("LoRA").tolist() == [True, True, False]  # a name is read as the texts are
    assert not index.uses("equations pdes").any()


def test_a_wrong_sense_acronym_does_not_count_for_the_expansion():
    texts = ["We pretrain with SSL on images."] * 3 + [
        "Self-supervised learning (SSL) of features.",
        "Semi-supervised learning (SSL) with few labels; SSL uses pseudo-labels.",
    ]
    index = PhraseIndex(texts, {"SSL": "self-supervised learning"})
    used = index.uses("self-supervised learning")
    assert used.tolist() == [True, True, True, True, False]  # the last paper defines SSL otherwise
    assert index.uses("semi-supervised learning").tolist() == [False] * 4 + [True]


def test_precision_and_fit_of_a_name_on_hand_made_topics():
    from topics.naming.labels import name_fit

    texts = ["molecular structures", "drug discovery structures", "drug discovery", "protein folding",
             "graph structures", "program structures", "tree structures", "image structures"]
    index = PhraseIndex(texts)
    topic = np.array([True] * 4 + [False] * 4)
    assert name_precision(index, "structures", topic) == 2 / 6
    assert name_precision(index, "drug discovery", topic) == 1.0
    assert name_precision(index, "nothing here", topic) == 0.0
    assert name_precision(index, "structures", np.flatnonzero(topic)) == 2 / 6  # positions as a mask
    # both cover half the topic; the name only the topic uses fits it better
    assert name_fit(index, "drug discovery", topic) > name_fit(index, "structures", topic)
    # F-beta, beta 2: (1 + 4) * 0.5 * 1 / (4 * 1 + 0.5)
    assert np.isclose(name_fit(index, "drug discovery", topic), 2.5 / 4.5)
    assert name_fit(index, "nothing here", topic) == 0.0
