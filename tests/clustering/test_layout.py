"""The 2-D topic map: UMAP on the model's exact neighbour graph, and on landmarks."""

import numpy as np
import pytest

from tests.clustering.conftest import planted as _planted
from topics.clustering.layout import map_coordinates
from topics.clustering.model import TopicModel
from topics.clustering.neighbors import choose_landmarks, landmark_graph, nearest_neighbors


def test_map_reuses_the_model_graph(theme_corpus, theme_embeddings):
    from topics.clustering.neighbors import nearest_neighbors
    from topics.clustering.layout import map_coordinates

    model = TopicModel(random_state=0).fit(theme_corpus, theme_embeddings)
    k = model.params_["n_neighbors"]
    # one exact graph with each document first and k neighbours after it, shared with the map
    assert model.neighbors_[0].shape == (len(theme_corpus), k + 1)
    np.testing.assert_array_equal(model.neighbors_[0], nearest_neighbors(theme_embeddings, n_neighbors=k + 1)[0])
    shared = map_coordinates(theme_embeddings, n_neighbors=k, random_state=0, neighbors=model.neighbors_)
    again = map_coordinates(theme_embeddings, n_neighbors=k, random_state=0, neighbors=nearest_neighbors(theme_embeddings, n_neighbors=k))
    assert shared.shape == (len(theme_corpus), 2) and np.isfinite(shared).all()
    np.testing.assert_array_equal(shared, again)  # the same exact graph either way
    with pytest.raises(ValueError, match="at least"):
        map_coordinates(theme_embeddings, n_neighbors=k, neighbors=tuple(a[:, :2] for a in model.neighbors_))


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


def test_map_seed_defaults_to_zero_and_bad_graphs_are_named(theme_embeddings):
    n = len(theme_embeddings)
    plain = map_coordinates(theme_embeddings, n_neighbors=5)  # the seed is an int, resolved once by analyze
    assert plain.shape == (n, 2) and plain.dtype == np.float32
    np.testing.assert_array_equal(plain, map_coordinates(theme_embeddings, n_neighbors=5, random_state=0))
    graph = nearest_neighbors(theme_embeddings, n_neighbors=6)
    with pytest.raises(ValueError, match=f"neighbors must have {n - 1} rows and at least 5 columns"):
        map_coordinates(theme_embeddings[:-1], n_neighbors=5, neighbors=graph)
    # a graph over all papers is not a landmark graph: the landmarks' neighbours include the rest
    with pytest.raises(ValueError, match="neighbours must be landmarks"):
        map_coordinates(theme_embeddings, n_neighbors=5, neighbors=graph, landmarks=np.arange(0, n, 2))
