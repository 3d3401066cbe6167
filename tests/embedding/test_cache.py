"""The on-disk embedding cache: keys, chunk files, compaction, damaged files."""

import numpy as np
import pytest

from tests.conftest import CountingEmbedder, FailingEmbedder
from topics.embedding.cache import EmbeddingCache, as_cache, default_cache_dir, missing_keys, text_key
from topics.embedding.embed import embed_texts


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


def test_missing_keys_lists_each_missing_text_once_with_its_first_position():
    texts = ["alpha", "beta", "alpha", "gamma", "beta", "gamma"]
    store = {text_key("beta"): np.ones(3, dtype=np.float32)}
    keys, missing = missing_keys(texts, store)
    assert keys == [text_key(t) for t in texts]  # one key per text, in order
    assert missing == [(text_key("alpha"), 0), (text_key("gamma"), 3)]
    assert missing_keys(texts, {k: None for k in keys})[1] == []
    assert text_key("alpha") != text_key("alpha ") and len(text_key("alpha")) == 32  # what the cache stores (U32)


def test_as_cache_accepts_true_a_folder_or_a_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TOPICS_CACHE_DIR", str(tmp_path / "default"))
    assert as_cache(True).directory == tmp_path / "default" == default_cache_dir()
    assert as_cache(tmp_path / "mine").directory == tmp_path / "mine"
    assert as_cache(str(tmp_path / "mine")).directory == tmp_path / "mine"
    existing = EmbeddingCache(tmp_path / "other")
    assert as_cache(existing) is existing


def test_default_cache_folder_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("TOPICS_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "topics"
    monkeypatch.setenv("TOPICS_CACHE_DIR", str(tmp_path / "own"))
    assert default_cache_dir() == tmp_path / "own"  # the package's own variable wins


def test_each_fingerprint_has_its_own_files(tmp_path):
    cache = EmbeddingCache(tmp_path)
    cache.save("model-a", {text_key("x"): np.ones(2, dtype=np.float32)})
    assert cache.path("model-a") != cache.path("model-b")
    assert cache.load("model-b") == {} and list(cache.load("model-a")) == [text_key("x")]


def test_a_file_under_another_models_name_is_not_used(tmp_path, caplog):
    cache = EmbeddingCache(tmp_path)
    cache.save("model-a", {text_key("x"): np.ones(2, dtype=np.float32)})
    cache.append("model-a", [text_key("y")], np.ones((1, 2), dtype=np.float32))
    with np.load(cache.path("model-a")) as data:
        assert str(data["fingerprint"]) == "model-a"  # each file says which model made it
    cache.path("model-b").write_bytes(cache.path("model-a").read_bytes())
    cache.parts_dir("model-b").mkdir()
    part = cache.parts("model-a")[0]
    (cache.parts_dir("model-b") / part.name).write_bytes(part.read_bytes())
    assert cache.load("model-b") == {}
    assert "holds vectors of another model (model-a)" in caplog.text
    assert sorted(cache.load("model-a")) == sorted([text_key("x"), text_key("y")])
