"""Embedding through the on-disk cache, in this process.

:func:`embed_texts` runs a backend (:mod:`topics.embedding.backends`) through the cache
(:mod:`topics.embedding.cache`): vectors are stored per model fingerprint and text hash,
so a second run reads instead of embedding. :mod:`topics.embedding.distributed` does the
same on a Dask cluster; the caller (:func:`topics.pipeline.analyze`, the CLI) chooses.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence

import numpy as np

from topics.embedding.backends import DEFAULT_BACKEND, PRECISIONS, Embedder, find_backend, get_embedder, in_runtime_of
from topics.embedding.cache import EmbeddingCache, as_cache, missing_keys
from topics.embedding.weights import EmbeddingError

__all__ = [
    "CHUNK_SIZE_ENV", "DEFAULT_CHUNK_SIZE", "PROGRESS_STEP", "Embeddings", "check_inputs", "check_same_embedder",
    "chunk_size_from_env", "chunked", "describe_fingerprint", "embed_texts", "embedder_for", "progress_bar",
]

logger = logging.getLogger(__name__)

#: Texts embedded between two writes to the cache (:func:`embed_texts`), unless
#: :data:`CHUNK_SIZE_ENV` says otherwise.
DEFAULT_CHUNK_SIZE = 1024

#: The environment variable that sets the chunk size (``TOPICS_CHUNK_SIZE=256``): smaller
#: chunks lose less work when a run is killed, so a corpus of 1,024 texts or fewer can resume.
CHUNK_SIZE_ENV = "TOPICS_CHUNK_SIZE"


class Embeddings(np.ndarray):
    """An array of embeddings that knows the backend and precision it came from:
    ``fingerprint`` (:meth:`topics.embedding.backends.Embedder.fingerprint`; ``None`` where
    unknown). :func:`embed_texts` returns one; slices and copies keep the fingerprint, and
    :func:`check_same_embedder` compares it with what a model was fitted on."""

    fingerprint: str | None = None

    @classmethod
    def of(cls, array, fingerprint: str | None) -> Embeddings:
        out = np.asarray(array).view(cls)
        out.fingerprint = fingerprint
        return out

    def __array_finalize__(self, obj) -> None:
        self.fingerprint = getattr(obj, "fingerprint", None)


def describe_fingerprint(fingerprint: str) -> str:
    """A backend's fingerprint as a reader names it: ``"minilm, bf16"``, ``"static"``, ``"hashing"``."""
    parts = str(fingerprint).split(":")
    precision = _precision(fingerprint)
    return f"{parts[0]}, {precision}" if precision and parts[0] == "minilm" else parts[0]


def _precision(fingerprint: str | None) -> str | None:
    """The precision a fingerprint names in one of its ``:``-separated fields, if any."""
    return next((p for p in str(fingerprint or "").split(":")[1:] if p in PRECISIONS and p != "auto"), None)


def _backend_name(fingerprint: str | None) -> str | None:
    """The registered per-text backend whose vectors carry ``fingerprint``: the one its first
    field names, or the variant of that one whose precision is another of its fields
    (:data:`topics.embedding.backends.BACKENDS`); ``None`` where there is none."""
    fields = str(fingerprint or "").split(":")
    try:
        spec = find_backend(fields[0])
    except ValueError:
        return None
    if not spec.per_text:
        return None
    return next((v for v in spec.variants if find_backend(v).precision in fields[1:]), spec.name)


def check_same_embedder(expected: str | None, embeddings) -> None:
    """Raise :class:`~topics.embedding.weights.EmbeddingError` where ``embeddings`` come from another backend
    or precision than ``expected`` (a fingerprint): vectors of two embedders are not
    comparable, and bf16 vectors differ from fp32 ones of the same model. Nothing is
    checked where either side is unknown."""
    got = getattr(embeddings, "fingerprint", None)
    if expected is None or got is None or got == expected:
        return
    want, have = describe_fingerprint(expected), describe_fingerprint(got)
    if want == have:
        want, have = expected, got
    backend = f'"{_backend_name(expected) or want}"'
    raise EmbeddingError(
        f"these vectors were embedded with {have}, the model's with {want}: embed the papers with the model's "
        f"own backend (embed_texts(texts, embedder_for(model.embedding_fingerprint_)), here {backend})"
    )


def embedder_for(fingerprint: str | None, *, model: str | os.PathLike[str] | None = None) -> Embedder:
    """The embedder whose vectors carry ``fingerprint`` (a fitted model's
    ``embedding_fingerprint_``): the same backend in the same precision. The backend is
    the registered one (:data:`~topics.embedding.backends.BACKENDS`) that the
    fingerprint's first field names, or its variant at the precision the fingerprint names,
    in the runtime it names (:func:`~topics.embedding.backends.in_runtime_of`)."""
    name, precision = _backend_name(fingerprint), _precision(fingerprint)
    embedder = None if name is None else in_runtime_of(get_embedder(name, model=model), fingerprint)
    if precision == "bf16" and embedder is not None and getattr(embedder, "precision", None) != "bf16":
        raise EmbeddingError("the model's vectors are bf16, which this CPU does not run natively; fit again here")
    if embedder is None or precision not in (None, getattr(embedder, "precision", precision)):
        raise EmbeddingError(f"cannot embed new papers as the model's vectors ({fingerprint or 'unknown backend'}); "
                             "embed them with the backend it was fitted with")
    return embedder


