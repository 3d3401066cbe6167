"""Teaching static vectors to imitate a teacher (tokenlearn's objective) and the packaged teaching set."""

import numpy as np
import pytest
import scipy.sparse as sp

from topics.embedding.teach import read_teaching_set, teach_vectors, teacher_of, write_teaching_set


def bags(rng, n_texts: int, n_pieces: int, length: int = 12):
    """Word-piece counts of random texts: each text draws ``length`` pieces from a few topics' pieces."""
    topics = rng.integers(0, 4, n_texts)
    rows = []
    for t in topics:
        own = rng.integers(t * n_pieces // 4, (t + 1) * n_pieces // 4, length - 3)  # mostly its topic's pieces
        rest = rng.integers(0, n_pieces, 3)
        rows.append(np.bincount(np.concatenate([own, rest]), minlength=n_pieces))
    return sp.csr_matrix(np.array(rows, dtype=np.float32))


def neighbour_overlap(a: np.ndarray, b: np.ndarray, k: int = 5) -> float:
    def knn(x):
        x = x / np.linalg.norm(x, axis=1, keepdims=True)
        s = x @ x.T
        np.fill_diagonal(s, -np.inf)
        return np.argsort(-s, axis=1)[:, :k]

    return float(np.mean([len(set(r) & set(q)) / k for r, q in zip(knn(a), knn(b))]))


def test_teaching_brings_unseen_texts_closer_to_the_teacher():
    """The teacher embeds a text as the mean of a hidden table's rows; the student starts
    from a random table. After teaching, texts it never saw have neighbours closer to the
    teacher's than before."""
    rng = np.random.default_rng(0)
    n_pieces = 60
    hidden = rng.normal(size=(n_pieces, 24)).astype(np.float32)
    start = rng.normal(size=(n_pieces, 8)).astype(np.float32)
    taught_on, unseen = bags(rng, 600, n_pieces), bags(rng, 200, n_pieces)

    def teacher(counts):
        return np.asarray(counts @ hidden) / np.asarray(counts.sum(axis=1))

    table, record = teach_vectors(start, taught_on, teacher(taught_on), pca_dims=16, batch_size=64, learning_rate=0.05)
    assert table.shape == start.shape and table.dtype == np.float32
    before = neighbour_overlap(teacher(unseen), np.asarray(unseen @ start))
    after = neighbour_overlap(teacher(unseen), np.asarray(unseen @ table))
    assert after > before + 0.15, (before, after)
    assert record["validation_loss"] < record["first_epoch_validation_loss"]
    assert record["texts"] == 600 and record["validation_texts"] == 60 and record["target_dims"] == 16
    # the same seed gives the same table
    again, _ = teach_vectors(start, taught_on, teacher(taught_on), pca_dims=16, batch_size=64, learning_rate=0.05)
    np.testing.assert_array_equal(again, table)


def test_texts_without_a_known_piece_are_left_out_and_bad_shapes_refused():
    rng = np.random.default_rng(1)
    counts = bags(rng, 40, 20).tolil()
    counts[:5] = 0  # five texts with no known piece
    counts = counts.tocsr()
    targets = rng.normal(size=(40, 6)).astype(np.float32)
    start = rng.normal(size=(20, 4)).astype(np.float32)
    _, record = teach_vectors(start, counts, targets, max_epochs=2)
    assert record["texts"] == 35 and record["epochs"] == 2
    with pytest.raises(ValueError, match="do not match"):
        teach_vectors(start, counts, targets[:-1])
    with pytest.raises(ValueError, match="at least 20 texts"):
        teach_vectors(start, counts[:10], targets[:10])
    targets[3, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        teach_vectors(start, counts, targets)


def test_the_packaged_teaching_set_is_minilm_on_the_bundled_full_lists():
    """The teaching texts are what `topics report --dataset full` embeds, one vector each,
    made by the packaged MiniLM (benchmarks/static_teaching_set.py writes them)."""
    from topics.io.datasets import iclr_full
    from topics.pipeline import embedding_texts

    texts, targets, teacher = read_teaching_set()
    assert texts == embedding_texts(iclr_full())
    assert targets.shape == (len(texts), 256) and targets.dtype == np.float32 and np.isfinite(targets).all()
    assert teacher.startswith("minilm:53aa5117")


def test_a_teaching_set_written_reads_back(tmp_path):
    rng = np.random.default_rng(2)
    texts = [f"paper {i} on optimal transport, ünïcode {'x' * i}" for i in range(30)]
    vectors = rng.normal(size=(30, 12)).astype(np.float32)
    path = write_teaching_set(tmp_path / "mine.teach", texts, vectors, "minilm:abc:fp32", dims=8)
    assert path == tmp_path / "mine.teach" and path.exists()
    back, targets, teacher = read_teaching_set(path)
    assert back == texts and teacher == "minilm:abc:fp32" == teacher_of(path)
    assert targets.shape == (30, 8)
    # the targets are the vectors' principal components: their distances are kept up to float16
    from scipy.spatial.distance import pdist

    assert np.corrcoef(pdist(targets), pdist(vectors - vectors.mean(axis=0)))[0, 1] > 0.9
    with pytest.raises(ValueError, match="at least 20"):
        write_teaching_set(tmp_path / "small.npz", texts[:5], vectors[:5], "minilm:abc")
    with pytest.raises(ValueError, match="fingerprint"):
        write_teaching_set(tmp_path / "x.npz", texts, vectors, "minilm")
