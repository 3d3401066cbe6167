"""Embedding on a Dask cluster: the texts split into chunks over the workers.

Embedding is most of the cold time of an analysis (about 50 abstracts/s per 2-core
machine with MiniLM), so a large corpus is embedded faster by several machines.
:func:`embed_texts_distributed` (or ``analyze(..., scheduler=ADDRESS)``, or
``topics report --dask-scheduler ADDRESS``) does what :func:`topics.embedding.embed.embed_texts`
does, with the encoding done by ``dask.distributed`` workers:

* the client reads the on-disk cache and sends only the texts it lacks, ``chunk_size``
  at a time, a few chunks per worker in flight;
* each worker process builds the embedder once (the model is loaded on its first chunk
  and kept, :func:`worker_state`) and embeds one chunk at a time with as many PyTorch
  threads as it has Dask threads;
* the client writes each chunk into the cache as it arrives
  (:meth:`topics.embedding.cache.EmbeddingCache.append`), so the workers need no shared disk and
  an interrupted run keeps every finished chunk.

The vectors are those of the single-process path, bit for bit: a text's vector does not
depend on the chunk it travels in, nor on the worker's thread count, because every
forward pass has a shape fixed by its texts' own lengths
(:func:`topics.embedding.backends.fixed_shape_batches`).
Only backends whose vectors depend on each text alone can be split: the corpus-fitted
``lsa`` backend cannot. Requires ``pip install 'topics[dask]'``.
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from collections.abc import Sequence

import numpy as np

from topics.embedding.backends import DEFAULT_BACKEND, Embedder, SentenceTransformerEmbedder
from topics.embedding.cache import EmbeddingCache, as_cache, missing_keys
from topics.embedding.embed import check_inputs, chunk_size_from_env, chunked, progress_bar
from topics.embedding.weights import EmbeddingError

__all__ = ["SCHEDULER_ENV", "check_per_text", "connect", "embed_texts_distributed", "scheduler_from_env", "worker_state"]

logger = logging.getLogger(__name__)

#: Environment variable the ``topics`` command reads a scheduler address from.
SCHEDULER_ENV = "TOPICS_DASK_SCHEDULER"
#: Chunks in flight per worker: one being embedded, one waiting, so no worker idles.
_IN_FLIGHT_PER_WORKER = 2

# Per worker process, by "module.Class:fingerprint": one embedder, and what it did.
_EMBEDDERS: dict[str, Embedder] = {}
_LOCKS: dict[str, threading.Lock] = {}
_STATE: dict[str, dict[str, int]] = {}
_REGISTRY_LOCK = threading.Lock()


def scheduler_from_env() -> str | None:
    """The scheduler address in ``$TOPICS_DASK_SCHEDULER``, or ``None`` where unset or empty."""
    return os.environ.get(SCHEDULER_ENV) or None


def worker_state() -> dict[str, dict[str, int]]:
    """In this process: per embedder (``"module.Class:fingerprint"``), ``{"loads", "chunks", "texts"}`` so far.

    Run on every worker with ``client.run(topics.embedding.distributed.worker_state)`` to see that
    each loaded its model once and how the chunks were shared.
    """
    with _REGISTRY_LOCK:
        return {slot: dict(counts) for slot, counts in _STATE.items()}


def _embed_chunk(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """Worker side: embed one chunk with this process's copy of ``embedder``."""
    fingerprint = embedder.fingerprint()
    slot = f"{type(embedder).__module__}.{type(embedder).__qualname__}:{fingerprint}"
    with _REGISTRY_LOCK:
        if slot not in _EMBEDDERS:
            _EMBEDDERS[slot] = embedder  # loads its model on its first encode, then keeps it
            _LOCKS[slot] = threading.Lock()
            _STATE[slot] = {"loads": 1, "chunks": 0, "texts": 0}
        local, lock = _EMBEDDERS[slot], _LOCKS[slot]
    with lock:  # one chunk at a time per process: the model's own threads use the cores
        _set_torch_threads(isinstance(local, SentenceTransformerEmbedder))
        vectors = np.asarray(local.encode(texts, show_progress=False), dtype=np.float32)
    with _REGISTRY_LOCK:
        _STATE[slot]["chunks"] += 1
        _STATE[slot]["texts"] += len(texts)
    return vectors


def _set_torch_threads(uses_torch: bool) -> None:
    """Give PyTorch as many threads as this Dask worker has (Dask's nanny sets OMP_NUM_THREADS=1)."""
    import sys

    if not uses_torch and "torch" not in sys.modules:
        return
    import torch

    try:
        from distributed import get_worker

        n = get_worker().state.nthreads
    except (ImportError, ValueError, AttributeError):
        return
    if torch.get_num_threads() != n:
        torch.set_num_threads(n)


def check_per_text(embedder: Embedder) -> str:
    """``embedder``'s fingerprint; a ``ValueError`` where it has none: a backend fitted on
    the whole corpus (LSA) cannot be split over workers."""
    fingerprint = embedder.fingerprint()
    if fingerprint is None:
        raise ValueError(
            f"the {embedder.name} backend is fitted on the whole corpus, so it cannot be split over Dask workers; "
            "embed without a scheduler, or use a per-text backend such as minilm"
        )
    return fingerprint


