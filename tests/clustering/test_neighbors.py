"""Exact neighbours, landmarks, and reading labels and values through a neighbour graph."""

import numpy as np
import pytest

from tests.clustering.conftest import planted as _planted
from topics.clustering.neighbors import (
    choose_landmarks, landmark_graph, landmark_step, nearest_neighbors, place_values, resolve_seed, spread, vote,
)


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


def test_nearest_neighbors_are_exact_and_self_first():
    from topics.clustering.neighbors import nearest_neighbors

    rng = np.random.default_rng(3)
    x = rng.normal(size=(60, 8)).astype(np.float32)
    idx, dist = nearest_neighbors(x, n_neighbors=6)
    assert idx.shape == dist.shape == (60, 6) and idx.dtype == np.int32 and dist.dtype == np.float32
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    full = 1 - unit @ unit.T
    np.testing.assert_array_equal(idx, np.argsort(full, axis=1, kind="stable")[:, :6])
    np.testing.assert_allclose(dist, np.take_along_axis(full, idx, axis=1), atol=1e-5)
    assert (idx[:, 0] == np.arange(60)).all() and np.allclose(dist[:, 0], 0, atol=1e-6)
    with pytest.raises(ValueError, match="n_neighbors"):
        nearest_neighbors(x, n_neighbors=61)


def test_resolve_seed_makes_none_zero():
    assert resolve_seed(None) == 0
    assert resolve_seed(5) == 5
    assert resolve_seed(np.int64(7)) == 7 and type(resolve_seed(np.int64(7))) is int


def test_landmark_step_only_for_corpora_larger_than_the_landmarks():
    _, points = _planted(n_groups=3, per_group=30)  # 90 papers
    assert landmark_step(points, None, n_neighbors=5) == (None, None)
    assert landmark_step(points, 90, n_neighbors=5) == (None, None)  # every paper would be a landmark
    assert landmark_step(points, 200, n_neighbors=5) == (None, None)
    landmarks, (idx, dist) = landmark_step(points, 40, n_neighbors=5, random_state=3)
    assert len(landmarks) == 40 and len(np.unique(landmarks)) == 40 and (np.diff(landmarks) > 0).all()
    assert idx.shape == dist.shape == (90, 5) and np.isin(idx, landmarks).all()  # only landmarks are neighbours
    assert (idx[landmarks, 0] == landmarks).all()  # a landmark's row starts with itself
    again, (idx_again, _) = landmark_step(points, 40, n_neighbors=5, random_state=3)
    np.testing.assert_array_equal(again, landmarks)
    np.testing.assert_array_equal(idx_again, idx)
    default_seed, _ = landmark_step(points, 40, n_neighbors=5)  # 0, the seed resolve_seed makes of None
    np.testing.assert_array_equal(default_seed, landmark_step(points, 40, n_neighbors=5, random_state=0)[0])
    assert not np.array_equal(default_seed, landmarks)  # another seed, another sample


def test_place_values_takes_the_values_of_the_nearest_rows():
    among = np.eye(4, dtype=np.float32)
    values = np.arange(8, dtype=np.float64).reshape(4, 2)
    placed = place_values(values, among, np.array([[0, 0, 2, 0.01], [1, 0, 0, 0]], dtype=np.float32), n_neighbors=1)
    np.testing.assert_array_equal(placed, values[[2, 0]])
    assert placed.dtype == values.dtype
    mean = place_values(values, among, np.array([[1, 1, 0, 0]], dtype=np.float32), n_neighbors=2)
    np.testing.assert_allclose(mean, [values[:2].mean(axis=0)])  # equally near: the plain mean


def test_each_run_draws_its_own_neighbours_from_the_pool():
    """Issue 40: a consensus run may see ``k - 1`` of each paper's ``pool`` nearest, drawn by
    its seed: two runs see different lists, the same seed the same one."""
    from topics.clustering.neighbors import drawn_neighbors

    _, points = _planted(seed=2, n_groups=3, per_group=40)
    indices, distances = nearest_neighbors(points, n_neighbors=21)
    one, again, other = (drawn_neighbors((indices, distances), 15, 20, seed) for seed in (3, 3, 4))
    assert one[0].shape == one[1].shape == (len(points), 15)
    np.testing.assert_array_equal(one[0], again[0])  # the same seed draws the same neighbours
    np.testing.assert_array_equal(one[1], again[1])
    assert (one[0] != other[0]).any(axis=1).mean() > 0.9  # another run's seed, other neighbours for nearly every paper
    np.testing.assert_array_equal(one[0][:, 0], indices[:, 0])  # each paper first, as in the exact graph
    for row, pool, dist in zip(one[0], indices, one[1]):
        assert set(row[1:]) <= set(pool[1:21]) and len(set(row[1:])) == 14  # 14 distinct of its 20 nearest others
        assert np.all(np.diff(dist) >= 0)  # nearest first
    drawn = np.stack([drawn_neighbors((indices, distances), 15, 20, seed)[0] for seed in range(40)])
    slots = np.array([(indices[:, 1:21, None] == run[:, None, 1:]).any(axis=2).mean(axis=0) for run in drawn])
    assert np.abs(slots.mean(axis=0) - 14 / 20).max() < 0.05  # every slot of the pool equally likely
    np.testing.assert_array_equal(drawn_neighbors((indices, distances), 15, 14, 5)[0], indices[:, :15])  # all: exact
    with pytest.raises(ValueError, match="draw"):
        drawn_neighbors((indices, distances), 15, 21, 0)  # the graph has only 20 others
