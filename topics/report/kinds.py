"""How the report shows each kind of comparison, one declaration per kind.

A comparison (:mod:`topics.stats.comparison`) holds the statistics; its
:class:`ComparisonView` here holds what the report and the command line make of them:
the summary's heading, the rows of the table of every topic, the verdict on a topic
card and its style class, the report's default title and file name, and the template
(``templates/kinds/<kind>.html.j2``) whose macros write what differs in the page: the
note under the summary (``how``), the table (``table``) and the statistics paragraph of
the methods (``statistics``). :data:`KINDS` holds them by ``Comparison.kind``; the
report and the CLI read them through :func:`view`, so neither asks which kind a
comparison is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from topics.registry import find, register
from topics.stats.comparison import Comparison
from topics.stats.narration import clear_bursts

__all__ = ["KINDS", "ComparisonView", "file_stem", "register_kind", "rows", "tag", "title", "view"]


def _title(comparison: Comparison, venue: str) -> str:
    return f"{venue}: topics by {comparison.by} ({', '.join(map(str, comparison.groups))})"


def _file_stem(comparison: Comparison, venue_stem: str) -> str:
    return f"{venue_stem}-by-{comparison.by}"


@dataclass(frozen=True)
class ComparisonView:
    """The report's side of one kind of comparison.

    Attributes
    ----------
    kind : str
        The comparison's ``kind`` ("two_groups", "trend", "groups", "one_group").
    heading : callable
        ``heading(comparison) -> str``: the summary's heading.
    rows : callable
        ``rows(comparison, stability, bursts) -> list[dict]``: one dict of numbers and
        text per row of ``comparison.table``, for the template's ``table`` macro.
    tag : callable
        ``tag(row) -> (verdict, style class)``: a topic's verdict, ("grew", "grew"),
        ("fading", "shrank"), ("more in Oral", "lean"), or ("", "") where nothing is
        clear; ``row`` is never ``None``.
    title : callable
        ``title(comparison, venue) -> str``: the report's default title.
    file_stem : callable
        ``file_stem(comparison, venue_stem) -> str``: a file name (no suffix) that says
        what was compared.

    Examples
    --------
    >>> view(analysis.comparison).kind == analysis.comparison.kind
    True
    """

    kind: str
    heading: Callable[[Comparison], str]
    rows: Callable[[Comparison, pd.DataFrame | None, pd.DataFrame | None], list[dict]] = lambda comparison, stability, bursts: []
    tag: Callable[[dict], tuple[str, str]] = lambda row: ("", "")
    title: Callable[[Comparison, str], str] = _title
    file_stem: Callable[[Comparison, str], str] = _file_stem

    @property
    def template(self) -> str:
        """The template of its macros ``how``, ``table`` and ``statistics``."""
        return f"kinds/{self.kind}.html.j2"


#: The report's view of each kind of comparison by ``Comparison.kind``; :func:`register_kind` adds one.
KINDS: dict[str, ComparisonView] = {}
_WHAT = "kind of comparison"


def register_kind(shown: ComparisonView) -> ComparisonView:
    """Add ``shown`` to :data:`KINDS` (a kind already there is a ``ValueError``); returns it."""
    return register(KINDS, shown.kind, shown, what=_WHAT)


def view(comparison: Comparison) -> ComparisonView:
    """How the report shows ``comparison``; a ``ValueError`` for a kind no view is registered for."""
    return find(KINDS, comparison.kind, what=_WHAT, fix="the report has no view of it: register one (register_kind)")


def rows(comparison: Comparison, *, stability: pd.DataFrame | None = None, bursts: pd.DataFrame | None = None) -> list[dict]:
    """One dict of numbers and text per row of ``comparison.table``, for the report's table;
    ``stability`` (a refit's) adds in how many seeds a change held, ``bursts`` a trend's bursts."""
    return view(comparison).rows(comparison, stability, bursts)


def tag(comparison: Comparison, row) -> tuple[str, str]:
    """A topic's verdict and its style class: ("grew", "grew"), ("fading", "shrank"),
    ("more in Oral", "lean"), or ("", "") where nothing is clear. ``row`` is the topic's
    row of ``comparison.table`` (or ``None``)."""
    return ("", "") if row is None else view(comparison).tag(row)


def title(comparison: Comparison, venue: str) -> str:
    """The report's default title."""
    return view(comparison).title(comparison, venue)


def file_stem(comparison: Comparison, venue_stem: str) -> str:
    """A file name (no suffix) that says what was compared."""
    return view(comparison).file_stem(comparison, venue_stem)


# --------------------------------------------------------------------------- two groups


def _lean_tag(label: str) -> tuple[str, str]:
    if label in ("grew", "shrank"):
        return label, label
    if label.startswith(("higher in", "more in", "less in")):
        return label, "lean"
    return "", ""


def _two_groups_rows(comparison, stability, bursts) -> list[dict]:
    a, b = comparison.group_a, comparison.group_b
    held = {}
    if stability is not None and len(stability):
        held = {int(r.topic): f"{r.same_direction}/{r.n_seeds}" for r in stability.itertuples(index=False)}
    return [
        {
            "topic": int(r["topic"]), "label": r["label"], "n_a": int(r[f"n_{a}"]), "n_b": int(r[f"n_{b}"]),
            "share_a": r[f"share_{a}"], "share_b": r[f"share_{b}"], "diff": r["diff_pp"],
            "low": r["ci_low_pp"], "high": r["ci_high_pp"], "z": r["z"], "p": r["p_value"], "q": r["q_value"],
            "direction": r["direction"], "held": held.get(int(r["topic"]), ""),
        }
        for r in comparison.table.to_dict("records")
    ]


def _two_groups_heading(comparison) -> str:
    if comparison.by != "year":
        return f"How do the topics differ by {comparison.by}?"
    return f"What changed from {comparison.group_a} to {comparison.group_b}?"


def _two_groups_title(comparison, venue) -> str:
    if comparison.by == "year":
        return f"{venue} {comparison.group_a} vs {comparison.group_b}: topics and trends"
    return _title(comparison, venue)


def _two_groups_file_stem(comparison, venue_stem) -> str:
    if comparison.by == "year":
        return f"{venue_stem}-{comparison.group_a}-vs-{comparison.group_b}"
    return _file_stem(comparison, venue_stem)


# --------------------------------------------------------------------------- trend

_TREND_STYLE = {"emerging": "grew", "growing": "grew", "fading": "shrank"}


def _burst_text(bursts, topic) -> str:
    bursts = clear_bursts(bursts)
    rows = bursts[bursts["topic"] == topic].sort_values("start")
    return ", ".join(f"{r.start}" if r.start == r.end else f"{r.start}–{r.end}" for r in rows.itertuples(index=False))


def _trend_rows(comparison, stability, bursts) -> list[dict]:
    return [
        {
            "topic": int(r["topic"]), "label": r["label"], "shares": [r[f"share_{g}"] for g in comparison.groups],
            "slope": r["slope_pp"], "low": r["slope_low_pp"], "high": r["slope_high_pp"], "z": r["z"], "q": r["q_value"],
            "trend": r["trend"], "row_class": _TREND_STYLE.get(r["trend"], ""), "burst": _burst_text(bursts, r["topic"]),
        }
        for r in comparison.table.to_dict("records")
    ]


def _trend_tag(row) -> tuple[str, str]:
    style = _TREND_STYLE.get(row["trend"], "")
    return (row["trend"], style) if style else ("", "")


def _trend_file_stem(comparison, venue_stem) -> str:
    if comparison.by == "year":
        return f"{venue_stem}-{comparison.groups[0]}-{comparison.groups[-1]}"
    return _file_stem(comparison, venue_stem)


# --------------------------------------------------------------------------- groups


def _groups_rows(comparison, stability, bursts) -> list[dict]:
    return [
        {
            "topic": int(r["topic"]), "label": r["label"], "shares": [r[f"share_{g}"] for g in comparison.groups],
            "share_all": r["share_all"], "zs": [r[f"z_{g}"] for g in comparison.groups], "chi2": r["chi2"], "q": r["q_value"],
            "leans": r["leans"], "row_class": "" if r["leans"] == "no clear difference" else "lean",
        }
        for r in comparison.table.to_dict("records")
    ]


# --------------------------------------------------------------------------- one group


def _one_group_title(comparison, venue) -> str:
    group = comparison.group
    return f"{venue} {group}: topics" if comparison.by == "year" else f"{venue}, {comparison.by} {group}: topics"


def _one_group_file_stem(comparison, venue_stem) -> str:
    group = comparison.group
    return f"{venue_stem}-{group}" if comparison.by == "year" else f"{venue_stem}-{comparison.by}-{group}"


for _view in (
    ComparisonView("two_groups", _two_groups_heading, _two_groups_rows, lambda row: _lean_tag(row["direction"]),
                   _two_groups_title, _two_groups_file_stem),
    ComparisonView("trend", lambda c: f"How did the topics move from {c.groups[0]} to {c.groups[-1]}?", _trend_rows, _trend_tag,
                   lambda c, venue: f"{venue} {c.groups[0]}–{c.groups[-1]}: topics and trends", _trend_file_stem),
    ComparisonView("groups", lambda c: f"How do the topics differ by {c.by}?", _groups_rows, lambda row: _lean_tag(row["leans"])),
    ComparisonView("one_group", lambda c: f"What are the topics of {c.group}?", title=_one_group_title, file_stem=_one_group_file_stem),
):
    register_kind(_view)