def connect(scheduler):
    """A ``distributed.Client`` for ``scheduler`` (an address, or a Client given as is) and
    whether this call opened it (then the caller closes it)."""
    try:
        from distributed import Client
    except ImportError as exc:
        raise EmbeddingError("a Dask cluster needs dask.distributed: pip install 'topics[dask]'") from exc
    if isinstance(scheduler, Client):
        return scheduler, False
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise ValueError(f"scheduler must be a Dask scheduler address such as 'tcp://10.0.0.5:8786' or a Client, not {scheduler!r}")
    try:
        return Client(scheduler.strip(), set_as_default=False), True
    except (OSError, TimeoutError, ValueError) as exc:
        raise EmbeddingError(f"cannot reach the Dask scheduler at {scheduler!r} ({type(exc).__name__}: {exc})") from exc


def embed_texts_distributed(
    texts: Sequence[str],
    embedder: Embedder | str = DEFAULT_BACKEND,
    *,
    scheduler,
    cache: EmbeddingCache | str | os.PathLike[str] | None | bool = True,
    show_progress: bool = False,
    chunk_size: int | None = None,
) -> np.ndarray:
    """Embed ``texts`` on a Dask cluster, reading and filling the on-disk cache (module docs).

    Parameters
    ----------
    texts
        The texts, in order.
    embedder
        A backend name (see :func:`topics.embedding.backends.get_embedder`) or an
        :class:`topics.embedding.backends.Embedder` whose vectors depend on each text alone (its
        ``fingerprint()`` is not ``None``). It is pickled to the workers, so it must be
        importable there: the same ``topics`` version (and model files, for a local
        model folder) on every worker.
    scheduler
        A scheduler address (``"tcp://10.0.0.5:8786"``) or a ``distributed.Client``.
        A client passed in is left open; one made here is closed at the end.
    cache, show_progress, chunk_size
        As in :func:`topics.embedding.embed.embed_texts`: the cache on this machine (the
        client writes it), a progress bar, and texts per task.

    Returns what :func:`topics.embedding.embed.embed_texts` returns.
    """
    chunk_size = chunk_size_from_env() if chunk_size is None else chunk_size
    embedder, texts = check_inputs(embedder, texts, chunk_size)
    fingerprint = check_per_text(embedder)
    use_cache = cache is not False and cache is not None
    store_cache = as_cache(cache) if use_cache else None
    store = store_cache.load(fingerprint) if use_cache else {}
    keys, missing = missing_keys(texts, store)
    if not missing:
        logger.info("all %d embeddings read from the cache", len(texts))
        return np.stack([store[k] for k in keys]).astype(np.float32, copy=False)

    client, owned = connect(scheduler)
    try:
        _run(client, embedder, texts, missing, chunk_size, store, store_cache, fingerprint, show_progress)
    finally:
        if owned:
            client.close()
    if use_cache:
        store_cache.compact(fingerprint)
    return np.stack([store[k] for k in keys]).astype(np.float32, copy=False)


def _run(client, embedder, texts, missing, chunk_size, store, store_cache, fingerprint, show_progress) -> None:
    from distributed import as_completed

    n_workers = len(client.scheduler_info().get("workers", {}))
    if n_workers == 0:
        raise EmbeddingError("the Dask cluster has no workers; start some with 'dask worker ADDRESS'")
    chunks = chunked(missing, chunk_size)
    logger.info(
        "embedding %d of %d texts with %s on %d Dask workers (%d chunks; %d cached)",
        len(missing), len(texts), embedder.name, n_workers, len(chunks), len(texts) - len(missing),
    )
    [remote_embedder] = client.scatter([embedder], broadcast=True, hash=False)  # sent once, not per task
    run_id = uuid.uuid4().hex[:8]
    pending = iter(enumerate(chunks))
    chunk_of = {}

    def submit():
        for j, chunk in pending:
            future = client.submit(_embed_chunk, remote_embedder, [texts[i] for _, i in chunk], key=f"topics-embed-{run_id}-{j}")
            chunk_of[future.key] = chunk
            return future
        return None

    first = [f for f in (submit() for _ in range(_IN_FLIGHT_PER_WORKER * n_workers)) if f is not None]
    # as_completed gathers results through the current client; make it this one, which
    # need not be the default (a client made from an address here is not)
    with client.as_current(), progress_bar(len(missing), show_progress, f"embedding on {n_workers} workers") as bar:
        queue = as_completed(first, with_results=True, raise_errors=True)
        try:
            for future, vectors in queue:
                chunk = chunk_of.pop(future.key)
                chunk_keys = [k for k, _ in chunk]
                if store_cache is not None:
                    store_cache.append(fingerprint, chunk_keys, vectors)
                store.update(zip(chunk_keys, vectors))
                bar.update(len(chunk))
                if (following := submit()) is not None:
                    queue.add(following)
        except BaseException:
            client.cancel(list(queue.futures))
            raise
