"""Consensus topics from several runs: co-association, Leiden partition, outlier votes, confidence."""

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from topics.clustering.consensus import (
    ConsensusClusterer, assign_outliers, coassociation, extend_labels, membership_confidence, partition_graph, run_seeds,
)
from topics.clustering.neighbors import nearest_neighbors


def test_coassociation_by_hand():
    # 4 documents; each lists itself and one neighbour
    neighbors = np.array([[0, 1], [1, 0], [2, 3], [3, 2]])
    runs = [np.array([0, 0, 1, 1]), np.array([0, 1, 1, -1]), np.array([5, 5, 5, 5])]
    w = coassociation(runs, neighbors).toarray()
    # 0-1 together in runs 1 and 3; 2-3 together in runs 1 and 3 (run 2 has 3 as an outlier)
    assert w[0, 1] == w[1, 0] == pytest.approx(2 / 3)
    assert w[2, 3] == w[3, 2] == pytest.approx(2 / 3)
    assert w[0, 2] == 0 and np.all(np.diag(w) == 0)  # not neighbours; no self-edges


def test_run_seeds_are_disjoint_between_random_states():
    assert run_seeds(0, 5) == [0, 1, 2, 3, 4]
    assert run_seeds(1, 5) == [5, 6, 7, 8, 9]
    assert not set(run_seeds(2, 5)) & set(run_seeds(3, 5))
    with pytest.raises(ValueError, match="n_runs"):
        run_seeds(0, 0)


def _planted(seed=0, n_groups=6, per_group=60):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_groups, 16)) * 4
    truth = np.repeat(np.arange(n_groups), per_group)
    points = centres[truth] + rng.normal(size=(len(truth), 16))
    return truth, points / np.linalg.norm(points, axis=1, keepdims=True)


