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


def test_native_bf16_reads_the_cpu_flags_as_pytorch_does(tmp_path, monkeypatch):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse avx2 avx512f avx512_bf16\nbugs\t\t: spectre_v1\n")
    assert backends.cpu_flags(str(cpuinfo)) == {"fpu", "sse", "avx2", "avx512f", "avx512_bf16"}
    assert backends.cpu_flags(str(tmp_path / "absent")) is None
    monkeypatch.setattr(backends, "cpu_flags", lambda: {"avx2", "avx512f"})
    assert not backends.native_bf16()
    monkeypatch.setattr(backends, "cpu_flags", lambda: {"avx2", "amx_tile"})
    assert backends.native_bf16()
    monkeypatch.undo()
    if backends.cpu_flags() is not None:  # on this machine, the flags give PyTorch's answer
        import torch

        asked = any(bool(getattr(torch.cpu, n, lambda: False)()) for n in ("_is_avx512_bf16_supported", "_is_amx_tile_supported"))
        assert backends.native_bf16() == asked


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


def test_a_small_corpus_is_embedded_exactly_even_with_native_bf16(monkeypatch):
    from topics.embedding.embed import check_inputs

    monkeypatch.setattr(backends, "native_bf16", lambda: True)
    assert get_embedder("minilm", n_texts=backends.EXACT_BELOW - 1).precision == "fp32"
    assert get_embedder("minilm", n_texts=backends.EXACT_BELOW).precision == "bf16"
    assert get_embedder("minilm").precision == "bf16"  # size unknown: the CPU decides
    # embedding texts by backend name counts them
    assert check_inputs("minilm", ["a text"] * 90, 1024)[0].precision == "fp32"
    assert check_inputs("minilm", ["a text"] * backends.EXACT_BELOW, 1024)[0].precision == "bf16"


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
    (4 plus [CLS] and [SEP]), and embeds a text as the counts of the words 'a' and 'b'.
    It records the texts it reads and the shape of every forward pass."""

    ids = {"[PAD]": 0, "[CLS]": 1, "[SEP]": 2, "a": 3, "b": 4}

    class tokenizer:  # noqa: N801 - mimics the attribute of a real model
        pad_token_id = 0

        @staticmethod
        def __call__(texts, **_):
            return {"input_ids": [t.split() for t in texts]}

        @staticmethod
        def decode(tokens):
            return " ".join(tokens)

    tokenizer = tokenizer()

    def __init__(self, max_seq_length=6):
        self.max_seq_length = max_seq_length
        self.seen = []
        self.shapes = []

    def preprocess(self, texts):
        import torch

        rows = [[1, *[self.ids.get(w, 5) for w in t.split()][: self.max_seq_length - 2], 2] for t in texts]
        width = max(map(len, rows))
        ids = torch.tensor([r + [0] * (width - len(r)) for r in rows])
        return {"input_ids": ids, "attention_mask": (ids != 0).long(), "token_type_ids": torch.zeros_like(ids), "modality": "text"}

    def __call__(self, features):
        import torch

        ids, mask = features["input_ids"], features["attention_mask"]
        self.shapes.append(tuple(ids.shape))
        assert mask.shape == ids.shape and features["token_type_ids"].shape == ids.shape and features["modality"] == "text"
        assert bool(((ids == 0) == (mask == 0)).all())  # padding is masked out
        self.seen.extend(" ".join({3: "a", 4: "b"}.get(int(i), "x") for i in row[row > 2]) for row in ids)
        counts = torch.stack([((ids == 3) & (mask == 1)).sum(1), ((ids == 4) & (mask == 1)).sum(1)], dim=1)
        return {"sentence_embedding": counts.float() + 1e-9}


def test_long_texts_are_embedded_as_overlapping_windows():
    from topics.embedding.backends import SentenceTransformerEmbedder

    windowed = SentenceTransformerEmbedder(precision="fp32", batch_size=4)
    windowed._model = _WordModel()
    short, long = "a a a a", "a a a a b b b b"  # the model reads only the first four words
    vectors = windowed.encode([short, long])
    # windows of 4 words, 2 apart: "a a a a", "a a b b", "b b b b"; the four pieces fill one pass
    assert windowed._model.shapes == [(4, 6)]
    assert sorted(windowed._model.seen) == sorted([short, "a a a a", "a a b b", "b b b b"])
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


def test_length_buckets_round_up_to_sixteen_word_pieces_within_the_model_length():
    from topics.embedding.backends import length_bucket

    assert length_bucket(1, limit=256) == 16 and length_bucket(16, limit=256) == 16 and length_bucket(17, limit=256) == 32
    np.testing.assert_array_equal(length_bucket([40, 241, 250, 256], limit=256), [48, 256, 256, 256])
    assert length_bucket(100, limit=128, step=32) == 128
    with pytest.raises(ValueError, match="from 1 to the model's length 256, got 0 to 300"):
        length_bucket([0, 300], limit=256)


def test_fixed_shape_batches_put_each_text_in_its_own_length_bucket():
    from topics.embedding.backends import fixed_shape_batches

    lengths = [200, 12, 30, 17, 256, 5, 14, 33, 40]
    batches = fixed_shape_batches(lengths, pass_pieces=64, limit=256)
    # 64 word pieces per pass: 4 rows of 16, 2 rows of 32, 1 row of 48 and longer
    assert [(length, rows, members.tolist()) for length, rows, members in batches] == [
        (16, 4, [1, 5, 6]), (32, 2, [2, 3]), (48, 1, [7]), (48, 1, [8]), (208, 1, [0]), (256, 1, [4])
    ]
    # a text's pass has the same shape whatever it is embedded with
    for mix in ([12], [12, 250, 31], [3, 12, 12, 12, 99, 1, 2, 3, 4, 5]):
        shapes = {(length, rows) for length, rows, members in fixed_shape_batches(mix, pass_pieces=64, limit=256) if mix.index(12) in members}
        assert shapes == {(16, 4)}
    assert {rows for _, rows, _ in fixed_shape_batches(lengths, pass_pieces=1, limit=256)} == {1}  # int8: one text per pass
    with pytest.raises(ValueError, match="pass_pieces must be a positive integer"):
        fixed_shape_batches(lengths, pass_pieces=0, limit=256)


def test_every_forward_pass_has_the_fixed_shape_of_its_bucket_whatever_the_neighbours():
    """A text's forward pass is (batch_size, its bucket) alone or among longer and shorter texts."""
    text = " ".join(["a"] * 20 + ["b"] * 3)  # 25 word pieces: bucket 32
    others = [" ".join(["b"] * n) for n in (2, 9, 30, 70)]  # buckets 16, 16, 32, 80 (the limit)
    alone = SentenceTransformerEmbedder(precision="fp32", batch_size=2, long_texts="truncate")
    alone._model = _WordModel(max_seq_length=80)
    mixed = SentenceTransformerEmbedder(precision="fp32", batch_size=2, long_texts="truncate")
    mixed._model = _WordModel(max_seq_length=80)
    vector = alone.encode([text])[0]
    vectors = mixed.encode([others[0], text, *others[1:]])
    # 2 texts at the full length 80, so 160 word pieces a pass: 5 rows of 32, 10 of 16, 2 of 80
    assert alone._model.shapes == [(5, 32)]  # one real row and four dummy rows, padded to 32
    assert sorted(mixed._model.shapes) == [(2, 80), (5, 32), (10, 16)]  # never padded to the longest
    np.testing.assert_array_equal(vectors[1], vector)
    np.testing.assert_allclose(vector, np.array([20, 3]) / np.hypot(20, 3), rtol=1e-6)
    np.testing.assert_allclose(vectors[0], [0, 1], atol=1e-6)  # dummy rows never leak into a text
    np.testing.assert_allclose(vectors[4], [0, 1], atol=1e-6)
    int8 = SentenceTransformerEmbedder(precision="int8", batch_size=2, long_texts="truncate")
    int8._model = _WordModel(max_seq_length=80)
    int8.encode([others[0], text])
    assert sorted(int8._model.shapes) == [(1, 16), (1, 32)]  # one text per pass: its scale is its own
    assert alone.fingerprint().endswith(":shapes16x2") and alone.fingerprint() != SentenceTransformerEmbedder(precision="fp32").fingerprint()


