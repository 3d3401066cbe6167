"""Figures of the topics themselves: the map, their sizes, their terms.

Tidy tables in, a Figure out; no fitting and no file I/O:

* ``documents`` + ``coords`` -- :func:`topics.clustering.tables.document_table` output
  and the (n_docs, 2) map layout;
* ``prevalence`` -- :func:`topics.stats.trends.prevalence` output (by year or any column);
* ``terms`` -- :func:`topics.clustering.tables.term_table` output;
* ``density`` + ``peaks`` -- :func:`topics.stats.density.year_density` and
  :func:`topics.stats.density.growth_peaks` output.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from topics.figures.style import LAYOUT, area_shades, esc, group_column, pct, topic_colors
from topics.text import paper_title

__all__ = ["MAP_MAX_POINTS", "TERM_CHARS", "growth_map", "map_sample", "topic_map", "topic_sizes", "topic_terms"]

# --------------------------------------------------------------------------- 1. map


#: The most papers :func:`topic_map` draws by default: 10,000 points keep the map about
#: 1.5 MB of HTML and smooth to pan; above that a stratified sample is drawn.
MAP_MAX_POINTS = 10_000
#: Papers kept per (topic, year) group, where it has that many, however small its share.
MAP_MIN_PER_GROUP = 20
#: Up to this many years the map has a button per year (and a trace per topic and year);
#: with more, one trace per topic and a dropdown of periods and years.
_MAP_YEAR_BUTTONS = 6
#: The most periods the map's dropdown offers (each about five years long).
_MAP_PERIODS = 6


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
    """Documents in 2-D, coloured by area, names at area and topic centres, a year selector.

    ``documents`` needs ``topic``, ``topic_label``, ``year`` and ``abstract``
    (``title`` used for hover when present; ``area`` and ``area_label`` when present).
    Traces are ordered by area. With up to six years, one trace per (topic, year) and a
    row of buttons that show all years or one; with exactly two years the earlier year's
    points are diamonds and the later year's circles, otherwise every point is a circle.
    With more years, one trace per topic (so the number of traces does not grow with the
    years), every point a circle carrying its year in ``text``, and a dropdown of all
    years, up to six periods of consecutive years, and each year: an entry sets every
    topic trace's ``selectedpoints`` to the papers of its years and fades the others.
    With two or more areas the colours follow the areas (:func:`area_shades`:
    a topic is a shade of its area's colour), each area's name sits at the median of its
    papers, and the topic names (at their papers' medians) are hidden annotations named
    ``"topic"``, for a page to show when the reader zooms in (the report does; every
    point's hover names its topic); otherwise each topic has its own colour and its name
    shows. Each point's ``customdata`` is its row position in ``documents``. A last,
    empty trace with ``meta="search"`` is there for a page to circle papers in. Above
    ``max_points`` papers only a stratified sample is drawn (:func:`map_sample`, seeded
    by ``random_state``; ``None`` draws every paper); names stay at the medians of all
    papers. The default title says how many papers are shown, and ``fig.layout.meta``
    holds ``n_points``, ``n_documents`` and ``x_span`` (the width of all papers' x range).
    """
    coords = np.asarray(coords)
    if coords.shape != (len(documents), 2):
        raise ValueError(f"coords must have shape ({len(documents)}, 2), got {coords.shape}")
    all_docs = documents.reset_index(drop=True).assign(x=coords[:, 0].astype(np.float32), y=coords[:, 1].astype(np.float32))
    all_docs["row"] = np.arange(len(all_docs))
    shown = np.arange(len(all_docs)) if max_points is None else map_sample(all_docs, max_points=max_points, random_state=random_state)
    docs = all_docs.iloc[shown].reset_index(drop=True) if len(shown) < len(all_docs) else all_docs
    if title is None:
        title = (
            "Topic map: every paper, placed by the similarity of its abstract" if len(docs) == len(all_docs)
            else f"Topic map: {len(docs):,} of {len(all_docs):,} papers (sampled within each topic and year), "
            "placed by the similarity of their abstracts"
        )
    titles = docs["title"].fillna("").astype(str) if "title" in docs else pd.Series("", index=docs.index)
    docs["hover"] = [esc(paper_title(t, a, max_chars=110)) for t, a in zip(titles, docs["abstract"])]
    topic_area = (
        all_docs.drop_duplicates("topic").set_index("topic")["area"].astype(int).to_dict() if "area" in all_docs
        else {int(t): -1 for t in all_docs["topic"].unique()}
    )
    by_area = len({a for a in topic_area.values() if a != -1}) >= 2
    colors = area_shades(topic_area) if by_area else topic_colors(docs["topic"].unique())
    years = sorted(int(y) for y in docs["year"].unique())
    order = sorted(docs["topic"].unique(), key=lambda t: (t == -1, topic_area.get(int(t), -1) if by_area else 0, t))
    fig = go.Figure()
    marker = {int(t): dict(color=colors[int(t)], size=6 if t != -1 else 4, opacity=0.8 if t != -1 else 0.45) for t in order}
    if len(years) <= _MAP_YEAR_BUTTONS:
        menu = _year_buttons(fig, docs, order, years, marker)
    else:
        menu = _year_dropdown(fig, docs, order, years, marker)
    fig.add_trace(go.Scattergl(
        x=[], y=[], mode="markers", name="search matches", meta="search", showlegend=False, hoverinfo="skip",
        marker=dict(size=12, color="rgba(0,0,0,0)", line=dict(width=2, color="#111")),
    ))
    centres = all_docs[all_docs["topic"] != -1].groupby(["topic", "topic_label"])[["x", "y"]].median().reset_index()
    for _, row in centres.iterrows():
        fig.add_annotation(x=row["x"], y=row["y"], text=esc(row["topic_label"]), showarrow=False, name="topic",
                           visible=not by_area, font=dict(size=11, color="#111"), bgcolor="rgba(255,255,255,0.7)")
    if by_area:
        first = {}  # each area's first topic: the darkest shade, for its name
        for t, a in sorted(topic_area.items()):
            if t != -1:
                first.setdefault(a, t)
        areas = all_docs[all_docs["area"] != -1].groupby(["area", "area_label"])[["x", "y"]].median().reset_index()
        for _, row in areas.iterrows():
            fig.add_annotation(x=row["x"], y=row["y"], text=f"<b>{esc(row['area_label'])}</b>", showarrow=False, name="area",
                               font=dict(size=14, color=colors[first[int(row["area"])]]),
                               bgcolor="rgba(255,255,255,0.8)", bordercolor="#999", borderwidth=1)
    fig.update_layout(
        **LAYOUT, title=title, height=650,
        xaxis=dict(title="UMAP dimension 1 (no units)", showticklabels=False, zeroline=False),
        yaxis=dict(title="UMAP dimension 2 (no units)", showticklabels=False, zeroline=False),
        legend=dict(title="Topic (click to hide)", itemsizing="constant"),
        meta={"n_points": len(docs), "n_documents": len(all_docs), "x_span": float(np.ptp(coords[:, 0])) if len(coords) else 0.0},
        updatemenus=[menu],
    )
    return fig


def _point_trace(part: pd.DataFrame, t, marker: dict, *, year_text: str, **extra) -> go.Scattergl:
    """The map's points of topic ``t`` in ``part``; ``year_text`` is the hover's year."""
    label = part["topic_label"].iloc[0]
    return go.Scattergl(
        x=part["x"].to_numpy(), y=part["y"].to_numpy(), mode="markers", name=esc(f"{t}: {label}" if t != -1 else label),
        legendgroup=str(t), marker=marker, hovertext=part["hover"].tolist(), customdata=part["row"].to_numpy(),
        hovertemplate=f"<b>%{{hovertext}}</b><br>{year_text} · {esc(label)}<extra></extra>", **extra,
    )


def _year_buttons(fig: go.Figure, docs: pd.DataFrame, order: list, years: list[int], marker: dict) -> dict:
    """One trace per (topic, year) and a button per year (few years); the buttons' menu.
    The search trace, added after, shows whatever the year."""
    trace_years = []
    for t in order:
        first = min(docs.loc[docs["topic"] == t, "year"])
        for y in years:
            part = docs[(docs["topic"] == t) & (docs["year"] == y)]
            if part.empty:
                continue
            symbol = "diamond" if len(years) == 2 and y == years[0] else "circle"
            fig.add_trace(_point_trace(part, t, marker[int(t)] | dict(symbol=symbol), year_text=str(y), showlegend=bool(y == first)))
            trace_years.append(y)
    trace_years.append(None)  # the search trace
    everything = "Both years" if len(years) == 2 else "All years"
    buttons = [dict(label=everything, method="restyle", args=[{"visible": [True] * len(trace_years)}])]
    for y in years:
        buttons.append(dict(label=f"{y} only", method="restyle", args=[{"visible": [ty in (y, None) for ty in trace_years]}]))
    return dict(type="buttons", direction="right", x=0, y=1.08, xanchor="left", buttons=buttons, showactive=True)


def _year_dropdown(fig: go.Figure, docs: pd.DataFrame, order: list, years: list[int], marker: dict) -> dict:
    """One trace per topic and a dropdown of all years, periods and single years (many
    years); the dropdown's menu. An entry selects its years' points (``selectedpoints``)
    in every topic's trace and fades the rest; the search trace, added after, is left alone."""
    point_years = []
    for t in order:
        part = docs[docs["topic"] == t]
        year = part["year"].astype(int).to_numpy()
        fig.add_trace(_point_trace(part, t, marker[int(t)] | dict(symbol="circle"), year_text="%{text}", showlegend=True,
                                   text=year.astype(str).tolist(), unselected=dict(marker=dict(opacity=0.06))))
        point_years.append(year)
    n_periods = min(_MAP_PERIODS, max(2, round(len(years) / 5)))
    periods = [list(p) for p in np.array_split(np.asarray(years), n_periods)]
    entries = [(f"{p[0]}–{p[-1]}", p) for p in periods] + [(str(y), [y]) for y in years]
    buttons = [dict(label="All years", method="restyle", args=[{"selectedpoints": [None] * (len(order) + 1)}])]
    for label, chosen in entries:
        picked = [np.flatnonzero(np.isin(year, chosen)).tolist() for year in point_years]
        buttons.append(dict(label=label, method="restyle", args=[{"selectedpoints": picked + [None]}]))
    return dict(type="dropdown", direction="down", x=0, y=1.08, xanchor="left", buttons=buttons,
                showactive=True, active=0)


# --------------------------------------------------------------------------- 2. where the latest year grew


def growth_map(density: pd.DataFrame, peaks: pd.DataFrame | None = None, *, before: str = "earlier years",
               title: str | None = None) -> go.Figure:
    """The latest year's density on the map against the earlier years': red where its
    papers lie denser, blue where they lie sparser, blank where the map is empty.

    ``density`` is :func:`topics.stats.density.year_density` output (one row per grid
    cell; ``attrs["latest"]`` names the year); ``peaks``, where given,
    :func:`topics.stats.density.growth_peaks` output: each is circled and named by its
    ``topic_label``. ``before`` names the earlier years in the title and colour bar.
    The axes are the map's (the same layout as :func:`topic_map`); ``fig.layout.meta``
    holds ``latest``, ``before`` and ``n_peaks``.
    """
    latest = density.attrs.get("latest", "the latest year")
    nx = int(density["x"].nunique())
    z = density["difference"].to_numpy().reshape(-1, nx)
    top = float(np.nanmax(np.abs(z))) if np.isfinite(z).any() else 1.0
    fig = go.Figure(go.Heatmap(
        x=np.unique(density["x"].to_numpy()), y=np.unique(density["y"].to_numpy()), z=z, zmid=0, zmin=-top, zmax=top,
        colorscale="RdBu_r", hoverinfo="skip",
        colorbar=dict(title="", tickvals=[-top, 0, top], ticktext=[f"denser in {before}", "as dense", f"denser in {latest}"]),
    ))
    if peaks is not None and len(peaks):
        fig.add_trace(go.Scatter(
            x=peaks["x"], y=peaks["y"], mode="markers+text", showlegend=False, text=[esc(t) for t in peaks["topic_label"]],
            textposition="top center", textfont=dict(size=12, color="#111"),
            marker=dict(size=22, color="rgba(0,0,0,0)", line=dict(width=2, color="#111")),
            hovertemplate=[f"<b>{esc(r.topic_label)}</b><br>{r.n_latest} of the {r.n_near} papers near here are of {latest} "
                           f"({pct(r.share_latest)})<extra></extra>" for r in peaks.itertuples(index=False)],
        ))
    fig.update_layout(
        meta={"latest": latest, "before": before, "n_peaks": 0 if peaks is None else len(peaks)},
        **LAYOUT, height=520, title=title or f"Where the papers of {latest} lie denser (red) or sparser (blue) than those of {before}",
        xaxis=dict(title="UMAP dimension 1 (no units)", showticklabels=False, zeroline=False, showgrid=False),
        yaxis=dict(title="UMAP dimension 2 (no units)", showticklabels=False, zeroline=False, showgrid=False),
    )
    return fig


# --------------------------------------------------------------------------- 3. sizes


def topic_sizes(prevalence: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Grouped horizontal bars: each topic's share of each year's (or group's) papers, with Wilson 95 % CIs."""
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
                x=100 * part["share"], y=[esc(lbl) for lbl in part["label"]], orientation="h", name=f"{esc(year)} (n = {part[total].iloc[0]})",
                marker_color=shades[k % len(shades)],
                error_x=dict(type="data", symmetric=False, array=100 * (part["ci_high"] - part["share"]),
                             arrayminus=100 * (part["share"] - part["ci_low"]), color="#555", thickness=1),
                hovertext=[f"<b>{esc(r['label'])}</b><br>{esc(year)}: {r['n_docs']} of {r[total]} papers ({pct(r['share'])})"
                           f"<br>95 % CI {pct(r['ci_low'])} to {pct(r['ci_high'])}" for r in part.to_dict("records")],
                hoverinfo="text",
            )
        )
    fig.update_layout(**LAYOUT, title=title or f"How big is each topic, as a share of each {esc(by)}'s papers?", barmode="group",
                      height=max(420, 22 * len(order) * max(1, len(years)) // 1.4 + 160),
                      xaxis_title=f"share of that {esc(by)}'s papers (%)", yaxis_title="topic", legend=dict(title=esc(by.capitalize())))
    return fig


# --------------------------------------------------------------------------- 4. terms


#: The longest term the c-TF-IDF panels write whole (:func:`topic_terms`).
TERM_CHARS = 20


def _cut(text: str, width: int) -> str:
    """``text`` whole where it has at most ``width`` characters, else cut with "…" (at a word where one ends late enough)."""
    if len(text) <= width:
        return text
    cut = text[: width - 1]
    if " " in cut and text[width - 1] != " " and cut.rfind(" ") >= width // 2:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" -/") + "…"


def topic_terms(terms: pd.DataFrame, *, n_terms: int = 8, max_topics: int = 24, columns: int = 3,
                title: str = "What words define each topic? (c-TF-IDF weight)") -> go.Figure:
    """Small multiples: the top ``n_terms`` terms of each of the ``max_topics`` first topics.

    A term longer than :data:`TERM_CHARS` characters is cut with "…" on its axis (the hover
    gives it whole), and the gap between panels holds that many characters of the axis
    font on a figure 900 pixels wide, so that no term runs into the panel to its left.
    """
    ids = [t for t in terms["topic"].drop_duplicates() if t != -1][:max_topics]
    if not ids:
        raise ValueError("terms table has no topics")
    rows = int(np.ceil(len(ids) / columns))
    labels = terms.drop_duplicates("topic").set_index("topic")["label"]
    fig = make_subplots(rows=rows, cols=columns, subplot_titles=[esc(f"{t}: {labels[t]}")[:40] for t in ids],
                        horizontal_spacing=0.18, vertical_spacing=min(0.08, 0.5 / max(rows, 1)))
    colors = topic_colors(ids)
    for k, t in enumerate(ids):
        part = terms[terms["topic"] == t].nsmallest(n_terms, "rank").iloc[::-1]
        short = [_cut(w, TERM_CHARS) for w in part["term"]]
        if len(set(short)) < len(short):  # two terms cut to the same text would share one bar
            short = list(part["term"])
        fig.add_trace(go.Bar(x=part["weight"], y=[esc(w) for w in short], orientation="h", marker_color=colors[int(t)],
                             showlegend=False, hovertext=[f"{esc(w)}: {s:.3f}" for w, s in zip(part["term"], part["weight"])],
                             hoverinfo="text"), row=k // columns + 1, col=k % columns + 1)
    fig.update_xaxes(title_text="c-TF-IDF weight", title_font_size=10, tickfont_size=9)
    fig.update_yaxes(tickfont_size=10, automargin=True)
    fig.update_layout(**LAYOUT, title=title, height=230 * rows + 120)
    return fig
