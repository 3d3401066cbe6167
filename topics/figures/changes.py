"""Figures of a comparison of two groups (two years, orals against posters): a
:class:`~topics.stats.comparison.TwoGroups` in, a Figure out."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from topics.figures.style import LAYOUT, esc, is_clear, pct, topic_colors

__all__ = ["prevalence_shift", "significance_plot"]


def prevalence_shift(comparison, *, title: str | None = None, unit: str = "topic") -> go.Figure:
    """Share of each topic in both groups (dumbbell) and the difference with its 95 % CI.

    ``comparison`` is a :class:`~topics.stats.comparison.TwoGroups`. ``unit`` names the
    rows in the axis and default title ("area" for a comparison of areas).

    Topics are sorted by the log-odds z-score (largest growth on top); topics whose
    ``direction`` is not "no clear change" are drawn in full colour, the rest faded.
    """
    a, b = comparison.group_a, comparison.group_b
    by = comparison.by
    comp = comparison.table.sort_values("z", ascending=True).reset_index(drop=True)
    ylabels = [esc(lbl) for lbl in comp["label"]]
    clear = is_clear(comp["direction"])
    colors = topic_colors(comp["topic"])
    hover = [
        f"<b>{esc(r['label'])}</b><br>{esc(a)}: {r[f'n_{a}']} papers ({pct(r[f'share_{a}'])})"
        f"<br>{esc(b)}: {r[f'n_{b}']} papers ({pct(r[f'share_{b}'])})"
        f"<br>{'change' if by == 'year' else 'difference'}: {r['diff_pp']:+.1f} points "
        + (f"(95 % CI {r['ci_low_pp']:+.1f} to {r['ci_high_pp']:+.1f})" if r["ci_low_pp"] == r["ci_low_pp"] else "(fixed: it holds every paper)")
        + f"<br>q = {r['q_value']:.3g} · {esc(r['direction'])}"
        for r in comp.to_dict("records")
    ]
    change = f"Change {esc(a)} → {esc(b)}" if by == "year" else f"Difference {esc(b)} − {esc(a)}"
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.03,
                        subplot_titles=(f"Share of papers, {esc(a)} and {esc(b)}", f"{change} (points, 95 % CI)"))
    for i, r in comp.iterrows():
        fig.add_trace(go.Scatter(x=[100 * r[f"share_{a}"], 100 * r[f"share_{b}"]], y=[ylabels[i]] * 2, mode="lines",
                                 line=dict(color="#999", width=2), showlegend=False, hoverinfo="skip"), row=1, col=1)
    for year, symbol, fill in ((a, "circle-open", "#555"), (b, "circle", "#1f5fa8")):
        fig.add_trace(go.Scatter(x=100 * comp[f"share_{year}"], y=ylabels, mode="markers", name=esc(year),
                                 marker=dict(symbol=symbol, size=10, color=fill, line=dict(width=2, color=fill)),
                                 hovertext=hover, hoverinfo="text"), row=1, col=1)
    fig.add_trace(
        go.Bar(
            x=comp["diff_pp"], y=ylabels, orientation="h", name="change (points)", showlegend=False,
            marker=dict(color=[colors[int(t)] for t in comp["topic"]], opacity=[1.0 if c else 0.35 for c in clear]),
            error_x=dict(type="data", symmetric=False, array=comp["ci_high_pp"] - comp["diff_pp"],
                         arrayminus=comp["diff_pp"] - comp["ci_low_pp"], color="#333", thickness=1.2),
            hovertext=hover, hoverinfo="text",
        ),
        row=1, col=2,
    )
    fig.add_vline(x=0, line=dict(color="#333", width=1), row=1, col=2)
    fig.update_xaxes(title_text=f"share of the {esc(by)}'s papers (%)", row=1, col=1, rangemode="tozero")
    fig.update_xaxes(title_text=f"{esc(b)} share minus {esc(a)} share (percentage points)", row=1, col=2)
    fig.update_yaxes(title_text=f"{esc(unit)} (sorted by z-score, " + ("growth on top)" if by == "year" else f"more in {esc(b)} on top)"), row=1, col=1)
    default = f"Which {esc(unit)}s grew or shrank from {a} to {b}?" if by == "year" else f"Which {esc(unit)}s are more common in {esc(a)} or in {esc(b)}?"
    fig.update_layout(**LAYOUT, title=title or default,
                      # the legend at the foot of the figure, below the axis titles, whatever the height
                      height=max(420, 26 * len(comp) + 200), margin=dict(b=130),
                      legend=dict(title=esc(by.capitalize()), orientation="h", yref="container", y=0.01, yanchor="bottom"),
                      bargap=0.35)
    return fig


def significance_plot(comparison, *, alpha: float = 0.05, title: str | None = None) -> go.Figure:
    """Change against evidence: difference (points) vs -log10(q), one dot per topic of a
    :class:`~topics.stats.comparison.TwoGroups`.

    A volcano plot: dots above the dashed line (q = ``alpha``) are the changes that
    survive the false-discovery correction; dot size is the pooled number of papers.
    """
    a, b = comparison.group_a, comparison.group_b
    by = comparison.by
    comp = comparison.table.reset_index(drop=True)
    colors = topic_colors(comp["topic"])
    n = comp[f"n_{a}"] + comp[f"n_{b}"]
    clear = is_clear(comp["direction"])
    fig = go.Figure(
        go.Scatter(
            x=comp["diff_pp"], y=-np.log10(comp["q_value"].clip(lower=1e-300)), mode="markers+text",
            text=[esc(lbl) if c else "" for lbl, c in zip(comp["label"], clear)],
            textposition="top center",
            marker=dict(size=8 + 22 * np.sqrt(n / max(n.max(), 1)), color=[colors[int(t)] for t in comp["topic"]],
                        line=dict(width=1, color="#333"), opacity=0.85),
            hovertext=[f"<b>{esc(r.label)}</b><br>{'change' if by == 'year' else 'difference'} {r.diff_pp:+.1f} points<br>q = {r.q_value:.3g}<br>{esc(r.direction)}"
                       for r in comp.itertuples(index=False)],
            hoverinfo="text", showlegend=False,
        )
    )
    fig.add_hline(y=-np.log10(alpha), line=dict(dash="dash", color="#c00"), annotation_text=f"q = {alpha}",
                  annotation_position="top left")
    fig.add_vline(x=0, line=dict(color="#999", width=1))
    default = f"Which changes from {a} to {b} are more than noise?" if by == "year" else f"Which differences between {esc(a)} and {esc(b)} are more than noise?"
    fig.update_layout(**LAYOUT, title=title or default, height=480,
                      xaxis_title=f"{esc(b)} share minus {esc(a)} share (percentage points)",
                      yaxis_title="evidence: −log10(q-value), higher is stronger")
    return fig
