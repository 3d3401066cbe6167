"""Plotly figures from the library's tidy tables: DataFrame in, Figure out.

No fitting and no file I/O happen here, so notebooks, reports and other analyses draw
exactly the same figures from the same tables. Shared vocabulary:

* ``comparison`` -- :func:`topics.trends.compare_years` output, or
  :func:`topics.groups.compare_groups` output for two groups;
* ``prevalence`` -- :func:`topics.trends.prevalence` output (by year or any column);
* ``terms`` -- :func:`topics.tables.term_table` output;
* ``similarity`` -- :func:`topics.tables.topic_similarity` output;
* ``documents`` + ``coords`` -- :func:`topics.tables.document_table` output and the
  (n_docs, 2) map layout;
* ``theme_prevalence`` -- :attr:`topics.themes.ThemeTracking.prevalence`.

Every figure colours a topic with :func:`topic_colors` (outliers grey), so a topic has
one colour across all charts. User text (titles, abstracts, topic names) is
HTML-escaped before it reaches hover text or labels.

The figures for three or more years and for groupings (:func:`share_trends`,
:func:`trend_movers`, :func:`trend_slopes`, :func:`group_heatmap`) live in
:mod:`topics.trend_plots`, those of how topics relate and of themes
(:func:`topic_similarity_heatmap`, :func:`topic_hierarchy`, :func:`theme_shares`) in
:mod:`topics.relation_plots`; both are re-exported here.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from topics.text import first_sentence

__all__ = [
    "OUTLIER_COLOR",
    "group_heatmap",
    "prevalence_shift",
    "share_trends",
    "significance_plot",
    "theme_shares",
    "topic_colors",
    "topic_hierarchy",
    "MAP_MAX_POINTS",
    "map_sample",
    "topic_map",
    "topic_similarity_heatmap",
    "topic_sizes",
    "topic_terms",
    "trend_movers",
    "trend_slopes",
]

OUTLIER_COLOR = "#b0b0b0"
# Plotly's Dark24 and Light24 qualitative palettes: 48 distinguishable colours.
_PALETTE = [
    "#2E91E5", "#E15F99", "#1CA71C", "#FB0D0D", "#DA16FF", "#222A2A", "#B68100", "#750D86",
    "#EB663B", "#511CFB", "#00A08B", "#FB00D1", "#FC0080", "#B2828D", "#6C7C32", "#778AAE",
    "#862A16", "#A777F1", "#620042", "#1616A7", "#DA60CA", "#6C4516", "#0D2A63", "#AF0038",
    "#FD3216", "#00FE35", "#6A76FC", "#FED4C4", "#FE00CE", "#0DF9FF", "#F6F926", "#FF9616",
    "#479B55", "#EEA6FB", "#DC587D", "#D626FF", "#6E899C", "#00B5F7", "#B68E00", "#C9FBE5",
    "#FF0092", "#22FFA7", "#E3EE9E", "#86CE00", "#BC7196", "#7E7DCD", "#FC6955", "#E48F72",
]
_LAYOUT = dict(template="plotly_white", font=dict(family="system-ui, -apple-system, Segoe UI, sans-serif", size=13))


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def topic_colors(topics) -> dict[int, str]:
    """One colour per topic id, stable across figures (outlier topic -1 grey)."""
    return {int(t): OUTLIER_COLOR if int(t) == -1 else _PALETTE[int(t) % len(_PALETTE)] for t in topics}


def _is_clear(direction) -> np.ndarray:
    """True where a direction or class names a clear change ("grew", "higher in X", "fading")."""
    d = pd.Series(direction, dtype=str)
    return (~d.str.startswith("no clear") & (d != "stable")).to_numpy()


def _by_words(comparison: pd.DataFrame) -> str:
    return str(comparison.attrs.get("by", "year"))


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _year_cols(comparison: pd.DataFrame) -> tuple:
    if "group_a" in comparison.attrs:  # compare_groups: two years or any two groups
        return comparison.attrs["group_a"], comparison.attrs["group_b"]
    try:
        return int(comparison.attrs["year_a"]), int(comparison.attrs["year_b"])
    except KeyError:
        years = sorted(int(c.split("_")[1]) for c in comparison.columns if c.startswith("share_") and c[6:].isdigit())
        if len(years) != 2:
            raise ValueError("comparison table needs share_<year> columns for exactly two years") from None
        return years[0], years[1]


# --------------------------------------------------------------------------- 1. map


#: The most papers :func:`topic_map` draws by default: 10,000 points keep the map about
#: 1.5 MB of HTML and smooth to pan; above that a stratified sample is drawn.
MAP_MAX_POINTS = 10_000
#: Papers kept per (topic, year) group, where it has that many, however small its share.
MAP_MIN_PER_GROUP = 20


def map_sample(documents: pd.DataFrame, *, max_points: int = MAP_MAX_POINTS, random_state: int = 0) -> np.ndarray:
    """Row positions of the papers to draw on the map: all of them, or a stratified sample.

    With ``n`` papers and ``n > max_points``, each of the ``G`` (topic, year) groups, of
    ``n_g`` papers, keeps ``max(round(n_g * max_points / n), min(n_g, floor))`` of them,
    drawn at random (seeded), where ``floor = max(1, min(MAP_MIN_PER_GROUP, max_points // G))``:
    every topic and year stays visible in proportion to its size and small topics keep a
    few points. The total is ``max_points`` give or take a point per group, plus the
    floors of small groups (at most about ``2 * max_points``).

    Returns
    -------
    numpy.ndarray
        Sorted row positions (``iloc``) into ``documents``.
    """
    if not isinstance(max_points, (int, np.integer)) or max_points < 1:
        raise ValueError(f"max_points must be a positive integer, got {max_points!r}")
    n = len(documents)
    if n <= max_points:
        return np.arange(n)
    rng = np.random.default_rng(random_state)
    keys = documents["topic"].astype(str).to_numpy() + "|" + documents["year"].astype(str).to_numpy()
    _, group = np.unique(keys, return_inverse=True)
    order = np.argsort(group, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(group[order]) != 0])
    floor = max(1, min(MAP_MIN_PER_GROUP, max_points // len(starts)))
    picked = []
    for members in np.split(order, starts[1:]):
        keep = max(int(round(len(members) * max_points / n)), min(len(members), floor))
        picked.append(rng.choice(members, size=min(keep, len(members)), replace=False))
    return np.sort(np.concatenate(picked))


def topic_map(
    documents: pd.DataFrame,
    coords: np.ndarray,
    *,
    title: str | None = None,
    max_points: int | None = MAP_MAX_POINTS,
    random_state: int = 0,
) -> go.Figure:
    """Documents in 2-D, coloured by topic, names at topic centres, a year selector.

    ``documents`` needs ``topic``, ``topic_label``, ``year`` and ``abstract``
    (``title`` used for hover when present). One trace per (topic, year); the buttons
    show one year, the other, or both. Above ``max_points`` papers only a stratified
    sample is drawn (:func:`map_sample`, seeded by ``random_state``; ``None`` draws
    every paper); topic names stay at the medians of all papers. The default title says
    how many papers are shown, and ``fig.layout.meta`` holds ``n_points`` and
    ``n_documents``.
    """
    coords = np.asarray(coords)
    if coords.shape != (len(documents), 2):
        raise ValueError(f"coords must have shape ({len(documents)}, 2), got {coords.shape}")
    all_docs = documents.reset_index(drop=True).assign(x=coords[:, 0], y=coords[:, 1])
    shown = np.arange(len(all_docs)) if max_points is None else map_sample(all_docs, max_points=max_points, random_state=random_state)
    docs = all_docs.iloc[shown].reset_index(drop=True) if len(shown) < len(all_docs) else all_docs
    if title is None:
        title = (
            "Topic map: every paper, placed by the similarity of its abstract" if len(docs) == len(all_docs)
            else f"Topic map: {len(docs):,} of {len(all_docs):,} papers (sampled within each topic and year), "
            "placed by the similarity of their abstracts"
        )
    titles = docs["title"] if "title" in docs else pd.Series("", index=docs.index)
    docs["hover"] = [
        f"<b>{_esc(t if t else first_sentence(a, max_chars=110))}</b><br>{y} · {_esc(lbl)}"
        for t, a, y, lbl in zip(titles.fillna(""), docs["abstract"], docs["year"], docs["topic_label"])
    ]
    colors = topic_colors(docs["topic"].unique())
    years = sorted(int(y) for y in docs["year"].unique())
    order = sorted(docs["topic"].unique(), key=lambda t: (t == -1, t))
    fig = go.Figure()
    trace_years = []
    for t in order:
        for y in years:
            part = docs[(docs["topic"] == t) & (docs["year"] == y)]
            if part.empty:
                continue
            label = part["topic_label"].iloc[0]
            fig.add_trace(
                go.Scattergl(
                    x=part["x"], y=part["y"], mode="markers",
                    name=_esc(f"{t}: {label}" if t != -1 else label),
                    legendgroup=str(t), showlegend=y == min(docs.loc[docs["topic"] == t, "year"]),
                    marker=dict(color=colors[int(t)], size=6 if t != -1 else 4, opacity=0.8 if t != -1 else 0.45,
                                symbol="circle" if y == years[-1] else "diamond"),
                    hovertext=part["hover"], hoverinfo="text",
                )
            )
            trace_years.append(y)
    centres = all_docs[all_docs["topic"] != -1].groupby(["topic", "topic_label"])[["x", "y"]].median().reset_index()
    for _, row in centres.iterrows():
        fig.add_annotation(x=row["x"], y=row["y"], text=_esc(row["topic_label"]), showarrow=False,
                           font=dict(size=11, color="#111"), bgcolor="rgba(255,255,255,0.7)")
    everything = "Both years" if len(years) == 2 else "All years"
    buttons = [dict(label=everything, method="restyle", args=[{"visible": [True] * len(trace_years)}])]
    for y in years:
        buttons.append(dict(label=f"{y} only", method="restyle", args=[{"visible": [ty == y for ty in trace_years]}]))
    fig.update_layout(
        **_LAYOUT, title=title, height=650,
        xaxis=dict(title="UMAP dimension 1 (no units)", showticklabels=False, zeroline=False),
        yaxis=dict(title="UMAP dimension 2 (no units)", showticklabels=False, zeroline=False),
        legend=dict(title="Topic (click to hide)", itemsizing="constant"),
        meta={"n_points": len(docs), "n_documents": len(all_docs)},
        updatemenus=[dict(type="buttons", direction="right", x=0, y=1.08, xanchor="left", buttons=buttons, showactive=True)],
    )
    return fig


# --------------------------------------------------------------------------- 2. shift


def prevalence_shift(comparison: pd.DataFrame, *, title: str | None = None, unit: str = "topic") -> go.Figure:
    """Share of each topic in both years (dumbbell) and the difference with its 95 % CI.

    ``unit`` names the rows in the axis and default title ("area" for an
    ``area_comparison``).

    Topics are sorted by the log-odds z-score (largest growth on top); topics whose
    ``direction`` is not "no clear change" are drawn in full colour, the rest faded.
    """
    a, b = _year_cols(comparison)
    by = _by_words(comparison)
    comp = comparison.sort_values("z", ascending=True).reset_index(drop=True)
    ylabels = [_esc(lbl) for lbl in comp["label"]]
    clear = _is_clear(comp["direction"])
    colors = topic_colors(comp["topic"])
    hover = [
        f"<b>{_esc(r['label'])}</b><br>{_esc(a)}: {r[f'n_{a}']} papers ({_pct(r[f'share_{a}'])})"
        f"<br>{_esc(b)}: {r[f'n_{b}']} papers ({_pct(r[f'share_{b}'])})"
        f"<br>{'change' if by == 'year' else 'difference'}: {r['diff_pp']:+.1f} points (95 % CI {r['ci_low_pp']:+.1f} to {r['ci_high_pp']:+.1f})"
        f"<br>q = {r['q_value']:.3g} · {_esc(r['direction'])}"
        for r in comp.to_dict("records")
    ]
    change = f"Change {_esc(a)} → {_esc(b)}" if by == "year" else f"Difference {_esc(b)} − {_esc(a)}"
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.03,
                        subplot_titles=(f"Share of papers, {_esc(a)} and {_esc(b)}", f"{change} (points, 95 % CI)"))
    for i, r in comp.iterrows():
        fig.add_trace(go.Scatter(x=[100 * r[f"share_{a}"], 100 * r[f"share_{b}"]], y=[ylabels[i]] * 2, mode="lines",
                                 line=dict(color="#999", width=2), showlegend=False, hoverinfo="skip"), row=1, col=1)
    for year, symbol, fill in ((a, "circle-open", "#555"), (b, "circle", "#1f5fa8")):
        fig.add_trace(go.Scatter(x=100 * comp[f"share_{year}"], y=ylabels, mode="markers", name=_esc(year),
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
    fig.update_xaxes(title_text=f"share of the {_esc(by)}'s papers (%)", row=1, col=1, rangemode="tozero")
    fig.update_xaxes(title_text=f"{_esc(b)} share minus {_esc(a)} share (percentage points)", row=1, col=2)
    fig.update_yaxes(title_text=f"{_esc(unit)} (sorted by z-score, " + ("growth on top)" if by == "year" else f"more in {_esc(b)} on top)"), row=1, col=1)
    default = f"Which {_esc(unit)}s grew or shrank from {a} to {b}?" if by == "year" else f"Which {_esc(unit)}s are more common in {_esc(a)} or in {_esc(b)}?"
    fig.update_layout(**_LAYOUT, title=title or default,
                      height=max(420, 26 * len(comp) + 160), legend=dict(title=_esc(by.capitalize()), orientation="h", y=-0.08 if len(comp) > 15 else -0.2),
                      bargap=0.35)
    return fig


def significance_plot(comparison: pd.DataFrame, *, alpha: float = 0.05, title: str | None = None) -> go.Figure:
    """Change against evidence: difference (points) vs -log10(q), one dot per topic.

    A volcano plot: dots above the dashed line (q = ``alpha``) are the changes that
    survive the false-discovery correction; dot size is the pooled number of papers.
    """
    a, b = _year_cols(comparison)
    by = _by_words(comparison)
    comp = comparison.reset_index(drop=True)
    colors = topic_colors(comp["topic"])
    n = comp[f"n_{a}"] + comp[f"n_{b}"]
    clear = _is_clear(comp["direction"])
    fig = go.Figure(
        go.Scatter(
            x=comp["diff_pp"], y=-np.log10(comp["q_value"].clip(lower=1e-300)), mode="markers+text",
            text=[_esc(lbl) if c else "" for lbl, c in zip(comp["label"], clear)],
            textposition="top center",
            marker=dict(size=8 + 22 * np.sqrt(n / max(n.max(), 1)), color=[colors[int(t)] for t in comp["topic"]],
                        line=dict(width=1, color="#333"), opacity=0.85),
            hovertext=[f"<b>{_esc(r.label)}</b><br>{'change' if by == 'year' else 'difference'} {r.diff_pp:+.1f} points<br>q = {r.q_value:.3g}<br>{_esc(r.direction)}"
                       for r in comp.itertuples(index=False)],
            hoverinfo="text", showlegend=False,
        )
    )
    fig.add_hline(y=-np.log10(alpha), line=dict(dash="dash", color="#c00"), annotation_text=f"q = {alpha}",
                  annotation_position="top left")
    fig.add_vline(x=0, line=dict(color="#999", width=1))
    default = f"Which changes from {a} to {b} are more than noise?" if by == "year" else f"Which differences between {_esc(a)} and {_esc(b)} are more than noise?"
    fig.update_layout(**_LAYOUT, title=title or default, height=480,
                      xaxis_title=f"{_esc(b)} share minus {_esc(a)} share (percentage points)",
                      yaxis_title="evidence: −log10(q-value), higher is stronger")
    return fig


# --------------------------------------------------------------------------- 3. sizes


def topic_sizes(prevalence: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Grouped horizontal bars: each topic's share of each year's (or group's) papers, with Wilson 95 % CIs."""
    from topics.trend_plots import group_column

    by = group_column(prevalence)
    total = f"{by}_total"
    prev = prevalence.copy()
    order = prev.groupby("topic")["share"].mean().sort_values().index.tolist()
    prev["topic"] = pd.Categorical(prev["topic"], order, ordered=True)
    prev = prev.sort_values([by, "topic"])
    fig = go.Figure()
    years = sorted(prev[by].unique())
    shades = ["#9ab8d8", "#1f5fa8", "#0b2e59", "#6fa8dc"]
    for k, (year, part) in enumerate(prev.groupby(by, sort=True)):
        fig.add_trace(
            go.Bar(
                x=100 * part["share"], y=[_esc(lbl) for lbl in part["label"]], orientation="h", name=f"{_esc(year)} (n = {part[total].iloc[0]})",
                marker_color=shades[k % len(shades)],
                error_x=dict(type="data", symmetric=False, array=100 * (part["ci_high"] - part["share"]),
                             arrayminus=100 * (part["share"] - part["ci_low"]), color="#555", thickness=1),
                hovertext=[f"<b>{_esc(r['label'])}</b><br>{_esc(year)}: {r['n_docs']} of {r[total]} papers ({_pct(r['share'])})"
                           f"<br>95 % CI {_pct(r['ci_low'])} to {_pct(r['ci_high'])}" for r in part.to_dict("records")],
                hoverinfo="text",
            )
        )
    fig.update_layout(**_LAYOUT, title=title or f"How big is each topic, as a share of each {_esc(by)}'s papers?", barmode="group",
                      height=max(420, 22 * len(order) * max(1, len(years)) // 1.4 + 160),
                      xaxis_title=f"share of that {_esc(by)}'s papers (%)", yaxis_title="topic", legend=dict(title=_esc(by.capitalize())))
    return fig


# --------------------------------------------------------------------------- 4. terms


def topic_terms(terms: pd.DataFrame, *, n_terms: int = 8, max_topics: int = 24, columns: int = 4,
                title: str = "What words define each topic? (c-TF-IDF weight)") -> go.Figure:
    """Small multiples: the top ``n_terms`` terms of each of the ``max_topics`` first topics."""
    ids = [t for t in terms["topic"].drop_duplicates() if t != -1][:max_topics]
    if not ids:
        raise ValueError("terms table has no topics")
    rows = int(np.ceil(len(ids) / columns))
    labels = terms.drop_duplicates("topic").set_index("topic")["label"]
    fig = make_subplots(rows=rows, cols=columns, subplot_titles=[_esc(f"{t}: {labels[t]}")[:40] for t in ids],
                        horizontal_spacing=0.12, vertical_spacing=min(0.08, 0.5 / max(rows, 1)))
    colors = topic_colors(ids)
    for k, t in enumerate(ids):
        part = terms[terms["topic"] == t].nsmallest(n_terms, "rank").iloc[::-1]
        fig.add_trace(go.Bar(x=part["weight"], y=[_esc(w) for w in part["term"]], orientation="h", marker_color=colors[int(t)],
                             showlegend=False, hovertext=[f"{_esc(w)}: {s:.3f}" for w, s in zip(part["term"], part["weight"])],
                             hoverinfo="text"), row=k // columns + 1, col=k % columns + 1)
    fig.update_xaxes(title_text="c-TF-IDF weight", title_font_size=10, tickfont_size=9)
    fig.update_yaxes(tickfont_size=10)
    fig.update_layout(**_LAYOUT, title=title, height=230 * rows + 120)
    return fig


# The figures for three or more years and for groupings, of how topics relate and of
# themes (they use the helpers above).
from topics.relation_plots import theme_shares, topic_hierarchy, topic_similarity_heatmap  # noqa: E402
from topics.trend_plots import group_heatmap, share_trends, trend_movers, trend_slopes  # noqa: E402
