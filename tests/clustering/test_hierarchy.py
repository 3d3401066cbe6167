"""Ward's hierarchy for small corpora."""

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from topics.clustering.hierarchy import FixedClusterer, ward_topics


def planted(n_themes=3, per=12, dim=16, spread=0.15, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_themes, dim))
    x = np.concatenate([c + spread * rng.normal(size=(per, dim)) for c in centres])
    return x, np.repeat(np.arange(n_themes), per)


def test_planted_themes_come_out_as_separate_topics_and_are_not_cut_further():
    x, truth = planted()
    labels = ward_topics(x, min_cluster_size=4)
    assert adjusted_rand_score(truth, labels) == 1.0  # three themes, each whole, though each could be split


def test_no_topic_is_smaller_than_the_smallest_topic_asked_for():
    x = np.random.default_rng(1).normal(size=(60, 8))
    labels = ward_topics(x, min_cluster_size=5)
    assert np.bincount(labels).min() >= 5
    assert (np.diff(np.bincount(labels)) <= 0).all()  # numbered largest first


def test_fixed_clusterer_hands_back_its_labels():
    c = FixedClusterer(np.array([1, 0, 1]), min_cluster_size=2).fit(np.zeros((3, 2)))
    assert c.labels_.tolist() == [1, 0, 1] and c.core_labels_.tolist() == [1, 0, 1]
    with pytest.raises(ValueError, match="3 labels for 2"):
        FixedClusterer(np.array([1, 0, 1])).fit(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="2-D"):
        ward_topics(np.zeros(3), min_cluster_size=2)


def test_a_few_papers_unlike_the_rest_do_not_make_the_cut_stop_at_two_topics():
    """Four diffuse themes and five papers far from all of them: the silhouette is highest
    for "those five against the rest"; asked to keep every topic under half the papers,
    the cut goes on to the themes."""
    rng = np.random.default_rng(1)
    centres = rng.normal(size=(4, 16))
    themes = [c + 1.0 * rng.normal(size=(12, 16)) for c in centres]
    x = np.concatenate(themes + [-3 * np.ones(16) + 0.2 * rng.normal(size=(5, 16))])
    truth = np.repeat(np.arange(5), [12, 12, 12, 12, 5])
    plain = ward_topics(x, min_cluster_size=4)
    capped = ward_topics(x, min_cluster_size=4, max_share=0.5)
    assert np.bincount(plain).max() > len(x) / 2  # the lopsided first split
    assert np.bincount(capped).max() <= len(x) / 2
    assert adjusted_rand_score(truth, capped) > adjusted_rand_score(truth, plain) + 0.2
    # where no partition keeps every group under the share, the best of all is kept
    lone = ward_topics(x[:20], min_cluster_size=15, max_share=0.5)
    assert (lone == 0).all()
    with pytest.raises(ValueError, match="max_share"):
        ward_topics(x, min_cluster_size=4, max_share=0)


def test_areas_come_from_the_same_hierarchy_and_hold_each_topic_whole():
    """Two fields of two themes each: four topics, and the two areas are the fields."""
    from topics.clustering.hierarchy import ward_areas

    rng = np.random.default_rng(2)
    fields = 4 * rng.normal(size=(2, 16))
    centres = np.concatenate([f + 1.0 * rng.normal(size=(2, 16)) for f in fields])
    x = np.concatenate([c + 0.15 * rng.normal(size=(10, 16)) for c in centres])
    themes, field = np.repeat(np.arange(4), 10), np.repeat([0, 0, 1, 1], 10)
    topics = ward_topics(x, min_cluster_size=4, max_share=0.5)
    assert adjusted_rand_score(themes, topics) == 1.0
    areas = ward_areas(x, topics, min_cluster_size=4, n_areas=2)
    assert set(areas) == set(topics.tolist()) and sorted(set(areas.values())) == [0, 1]
    assert adjusted_rand_score(field, [areas[t] for t in topics]) == 1.0