@pytest.mark.slow
def test_real_minilm_gives_a_text_the_same_vector_alone_and_among_others(sample_corpus):
    """Issue 21: a text's vector does not depend on the texts embedded with it (bytes equal)."""
    texts = [
        "Optimal transport.",
        "Wasserstein distances between probability measures on graphs.",
        "A robot arm learns to grasp objects from a handful of demonstrations in simulation and then on hardware.",
        sample_corpus["abstract"].str.len().pipe(lambda n: sample_corpus["abstract"][n.idxmax()]),  # embedded as windows
    ]
    embedder = get_embedder("minilm")  # the default path: bf16 where the CPU has it, else fp32
    together = embedder.encode(texts)
    reordered = embedder.encode([texts[2], "Speech recognition for low-resource languages.", texts[3], texts[0], texts[1]])
    for i, text in enumerate(texts):
        alone = embedder.encode([text])[0]
        assert alone.tobytes() == together[i].tobytes(), f"text {i} changed with its neighbours"
    assert [reordered[k].tobytes() for k in (3, 4, 0, 2)] == [v.tobytes() for v in together]


def test_the_registry_names_every_backend_once_with_what_the_cli_needs():
    assert list(backends.BACKENDS) == ["minilm", "minilm-fp32", "lsa", "hashing", "static"]
    assert [b.name for b in backends.BACKENDS.values() if not b.per_text] == ["lsa"]
    assert all(b.description for b in backends.BACKENDS.values())
    with pytest.raises(ValueError, match="'hashing' exists already"):
        backends.register_backend(backends.Backend("hashing", lambda model, n_texts: HashingEmbedder(), "again"))


