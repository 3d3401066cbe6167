"""The report's charts, one declaration each: its key, its builder, its reading guide and
the kinds of comparison it is shown for.

:data:`CHARTS` holds every :class:`Chart` by key; :func:`build_figures` builds those of
an analysis's kind of comparison (``analysis.comparison.kind``) in their reading order,
and :func:`topics.report.render.render_report` shows each under its guide
(:meth:`Chart.how`). A new chart is one :func:`register_chart` call, here or in the code
that adds it (a plug-in, a test): a builder that takes the
:class:`~topics.pipeline.Analysis` and returns a Plotly figure (or ``None`` where it has
nothing to show), a guide, and the kinds with the chart's place in each. A chart without
a guide cannot be declared.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from topics import figures
from topics.clustering.neighbors import place_again
from topics.pipeline import Analysis
from topics.registry import register
from topics.report.kinds import KINDS
from topics.report.sections import new_in_year_section
from topics.stats.density import growth_peaks, year_density

__all__ = ["CHARTS", "Chart", "build_figures", "charts_for", "register_chart"]

#: A chart's place among the charts shown for every kind (after each kind's own).
LAST = 100


@dataclass(frozen=True)
class Chart:
    """One chart of the report.

    Attributes
    ----------
    key : str
        Its name: the section's and the figure's id (``chart-<key>``) in the page.
    build : callable
        ``build(analysis) -> plotly Figure | None``; ``None`` leaves the chart out of this report.
    guide : str or callable
        How to read it, shown above it: a text, or ``guide(analysis, figure) -> str``.
    kinds : mapping or None
        The kinds of comparison (``Comparison.kind``: "two_groups", "trend", "groups",
        "one_group") it is shown for, each with the chart's place in that kind's reading
        order (smaller first); ``None``: every kind, at ``place``.
    place : int
        Its place where ``kinds`` is ``None``.
    guide_groups : str or callable or None
        The guide where the groups are not years (say "group" for "year"); ``None``: ``guide``.

    Raises
    ------
    ValueError
        If the chart has no key or no guide.

    Examples
    --------
    >>> chart = Chart("sizes_again", lambda analysis: None, "Bars are shares.", kinds={"trend": 60})
    >>> chart.shown_for("trend"), chart.shown_for("groups")
    (True, False)
    """

    key: str
    build: Callable[[Analysis], object]
    guide: str | Callable[[Analysis, object], str]
    kinds: Mapping[str, int] | None = None
    place: int = LAST
    guide_groups: str | Callable[[Analysis, object], str] | None = None

    def __post_init__(self):
        if not self.key:
            raise ValueError("a chart needs a key")
        if not self.guide:
            raise ValueError(f"chart {self.key!r} has no reading guide; give it one (guide=...) to declare it")

    def shown_for(self, kind: str) -> bool:
        """Whether the chart belongs to a report on a comparison of this kind."""
        return self.kinds is None or kind in self.kinds

    def order(self, kind: str) -> int:
        """Its place in the reading order of a comparison of this kind."""
        return self.place if self.kinds is None else self.kinds[kind]

    def how(self, analysis: Analysis, figure) -> str:
        """The guide for this analysis (said of groups where the grouping is not by year)."""
        guide = self.guide_groups if analysis.by != "year" and self.guide_groups else self.guide
        return guide(analysis, figure) if callable(guide) else guide


#: Every chart of the report by key, in the order declared; :func:`register_chart` adds one.
CHARTS: dict[str, Chart] = {}


def register_chart(chart: Chart) -> Chart:
    """Add ``chart`` to :data:`CHARTS` (a key already taken, or a kind of comparison that no
    view declares in :data:`topics.report.kinds.KINDS`, is a ``ValueError``); returns it."""
    unknown = sorted(set(chart.kinds or ()) - set(KINDS))
    if unknown:
        raise ValueError(f"chart {chart.key!r} is shown for {', '.join(map(repr, unknown))}, which no kind of comparison "
                         f"is (register_kind declares one; the kinds: {', '.join(KINDS)})")
    return register(CHARTS, chart.key, chart, what="chart")


def charts_for(kind: str) -> list[Chart]:
    """The charts of a comparison of this kind, in reading order."""
    return sorted((c for c in CHARTS.values() if c.shown_for(kind)), key=lambda c: c.order(kind))


def build_figures(analysis: Analysis) -> dict:
    """Every chart of the report, by key, built from the analysis tables.

    The charts of the analysis's kind of comparison (:func:`charts_for`), those whose
    builder has something to show: for two groups the areas' shift, the prevalence
    shift, the significance plot, the map and the shares; for three or more years the
    small multiples of shares, the biggest movers, the slopes, the areas' slopes and the
    map; for three or more other groups the heatmap of log-odds z, the areas' heatmap, the
    shares and the map; for one group the areas' sizes, the map and the shares. Then, for
    every kind, the terms, similarity and hierarchy charts, and the themes' shares.
    """
    out = {}
    for chart in charts_for(analysis.comparison.kind):
        figure = chart.build(analysis)
        if figure is not None:
            out[chart.key] = figure
    return out


# --------------------------------------------------------------------------- builders


def _areas(title: Callable[[Analysis], str | None] = lambda analysis: None):
    """The areas' overview chart (:meth:`topics.stats.comparison.Comparison.overview`), where
    there are two or more areas."""
    def build(analysis: Analysis):
        areas = analysis.area_comparison
        if areas is None or len(areas) < 2:
            return None
        return areas.overview(title=title(analysis))
    return build


def _topic_map(analysis: Analysis):
    return figures.topic_map(
        analysis.documents, analysis.coords, max_points=figures.MAP_MAX_POINTS,
        random_state=analysis.settings.random_state,
    )


def _terms(analysis: Analysis):
    return figures.topic_terms(analysis.terms) if len(analysis.terms) else None


def _related(build: Callable):
    """A chart of the topics' similarities, where there are two or more topics."""
    return lambda analysis: build(analysis.similarity) if analysis.similarity["topic_a"].nunique() >= 2 else None


