from pathlib import Path
import hashlib

import numpy as np
import pytest

from topics.embedding.backends import HashingEmbedder, LSAEmbedder, SentenceTransformerEmbedder, get_embedder
from topics.embedding.cache import EmbeddingCache
from topics.embedding.embed import embed_texts
from topics.embedding.weights import DEFAULT_MODEL, EmbeddingError, MINILM_SHA256, resolve_model
from topics.embedding import backends, weights


class CountingEmbedder:
    """A deterministic fake backend that counts how many texts it embedded."""

    name = "counting"

    def __init__(self, fingerprint="fake-v1"):
        self._fp = fingerprint
        self.calls = 0
        self.seen = 0

    def fingerprint(self):
        return self._fp

    def encode(self, texts, *, show_progress=False):
        self.calls += 1
        self.seen += len(texts)
        out = np.array([[len(t), sum(map(ord, t)) % 97, 1.0] for t in texts], dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def test_lsa_vectors_are_unit_length_and_meaningful():
    texts = ["optimal transport wasserstein"] * 3 + ["speech audio phoneme"] * 3 + ["robot grasp arm"] * 3
    texts = [t + f" doc{i}" for i, t in enumerate(texts)]
    v = LSAEmbedder().encode(texts)
    assert v.shape[0] == 9 and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[4]
    assert LSAEmbedder().fingerprint() is None


def test_cache_miss_then_hit(tmp_path):
    texts = ["alpha text", "beta text", "alpha text"]
    fake = CountingEmbedder()
    first = embed_texts(texts, fake, cache=tmp_path)
    assert fake.seen == 2  # the repeated text is embedded once
    second = embed_texts(texts, fake, cache=tmp_path)
    assert fake.calls == 1  # nothing new: read from disk
    np.testing.assert_array_equal(first, second)
    embed_texts(texts + ["gamma"], fake, cache=tmp_path)
    assert fake.seen == 3  # only the new text
    other = CountingEmbedder("fake-v2")
    embed_texts(texts, other, cache=tmp_path)
    assert other.seen == 2  # another fingerprint never reads these vectors


def test_damaged_cache_is_recomputed(tmp_path, caplog):
    fake = CountingEmbedder()
    good = embed_texts(["a b", "c d"], fake, cache=tmp_path)
    path = EmbeddingCache(tmp_path).path(fake.fingerprint())
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    again = embed_texts(["a b", "c d"], fake, cache=tmp_path)
    assert fake.calls == 2
    np.testing.assert_allclose(again, good)
    assert "damaged" in caplog.text
    path.write_bytes(b"not a zip file at all")
    embed_texts(["a b"], fake, cache=tmp_path)
    assert fake.calls == 3


def test_tampered_vectors_fail_the_checksum(tmp_path):
    fake = CountingEmbedder()
    embed_texts(["a b"], fake, cache=tmp_path)
    cache = EmbeddingCache(tmp_path)
    path = cache.path(fake.fingerprint())
    with np.load(path) as d:
        keys, vectors, checksum = d["keys"], d["vectors"], d["checksum"]
    np.savez(path, keys=keys, vectors=vectors + 1, checksum=checksum)
    assert cache.load(fake.fingerprint()) == {}


def test_no_cache_for_unfingerprinted_backends(tmp_path):
    embed_texts(["apple banana cherry", "banana cherry grape", "cherry grape melon"], "lsa", cache=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_unknown_backend():
    with pytest.raises(ValueError, match="unknown embedding backend"):
        get_embedder("word2vec")


def test_packaged_model_sha_mismatch_is_refused(tmp_path, monkeypatch):
    (tmp_path / "model.safetensors").write_bytes(b"tampered weights")
    monkeypatch.setattr(weights, "_packaged_minilm", lambda: tmp_path)
    with pytest.raises(EmbeddingError, match="not the official all-MiniLM-L6-v2"):
        resolve_model(None)


def test_resolution_order(tmp_path, monkeypatch):
    (tmp_path / "model.safetensors").write_bytes(b"local weights")
    source, fp = resolve_model(tmp_path)
    assert source == str(tmp_path.resolve()) and fp == "local:" + hashlib.sha256(b"local weights").hexdigest()
    monkeypatch.setattr(weights, "_packaged_minilm", lambda: None)
    assert resolve_model(None) == (DEFAULT_MODEL, "hub:" + DEFAULT_MODEL)
    assert resolve_model("org/other-model") == ("org/other-model", "hub:org/other-model")


def test_packaged_minilm_is_the_official_model():
    source, fp = resolve_model(None)
    assert fp == "minilm:" + MINILM_SHA256
    assert hashlib.sha256((Path(source) / "model.safetensors").read_bytes()).hexdigest() == MINILM_SHA256


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


class FailingEmbedder(CountingEmbedder):
    """Embeds ``fail_after`` calls, then raises as a killed run would."""

    def __init__(self, fail_after, fingerprint="fake-v1"):
        super().__init__(fingerprint)
        self.fail_after = fail_after

    def encode(self, texts, *, show_progress=False):
        if self.calls == self.fail_after:
            raise KeyboardInterrupt("killed")
        return super().encode(texts, show_progress=show_progress)


def test_interrupted_run_resumes_without_reembedding(tmp_path):
    texts = [f"paper number {i} about topic {i % 3}" for i in range(11)]
    reference = CountingEmbedder().encode(texts)
    dying = FailingEmbedder(fail_after=3)
    with pytest.raises(KeyboardInterrupt):
        embed_texts(texts, dying, cache=tmp_path, chunk_size=2)
    cache = EmbeddingCache(tmp_path)
    assert len(cache.parts("fake-v1")) == 3  # one file per finished chunk
    assert len(cache.load("fake-v1")) == 6
    resumed = CountingEmbedder()
    vectors = embed_texts(texts, resumed, cache=tmp_path, chunk_size=2)
    assert resumed.seen == 5  # only the texts the killed run had not finished
    assert resumed.calls == 3  # in chunks of two
    np.testing.assert_allclose(vectors, reference, atol=1e-7)
    assert cache.parts("fake-v1") == []  # folded into the main file at the end
    assert len(cache.load("fake-v1")) == 11


def test_damaged_chunk_file_is_ignored_and_recomputed(tmp_path, caplog):
    texts = ["first text here", "second text here", "third text here"]
    with pytest.raises(KeyboardInterrupt):
        embed_texts(texts, FailingEmbedder(fail_after=2), cache=tmp_path, chunk_size=1)
    cache = EmbeddingCache(tmp_path)
    first_part = cache.parts("fake-v1")[0]
    first_part.write_bytes(first_part.read_bytes()[:-20])  # truncated mid-write
    again = CountingEmbedder()
    vectors = embed_texts(texts, again, cache=tmp_path, chunk_size=1)
    assert again.seen == 2 and "damaged" in caplog.text
    np.testing.assert_allclose(vectors, CountingEmbedder().encode(texts), atol=1e-7)


def test_append_and_compact_keep_every_vector(tmp_path):
    cache = EmbeddingCache(tmp_path)
    cache.save("fp", {"k0": np.ones(3, dtype=np.float32)})
    cache.append("fp", ["k1", "k2"], np.eye(3, dtype=np.float32)[:2])
    cache.append("fp", ["k3"], np.full((1, 3), 2, dtype=np.float32))
    assert sorted(cache.load("fp")) == ["k0", "k1", "k2", "k3"]
    assert cache.compact("fp") == cache.path("fp")
    assert cache.parts("fp") == [] and cache.compact("fp") is None
    stored = cache.load("fp")
    np.testing.assert_array_equal(stored["k3"], [2, 2, 2])
    np.testing.assert_array_equal(stored["k1"], [1, 0, 0])
    with pytest.raises(ValueError, match="2 keys for vectors of shape"):
        cache.append("fp", ["a", "b"], np.ones((3, 3)))


def test_a_compaction_by_another_process_while_loading_hides_no_vector(tmp_path):
    class Interrupted(EmbeddingCache):
        """Another process compacts right after this one read its first file."""

        compacted = False

        def _read(self, path):
            read = super()._read(path)
            if not self.compacted:
                self.compacted = True
                EmbeddingCache(self.directory).compact("fp")
            return read

    writer = EmbeddingCache(tmp_path)
    writer.save("fp", {"k0": np.ones(3, dtype=np.float32)})
    writer.append("fp", ["k1"], np.eye(3, dtype=np.float32)[:1])
    assert sorted(Interrupted(tmp_path).load("fp")) == ["k0", "k1"]


@pytest.mark.parametrize("bad", [0, -5, 2.5])
def test_bad_chunk_size_is_named(tmp_path, bad):
    with pytest.raises(ValueError, match=f"chunk_size must be a positive integer, got {bad}"):
        embed_texts(["a text"], CountingEmbedder(), cache=tmp_path, chunk_size=bad)


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


def test_titles_are_embedded_with_the_abstract():
    import pandas as pd

    from topics.pipeline import embedding_texts

    corpus = pd.DataFrame({"title": ["Optimal Transport.", "", None], "abstract": ["We use $x$ OT.", "No title.", "Missing."]})
    assert embedding_texts(corpus) == ["Optimal Transport. We use OT.", "No title.", "Missing."]
    assert embedding_texts(corpus, titles=False) == ["We use OT.", "No title.", "Missing."]
