"""The self-contained HTML trend report.

:func:`render_report` turns an :class:`topics.pipeline.Analysis` into one HTML string;
:func:`write_report` writes it. The page works offline and from ``file://``: plotly.js
is inlined once, gzip-compressed (the page unpacks it with the browser's
``DecompressionStream`` and then draws the charts), nothing is fetched from a network,
and no external font or style is used. Abstracts are untrusted text: the Jinja2 environment autoescapes, the figure
builders escape hover text, and the paper explorer's data is JSON that cannot end its
``<script>`` element (:func:`topics.report.explorer.script_json`) and that its script
writes into the page as text only.
"""

from __future__ import annotations

import functools
import os
import platform
from datetime import date
from importlib import metadata
from pathlib import Path

import jinja2
import numpy as np

from topics import figures
from topics.clustering.neighbors import place_again
from topics.pipeline import Analysis
from topics.report.explorer import N_NEIGHBORS, explorer_data, explorer_script, pack_text, script_json
from topics.report.sections import area_rows, new_in_year_section, new_topic_section, theme_section, topic_cards
from topics.stats.density import growth_peaks, year_density
from topics.stats.stability import refits_ran

__all__ = ["build_figures", "render_report", "seed_range", "write_report"]

_PACKAGES = ("topics", "bertopic", "umap-learn", "hdbscan", "sentence-transformers", "torch", "scikit-learn", "pandas", "plotly")

# How to read each chart, shown above it.
_HOW_TO_READ = {
    "area_shift": "Areas group related topics. Left: each area's share of papers in the earlier year (open circle) "
    "and the later year (filled). Right: the change in percentage points with its 95 % interval. The topic "
    "charts below break each area down.",
    "shift": "Left: each topic's share of papers in the earlier year (open circle) and the later year (filled). "
    "Right: the change in percentage points with its 95 % interval; an interval that crosses zero is compatible "
    "with no change. Faded bars did not pass the false-discovery correction.",
    "significance": "Each dot is a topic: further right means it grew more, higher means stronger evidence. "
    "Only dots above the dashed line (q < 0.05) are changes we can call real; size is the number of papers.",
    "map": "Each point is a paper; papers with similar abstracts lie close together. {colours}{outliers}. Area names sit at their "
    "centres; zoom in (drag a box) to see the topic names, or hover over a point. Search to circle the matching "
    "papers, click a point to read its abstract, use the buttons (over six years: the menu of periods and years) to "
    "show one year or period, and click legend entries to "
    "hide topics. Distances between far-apart groups mean little in this layout.",
    "sizes": "Bars are shares of each year's papers, so years of different size compare fairly; "
    "whiskers are 95 % intervals.",
    "terms": "The words that most distinguish each topic from the others (class-based TF-IDF over words and "
    "two-word phrases). Longer bars mean more distinctive.",
    "similarity": "Darker cells join topics whose papers read alike; rows are ordered so that related topics sit together.",
    "hierarchy": "Topics joined further left are closer; the tree shows which topics would merge first if fewer were wanted.",
    "trends": "One panel per topic: its share of each year's papers (line) and the 95 % interval of that share "
    "(band). Panels run from emerging and growing topics to fading, stable and unclear ones; every axis starts at zero, "
    "so compare the shape of a line with its own band, not heights across panels. A year with few papers has a wide band; "
    "each axis runs to one and a half times its line's peak, so a band cut at the top runs further (hover for it).",
    "movers": "The topics with the steepest slopes (percentage points per year), one line each across the years. "
    "Solid lines are clear trends (false-discovery rate q < 0.05); dotted ones are steep but not clear. Where one topic "
    "is far larger than the others, the lines open as shares of each topic's own peak (100 = its highest share; the "
    "buttons switch to shares of papers, and the hover always gives the share).",
    "slopes": "Each topic's linear trend in percentage points per year with its 95 % interval; an interval that crosses "
    "zero is compatible with no trend. Faded bars are not clear trends (Cochran-Armitage q ≥ 0.05).",
    "heatmap": "Each cell: how much more (red) or less (blue) common a topic is in one group than in the others, as a "
    "log-odds z-score with the pooled shares as prior; |z| above 2 is unusual for one cell. Bold topic names differ "
    "clearly between the groups (chi-square test, q < 0.05).",
    "area_sizes": "Areas group related topics: each area's share of the papers, with its 95 % interval. The charts "
    "below break the areas down into topics.",
    "area_slopes": "Areas group related topics: each area's linear trend in percentage points per year with its "
    "95 % interval; faded bars are not clear trends. The charts above break the areas down into topics.",
    "area_heatmap": "Areas group related topics: how much more (red) or less (blue) common each area is in one group "
    "than in the others (log-odds z); bold areas differ clearly between the groups (q < 0.05).",
    "growth": "Red: where on the paper map the papers of {latest} lie denser than those of {before}; blue: where they "
    "lie sparser; blank: where there are few papers of either. Each side's papers are smoothed into a density (a Gaussian "
    "kernel as wide as the distance from a paper to its few nearest ones) that sums to one, so years of different size "
    "compare fairly.{placed}{peaks}",
    "themes": "Each line is one of your themes: its share of all papers of each year, with the 95 % interval as whiskers. "
    "Intervals that overlap widely are compatible with no change.",
}
# Non-year groupings: the same charts, said of groups.
_HOW_TO_READ_GROUPS = {
    "area_shift": "Areas group related topics. Left: each area's share of the papers in each group. Right: the "
    "difference in percentage points with its 95 % interval. The charts below break each area down.",
    "shift": "Left: each topic's share of the papers in each group. Right: the difference in percentage points with its "
    "95 % interval; an interval that crosses zero is compatible with no difference. Faded bars did not pass the "
    "false-discovery correction.",
    "significance": "Each dot is a topic: further right means more common in the second group, higher means stronger "
    "evidence. Only dots above the dashed line (q < 0.05) are differences we can call real; size is the number of papers.",
    "sizes": "Bars are shares of each group's papers, so groups of different size compare fairly; whiskers are 95 % intervals.",
}


