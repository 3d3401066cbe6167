"""What a theme is and where themes come from: :class:`Theme`, theme files, example papers.

:func:`topics.themes.tracking.track` follows the themes through the years; this module only
defines and checks them, so every problem with a user's themes is found before any
tracking starts.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from topics.text import normalize, normalize_whitespace

__all__ = ["Theme", "as_themes", "read_themes", "resolve_examples"]


@dataclass(frozen=True)
class Theme:
    """A research area the user names.

    Parameters
    ----------
    name
        What the theme is called, and its first phrase ("optimal transport").
    phrases
        Further phrases or synonyms that name it ("Wasserstein distance", "Sinkhorn").
    examples
        Paper ids or exact titles of papers that belong to it; they are members and
        positives.

    Examples
    --------
    >>> theme = topics.Theme("optimal transport", phrases=("Wasserstein distance",))
    >>> tracked = topics.analyze(corpus, embedder="lsa", themes=[theme, "self-supervised learning"])
    >>> tracked.themes.summary["theme"].tolist()
    ['optimal transport', 'self-supervised learning']
    """

    name: str
    phrases: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"theme name must be a non-empty string, got {self.name!r}")
        for kind in ("phrases", "examples"):
            values = getattr(self, kind)
            if isinstance(values, str) or not all(isinstance(v, str) and v.strip() for v in values):
                raise ValueError(f"theme {self.name!r}: {kind} must be a list of non-empty strings, got {values!r}")
            object.__setattr__(self, kind, tuple(v.strip() for v in values))
        object.__setattr__(self, "name", self.name.strip())

    @property
    def all_phrases(self) -> tuple[str, ...]:
        return (self.name, *self.phrases)


def read_themes(path: str | os.PathLike[str]) -> tuple[Theme, ...]:
    """Read themes from a TOML (``.toml``) or YAML (``.yaml``, ``.yml``) file.

    The file holds a list ``themes`` (TOML: ``[[themes]]`` tables; YAML: a ``themes:``
    list or a bare list) whose entries have a ``name`` and optionally ``phrases`` and
    ``examples`` (lists of strings); a YAML entry may also be a bare name::

        [[themes]]
        name = "optimal transport"
        phrases = ["Wasserstein distance", "Sinkhorn"]
        examples = ["fgUFZAxywx"]

    Every problem raises :class:`ValueError` with a one-line message naming the file.
    """
    from pathlib import Path

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".yaml", ".yml"):
        raise ValueError(f"themes file {path}: unknown format {suffix or '(no suffix)'!r}; use .toml, .yaml or .yml")
    text = path.read_text(encoding="utf-8")
    if suffix == ".toml":
        import tomllib

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"themes file {path}: not valid TOML ({exc})") from None
    else:
        try:
            import yaml
        except ImportError:  # pragma: no cover - a declared dependency
            raise ValueError(f"themes file {path}: reading YAML needs PyYAML (pip install pyyaml), or use TOML") from None
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
            problem = getattr(exc, "problem", None) or type(exc).__name__
            raise ValueError(f"themes file {path}: not valid YAML ({problem}{where})") from None
    entries = data.get("themes", data.get("theme")) if isinstance(data, dict) else data
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"themes file {path}: expected a non-empty list 'themes' of entries with a 'name'")
    themes = []
    for i, entry in enumerate(entries, start=1):
        if isinstance(entry, str):
            entry = {"name": entry}
        if not isinstance(entry, dict):
            raise ValueError(f"themes file {path}: theme {i} is {type(entry).__name__}, expected a table with a 'name'")
        unknown = set(entry) - {"name", "phrases", "examples"}
        if unknown:
            raise ValueError(f"themes file {path}: theme {i} has unknown key(s) {', '.join(sorted(map(str, unknown)))}; "
                             "use name, phrases, examples")
        lists = {kind: entry.get(kind) or [] for kind in ("phrases", "examples")}
        for kind, values in lists.items():  # a string would be read as its letters, each naming the theme
            if not isinstance(values, list):
                raise ValueError(f"themes file {path}: theme {i}: {kind} must be a list of strings, got {values!r}")
        try:
            themes.append(Theme(entry.get("name", ""), tuple(lists["phrases"]), tuple(lists["examples"])))
        except (ValueError, TypeError) as exc:
            raise ValueError(f"themes file {path}: theme {i}: {exc}") from None
    return as_themes(themes)


def resolve_examples(theme: Theme, corpus: pd.DataFrame) -> np.ndarray:
    """Which corpus rows are ``theme``'s examples (by ``doc_id``, else by exact title, case
    and spacing ignored); an example that matches nothing, or a title that matches several
    papers, raises :class:`ValueError`."""
    found = np.zeros(len(corpus), dtype=bool)
    if not theme.examples:
        return found
    ids = corpus["doc_id"].astype(str)
    titles = corpus["title"].fillna("").map(lambda t: normalize_whitespace(t).lower())
    for example in theme.examples:
        hits = (ids == example).to_numpy()
        if not hits.any():
            hits = (titles == normalize_whitespace(example).lower()).to_numpy()
            if hits.sum() > 1:
                raise ValueError(f"theme {theme.name!r}: example title {example!r} matches {int(hits.sum())} papers; give its id")
        if not hits.any():
            raise ValueError(f"theme {theme.name!r}: example {example!r} is neither a paper id nor a title in the corpus")
        found |= hits
    return found


def as_themes(themes: Sequence[Theme | str] | Theme | str) -> tuple[Theme, ...]:
    """Themes from names or :class:`Theme` objects; names must be unique."""
    if isinstance(themes, (str, Theme)):
        themes = [themes]
    out = tuple(t if isinstance(t, Theme) else Theme(t) for t in themes)
    if not out:
        raise ValueError("no themes given")
    seen = Counter(normalize(t.name) for t in out)
    twice = [name for name, n in seen.items() if n > 1]
    if twice:
        raise ValueError(f"theme {twice[0]!r} is given more than once")
    return out
