"""A Griffe extension for the API reference: the docstrings use Sphinx roles
(``:func:`topics.analyze```, ``:class:`~topics.stats.comparison.TwoGroups```), which
mkdocstrings would show as written. Each becomes inline code of the name, shortened to
its last part where the role asks for it with ``~``. mkdocs.yml loads this file."""

from __future__ import annotations

import re

import griffe

ROLE = re.compile(r":(?:func|class|meth|mod|attr|data|exc|obj|py:\w+):`(?P<tilde>~?)(?P<name>[^`]+)`")


def plain(text: str) -> str:
    """``text`` with every Sphinx role replaced by inline code of its target."""

    def code(match: re.Match) -> str:
        name = match.group("name")
        return f"`{name.rsplit('.', 1)[-1] if match.group('tilde') else name}`"

    return ROLE.sub(code, text)


class SphinxRoles(griffe.Extension):
    """Rewrites the roles of every docstring once the object tree is built."""

    def on_object(self, *, obj, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = plain(obj.docstring.value)
