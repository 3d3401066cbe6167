"""What a comparison of topic prevalence found, as one object per kind of comparison.

:func:`topics.stats.groups.compare_groups` (and :func:`topics.stats.trends.compare_years`)
return one of three types, chosen by the groups compared:

* :class:`TwoGroups` -- two groups (two years, orals against posters): differences of
  shares with intervals and Fisher's test;
* :class:`Trend` -- three or more ordered groups (years): Cochran-Armitage trends;
* :class:`Groups` -- three or more unordered groups (venues): chi-square tests and
  log-odds leans.

A corpus of one year has nothing to compare: :func:`topics.stats.groups.describe_group`
returns a :class:`OneGroup`, which describes the topics (their sizes) through the same
methods, so the report and the tables need no comparison to exist.

Each holds the per-topic ``table`` (a tidy DataFrame, its columns documented in
:func:`~topics.stats.groups.compare_groups`), the grouping column ``by``, the ``groups``
in order and the documents counted per group (``sizes``). Each knows how to say what it
found (:meth:`Comparison.narrate`), which charts show it (:meth:`Comparison.figures`),
the rows of the report's table (:meth:`Comparison.rows`) and the one-word verdict on a
topic (:meth:`Comparison.tag`): code that uses a comparison never asks which kind it is,
and a new kind of comparison is one new class here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import pandas as pd

from topics import figures
from topics.stats import narration

__all__ = ["Comparison", "Groups", "OneGroup", "Trend", "TwoGroups"]


@dataclass(frozen=True, eq=False)
class Comparison:
    """Topic prevalence compared between groups (the base of the three kinds).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per topic (or per area, see ``unit``); columns as documented in
        :func:`topics.stats.groups.compare_groups` for this kind.
    by : str
        The grouping column ("year", "venue", "status", ...).
    groups : tuple
        The compared groups, in order.
    sizes : dict
        Documents counted per group (those with a topic unless outliers were counted).
    unit : str
        What a row is: "topic", or "area" for a comparison of areas.

    Examples
    --------
    >>> comparison = analysis.comparison           # one of the kinds below
    >>> isinstance(comparison, topics.Comparison)
    True
    >>> sentences = comparison.narrate(areas=analysis.area_comparison)
    >>> charts = comparison.figures(analysis.prevalence)
    >>> isinstance(sentences, list) and isinstance(charts, dict)
    True
    """

    kind: ClassVar[str] = ""
    #: Key of the chart that shows this kind of comparison in one picture (used for areas).
    overview_key: ClassVar[str] = ""
    #: Whether groups are compared (``False`` only for :class:`OneGroup`): the comparison
    #: tables and the report's comparison sections exist only then.
    compares: ClassVar[bool] = True

    table: pd.DataFrame
    by: str
    groups: tuple
    sizes: dict = field(default_factory=dict)
    unit: str = "topic"

    def __len__(self) -> int:
        return len(self.table)

    @property
    def outliers_counted(self) -> bool:
        """Whether topic -1 is a row and every document is in the denominators."""
        t = self.table
        return bool(t["outliers_counted"].iloc[0]) if "outliers_counted" in t and len(t) else False

    @property
    def trend_over_years(self) -> bool:
        """Whether this is a trend over three or more years (bursts are looked for then)."""
        return False

    @property
    def year_a(self) -> int:
        """Only a comparison of two years has one (:class:`TwoGroups`); an AttributeError here."""
        raise AttributeError(f"a {self.kind!r} comparison by {self.by!r} has no year_a; see groups")

    @property
    def year_b(self) -> int:
        """Only a comparison of two years has one (:class:`TwoGroups`); an AttributeError here."""
        raise AttributeError(f"a {self.kind!r} comparison by {self.by!r} has no year_b; see groups")

    def per_area(self, table: pd.DataFrame) -> Comparison:
        """The same comparison for another table of the same kind, whose rows are areas."""
        return type(self)(**{**self.__dict__, "table": table, "unit": "area"})

    # ------------------------------------------------------------------ kind-specific
    def narrate(self, *, stability=None, bursts=None, areas: Comparison | None = None,
                max_items: int = 5, alpha: float = 0.05) -> list[str]:
        """Plain sentences on what the comparison found (:mod:`topics.stats.narration`)."""
        raise NotImplementedError

    def figures(self, prevalence: pd.DataFrame, *, areas: Comparison | None = None, topic_map=None) -> dict:
        """The charts of this comparison, in reading order, by key; ``areas`` adds the
        areas' overview chart, ``topic_map`` (a figure) is placed where it reads best."""
        raise NotImplementedError

    def overview(self, *, title: str | None = None):
        """The one chart that shows this comparison at a glance."""
        raise NotImplementedError

    def rows(self, *, stability: pd.DataFrame | None = None, bursts: pd.DataFrame | None = None) -> list[dict]:
        """One dict of numbers and text per row of ``table``, for the report's table."""
        raise NotImplementedError

    def tag(self, row) -> tuple[str, str]:
        """A topic's verdict and its style class: ("grew", "grew"), ("fading", "shrank"),
        ("more in Oral", "lean"), or ("", "") where nothing is clear. ``row`` is the
        topic's row of ``table`` (or ``None``)."""
        raise NotImplementedError

    def title(self, venue: str) -> str:
        """The report's default title."""
        return f"{venue}: topics by {self.by} ({', '.join(map(str, self.groups))})"

    def file_stem(self, venue_stem: str) -> str:
        """A file name (no suffix) that says what was compared."""
        return f"{venue_stem}-by-{self.by}"


