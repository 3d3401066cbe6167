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
# # ICLR 2024 vs 2025: what grew, what shrank?
#
# Prevalence per year, the comparison table with intervals and q-values, and the
# prevalence-shift chart. Set `DATASET = "full"` to run on the full lists (4,364
# abstracts; the first run embeds for several minutes, then the cache is used).
#
# On the bundled files, the analysis `make report` saved in `reports/model` is loaded
# when it is there (same papers, backend and seed: `topics.store.saved_analysis`), so the
# notebook opens in seconds; otherwise, or with `SAVED = None`, it is fitted from scratch.

# %%
import os
from pathlib import Path

import topics
from topics.store import saved_analysis

DATASET = os.environ.get("TOPICS_DATASET", "sample")  # "sample" (90 abstracts) or "full"
BACKEND = os.environ.get("TOPICS_BACKEND", "minilm")
SEED = 0

SAVED = Path("../reports/model")  # written by `make report`

corpus = topics.datasets.load_dataset(DATASET)
analysis = saved_analysis(SAVED, corpus, backend=BACKEND, random_state=SEED)
if analysis is None:
    print("no saved analysis of these papers: fitting from scratch")
    analysis = topics.analyze(corpus, embedder=BACKEND, random_state=SEED)
else:
    print(f"loaded the analysis saved in {SAVED}")
corpus.groupby("year").size()

# %% [markdown]
# ## Areas first
# Areas group related topics. **What to look at:** which broad areas grew or shrank,
# before drilling into their topics below.

# %%
from topics.stats.narration import narrate_areas

for sentence in narrate_areas(analysis.area_comparison):
    print("-", sentence)
analysis.area_comparison.overview()

# %% [markdown]
# ## Prevalence per year
# Shares of each year's papers (outliers excluded), with 95 % Wilson intervals. The
# years differ in size, so compare shares, never counts.
#
# **What to look at:** topics whose bars differ a lot between years, and how wide the
# whiskers are for the smaller year.

# %%
topics.figures.topic_sizes(analysis.prevalence)

# %% [markdown]
# ## The comparison table
# Per topic: the change in percentage points with a 95 % Newcombe interval, the
# log-odds z-score, Fisher's p and the Benjamini-Hochberg q-value. `direction` says
# "grew" or "shrank" only where q < 0.05.

# %%
analysis.comparison.table.round(3)

# %% [markdown]
# ## Which topics moved?
# **What to look at:** on the right, intervals that do not cross zero; bars drawn in full
# colour passed the false-discovery correction.

# %%
topics.figures.prevalence_shift(analysis.comparison)

# %% [markdown]
# **Are the changes more than noise?** Dots above the dashed line have q < 0.05.

# %%
topics.figures.significance_plot(analysis.comparison)

# %% [markdown]
# ## What the numbers say
# Generated from the comparison itself (`analysis.comparison.narrate()`), so it stays true
# when the data change:

# %%
for sentence in analysis.comparison.narrate():
    print("-", sentence)

# %% [markdown]
# ## Your own question: how did three research areas fare?
# Topics answer "is optimal transport growing?" only when the clusterer happens to
# isolate that area. `track` (`topics.themes.tracking`) answers it directly: a paper belongs to a
# theme if its title or abstract names it (or an acronym the papers define for it, such
# as OT or SSL), or if its abstract is as similar to those papers as a cut calibrated on
# them requires. Shares are of *all* papers of each year, so outliers play no part, and
# a paper may belong to several themes.
#
# **What to look at:** `n_phrase` against `n_similarity` (how many papers never use the
# phrase), and whether a theme's interval crosses zero.

# %%
THEMES = ["optimal transport", "self-supervised learning", "diffusion models"]
from topics.themes.tracking import narrate_themes, track

tracking = track(corpus, analysis.embeddings, THEMES, embedder=BACKEND)
tracking.summary[["theme", "n_2024", "n_2025", "share_2024", "share_2025", "diff_pp", "ci_low_pp", "ci_high_pp",
                  "q_value", "direction", "n_phrase", "n_similarity"]].round(3)

# %% [markdown]
# **Each theme's share per year**, with 95 % Wilson intervals as whiskers:

# %%
topics.figures.theme_shares(tracking.prevalence)

# %% [markdown]
# **The answer in words**, generated from the table by `narrate_themes`:

# %%
for sentence in narrate_themes(tracking.summary):
    print("-", sentence)

# %% [markdown]
# **Check the membership by reading**: the papers most similar to each theme, per year,
# and whether they name it ("phrase") or were found by similarity alone.

# %%
tracking.top_papers.groupby("theme").head(4)

# %% [markdown]
# ## Do the topics and changes hold with another seed?
# On the full lists the topics are already a consensus of forty UMAP runs, each read by HDBSCAN
# four times (on the 90 bundled abstracts, Ward's hierarchy, which no seed moves).
# To see how much they still depend on chance, `seed_stability` (`topics.stats.stability`) refits
# the consensus with other random states (each draws forty new run seeds and new Leiden
# seeds) on the same embeddings, matches
# each topic to the refitted topic sharing the most papers, and counts the refits in
# which it came back (at least half its papers shared) with a change in the same
# direction.
#
# **What to look at:** `stable` is False for a topic or a change that one seed made;
# `diff_pp_min` to `diff_pp_max` is how far the change moved between seeds.

# %%
from topics.stats.stability import seed_stability

stability = seed_stability(
    analysis.model, corpus, analysis.embeddings, analysis.comparison, seeds=(1, 2, 3)
)
stability.round(2)

# %%
print(analysis.comparison.narrate(stability=stability)[-1])

# %% [markdown]
# ## How to read these numbers
# With the bundled sample, 2024 has only 19 papers: one paper moves a 2024 share by
# more than 5 points, so intervals are wide and few changes (often none) pass the
# correction. Read the intervals, not the point estimates. On the full lists the
# intervals are much narrower, but the ICLR 2025 list is a **non-random subset**
# (2,104 of 3,704 papers, posters under-represented): a difference can partly reflect
# which papers are missing.

# %%
for caveat in topics.datasets.dataset_caveats(DATASET):
    print("-", caveat)
