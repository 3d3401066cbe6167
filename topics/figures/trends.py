"""Figures for three or more years and for any grouping: DataFrame in, Figure out.

The vocabulary of :mod:`topics.figures.topics`, extended:

* ``prevalence`` -- :func:`topics.stats.trends.prevalence` output, grouped by years or any
  column;
* ``comparison`` -- a :class:`~topics.stats.comparison.Trend` or
  :class:`~topics.stats.comparison.Groups` (:func:`topics.stats.groups.compare_groups`).

Topics keep the colours of :func:`topics.figures.style.topic_colors`; user text (topic
names, group names) is HTML-escaped.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from topics.figures.style import LAYOUT, esc, group_column, pct, topic_colors

__all__ = ["group_heatmap", "share_trends", "trend_movers", "trend_slopes"]

_CLASS_ORDER = {"emerging": 0, "growing": 1, "fading": 2, "stable": 3, "no clear trend": 4}
_CLEAR = ("emerging", "growing", "fading")
#: Characters of 11-px title text across a 1,100-pixel-wide row of panels: a panel's title
#: line holds ``max(20, _ROW_CHARS // columns)`` of them.
_ROW_CHARS = 140
#: A panel's axis runs from zero to this many times its line's peak (at most 100 %).
_HEADROOM = 1.5
#: :func:`trend_movers` draws each topic against its own peak where the highest peak is
#: more than this many times the lowest.
_PEAK_SPREAD = 4.0


def _rgba(hex_colour: str, alpha: float) -> str:
    h = hex_colour.lstrip("#")
    return f"rgba({int(h[0:2], 16)}, {int(h[2:4], 16)}, {int(h[4:6], 16)}, {alpha})"


def _span(groups) -> str:
    return f"{groups[0]}–{groups[-1]}"


def _panel_title(text: str, suffix: str, width: int) -> str:
    """``text`` then ``suffix`` on at most two lines of at most ``width`` characters each,
    HTML-escaped and joined by ``<br>``. ``text`` wraps at spaces (a word longer than a line
    is split) and is cut with "…" where two lines cannot hold it; ``suffix`` always shows
    whole, at the end of the last line (``width`` must exceed its length)."""
    text = " ".join(str(text).split())
    lines = textwrap.wrap(text, width) or [""]
    if len(lines) == 1 and len(lines[0]) + len(suffix) <= width:
        return esc(lines[0] + suffix)
    first = lines[0]
    rest = text[len(first):].strip()
    if rest:
        room = width - len(suffix)
        if len(rest) > room:
            cut = rest[:room - 1]
            if " " in cut and rest[room - 1] != " ":
                cut = cut.rsplit(" ", 1)[0]  # end on a whole word
            rest = cut.rstrip(" /,;:-") + "…"
        second = rest + suffix
    else:
        second = suffix.lstrip()
    return esc(first) + "<br>" + esc(second)


def share_trends(
    prevalence: pd.DataFrame,
    comparison=None,
    *,
    columns: int = 4,
    title: str | None = None,
) -> go.Figure:
    """Small multiples: each topic's share per group (year) with its 95 % Wilson band.

    One panel per topic, in the topic's colour. Every panel's axis runs from zero to 1.5
    times the peak of its line (at most 100 %; a line that stays at zero: to the top of
    its band, at least 1 %), so a small topic's line keeps its height; the band of a
    group with few papers can reach past the top and is cut there (the hover gives the
    whole interval). With a trend ``comparison``, panels are ordered by
    class (emerging, growing, fading, stable, no clear trend), then by z, and each title
    names the class; without one, by mean share. A title ("id: name", then " · class")
    takes at most two lines of ``max(20, 140 // columns)`` characters, about what fits
    over a panel of a 1,100-pixel-wide figure; a longer name is cut with "…".
    """
    by = group_column(prevalence)
    total = f"{by}_total"
    groups = list(comparison.groups) if comparison is not None else sorted(prevalence[by].unique())
    prev = prevalence[prevalence[by].isin(groups)]
    if prev.empty:
        raise ValueError("prevalence table has no rows")
    if comparison is not None and "trend" in comparison.table:
        comp = comparison.table.assign(_order=comparison.table["trend"].map(_CLASS_ORDER)).sort_values(["_order", "z"], ascending=[True, False])
        order = [t for t in comp["topic"] if t in set(prev["topic"])]
        trend = comp.set_index("topic")["trend"].to_dict()
    else:
        order = prev.groupby("topic")["share"].mean().sort_values(ascending=False).index.tolist()
        trend = {}
    labels = prev.drop_duplicates("topic").set_index("topic")["label"]
    rows = int(np.ceil(len(order) / columns))
    width = max(20, _ROW_CHARS // columns)
    titles = [_panel_title(f"{t}: {labels[t]}", f" · {trend[t]}" if t in trend else "", width) for t in order]
    fig = make_subplots(rows=rows, cols=columns, subplot_titles=titles, horizontal_spacing=0.06,
                        vertical_spacing=min(0.12, 0.6 / max(rows, 1)))
    colors = topic_colors(order)
    x = [str(g) for g in groups]
    for k, t in enumerate(order):
        part = prev[prev["topic"] == t].set_index(by).reindex(groups)
        row, col = k // columns + 1, k % columns + 1
        band_y = list(100 * part["ci_high"]) + list(100 * part["ci_low"])[::-1]
        fig.add_trace(go.Scatter(x=x + x[::-1], y=band_y, mode="lines", fill="toself", fillcolor=_rgba(colors[int(t)], 0.18),
                                 line=dict(width=0), hoverinfo="skip", showlegend=False), row=row, col=col)
        hover = [f"<b>{esc(labels[t])}</b><br>{esc(g)}: {int(r['n_docs'])} of {int(r[total])} papers ({pct(r['share'])})"
                 f"<br>95 % CI {pct(r['ci_low'])} to {pct(r['ci_high'])}" for g, r in zip(groups, part.to_dict("records"))]
        fig.add_trace(go.Scatter(x=x, y=100 * part["share"], mode="lines+markers", line=dict(color=colors[int(t)], width=2),
                                 marker=dict(size=6), name=esc(labels[t]), showlegend=False, hovertext=hover,
                                 hoverinfo="text"), row=row, col=col)
        peak = float(100 * part["share"].max()) if part["share"].notna().any() else 0.0
        top = min(100.0, _HEADROOM * peak) if peak > 0 else max(1.0, float(100 * part["ci_high"].fillna(0.0).max()))
        fig.update_yaxes(range=[0, top], row=row, col=col)
    fig.update_yaxes(tickfont_size=9, ticksuffix=" %")
    fig.update_xaxes(type="category", tickfont_size=9)
    fig.update_annotations(font_size=11)
    fig.update_layout(**LAYOUT, height=190 * rows + 140,
                      title=title or f"How each topic's share moved, {_span(groups)} (share of each {by}'s papers, 95 % band)")
    return fig


def trend_movers(
    prevalence: pd.DataFrame,
    comparison,
    *,
    n_topics: int = 8,
    scale: str = "auto",
    title: str | None = None,
) -> go.Figure:
    """Slope chart of the ``n_topics`` topics with the steepest slopes (points per year).

    One line per topic across every group, named in the legend with its slope; clear
    trends (emerging, growing, fading) solid, the others dotted. ``scale`` picks what the
    y-axis shows first: ``"share"``, each group's share of papers (%); ``"peak"``, each
    share as a percentage of the topic's own highest share, so that every line spans 0 to
    100 and a small topic's rise or fall shows beside a large one; ``"auto"`` (default),
    ``"peak"`` where the highest of the topics' peaks is more than four times the lowest,
    else ``"share"``. Two buttons switch between the views; the hover always gives the
    share itself.
    """
    if n_topics < 1:
        raise ValueError(f"n_topics must be at least 1, got {n_topics}")
    if scale not in ("auto", "share", "peak"):
        raise ValueError(f"scale must be 'auto', 'share' or 'peak', got {scale!r}")
    by = group_column(prevalence)
    total = f"{by}_total"
    groups = list(comparison.groups)
    table = comparison.table
    comp = table[table["topic"] != -1]
    movers = comp.reindex(comp["slope_pp"].abs().sort_values(ascending=False).index).head(n_topics)
    colors = topic_colors(movers["topic"])
    x = [str(g) for g in groups]
    unit = comparison.step
    parts = [prevalence[prevalence["topic"] == t].set_index(by).reindex(groups) for t in movers["topic"]]
    shares = [[float(v) for v in 100 * p["share"]] for p in parts]
    peaks = [max((v for v in s if np.isfinite(v)), default=0.0) for s in shares]
    relative = [[100 * v / peak if peak > 0 else v for v in s] for s, peak in zip(shares, peaks)]
    if scale == "auto":
        positive = [p for p in peaks if p > 0]
        scale = "peak" if positive and max(positive) > _PEAK_SPREAD * min(positive) else "share"
    share_title = f"share of the {by}'s papers (%)"
    peak_title = f"share of the {by}'s papers, as % of the topic's own peak"
    fig = go.Figure()
    for r, part, y in zip(movers.itertuples(index=False), parts, relative if scale == "peak" else shares):
        clear = r.trend in _CLEAR
        name = f"{esc(r.label)} ({r.slope_pp:+.1f}/{unit})"
        hover = [f"<b>{esc(r.label)}</b> · {r.trend}<br>{esc(g)}: {pct(p['share'])} ({int(p['n_docs'])} of {int(p[total])})"
                 f"<br>slope {r.slope_pp:+.2f} points per {unit} (95 % CI {r.slope_low_pp:+.2f} to {r.slope_high_pp:+.2f})"
                 for g, p in zip(groups, part.to_dict("records"))]
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="lines+markers", name=name,
            line=dict(color=colors[int(r.topic)], width=3 if clear else 1.5, dash="solid" if clear else "dot"),
            marker=dict(size=7), hovertext=hover, hoverinfo="text",
        ))
    buttons = [
        dict(label="Share of papers (%)", method="update",
             args=[{"y": shares}, {"yaxis.title.text": share_title, "yaxis.autorange": True}]),
        dict(label="Each topic's peak = 100", method="update",
             args=[{"y": relative}, {"yaxis.title.text": peak_title, "yaxis.autorange": True}]),
    ]
    fig.update_xaxes(type="category", title_text=by)
    fig.update_yaxes(title_text=peak_title if scale == "peak" else share_title, rangemode="tozero")
    fig.update_layout(**LAYOUT, height=520, legend=dict(title="Topic (slope, points per " + unit + ")"),
                      updatemenus=[dict(type="buttons", direction="right", x=0, y=1.02, xanchor="left", yanchor="bottom",
                                        buttons=buttons, showactive=True, active=1 if scale == "peak" else 0)],
                      margin=dict(t=130),
                      title=title or f"The biggest movers, {_span(groups)}: the {len(movers)} steepest slopes")
    return fig


def trend_slopes(comparison, *, title: str | None = None) -> go.Figure:
    """Each topic's slope in points per year with its 95 % interval, steepest rise on top.

    Clear trends (emerging, growing, fading) are drawn in full colour, the rest faded.
    """
    groups = list(comparison.groups)
    unit = comparison.step
    comp = comparison.table.sort_values(["slope_pp", "topic"]).reset_index(drop=True)
    colors = topic_colors(comp["topic"])
    clear = comp["trend"].isin(_CLEAR)
    labels = [esc(f"{t}: {lbl}") for t, lbl in zip(comp["topic"], comp["label"])]
    hover = [f"<b>{esc(r.label)}</b> · {r.trend}<br>{r.slope_pp:+.2f} points per {unit} "
             f"(95 % CI {r.slope_low_pp:+.2f} to {r.slope_high_pp:+.2f})<br>Cochran-Armitage z = {r.z:.2f}, q = {r.q_value:.3g}"
             for r in comp.itertuples(index=False)]
    fig = go.Figure(go.Bar(
        x=comp["slope_pp"], y=labels, orientation="h", showlegend=False,
        marker=dict(color=[colors[int(t)] for t in comp["topic"]], opacity=[1.0 if c else 0.35 for c in clear]),
        error_x=dict(type="data", symmetric=False, array=comp["slope_high_pp"] - comp["slope_pp"],
                     arrayminus=comp["slope_pp"] - comp["slope_low_pp"], color="#333", thickness=1.2),
        hovertext=hover, hoverinfo="text",
    ))
    fig.add_vline(x=0, line=dict(color="#333", width=1))
    fig.update_layout(**LAYOUT, height=max(420, 24 * len(comp) + 160), bargap=0.35,
                      xaxis_title=f"change in share, percentage points per {unit} (95 % CI)",
                      yaxis_title="topic (steepest rise on top)",
                      title=title or f"Which topics rose or fell, {_span(groups)}?")
    return fig


def group_heatmap(comparison, *, title: str | None = None) -> go.Figure:
    """Log-odds z of each topic in each group against the other groups (red: more common).

    Rows in the table's order (largest chi-square first); topics whose shares differ
    clearly between groups (``leans`` is not "no clear difference") have bold names.
    """
    groups = list(comparison.groups)
    by = comparison.by
    comp = comparison.table.reset_index(drop=True)
    z = comp[[f"z_{g}" for g in groups]].to_numpy(dtype=float)
    shares = comp[[f"share_{g}" for g in groups]].to_numpy(dtype=float)
    clear = comp["leans"] != "no clear difference"
    labels = [f"<b>{esc(f'{t}: {lbl}')}</b>" if c else esc(f"{t}: {lbl}") for t, lbl, c in zip(comp["topic"], comp["label"], clear)]
    hover = [[f"<b>{esc(r.label)}</b><br>{esc(g)}: {pct(shares[i, j])} of papers (all {by}s: {pct(r.share_all)})"
              f"<br>log-odds z = {z[i, j]:.2f}<br>chi-square q = {r.q_value:.3g} · {esc(r.leans)}"
              for j, g in enumerate(groups)] for i, r in enumerate(comp.itertuples(index=False))]
    limit = max(3.0, float(np.nanmax(np.abs(z))) if z.size else 3.0)
    fig = go.Figure(go.Heatmap(
        z=z, x=[esc(g) for g in groups], y=labels, zmid=0, zmin=-limit, zmax=limit, colorscale="RdBu_r",
        text=np.round(z, 1), texttemplate="%{text}", textfont=dict(size=10), hovertext=hover, hoverinfo="text",
        colorbar=dict(title="log-odds z"),
    ))
    fig.update_layout(**LAYOUT, height=max(420, 22 * len(comp) + 200),
                      xaxis=dict(side="top"), yaxis=dict(title="topic", autorange="reversed"), margin=dict(t=140),
                      title=title or f"Which topics lean to which {esc(by)}? (log-odds z of each group against the others)")
    return fig
