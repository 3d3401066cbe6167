"""Embedding through the on-disk cache in this process: reads, chunks, resuming."""

import numpy as np
import pytest

import topics
from tests.conftest import CountingEmbedder, FailingEmbedder
from topics.embedding.cache import EmbeddingCache
from topics.embedding.embed import embed_texts


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


def test_no_cache_for_unfingerprinted_backends(tmp_path):
    embed_texts(["apple banana cherry", "banana cherry grape", "cherry grape melon"], "lsa", cache=tmp_path)
    assert list(tmp_path.iterdir()) == []


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


@pytest.mark.parametrize("bad", [0, -5, 2.5])
def test_bad_chunk_size_is_named(tmp_path, bad):
    with pytest.raises(ValueError, match=f"chunk_size must be a positive integer, got {bad}"):
        embed_texts(["a text"], CountingEmbedder(), cache=tmp_path, chunk_size=bad)


def test_nothing_to_embed_is_an_error_and_no_cache_writes_nothing(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="no texts to embed"):
        embed_texts([], CountingEmbedder(), cache=tmp_path)
    monkeypatch.setenv("TOPICS_CACHE_DIR", str(tmp_path))
    fake = CountingEmbedder()
    first = embed_texts(["a text", "another"], fake, cache=False)
    again = embed_texts(["a text", "another"], fake, cache=False)
    assert fake.calls == 2 and list(tmp_path.iterdir()) == []  # embedded twice, nothing stored
    np.testing.assert_array_equal(first, again)


def test_the_chunk_size_comes_from_the_environment_so_small_corpora_resume(tmp_path, monkeypatch):
    texts = [f"paper number {i} about topic {i % 3}" for i in range(7)]
    monkeypatch.setenv("TOPICS_CHUNK_SIZE", "2")
    with pytest.raises(KeyboardInterrupt):
        embed_texts(texts, FailingEmbedder(fail_after=2), cache=tmp_path)
    assert len(EmbeddingCache(tmp_path).load("fake-v1")) == 4  # two chunks of two kept
    resumed = CountingEmbedder()
    embed_texts(texts, resumed, cache=tmp_path)
    assert resumed.seen == 3 and resumed.calls == 2
    monkeypatch.setenv("TOPICS_CHUNK_SIZE", "lots")
    with pytest.raises(ValueError, match="TOPICS_CHUNK_SIZE must be a positive integer, got 'lots'"):
        embed_texts(["a new text"], CountingEmbedder(), cache=tmp_path)
    monkeypatch.setenv("TOPICS_CHUNK_SIZE", "0")
    with pytest.raises(ValueError, match="TOPICS_CHUNK_SIZE must be a positive integer, got '0'"):
        embed_texts(["a new text"], CountingEmbedder(), cache=tmp_path)


@pytest.mark.slow
def test_a_killed_and_resumed_run_gives_the_vectors_and_tables_of_a_cold_run(tmp_path, monkeypatch, sample_corpus):
    """Issue 21: kill `topics report` after two chunks of the embedding, run it again, and
    get byte for byte the vectors and tables of a cold run in another cache."""
    import pandas as pd

    from topics.cli import main
    from topics.embedding.backends import get_embedder

    # 40 papers, their abstracts cut to 30-120 words and every fifth kept whole (embedded as
    # windows): texts of many lengths, so batches padded to their longest text would differ
    corpus = pd.concat([group.head(20) for _, group in sample_corpus.groupby("year")])[["title", "abstract", "year"]]
    cut = [None if i % 5 == 4 else 30 * (1 + i % 5) for i in range(len(corpus))]
    corpus["abstract"] = [" ".join(text.split()[:n]) for text, n in zip(corpus["abstract"], cut)]
    papers = tmp_path / "papers.parquet"
    corpus.to_parquet(papers)

    def report(cache, tables):
        return main(["report", str(papers), "-q", "--cache-dir", str(cache), "-o", str(tables / "r.html"), "--tables", str(tables)])

    assert report(tmp_path / "cold-cache", tmp_path / "cold") == 0  # all 40 in one chunk

    monkeypatch.setenv("TOPICS_CHUNK_SIZE", "8")
    append, written = EmbeddingCache.append, []

    def killed_at_the_third_chunk(self, *args, **kwargs):
        if len(written) == 2:
            raise KeyboardInterrupt
        written.append(append(self, *args, **kwargs))
        return written[-1]

    monkeypatch.setattr(EmbeddingCache, "append", killed_at_the_third_chunk)
    assert report(tmp_path / "cache", tmp_path / "killed") == 130  # an interrupt ends with status 130, no traceback
    monkeypatch.setattr(EmbeddingCache, "append", append)
    fingerprint = get_embedder("minilm", n_texts=len(corpus)).fingerprint()  # the 40 papers, as `topics report` embeds them
    assert len(EmbeddingCache(tmp_path / "cache").load(fingerprint)) == 16  # two chunks of 8 kept
    assert report(tmp_path / "cache", tmp_path / "resumed") == 0  # the other 24, in chunks of 8

    cold, resumed = (EmbeddingCache(tmp_path / name).load(fingerprint) for name in ("cold-cache", "cache"))
    assert len(cold) >= 39 and sorted(cold) == sorted(resumed)  # (a repeated abstract is kept once)
    assert [k for k in cold if cold[k].tobytes() != resumed[k].tobytes()] == []
    tables = sorted(path.name for path in (tmp_path / "cold").glob("*.csv"))
    assert "documents.csv" in tables and tables == sorted(path.name for path in (tmp_path / "resumed").glob("*.csv"))
    for name in tables:
        assert (tmp_path / "resumed" / name).read_bytes() == (tmp_path / "cold" / name).read_bytes(), name