def test_one_default_backend_is_the_default_of_every_function_and_of_the_cli():
    """The default backend's name is written once (``DEFAULT_BACKEND``) and read everywhere else."""
    import inspect

    from topics.cli import build_parser
    from topics.embedding.distributed import embed_texts_distributed
    from topics.pipeline import analyze

    assert backends.DEFAULT_BACKEND in backends.BACKENDS
    defaults = [inspect.signature(get_embedder).parameters["backend"].default] + [
        inspect.signature(f).parameters["embedder"].default for f in (embed_texts, embed_texts_distributed, analyze)]
    assert defaults == [backends.DEFAULT_BACKEND] * 4
    assert build_parser().parse_args(["report"]).backend == backends.DEFAULT_BACKEND


def test_a_saved_analysis_is_embedded_again_at_the_precision_its_fingerprint_names(monkeypatch):
    monkeypatch.setattr(backends, "native_bf16", lambda: True)  # "minilm" would run in bf16 here
    exact = backends.get_embedder("minilm-fp32").fingerprint()
    assert backends.get_embedder("minilm").fingerprint() != exact
    assert backends.saved_embedder("minilm", fingerprint=exact).precision == "fp32"
    assert backends.saved_embedder("minilm").precision == "bf16"  # no fingerprint saved: the backend itself
    other_weights = "0" * 24 + ":fp32:windows:shapes16x4"  # the precision counts, not the rest of the fingerprint
    assert backends.saved_embedder("minilm", fingerprint=other_weights).precision == "fp32"
    assert isinstance(backends.saved_embedder("hashing", fingerprint="other"), HashingEmbedder)
    with pytest.raises(ValueError, match="fitted with the lsa backend.*per-text backend \\(minilm, minilm-fp32, hashing, static\\)"):
        backends.saved_embedder("lsa")
    with pytest.raises(ValueError, match="unknown embedding backend 'nope'"):
        backends.saved_embedder("nope")


def test_openvino_is_opt_in_auto_runs_bf16_in_it_where_the_cpu_has_it_and_the_runtime_is_in_the_fingerprint(monkeypatch):
    monkeypatch.setattr(backends, "native_bf16", lambda: True)
    monkeypatch.setattr(backends, "openvino_available", lambda: True)
    assert get_embedder("minilm").runtime == "torch" and SentenceTransformerEmbedder().runtime == "torch"  # the default
    fast = SentenceTransformerEmbedder(runtime="auto")
    assert fast.runtime == "openvino" and "OpenVINO" in fast.name and ":bf16:openvino:" in fast.fingerprint()
    # fp32 stays in PyTorch: a small corpus, the exact backend, precision="fp32"
    assert get_embedder("minilm", n_texts=90).runtime == "torch" and get_embedder("minilm-fp32").runtime == "torch"
    assert SentenceTransformerEmbedder(precision="fp32", runtime="auto").runtime == "torch"
    assert SentenceTransformerEmbedder(precision="fp32", runtime="openvino").runtime == "openvino"  # asked for
    assert SentenceTransformerEmbedder(precision="int8", runtime="auto").runtime == "torch"  # PyTorch's dynamic quantisation
    forced = SentenceTransformerEmbedder(runtime="torch")
    assert forced.runtime == "torch" and "OpenVINO" not in forced.name
    assert forced.fingerprint() == fast.fingerprint().replace(":openvino", "")  # separate cache entries
    monkeypatch.setattr(backends, "openvino_available", lambda: False)  # not installed: PyTorch
    assert SentenceTransformerEmbedder(runtime="auto").fingerprint() == forced.fingerprint()
    monkeypatch.setattr(backends, "openvino_available", lambda: True)
    monkeypatch.setattr(backends, "native_bf16", lambda: False)  # emulated bf16, asked for: PyTorch as before
    assert SentenceTransformerEmbedder(precision="bf16", runtime="auto").runtime == "torch" and get_embedder("minilm").precision == "fp32"
    assert get_embedder("minilm").runtime == "torch"
    with pytest.raises(ValueError, match="runtime must be one of 'auto', 'torch', 'openvino'"):
        SentenceTransformerEmbedder(runtime="onnx")
    with pytest.raises(ValueError, match="int8 is PyTorch's"):
        SentenceTransformerEmbedder(precision="int8", runtime="openvino")


