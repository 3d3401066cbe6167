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
found (:meth:`Comparison.narrate`) and which chart shows it at a glance
(:meth:`Comparison.overview`): code that uses a comparison never asks which kind it is.
What the report makes of each kind (its charts, the rows of its table, the verdict on a
topic, its title and file name) is declared in :mod:`topics.report.kinds` and
:mod:`topics.report.charts`; a new kind of comparison is one new class here and one
declaration there.
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
    >>> chart = comparison.overview()              # a plotly Figure
    >>> isinstance(sentences, list) and len(chart.data) > 0
    True
    """

    kind: ClassVar[str] = ""
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

    def overview(self, *, title: str | None = None):
        """The one chart that shows this comparison at a glance."""
        raise NotImplementedError


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

    def overview(self, *, title=None):
        return figures.prevalence_shift(self, title=title, unit=self.unit)



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

    scores: tuple = ()
    step: str = "year"

    @property
    def trend_over_years(self) -> bool:
        return self.by == "year"

    def narrate(self, *, stability=None, bursts=None, areas=None, max_items=5, alpha=0.05):
        return narration.narrate_trend(self, bursts=bursts, max_items=max_items, alpha=alpha)

    def overview(self, *, title=None):
        return figures.trend_slopes(self, title=title)



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

    def narrate(self, *, stability=None, bursts=None, areas=None, max_items=5, alpha=0.05):
        return narration.narrate_groups(self, max_items=max_items, alpha=alpha)

    def overview(self, *, title=None):
        return figures.group_heatmap(self, title=title)



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
    compares: ClassVar[bool] = False

    @property
    def group(self):
        """The one group (for years: the year)."""
        return self.groups[0]

    def narrate(self, *, stability=None, bursts=None, areas=None, max_items=5, alpha=0.05):
        return narration.narrate_one_group(self, areas=areas, max_items=max_items)

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