def _themes(analysis: Analysis):
    return None if analysis.themes is None else figures.theme_shares(analysis.themes.prevalence)


def _growth(analysis: Analysis):
    """Where the last year's papers lie denser on the map than the earlier years'
    (:func:`topics.stats.density.year_density`), its significant peaks named; only where the
    report has a "New in <year>" section."""
    if new_in_year_section(analysis) is None:
        return None
    settings = analysis.settings
    years = [int(y) for y in settings.years]
    docs, coords = analysis.documents, np.array(analysis.coords, dtype=np.float64)
    added = int((settings.update or {}).get("n_documents", 0))
    if added:  # an update placed its papers from their neighbours: place the others alike
        old = len(coords) - added
        coords[:old] = place_again(coords[:old], analysis.embeddings[:old], n_neighbors=int(settings.params["n_neighbors"]) + 1)
    density = year_density(coords, docs["year"].to_numpy(), latest=years[-1])
    names = dict(zip(analysis.topics["topic"].astype(int), analysis.topics["label"]))
    peaks = growth_peaks(density, coords, docs["year"].to_numpy(), topics=docs["topic"].to_numpy(), topic_labels=names,
                         random_state=settings.random_state)
    before = ", ".join(map(str, years[:-1])) if len(years) <= 3 else f"{years[0]}–{years[-2]}"
    fig = figures.growth_map(density, peaks, before=before)
    fig.layout.meta = {**fig.layout.meta, "placed": bool(added)}
    return fig


def _growth_guide(analysis: Analysis, figure) -> str:
    """The growth map's guide: the years it compares, how the papers were placed, its peaks."""
    meta = figure.layout.meta
    peaks = (
        f" Circled, and named by the topic of most of their papers of {meta['latest']}: the places where it grew more than it "
        "grows anywhere on the map in 95 % of 99 maps drawn with the years shuffled among the papers."
        if meta["n_peaks"] else " No place stands out: the largest difference is within what maps drawn with the years shuffled among the papers give."
    )
    placed = (" The papers added by the update were placed on the map from their nearest earlier papers; here the "
              "earlier papers are placed the same way, each from its nearest other papers, so both sides are placed alike."
              if meta.get("placed") else "")
    return (
        f"Red: where on the paper map the papers of {meta['latest']} lie denser than those of {meta['before']}; blue: where they "
        "lie sparser; blank: where there are few papers of either. Each side's papers are smoothed into a density (a Gaussian "
        "kernel as wide as the distance from a paper to its few nearest ones) that sums to one, so years of different size "
        f"compare fairly.{placed}{peaks}"
    )


