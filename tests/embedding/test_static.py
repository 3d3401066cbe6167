"""The static backend: model2vec vectors distilled offline, cached once, embedded per text.

The default tests distil a tiny random BERT written by a fixture (seconds); the slow one
distils the packaged MiniLM itself (minutes).
"""

import json
import pickle
import socket
import threading
from pathlib import Path

import numpy as np
import pytest

from topics.embedding import static
from topics.embedding.backends import BACKENDS, get_embedder
from topics.embedding.embed import embed_texts
from topics.embedding.static import MANIFEST, StaticEmbedder

WORDS = "the a of and to in for is on with we model models learning data neural network graph robot speech audio transport optimal".split()
TEXTS = [
    "Optimal transport on graphs.",
    "Speech and audio models, with neural networks!",
    "We learn a robot model (in 3 steps): data; graph; transport.",
    "the the the",
    "Zebra-like quokkas",  # letters only: pieces the tiny vocabulary spells out
]


@pytest.fixture
def offline(monkeypatch):
    """No network: any connection attempt fails and is recorded."""
    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("network access in a test")

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    return attempts


def write_tiny_bert(folder: Path, seed: int = 0) -> Path:
    """A randomly initialised one-layer BERT with a 100-piece vocabulary and its tokenizer."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    letters = "abcdefghijklmnopqrstuvwxyz0123456789"
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *".,;:()-'\"!?", *letters, *[f"##{c}" for c in letters], "##s", *WORDS]
    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64)
    BertModel(config).save_pretrained(folder)
    BertTokenizerFast(vocab={token: i for i, token in enumerate(vocab)}).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory) -> Path:
    return write_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


def tiny_embedder(folder: Path, cache: Path, **options) -> StaticEmbedder:
    """A static embedder distilled from ``folder``, untaught unless ``teach=True`` is given."""
    return StaticEmbedder(folder, pca_dims=options.pop("pca_dims", 8), teach=options.pop("teach", False), cache_dir=cache, **options)


def test_distils_and_embeds_offline(tiny_bert, tmp_path, offline):
    embedder = tiny_embedder(tiny_bert, tmp_path)
    vectors = embedder.encode(TEXTS)
    assert offline == []
    assert vectors.shape == (len(TEXTS), 8) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-6)
    record = json.loads((embedder.model_dir() / MANIFEST).read_text())
    assert record["fingerprint"] == embedder.fingerprint()
    assert embedder.model_dir().parent == tmp_path / "static"


def test_same_text_same_vector_alone_or_in_any_batch(tiny_bert, tmp_path):
    embedder = tiny_embedder(tiny_bert, tmp_path)
    batch = embedder.encode(TEXTS)
    alone = np.stack([embedder.encode([text])[0] for text in TEXTS])
    reversed_batch = embedder.encode(TEXTS[::-1])[::-1]
    assert np.array_equal(batch, alone) and np.array_equal(batch, reversed_batch)
    fresh = tiny_embedder(tiny_bert, tmp_path).encode(TEXTS[2:3])  # nothing remembered from other texts
    assert np.array_equal(fresh[0], batch[2])


def test_vectors_are_model2vecs_own(tiny_bert, tmp_path):
    from model2vec import StaticModel

    embedder = tiny_embedder(tiny_bert, tmp_path)
    texts = TEXTS + [" ".join(TEXTS * 60)]  # longer than model2vec's default 512 pieces: read whole
    vectors = embedder.encode(texts)  # distils into model_dir()
    reference = StaticModel.from_pretrained(embedder.model_dir()).encode(texts, max_length=None)
    np.testing.assert_allclose(vectors, reference, atol=1e-5)  # float32 sums in another order
    # the word-by-word counts are those of the tokenizer reading each text whole
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(embedder.model_dir() / "tokenizer.json"))
    tokenizer.no_truncation()
    counts = embedder.token_counts(texts).toarray()
    for text, row in zip(texts, counts):
        ids = [i for i in tokenizer.encode(text, add_special_tokens=False).ids if i != tokenizer.token_to_id("[UNK]")]
        assert np.array_equal(row, np.bincount(ids, minlength=len(row)))


def test_an_empty_text_gets_the_zero_vector(tiny_bert, tmp_path, caplog):
    vectors = tiny_embedder(tiny_bert, tmp_path).encode(["", "optimal transport"])
    assert not vectors[0].any() and np.isclose(np.linalg.norm(vectors[1]), 1)
    assert "1 of 2 texts have no word piece" in caplog.text


def test_the_distilled_model_is_kept_and_reused(tiny_bert, tmp_path, monkeypatch):
    first = tiny_embedder(tiny_bert, tmp_path).encode(TEXTS)
    calls = []
    monkeypatch.setattr(StaticEmbedder, "_distil", lambda self, folder: calls.append(folder))
    again = tiny_embedder(tiny_bert, tmp_path).encode(TEXTS)
    assert calls == [] and np.array_equal(first, again)


def test_a_damaged_model_is_distilled_again(tiny_bert, tmp_path, caplog):
    embedder = tiny_embedder(tiny_bert, tmp_path)
    first = embedder.encode(TEXTS)
    weights = embedder.model_dir() / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-8] + b"tampered")
    again = tiny_embedder(tiny_bert, tmp_path).encode(TEXTS)
    assert "is damaged" in caplog.text
    np.testing.assert_allclose(again, first, atol=1e-6)
    assert sorted(p.name for p in (tmp_path / "static").iterdir()) == [embedder.model_dir().name]


def test_concurrent_first_uses_leave_one_whole_model(tiny_bert, tmp_path):
    results, errors = {}, []

    def run(i):
        try:
            results[i] = tiny_embedder(tiny_bert, tmp_path).encode(TEXTS)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    np.testing.assert_allclose(results[0], results[1], atol=1e-6)
    folders = list((tmp_path / "static").iterdir())
    assert len(folders) == 1 and (folders[0] / MANIFEST).exists()  # no temporary folders left


def test_fingerprint_follows_source_version_and_parameters(tiny_bert, tmp_path, monkeypatch):
    base = tiny_embedder(tiny_bert, tmp_path)
    other_weights = write_tiny_bert(tmp_path / "other-bert", seed=1)
    variants = [
        tiny_embedder(tiny_bert, tmp_path, pca_dims=16),
        tiny_embedder(tiny_bert, tmp_path, sif_coefficient=1e-3),
        tiny_embedder(other_weights, tmp_path),
    ]
    prints = {base.fingerprint(), *(v.fingerprint() for v in variants)}
    assert len(prints) == 4
    assert len({base.model_dir(), *(v.model_dir() for v in variants)}) == 4
    before = base.fingerprint()
    monkeypatch.setattr(static, "version", lambda package: "99.0")
    assert base.fingerprint() != before and "model2vec-99.0" in base.model_dir().name


def test_a_taught_model_is_kept_beside_its_distillation_and_records_its_teaching(tiny_bert, tmp_path, offline, monkeypatch):
    taught = tiny_embedder(tiny_bert, tmp_path, teach=True)
    distilled = tiny_embedder(tiny_bert, tmp_path)
    assert taught.fingerprint().startswith(distilled.fingerprint() + ":taught-") and "taught" in taught.name
    vectors = taught.encode(TEXTS)
    assert offline == []
    assert sorted(p.name for p in (tmp_path / "static").iterdir()) == sorted([taught.model_dir().name, distilled.model_dir().name])
    record = json.loads((taught.model_dir() / MANIFEST).read_text())
    assert record["fingerprint"] == taught.fingerprint() and record["teacher"].startswith("minilm:")
    assert record["texts"] > 4000 and record["validation_loss"] < record["first_epoch_validation_loss"]
    # the teaching changed the vectors, and a second use reads the kept model instead of teaching again
    assert not np.allclose(vectors, distilled.encode(TEXTS), atol=1e-3)
    monkeypatch.setattr(StaticEmbedder, "_teach", lambda self, folder: pytest.fail("taught again"))
    np.testing.assert_array_equal(tiny_embedder(tiny_bert, tmp_path, teach=True).encode(TEXTS), vectors)


def test_a_teaching_set_of_ones_own_teaches_a_model_of_its_own(tiny_bert, tmp_path):
    """A teaching set written from the source model's own vectors of other texts: the model
    is taught by default (same weights), on those texts, and kept under its own fingerprint."""
    from topics.embedding.teach import write_teaching_set

    distilled = tiny_embedder(tiny_bert, tmp_path)
    rng = np.random.default_rng(0)
    texts = [" ".join(rng.choice(WORDS, 8)) for _ in range(60)]
    teacher = f"{distilled._source_fingerprint}:mean"  # the tiny BERT's own weights, as a teacher
    path = write_teaching_set(tmp_path / "mine.npz", texts, rng.normal(size=(60, 32)), teacher, dims=16)
    own = StaticEmbedder(tiny_bert, pca_dims=8, teaching_set=path, cache_dir=tmp_path)
    packaged = tiny_embedder(tiny_bert, tmp_path, teach=True)
    assert own.teach and "taught on mine.npz" in own.name
    assert len({own.fingerprint(), packaged.fingerprint(), distilled.fingerprint()}) == 3
    own.encode(TEXTS)
    record = json.loads((own.model_dir() / MANIFEST).read_text())
    assert record["texts"] == 60 and record["teacher"] == teacher and record["target_dims"] == 16
    with pytest.raises(ValueError, match="no teaching set"):
        StaticEmbedder(tiny_bert, teaching_set=tmp_path / "absent.npz")
    # the set written again at the same path, from other vectors: a new fingerprint in this process too
    import os

    before = own.fingerprint()
    write_teaching_set(path, texts, rng.normal(size=(60, 32)), teacher, dims=16)
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))  # a coarse clock may not tick
    assert StaticEmbedder(tiny_bert, pca_dims=8, teaching_set=path, cache_dir=tmp_path).fingerprint() != before


def test_only_minilm_is_taught_unless_asked(tiny_bert):
    """The teaching set's targets are MiniLM's: a model distilled from other weights is not
    made to imitate MiniLM by default; the packaged MiniLM, or a local copy of it, is."""
    from topics.embedding.weights import resolve_model

    assert not StaticEmbedder(tiny_bert).teach and StaticEmbedder(tiny_bert, teach=True).teach
    assert StaticEmbedder().teach and not StaticEmbedder(teach=False).teach
    packaged, _ = resolve_model(None)
    assert StaticEmbedder(packaged).teach  # the same weights given as a folder


def test_registered_and_distinct_from_minilm():
    assert "static" in BACKENDS
    embedder = get_embedder("static")
    assert isinstance(embedder, StaticEmbedder)
    assert embedder.fingerprint() != get_embedder("minilm").fingerprint()
    assert embedder.fingerprint().startswith("static:minilm:")  # keyed by the packaged MiniLM's checksum
    assert embedder.teach and ":taught-" in embedder.fingerprint()  # taught by default (topics.embedding.teach)


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="pca_dims"):
        StaticEmbedder(pca_dims=1)
    with pytest.raises(ValueError, match="sif_coefficient"):
        StaticEmbedder(sif_coefficient=0)


def test_travels_to_other_processes_and_through_the_cache(tiny_bert, tmp_path):
    embedder = tiny_embedder(tiny_bert, tmp_path / "models")
    direct = embedder.encode(TEXTS)
    sent = pickle.dumps(embedder)  # as a Dask worker receives it: without the loaded model
    assert len(sent) < 5_000
    copy = pickle.loads(sent)
    assert np.array_equal(copy.encode(TEXTS), direct)
    cached = embed_texts(TEXTS, embedder, cache=tmp_path / "vectors", chunk_size=2)
    assert np.array_equal(cached, direct)
    assert np.array_equal(embed_texts(TEXTS, copy, cache=tmp_path / "vectors"), direct)


@pytest.mark.slow
def test_static_minilm_offline_by_meaning(tmp_path, offline, sample_corpus):
    from model2vec import StaticModel

    embedder = StaticEmbedder(cache_dir=tmp_path)  # distils the packaged MiniLM: minutes
    texts = [
        "Optimal transport distances between probability measures.",
        "Wasserstein distances and couplings of distributions.",
        "A robot arm learns to grasp objects from demonstrations.",
    ]
    v = embedder.encode(texts)
    assert offline == []
    assert v.shape == (3, 256) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2] + 0.1
    abstracts = sample_corpus["abstract"].tolist()
    vectors = embedder.encode(abstracts)
    reference = StaticModel.from_pretrained(embedder.model_dir()).encode(abstracts, max_length=None)
    np.testing.assert_allclose(vectors, reference, atol=1e-5)