def test_new_papers_are_embedded_in_the_runtime_the_saved_fingerprint_names(monkeypatch):
    """An analysis saved with PyTorch's bf16 vectors (the default) gets PyTorch's vectors for
    its new papers, and one saved with OpenVINO's (``runtime="openvino"``) gets OpenVINO's:
    the same fingerprint, so ``transform`` accepts them."""
    from topics.embedding.embed import embedder_for

    monkeypatch.setattr(backends, "native_bf16", lambda: True)
    monkeypatch.setattr(backends, "openvino_available", lambda: True)
    torch_bf16 = SentenceTransformerEmbedder(runtime="torch").fingerprint()
    openvino_bf16 = SentenceTransformerEmbedder(runtime="openvino").fingerprint()
    for saved in (torch_bf16, openvino_bf16, SentenceTransformerEmbedder(precision="fp32", runtime="openvino").fingerprint()):
        assert backends.saved_embedder("minilm", fingerprint=saved).fingerprint() == saved
        assert embedder_for(saved).fingerprint() == saved
    assert backends.saved_embedder("minilm").runtime == "torch"  # no fingerprint saved: the default
    assert backends.in_runtime_of(backends.HashingEmbedder(), torch_bf16).fingerprint() == HashingEmbedder().fingerprint()


@pytest.mark.slow
def test_openvino_gives_pytorchs_vectors_on_padded_passes_and_each_text_its_own(sample_corpus, tmp_path, monkeypatch):
    """The converted model honours the attention mask (a traced graph can drop it) and, in
    passes of fixed shape, gives a text the same bytes alone and among others; ``"auto"``
    runs it where the CPU has bf16 natively. Skipped where ``openvino`` (opt-in,
    ``topics[openvino]``) is not installed. Its usage telemetry stays off (no ``~/intel``
    folder, which it writes)."""
    import sys

    pytest.importorskip("openvino")
    if "openvino" not in sys.modules:  # imported by the package, not by another test: check its telemetry stays off
        monkeypatch.setenv("HOME", str(tmp_path))
    texts = sample_corpus["abstract"].tolist()[:12] + ["Optimal transport.", "Graph neural networks for molecules."]
    exact = SentenceTransformerEmbedder(precision="fp32", runtime="torch").encode(texts)
    assert (SentenceTransformerEmbedder(runtime="auto").runtime == "openvino") == backends.native_bf16()
    for precision, floor in (("fp32", 0.99999), ("bf16", 0.999)):
        embedder = SentenceTransformerEmbedder(precision=precision, runtime="openvino")
        vectors = embedder.encode(texts)
        cosine = (vectors * exact).sum(axis=1)
        assert cosine.min() >= floor, (precision, cosine.min())  # short texts ride in passes padded to their bucket
        for i in (0, len(texts) - 2):
            assert embedder.encode([texts[i]])[0].tobytes() == vectors[i].tobytes(), (precision, i)
        shuffled = embedder.encode(texts[::-1])
        assert [v.tobytes() for v in shuffled[::-1]] == [v.tobytes() for v in vectors]
    assert not (tmp_path / "intel").exists()  # openvino-telemetry's consent and client-id files


def test_a_package_of_openvinos_family_is_imported_with_its_telemetry_stub(tmp_path, monkeypatch):
    """``import_without_telemetry`` imports a module while ``openvino_telemetry`` cannot be
    imported (so openvino and nncf take their no-op stubs), and leaves it importable after."""
    import sys

    name = "topics_test_telemetry_user"
    (tmp_path / f"{name}.py").write_text(
        "try:\n    import openvino_telemetry\n    TELEMETRY = True\nexcept ImportError:\n    TELEMETRY = False\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "openvino_telemetry", raising=False)  # restored after the test
    try:
        assert backends.import_without_telemetry(name).TELEMETRY is False
        assert "openvino_telemetry" not in sys.modules  # not left blocked for the rest of the process
        with pytest.raises(ModuleNotFoundError):
            backends.import_without_telemetry("topics_test_no_such_module")
        assert "openvino_telemetry" not in sys.modules
    finally:
        sys.modules.pop(name, None)


def test_openvino_and_nncf_are_imported_only_through_the_package():
    """No module of the package and no benchmark imports ``openvino`` or ``nncf`` itself: a
    direct import sends a usage event and writes ``~/intel``
    (``topics.embedding.backends.import_without_telemetry`` is the one way in)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    direct = []
    for path in sorted([*(root / "topics").rglob("*.py"), *(root / "benchmarks").glob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            direct += [f"{path.relative_to(root)}:{node.lineno} imports {n}" for n in names if n.split(".")[0] in ("openvino", "nncf")]
    assert not direct
