"""The whole analysis in one call: corpus -> embeddings -> topics -> tables.

:func:`analyze` is what ``topics report``, the notebooks and the benchmarks run; each
step is the public function of its module, so another analysis can run any part of it
alone. :func:`write_tables` writes the CSV tables the CLI's ``--tables`` option promises.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from topics.embed import EmbeddingCache, Embedder, embed_texts, get_embedder
from topics.model import TopicModel, map_coordinates
from topics.stability import seed_stability
from topics.tables import area_table, document_table, representative_documents, term_table, topic_similarity, topic_table
from topics.text import clean_for_terms
from topics.trends import compare_years, pick_years, prevalence

__all__ = ["Analysis", "analyze", "embedding_texts", "write_tables"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Analysis:
    """Everything one run computed; the tables are plain DataFrames.

    Attributes
    ----------
    corpus : the validated corpus frame (:mod:`topics.corpus`)
    embeddings : (n_docs, dim) array, one row per corpus row
    model : the fitted :class:`topics.TopicModel`
    coords : (n_docs, 2) UMAP layout for the topic map
    documents, topics, areas, terms, representatives, similarity : tables from :mod:`topics.tables`
    prevalence, comparison : tables from :mod:`topics.trends`, per topic
    area_comparison : :func:`topics.trends.compare_years` per area (areas group topics)
    stability : :func:`topics.stability.seed_stability` over ``stability_seeds`` (empty without)
    settings : embedding backend, seed, years, parameters -- what the methods section states
    timings : seconds per stage
    """

    corpus: pd.DataFrame
    embeddings: np.ndarray
    model: TopicModel
    coords: np.ndarray
    documents: pd.DataFrame
    topics: pd.DataFrame
    terms: pd.DataFrame
    representatives: pd.DataFrame
    similarity: pd.DataFrame
    prevalence: pd.DataFrame
    comparison: pd.DataFrame
    areas: pd.DataFrame = field(default_factory=pd.DataFrame)
    area_comparison: pd.DataFrame = field(default_factory=pd.DataFrame)
    stability: pd.DataFrame = field(default_factory=pd.DataFrame)
    settings: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)

    @property
    def year_a(self) -> int:
        return int(self.comparison.attrs["year_a"])

    @property
    def year_b(self) -> int:
        return int(self.comparison.attrs["year_b"])


def embedding_texts(corpus: pd.DataFrame, *, titles: bool = True) -> list[str]:
    """What is embedded for each paper: ``"<title>. <abstract>"`` where the paper has a
    title (and ``titles``), else the abstract; LaTeX and URLs removed
    (:func:`topics.text.clean_for_terms`)."""
    abstracts = [clean_for_terms(str(t)) for t in corpus["abstract"]]
    if not titles or "title" not in corpus:
        return abstracts
    out = []
    for title, abstract in zip(corpus["title"].fillna("").astype(str), abstracts):
        title = clean_for_terms(title).strip().rstrip(".")
        out.append(f"{title}. {abstract}" if title else abstract)
    return out


def analyze(
    corpus: pd.DataFrame,
    *,
    embedder: Embedder | str = "minilm",
    model: TopicModel | None = None,
    embeddings: np.ndarray | None = None,
    years: tuple[int, int] | None = None,
    include_outliers: bool = False,
    random_state: int = 0,
    cache: EmbeddingCache | str | os.PathLike[str] | bool | None = True,
    show_progress: bool = False,
    stability_seeds: Sequence[int] = (),
    scheduler: str | object | None = None,
) -> Analysis:
    """Embed, fit topics, and build every table for ``corpus``.

    Parameters
    ----------
    corpus
        A corpus frame (:func:`topics.read_corpus`, :func:`topics.datasets.iclr_sample`).
    embedder
        Backend name ("minilm", "minilm-fp32", "lsa") or an :class:`topics.embed.Embedder`.
    model
        An unfitted :class:`TopicModel` to use; default ``TopicModel(random_state=...)``.
    embeddings
        Precomputed embeddings (skips the embedding step and ``embedder``).
    years
        The two years to compare; default the two years present.
    include_outliers
        Count topic -1 in the prevalence and comparison tables.
    random_state
        Seed for the topic model and the map layout.
    cache, show_progress
        Passed to :func:`topics.embed.embed_texts`.
    stability_seeds
        Further seeds to refit the topic model with, to see which topics and changes
        hold (:func:`topics.stability.seed_stability`); each costs one more topic fit.
    scheduler
        Embed on a Dask cluster: a scheduler address or a ``distributed.Client``
        (:mod:`topics.distributed`); default ``None``, this process.
    """
    timings: dict[str, float] = {}
    backend = get_embedder(embedder) if embeddings is None else None
    # Fail on bad years before the expensive steps.
    year_a, year_b = pick_years(corpus, *(years if years is not None else (None, None)))

    start = time.perf_counter()
    if embeddings is None:
        embeddings = embed_texts(embedding_texts(corpus), backend, cache=cache, show_progress=show_progress, scheduler=scheduler)
    elif len(embeddings) != len(corpus):
        raise ValueError(f"{len(embeddings)} embeddings for {len(corpus)} documents")
    timings["embedding"] = time.perf_counter() - start

    start = time.perf_counter()
    model = model if model is not None else TopicModel(random_state=random_state)
    model.fit(corpus, embeddings)
    timings["topics"] = time.perf_counter() - start

    start = time.perf_counter()
    coords = map_coordinates(
        embeddings, n_neighbors=model.params_["n_neighbors"], random_state=random_state, neighbors=model.neighbors_
    )
    timings["map"] = time.perf_counter() - start

    start = time.perf_counter()
    documents = document_table(model, corpus)
    comparison = compare_years(documents, year_a, year_b, include_outliers=include_outliers)
    prev = prevalence(documents[documents["year"].isin([comparison.attrs["year_a"], comparison.attrs["year_b"]])], include_outliers=include_outliers)
    by_area = documents.assign(topic=documents["area"], topic_label=documents["area_label"])
    area_comparison = compare_years(by_area, year_a, year_b, include_outliers=include_outliers)
    result_tables = {
        "topics": topic_table(model, corpus),
        "areas": area_table(model),
        "area_comparison": area_comparison,
        "terms": term_table(model),
        "representatives": representative_documents(model, corpus, embeddings),
        "similarity": topic_similarity(model),
    }
    timings["tables"] = time.perf_counter() - start

    stability = pd.DataFrame()
    if len(stability_seeds):
        start = time.perf_counter()
        stability = seed_stability(model, corpus, embeddings, comparison, seeds=stability_seeds)
        timings["stability"] = time.perf_counter() - start

    settings = {
        "embedding": backend.name if backend is not None else "precomputed embeddings",
        "random_state": random_state,
        "include_outliers": include_outliers,
        "n_documents": len(corpus),
        "documents_per_year": {int(y): int(n) for y, n in corpus["year"].value_counts().sort_index().items()},
        "outlier_share": model.outlier_share_,
        "core_outlier_share": model.core_outlier_share_,
        "low_confidence_share": float(documents["low_confidence"].mean()),
        "n_areas": int((result_tables["areas"]["area"] != -1).sum()),
        "seeds": [int(s) for s in model.seeds_],
        "reduce_outliers": model.reduce_outliers,
        "stability_seeds": [int(x) for x in stability_seeds],
        **{k: v for k, v in model.params_.items() if k != "random_state"},
    }
    return Analysis(
        corpus=corpus,
        embeddings=embeddings,
        model=model,
        coords=coords,
        documents=documents,
        prevalence=prev,
        comparison=comparison,
        stability=stability,
        settings=settings,
        timings=timings,
        **result_tables,
    )


def write_tables(analysis: Analysis, directory: str | os.PathLike[str]) -> dict[str, Path]:
    """Write ``documents.csv``, ``topics.csv``, ``areas.csv``, ``comparison.csv`` (per
    topic) and ``area_comparison.csv`` (per area) into ``directory``, and
    ``stability.csv`` where the analysis refitted with other seeds.

    Returns the paths written, by table name.
    """
    from topics.tables import TOPIC_COLUMNS

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    a, b = analysis.year_a, analysis.year_b
    comparison_cols = [
        "topic", "label", f"n_{a}", f"n_{b}", f"share_{a}", f"share_{b}",
        "diff_pp", "ci_low_pp", "ci_high_pp", "z", "p_value", "q_value", "direction", "outliers_counted",
    ]
    tables = {
        "documents": analysis.documents[
            ["doc_id", "venue", "year", "title", "abstract", "source", "position", "topic", "topic_label",
             "confidence", "low_confidence", "area", "area_label"]
        ],
        "topics": analysis.topics[TOPIC_COLUMNS],
        "comparison": analysis.comparison[comparison_cols],
    }
    if len(analysis.areas):
        tables["areas"] = analysis.areas
        tables["area_comparison"] = analysis.area_comparison[comparison_cols].rename(columns={"topic": "area"})
    if len(analysis.stability):
        tables["stability"] = analysis.stability
    paths = {}
    for name, table in tables.items():
        path = directory / f"{name}.csv"
        table.to_csv(path, index=False, float_format="%.10g", lineterminator="\n")
        paths[name] = path
    return paths