def build_figures(analysis: Analysis) -> dict:
    """Every chart of the report, by key, built from the analysis tables.

    First the comparison's own charts (:meth:`topics.stats.comparison.Comparison.figures`:
    for two groups the areas' shift, the prevalence shift, the significance plot, the map
    and the shares; for three or more years the small multiples of shares, the biggest
    movers, the slopes, the areas' slopes and the map; for three or more other groups the
    heatmap of log-odds z, the areas' heatmap, the shares and the map). Then, for every
    kind, the terms, similarity and hierarchy charts.
    """
    topic_map = figures.topic_map(
        analysis.documents, analysis.coords, max_points=figures.MAP_MAX_POINTS,
        random_state=int(analysis.settings.get("random_state", 0)),
    )
    figs = analysis.comparison.figures(analysis.prevalence, areas=analysis.area_comparison, topic_map=topic_map)
    if len(analysis.terms):
        figs["terms"] = figures.topic_terms(analysis.terms)
    if analysis.similarity["topic_a"].nunique() >= 2:
        figs["similarity"] = figures.topic_similarity_heatmap(analysis.similarity)
        figs["hierarchy"] = figures.topic_hierarchy(analysis.similarity)
    if analysis.themes is not None:
        figs["themes"] = figures.theme_shares(analysis.themes.prevalence)
    if new_in_year_section(analysis) is not None:
        figs["growth"] = _growth_map(analysis)
    return figs


def _growth_map(analysis: Analysis):
    """Where the last year's papers lie denser on the map than the earlier years'
    (:func:`topics.stats.density.year_density`), its significant peaks named."""
    years = [int(y) for y in analysis.settings["years"]]
    docs, coords = analysis.documents, np.array(analysis.coords, dtype=np.float64)
    added = int(analysis.settings.get("update", {}).get("n_documents", 0))
    if added:  # an update placed its papers from their neighbours: place the others alike
        old = len(coords) - added
        coords[:old] = place_again(coords[:old], analysis.embeddings[:old], n_neighbors=int(analysis.model.params_["n_neighbors"]) + 1)
    density = year_density(coords, docs["year"].to_numpy(), latest=years[-1])
    names = dict(zip(analysis.topics["topic"].astype(int), analysis.topics["label"]))
    peaks = growth_peaks(density, coords, docs["year"].to_numpy(), topics=docs["topic"].to_numpy(), topic_labels=names,
                         random_state=int(analysis.settings.get("random_state", 0)))
    before = ", ".join(map(str, years[:-1])) if len(years) <= 3 else f"{years[0]}–{years[-2]}"
    fig = figures.growth_map(density, peaks, before=before)
    fig.layout.meta = {**fig.layout.meta, "placed": bool(added)}
    return fig


