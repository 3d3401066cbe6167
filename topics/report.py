"""The self-contained HTML trend report.

:func:`render_report` turns an :class:`topics.pipeline.Analysis` into one HTML string;
:func:`write_report` writes it. The page works offline and from ``file://``: plotly.js
is inlined once, nothing is fetched from a network, and no external font or style is
used. Abstracts are untrusted text: the Jinja2 environment autoescapes, and the figure
builders escape hover text.
"""

from __future__ import annotations

import os
import platform
from datetime import date
from importlib import metadata
from pathlib import Path

import jinja2

from topics import plots
from topics.narrate import narrate, narrate_areas
from topics.pipeline import Analysis
from topics.text import first_sentence

__all__ = ["build_figures", "render_report", "write_report"]

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
    "map": "Each point is a paper; papers with similar abstracts lie close together. Colours are topics, grey points "
    "are outliers that fit no topic. Use the buttons to show one year, and click legend entries to hide topics. "
    "Distances between far-apart groups mean little in this layout.",
    "sizes": "Bars are shares of each year's papers, so years of different size compare fairly; "
    "whiskers are 95 % intervals.",
    "terms": "The words that most distinguish each topic from the others (class-based TF-IDF over words and "
    "two-word phrases). Longer bars mean more distinctive.",
    "similarity": "Darker cells join topics whose papers read alike; rows are ordered so that related topics sit together.",
    "hierarchy": "Topics joined further left are closer; the tree shows which topics would merge first if fewer were wanted.",
}


def build_figures(analysis: Analysis) -> dict[str, "plots.go.Figure"]:
    """Every chart of the report, by key, built from the analysis tables."""
    figs = {}
    if len(analysis.area_comparison) >= 2:
        figs["area_shift"] = plots.prevalence_shift(analysis.area_comparison)
    figs |= {
        "shift": plots.prevalence_shift(analysis.comparison),
        "significance": plots.significance_plot(analysis.comparison),
        "map": plots.topic_map(
            analysis.documents, analysis.coords, max_points=plots.MAP_MAX_POINTS,
            random_state=int(analysis.settings.get("random_state", 0)),
        ),
        "sizes": plots.topic_sizes(analysis.prevalence),
    }
    if len(analysis.terms):
        figs["terms"] = plots.topic_terms(analysis.terms)
    if analysis.similarity["topic_a"].nunique() >= 2:
        figs["similarity"] = plots.topic_similarity_heatmap(analysis.similarity)
        figs["hierarchy"] = plots.topic_hierarchy(analysis.similarity)
    return figs


def _how_to_read(key: str, fig) -> str:
    """The chart's reading guide; for a sampled map, how many papers it shows."""
    text = _HOW_TO_READ[key]
    meta = fig.layout.meta if key == "map" and isinstance(fig.layout.meta, dict) else {}
    if meta and meta["n_points"] < meta["n_documents"]:
        text += (
            f" To keep this file small the map shows {meta['n_points']:,} of the {meta['n_documents']:,} papers, "
            "a random sample drawn within each topic and year in proportion to its size; every table and "
            "statistic in this report counts all papers."
        )
    return text


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def _topic_cards(analysis: Analysis) -> list[dict]:
    a, b = analysis.year_a, analysis.year_b
    comp = analysis.comparison.set_index("topic")
    reps = analysis.representatives
    colors = plots.topic_colors(analysis.topics["topic"])
    stability = analysis.stability.set_index("topic") if len(analysis.stability) else None
    cards = []
    for row in analysis.topics.itertuples(index=False):
        if row.topic == -1:
            continue
        c = comp.loc[row.topic] if row.topic in comp.index else None
        papers = [
            {"title": r.title or first_sentence(r.abstract), "year": r.year, "abstract": first_sentence(r.abstract, max_chars=300)}
            for r in reps[reps["topic"] == row.topic].itertuples(index=False)
        ]
        back = stability.loc[row.topic] if stability is not None and row.topic in stability.index else None
        cards.append(
            {
                "recovered": int(back["recovered"]) if back is not None else None,
                "n_seeds": int(back["n_seeds"]) if back is not None else None,
                "topic": row.topic,
                "label": row.label,
                "color": colors[row.topic],
                "terms": row.top_terms,
                "area": row.area_label,
                "confidence": float(row.mean_confidence),
                "n_low": int(analysis.documents.loc[analysis.documents["topic"] == row.topic, "low_confidence"].sum()),
                "n_docs": row.n_docs,
                "n_a": int(c[f"n_{a}"]) if c is not None else 0,
                "n_b": int(c[f"n_{b}"]) if c is not None else 0,
                "share_a": float(c[f"share_{a}"]) if c is not None else 0.0,
                "share_b": float(c[f"share_{b}"]) if c is not None else 0.0,
                "direction": c["direction"] if c is not None else "",
                "papers": papers,
            }
        )
    return cards


