"""Exact neighbours, landmarks, and a consensus fitted on landmarks."""

import numpy as np
import pytest
from sklearn.metrics import homogeneity_score

from topics.clustering.consensus import ConsensusClusterer, extend_labels
from topics.clustering.runs import readings
from topics.clustering.layout import map_coordinates
from topics.clustering.neighbors import choose_landmarks, landmark_graph, nearest_neighbors, spread, vote


def _planted(seed=0, n_groups=5, per_group=80, dim=16):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_groups, dim)) * 4
    truth = np.repeat(np.arange(n_groups), per_group)
    points = centres[truth] + rng.normal(size=(len(truth), dim))
    return truth, (points / np.linalg.norm(points, axis=1, keepdims=True)).astype(np.float32)


def test_neighbours_among_other_rows_are_exact():
    rng = np.random.default_rng(0)
    queries, base = rng.normal(size=(30, 6)), rng.normal(size=(2_100, 6))  # more than one block of queries' partners
    idx, dist = nearest_neighbors(queries, n_neighbors=4, among=base)
    unit = lambda x: x / np.linalg.norm(x, axis=1, keepdims=True)  # noqa: E731
    full = 1 - unit(queries) @ unit(base).T
    np.testing.assert_array_equal(idx, np.argsort(full, axis=1, kind="stable")[:, :4])
    np.testing.assert_allclose(dist, np.take_along_axis(full, idx, axis=1), atol=1e-5)
    with pytest.raises(ValueError, match="dimensions"):
        nearest_neighbors(queries, n_neighbors=2, among=base[:, :5])


def test_landmark_graph_points_only_at_landmarks():
    _, points = _planted(n_groups=3, per_group=30)
    landmarks = choose_landmarks(len(points), 40, random_state=1)
    assert len(np.unique(landmarks)) == 40 and (np.diff(landmarks) > 0).all()
    np.testing.assert_array_equal(landmarks, choose_landmarks(len(points), 40, random_state=1))
    idx, dist = landmark_graph(points, landmarks, n_neighbors=5)
    assert idx.shape == (90, 5) and np.isin(idx, landmarks).all()
    assert (idx[landmarks, 0] == landmarks).all() and np.allclose(dist[landmarks, 0], 0, atol=1e-5)
    with pytest.raises(ValueError, match="n_landmarks"):
        choose_landmarks(10, 11)


def test_vote_and_spread_by_hand():
    labels = np.array([0, 0, 1, -1, -1, -1])
    neighbors = np.array([[0, 1, 2], [1, 0, 2], [2, 0, 1], [0, 1, 2], [2, 3, 0], [3, 4, 0]])
    distances = np.array([[0, .1, .9], [0, .1, .9], [0, .5, .5], [.1, .2, .3], [.1, .2, .8], [.1, .1, .1]])
    # paper 3: topic 0 gets 0.9 + 0.8, topic 1 0.7; paper 4: topic 1 0.9, -1 0.8, topic 0 0.2; paper 5: -1 wins
    assert vote(labels, neighbors, distances, np.array([3, 4, 5])).tolist() == [0, 1, -1]
    coords = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 4.0], [0, 0], [0, 0], [0, 0]])
    expected = (0.9 * coords[0] + 0.8 * coords[1] + 0.7 * coords[2]) / 2.4
    np.testing.assert_allclose(spread(coords, neighbors, distances, np.array([3]))[0], expected)


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


