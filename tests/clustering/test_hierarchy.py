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
