"""Stable topic ids: an optimal one-to-one matching of two fits' topics, and relabelling."""

import numpy as np
import pytest

from topics.stats.alignment import align_topics, relabel


def test_renumbered_topics_are_matched_back():
    reference = np.array([0, 0, 0, 1, 1, 2, 2, 2, -1])
    other = np.array([5, 5, 5, 3, 3, 9, 9, 9, -1])  # the same topics, other ids
    table = align_topics(reference, other)
    assert dict(zip(table["topic"], table["match"])) == {0: 5, 1: 3, 2: 9}
    assert table["matched"].all() and (table["jaccard"] == 1).all()
    np.testing.assert_array_equal(relabel(other, table), reference)


def test_matching_is_one_to_one_and_optimal():
    from topics.stats.stability import match_topics

    reference = np.array([0] * 5 + [1] * 3)
    other = np.array([0, 0, 0, 0, 1] + [0, 0, 1])
    # alone, both reference topics match other topic 0 best (Jaccard 4/7 and 2/7);
    # one to one, topic 1 takes other topic 1 (1/4): 4/7 + 1/4 beats 1/6 + 2/7
    assert match_topics(reference, other)["match"].tolist() == [0, 0]
    table = align_topics(reference, other, min_jaccard=0.2).set_index("topic")
    assert table["match"].to_dict() == {0: 0, 1: 1}
    assert table.loc[0, "jaccard"] == pytest.approx(4 / 7) and table.loc[1, "jaccard"] == pytest.approx(1 / 4)


def test_unmatched_topics_are_listed_and_get_new_ids():
    reference = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    other = np.array([0, 0, 0, 0, 1, 1, 2, 2])  # topic 1 split in two halves
    table = align_topics(reference, other, min_jaccard=0.6)
    assert table.loc[table["topic"] == 1, "matched"].item() is False  # a half shares only 0.5
    assert ((table["topic"] == -1) & (table["match"] != -1)).sum() == 1  # the other half is left over
    np.testing.assert_array_equal(relabel(other, table), [0, 0, 0, 0, 2, 2, 3, 3])  # new ids after the largest


def test_centroids_decide_between_topics_that_share_no_paper():
    reference = np.array([0, 0, 1, 1, -1, -1])
    other = np.array([-1, -1, -1, -1, 7, 8])
    close = {0: np.array([1.0, 0.0]), 1: np.array([0.0, 1.0])}
    far = {7: np.array([0.1, 1.0]), 8: np.array([1.0, 0.1])}
    table = align_topics(reference, other, reference_centroids=close, other_centroids=far).set_index("topic")
    assert table.loc[0, "match"] == 8 and table.loc[1, "match"] == 7 and not table["matched"].any()


def test_errors():
    with pytest.raises(ValueError, match="different lengths"):
        align_topics([0, 1], [0])
    with pytest.raises(ValueError, match="min_jaccard"):
        align_topics([0], [0], min_jaccard=0)
