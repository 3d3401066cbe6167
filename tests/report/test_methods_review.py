"""The methods section says what this run did, per clustering method."""

from __future__ import annotations

import pytest

import topics
from topics.clustering.model import TopicModel
from topics.report.render import render_report
from tests.report.test_wording import visible_text


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
