"""What every figure shares: colours, layout, escaping, number formats.

A topic has one colour across all charts (:func:`topic_colors`, outliers grey), except
on the map, where the colours follow the areas (:func:`area_shades`); user
text (titles, abstracts, topic and group names) goes through :func:`esc` before it
reaches hover text or labels.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd

__all__ = ["LAYOUT", "MIN_CHROMA", "N_AREA_COLORS", "OUTLIER_COLOR", "PALETTE", "area_shades", "chroma", "esc", "group_column", "is_clear", "pct", "topic_colors"]

OUTLIER_COLOR = "#b0b0b0"
# Plotly's Dark24 and Light24 qualitative palettes: 48 distinguishable colours.
_DARK24 = [
    "#2E91E5", "#E15F99", "#1CA71C", "#FB0D0D", "#DA16FF", "#222A2A", "#B68100", "#750D86",
    "#EB663B", "#511CFB", "#00A08B", "#FB00D1", "#FC0080", "#B2828D", "#6C7C32", "#778AAE",
    "#862A16", "#A777F1", "#620042", "#1616A7", "#DA60CA", "#6C4516", "#0D2A63", "#AF0038",
]
_LIGHT24 = [
    "#FD3216", "#00FE35", "#6A76FC", "#FED4C4", "#FE00CE", "#0DF9FF", "#F6F926", "#FF9616",
    "#479B55", "#EEA6FB", "#DC587D", "#D626FF", "#6E899C", "#00B5F7", "#B68E00", "#C9FBE5",
    "#FF0092", "#22FFA7", "#E3EE9E", "#86CE00", "#BC7196", "#7E7DCD", "#FC6955", "#E48F72",
]
#: The least chroma (max - min of the RGB channels, 0-1) of a topic's or area's colour: the
#: greys and near-greys of the palettes are left out, since grey means an outlier.
MIN_CHROMA = 0.3


def chroma(color: str) -> float:
    """How far ``color`` (``#rrggbb``) is from grey: the range of its channels, 0 (grey) to 1."""
    rgb = [int(color[i:i + 2], 16) for i in (1, 3, 5)]
    return (max(rgb) - min(rgb)) / 255


_DARK = [c for c in _DARK24 if chroma(c) >= MIN_CHROMA]
#: One colour per topic: Dark24 then Light24 without their greys (40 colours); the first
#: :data:`N_AREA_COLORS` (the dark ones) colour the areas on the map.
PALETTE = _DARK + [c for c in _LIGHT24 if chroma(c) >= MIN_CHROMA]
N_AREA_COLORS = len(_DARK)
LAYOUT = dict(template="plotly_white", font=dict(family="system-ui, -apple-system, Segoe UI, sans-serif", size=13))


def esc(value: object) -> str:
    """``value`` as text, HTML-escaped (quotes too, as numeric references: Plotly decodes
    ``&#34;`` in a label, but shows ``&quot;`` as it is written)."""
    return html.escape(str(value), quote=False).replace('"', "&#34;").replace("'", "&#39;")


def topic_colors(topics) -> dict[int, str]:
    """One colour per topic id, stable across figures (outlier topic -1 grey)."""
    return {int(t): OUTLIER_COLOR if int(t) == -1 else PALETTE[int(t) % len(PALETTE)] for t in topics}


def _mix(color: str, other: str, weight: float) -> str:
    """``color`` moved ``weight`` (0-1) of the way towards ``other`` (both ``#rrggbb``)."""
    a = [int(color[i:i + 2], 16) for i in (1, 3, 5)]
    b = [int(other[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + weight * (y - x)):02x}" for x, y in zip(a, b))


def area_shades(topic_areas) -> dict[int, str]:
    """One colour per topic, in shades of its area's colour: each area takes one of the
    first :data:`N_AREA_COLORS` colours of :data:`PALETTE` (Dark24 without its greys, by
    area id), and its topics (in id order) run from
    darker to lighter versions of it. Outliers (topic -1) and topics without an area
    (area -1) are grey.

    ``topic_areas`` maps topic id to area id.
    """
    pairs = sorted((int(t), int(a)) for t, a in dict(topic_areas).items())
    members: dict[int, list[int]] = {}
    for t, a in pairs:
        if t != -1 and a != -1:
            members.setdefault(a, []).append(t)
    out = {t: OUTLIER_COLOR for t, a in pairs if t == -1 or a == -1}
    for a, ts in members.items():
        base = PALETTE[a % N_AREA_COLORS]
        for j, t in enumerate(ts):
            f = -0.3 + 0.75 * j / (len(ts) - 1) if len(ts) > 1 else 0.0
            out[t] = base if f == 0 else _mix(base, "#000000", -f) if f < 0 else _mix(base, "#ffffff", f)
    return out


def is_clear(direction) -> np.ndarray:
    """True where a direction or class names a clear change ("grew", "higher in X", "fading")."""
    d = pd.Series(direction, dtype=str)
    return (~d.str.startswith("no clear") & (d != "stable")).to_numpy()


def pct(x: float) -> str:
    """A share (0-1) as a percentage with one decimal: ``"12.5 %"``."""
    return f"{100 * x:.1f} %"


def group_column(prevalence: pd.DataFrame) -> str:
    """The grouping column of a prevalence table (``attrs["by"]``, else ``year``, else the
    column ``c`` with a ``c_total`` column)."""
    by = prevalence.attrs.get("by")
    if by in prevalence.columns:
        return by
    if "year" in prevalence.columns:
        return "year"
    for col in prevalence.columns:
        if f"{col}_total" in prevalence.columns:
            return col
    raise ValueError("prevalence table has no group column (expected 'year' or a column <by> with <by>_total)")