def _noisy_run(truth, rng):
    """One run's labels: 10 % outliers, 5 % of papers in a random group, one group split
    in half, and two other groups merged -- the ways real runs disagree."""
    labels = truth.copy()
    groups = rng.permutation(truth.max() + 1)
    split = np.flatnonzero(truth == groups[0])
    labels[split[: len(split) // 2]] = truth.max() + 1
    labels[truth == groups[1]] = groups[2]
    wrong = rng.random(len(truth)) < 0.05
    labels[wrong] = rng.integers(0, truth.max() + 1, wrong.sum())
    labels[rng.random(len(truth)) < 0.10] = -1
    return labels


def test_a_planted_structure_is_recovered_from_noisy_runs():
    truth, points = _planted()
    neighbors, distances = nearest_neighbors(points, n_neighbors=16)
    rng = np.random.default_rng(1)
    runs = [_noisy_run(truth, rng) for _ in range(5)]
    single = np.mean([adjusted_rand_score(truth, r) for r in runs])
    core = partition_graph(coassociation(runs, neighbors), min_size=10, random_state=0)
    labels = assign_outliers(core, neighbors, distances)
    assert single < 0.8  # each run alone is far off ...
    assert adjusted_rand_score(truth, labels) > 0.95  # ... their consensus is not
    assert (labels == -1).mean() < 0.02
    conf = membership_confidence(labels, runs)
    assert conf.shape == truth.shape and conf.min() >= 0 and conf.max() <= 1
    # papers of a group some runs split or merged land in their topic less often
    assert conf.mean() > 0.5


def test_partition_is_deterministic_and_drops_small_groups():
    truth, points = _planted(seed=2, n_groups=3, per_group=40)
    neighbors, _ = nearest_neighbors(points, n_neighbors=10)
    graph = coassociation([truth, truth], neighbors)
    a = partition_graph(graph, min_size=5, random_state=0)
    np.testing.assert_array_equal(a, partition_graph(graph, min_size=5, random_state=0))
    assert adjusted_rand_score(truth, a) == pytest.approx(1.0)
    assert (np.bincount(a[a >= 0]) == 40).all()  # numbered by size, all kept
    assert (partition_graph(graph, min_size=41, random_state=0) == -1).all()


def test_assign_outliers_by_hand():
    # document 2 is an outlier: neighbours 0 and 1 (topic 0, similarity 0.9 and 0.8) and 3 (topic 1, 0.1)
    labels = np.array([0, 0, -1, 1])
    neighbors = np.array([[0, 1, 2], [1, 0, 2], [2, 0, 1], [3, 2, 0]])
    neighbors = np.column_stack([neighbors, [3, 3, 3, 1]])
    distances = np.array([[0, .1, .2, .9], [0, .1, .2, .9], [0, .1, .2, .9], [0, .5, .5, .5]])
    out = assign_outliers(labels, neighbors, distances)
    assert out.tolist() == [0, 0, 0, 1]
    # votes 0.9 + 0.8 of 1.8 for topic 0 = 94 %: below a 95 % bar the paper stays an outlier
    assert assign_outliers(labels, neighbors, distances, min_share=0.95).tolist() == [0, 0, -1, 1]
    with pytest.raises(ValueError, match="min_share"):
        assign_outliers(labels, neighbors, distances, min_share=1.5)


def test_confidence_by_hand():
    labels = np.array([0, 0, 0, 1, 1, -1])
    runs = [
        np.array([7, 7, 7, 8, 8, -1]),  # every paper where it belongs
        np.array([7, 7, 8, 8, 8, 8]),   # paper 2 in topic 1's cluster; paper 5 in a cluster
        np.array([-1, 7, 7, 8, 8, -1]),  # paper 0 an outlier in this run
    ]
    conf = membership_confidence(labels, runs)
    assert conf.tolist() == pytest.approx([2 / 3, 1, 2 / 3, 1, 1, 2 / 3])


def test_leiden_keeps_the_best_of_its_starts():
    import igraph
    import scipy.sparse as sp

    truth, points = _planted(seed=5, n_groups=8, per_group=30)
    neighbors, _ = nearest_neighbors(points, n_neighbors=8)
    rng = np.random.default_rng(0)
    graph = coassociation([_noisy_run(truth, rng) for _ in range(4)], neighbors)
    upper = sp.triu(graph, k=1).tocoo()
    g = igraph.Graph(n=graph.shape[0], edges=np.column_stack([upper.row, upper.col]).tolist())

    def modularity(labels):
        return g.modularity(labels.tolist(), weights=upper.data.tolist())

    # random state 3 with ten starts uses Leiden seeds 30-39, each alone a one-start partition
    singles = [modularity(partition_graph(graph, random_state=s, restarts=1)) for s in range(30, 40)]
    assert modularity(partition_graph(graph, random_state=3, restarts=10)) == pytest.approx(max(singles))
    with pytest.raises(ValueError, match="restarts"):
        partition_graph(graph, restarts=0)


def test_a_graph_without_edges_has_no_topics():
    # every run left every paper as noise: nothing was ever together
    import scipy.sparse as sp

    empty = sp.csr_matrix((5, 5))
    assert partition_graph(empty).tolist() == [0, 1, 2, 3, 4]  # each paper alone
    assert (partition_graph(empty, min_size=2) == -1).all()


def test_extend_labels_by_hand():
    # papers 0-2 are landmarks (topics 0, 0, 1); paper 3 sits by 0 and 1, paper 4 by 2 only
    landmarks = np.array([0, 1, 2])
    indices = np.array([[0, 1], [1, 0], [2, 1], [0, 1], [2, 0]])
    distances = np.array([[0, .2], [0, .2], [0, .9], [.1, .1], [.1, .9]])
    assert extend_labels(np.array([0, 0, 1]), landmarks, (indices, distances)).tolist() == [0, 0, 1, 0, 1]
    # with a share rule: paper 4's votes are 0.9 for topic 1 and 0.1 for topic 0
    assert extend_labels(np.array([0, 0, 1]), landmarks, (indices, distances), min_share=0.95).tolist() == [0, 0, 1, 0, -1]
    # several labellings at once: each as if extended alone; paper 3's tie (0.9 each) goes to the smaller label
    runs = np.array([[0, 0, 1], [5, 2, 2], [-1, 3, 3]])
    together = extend_labels(runs, landmarks, (indices, distances))
    assert together.tolist() == [extend_labels(r, landmarks, (indices, distances)).tolist() for r in runs]
    assert together[1].tolist() == [5, 2, 2, 2, 2] and together[2].tolist() == [-1, 3, 3, -1, 3]


def test_extended_runs_keep_their_small_integers():
    # the runs' clusterings are int32 (half the memory of a 207k corpus's 160 rows);
    # extending them from the landmarks must not widen them back to int64
    landmarks = np.array([0, 1, 2])
    indices = np.array([[0, 1], [1, 0], [2, 1], [0, 1], [2, 0]])
    distances = np.array([[0, .2], [0, .2], [0, .9], [.1, .1], [.1, .9]])
    runs = np.array([[0, 0, 1], [5, 2, 2]], dtype=np.int32)
    together = extend_labels(runs, landmarks, (indices, distances))
    assert together.dtype == np.int32
    assert together.tolist() == extend_labels(runs.astype(np.int64), landmarks, (indices, distances)).tolist()


def test_the_runs_log_one_line_not_one_per_run(caplog):
    """`make report` printed 40 INFO lines "run with seed N" per consensus: now one line at
    INFO (a progress bar shows the runs), the runs at DEBUG."""
    import logging

    truth, points = _planted(seed=1, n_groups=3, per_group=30)
    with caplog.at_level(logging.INFO, logger="topics"):
        ConsensusClusterer(n_runs=4, n_epochs=20, n_neighbors=10, min_cluster_size=10, random_state=0, n_jobs=1).fit(points)
    lines = [r.getMessage() for r in caplog.records if r.name == "topics.clustering.consensus" and r.levelno == logging.INFO]
    assert len(lines) == 1 and lines[0].startswith("4 runs: ")
    assert not any("run with seed" in r.getMessage() for r in caplog.records if r.levelno >= logging.INFO)


def test_a_neighbour_pool_gives_each_run_its_own_graph_and_repeatable_topics():
    """Issue 40: with ``neighbor_pool`` each run's UMAP sees neighbours drawn by its seed, so
    the runs differ from the exact graph's; the same seed gives the same runs and topics (in
    one process or two), and the co-association and outliers stay on the exact graph."""
    truth, points = _planted(seed=5, n_groups=4, per_group=50)
    kwargs = dict(n_runs=3, n_neighbors=10, min_cluster_size=10, random_state=1)
    pooled = ConsensusClusterer(neighbor_pool=16, n_jobs=1, **kwargs).fit(points)
    again = ConsensusClusterer(neighbor_pool=16, n_jobs=2, **kwargs).fit(points)
    exact = ConsensusClusterer(n_jobs=1, **kwargs).fit(points)
    np.testing.assert_array_equal(pooled.runs_, again.runs_)
    np.testing.assert_array_equal(pooled.labels_, again.labels_)
    assert not np.array_equal(pooled.reduced_embeddings_, exact.reduced_embeddings_)  # the draw reached UMAP
    graph = nearest_neighbors(points, n_neighbors=11)
    np.testing.assert_array_equal(pooled.neighbors_[0], graph[0])  # the exact graph for what follows the runs
    assert adjusted_rand_score(truth, pooled.labels_) > 0.9
    short = (graph[0][:, :11], graph[1][:, :11])  # too few columns for the pool: computed again
    np.testing.assert_array_equal(ConsensusClusterer(neighbor_pool=16, neighbors=short, n_jobs=1, **kwargs).fit(points).runs_,
                                  pooled.runs_)