def test_topics_fitted_on_landmarks_label_every_paper():
    from tests.conftest import make_theme_corpus

    from topics.clustering.model import TopicModel
    from topics.embedding.backends import HashingEmbedder

    corpus = make_theme_corpus(n_per_theme=50)
    truth = corpus["theme"].to_numpy()
    embeddings = HashingEmbedder().encode(corpus["abstract"].tolist())
    kwargs = dict(n_runs=3, random_state=0, n_jobs=1)
    fit = TopicModel(n_landmarks=120, **kwargs).fit(corpus, embeddings)
    assert len(fit.landmarks_) == 120 and fit.runs_.shape == (12, len(corpus))
    assert fit.params_["min_cluster_size"] == TopicModel(**kwargs)._resolve_params(120)["min_cluster_size"]
    assert fit.labels_.shape == fit.confidence_.shape == truth.shape
    assert fit.reduced_embeddings_.shape == (len(corpus), 5) and np.isfinite(fit.reduced_embeddings_).all()
    assert np.isin(fit.neighbors_[0], fit.landmarks_).all()
    rest = np.setdiff1d(np.arange(len(corpus)), fit.landmarks_)
    # 120 landmarks give a small-corpus size rule, so themes split into several topics; but
    # no topic mixes themes, and the papers never clustered join topics of their own theme
    assert (fit.labels_[rest] != -1).mean() > 0.9
    assert homogeneity_score(truth[rest], fit.labels_[rest]) > 0.95
    whole = TopicModel(n_landmarks=None, **kwargs).fit(corpus, embeddings)
    assert whole.landmarks_ is None and len(whole.runs_[0]) == len(corpus)
    # names come from the landmarks' texts; merging renumbers every paper, landmark or not
    first, second = [t for t in fit.topics if t != -1][:2]
    merged = fit.merge([first, second])
    assert (merged.labels_[np.isin(fit.labels_, [first, second])] == merged.labels_[fit.labels_ == first][0]).all()
    assert len(merged.topic_names_) == len(fit.topic_names_) - 1


def test_parallel_runs_give_the_same_topics():
    _, points = _planted(seed=3, n_groups=4, per_group=50)
    kwargs = dict(n_runs=4, n_neighbors=10, min_cluster_size=10, random_state=2)
    one = ConsensusClusterer(n_jobs=1, **kwargs).fit(points)
    two = ConsensusClusterer(n_jobs=2, **kwargs).fit(points)
    np.testing.assert_array_equal(one.runs_, two.runs_)
    np.testing.assert_array_equal(one.labels_, two.labels_)


def test_map_of_landmarks_places_the_rest_among_them():
    truth, points = _planted(n_groups=3, per_group=60)
    landmarks = choose_landmarks(len(points), 90, random_state=0)
    graph = landmark_graph(points, landmarks, n_neighbors=11)
    coords = map_coordinates(points, n_neighbors=10, random_state=0, neighbors=graph, landmarks=landmarks)
    assert coords.shape == (180, 2) and np.isfinite(coords).all()
    rest = np.setdiff1d(np.arange(180), landmarks)
    # each placed paper lies nearer its own group's landmark centre than any other group's
    centres = np.array([coords[landmarks][truth[landmarks] == g].mean(axis=0) for g in range(3)])
    nearest = np.linalg.norm(coords[rest, None] - centres[None], axis=2).argmin(axis=1)
    assert (nearest == truth[rest]).mean() > 0.95
    with pytest.raises(ValueError, match="landmarks"):
        map_coordinates(points, landmarks=landmarks)


def test_identical_rows_are_neighbours_in_order_of_position():
    rng = np.random.default_rng(0)
    points = rng.normal(size=(3, 384)).astype(np.float32)[[0, 1, 1, 2, 0, 1, 1, 1, 1]]  # rows 1, 2, 5-8 are one point
    idx, dist = nearest_neighbors(points, n_neighbors=3)
    assert idx[1].tolist() == [1, 2, 5] and idx[8].tolist() == [1, 2, 5]  # ties: smallest positions, as a stable sort
    assert idx[0].tolist()[:2] == [0, 4] and np.allclose(dist[:, 0], 0, atol=1e-6)


def test_vote_keeps_the_labels_dtype_and_many_labellings():
    neighbors = np.array([[0, 1, 2], [1, 0, 2]])
    distances = np.zeros((2, 3), dtype=np.float32)
    for dtype in (np.int8, np.int32, np.int64, np.uint8):
        assert vote(np.array([0, 1, 1], dtype=dtype), neighbors, distances, [0, 1]).tolist() == [1, 1]
    many = vote(np.array([[0, 1, 1], [2, 2, 0], [-1, 3, -1]]), neighbors, distances, [0, 1])
    assert many.tolist() == [[1, 1], [2, 2], [-1, -1]]
