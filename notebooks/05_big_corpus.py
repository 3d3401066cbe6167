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
# # NeurIPS over 35 years
#
# The topics of NeurIPS from 1987 to 2022 and how their shares moved, from the large
# real corpus `../shared/data/bigcorpus.parquet` (207,204 abstracts of 39 venues; its
# `README.md` lists what it holds). The corpus is not part of the project: where it is
# absent (a clean clone, CI), or where `TOPICS_N_PAPERS` is set, this notebook reads
# `tests/data/bigcorpus_neurips_sample.parquet` instead, 20 NeurIPS papers of every year
# drawn by `benchmarks/draw_bigcorpus_subset.py` (its docstring says how).
#
# **What the data can and cannot say** (read this before any chart):
#
# - **Years present**: 1987-2022, then 2025. There is **no NeurIPS 2023 or 2024** in the
#   corpus, and **2025 is a partial crawl** (1,781 papers: 77 orals, 663 spotlights and
#   1,041 posters, of about 5,300 accepted papers, most of them posters): a non-random
#   subset that over-represents orals and spotlights. The trends below run over
#   **1987-2022** only; 2025 is looked at on its own at the end.
# - **Early years are small**: 50 papers in 1987 against 2,818 in 2022, and the corpus
#   keeps only abstracts of 200 to 5,000 characters, so a volume can lack papers whose
#   extracted abstract was short or missing. A trend test counts papers, so the 2017-2022
#   volumes (62 % of the 1987-2022 papers) weigh most in every slope. The period view
#   below pools the early years, so that each early share rests on hundreds of papers.
# - **Early abstracts were extracted from PDFs**: most 1987-2001 abstracts hold
#   `(cid:N)` codes where the extraction met a soft hyphen or a ligature ("pop(cid:173)
#   ular", "coe(cid:14)cients"), and some OCR slips ("calculat10n"). We repair the codes
#   before embedding (below); left alone, their fragments would be words of their own
#   that only the early years use.
# - **Statuses are the sources' words** (every 1987-2012 paper is "Poster", 2019-2021
#   "main", 2022 "Accept"): they say nothing about orals across years. The 2022 crawl
#   also holds 116 rejected submissions; they are left out here (and of the subset).
# - 2019-2021 and 2025 abstracts have no final period (the sources' style); nothing
#   downstream depends on punctuation.
# - **The topics are fitted once on all papers**, so each era gets topics in proportion
#   to its papers: the recent, large volumes get more and finer topics; the early ones,
#   fewer and broader ones. A topic's name is what most of its papers share, so a topic
#   that holds 1990s and 2020s papers is named after its (larger) recent part: read its
#   typical titles and its bursts before trusting the name for the early years.
#
# The embedding backend is `static` by default (`TOPICS_BACKEND`): model2vec vectors
# distilled from MiniLM and taught to imitate it embed 18,000 abstracts in seconds, where
# MiniLM would take hours on a laptop's CPU; its topics are coarser than MiniLM's (README,
# "Embedding backends"), so take this as a first look. The test suite runs the notebook
# on the subset with the weightless `lsa` backend.

# %%
import os
import re
from pathlib import Path

import pandas as pd

import topics

BACKEND = os.environ.get("TOPICS_BACKEND", "static")
N_PAPERS = int(os.environ.get("TOPICS_N_PAPERS", "0"))  # set (the test suite: 1200): read the committed subset
SEED = 0
SUBSET_FILE = Path("tests") / "data" / "bigcorpus_neurips_sample.parquet"


def repository_root() -> Path:
    """The folder holding tests/data/: the working folder, its parent (notebooks/), or the package's."""
    for base in (Path.cwd(), Path.cwd().parent, Path(topics.__file__).resolve().parents[1]):
        if (base / SUBSET_FILE).is_file():
            return base
    return Path.cwd().parent


ROOT = repository_root()
BIGCORPUS = Path(os.environ.get("TOPICS_BIGCORPUS", ROOT.parent / "shared" / "data" / "bigcorpus.parquet"))

if BIGCORPUS.is_file() and not N_PAPERS:
    DATA = "big corpus"
    corpus = topics.read_corpus(BIGCORPUS)  # 207,204 rows, about 10 s
    corpus = corpus[(corpus["venue"] == "NeurIPS") & (corpus["status"] != "Reject")].reset_index(drop=True)
else:
    DATA = "committed subset"
    corpus = topics.read_corpus(ROOT / SUBSET_FILE)
    if N_PAPERS and N_PAPERS < len(corpus):  # fewer still, the same share of every year
        corpus = corpus.groupby("year").sample(frac=N_PAPERS / len(corpus), random_state=0).reset_index(drop=True)
print(f"{DATA}: {len(corpus):,} NeurIPS papers, {corpus['year'].min()}-{corpus['year'].max()}, {BACKEND!r} backend")
corpus.groupby("year").size().rename("papers").to_frame().T

