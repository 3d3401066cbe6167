"""Embedding backends: LSA, hashing, sentence-transformers, their precision and registry."""

import numpy as np
import pytest

from topics.embedding.backends import HashingEmbedder, LSAEmbedder, SentenceTransformerEmbedder, get_embedder
from topics.embedding.cache import EmbeddingCache
from topics.embedding.embed import embed_texts
from topics.embedding import backends


def test_lsa_vectors_are_unit_length_and_meaningful():
    texts = ["optimal transport wasserstein"] * 3 + ["speech audio phoneme"] * 3 + ["robot grasp arm"] * 3
    texts = [t + f" doc{i}" for i, t in enumerate(texts)]
    v = LSAEmbedder().encode(texts)
    assert v.shape[0] == 9 and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[4]
    assert LSAEmbedder().fingerprint() is None


def test_unknown_backend():
    with pytest.raises(ValueError, match="unknown embedding backend"):
        get_embedder("word2vec")


@pytest.mark.slow
def test_real_minilm_embeds_by_meaning(tmp_path):
    texts = [
        "Optimal transport distances between probability measures.",
        "Wasserstein distances and couplings of distributions.",
        "A robot arm learns to grasp objects from demonstrations.",
    ]
    v = embed_texts(texts, "minilm", cache=tmp_path)
    assert v.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1, atol=1e-4)
    assert v[0] @ v[1] > v[0] @ v[2] + 0.2


def test_auto_precision_follows_the_cpu(monkeypatch):
    monkeypatch.setattr(backends, "native_bf16", lambda: True)
    fast = get_embedder("minilm")
    assert fast.precision == "bf16" and "(bf16" in fast.name and ":bf16" in fast.fingerprint()
    monkeypatch.setattr(backends, "native_bf16", lambda: False)
    assert get_embedder("minilm").precision == "fp32"
    exact = get_embedder("minilm-fp32")
    assert exact.precision == "fp32" and exact.fingerprint() != fast.fingerprint()  # separate cache entries
    with pytest.raises(ValueError, match="'auto', 'fp32', 'bf16', 'int8'"):
        SentenceTransformerEmbedder(precision="fp16")


@pytest.mark.slow
def test_bf16_embeddings_stay_within_cosine_0_99_of_fp32(sample_corpus):
    # bf16 is emulated (slowly) on a CPU without native support, but the numbers are the same
    texts = sample_corpus["abstract"].tolist()[:40]
    exact = SentenceTransformerEmbedder(precision="fp32").encode(texts)
    fast_model = SentenceTransformerEmbedder(precision="bf16")
    fast = fast_model.encode(texts)
    assert fast.dtype == np.float32 and fast.shape == exact.shape
    np.testing.assert_allclose(np.linalg.norm(fast, axis=1), 1, atol=1e-5)
    cosine = (fast * exact).sum(axis=1)
    assert cosine.min() >= 0.99, cosine.min()
    assert not np.array_equal(fast, exact)  # it really ran in another precision
    np.testing.assert_array_equal(fast_model.encode(texts), fast)  # and is deterministic


def test_hashing_embedder_is_per_text_and_cacheable(tmp_path):
    texts = ["optimal transport with entropic regularisation", "speech recognition with phonemes", "robot grasping"]
    h = HashingEmbedder()
    together = h.encode(texts)
    alone = np.vstack([h.encode([t]) for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-6)  # no dependence on the other texts
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1, atol=1e-5)
    assert together[0] @ h.encode(["optimal transport with regularisation"])[0] > 0.7
    assert together[0] @ together[1] < 0.5
    embed_texts(texts, h, cache=tmp_path)
    assert len(EmbeddingCache(tmp_path).load(h.fingerprint())) == 3


def test_sentence_transformer_embedder_pickles_without_its_model():
    import pickle

    emb = SentenceTransformerEmbedder(precision="fp32")
    emb._model = object()  # as if loaded
    clone = pickle.loads(pickle.dumps(emb))
    assert clone._model is None and clone.fingerprint() == emb.fingerprint()
    assert emb._model is not None  # the original keeps its model


class _WordModel:
    """A stand-in for a sentence-transformers model: one token per word, reads 6 tokens
    (4 plus [CLS] and [SEP]), and embeds a text as the counts of the words 'a' and 'b'."""

    max_seq_length = 6

    class tokenizer:  # noqa: N801 - mimics the attribute of a real model
        @staticmethod
        def __call__(texts, **_):
            return {"input_ids": [t.split() for t in texts]}

        @staticmethod
        def decode(tokens):
            return " ".join(tokens)

    tokenizer = tokenizer()

    def __init__(self):
        self.seen = []

    def encode(self, texts, normalize_embeddings=True, **_):
        self.seen.extend(texts)
        v = np.array([[t.split()[:4].count("a"), t.split()[:4].count("b")] for t in texts], dtype=float) + 1e-9
        return v / np.linalg.norm(v, axis=1, keepdims=True) if normalize_embeddings else v


def test_long_texts_are_embedded_as_overlapping_windows():
    from topics.embedding.backends import SentenceTransformerEmbedder

    windowed = SentenceTransformerEmbedder(precision="fp32")
    windowed._model = _WordModel()
    short, long = "a a a a", "a a a a b b b b"  # the model reads only the first four words
    vectors = windowed.encode([short, long])
    # windows of 4 words, 2 apart: "a a a a", "a a b b", "b b b b"
    assert windowed._model.seen == [short, "a a a a", "a a b b", "b b b b"]
    np.testing.assert_allclose(vectors[0], [1, 0], atol=1e-6)  # a short text is embedded as it is
    np.testing.assert_allclose(vectors[1], np.array([1, 1]) / np.sqrt(2), atol=1e-6)  # the ending counts
    truncated = SentenceTransformerEmbedder(precision="fp32", long_texts="truncate")
    truncated._model = _WordModel()
    np.testing.assert_allclose(truncated.encode([long])[0], [1, 0], atol=1e-6)  # only the beginning
    assert windowed.fingerprint() != truncated.fingerprint()  # never mixed in the cache
    with pytest.raises(ValueError, match="long_texts"):
        SentenceTransformerEmbedder(long_texts="cut")


def test_get_embedder_by_name_and_unknown_names_list_the_choices():
    assert isinstance(get_embedder("hashing"), HashingEmbedder)
    assert isinstance(get_embedder("lsa"), LSAEmbedder)
    mine = HashingEmbedder(n_components=8)
    assert get_embedder(mine) is mine  # an embedder is passed through as it is
    with pytest.raises(ValueError, match=r"'nope'; choose one of minilm, minilm-fp32, lsa, hashing"):
        get_embedder("nope")


def test_weightless_backends_settings_and_limits():
    texts = ["optimal transport", "speech recognition", "robot grasping"]
    small = HashingEmbedder(n_components=16)
    assert small.encode(texts).shape == (3, 16)
    # other settings give other vectors, so they must never share cache entries
    assert len({small.fingerprint(), HashingEmbedder().fingerprint(), HashingEmbedder(random_state=1).fingerprint()}) == 3
    with pytest.raises(ValueError, match="at least 3 texts, got 2"):
        LSAEmbedder().encode(texts[:2])