def _area_rows(analysis: Analysis) -> list[dict]:
    """Each area with its change and its topics (largest first), for the drill-down table."""
    if not len(analysis.areas):
        return []
    a, b = analysis.year_a, analysis.year_b
    comp = analysis.area_comparison.set_index("topic")
    topic_comp = analysis.comparison.set_index("topic")
    rows = []
    for area in analysis.areas.itertuples(index=False):
        if area.area == -1 or area.area not in comp.index:
            continue
        c = comp.loc[area.area]
        members = analysis.topics[(analysis.topics["area"] == area.area) & (analysis.topics["topic"] != -1)]
        rows.append(
            {
                "label": area.label, "n_docs": int(area.n_docs),
                "share_a": float(c[f"share_{a}"]), "share_b": float(c[f"share_{b}"]),
                "diff": float(c["diff_pp"]), "low": float(c["ci_low_pp"]), "high": float(c["ci_high_pp"]),
                "q": float(c["q_value"]), "direction": c["direction"],
                "topics": [
                    {
                        "topic": int(t.topic), "label": t.label, "n_docs": int(t.n_docs),
                        "diff": float(topic_comp.loc[t.topic, "diff_pp"]) if t.topic in topic_comp.index else float("nan"),
                        "direction": topic_comp.loc[t.topic, "direction"] if t.topic in topic_comp.index else "",
                    }
                    for t in members.itertuples(index=False)
                ],
            }
        )
    return rows


def render_report(analysis: Analysis, *, title: str | None = None, caveats: tuple[str, ...] = (), dataset: str = "") -> str:
    """The complete report as one HTML string.

    Parameters
    ----------
    analysis
        The result of :func:`topics.analyze`.
    title
        Page title; default "<venue> <year_a> vs <year_b>: topics and trends".
    caveats
        Data caveats to state in the methods section (e.g.
        :func:`topics.datasets.dataset_caveats`).
    dataset
        A short description of the input, for the methods section.
    """
    from plotly.offline import get_plotlyjs

    a, b = analysis.year_a, analysis.year_b
    venues = sorted(v for v in analysis.corpus["venue"].unique() if v)
    venue = "/".join(venues) if venues else "Papers"
    figures = build_figures(analysis)
    config = {"displaylogo": False, "responsive": True, "modeBarButtonsToRemove": ["toImage"]}
    charts = [
        {"key": key, "how": _how_to_read(key, fig), "html": fig.to_html(full_html=False, include_plotlyjs=False, config=config, div_id=f"chart-{key}")}
        for key, fig in figures.items()
    ]
    comp = analysis.comparison
    held = {}
    if len(analysis.stability):
        held = {int(r.topic): f"{r.same_direction}/{r.n_seeds}" for r in analysis.stability.itertuples(index=False)}
    comparison_rows = [
        {
            "topic": int(r.topic), "label": r.label, "n_a": int(getattr(r, f"n_{a}")), "n_b": int(getattr(r, f"n_{b}")),
            "share_a": getattr(r, f"share_{a}"), "share_b": getattr(r, f"share_{b}"), "diff": r.diff_pp,
            "low": r.ci_low_pp, "high": r.ci_high_pp, "z": r.z, "q": r.q_value, "direction": r.direction,
            "held": held.get(int(r.topic), ""),
        }
        for r in comp.itertuples(index=False)
    ]
    settings = analysis.settings
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("topics", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"], default_for_string=True, default=True),
        undefined=jinja2.StrictUndefined,
    )
    template = env.get_template("report.html.j2")
    return template.render(
        title=title or f"{venue} {a} vs {b}: topics and trends",
        year_a=a,
        year_b=b,
        summary=narrate_areas(analysis.area_comparison) + narrate(comp, stability=analysis.stability),
        areas=_area_rows(analysis),
        stability=bool(len(analysis.stability)),
        charts=charts,
        cards=_topic_cards(analysis),
        comparison=comparison_rows,
        settings=settings,
        outliers_counted=bool(settings.get("include_outliers")),
        n_topics=int((analysis.topics["topic"] != -1).sum()),
        caveats=list(caveats),
        dataset=dataset,
        versions=_versions(),
        generated=date.today().isoformat(),
        plotlyjs=get_plotlyjs(),
    )


def write_report(
    analysis: Analysis,
    path: str | os.PathLike[str],
    *,
    title: str | None = None,
    caveats: tuple[str, ...] = (),
    dataset: str = "",
) -> Path:
    """Render the report (options as in :func:`render_report`) and write it to ``path`` atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    html = render_report(analysis, title=title, caveats=caveats, dataset=dataset)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(html, encoding="utf-8")
    os.replace(tmp, path)
    return path
