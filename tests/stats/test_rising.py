import numpy as np
import pandas as pd
import pytest

from topics.stats.rising import RISING_COLUMNS, keyword_phrases, paper_phrases, phrase_tests, rising_phrases


def corpus():
    """Three years of 100 papers; "flow matching" appears in the last year only (30
    papers), "graph neural networks" in 20 % of every year."""
    texts, years, topics = [], [], []
    for year in (2021, 2022, 2023):
        for i in range(100):
            words = ["we study learning"]
            if i < 20:
                words.append("graph neural networks")
            if year == 2023 and 50 <= i < 80:
                words.append("flow matching for generative modelling")
            texts.append(" ".join(words) + f" item{i}")
            years.append(year)
            topics.append(0 if i < 50 else 1)
    return texts, np.array(years), np.array(topics)


def test_a_phrase_new_in_the_last_year_rises_and_a_steady_one_does_not():
    texts, years, topics = corpus()
    table = rising_phrases(paper_phrases(texts), years, topics=topics, topic_labels={0: "graphs", 1: "generative models"})
    assert list(table.columns) == RISING_COLUMNS
    phrases = table["phrase"].tolist()
    assert phrases[0] == "flow matching"
    assert "matching" not in phrases  # held inside "flow matching", which all its papers use
    assert not any("graph" in p for p in phrases)
    first = table.iloc[0]
    assert first["n_latest"] == 30 and first["n_before"] == 0 and first["q"] <= 0.05 and first["low"] > 0
    assert first["topics"] == "generative models"


def test_the_minimum_count_keeps_rare_phrases_out():
    texts, years, _ = corpus()
    table = rising_phrases(paper_phrases(texts), years, min_count=31)
    assert table.empty and list(table.columns) == RISING_COLUMNS


def _sets(*groups):
    """Phrase sets and years from ``(phrase, papers of 2022, papers of 2023)``: 100 papers a
    year, each phrase on the first papers of each year (so phrases share papers)."""
    phrases = [set() for _ in range(200)]
    for phrase, before, latest in groups:
        for i in [*range(before), *range(100, 100 + latest)]:
            phrases[i].add(phrase)
    return phrases, np.repeat([2022, 2023], 100)


def test_phrases_that_fell_in_the_latest_year_are_tested_too():
    """"x y" rises from 3 to 12 papers (p about 0.01 alone); ten phrases fall from 10 to 3.
    A floor on the latest year's count (the rule before 0.2.0's valid form) tested "x y"
    alone and listed it; the falling phrases, used by 13 papers in all, are tested too,
    and Benjamini-Hochberg over the eleven does not list it."""
    phrases, years = _sets(("x y", 3, 12), *((f"falls {k}", 10, 3) for k in range(10)))
    assert rising_phrases(phrases, years).empty
    alone = rising_phrases(_sets(("x y", 3, 12))[0], years)
    assert alone["phrase"].tolist() == ["x y"] and alone["q"].iloc[0] == pytest.approx(alone["p"].iloc[0])


def test_phrases_too_rare_to_pass_do_not_raise_the_bar():
    """Fifty phrases of 5 papers (3 of them in 2023) cannot pass however their papers fall
    (all five in 2023 has p of about 0.03): Tarone's screen leaves them out, so "x y" is
    listed with q equal to its p-value, as if they were not there."""
    phrases, years = _sets(("x y", 3, 12), *((f"rare {k}", 2, 3) for k in range(50)))
    table = rising_phrases(phrases, years)
    assert table["phrase"].tolist() == ["x y"] and table["q"].iloc[0] == pytest.approx(table["p"].iloc[0])


def test_which_phrases_are_tested_does_not_depend_on_the_years():
    """Under the null the years are exchangeable: with the years permuted, the same
    phrases are tested and screened (each q is nan or not alike), whatever each draw
    counts in the latest year."""
    texts, years, _ = corpus()
    phrases = paper_phrases(texts)
    rng = np.random.default_rng(0)
    masks = []
    for _ in range(5):
        permuted = rng.permutation(years)
        vocabulary = sorted(set().union(*phrases))
        latest = np.array([sum(p in ps for ps, y in zip(phrases, permuted) if y == 2023) for p in vocabulary])
        total = np.array([sum(p in ps for ps in phrases) for p in vocabulary])
        _, least, q = phrase_tests(latest, total - latest, 100, 200)
        masks.append(~np.isnan(q))
        assert (least[total < 5] == 1).all()
    assert all((m == masks[0]).all() for m in masks) and masks[0].any() and not masks[0].all()


def test_author_keywords_count_as_phrases():
    assert keyword_phrases("Flow Matching; Diffusion,  Models") == ["flow matching", "diffusion", "models"]
    assert keyword_phrases(None) == [] and keyword_phrases("[]") == []
    phrases = paper_phrases(["a text"], ["Test-Time Scaling"])
    assert "test-time scaling" in phrases[0]