# %% [markdown]
# With the committed subset every year has the same number of papers (a stratified
# draw): the counts above then say nothing about the conference's growth, but every
# year's shares rest on the same number of papers.
#
# **2025 in the corpus**, by status: orals and spotlights are over-represented, posters
# are there only in part, so 2025's topic shares lean towards what orals and spotlights
# were about.

# %%
corpus[corpus["year"] == 2025].groupby("status").size().rename("papers").to_frame().T

# %% [markdown]
# ## Repairing the PDF extraction of the early abstracts
# `(cid:N)` is a glyph the PDF extraction could not name. `(cid:173)` is a soft hyphen
# at a line break: the word continues after the space, so the halves are joined ("pop
# ular" becomes "popular"; a real hyphen at a line break, "self-organizing", becomes
# "selforganizing"). Codes 11-14 are TeX's ligatures ff, fi, fl and ffi
# ("coe(cid:14)cients"), code 2 before a letter is fi in some fonts ("classi(cid:2)cation"),
# code 0 is a minus ("K(cid:0)means"); the few others (math symbols) become a space.
# Left alone, "coe cients" and "classi cation" would be words of their own, and could
# name a topic.

# %%
LIGATURES = {"11": "ff", "12": "fi", "13": "fl", "14": "ffi"}


def repair_pdf_text(text: str) -> str:
    """The text with the PDF extraction's (cid:N) codes undone where their meaning is known."""
    text = re.sub(r"\(cid:173\)\s*", "", text)
    text = re.sub(r"\(cid:(1[1-4])\)", lambda m: LIGATURES[m.group(1)], text)
    text = re.sub(r"\(cid:2\)(?=[a-z])", "fi", text)
    text = text.replace("(cid:0)", "-")
    return re.sub(r"\(cid:\d+\)", " ", text)


damaged = corpus["abstract"].str.contains("(cid:", regex=False) | corpus["title"].str.contains("(cid:", regex=False)
print(f"{int(damaged.sum()):,} of {len(corpus):,} abstracts hold (cid:N) codes; share by year:")
print(damaged.groupby(corpus["year"]).mean().loc[lambda s: s > 0].round(2).to_dict())
for column in ("title", "abstract"):
    corpus[column] = corpus[column].map(repair_pdf_text)
corpus.loc[damaged, ["year", "title", "abstract"]].head(3)

# %% [markdown]
# ## Topics, and their trends over 36 years
# One call embeds the abstracts, fits the consensus topics on **every** paper (2025
# included) and compares the shares over the years 1987-2022 (`years=`: the continuous
# run of years; 2022 to 2025 would be a three-year jump to a non-random crawl). With three
# or more years the comparison is a `topics.Trend`: per topic the share of every year's
# papers, the Cochran-Armitage test of a linear trend with its Benjamini-Hochberg q, the
# slope in points a year with a 95 % interval, and a class (emerging, growing, fading,
# stable, no clear trend).
#
# On the whole big corpus, `topics` warns about each early year that holds under 1 % of
# the papers compared (every year to about 2000): their shares rest on few papers. The
# trend is still fitted (no year lies more than two years from the next), but those
# years barely move the slopes.

# %%
YEARS = [int(y) for y in sorted(corpus["year"].unique()) if y <= 2022]
analysis = topics.analyze(corpus, embedder=BACKEND, random_state=SEED, by="year", years=YEARS)
trend = analysis.comparison
print(f"{type(trend).__name__} over {YEARS[0]}-{YEARS[-1]} ({len(YEARS)} years); "
      f"{len(analysis.topics[analysis.topics['topic'] != -1])} topics in {analysis.settings.n_areas} areas; "
      f"{100 * analysis.model.outlier_share_:.0f} % of papers without a topic; "
      + ", ".join(f"{stage} {seconds:.0f} s" for stage, seconds in analysis.timings.items()))
largest = analysis.topics[analysis.topics["topic"] != -1].nlargest(1, "n_docs").iloc[0]
print(f"largest topic: {largest['label']!r}, {largest['n_docs']:,} papers ({100 * largest['share']:.0f} %)")
analysis.topics[["topic", "label", "area_label", "n_docs", "share", "typical_titles"]].head(15)

# %% [markdown]
# Look at the largest topic's share first: a topic that holds a large part of all papers
# is a catch-all the clustering could not split (the `static` backend's coarse geometry
# makes that likelier on a corpus this size), and its trend says little about research
# topics.
#
# **The areas** (groups of related topics) and their topics:

# %%
analysis.areas[["area", "label", "n_topics", "n_docs", "share", "topics"]]

# %% [markdown]
# **What moved**, in the words of the report's summary (the areas' trends are in
# `analysis.area_comparison`):

# %%
for sentence in trend.narrate(bursts=analysis.bursts):
    print("-", sentence)
trend.table["trend"].value_counts()

# %% [markdown]
# Each sentence quotes the first and the last year's share; with 50 papers in 1987 (20 in
# the subset) the first is noisy, and a topic that peaked in between can be called
# fading with a higher share in 2022 than in 1987. The class comes from the slope over
# all years and the two halves of the span: read the slope and the charts, not the two
# end points.
#
# The charts of a trend are the report's own (`topics.report.charts.build_figures`, the
# charts its declarations give this kind of comparison). **Every topic's slope**, steepest rise on top: faded bars did not
# pass the false-discovery correction, and bars whose interval crosses zero are
# compatible with no linear trend. Over 36 years a slope of +0.1 points a year is a
# 3.5-point change.