def test_the_progress_bar_moves_per_step_not_per_chunk(tmp_path, monkeypatch):
    """`topics assign` on 2,104 papers sat at 0/2104 for 27 minutes: the bar moved once per
    1,024-text chunk. It moves every PROGRESS_STEP texts, and the vectors stay those of one call."""
    from topics.embedding import embed

    moves = []

    class Bar:
        def __init__(self, *args, **kwargs):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def update(self, n):
            moves.append(n)

    monkeypatch.setattr(embed, "progress_bar", Bar)
    texts = [f"text number {i} " + "word " * (i % 7) for i in range(300)]
    vectors = embed_texts(texts, CountingEmbedder(), cache=tmp_path, chunk_size=1024, show_progress=True)
    assert moves == [embed.PROGRESS_STEP] * 4 + [300 - 4 * embed.PROGRESS_STEP]
    np.testing.assert_array_equal(np.asarray(vectors), CountingEmbedder().encode(texts))


def test_embeddings_carry_the_backend_and_precision_they_came_from(tmp_path):
    from topics.embedding.embed import Embeddings, check_same_embedder, describe_fingerprint

    vectors = embed_texts(["a b c", "d e f"], CountingEmbedder("fake-v2"), cache=tmp_path)
    assert isinstance(vectors, Embeddings) and vectors.fingerprint == "fake-v2" and vectors[:1].fingerprint == "fake-v2"
    assert embed_texts(["a b c"], CountingEmbedder("fake-v2"), cache=False).fingerprint == "fake-v2"
    assert describe_fingerprint("minilm:53aa:bf16:windows:shapes16x4") == "minilm, bf16"
    check_same_embedder("fake-v2", vectors)  # the same: nothing to say
    check_same_embedder(None, vectors)  # a model that does not know: nothing checked
    check_same_embedder("fake-v2", np.asarray(vectors))  # vectors that do not know: nothing checked
    with pytest.raises(topics.EmbeddingError, match=r"^these vectors were embedded with minilm, bf16, the model's with minilm, fp32: .*\"minilm-fp32\"") as error:
        check_same_embedder("minilm:53aa:fp32:windows:shapes16x4", Embeddings.of(vectors, "minilm:53aa:bf16:windows:shapes16x4"))
    assert "\n" not in str(error.value)


def test_embedder_for_finds_the_backend_and_precision_in_the_registry():
    from topics.embedding import backends
    from topics.embedding.embed import Embeddings, check_same_embedder, embedder_for

    assert embedder_for("hashing:1:2:3").name == backends.HashingEmbedder().name
    with pytest.raises(topics.EmbeddingError, match="cannot embed new papers"):
        embedder_for("lsa:whatever")  # fitted to each corpus: new papers cannot be placed
    with pytest.raises(topics.EmbeddingError, match="cannot embed new papers"):
        embedder_for("local:53aa:fp32")  # no backend of that name
    assert embedder_for("minilm:53aa:fp32:windows:shapes16x4").precision == "fp32"
    with pytest.raises(topics.EmbeddingError, match="cannot embed new papers"):
        embedder_for("minilm:53aa:int8:windows:shapes16x1")  # no backend embeds in int8
    # two fingerprints a reader names alike: the hint names the backend, not a fingerprint
    vectors = Embeddings.of(np.ones((1, 2), dtype=np.float32), "minilm:53aa:bf16:windows:shapes16x32")
    with pytest.raises(topics.EmbeddingError, match=r'here "minilm"\)$'):
        check_same_embedder("minilm:53aa:bf16:windows:shapes16x4", vectors)
