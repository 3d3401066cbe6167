"""Acronyms defined in the corpus itself (Schwartz-Hearst), written out in terms and names."""

import logging

import numpy as np

from topics.naming.acronyms import document_definitions, expand_acronyms, find_acronyms
from topics.naming.terms import PhraseAnalyzer
from topics.naming.labels import topic_names

ABSTRACTS = [
    "We revisit self-supervised learning (SSL) for vision. SSL learns without labels.",
    "Contrastive methods dominate SSL; we study self-supervised learning (SSL) with masks.",
    "Optimal transport (OT) compares distributions. We make OT fast with sliced variants.",
    "Sparse mixture of experts (MoE) layers route tokens; MoE models scale cheaply.",
    "Large language models (LLMs) reason; one LLM is not enough, and LLMs disagree.",
    "A large language model (LLM) can plan.",
    "We go to the lab; it is not ot, nor is it an acronym (as we said).",
]


def test_definitions_are_found_and_hyphenated_prefixes_kept():
    found = find_acronyms(ABSTRACTS)
    assert found["SSL"] == "self-supervised learning"  # Schwartz-Hearst alone gives "supervised learning"
    assert found["OT"] == "optimal transport"
    assert found["MoE"] == "mixture of experts"
    assert found["LLMs"] == "large language models" and found["LLM"] == "large language model"
    assert "as" not in {k.lower() for k in found}  # one capital is no acronym


def test_the_most_common_definition_wins():
    texts = ["reinforcement learning (RL) a", "reinforcement learning (RL) b", "representation learning (RL) c"]
    assert find_acronyms(texts)["RL"] == "reinforcement learning"
    assert find_acronyms(texts, min_count=3) == {}


def test_expansion_is_case_sensitive_and_writes_a_definition_once():
    found = {"OT": "optimal transport", "LLM": "large language model", "SSL": "self-supervised learning"}
    text = "Optimal transport (OT) and OT solvers; LLMs use ot-free code, not ot."
    out = expand_acronyms(text, found)
    assert out.lower().count("optimal transport") == 2  # the definition once, and "OT solvers"
    assert "OT" not in out
    assert "large language models use" in out  # plural of a singular definition
    assert "ot-free" in out and out.endswith("not ot.")


def test_topic_names_use_the_written_out_acronym():
    texts = [
        "SSL methods learn from pixels; SSL needs augmentation.",
        "We scale SSL to video with masking; SSL features transfer.",
        "self-supervised learning (SSL) without negatives.",
        "optimal transport (OT) between graphs; OT distances.",
        "OT maps for domain adaptation with OT plans.",
        "Sliced OT is fast; OT barycenters.",
    ]
    analyzer = PhraseAnalyzer(acronyms=find_acronyms(texts))
    labels = np.array([0, 0, 0, 1, 1, 1])
    terms = {
        0: [("self-supervised learning", 1.0), ("self-supervised", 0.9), ("ssl", 0.8)],
        1: [("optimal transport", 1.0), ("transport", 0.9), ("ot", 0.8)],
    }
    names = topic_names(terms, labels, texts, analyzer=analyzer)
    assert names == {0: "self-supervised learning", 1: "optimal transport"}


def test_a_singular_is_expanded_from_a_plural_definition_and_no_empty_brackets_remain():
    out = expand_acronyms("Large language models (LLMs) help; an LLM plans.", {"LLMs": "large language models"})
    assert out == "Large language models help; an large language model plans."


def test_skipping_words_without_two_capitals_changes_nothing():
    import topics.naming.acronyms as A

    acronyms = {"OT": "optimal transport", "LLM": "large language model", "MoE": "mixture of experts"}
    text = "Optimal transport (OT) for LLMs and MoE layers; OTs, an LLM, We use OT-based costs."
    assert A.word_pattern(acronyms) is A._CAPITALISED_WORD
    assert A.expand_acronyms(text, acronyms) == A.expand_acronyms(text, acronyms, words=A._WORD)
    assert "large language models" in A.expand_acronyms(text, acronyms)
    assert A.word_pattern({"Ot": "optimal transport"}) is A._WORD  # one capital: every word is looked up


def test_document_definitions_keep_every_pair_of_one_paper():
    text = ("We study optimal transport (OT) for deep long-tailed recognition (DLTR) and "
            "self-supervised learning (SSL); see (i) and (e.g. below), and (Table 2).")
    assert document_definitions(text) == [
        ("OT", "optimal transport"), ("DLTR", "deep long-tailed recognition"), ("SSL", "self-supervised learning"),
    ]
    assert document_definitions("No parentheses here.") == []


def test_acronym_search_leaves_the_root_logger_alone():
    import subprocess
    import sys

    code = ("import logging; from topics.naming.acronyms import document_definitions; "
            "document_definitions('optimal transport (OT) here'); r = logging.getLogger(); "
            "print(len(r.handlers), r.level)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["0", str(logging.WARNING)]  # the package's import-time basicConfig is undone


def test_each_text_is_searched_once_however_many_steps_read_its_definitions(monkeypatch):
    """The fit's acronyms, the phrase index's own definitions and the rising phrases'
    acronyms of one report share one Schwartz-Hearst search per text."""
    from topics.naming import acronyms
    from topics.naming.coverage import PhraseIndex
    from topics.stats.rising import paper_phrases

    module = acronyms._schwartz_hearst()
    searched = []
    search = module.extract_abbreviation_definition_pairs

    def counted(doc_text):
        searched.append(doc_text)
        return search(doc_text=doc_text)

    monkeypatch.setattr(module, "extract_abbreviation_definition_pairs", counted)
    texts = [f"{t} (run {id(searched)})" for t in ABSTRACTS]  # texts no earlier test searched
    found = find_acronyms(texts)
    PhraseIndex(texts, found).uses("optimal transport")
    paper_phrases(texts)
    assert sorted(searched) == sorted(t for t in texts)  # every text has "(", each searched once
    assert acronyms.definition_counts(texts)[("OT", "optimal transport")] == 1
