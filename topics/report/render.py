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

from topics.pipeline import Analysis
from topics.report.charts import CHARTS, build_figures
from topics.report.explorer import N_NEIGHBORS, explorer_data, explorer_script, pack_text, script_json
from topics.report.kinds import view
from topics.report.sections import area_rows, new_in_year_section, new_topic_section, theme_section, topic_cards
from topics.stats.stability import refits_ran

__all__ = ["render_report", "seed_range", "write_report"]

_PACKAGES = ("topics", "bertopic", "umap-learn", "hdbscan", "sentence-transformers", "torch", "scikit-learn", "pandas", "plotly")

def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def _chart_sections(analysis: Analysis) -> list[dict]:
    """Each chart of the report (:func:`topics.report.charts.build_figures`) with its guide
    and its HTML, in reading order."""
    config = {"displaylogo": False, "responsive": True, "modeBarButtonsToRemove": ["toImage"]}
    return [
        {"key": key, "how": CHARTS[key].how(analysis, fig), "html": fig.to_html(full_html=False, include_plotlyjs=False, config=config, div_id=f"chart-{key}")}
        for key, fig in build_figures(analysis).items()
    ]


def _to_sections(charts: list[dict], sections: dict[str, dict | None]) -> list[dict]:
    """The charts of the Charts section: each chart keyed in ``sections`` goes to its section
    (as ``section["chart"]``) where that section is shown."""
    for key, section in sections.items():
        if section is not None:
            section["chart"] = next(c for c in charts if c["key"] == key)
            charts = [c for c in charts if c["key"] != key]
    return charts


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
    themes, fresh = theme_section(analysis), new_in_year_section(analysis)
    charts = _to_sections(_chart_sections(analysis), {"themes": themes, "growth": fresh})
    explorer = explorer_data(analysis)
    settings = analysis.settings
    stability = analysis.stability.copy()  # what the summary and the table may say of refits
    stability.attrs["refitted"] = refitted = refits_ran(analysis.stability, method=settings.params.get("method"))
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("topics.report", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"], default_for_string=True, default=True),
        undefined=jinja2.StrictUndefined,
    )
    env.filters["seed_range"] = seed_range
    template = env.get_template("report.html.j2")
    shown = view(comparison)
    return template.render(
        title=title or shown.title(comparison, venue),
        year_a=a,
        year_b=b,
        heading=shown.heading(comparison),
        shown_template=shown.template,
        compares=comparison.compares,
        by=by,
        groups=groups,
        rows=shown.rows(comparison, stability if refitted else None, analysis.bursts),
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
        settings=settings.as_dict(),
        outliers_counted=settings.include_outliers,
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