def _map_guide(analysis: Analysis, figure) -> str:
    """The map's guide: its colours and grey points as drawn, and for a sampled map how
    many papers it shows."""
    grey = bool((analysis.documents["topic"] == -1).any())
    by_area = int((analysis.areas["area"] != -1).sum()) >= 2 if len(analysis.areas) else False  # as figures.topic_map colours
    text = _MAP_GUIDE.format(
        colours="Colours follow the areas (shades of one colour are the topics of one area)" if by_area
        else "Each topic has its own colour, and its name sits at its centre",
        outliers=", grey points are outliers that fit no topic" if grey else "",
    )
    if not by_area:
        text = text.replace(" Area names sit at their centres; zoom in (drag a box) to see the topic names, or", " Zoom in (drag a box) or")
    meta = figure.layout.meta if isinstance(figure.layout.meta, dict) else {}
    if meta and meta["n_points"] < meta["n_documents"]:
        text += (
            f" To keep this file small the map shows {meta['n_points']:,} of the {meta['n_documents']:,} papers, "
            "a random sample drawn within each topic and year in proportion to its size; every table and "
            "statistic in this report counts all papers."
        )
    return text


_MAP_GUIDE = (
    "Each point is a paper; papers with similar abstracts lie close together. {colours}{outliers}. Area names sit at their "
    "centres; zoom in (drag a box) to see the topic names, or hover over a point. Search to circle the matching "
    "papers, click a point to read its abstract, use the buttons (over six years: the menu of periods and years) to "
    "show one year or period, and click legend entries to "
    "hide topics. Distances between far-apart groups mean little in this layout."
)

# --------------------------------------------------------------------------- the charts, by kind

