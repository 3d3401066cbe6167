"""Imports paid for only when, and while, they are needed.

``import topics`` loads no module of a subpackage; ``topics.stats.bursts`` imports
``topics/stats/bursts.py`` the first time it is read. Each subpackage's ``__init__`` sets
``__getattr__ = submodules(__name__)``. :func:`preload` imports modules a later step
needs in a background thread, while this one works.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Callable
from types import ModuleType

__all__ = ["preload", "submodules"]

logger = logging.getLogger(__name__)


def submodules(package: str) -> Callable[[str], ModuleType]:
    """A module ``__getattr__`` for ``package`` that imports ``package.<name>`` when the
    attribute is first read; an AttributeError where there is no such module, and the
    import's own error where the module exists but a dependency of it is missing."""

    def __getattr__(name: str) -> ModuleType:
        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{package}.{name}":  # a dependency of the module is missing: say so
                raise
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None

    return __getattr__


def preload(*modules: str) -> threading.Thread:
    """Import ``modules`` in a background thread, in order, and return the (started) thread.

    For a module that costs seconds to import (``bertopic`` pulls in PyTorch, transformers,
    UMAP and Plotly) and that a later step needs: the import runs while this step works,
    and the later ``import`` waits for it (Python's per-module import locks) instead of
    starting again. A module that fails to import is left for that later ``import`` to
    report. The thread is a daemon: a run that stops early (an error, Ctrl-C) exits at
    once instead of waiting for the import, which may take a minute on a loaded machine.
    Start it only where the modules will be needed, so that a run that goes on imports
    them anyway and never exits in the middle of the import.

    Examples
    --------
    >>> thread = preload("json")
    >>> thread.join()
    >>> import sys; "json" in sys.modules
    True
    """

    def run() -> None:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception as exc:  # the import in the step that needs it raises it again
                logger.debug("preloading %s failed: %s", name, exc)
                return

    thread = threading.Thread(target=run, name=f"preload {', '.join(modules)}", daemon=True)
    thread.start()
    return thread
