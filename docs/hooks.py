"""MkDocs hooks of the documentation site (mkdocs.yml names this file).

* ``<!-- api: topics.__all__ -->`` on a page becomes one mkdocstrings block per public
  name, so the API reference lists exactly ``topics.__all__``;
* ``<!-- benchmarks: HEADING -->`` becomes the first table under that heading of
  ``benchmarks/README.md``, so the headline figures are never copied by hand;
* every public name's docstring is checked (:func:`docstring_problems`); a gap is a
  warning, and ``mkdocs build --strict`` fails on it.

``tests/test_docs.py`` imports this file to run the same checks.
"""

from __future__ import annotations

import inspect
import logging
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks" / "README.md"
API_MARK = "<!-- api: topics.__all__ -->"
BENCH_MARK = re.compile(r"^<!-- benchmarks: (?P<heading>.+?) -->$", re.M)  # a line of its own
SECTION = re.compile(r"^(?P<name>[A-Z][a-z]+)\n-{3,}$", re.M)

log = logging.getLogger("mkdocs.plugins.topics_docs")


def public_names() -> list[str]:
    """``topics.__all__``, in its order."""
    import topics

    return list(topics.__all__)


def api_markdown() -> str:
    """One ``::: topics.NAME`` block per public name."""
    return "\n\n".join(f"::: topics.{name}" for name in public_names()) + "\n"


def _sections(doc: str) -> set[str]:
    return {m.group("name") for m in SECTION.finditer(doc)}


def _parameters(obj) -> list[str]:
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    skip = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [p.name for p in signature.parameters.values() if p.name != "self" and p.kind not in skip]


def _documented(doc: str, section: str) -> set[str]:
    """The names a numpy-style section lists ("name : type" or "a, b : type" lines)."""
    parts = re.split(rf"^{section}\n-{{3,}}$", doc, maxsplit=1, flags=re.M)
    if len(parts) < 2:
        return set()
    block = SECTION.split(parts[1])[0]
    names = re.findall(r"^(\w+(?:, \w+)*)", block, re.M)
    return {n for group in names for n in group.split(", ")}


def docstring_problems(name: str, obj) -> list[str]:
    """What the docstring of one public name lacks; an empty list when it is complete.

    Every name needs a summary and an ``Examples`` section with a doctest. A function also
    needs ``Parameters`` naming each of its parameters, ``Returns`` and ``Raises``; a class
    ``Parameters`` naming each argument of its constructor (if it takes any). A module
    needs a summary and an example.
    """
    doc = inspect.getdoc(obj) or ""
    problems = []
    if not doc.strip():
        return [f"{name}: no docstring"]
    sections = _sections(doc)
    if "Examples" not in sections or ">>>" not in doc:
        problems.append(f"{name}: no Examples section with a doctest")
    if inspect.ismodule(obj) or (inspect.isclass(obj) and issubclass(obj, BaseException)):
        return problems
    params = _parameters(obj)
    if params:
        # a dataclass documents its fields, its constructor's parameters, as Attributes
        documented = _documented(doc, "Parameters") | (_documented(doc, "Attributes") if inspect.isclass(obj) else set())
        if not documented:
            problems.append(f"{name}: no Parameters section")
        missing = [p for p in params if p not in documented]
        if documented and missing:
            problems.append(f"{name}: parameters not documented: {', '.join(missing)}")
    if inspect.isfunction(obj):
        for section in ("Returns", "Raises"):
            if section not in sections:
                problems.append(f"{name}: no {section} section")
    return problems


def all_docstring_problems() -> list[str]:
    """:func:`docstring_problems` over ``topics.__all__``."""
    import topics

    return [p for name in public_names() for p in docstring_problems(name, getattr(topics, name))]


def benchmark_table(heading: str, text: str | None = None) -> str:
    """The first Markdown table under ``heading`` (a heading's text, without the hashes)
    in ``benchmarks/README.md``; raises ``KeyError`` when there is no such heading or table."""
    text = BENCHMARKS.read_text(encoding="utf-8") if text is None else text
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if re.fullmatch(r"#+ " + re.escape(heading), line.strip())]
    if not starts:
        raise KeyError(f"benchmarks/README.md has no heading {heading!r}")
    table, inside = [], False
    for line in lines[starts[0] + 1:]:
        if line.startswith("#"):
            break
        if line.startswith("|"):
            table.append(line)
            inside = True
        elif inside:
            break
    if not table:
        raise KeyError(f"benchmarks/README.md: no table under {heading!r}")
    return "\n".join(table)


def on_config(config, **kwargs):
    for problem in all_docstring_problems():
        log.warning("incomplete docstring: %s", problem)
    return config


def on_page_markdown(markdown: str, page, config, files, **kwargs):
    if API_MARK in markdown:
        markdown = markdown.replace(API_MARK, api_markdown())

    def table(match: re.Match) -> str:
        try:
            return benchmark_table(match.group("heading"))
        except KeyError as exc:
            log.warning("%s: %s", page.file.src_path, exc.args[0])
            return ""

    return BENCH_MARK.sub(table, markdown)