def _how_to_read(key: str, fig, analysis: Analysis) -> str:
    """The chart's reading guide (said of groups where the grouping is not by year); for a
    sampled map, how many papers it shows."""
    text = _how(key, analysis)
    if key == "map":  # name the grey points only where there are some
        grey = bool((analysis.documents["topic"] == -1).any())
        by_area = int((analysis.areas["area"] != -1).sum()) >= 2 if len(analysis.areas) else False  # as figures.topic_map colours
        text = text.format(
            colours="Colours follow the areas (shades of one colour are the topics of one area)" if by_area
            else "Each topic has its own colour, and its name sits at its centre",
            outliers=", grey points are outliers that fit no topic" if grey else "",
        )
        if not by_area:
            text = text.replace(" Area names sit at their centres; zoom in (drag a box) to see the topic names, or", " Zoom in (drag a box) or")
    if key == "growth":
        meta = fig.layout.meta
        peaks = (
            " Circled, and named by the topic of most of their papers of {latest}: the places where it grew more than it "
            "grows anywhere on the map in 95 % of 99 maps drawn with the years shuffled among the papers."
            if meta["n_peaks"] else " No place stands out: the largest difference is within what maps drawn with the years shuffled among the papers give."
        )
        placed = (" The papers added by the update were placed on the map from their nearest earlier papers; here the "
                  "earlier papers are placed the same way, each from its nearest other papers, so both sides are placed alike."
                  if meta.get("placed") else "")
        return text.format(latest=meta["latest"], before=meta["before"], placed=placed, peaks=peaks.format(latest=meta["latest"]))
    meta = fig.layout.meta if key == "map" and isinstance(fig.layout.meta, dict) else {}
    if meta and meta["n_points"] < meta["n_documents"]:
        text += (
            f" To keep this file small the map shows {meta['n_points']:,} of the {meta['n_documents']:,} papers, "
            "a random sample drawn within each topic and year in proportion to its size; every table and "
            "statistic in this report counts all papers."
        )
    return text


def _to_sections(charts: list[dict], sections: dict[str, dict | None]) -> list[dict]:
    """The charts of the Charts section: each chart keyed in ``sections`` goes to its section
    (as ``section["chart"]``) where that section is shown."""
    for key, section in sections.items():
        if section is not None:
            section["chart"] = next(c for c in charts if c["key"] == key)
            charts = [c for c in charts if c["key"] != key]
    return charts


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def _how(key: str, analysis: Analysis) -> str:
    if analysis.by != "year" and key in _HOW_TO_READ_GROUPS:
        return _HOW_TO_READ_GROUPS[key]
    return _HOW_TO_READ[key]


@functools.lru_cache(maxsize=1)
def _plotly_packed() -> str:
    """plotly.js, gzip-compressed and base64-encoded (4.8 MB -> 2.0 MB), packed once per process."""
    from plotly.offline import get_plotlyjs

    return pack_text(get_plotlyjs())


def seed_range(seeds) -> str:
    """The runs' seeds as the methods section writes them: ``"0 to 39"`` for consecutive seeds
    (:func:`topics.clustering.consensus.run_seeds` gives those), else every seed."""
    seeds = [int(s) for s in seeds]
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]} to {seeds[-1]}"
    return ", ".join(map(str, seeds))


