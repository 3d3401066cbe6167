import numpy as np
import pytest

from topics.clustering.model import TopicModel
from topics.clustering.neighbors import nearest_neighbors
from topics.clustering.order import canonical_order, graph_to_rows, take_graph, to_rows
from tests.conftest import make_theme_corpus
from topics.embedding.backends import HashingEmbedder
from topics.text import clean_for_terms


def test_the_canonical_order_follows_the_content_not_the_rows():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 8)).astype(np.float32)
    texts = [f"paper {i}" for i in range(50)]
    perm = rng.permutation(50)
    order = canonical_order(x, texts)
    shuffled = canonical_order(x[perm], [texts[i] for i in perm])
    assert np.array_equal(perm[shuffled], order)


def test_identical_texts_are_told_apart_by_their_embeddings():
    x = np.eye(4, dtype=np.float32)
    order = canonical_order(x, ["same"] * 4)
    assert np.array_equal(canonical_order(x[::-1], ["same"] * 4), 3 - order)


def test_a_graph_taken_in_an_order_and_back_is_the_graph():
    x = np.random.default_rng(1).normal(size=(40, 6)).astype(np.float32)
    order = np.random.default_rng(2).permutation(40)
    graph = nearest_neighbors(x, n_neighbors=5)
    moved = take_graph(graph, order)
    direct = nearest_neighbors(x[order], n_neighbors=5)
    assert np.array_equal(moved[0], direct[0])
    back = graph_to_rows(moved, order)
    assert np.array_equal(back[0], graph[0]) and np.array_equal(back[1], graph[1])
    assert np.array_equal(to_rows(x[order], order), x)


@pytest.mark.parametrize("options", [{"method": "ward"}, {"method": "consensus"}, {"method": "consensus", "n_landmarks": 40}])
def test_a_fit_does_not_depend_on_the_row_order(options):
    corpus = make_theme_corpus(n_per_theme=20, seed=3)
    x = HashingEmbedder().encode(corpus["abstract"].tolist())
    perm = np.random.default_rng(4).permutation(len(corpus))
    a = TopicModel(n_runs=6, random_state=0, **options).fit(corpus, x)
    b = TopicModel(n_runs=6, random_state=0, **options).fit(corpus.iloc[perm], x[perm])
    assert np.array_equal(a.labels_[perm], b.labels_)
    assert np.array_equal(a.confidence_[perm], b.confidence_)
    assert np.array_equal(a.runs_[:, perm], b.runs_)
    assert np.array_equal(a.reduced_embeddings_[perm], b.reduced_embeddings_)
    assert a.topic_names_ == b.topic_names_ and a.topic_areas_ == b.topic_areas_
    # the graph names the same papers, in the caller's positions
    assert np.array_equal(perm[b.neighbors_[0]], a.neighbors_[0][perm])
    assert np.array_equal(np.sort(perm[b.fitted_documents_]), a.fitted_documents_)
    for m in (a, b):  # the fitted documents' texts and BERTopic's topics in the same order
        assert np.array_equal(m.bertopic_.topics_, m.labels_[m.fitted_documents_])
        assert m.fit_texts_[-1] == clean_for_terms(m.texts_[m.fitted_documents_[-1]])
