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
from topics.narrate import narrate, narrate_areas, narrate_themes
from topics.pipeline import Analysis
from topics.themes import theme_topics
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
    "trends": "One panel per topic: its share of each year's papers (line) and the 95 % interval of that share "
    "(band). Panels run from emerging and growing topics to fading, stable and unclear ones; every axis starts at zero, "
    "so compare the shape of a line with its own band, not heights across panels. A year with few papers has a wide band.",
    "movers": "The topics with the steepest slopes (percentage points per year), one line each across the years. "
    "Solid lines are clear trends (false-discovery rate q < 0.05); dotted ones are steep but not clear.",
    "slopes": "Each topic's linear trend in percentage points per year with its 95 % interval; an interval that crosses "
    "zero is compatible with no trend. Faded bars are not clear trends (Cochran-Armitage q ≥ 0.05).",
    "heatmap": "Each cell: how much more (red) or less (blue) common a topic is in one group than in the others, as a "
    "log-odds z-score with the pooled shares as prior; |z| above 2 is unusual for one cell. Bold topic names differ "
    "clearly between the groups (chi-square test, q < 0.05).",
    "area_slopes": "Areas group related topics: each area's linear trend in percentage points per year with its "
    "95 % interval; faded bars are not clear trends. The charts above break the areas down into topics.",
    "area_heatmap": "Areas group related topics: how much more (red) or less (blue) common each area is in one group "
    "than in the others (log-odds z); bold areas differ clearly between the groups (q < 0.05).",
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


def build_figures(analysis: Analysis) -> dict[str, "plots.go.Figure"]:
    """Every chart of the report, by key, built from the analysis tables.

    Two groups (two years, or two values of another column): the areas' shift (with two
    or more areas), the prevalence shift, the significance plot, the map and the shares.
    Three or more years: the small multiples of shares, the biggest movers, the slopes
    (and the areas' slopes) and the map. Three or more other groups: the heatmap of
    log-odds z (and the areas' heatmap), the shares and the map. Then, for every kind, the
    terms, similarity and hierarchy charts.
    """
    kind = analysis.kind
    areas = len(analysis.area_comparison) >= 2
    if kind == "trend":
        figs = {
            "trends": plots.share_trends(analysis.prevalence, analysis.comparison),
            "movers": plots.trend_movers(analysis.prevalence, analysis.comparison),
            "slopes": plots.trend_slopes(analysis.comparison),
        }
        if areas:
            figs["area_slopes"] = plots.trend_slopes(analysis.area_comparison, title="Which areas rose or fell?")
        figs["map"] = plots.topic_map(
            analysis.documents, analysis.coords, max_points=plots.MAP_MAX_POINTS,
            random_state=int(analysis.settings.get("random_state", 0)),
        )
    elif kind == "groups":
        figs = {"heatmap": plots.group_heatmap(analysis.comparison)}
        if areas:
            figs["area_heatmap"] = plots.group_heatmap(analysis.area_comparison, title="Which areas lean to which group?")
        figs |= {
            "sizes": plots.topic_sizes(analysis.prevalence),
            "map": plots.topic_map(
            analysis.documents, analysis.coords, max_points=plots.MAP_MAX_POINTS,
            random_state=int(analysis.settings.get("random_state", 0)),
        ),
        }
    else:
        figs = {"area_shift": plots.prevalence_shift(analysis.area_comparison, unit="area")} if areas else {}
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
    if analysis.themes is not None:
        figs["themes"] = plots.theme_shares(analysis.themes.prevalence)
    return figs


def _how_to_read(key: str, fig, analysis: Analysis) -> str:
    """The chart's reading guide (said of groups where the grouping is not by year); for a
    sampled map, how many papers it shows."""
    text = _how(key, analysis)
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


def _how(key: str, analysis: Analysis) -> str:
    if analysis.by != "year" and key in _HOW_TO_READ_GROUPS:
        return _HOW_TO_READ_GROUPS[key]
    return _HOW_TO_READ[key]


