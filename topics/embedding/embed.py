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

from topics.embedding.backends import Embedder, get_embedder
from topics.embedding.cache import EmbeddingCache, as_cache, missing_keys

__all__ = ["CHUNK_SIZE_ENV", "DEFAULT_CHUNK_SIZE", "check_inputs", "chunk_size_from_env", "chunked", "embed_texts", "progress_bar"]

logger = logging.getLogger(__name__)

#: Texts embedded between two writes to the cache (:func:`embed_texts`), unless
#: :data:`CHUNK_SIZE_ENV` says otherwise.
DEFAULT_CHUNK_SIZE = 1024

#: The environment variable that sets the chunk size (``TOPICS_CHUNK_SIZE=256``): smaller
#: chunks lose less work when a run is killed, so a corpus of 1,024 texts or fewer can resume.
CHUNK_SIZE_ENV = "TOPICS_CHUNK_SIZE"


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
    embedder: Embedder | str = "minilm",
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
    numpy.ndarray
        ``float32`` array of shape ``(len(texts), dim)``, row ``i`` for ``texts[i]``.

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
        return embedder.encode(texts, show_progress=show_progress)
    store_cache = as_cache(cache)
    store = store_cache.load(fingerprint)
    keys, missing = missing_keys(texts, store)
    if missing:
        logger.info("embedding %d of %d texts with %s (%d cached)", len(missing), len(texts), embedder.name, len(texts) - len(missing))
        with progress_bar(len(missing), show_progress, "embedding") as bar:
            for chunk in chunked(missing, chunk_size):
                new = embedder.encode([texts[i] for _, i in chunk], show_progress=False)
                chunk_keys = [k for k, _ in chunk]
                store_cache.append(fingerprint, chunk_keys, new)
                store.update(zip(chunk_keys, np.asarray(new, dtype=np.float32)))
                bar.update(len(chunk))
        store_cache.compact(fingerprint)
    else:
        logger.info("all %d embeddings read from the cache", len(texts))
    return np.stack([store[k] for k in keys]).astype(np.float32, copy=False)
