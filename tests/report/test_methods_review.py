"""The methods section says what this run did, per clustering method."""

from __future__ import annotations

import pytest

import topics
from topics.clustering.model import TopicModel
from topics.report.render import render_report
from tests.report.test_wording import visible_text
from tests.test_update import _embed, first_year, second_year, updated  # noqa: F401  (fixtures)


@pytest.fixture(scope="module")
def ward_analysis(sample_corpus):
    return topics.analyze(sample_corpus, embedder="hashing", model=TopicModel(method="ward", random_state=0), cache=False)


def test_the_methods_of_a_ward_fit_speak_of_no_consensus_outliers(ward_analysis):
    """Ward's hierarchy gives every paper a topic: the methods said "The consensus left
    0.0 % of papers without a topic; those whose nearest neighbours ... joined it", of a
    consensus that did not make the topics and outliers that never were."""
    assert ward_analysis.settings.params["method"] == "ward" and ward_analysis.settings.outlier_share == 0
    text = visible_text(render_report(ward_analysis))
    outliers = text[text.index("Outliers", text.index("Methods and caveats")):]
    outliers = outliers[:outliers.index("Confidence")]
    assert "consensus" not in outliers and "Ward's hierarchy gives every paper a topic" in outliers


def test_the_methods_of_a_consensus_fit_keep_its_outlier_sentence(sample_analysis):
    assert sample_analysis.settings.params["method"] == "consensus"
    text = visible_text(render_report(sample_analysis))
    assert "The consensus left" in text[text.index("Methods and caveats"):]


def _outliers_entry(analysis) -> str:
    text = visible_text(render_report(analysis))
    entry = text[text.index("Outliers", text.index("Methods and caveats")):]
    return " ".join(entry[:entry.index("Confidence")].split())


@pytest.mark.parametrize("method", ["ward", "consensus"])
def test_the_methods_of_an_update_count_the_added_papers_outliers(updated, sample_analysis, method):  # noqa: F811
    """After ``update`` the outliers include added papers that fit no topic (half of them,
    on ICLR 2024 papers added to a hashing fit of 2022-2023): the methods said the fit
    "left 1.2 % of papers without a topic; those whose nearest neighbours mostly agree on
    a topic joined it ..., leaving 19.5 % as outliers", more after the joining than before."""
    import dataclasses

    base = updated if method == "ward" else sample_analysis
    settings = dataclasses.replace(base.settings, outlier_share=0.195, update=updated.settings.update)
    analysis = dataclasses.replace(base, settings=settings)
    added = updated.settings.update["n_documents"]
    entry = _outliers_entry(analysis)
    assert "leaving" not in entry and ("consensus" in entry) == (method == "consensus")
    assert f"The {added} papers added later" in entry and "19.5 % of all papers are outliers" in entry
