"""One consensus run (a seeded UMAP layout read by HDBSCAN at several granularities), and
the runs spread over processes."""

import numpy as np
from sklearn.metrics import adjusted_rand_score

from tests.clustering.conftest import planted as _planted
from topics.clustering.consensus import ConsensusClusterer
from topics.clustering.neighbors import nearest_neighbors
from topics.clustering.runs import parallel_runs, readings


def test_readings_span_granularities_and_share_one_tree():
    from hdbscan import HDBSCAN

    from topics.clustering.runs import _read

    assert readings(22) == [(22, "eom"), (22, "leaf"), (15, "eom"), (33, "eom")]
    assert min(size for size, _ in readings(2)) == 2
    _, points = _planted(seed=4, n_groups=6, per_group=40, dim=3)
    shared = _read(points, 12, 4)
    for labels, (size, method) in zip(shared, readings(12)):  # the same labels as a fit per reading
        separate = HDBSCAN(min_cluster_size=size, min_samples=4, cluster_selection_method=method).fit(points).labels_
        np.testing.assert_array_equal(labels, separate)
    assert len({tuple(labels) for labels in shared}) > 1  # and the readings do differ


def test_parallel_runs_give_the_same_topics():
    _, points = _planted(seed=3, n_groups=4, per_group=50)
    kwargs = dict(n_runs=4, n_neighbors=10, min_cluster_size=10, random_state=2)
    one = ConsensusClusterer(n_jobs=1, **kwargs).fit(points)
    two = ConsensusClusterer(n_jobs=2, **kwargs).fit(points)
    np.testing.assert_array_equal(one.runs_, two.runs_)
    np.testing.assert_array_equal(one.labels_, two.labels_)


def test_one_run_is_four_readings_of_one_seeded_layout():
    truth, points = _planted(seed=3, n_groups=4, per_group=50)
    graph = nearest_neighbors(points, n_neighbors=10)
    settings = (10, 5, 200, 10, None)  # n_neighbors, n_components, n_epochs, min_cluster_size, min_samples
    [(labels, coords)] = parallel_runs(points, graph, settings, [7], n_jobs=1)
    assert labels.shape == (len(readings(10)), 200) and coords.shape == (200, 5) and coords.dtype == np.float32
    assert adjusted_rand_score(truth, labels[0]) > 0.9  # four well-separated groups are found
    again = parallel_runs(points, graph, settings, [7, 8], n_jobs=1)
    np.testing.assert_array_equal(again[0][0], labels)  # the same seed gives the same run ...
    np.testing.assert_array_equal(again[0][1], coords)
    assert not np.array_equal(again[1][1], coords)  # ... and another seed another layout
