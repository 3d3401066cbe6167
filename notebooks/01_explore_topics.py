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
# # Exploring the topics of the bundled ICLR files
#
# This notebook walks through the pipeline step by step on the 90 bundled abstracts
# (19 from ICLR 2024, 71 from ICLR 2025): load, embed (cached), fit consensus topics,
# look at the areas, the map, the terms, the papers of one topic and how confidently
# they belong, rename and merge topics, and the outliers.
# Every step is a call into `topics`; nothing is re-implemented here.

# %%
import os

import topics

BACKEND = os.environ.get("TOPICS_BACKEND", "minilm")  # "lsa" for a weightless quick look
SEED = 0

# %% [markdown]
# ## Load
# One call gives a validated corpus: one row per abstract with `doc_id`, `venue`,
# `year`, `title`, `abstract`, `source` and `position`.

# %%
corpus = topics.datasets.iclr_sample()
corpus.groupby("year").size()

# %% [markdown]
# ## Embed and fit
# `analyze` embeds the abstracts (read from the on-disk cache after the first run),
# fits the `TopicModel` with parameters derived from the corpus size, and builds every
# table. Under 200 papers, as here, the topics are Ward's hierarchy of the embeddings,
# cut where the groups separate best (`TopicModel(method="auto")`: no seed moves them).
# From 200 papers on, the model runs UMAP forty times with different seeds (in parallel
# processes), reads each layout with HDBSCAN at four granularities, and keeps the topics
# these clusterings agree on (the consensus), so one unlucky seed cannot make a topic.
# Either way, a paper's confidence is the share of those runs that keep it with its topic.
#
# `make report` saves this very analysis in `reports/model`; where it is there (same
# papers, backend and seed), the next cell loads it in about a second instead of fitting
# (`topics.store.saved_analysis`). Set `SAVED = None` to fit from scratch.

# %%
from pathlib import Path

from topics.store import saved_analysis

SAVED = Path("../reports/model")  # written by `make report`
analysis = saved_analysis(SAVED, corpus, backend=BACKEND, random_state=SEED)
if analysis is None:
    print("no saved analysis of these papers: fitting from scratch")
    analysis = topics.analyze(corpus, embedder=BACKEND, random_state=SEED)
else:
    print(f"loaded the analysis saved in {SAVED}")
model = analysis.model
print(f"{len(model.topics) - (-1 in model.topics)} topics ({model.params_['method']}; {len(model.seeds_)} UMAP runs, seeds {model.seeds_[0]}-{model.seeds_[-1]}); "
      f"{100 * model.core_outlier_share_:.0f} % without a consensus topic, {100 * model.outlier_share_:.0f} % after neighbour votes")
analysis.topics[["topic", "label", "area_label", "n_docs", "mean_confidence", "typical_titles"]]

# %% [markdown]
# ## Areas
# **Question:** what are the broad areas? Topics whose papers read alike form an area
# (with Ward's topics an earlier, coarser cut of the same hierarchy; with the consensus,
# Ward clustering of the topic centroids); each area lists its topics, so you can
# drill down from "what grew" to "which part of it grew". An area is named like a topic,
# never after one of its topics unless that topic holds most of it; where its papers
# share no phrase, a broad word may name it ("image"); where no name reaches a quarter
# of its papers, or only a single word that fewer than half use, its two largest topics
# name it if that covers more (fits better, for the word), flagged `mixed`.

# %%
analysis.areas

# %% [markdown]
# ## The topic map
# **Question:** which papers are alike? Each point is a paper placed by the similarity of
# its abstract; colours are topics. Look for tight groups (clear topics) and grey points
# (outliers). The buttons show one year at a time.

# %%
topics.figures.topic_map(analysis.documents, analysis.coords)

# %% [markdown]
# ## Topic terms
# **Question:** what is each topic about? The bars are the terms that most distinguish a
# topic from the others (c-TF-IDF). A topic's name is chosen among them by how many of its
# papers use it (`name_coverage`): the best phrase that half of its papers use, else the two
# phrases that together cover the most, joined by " / " and flagged `mixed` (the topic
# joins two themes, and its name says so), where that holds for half of them; else the
# candidate that fits the topic best: used by many of its papers and by few others. Words
# that authors write everywhere but almost never choose as a keyword ("gap", "parameters")
# name a topic only where nothing else reaches a quarter of its papers.

# %%
topics.figures.topic_terms(analysis.terms)

# %% [markdown]
# How far each name holds: `name_coverage` is the share of the topic's papers whose title
# or abstract uses it (plurals, hyphens and the corpus's acronyms count); read a `mixed`
# topic as two themes the clustering kept together.

# %%
analysis.topics.query("topic != -1")[["topic", "label", "n_docs", "name_coverage", "mixed"]]

# %% [markdown]
# ## The papers of one topic
# The most central papers of the largest topic (closest to its centroid).

# %%
largest = analysis.topics.query("topic != -1").iloc[0]
print(f"Topic {largest.topic}: {largest.label} ({largest.n_docs} papers)")
analysis.representatives.query("topic == @largest.topic")[["rank", "year", "abstract", "similarity"]]

# %% [markdown]
# ## How confidently do papers belong?
# `confidence` is the share of the runs in which a paper landed in its topic. Papers
# below 50 % are flagged `low_confidence`: most runs put them elsewhere or nowhere, so
# read their assignment as a best guess.

# %%
docs = analysis.documents
print(f"{docs['low_confidence'].mean():.0%} of papers have low confidence")
docs.groupby("topic_label")["confidence"].describe()[["count", "mean", "min"]].sort_values("mean")

# %% [markdown]
# ## Renaming and merging
# Names are generated; where you know better, `rename` returns a new model with your
# names. `merge` joins topics and recomputes their terms and name. The fitted model is
# never changed in place.

# %%
first, second = [t for t in model.topics if t != -1][:2]
renamed = model.rename({first: "my better name"})
merged = model.merge([first, second])
print("renamed:", renamed.topic_names_[first], "| original kept:", model.topic_names_[first])
topics.topic_table(merged).head()

# %% [markdown]
# ## What the outlier topic holds
# A paper the consensus left without a topic joins the topic most of its nearest
# neighbours are in (at least 30 % of their similarity votes); the rest stay outliers
# (topic -1). `TopicModel(outlier_share=1.0)` keeps every consensus outlier;
# `TopicModel(reduce_outliers=True)` gives every remaining one its nearest topic; the
# report states which choice was made.

# %%
analysis.documents.query("topic == -1")[["year", "abstract"]].assign(abstract=lambda d: d["abstract"].str.slice(0, 120))
