"""The Dask engine against a LocalCluster: same vectors as one process, the cache, resuming."""

from __future__ import annotations

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from topics.embedding.backends import HashingEmbedder  # noqa: E402
from topics.embedding.cache import EmbeddingCache  # noqa: E402
from topics.embedding.embed import embed_texts  # noqa: E402
from topics.embedding.weights import EmbeddingError  # noqa: E402
from topics.embedding import distributed as D  # noqa: E402

TEXTS = [f"paper {i} studies {['optimal transport', 'speech recognition', 'robot grasping'][i % 3]} with method {i % 7}" for i in range(60)]


def slot(embedder):
    return f"{type(embedder).__module__}.{type(embedder).__qualname__}:{embedder.fingerprint()}"


class Rerun(HashingEmbedder):
    """The hashing backend under another name, so its work is counted apart."""


class PoisonedHashing(HashingEmbedder):
    """The hashing backend (same fingerprint) that fails on one text, as a crashing worker would."""

    def encode(self, texts, *, show_progress=False):
        if any("POISON" in t for t in texts):
            raise RuntimeError("worker crashed on a poisoned text")
        return super().encode(texts, show_progress=show_progress)


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as c:
            yield c


def cosines(a, b):
    return np.sum(a * b, axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)


def test_distributed_vectors_equal_single_process_and_fill_the_cache(client, tmp_path):
    single = embed_texts(TEXTS, HashingEmbedder(), cache=False)
    spread = D.embed_texts_distributed(TEXTS, HashingEmbedder(), scheduler=client, cache=tmp_path, chunk_size=7)
    assert spread.shape == single.shape
    assert cosines(spread, single).min() >= 0.9999
    cache = EmbeddingCache(tmp_path)
    fingerprint = HashingEmbedder().fingerprint()
    assert cache.parts(fingerprint) == []  # chunks folded into the main file
    assert len(cache.load(fingerprint)) == len(set(TEXTS))
    # Read back by the single-process path: nothing left to embed.
    class Refuses(HashingEmbedder):
        def encode(self, texts, *, show_progress=False):
            raise AssertionError("should have been read from the cache")

    np.testing.assert_array_equal(embed_texts(TEXTS, Refuses(), cache=tmp_path), spread)


def test_embed_texts_scheduler_argument_routes_to_dask(client, tmp_path):
    embedder = HashingEmbedder(n_components=16)
    before = D.worker_state().get(slot(embedder), {"chunks": 0})["chunks"]
    vectors = D.embed_texts_distributed(TEXTS[:20], embedder, cache=tmp_path, chunk_size=5, scheduler=client)
    assert D.worker_state()[slot(embedder)]["chunks"] - before == 4
    D.embed_texts_distributed(TEXTS[20:30], HashingEmbedder(n_components=16), cache=tmp_path, chunk_size=5, scheduler=client)
    after = D.worker_state()[slot(embedder)]
    assert vectors.shape == (20, 16)
    assert after["chunks"] - before == 6 and after["loads"] == 1  # one embedder per process, kept across calls


def test_killed_distributed_run_resumes_from_the_cache(client, tmp_path):
    texts = TEXTS[:40] + ["POISON pill abstract"]  # the last of nine chunks fails
    with pytest.raises(RuntimeError, match="poisoned"):
        D.embed_texts_distributed(texts, PoisonedHashing(), scheduler=client, cache=tmp_path, chunk_size=5)
    cached = len(EmbeddingCache(tmp_path).load(HashingEmbedder().fingerprint()))
    assert cached >= 20  # the chunks finished before the failure were written as they arrived
    vectors = D.embed_texts_distributed(texts, Rerun(), scheduler=client, cache=tmp_path, chunk_size=5)
    assert D.worker_state()[slot(Rerun())]["texts"] == len(texts) - cached  # only the rest
    assert cosines(vectors, HashingEmbedder().encode(texts)).min() >= 0.9999


def test_corpus_fitted_backend_is_refused(client):
    with pytest.raises(ValueError, match="LSA .* cannot be split over Dask workers"):
        D.embed_texts_distributed(TEXTS, "lsa", scheduler=client, cache=False)


def test_unreachable_scheduler_is_named(tmp_path):
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        with pytest.raises(EmbeddingError, match=r"cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'"):
            D.embed_texts_distributed(TEXTS, HashingEmbedder(), scheduler="tcp://127.0.0.1:9", cache=tmp_path)
    with pytest.raises(ValueError, match="scheduler must be a Dask scheduler address"):
        D.embed_texts_distributed(TEXTS, HashingEmbedder(), scheduler=42, cache=False)


def test_scheduler_from_env(monkeypatch):
    monkeypatch.setenv(D.SCHEDULER_ENV, "tcp://10.0.0.5:8786")
    assert D.scheduler_from_env() == "tcp://10.0.0.5:8786"
    monkeypatch.setenv(D.SCHEDULER_ENV, "")
    assert D.scheduler_from_env() is None
