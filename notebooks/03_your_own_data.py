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
# # Your own data
#
# Read a table of abstracts with years, choose the embedding backend and seed, compare
# any two years, write the HTML report, and use the tables in another analysis. Here a
# CSV is written from the bundled full lists so the notebook runs anywhere; replace
# `PATH` with your own CSV, JSON Lines or Parquet file (columns `abstract` and `year`;
# `title`, `venue`, `id` optional).

# %%
import os
import tempfile
from pathlib import Path

import topics

workdir = Path(tempfile.mkdtemp())
full = topics.datasets.iclr_full()
sample = full.groupby("year").sample(60, random_state=0)
PATH = workdir / "my_papers.csv"
sample.rename(columns={"doc_id": "id"})[["id", "title", "abstract", "year", "status"]].to_csv(PATH, index=False)
PATH

# %% [markdown]
# ## Read
# Any extra column (here `status`) is kept. Bad files stop with a one-line error naming
# the file and the problem.

# %%
corpus = topics.read_corpus(PATH)
corpus.head(3)

# %% [markdown]
# ## Choose the backend and seed
# `"minilm"` (all-MiniLM-L6-v2, offline) for the analysis; `"lsa"` needs no model and is
# instant, good for a first look. The seed makes the topics reproducible.

# %%
BACKEND = os.environ.get("TOPICS_BACKEND", "minilm")
analysis = topics.analyze(corpus, embedder=BACKEND, random_state=1, years=(2024, 2025))
analysis.topics.head(10)

# %% [markdown]
# ## Compare any two years
# `compare_years` takes the documents table and any two years present in it.

# %%
topics.compare_years(analysis.documents, 2024, 2025).table.head()

# %% [markdown]
# **Which topics moved between the two years?**

# %%
topics.figures.prevalence_shift(analysis.comparison)

# %% [markdown]
# ## Write the report from a notebook

# %%
report = topics.write_report(analysis, workdir / "my-report.html", dataset=str(PATH))
print(report, report.stat().st_size // 1024, "KiB")

# %% [markdown]
# ## Use the tables in another analysis
# Everything is a plain DataFrame: join topics back to your own columns, for example the
# share of orals per topic.

# %%
docs = analysis.documents
oral_share = docs.assign(oral=docs["status"].eq("Oral")).groupby("topic_label")["oral"].mean().sort_values(ascending=False)
oral_share.head()
