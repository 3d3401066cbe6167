# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Trends over several years, and comparisons between groups
#
# `topics.compare_groups(documents, by=...)` compares topic shares between the groups of
# any column. Two groups give the two-year table; three or more years give **trends**
# (emerging, growing, fading, stable, no clear trend); three or more other groups (venues,
# acceptance status) give a test of equal shares and a log-odds z per group.
#
# Part 1 compares orals, spotlights and posters on the full ICLR lists. Part 2 runs the
# trend views on five years with **planted** trends, since the bundled files cover only
# 2024 and 2025: there the right answer is known, so you can see what each view shows.

# %%
import os

import numpy as np

import topics

BACKEND = os.environ.get("TOPICS_BACKEND", "minilm")
N_PAPERS = int(os.environ.get("TOPICS_N_PAPERS", "0"))  # 0: all 4,364 papers; the test suite uses fewer

corpus = topics.datasets.iclr_full()
if N_PAPERS:
    corpus = corpus.sample(N_PAPERS, random_state=0).reset_index(drop=True)
corpus.groupby(["year", "status"]).size().unstack()

# %% [markdown]
# ## Part 1: orals, spotlights and posters
# One call fits the topics and compares their shares between the three groups (years
# pooled). The comparison table has, per topic, the share of each group's papers, the
# chi-square test that the share is the same in every group with its Benjamini-Hochberg
# q-value, and the log-odds z of each group against the others.

# %%
analysis = topics.analyze(corpus, embedder=BACKEND, random_state=0, by="status")
cols = ["label", "share_Oral", "share_Spotlight", "share_Poster", "z_Oral", "z_Spotlight", "z_Poster", "q_value", "leans"]
analysis.comparison.table[cols].head(10).round(3)

# %% [markdown]
# **Which topics lean to which group?** Red cells: more common in that group than in the
# others; blue: less. Bold names differ clearly (q < 0.05). Orals are few (a few hundred),
# so only large differences can be clear.

# %%
topics.figures.group_heatmap(analysis.comparison)

# %% [markdown]
# The summary the report opens with, from the table alone:

# %%
for sentence in analysis.comparison.narrate():
    print("-", sentence)

# %% [markdown]
# **Is a lean a year effect?** Orals are 3.8 % of the 2024 papers and 9.7 % of the 2025
# papers here, so a topic that grew in 2025 can look "oral". Comparing within each year
# uses the same topics (the documents table, no refit):

# %%
docs = analysis.documents
per_year = {
    year: topics.compare_groups(docs[docs["year"] == year], by="status").table.set_index("label")[["q_value", "leans"]]
    for year in (2024, 2025)
}
table = analysis.comparison.table
leaning = table.loc[table["q_value"] < 0.2, "label"]
{year: table.loc[table.index.isin(leaning)].round(3) for year, table in per_year.items()}

# %% [markdown]
# Two groups at a time give the two-group table, with an interval for the difference:

# %%
two = topics.compare_groups(docs, by="status", groups=["Poster", "Oral"])
two.table[["label", "share_Poster", "share_Oral", "diff_pp", "ci_low_pp", "ci_high_pp", "q_value", "direction"]].head(5).round(3)

# %% [markdown]
# ## Part 2: five years with planted trends
# We give every paper a year from 2021 to 2025 by drawing it at random, with the years
# uniform for every topic except two: the largest topic's papers lean to the later years
# (a rising topic), the second largest's to the earlier ones (a fading topic). The other
# topics are flat by construction, so a trend found there is a false positive.

# %%
rng = np.random.default_rng(0)
years = np.arange(2021, 2026)
sizes = docs.loc[docs["topic"] != -1, "topic"].value_counts()
rising, fading = sizes.index[0], sizes.index[1]
weights = {rising: np.array([1, 2, 3, 4, 5]), fading: np.array([5, 4, 3, 2, 1])}
simulated = docs.assign(
    year=[rng.choice(years, p=weights.get(t, np.ones(5)) / weights.get(t, np.ones(5)).sum()) for t in docs["topic"]]
)
trend = topics.compare_groups(simulated)  # by="year": five ordered groups, a topics.Trend
trend.table[["label", "share_2021", "share_2025", "slope_pp", "slope_low_pp", "slope_high_pp", "q_value", "trend"]].round(3)

# %% [markdown]
# **What to look at:** the planted topics come out as growing (or emerging) and fading;
# every other topic should be stable or "no clear trend" -- at a 5 % false-discovery
# rate, now and then one flat topic is called a trend by chance.

# %%
print("planted:", trend.table.set_index("topic").loc[[rising, fading], ["label", "trend"]].to_dict("records"))
trend.table["trend"].value_counts()

# %% [markdown]
# **Small multiples:** each topic's share per year with its 95 % band, in the topic's
# colour, ordered from emerging and growing to fading, stable and unclear topics.

# %%
prev = topics.prevalence(simulated, by="year")
topics.figures.share_trends(prev, trend)

# %% [markdown]
# **The biggest movers** (steepest slopes; solid lines are clear trends) and **every
# slope with its interval**:

# %%
topics.figures.trend_movers(prev, trend, n_topics=6)

# %% [markdown]
# **Every topic's slope at once**, steepest rise on top: bars whose interval crosses zero
# are compatible with no trend, and faded bars did not pass the false-discovery correction.

# %%
topics.figures.trend_slopes(trend)

# %% [markdown]
# **Bursts** (Kleinberg 2002) mark years whose share is well above a topic's average. With
# five years they add the years of a surge to a topic without a clear trend, and repeat
# the trend for the planted ones:

# %%
from topics.stats.bursts import detect_bursts

detect_bursts(simulated).round(3)

# %% [markdown]
# The whole report for the five simulated years: `topics.analyze` with the same
# embeddings (no new embedding), the years as the grouping.

# %%
import tempfile
from pathlib import Path

five = analysis.corpus.assign(year=simulated["year"].to_numpy())
five_analysis = topics.analyze(five, embeddings=analysis.embeddings, random_state=0)
path = topics.write_report(five_analysis, Path(tempfile.mkdtemp()) / "five-years.html", dataset="simulated years")
print(five_analysis.kind, five_analysis.groups, path.stat().st_size // 1024, "KiB")