def _area_chart(areas: Comparison | None, *, title: str | None = None) -> dict:
    """The areas' overview chart, keyed ``area_<key>``, where there are two or more areas."""
    if areas is None or len(areas) < 2:
        return {}
    return {f"area_{areas.overview_key}": areas.overview(title=title)}


def _map(topic_map) -> dict:
    return {} if topic_map is None else {"map": topic_map}


def _lean_tag(label: str) -> tuple[str, str]:
    if label in ("grew", "shrank"):
        return label, label
    if label.startswith(("higher in", "more in", "less in")):
        return label, "lean"
    return "", ""


@dataclass(frozen=True, eq=False)
class TwoGroups(Comparison):
    """Two groups: per topic the two shares, their difference with a Newcombe interval,
    the log-odds z, Fisher's exact test and its Benjamini-Hochberg q, and a direction.

    Attributes
    ----------
    table, by, groups, sizes, unit
        As in :class:`Comparison`.

    Examples
    --------
    >>> comparison = topics.compare_groups(analysis.documents, by="year")
    >>> type(comparison).__name__, comparison.groups
    ('TwoGroups', (2024, 2025))
    >>> {"diff_pp", "ci_low_pp", "ci_high_pp", "q_value", "direction"} <= set(comparison.table.columns)
    True
    """

    kind: ClassVar[str] = "two_groups"
    overview_key: ClassVar[str] = "shift"

    @property
    def group_a(self):
        """The first (for years: the earlier) group."""
        return self.groups[0]

    @property
    def group_b(self):
        """The second (for years: the later) group."""
        return self.groups[1]

    @property
    def n_a(self) -> int:
        return int(self.sizes[self.group_a])

    @property
    def n_b(self) -> int:
        return int(self.sizes[self.group_b])

    @property
    def year_a(self) -> int:
        """The earlier year; an AttributeError where the groups are not years."""
        if self.by != "year":
            raise AttributeError(f"a comparison by {self.by!r} has no year_a; see groups")
        return int(self.group_a)

    @property
    def year_b(self) -> int:
        """The later year; an AttributeError where the groups are not years."""
        if self.by != "year":
            raise AttributeError(f"a comparison by {self.by!r} has no year_b; see groups")
        return int(self.group_b)

    def narrate(self, *, stability=None, bursts=None, areas=None, max_items=5, alpha=0.05):
        if self.by != "year":
            return narration.narrate_pair(self, max_items=max_items, alpha=alpha)
        lead = narration.narrate_areas(areas, max_items=(max_items + 1) // 2, alpha=alpha) if areas is not None else []
        return lead + narration.narrate_years(self, stability=stability, max_items=max_items, alpha=alpha)

    def figures(self, prevalence, *, areas=None, topic_map=None):
        out = _area_chart(areas)
        out["shift"] = figures.prevalence_shift(self)
        out["significance"] = figures.significance_plot(self)
        out |= _map(topic_map)
        out["sizes"] = figures.topic_sizes(prevalence)
        return out

    def overview(self, *, title=None):
        return figures.prevalence_shift(self, title=title, unit=self.unit)

    def rows(self, *, stability=None, bursts=None):
        a, b = self.group_a, self.group_b
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
            for r in self.table.to_dict("records")
        ]

    def tag(self, row):
        return ("", "") if row is None else _lean_tag(row["direction"])

    def title(self, venue):
        if self.by == "year":
            return f"{venue} {self.group_a} vs {self.group_b}: topics and trends"
        return super().title(venue)

    def file_stem(self, venue_stem):
        if self.by == "year":
            return f"{venue_stem}-{self.group_a}-vs-{self.group_b}"
        return super().file_stem(venue_stem)


