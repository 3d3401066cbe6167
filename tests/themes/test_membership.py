"""The membership rule of guided themes: phrases, acronyms, similarity to the positives, the cut."""

from __future__ import annotations

import math

import numpy as np
import pytest

from topics.naming.acronyms import document_definitions
from topics.text import singular_words
from topics.themes.membership import (
    MIN_POSITIVES, acronym_meanings, calibrate_cut, phrase_matches, phrase_pattern, theme_acronyms, theme_similarity,
)


def test_acronym_needs_two_papers_and_a_majority():
    ssl = ["We study self-supervised learning (SSL) for images.", "Self-supervised learning (SSL) without labels."]
    semi = ["Semi-supervised learning (SSL) with few labels.", "We revisit semi-supervised learning (SSL) on graphs."]
    assert theme_acronyms(ssl + semi[:1], ["self-supervised learning"]) == ["SSL"]
    assert theme_acronyms(ssl[:1] + semi, ["self-supervised learning"]) == []  # most papers mean another thing
    assert theme_acronyms(ssl[:1], ["self-supervised learning"]) == []  # one paper is not enough
    # plural short forms fold onto the singular; longer long forms that contain the phrase count
    dms = ["Diffusion models (DMs) generate images.", "A diffusion model (DM) for audio.",
           "Denoising diffusion models (DDMs) are slow.", "We speed up denoising diffusion models (DDMs)."]
    assert theme_acronyms(dms, ["diffusion models"]) == ["DDM", "DM"]


def test_theme_acronyms_count_the_definitions_the_naming_counts():
    """The themes read the one count of definitions (topics.naming.acronyms.definition_counts),
    folded: "DMs" and "DM" are one short form, "diffusion models" and "diffusion model" one
    long form."""
    from topics.naming.acronyms import definition_counts

    texts = ["Diffusion models (DMs) generate images.", "A diffusion model (DM) for audio.", "No acronym here."]
    counts = definition_counts(texts)
    assert counts == {("DMs", "diffusion models"): 1, ("DM", "diffusion model"): 1}
    assert acronym_meanings(texts) == {"DM": {"diffusion model": 2}}


def test_phrase_matching_ignores_case_hyphens_and_plurals():
    texts = ["Self-Supervised Learning at scale", "self supervised learnings", "supervised learning only",
             "A diffusion model for X", "Diffusion Models everywhere", "diffusion of models"]
    assert phrase_matches(texts, ["self-supervised learning"]).tolist() == [True, True, False, False, False, False]
    assert phrase_matches(texts, ["diffusion models"]).tolist() == [False, False, False, True, True, False]


def test_acronym_use_counts_unless_the_paper_defines_it_otherwise():
    texts = ["Our OT-based method", "OTTER is a robot", "We use SSL features", "semi-supervised learning (SSL) works"]
    defs = [document_definitions(t) for t in texts]
    hits = phrase_matches(texts, ["optimal transport"], acronyms=["OT"], definitions=defs)
    assert hits.tolist() == [True, False, False, False]
    hits = phrase_matches(texts, ["self-supervised learning"], acronyms=["SSL"], definitions=defs)
    assert hits.tolist() == [False, False, True, False]


def lee_liu_by_hand(s, pos):
    """r(t) from a normal with the positives' median and 1.4826 * MAD, written out."""
    values = sorted(x for x, p in zip(s, pos) if p)
    median = values[len(values) // 2] if len(values) % 2 else (values[len(values) // 2 - 1] + values[len(values) // 2]) / 2
    deviations = sorted(abs(x - median) for x in values)
    k = len(deviations)
    mad = deviations[k // 2] if k % 2 else (deviations[k // 2 - 1] + deviations[k // 2]) / 2
    sd = 1.4826 * mad
    best = None
    for t in sorted(set(s), reverse=True):
        r = 0.5 * math.erfc((t - median) / (sd * math.sqrt(2)))
        value = r * r / (sum(x >= t for x in s) / len(s))
        if best is None or value > best[0]:
            best = (value, t)
    return best[1]


def test_cut_maximises_lee_liu_criterion():
    s = [0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.3, 0.2, 0.1, 0.05]
    pos = [True, True, True, True, False, False, False, False, False, False]
    # positives: median 0.825, MAD 0.05, sd 0.074; r^2 / P(s >= t) is 1.78 at 0.75 (the
    # lowest positive), 1.82 at 0.70, 1.64 at 0.65: the cut reaches one paper below the
    # positives and stops before the gap
    assert lee_liu_by_hand(s, pos) == pytest.approx(0.7)
    assert calibrate_cut(np.array(s), np.array(pos)) == pytest.approx(0.7)
    # a tie is never split: the cut keeps or drops both papers at 0.7
    s_tie = [0.9, 0.85, 0.8, 0.75, 0.7, 0.7, 0.3, 0.2, 0.1, 0.05]
    assert calibrate_cut(np.array(s_tie), np.array(pos)) == pytest.approx(lee_liu_by_hand(s_tie, pos))


def test_cut_needs_enough_positives():
    s = np.linspace(1, 0, 10)
    pos = np.zeros(10, bool)
    pos[:MIN_POSITIVES - 1] = True
    assert math.isnan(calibrate_cut(s, pos))


def test_phrase_pattern_meets_singular_and_plural_both_ways():
    def found(phrase, text):
        return phrase_pattern(phrase).search(singular_words(text)) is not None

    assert found("diffusion model", "Diffusion-Models are everywhere")
    assert found("diffusion models", "a latent diffusion model")
    assert found("studies", "a user study of notebooks")
    assert found("case study", "two case studies")
    assert found("Schrödinger bridge", "schrodinger bridges")  # accents folded too
    assert not found("transport", "transportation networks")  # whole words only
    assert not found("diffusion model", "diffusion of models")
    with pytest.raises(ValueError, match="no letters or digits"):
        phrase_pattern(" -- ")


def test_theme_similarity_leaves_each_positive_out_of_its_own_mean():
    e = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0]]) / np.array([[1], [1], [np.sqrt(2)], [1]])
    positive = np.array([True, True, False, False])
    sims = theme_similarity(e, positive)
    # the others against the mean of both positives, (1, 1) / sqrt(2); each positive against the other one
    assert sims.tolist() == pytest.approx([0.0, 0.0, 1.0, -1 / np.sqrt(2)])
    lone = theme_similarity(e, np.array([True, False, False, False]))
    assert math.isnan(lone[0]) and lone[3] == pytest.approx(-1.0)  # nothing else to compare the positive with
    # a query vector joins the positives' sum: the lone positive now has something to compare with
    with_query = theme_similarity(e, np.array([True, False, False, False]), queries=np.array([[0.0, 1.0]]))
    assert with_query[0] == pytest.approx(0.0) and with_query[2] == pytest.approx(1.0)