def _tag(row, kind: str) -> tuple[str, str]:
    """The card's tag and its style class: ("grew", "grew"), ("fading", "shrank"),
    ("more in Oral", "lean"), or ("", "") where nothing is clear."""
    if row is None:
        return "", ""
    if kind == "trend":
        style = {"emerging": "grew", "growing": "grew", "fading": "shrank"}.get(row["trend"], "")
        return (row["trend"], style) if style else ("", "")
    label = row["leans"] if kind == "groups" else row["direction"]
    if label in ("grew", "shrank"):
        return label, label
    if label.startswith(("higher in", "more in", "less in")):
        return label, "lean"
    return "", ""


def _topic_cards(analysis: Analysis) -> list[dict]:
    groups = analysis.groups
    a, b = groups[0], groups[-1]
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
                "direction": c["direction"] if c is not None and "direction" in c else "",
                "per_group": [
                    {"name": g, "n": int(c[f"n_{g}"]) if c is not None else 0, "share": float(c[f"share_{g}"]) if c is not None else 0.0}
                    for g in groups
                ],
                "tag": _tag(c, analysis.kind)[0],
                "tag_class": _tag(c, analysis.kind)[1],
                "papers": papers,
            }
        )
    return cards


def _area_rows(analysis: Analysis) -> list[dict]:
    """Each area with its change and its topics (largest first), for the drill-down table."""
    if not len(analysis.areas):
        return []
    a, b = analysis.groups[0], analysis.groups[-1]
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


