"""Registries: declarations kept by name, one shape for all of them.

The package keeps three: the embedding backends (:data:`topics.embedding.backends.BACKENDS`,
filled by :func:`~topics.embedding.backends.register_backend`), the report's view of each
kind of comparison (:data:`topics.report.kinds.KINDS`, :func:`~topics.report.kinds.register_kind`)
and the report's charts (:data:`topics.report.charts.CHARTS`,
:func:`~topics.report.charts.register_chart`). Each is a plain ``dict`` of frozen
declarations by name, in the order registered; its ``register_*`` function checks what
its own declarations need, then calls :func:`register`, and a name is read back with
:func:`find`. The package registers its own declarations in one loop at the end of the
module that defines them; code outside it (a plug-in, a test) calls the same
``register_*`` function.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import TypeVar

__all__ = ["find", "register"]

T = TypeVar("T")


def register(registry: MutableMapping[str, T], name: str, item: T, *, what: str) -> T:
    """Add ``item`` to ``registry`` under ``name``; returns it.

    Parameters
    ----------
    registry
        The registry, a ``dict`` by name.
    name
        The item's name (a backend's ``name``, a chart's ``key``, a view's ``kind``).
    item
        The declaration.
    what
        What the registry holds, for the error: ``"embedding backend"``, ``"chart"``.

    Raises
    ------
    ValueError
        If ``name`` is taken: one name, one declaration.

    Examples
    --------
    >>> colours = {}
    >>> register(colours, "red", "#d62728", what="colour")
    '#d62728'
    >>> register(colours, "red", "#ff0000", what="colour")
    Traceback (most recent call last):
    ...
    ValueError: colour 'red' exists already
    """
    if name in registry:
        raise ValueError(f"{what} {name!r} exists already")
    registry[name] = item
    return item


def find(registry: Mapping[str, T], name: str, *, what: str, fix: str | None = None) -> T:
    """The item of ``registry`` called ``name``.

    Parameters
    ----------
    registry
        The registry, a ``dict`` by name.
    name
        The name looked up.
    what
        What the registry holds, for the error.
    fix
        What to do where ``name`` is not there; by default, choose one of the names there.

    Raises
    ------
    ValueError
        If no item is called ``name``; it names ``name`` and the fix.

    Examples
    --------
    >>> find({"red": "#d62728"}, "red", what="colour")
    '#d62728'
    >>> find({"red": "#d62728"}, "blue", what="colour")
    Traceback (most recent call last):
    ...
    ValueError: unknown colour 'blue'; choose one of red
    """
    if name not in registry:
        raise ValueError(f"unknown {what} {name!r}; {fix or 'choose one of ' + ', '.join(registry)}")
    return registry[name]
