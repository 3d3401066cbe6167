"""Plotly figures from the library's tidy tables and comparisons: data in, Figure out.

No fitting and no file I/O happen here, so notebooks, reports and other analyses draw
exactly the same figures from the same tables. By what they show:

* :mod:`topics.figures.topics` -- the map, topic sizes, topic terms;
* :mod:`topics.figures.changes` -- two groups (:class:`~topics.stats.comparison.TwoGroups`);
* :mod:`topics.figures.trends` -- three or more years and unordered groups;
* :mod:`topics.figures.relations` -- how topics relate, and the user's themes;
* :mod:`topics.figures.style` -- the colours, layout and escaping they share.

Every figure function is also importable from here (``topics.figures.topic_map``).

Examples
--------
>>> fig = topics.figures.prevalence_shift(analysis.comparison)
>>> type(fig).__name__
'Figure'
"""

from topics.figures.changes import prevalence_shift, significance_plot
from topics.figures.relations import theme_shares, topic_hierarchy, topic_similarity_heatmap
from topics.figures.style import topic_colors
from topics.figures.topics import MAP_MAX_POINTS, growth_map, map_sample, topic_map, topic_sizes, topic_terms
from topics.figures.trends import group_heatmap, share_trends, trend_movers, trend_slopes

__all__ = [
    "MAP_MAX_POINTS",
    "group_heatmap",
    "growth_map",
    "map_sample",
    "prevalence_shift",
    "share_trends",
    "significance_plot",
    "theme_shares",
    "topic_colors",
    "topic_hierarchy",
    "topic_map",
    "topic_similarity_heatmap",
    "topic_sizes",
    "topic_terms",
    "trend_movers",
    "trend_slopes",
]
