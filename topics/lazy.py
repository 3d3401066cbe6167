"""Subpackages that import their modules on first use (PEP 562).

``import topics`` loads no module of a subpackage; ``topics.stats.bursts`` imports
``topics/stats/bursts.py`` the first time it is read. Each subpackage's ``__init__`` sets
``__getattr__ = submodules(__name__)``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType

__all__ = ["submodules"]


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
