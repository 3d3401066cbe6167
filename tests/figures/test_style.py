"""What every figure shares (topics.figures.style): colours, escaping, number formats,
clear directions and the grouping column of a prevalence table."""

import pandas as pd
import pytest

from topics import figures
from topics.figures.style import (
    MIN_CHROMA,
    N_AREA_COLORS,
    OUTLIER_COLOR,
    PALETTE,
    area_shades,
    chroma,
    esc,
    group_column,
    is_clear,
    pct,
)


def test_topic_colors_are_stable_and_outliers_grey():
    a, b = figures.topic_colors([0, 1, -1]), figures.topic_colors([1, 0, 5])
    assert a[0] == b[0] and a[1] == b[1] and a[-1] == OUTLIER_COLOR
    assert len(set(figures.topic_colors(range(20)).values())) == 20


def test_topic_colors_wrap_around_the_palette():
    colors = figures.topic_colors([0, len(PALETTE), -1])
    assert colors[0] == colors[len(PALETTE)] == PALETTE[0] and colors[-1] == OUTLIER_COLOR


def test_area_shades_run_from_dark_to_light_within_each_area():
    shades = area_shades({0: 1, 3: 1, 5: 1, 2: 0, -1: -1, 7: -1})
    assert shades[-1] == shades[7] == OUTLIER_COLOR
    assert shades[2] == PALETTE[0]  # a lone topic takes its area's colour itself
    # area 1's three topics in id order: 30 % towards black, 7.5 % towards white, 45 % towards white
    base = [int(PALETTE[1][i:i + 2], 16) for i in (1, 3, 5)]
    expected = [
        [round(c * 0.7) for c in base],
        [round(c + 0.075 * (255 - c)) for c in base],
        [round(c + 0.45 * (255 - c)) for c in base],
    ]
    assert [shades[t] for t in (0, 3, 5)] == ["#" + "".join(f"{c:02x}" for c in rgb) for rgb in expected]
    assert area_shades({0: N_AREA_COLORS + 1})[0] == PALETTE[1]  # areas cycle through the darker colours


def test_no_topic_or_area_is_drawn_in_grey():
    """Grey means an outlier: no topic's colour, and no area's shade on the map, is grey or
    near it (the palettes' dark grey "#222A2A" once drew the area "language models")."""
    assert chroma(OUTLIER_COLOR) == 0 and chroma("#222A2A") < 0.05
    colors = list(figures.topic_colors(range(3 * len(PALETTE))).values())
    assert min(chroma(c) for c in colors) >= MIN_CHROMA
    # 30 areas of six topics each: the lightest shade moves 45 % towards white, the darkest 30 % towards black
    shades = area_shades({t: t // 6 for t in range(180)})
    assert min(chroma(c) for c in shades.values()) > 0.15


def test_esc_escapes_markup_and_quotes():
    # quotes as numeric references: Plotly's labels decode those and only mu, amp, lt, gt,
    # nbsp, times, plusmn and deg by name, so "&quot;" would show as written
    assert esc('<script>alert("x")</script>') == "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;"
    assert esc("Lee & Liu's") == "Lee &amp; Liu&#39;s"
    assert "&quot;" not in esc('the "best" group')
    assert esc(2024) == "2024" and esc("plain text") == "plain text"


def test_pct_formats_a_share_with_one_decimal():
    assert pct(0.125) == "12.5 %"
    assert pct(0) == "0.0 %" and pct(1) == "100.0 %"
    assert pct(0.0004) == "0.0 %" and pct(0.9996) == "100.0 %"


def test_is_clear_marks_every_kind_of_clear_verdict():
    directions = ["grew", "shrank", "higher in Oral", "more in ICLR", "emerging", "fading",
                  "no clear change", "no clear difference", "no clear trend", "stable"]
    assert is_clear(directions).tolist() == [True] * 6 + [False] * 4
    assert is_clear(pd.Series([], dtype=object)).tolist() == []


def test_group_column_finds_the_grouping():
    by_status = pd.DataFrame({"year": [2024], "status": ["Oral"], "status_total": [3], "share": [0.5]})
    by_status.attrs["by"] = "status"
    assert group_column(by_status) == "status"  # the stated grouping wins over a year column
    assert group_column(pd.DataFrame({"year": [2024], "year_total": [3], "share": [0.5]})) == "year"
    assert group_column(pd.DataFrame({"topic": [0], "venue": ["ICLR"], "venue_total": [3]})) == "venue"
    with pytest.raises(ValueError, match="no group column"):
        group_column(pd.DataFrame({"topic": [0], "share": [0.5]}))
