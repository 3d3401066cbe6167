"""Figures of how topics relate to each other and of the user's themes: DataFrame in, Figure out.

* ``similarity`` -- :func:`topics.clustering.tables.topic_similarity` output;
* ``theme_prevalence`` -- :attr:`topics.themes.tracking.ThemeTracking.prevalence`.

User text is HTML-escaped.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from topics.figures.style import LAYOUT, PALETTE, esc, pct

__all__ = ["theme_shares", "topic_hierarchy", "topic_similarity_heatmap"]


# --------------------------------------------------------------------------- 5. relations


def _similarity_matrix(similarity: pd.DataFrame) -> pd.DataFrame:
    mat = similarity.pivot(index="topic_a", columns="topic_b", values="similarity")
    names = similarity.drop_duplicates("topic_a").set_index("topic_a")["label_a"]
    mat.index = [f"{t}: {names[t]}" for t in mat.index]
    mat.columns = [f"{t}: {names[t]}" for t in mat.columns]
    return mat


def topic_similarity_heatmap(similarity: pd.DataFrame, *, title: str = "Which topics are close to each other? (cosine similarity of topic centroids)") -> go.Figure:
    """Heatmap of topic-to-topic cosine similarity, rows ordered by the hierarchy."""
    mat = _similarity_matrix(similarity)
    if len(mat) > 2:
        from scipy.cluster.hierarchy import leaves_list, linkage
        from scipy.spatial.distance import squareform

        dist = np.clip(1 - mat.to_numpy(), 0, 2)
        np.fill_diagonal(dist, 0)
        order = leaves_list(linkage(squareform(dist, checks=False), method="average"))
        mat = mat.iloc[order, order]
    labels = [esc(x) for x in mat.index]
    fig = go.Figure(go.Heatmap(z=mat.to_numpy(), x=labels, y=labels, colorscale="Blues", zmin=0, zmax=1,
                               colorbar=dict(title="cosine"), hovertemplate="%{y}<br>%{x}<br>similarity %{z:.2f}<extra></extra>"))
    fig.update_layout(**LAYOUT, title=title, height=max(450, 18 * len(mat) + 250), xaxis=dict(title="topic", tickangle=-45),
                      yaxis=dict(title="topic", autorange="reversed"))
    return fig


def topic_hierarchy(similarity: pd.DataFrame, *, title: str = "Which topics merge first? (average-linkage hierarchy)") -> go.Figure:
    """Dendrogram of topics (distance = 1 - cosine similarity of centroids, average linkage).

    One trace per merge, drawn from SciPy's dendrogram coordinates; the x position of a
    merge is the distance at which its two branches join. (Plotly's ``create_dendrogram``
    would draw the same, but importing ``plotly.figure_factory`` loads Jupyter's widget and
    notebook-format machinery: seconds of a report's start-up.)
    """
    from scipy.cluster.hierarchy import dendrogram, linkage
    from scipy.spatial.distance import squareform

    mat = _similarity_matrix(similarity)
    if len(mat) < 2:
        raise ValueError("a hierarchy needs at least two topics")
    dist = np.clip(1 - mat.to_numpy(), 0, 2)
    np.fill_diagonal(dist, 0)
    tree = dendrogram(linkage(squareform(dist, checks=False), method="average"), orientation="left",
                      labels=[esc(x) for x in mat.index], no_plot=True)
    fig = go.Figure()
    for ys, xs in zip(tree["icoord"], tree["dcoord"]):
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=PALETTE[0], width=1.5),
                                 hovertemplate="merge at %{x:.2f}<extra></extra>"))
    leaves = [5 + 10 * i for i in range(len(tree["ivl"]))]  # SciPy's leaf positions
    fig.update_layout(**LAYOUT, title=title, height=max(420, 20 * len(mat) + 160), showlegend=False,
                      xaxis=dict(title="distance at which topics merge (1 − cosine similarity)", rangemode="tozero"),
                      yaxis=dict(title="topic", tickmode="array", tickvals=leaves, ticktext=tree["ivl"],
                                 range=[0, 10 * len(leaves)]))
    return fig


# --------------------------------------------------------------------------- 6. themes


def theme_shares(theme_prevalence: pd.DataFrame, *, title: str = "How did your themes fare? Share of each year's papers") -> go.Figure:
    """Each theme's share of each year's papers with its 95 % Wilson interval, one line per theme.

    ``theme_prevalence`` is :attr:`topics.themes.tracking.ThemeTracking.prevalence` (``theme``,
    ``year``, ``n_docs``, ``year_total``, ``share``, ``ci_low``, ``ci_high``). Themes are
    drawn in the order they first appear, nudged apart along the year axis so that their
    whiskers do not overlap.
    """
    missing = {"theme", "year", "n_docs", "year_total", "share", "ci_low", "ci_high"} - set(theme_prevalence.columns)
    if missing:
        raise ValueError(f"theme_prevalence lacks column(s) {', '.join(sorted(missing))}")
    names = list(dict.fromkeys(theme_prevalence["theme"]))
    if not names:
        raise ValueError("theme_prevalence has no themes")
    years = sorted(int(y) for y in theme_prevalence["year"].unique())
    width = 0.25 if len(names) > 1 else 0.0
    fig = go.Figure()
    for k, name in enumerate(names):
        part = theme_prevalence[theme_prevalence["theme"] == name].sort_values("year")
        offset = (k / (len(names) - 1) - 0.5) * width if len(names) > 1 else 0.0
        fig.add_trace(
            go.Scatter(
                x=part["year"].astype(float) + offset, y=100 * part["share"], mode="lines+markers", name=esc(name),
                marker=dict(size=9, color=PALETTE[k % len(PALETTE)]), line=dict(width=2, color=PALETTE[k % len(PALETTE)]),
                error_y=dict(type="data", symmetric=False, array=100 * (part["ci_high"] - part["share"]),
                             arrayminus=100 * (part["share"] - part["ci_low"]), thickness=1.2),
                hovertext=[f"<b>{esc(name)}</b><br>{int(r.year)}: {int(r.n_docs)} of {int(r.year_total)} papers ({pct(r.share)})"
                           f"<br>95 % CI {pct(r.ci_low)} to {pct(r.ci_high)}" for r in part.itertuples(index=False)],
                hoverinfo="text",
            )
        )
    fig.update_layout(
        **LAYOUT, title=title, height=420 + 12 * len(names),
        xaxis=dict(title="year", tickmode="array", tickvals=years, ticktext=[str(y) for y in years],
                   range=[years[0] - 0.5, years[-1] + 0.5]),
        yaxis=dict(title="share of that year's papers (%)", rangemode="tozero"), legend=dict(title="Theme"),
    )
    return fig