def _theme_section(analysis: Analysis) -> dict | None:
    """Rows, cards and sentences of the "Your themes" section; ``None`` without themes."""
    tracking = analysis.themes
    if tracking is None:
        return None
    a, b = tracking.year_a, tracking.year_b
    sentences = narrate_themes(tracking.summary)
    placed = theme_topics(tracking, analysis.documents)
    rows, cards = [], []
    for k, r in enumerate(tracking.summary.to_dict("records")):
        rows.append({
            "theme": r["theme"], "n_a": int(r[f"n_{a}"]), "n_b": int(r[f"n_{b}"]), "share_a": r[f"share_{a}"],
            "share_b": r[f"share_{b}"], "diff": r["diff_pp"], "low": r["ci_low_pp"], "high": r["ci_high_pp"], "q": r["q_value"],
            "direction": r["direction"], "n_members": int(r["n_members"]), "n_phrase": int(r["n_phrase"]),
            "n_similarity": int(r["n_similarity"]), "n_example": int(r["n_example"]),
            "cut": None if r["cut"] != r["cut"] else float(r["cut"]), "acronyms": r["acronyms"],
        })
        top = tracking.top_papers[tracking.top_papers["theme"] == r["theme"]]
        years = [
            {"year": int(y), "papers": [{"title": p.title or p.doc_id, "similarity": p.similarity, "source": p.source}
                                        for p in part.itertuples(index=False)]}
            for y, part in top.groupby("year", sort=True)
        ]
        where = placed[placed["theme"] == r["theme"]]
        cards.append({
            "theme": r["theme"], "color": plots._PALETTE[k % len(plots._PALETTE)], "direction": r["direction"],
            "sentences": sentences[2 * k: 2 * k + 2], "years": years,
            "topics": [{"topic": int(t.topic), "label": t.topic_label, "n_docs": int(t.n_docs), "share": t.share}
                       for t in where.itertuples(index=False)],
        })
    return {"rows": rows, "cards": cards}


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
        :func:`topics.datasets.dataset_caveats`).
    dataset
        A short description of the input, for the methods section.
    """
    from plotly.offline import get_plotlyjs

    kind, by, groups = analysis.kind, analysis.by, analysis.groups
    a, b = groups[0], groups[-1]
    venues = sorted(v for v in analysis.corpus["venue"].unique() if v)
    venue = "/".join(venues) if venues else "Papers"
    figures = build_figures(analysis)
    config = {"displaylogo": False, "responsive": True, "modeBarButtonsToRemove": ["toImage"]}
    charts = [
        {"key": key, "how": _how_to_read(key, fig, analysis), "html": fig.to_html(full_html=False, include_plotlyjs=False, config=config, div_id=f"chart-{key}")}
        for key, fig in figures.items()
    ]
    themes = _theme_section(analysis)
    if themes is not None:
        themes["chart"] = next(c for c in charts if c["key"] == "themes")
        charts = [c for c in charts if c["key"] != "themes"]
    comp = analysis.comparison
    if kind == "trend":
        default_title = f"{venue} {a}–{b}: topics and trends"
    elif by == "year":
        default_title = f"{venue} {a} vs {b}: topics and trends"
    else:
        default_title = f"{venue}: topics by {by} ({', '.join(map(str, groups))})"
    held = {}
    if len(analysis.stability):
        held = {int(r.topic): f"{r.same_direction}/{r.n_seeds}" for r in analysis.stability.itertuples(index=False)}
    comparison_rows = [
        {
            "topic": int(r["topic"]), "label": r["label"], "n_a": int(r[f"n_{a}"]), "n_b": int(r[f"n_{b}"]),
            "share_a": r[f"share_{a}"], "share_b": r[f"share_{b}"], "diff": r["diff_pp"],
            "low": r["ci_low_pp"], "high": r["ci_high_pp"], "z": r["z"], "q": r["q_value"], "direction": r["direction"],
            "held": held.get(int(r["topic"]), ""),
        }
        for r in comp.to_dict("records")
    ] if kind == "two_groups" else []
    settings = analysis.settings
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("topics", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"], default_for_string=True, default=True),
        undefined=jinja2.StrictUndefined,
    )
    template = env.get_template("report.html.j2")
    return template.render(
        title=title or default_title,
        year_a=a,
        year_b=b,
        kind=kind,
        by=by,
        groups=groups,
        trend_rows=_trend_rows(analysis) if kind == "trend" else [],
        group_rows=_group_rows(analysis) if kind == "groups" else [],
        bursts_run=kind == "trend" and by == "year",
        summary=(narrate_areas(analysis.area_comparison) if kind == "two_groups" and by == "year" else [])
        + narrate(comp, stability=analysis.stability, bursts=analysis.bursts),
        areas=_area_rows(analysis) if kind == "two_groups" else [],
        stability=bool(len(analysis.stability)),
        charts=charts,
        cards=_topic_cards(analysis),
        themes=themes,
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


def _burst_text(bursts, topic) -> str:
    if bursts is None or not len(bursts):
        return ""
    rows = bursts[bursts["topic"] == topic].sort_values("start")
    return ", ".join(f"{r.start}" if r.start == r.end else f"{r.start}–{r.end}" for r in rows.itertuples(index=False))


def _trend_rows(analysis: Analysis) -> list[dict]:
    groups = analysis.groups
    return [
        {
            "topic": int(r["topic"]), "label": r["label"], "shares": [r[f"share_{g}"] for g in groups],
            "slope": r["slope_pp"], "low": r["slope_low_pp"], "high": r["slope_high_pp"], "z": r["z"], "q": r["q_value"],
            "trend": r["trend"], "row_class": {"emerging": "grew", "growing": "grew", "fading": "shrank"}.get(r["trend"], ""),
            "burst": _burst_text(analysis.bursts, r["topic"]),
        }
        for r in analysis.comparison.to_dict("records")
    ]


def _group_rows(analysis: Analysis) -> list[dict]:
    groups = analysis.groups
    return [
        {
            "topic": int(r["topic"]), "label": r["label"], "shares": [r[f"share_{g}"] for g in groups],
            "share_all": r["share_all"], "zs": [r[f"z_{g}"] for g in groups], "chi2": r["chi2"], "q": r["q_value"],
            "leans": r["leans"], "row_class": "" if r["leans"] == "no clear difference" else "lean",
        }
        for r in analysis.comparison.to_dict("records")
    ]


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