@dataclass(frozen=True, eq=False)
class Trend(Comparison):
    """Three or more ordered groups: per topic the share in each, the Cochran-Armitage
    test for a linear trend, the slope with its interval, and a class (emerging, growing,
    fading, stable, no clear trend).

    ``scores`` are the groups' positions on the axis (the years themselves, or 0, 1, 2
    for groups that are not numbers) and ``step`` names one unit of it ("year" or "step").

    Attributes
    ----------
    table, by, groups, sizes, unit
        As in :class:`Comparison`.
    scores
        The groups' positions on the axis.
    step
        One unit of that axis: "year" or "step".

    Examples
    --------
    >>> docs = analysis.documents.assign(year=[2021 + i % 3 for i in range(len(analysis.documents))])
    >>> trend = topics.compare_groups(docs, by="year")
    >>> type(trend).__name__, trend.step
    ('Trend', 'year')
    >>> {"slope_pp", "q_value", "trend"} <= set(trend.table.columns)
    True
    """

    kind: ClassVar[str] = "trend"
    overview_key: ClassVar[str] = "slopes"

    scores: tuple = ()
    step: str = "year"

    @property
    def trend_over_years(self) -> bool:
        return self.by == "year"

    def narrate(self, *, stability=None, bursts=None, areas=None, max_items=5, alpha=0.05):
        return narration.narrate_trend(self, bursts=bursts, max_items=max_items, alpha=alpha)

    def figures(self, prevalence, *, areas=None, topic_map=None):
        out = {
            "trends": figures.share_trends(prevalence, self),
            "movers": figures.trend_movers(prevalence, self),
            "slopes": figures.trend_slopes(self),
        }
        out |= _area_chart(areas, title="Which areas rose or fell?")
        return out | _map(topic_map)

    def overview(self, *, title=None):
        return figures.trend_slopes(self, title=title)

    def rows(self, *, stability=None, bursts=None):
        return [
            {
                "topic": int(r["topic"]), "label": r["label"], "shares": [r[f"share_{g}"] for g in self.groups],
                "slope": r["slope_pp"], "low": r["slope_low_pp"], "high": r["slope_high_pp"], "z": r["z"], "q": r["q_value"],
                "trend": r["trend"], "row_class": {"emerging": "grew", "growing": "grew", "fading": "shrank"}.get(r["trend"], ""),
                "burst": _burst_text(bursts, r["topic"]),
            }
            for r in self.table.to_dict("records")
        ]

    def tag(self, row):
        if row is None:
            return "", ""
        style = {"emerging": "grew", "growing": "grew", "fading": "shrank"}.get(row["trend"], "")
        return (row["trend"], style) if style else ("", "")

    def title(self, venue):
        return f"{venue} {self.groups[0]}–{self.groups[-1]}: topics and trends"

    def file_stem(self, venue_stem):
        if self.by == "year":
            return f"{venue_stem}-{self.groups[0]}-{self.groups[-1]}"
        return super().file_stem(venue_stem)


def _burst_text(bursts, topic) -> str:
    if bursts is None or not len(bursts):
        return ""
    rows = bursts[bursts["topic"] == topic].sort_values("start")
    return ", ".join(f"{r.start}" if r.start == r.end else f"{r.start}–{r.end}" for r in rows.itertuples(index=False))