def render_report(analysis: Analysis, *, title: str | None = None, caveats: tuple[str, ...] = (), dataset: str = "") -> str:
    """The complete report as one HTML string.

    Parameters
    ----------
    analysis
        The result of :func:`topics.analyze`.
    title
        Page title; default "<venue> <year_a> vs <year_b>: topics and trends" (two years),
        "<venue> <first>–<last>: topics and trends" (three or more years), or
        "<venue>: topics by <column>" (other groupings).
    caveats
        Data caveats to state in the methods section (e.g.
        :func:`topics.io.datasets.dataset_caveats`).
    dataset
        A short description of the input, for the methods section.

    Returns
    -------
    str
        One self-contained HTML page: plotly.js inlined, no external font or script.

    Raises
    ------
    ValueError
        If the analysis's embeddings do not match its papers (one row per paper), as in an
        analysis edited by hand; one made by :func:`topics.analyze`, :func:`topics.load` or
        :func:`topics.update.update` always matches.

    Examples
    --------
    >>> html = topics.render_report(analysis, title="ICLR sample")
    >>> "<title>ICLR sample</title>" in html
    True
    """
    comparison = analysis.comparison
    by, groups = comparison.by, comparison.groups
    a, b = groups[0], groups[-1]
    venues = sorted(v for v in analysis.corpus["venue"].unique() if v)
    venue = "/".join(venues) if venues else "Papers"
    figures = build_figures(analysis)
    config = {"displaylogo": False, "responsive": True, "modeBarButtonsToRemove": ["toImage"]}
    charts = [
        {"key": key, "how": _how_to_read(key, fig, analysis), "html": fig.to_html(full_html=False, include_plotlyjs=False, config=config, div_id=f"chart-{key}")}
        for key, fig in figures.items()
    ]
    themes, fresh = theme_section(analysis), new_in_year_section(analysis)
    charts = _to_sections(charts, {"themes": themes, "growth": fresh})
    explorer = explorer_data(analysis)
    settings = analysis.settings
    stability = analysis.stability.copy()  # what the summary and the table may say of refits
    stability.attrs["refitted"] = refitted = refits_ran(analysis.stability, method=settings.get("method"))
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("topics.report", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"], default_for_string=True, default=True),
        undefined=jinja2.StrictUndefined,
    )
    env.filters["seed_range"] = seed_range
    template = env.get_template("report.html.j2")
    return template.render(
        title=title or comparison.title(venue),
        year_a=a,
        year_b=b,
        kind=comparison.kind,
        compares=comparison.compares,
        by=by,
        groups=groups,
        rows=comparison.rows(stability=stability if refitted else None, bursts=analysis.bursts),
        bursts_run=comparison.trend_over_years,
        summary=comparison.narrate(stability=stability, bursts=analysis.bursts, areas=analysis.area_comparison),
        areas=area_rows(analysis),
        stability=bool(len(analysis.stability)),
        refitted=refitted,
        charts=charts,
        cards=topic_cards(analysis),
        themes=themes,
        new=new_topic_section(analysis),
        fresh=fresh,
        settings=settings,
        outliers_counted=bool(settings.get("include_outliers")),
        n_topics=int((analysis.topics["topic"] != -1).sum()),
        caveats=list(caveats),
        dataset=dataset,
        versions=_versions(),
        generated=date.today().isoformat(),
        plotlyjs_packed=_plotly_packed(),
        explorer={
            "n_papers": explorer["n_papers"], "n_documents": explorer["n_documents"], "max_papers": explorer["max_papers"],
            "themes": explorer["themes"], "has_url": explorer["has_url"], "k": N_NEIGHBORS,
        },
        explorer_json=script_json(explorer),
        explorer_js=explorer_script(),
    )


def write_report(
    analysis: Analysis,
    path: str | os.PathLike[str],
    *,
    title: str | None = None,
    caveats: tuple[str, ...] = (),
    dataset: str = "",
) -> Path:
    """Render the report (options as in :func:`render_report`) and write it to ``path`` atomically.

    Parameters
    ----------
    analysis
        The result of :func:`topics.analyze` (or :func:`topics.load`).
    path
        The HTML file to write; missing folders are created.
    title, caveats, dataset
        As in :func:`render_report`.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    OSError
        If ``path`` cannot be written (nothing partial is left).

    Examples
    --------
    >>> path = topics.write_report(analysis, "reports/sample.html")
    >>> path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    True
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    html = render_report(analysis, title=title, caveats=caveats, dataset=dataset)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(html, encoding="utf-8")
    os.replace(tmp, path)
    return path