# %%
charts = topics.report.charts.build_figures(analysis)
charts["slopes"]

# %% [markdown]
# **The biggest movers**, year by year (solid: clear trends). The early years' points
# jump around: with the big corpus they rest on 50-150 papers each.

# %%
charts["movers"]

# %% [markdown]
# **Every topic's share per year** with its 95 % band, ordered from emerging and growing
# to fading, stable and unclear topics. Read the bands, not the lines: where a band is
# wide, the year's papers are few.

# %%
charts["trends"]

# %% [markdown]
# **The areas' slopes**: the same view one level up.

# %%
charts["area_slopes"] if "area_slopes" in charts else "fewer than two areas: no area chart"

# %% [markdown]
# ## The same question with the years pooled into six periods
# A year-by-year linear trend over 36 years asks "did the share rise steadily?" and
# weighs every paper equally, so the last six years decide. Pooling the years into six
# periods of six years makes every era's share rest on hundreds of papers (on the big
# corpus; 120 in the subset), so the panels below can be read era by era. The topics are
# the same (no refit: the documents table of the analysis, regrouped). The groups are not
# numbers, so the slope is in points **per period** (the charts and sentences say "per
# step"). The test still counts papers: on the big corpus 2017-2022 holds 10,154 of the
# 16,480 papers, so a topic that rose and fell again (a peak in the 2000s) can still come
# out as "fading"; its panel shows the peak.

# %%
PERIOD_YEARS = 6
periods = {y: f"{y - (y - YEARS[0]) % PERIOD_YEARS}–{y - (y - YEARS[0]) % PERIOD_YEARS + PERIOD_YEARS - 1}" for y in YEARS}
PERIODS = list(dict.fromkeys(periods.values()))
docs = analysis.documents[analysis.documents["year"].isin(YEARS)].assign(period=lambda d: d["year"].map(periods))
by_period = topics.compare_groups(docs, by="period", groups=PERIODS, ordered=True)
period_prevalence = topics.prevalence(docs, by="period")
print(type(by_period).__name__, dict(by_period.sizes))
for sentence in by_period.narrate():
    print("-", sentence)
by_period.table[["label", *[f"share_{p}" for p in PERIODS], "slope_pp", "q_value", "trend"]].head(12).round(3)

# %% [markdown]
# One panel per topic, its share in each six-year period with a 95 % band: look for the
# topics whose line peaks in a middle period, which a straight line over the years
# calls fading or misses.

# %%
topics.figures.share_trends(period_prevalence, by_period, title="Each topic's share per six-year period (95 % band)")

# %% [markdown]
# Where the two views disagree, the topic's share moves in a way that a straight line
# describes badly (a peak, or a jump in the recent years): look at both panels.

# %%
both = trend.table[["topic", "label", "trend"]].merge(
    by_period.table[["topic", "trend"]], on="topic", suffixes=("_by_year", "_by_period"))
pd.crosstab(both["trend_by_year"], both["trend_by_period"])

# %% [markdown]
# **Bursts** (Kleinberg 2002): the years whose share is well above a topic's average.
# Over 36 years they say *when* a topic had its time, which a linear trend cannot: the
# rise and fall of a topic in the middle of the span shows up here.

# %%
analysis.bursts.head(12).round(3)

# %% [markdown]
# ## 2022 against the partial 2025
# The same topics, 2022 against 2025 (a two-group comparison). 2025 is a partial,
# non-random crawl that leans towards orals and spotlights, and 2023-2024 are missing:
# read this as "what the 2025 papers we have are about", not as a trend.

# %%
cols = ["label", "share_2022", "share_2025", "diff_pp", "ci_low_pp", "ci_high_pp", "q_value", "direction"]
has_2025 = {2022, 2025} <= set(analysis.documents["year"])
recent = topics.compare_groups(analysis.documents, by="year", groups=[2022, 2025]) if has_2025 else None
recent.table[cols].head(8).round(3) if has_2025 else "no 2022 or 2025 papers in this corpus"

# %% [markdown]
# ## What to take from this
#
# - Trends over decades of a growing conference are dominated by the recent, large
#   volumes. The period view makes the early eras readable (each share on hundreds of
#   papers), but its test too weighs the recent papers most: read the panels.
# - The topics are fitted on all papers at once, so they are drawn at the granularity of
#   the recent years; an era-specific topic of the 1990s has to be large to be found.
# - With the `static` backend the topics are a first look: rerun with
#   `TOPICS_BACKEND=minilm` on a machine where embedding 18,000 abstracts is affordable
#   before reporting a topic's trend.
# - The venues side by side: `topics.analyze(big, by="venue", years=[2021])` compares the
#   venues of one year (unordered groups: a chi-square test and log-odds leans per venue).