def test_phrase_sets_and_years_must_agree():
    with pytest.raises(ValueError, match="2 phrase sets for 3 years"):
        rising_phrases([set(), set()], [2020, 2021, 2022])


def test_phrases_authors_seldom_choose_as_keywords_are_left_out(tmp_path, monkeypatch):
    from topics.naming.keyphrases import ENVIRON, Keyphraseness

    counts = tmp_path / "counts.tsv.gz"  # "alignment": a keyword in 3 of the 100 papers that write it
    Keyphraseness({"alignment": 3, "diffusion model": 40}, {"alignment": 100, "diffusion model": 80}, 500).write(counts)
    monkeypatch.setenv(ENVIRON, str(counts))
    texts = ["alignment of diffusion models with flow matching"]
    assert {"alignment", "diffusion models", "flow matching"} <= paper_phrases(texts, min_keyphraseness=0.01)[0]
    kept = paper_phrases(texts, min_keyphraseness=0.05)[0]
    assert "alignment" not in kept
    assert {"diffusion models", "flow matching"} <= kept  # chosen by half the papers that write it; unknown


def _last_year_writes(spellings: list[tuple[int, str]]) -> tuple[list[str], np.ndarray]:
    """100 plain papers a year, 2021-2023; in 2023 the papers from each count of
    ``spellings`` ((up to paper i, text), in order) write that text instead."""
    texts, years = [], []
    for year in (2021, 2022, 2023):
        for i in range(100):
            text = next((t for upto, t in spellings if year == 2023 and i < upto), "we study learning")
            texts.append(f"{text} item{i}")
            years.append(year)
    return texts, np.array(years)


def test_an_acronym_and_the_phrase_its_papers_define_it_by_are_one_item():
    """Last year, 15 papers write "vision transformers (ViTs)" and 15 others only "ViT";
    the item is one, with all 30 papers, and neither spelling is listed alone."""
    texts, years = _last_year_writes([(15, "We train vision transformers (ViTs) on images."), (30, "Our ViT model is fast on images.")])
    table = rising_phrases(paper_phrases(texts), years)
    phrases = table["phrase"].tolist()
    assert phrases[0] == "vision transformers (ViTs)"
    assert table.iloc[0]["n_latest"] == 30 and table.iloc[0]["n_before"] == 0
    assert not {"vit", "vits", "vision transformers", "transformers"} & set(phrases)
    apart = rising_phrases(paper_phrases(texts, acronyms=False), np.array(years), single_words=True)["phrase"].tolist()
    assert "vision transformers (ViTs)" not in apart and {"vision transformers", "vit"} <= set(apart)


def test_only_acronyms_several_papers_define_alike_are_merged():
    from topics.stats.rising import defined_acronyms

    texts = ["Large language models (LLMs) reason."] * 3 + ["We use LLMs."]
    texts += ["The models struggle (MS) here."]  # one paper's definition
    texts += ["Optimal transport (OT) helps."] * 3 + ["Online training (OT) helps."] * 3  # two meanings, neither most
    assert defined_acronyms(texts) == {"LLMs": "large language models"}
    assert defined_acronyms(texts, min_papers=1)["MS"] == "models struggle"


def test_single_words_are_tested_but_only_phrases_are_listed():
    """"zorblax" (a made-up model name) rises as much as "flow matching" (30 papers of the last year, none
    before); by default only the phrase is listed."""
    texts, years, _ = corpus()
    texts = [t + (" zorblax" if y == 2023 and i % 100 < 30 else "") for i, (t, y) in enumerate(zip(texts, years))]
    listed = rising_phrases(paper_phrases(texts), years)["phrase"].tolist()
    assert "flow matching" in listed and "zorblax" not in listed
    every = rising_phrases(paper_phrases(texts), years, single_words=True)["phrase"].tolist()
    assert "zorblax" in every and "flow matching" in every


def test_an_acronym_item_is_read_as_the_phrase_index_reads_names():
    """The merged item counts a paper as a topic's name counts it
    (:class:`topics.naming.coverage.PhraseIndex`): "self supervised learning" without the
    hyphen uses "self-supervised learning (SSL)", and a paper that defines SSL as
    something else does not use it by writing "SSL"."""
    texts, years = _last_year_writes([
        (10, "We scale self-supervised learning (SSL) for images."),
        (20, "Self supervised learning of speech is cheap."),
        (22, "We study semi-supervised learning (SSL) where SSL uses few labels."),
    ])
    phrases = paper_phrases(texts)
    item = "self-supervised learning (SSL)"
    users = [i for i, p in enumerate(phrases) if item in p]
    assert users == list(range(200, 220))  # the ten that spell it without the hyphen too; not the two semi-