def chunk_size_from_env() -> int:
    """``$TOPICS_CHUNK_SIZE`` as a positive integer, else :data:`DEFAULT_CHUNK_SIZE`."""
    value = os.environ.get(CHUNK_SIZE_ENV, "").strip()
    if not value:
        return DEFAULT_CHUNK_SIZE
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"{CHUNK_SIZE_ENV} must be a positive integer, got {value!r}")
    return int(value)


def chunked(items: list, size: int) -> list[list]:
    """``items`` in consecutive lists of ``size`` (the last may be shorter)."""
    return [items[i : i + size] for i in range(0, len(items), size)]


def progress_bar(total: int, show: bool, description: str):
    """A tqdm bar over ``total`` texts, hidden unless ``show``."""
    from tqdm.auto import tqdm

    return tqdm(total=total, disable=not show, desc=description, unit="text", smoothing=0.1)


def check_inputs(embedder, texts: Sequence[str], chunk_size) -> tuple[Embedder, list[str]]:
    """The embedder by name (for ``"minilm"``, exact fp32 below :data:`topics.embedding.backends.EXACT_BELOW`
    texts) and the texts as a list, after checking them and ``chunk_size``."""
    texts = list(texts)
    embedder = get_embedder(embedder, n_texts=len(texts))
    if not texts:
        raise ValueError("no texts to embed")
    if not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    return embedder, texts


def embed_texts(
    texts: Sequence[str],
    embedder: Embedder | str = DEFAULT_BACKEND,
    *,
    cache: EmbeddingCache | str | os.PathLike[str] | None | bool = True,
    show_progress: bool = False,
    chunk_size: int | None = None,
) -> np.ndarray:
    """Embed ``texts`` with ``embedder``, reading and filling the on-disk cache chunk by chunk.

    Texts already in the cache are read; the others are embedded ``chunk_size`` at a
    time and each chunk is written to the cache as soon as it is done
    (:meth:`EmbeddingCache.append`), so a run that is killed keeps what it embedded and
    the next call embeds only the rest. At the end the chunk files are folded into one
    (:meth:`EmbeddingCache.compact`).

    Parameters
    ----------
    texts
        The texts, in order.
    embedder
        A backend name (see :func:`get_embedder`) or an :class:`Embedder`.
    cache
        ``True`` for the default cache folder, a folder or :class:`EmbeddingCache`, or
        ``False``/``None`` for no cache. Backends whose fingerprint is ``None`` (LSA)
        are never cached, and are embedded in one call.
    show_progress
        Show a progress bar (texts embedded so far) while embedding the texts not found
        in the cache.
    chunk_size
        Texts per chunk: the most work a killed run can lose. Default
        ``$TOPICS_CHUNK_SIZE``, else :data:`DEFAULT_CHUNK_SIZE` (1,024).

    Returns
    -------
    Embeddings
        ``float32`` array of shape ``(len(texts), dim)``, row ``i`` for ``texts[i]``, that
        carries the embedder's ``fingerprint``. The progress bar moves every
        :data:`PROGRESS_STEP` texts.

    Raises
    ------
    ValueError
        If ``texts`` is empty, ``chunk_size`` or ``$TOPICS_CHUNK_SIZE`` is not a positive
        integer, or ``embedder`` names no backend.
    topics.EmbeddingError
        If the embedding model cannot be resolved or loaded.

    Examples
    --------
    >>> vectors = topics.embed_texts(["optimal transport", "diffusion models"], "hashing", cache=False)
    >>> vectors.shape[0]
    2
    """
    chunk_size = chunk_size_from_env() if chunk_size is None else chunk_size
    embedder, texts = check_inputs(embedder, texts, chunk_size)
    fingerprint = embedder.fingerprint()
    if cache is False or cache is None or fingerprint is None:
        return Embeddings.of(embedder.encode(texts, show_progress=show_progress), fingerprint)
    store_cache = as_cache(cache)
    store = store_cache.load(fingerprint)
    keys, missing = missing_keys(texts, store)
    if missing:
        logger.info("embedding %d of %d texts with %s (%d cached)", len(missing), len(texts), embedder.name, len(texts) - len(missing))
        with progress_bar(len(missing), show_progress, "embedding") as bar:
            for chunk in chunked(missing, chunk_size):
                new = _encode_in_steps(embedder, [texts[i] for _, i in chunk], bar)
                chunk_keys = [k for k, _ in chunk]
                store_cache.append(fingerprint, chunk_keys, new)
                store.update(zip(chunk_keys, np.asarray(new, dtype=np.float32)))
        store_cache.compact(fingerprint)
    else:
        logger.info("all %d embeddings read from the cache", len(texts))
    return Embeddings.of(np.stack([store[k] for k in keys]).astype(np.float32, copy=False), fingerprint)


#: Texts embedded between two moves of the progress bar (:func:`embed_texts`).
PROGRESS_STEP = 64


def _encode_in_steps(embedder: Embedder, texts: list[str], bar) -> np.ndarray:
    """``embedder.encode(texts)``, :data:`PROGRESS_STEP` texts at a time (shortest first,
    so that each step pads little), moving ``bar`` after each step. Each row depends on
    its text alone, so the vectors are those of one call."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    parts = []
    for step in chunked(order, PROGRESS_STEP):
        parts.append(np.asarray(embedder.encode([texts[i] for i in step], show_progress=False), dtype=np.float32))
        bar.update(len(step))
    out = np.empty((len(texts), parts[0].shape[1]), dtype=np.float32)
    out[order] = np.concatenate(parts)
    return out
