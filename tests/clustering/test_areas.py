"""Areas over topics: Ward clustering of topic centroids, named from area-level c-TF-IDF."""

import numpy as np
import pytest

from topics.clustering.areas import area_rule, topic_areas


def _centroids():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=8), rng.normal(size=8)
    vectors = {t: a + 0.05 * rng.normal(size=8) for t in range(3)}
    vectors.update({t: b + 0.05 * rng.normal(size=8) for t in range(3, 5)})
    return {t: v / np.linalg.norm(v) for t, v in vectors.items()}


def test_area_rule():
    assert [area_rule(n) for n in (0, 1, 2, 5, 12, 40, 60)] == [0, 1, 1, 2, 5, 16, 24]


def test_topics_with_similar_centroids_share_an_area_numbered_by_size():
    sizes = {0: 10, 1: 10, 2: 10, 3: 50, 4: 40, -1: 7}
    areas = topic_areas({**_centroids(), -1: np.ones(8) / np.sqrt(8)}, sizes, n_areas=2)
    assert areas[-1] == -1
    assert areas[0] == areas[1] == areas[2] != areas[3] == areas[4]
    assert areas[3] == 0  # 90 papers against 30: the larger area comes first


def test_n_areas_bounds():
    sizes = dict.fromkeys(range(5), 1)
    assert set(topic_areas(_centroids(), sizes, n_areas=5).values()) == set(range(5))
    with pytest.raises(ValueError, match="n_areas"):
        topic_areas(_centroids(), sizes, n_areas=6)