@dataclass(frozen=True, eq=False)
class Groups(Comparison):
    """Three or more unordered groups: per topic Pearson's chi-square test of equal
    shares, its BH q, and per group the log-odds z against all the others.

    Attributes
    ----------
    table, by, groups, sizes, unit
        As in :class:`Comparison`.

    Examples
    --------
    >>> docs = analysis.documents.assign(status=["Oral", "Poster", "Spotlight"] * 30)
    >>> groups = topics.compare_groups(docs, by="status")
    >>> type(groups).__name__, groups.groups
    ('Groups', ('Oral', 'Poster', 'Spotlight'))
    >>> {"chi2", "q_value", "leans"} <= set(groups.table.columns)
    True
    """

    kind: ClassVar[str] = "groups"
    overview_key: ClassVar[str] = "heatmap"

    def narrate(self, *, stability=None, bursts=None, areas=None, max_items=5, alpha=0.05):
        return narration.narrate_groups(self, max_items=max_items, alpha=alpha)

    def figures(self, prevalence, *, areas=None, topic_map=None):
        out = {"heatmap": figures.group_heatmap(self)}
        out |= _area_chart(areas, title="Which areas lean to which group?")
        out["sizes"] = figures.topic_sizes(prevalence)
        return out | _map(topic_map)

    def overview(self, *, title=None):
        return figures.group_heatmap(self, title=title)

    def rows(self, *, stability=None, bursts=None):
        return [
            {
                "topic": int(r["topic"]), "label": r["label"], "shares": [r[f"share_{g}"] for g in self.groups],
                "share_all": r["share_all"], "zs": [r[f"z_{g}"] for g in self.groups], "chi2": r["chi2"], "q": r["q_value"],
                "leans": r["leans"], "row_class": "" if r["leans"] == "no clear difference" else "lean",
            }
            for r in self.table.to_dict("records")
        ]

    def tag(self, row):
        return ("", "") if row is None else _lean_tag(row["leans"])


@dataclass(frozen=True, eq=False)
class OneGroup(Comparison):
    """One group (a corpus of one year): nothing is compared. Per topic the papers and
    their share of the group with a 95 % Wilson interval, largest first; the summary and
    the charts describe the topics.

    Attributes
    ----------
    table, by, groups, sizes, unit
        As in :class:`Comparison`.

    Examples
    --------
    >>> one_year = topics.analyze(corpus[corpus["year"] == 2025], embedder="lsa", random_state=0)
    >>> type(one_year.comparison).__name__, one_year.comparison.compares
    ('OneGroup', False)
    """

    kind: ClassVar[str] = "one_group"
    overview_key: ClassVar[str] = "sizes"
    compares: ClassVar[bool] = False

    @property
    def group(self):
        """The one group (for years: the year)."""
        return self.groups[0]

    def narrate(self, *, stability=None, bursts=None, areas=None, max_items=5, alpha=0.05):
        return narration.narrate_one_group(self, areas=areas, max_items=max_items)

    def figures(self, prevalence, *, areas=None, topic_map=None):
        out = _area_chart(areas, title=f"How big is each area? Share of the {self.group} papers")
        out |= _map(topic_map)
        out["sizes"] = figures.topic_sizes(prevalence)
        return out

    def prevalence(self) -> pd.DataFrame:
        """The table in the layout of :func:`topics.stats.trends.prevalence` (one group)."""
        g, t = self.group, self.table
        out = pd.DataFrame({
            self.by: g, "topic": t["topic"], "label": t["label"], "n_docs": t[f"n_{g}"], f"{self.by}_total": self.sizes[g],
            "share": t[f"share_{g}"], "ci_low": t["ci_low"], "ci_high": t["ci_high"], "outliers_counted": t["outliers_counted"],
        })
        out.attrs["by"] = self.by
        return out

    def overview(self, *, title=None):
        return figures.topic_sizes(self.prevalence(), title=title)

    def rows(self, *, stability=None, bursts=None):
        return []

    def tag(self, row):
        return "", ""

    def title(self, venue):
        return f"{venue} {self.group}: topics" if self.by == "year" else f"{venue}, {self.by} {self.group}: topics"

    def file_stem(self, venue_stem):
        return f"{venue_stem}-{self.group}" if self.by == "year" else f"{venue_stem}-{self.by}-{self.group}"
