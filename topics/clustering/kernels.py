"""Compile UMAP's numba functions once per installation instead of once per process.

umap-learn decorates most of its kernels with ``numba.njit()`` without ``cache=True``,
so every new Python process compiles them again: seconds on each ``topics report``,
most of the run on a small corpus. :func:`cache_umap_kernels` turns on numba's own
on-disk cache (``Dispatcher.enable_caching``, what ``cache=True`` does) for UMAP's
module-level kernels before their first use. numba keys each entry on the function's
source file, bytecode, argument types and CPU, and stores it in ``__pycache__`` beside
umap's sources, or in ``$NUMBA_CACHE_DIR`` / the user cache folder where that is not
writable. A kernel that numba cannot cache is compiled as before.

Set ``TOPICS_NUMBA_CACHE=0`` to leave umap exactly as installed.

``python -m topics.clustering.precompile`` (``make setup`` runs it) compiles the kernels a
fit uses once, at installation, so that the first ``topics report`` does not.
"""

from __future__ import annotations

import collections
import importlib
import logging
import os

__all__ = ["cache_umap_kernels"]

logger = logging.getLogger(__name__)

UMAP_MODULES = ("umap.umap_", "umap.layouts", "umap.utils", "umap.distances", "umap.spectral", "umap.sparse")

_enabled: int | None = None


def cache_umap_kernels() -> int:
    """Enable numba's on-disk cache for UMAP's kernels; return how many were switched on.

    Idempotent; returns 0 when ``TOPICS_NUMBA_CACHE`` is ``0``/``false``/``no``.
    """
    global _enabled
    if _enabled is not None:
        return _enabled
    if os.environ.get("TOPICS_NUMBA_CACHE", "1").strip().lower() in {"0", "false", "no", "off"}:
        _enabled = 0
        return 0
    from numba.core.caching import NullCache
    from numba.core.dispatcher import Dispatcher

    dispatchers = []
    for name in UMAP_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:  # pragma: no cover - a umap release without this module
            continue
        dispatchers.extend(obj for obj in vars(module).values() if isinstance(obj, Dispatcher))
    # numba names a cache entry after the Python function, not the compile options, so two
    # dispatchers of one function (umap's serial and parallel layout epochs) would read
    # each other's code: cache only the serial one (UMAP runs it when seeded).
    by_function: dict[int, list] = collections.defaultdict(list)
    for dispatcher in dict.fromkeys(dispatchers):
        by_function[id(dispatcher.py_func)].append(dispatcher)
    count = 0
    for group in by_function.values():
        if len(group) > 1:
            group = [d for d in group if not d.targetoptions.get("parallel")][:1]
        for dispatcher in group:
            if isinstance(dispatcher._cache, NullCache):
                try:
                    dispatcher.enable_caching()
                except RuntimeError as exc:  # no writable cache folder anywhere: compile as before
                    logger.debug("numba cache unavailable (%s); UMAP compiles in each process", exc)
                    _enabled = count
                    return count
                count += 1
    logger.debug("numba on-disk cache enabled for %d UMAP kernels", count)
    _enabled = count
    return count