for _chart in (
    # two groups: the areas, the topics' shift and its evidence, the map, the shares
    Chart(
        "area_shift", _areas(), kinds={"two_groups": 10},
        guide="Areas group related topics. Left: each area's share of papers in the earlier year (open circle) "
        "and the later year (filled). Right: the change in percentage points with its 95 % interval. The topic "
        "charts below break each area down.",
        guide_groups="Areas group related topics. Left: each area's share of the papers in each group. Right: the "
        "difference in percentage points with its 95 % interval. The charts below break each area down.",
    ),
    Chart(
        "shift", lambda analysis: figures.prevalence_shift(analysis.comparison), kinds={"two_groups": 20},
        guide="Left: each topic's share of papers in the earlier year (open circle) and the later year (filled). "
        "Right: the change in percentage points with its 95 % interval; an interval that crosses zero is compatible "
        "with no change. Faded bars did not pass the false-discovery correction.",
        guide_groups="Left: each topic's share of the papers in each group. Right: the difference in percentage points with its "
        "95 % interval; an interval that crosses zero is compatible with no difference. Faded bars did not pass the "
        "false-discovery correction.",
    ),
    Chart(
        "significance", lambda analysis: figures.significance_plot(analysis.comparison), kinds={"two_groups": 30},
        guide="Each dot is a topic: further right means it grew more, higher means stronger evidence. "
        "Only dots above the dashed line (q < 0.05) are changes we can call real; size is the number of papers.",
        guide_groups="Each dot is a topic: further right means more common in the second group, higher means stronger "
        "evidence. Only dots above the dashed line (q < 0.05) are differences we can call real; size is the number of papers.",
    ),
    # three or more years: each topic's line, the steepest, every slope, the areas' slopes
    Chart(
        "trends", lambda analysis: figures.share_trends(analysis.prevalence, analysis.comparison), kinds={"trend": 10},
        guide="One panel per topic: its share of each year's papers (line) and the 95 % interval of that share "
        "(band). Panels run from emerging and growing topics to fading, stable and unclear ones; every axis starts at zero, "
        "so compare the shape of a line with its own band, not heights across panels. A year with few papers has a wide band; "
        "each axis runs to one and a half times its line's peak, so a band cut at the top runs further (hover for it).",
    ),
    Chart(
        "movers", lambda analysis: figures.trend_movers(analysis.prevalence, analysis.comparison), kinds={"trend": 20},
        guide="The topics with the steepest slopes (percentage points per year), one line each across the years. "
        "Solid lines are clear trends (false-discovery rate q < 0.05); dotted ones are steep but not clear. Where one topic "
        "is far larger than the others, the lines open as shares of each topic's own peak (100 = its highest share; the "
        "buttons switch to shares of papers, and the hover always gives the share).",
    ),
    Chart(
        "slopes", lambda analysis: figures.trend_slopes(analysis.comparison), kinds={"trend": 30},
        guide="Each topic's linear trend in percentage points per year with its 95 % interval; an interval that crosses "
        "zero is compatible with no trend. Faded bars are not clear trends (Cochran-Armitage q ≥ 0.05).",
    ),
    Chart(
        "area_slopes", _areas(lambda analysis: "Which areas rose or fell?"), kinds={"trend": 40},
        guide="Areas group related topics: each area's linear trend in percentage points per year with its "
        "95 % interval; faded bars are not clear trends. The charts above break the areas down into topics.",
    ),
    # three or more other groups: the topics' and the areas' leans
    Chart(
        "heatmap", lambda analysis: figures.group_heatmap(analysis.comparison), kinds={"groups": 10},
        guide="Each cell: how much more (red) or less (blue) common a topic is in one group than in the others, as a "
        "log-odds z-score with the pooled shares as prior; |z| above 2 is unusual for one cell. Bold topic names differ "
        "clearly between the groups (chi-square test, q < 0.05).",
    ),
    Chart(
        "area_heatmap", _areas(lambda analysis: "Which areas lean to which group?"), kinds={"groups": 20},
        guide="Areas group related topics: how much more (red) or less (blue) common each area is in one group "
        "than in the others (log-odds z); bold areas differ clearly between the groups (q < 0.05).",
    ),
    # one group: the areas' sizes
    Chart(
        "area_sizes", _areas(lambda analysis: f"How big is each area? Share of the {analysis.comparison.group} papers"),
        kinds={"one_group": 10},
        guide="Areas group related topics: each area's share of the papers, with its 95 % interval. The charts "
        "below break the areas down into topics.",
    ),
    # the map and the shares, placed where each kind reads best
    Chart("map", _topic_map, _map_guide, kinds={"two_groups": 40, "trend": 50, "groups": 40, "one_group": 20}),
    Chart(
        "sizes", lambda analysis: figures.topic_sizes(analysis.prevalence), kinds={"two_groups": 50, "groups": 30, "one_group": 30},
        guide="Bars are shares of each year's papers, so years of different size compare fairly; "
        "whiskers are 95 % intervals.",
        guide_groups="Bars are shares of each group's papers, so groups of different size compare fairly; whiskers are 95 % intervals.",
    ),
    # every kind
    Chart(
        "terms", _terms, place=LAST,
        guide="The words that most distinguish each topic from the others (class-based TF-IDF over words and "
        "two-word phrases). Longer bars mean more distinctive.",
    ),
    Chart(
        "similarity", _related(figures.topic_similarity_heatmap), place=LAST + 10,
        guide="Darker cells join topics whose papers read alike; rows are ordered so that related topics sit together.",
    ),
    Chart(
        "hierarchy", _related(figures.topic_hierarchy), place=LAST + 20,
        guide="Topics joined further left are closer; the tree shows which topics would merge first if fewer were wanted.",
    ),
    # the "New in <year>" section's map (moved there by the report)
    Chart("growth", _growth, _growth_guide, kinds={"two_groups": LAST + 40, "trend": LAST + 40}),
    Chart(
        "themes", _themes, place=LAST + 30,
        guide="Each line is one of your themes: its share of all papers of each year, with the 95 % interval as whiskers. "
        "Intervals that overlap widely are compatible with no change.",
    ),
):
    register_chart(_chart)
