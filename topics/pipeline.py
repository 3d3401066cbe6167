"""The whole analysis in one call: corpus -> embeddings -> topics -> tables.

:func:`analyze` is what ``topics report``, the notebooks and the benchmarks run; each
step is the public function of its module, so another analysis can run any part of it
alone. :func:`write_tables` writes the CSV tables the CLI's ``--tables`` option promises,
safe to open in a spreadsheet (:func:`spreadsheet_safe`).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Sequence
from collections.abc import Mapping
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np
import pandas as pd

from topics.stats.bursts import detect_bursts
from topics.embedding.backends import DEFAULT_BACKEND, Embedder, get_embedder
from topics.embedding.cache import EmbeddingCache
from topics.embedding.distributed import check_per_text, connect, embed_texts_distributed
from topics.embedding.embed import embed_texts
from topics.io.languages import warn_languages
from topics.stats.comparison import Comparison
from topics.stats.groups import check_group_sizes, compare_groups, describe_group, resolve_groups
from topics.clustering.emerging import emerging_subtopics
from topics.clustering.layout import map_coordinates
from topics.clustering.runs import on_cluster
from topics.clustering.model import TopicModel, check_min_cluster_size
from topics.clustering.neighbors import resolve_seed
from topics.stats.stability import seed_stability
from topics.clustering.tables import area_table, document_table, representative_documents, term_table, topic_similarity, topic_table
from topics.text import clean_for_terms
from topics.themes.specs import Theme, as_themes, resolve_examples
from topics.themes.tracking import ThemeTracking, track
from topics.stats.rising import paper_phrases, rising_phrases
from topics.stats.trends import pick_years, prevalence

__all__ = [
    "FEW_PAPERS", "FORMULA_PREFIXES", "TABLE_NAMES", "Analysis", "Settings", "analyze", "build_tables", "embedding_texts",
    "new_in_last_year", "spreadsheet_safe", "timed", "write_tables",
]

logger = logging.getLogger(__name__)

#: Below this many papers :func:`analyze` warns that its results rest on very few papers.
FEW_PAPERS = 50
#: Every table :func:`write_tables` may write (``<name>.csv``), whichever an analysis has.
TABLE_NAMES = (
    "documents", "topics", "comparison", "prevalence", "areas", "area_comparison", "stability", "bursts",
    "emerging", "rising", "new_topics", "new_papers", "themes", "theme_papers",
)


@dataclass(frozen=True)
class Settings:
    """What one analysis was run with and found, as the methods section states it: the
    embedding, the seed, the grouping, the papers per year and group, the shares of
    outliers, and the topic model's parameters.

    Saved as one flat JSON object (:meth:`as_dict`, :func:`topics.store.save`): the
    fields by name, then the model's ``params`` (``n_runs``, ``method``, ...), then
    ``update`` where :func:`topics.update.update` added papers. :meth:`from_dict`
    reads it back.

    Parameters
    ----------
    embedding
        The embedding as the methods section names it (backend and precision).
    random_state
        The one seed of the fit, the map and the emerging sub-topics.
    include_outliers
        Whether topic -1 counts in the prevalence and comparison tables.
    n_documents, documents_per_year
        The papers analysed, in all and per year.
    outlier_share, core_outlier_share, low_confidence_share
        The shares of papers without a topic: after reassignment, as the consensus left
        them, and of papers placed with low confidence.
    n_areas, seeds, n_landmarks, reduce_outliers, stability_seeds
        What the fit found and ran with: its areas, its consensus seeds, its landmarks,
        whether outliers were reassigned, the seeds of the stability refits.
    by, groups, years, documents_per_group, documents_without_group, groups_per_year, groups_year_p_value
        The grouping compared, its groups and years, its papers per group, those with no
        group, and how groups and years go together (with a test's p-value).
    params
        The fitted model's parameters but its seed.
    update
        What :func:`topics.update.update` did; ``None`` for a fit.

    Examples
    --------
    >>> analysis.settings.random_state, analysis.settings.by
    (0, 'year')
    >>> topics.Settings.from_dict(analysis.settings.as_dict()) == analysis.settings
    True
    """

    embedding: str = "precomputed embeddings"
    random_state: int = 0
    include_outliers: bool = False
    n_documents: int = 0
    documents_per_year: dict[int, int] = field(default_factory=dict)
    outlier_share: float = 0.0
    core_outlier_share: float = 0.0
    low_confidence_share: float = 0.0
    n_areas: int = 0
    seeds: list[int] = field(default_factory=list)
    n_landmarks: int = 0
    reduce_outliers: bool = False
    stability_seeds: list[int] = field(default_factory=list)
    by: str = "year"
    groups: list = field(default_factory=list)
    years: list[int] = field(default_factory=list)
    documents_per_group: dict = field(default_factory=dict)
    documents_without_group: int = 0
    groups_per_year: dict = field(default_factory=dict)
    groups_year_p_value: float | None = None
    #: The fitted model's parameters but its seed (``TopicModel.params_``): ``n_runs``,
    #: ``n_neighbors``, ``min_cluster_size``, ``method``, ...
    params: dict = field(default_factory=dict)
    #: What :func:`topics.update.update` did: the new years, new and novel papers, the
    #: novelty cut, the candidates; ``None`` for a fit.
    update: dict | None = None

    def as_dict(self) -> dict:
        """One flat dict: the fields, the ``params`` in their place, then ``update`` where set."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("params", "update")}
        out.update(self.params)
        return out if self.update is None else {**out, "update": self.update}

    @classmethod
    def from_dict(cls, values: Mapping) -> Settings:
        """The settings of a flat dict written by :meth:`as_dict` (or by an older
        ``topics``, whose ``Analysis.settings`` was that dict): keys other than the
        fields are the model's parameters."""
        names = {f.name for f in fields(cls)} - {"params"}
        return cls(**{k: v for k, v in values.items() if k in names},
                   params={k: v for k, v in values.items() if k not in names})


@contextmanager
def timed(timings: dict[str, float], stage: str):
    """Adds the seconds the ``with`` block takes to ``timings[stage]``."""
    start = time.perf_counter()
    try:
        yield
    finally:
        timings[stage] = timings.get(stage, 0.0) + time.perf_counter() - start


@dataclass(frozen=True)
class Analysis:
    """Everything one run computed; the tables are plain DataFrames.

    Attributes
    ----------
    corpus : pandas.DataFrame
        The validated corpus frame (:mod:`topics.io.corpus`).
    embeddings : numpy.ndarray
        (n_docs, dim), one row per corpus row.
    model : topics.TopicModel
        The fitted model.
    coords : numpy.ndarray
        (n_docs, 2) UMAP layout for the topic map.
    documents, topics, areas, terms, representatives, similarity : pandas.DataFrame
        Tables from :mod:`topics.clustering.tables`.
    prevalence : pandas.DataFrame
        :func:`topics.stats.trends.prevalence` by the grouping, over the compared groups.
    comparison : topics.Comparison
        :func:`topics.stats.groups.compare_groups` by the grouping, per topic: a
        :class:`~topics.stats.comparison.Comparison` of one of three kinds (two groups, a
        trend over three or more years, or unordered groups) with its ``table``; a
        :class:`~topics.stats.comparison.OneGroup` for a corpus of one year.
    area_comparison : topics.Comparison
        The same comparison per area (areas group topics).
    stability : pandas.DataFrame
        :func:`topics.stats.stability.seed_stability` over ``stability_seeds`` (empty without).
    bursts : pandas.DataFrame
        :func:`topics.stats.bursts.detect_bursts` over the years for trends (empty otherwise).
    themes : topics.themes.tracking.ThemeTracking or None
        :func:`topics.themes.tracking.track` over the ``themes`` asked for (``None`` without).
    settings : topics.pipeline.Settings
        Embedding backend, seed, grouping, years, parameters: what the methods section states.
    timings : dict
        Seconds per stage.
    new_topics : pandas.DataFrame
        After :func:`topics.update.update`, the candidate new topics found among the
        new papers (empty otherwise; columns in :func:`topics.update.update`).
    new_papers : pandas.DataFrame
        After :func:`topics.update.update`, one row per paper it added: where it
        was placed, and whether it is novel (empty otherwise).

    emerging : pandas.DataFrame
        The sub-topics concentrated in the last year compared
        (:func:`topics.clustering.emerging.emerging_subtopics`; empty with one year or
        another grouping than years).
    rising : pandas.DataFrame
        The phrases whose share of papers rose most in the last year compared
        (:func:`topics.stats.rising.rising_phrases`; empty as ``emerging``).
    Examples
    --------
    >>> isinstance(analysis, topics.Analysis)
    True
    >>> len(analysis.documents) == len(analysis.corpus) == len(analysis.embeddings)
    True
    >>> analysis.settings.embedding.startswith("LSA")
    True
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
    comparison: Comparison
    area_comparison: Comparison
    areas: pd.DataFrame = field(default_factory=pd.DataFrame)
    stability: pd.DataFrame = field(default_factory=pd.DataFrame)
    themes: ThemeTracking | None = None
    settings: Settings = field(default_factory=Settings)
    timings: dict = field(default_factory=dict)
    bursts: pd.DataFrame = field(default_factory=pd.DataFrame)
    new_topics: pd.DataFrame = field(default_factory=pd.DataFrame)
    new_papers: pd.DataFrame = field(default_factory=pd.DataFrame)
    emerging: pd.DataFrame = field(default_factory=pd.DataFrame)
    rising: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def kind(self) -> str:
        """"two_groups", "trend" (three or more years) or "groups" (three or more unordered groups)."""
        return self.comparison.kind

    @property
    def by(self) -> str:
        """The column the papers are grouped by ("year" unless another was asked for)."""
        return self.comparison.by

    @property
    def groups(self) -> list:
        """The compared groups, in order."""
        return list(self.comparison.groups)


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
    embedder: Embedder | str = DEFAULT_BACKEND,
    model: TopicModel | None = None,
    embeddings: np.ndarray | None = None,
    years: Sequence[int] | None = None,
    include_outliers: bool = False,
    random_state: int = 0,
    cache: EmbeddingCache | str | os.PathLike[str] | bool | None = True,
    show_progress: bool = False,
    stability_seeds: Sequence[int] = (),
    by: str = "year",
    groups: Sequence | None = None,
    themes: Sequence[Theme | str] = (),
    scheduler: str | object | None = None,
) -> Analysis:
    """Embed, fit topics, and build every table for ``corpus``.

    The stages, in order: check the request and resolve the seed (every bad argument
    fails here, before the expensive steps), embed (here or on a Dask cluster), fit the
    topic model, lay out the map, build the tables and comparisons (:func:`build_tables`),
    refit with further seeds and track themes where asked, and state the
    :class:`Settings`; ``Analysis.timings`` holds each stage's seconds.

    Parameters
    ----------
    corpus
        A corpus frame (:func:`topics.read_corpus`, :func:`topics.io.datasets.iclr_sample`).
    embedder
        A backend name (a key of :data:`topics.embedding.backends.BACKENDS`) or an
        :class:`topics.embedding.backends.Embedder`.
    model
        An unfitted :class:`TopicModel` to use; default ``TopicModel(random_state=...)``.
    embeddings
        Precomputed embeddings (skips the embedding step and ``embedder``).
    years
        The years whose papers are compared; default every year present. With
        ``by="year"`` they are the groups: two years give the two-year comparison, three
        or more a trend analysis (:func:`topics.stats.groups.compare_groups`). A corpus of
        one year is fitted and described without a comparison (:func:`build_tables`).
    include_outliers
        Count topic -1 in the prevalence and comparison tables.
    random_state
        Seed for the topic model, the map layout and the emerging sub-topics, resolved
        once here (``None`` is 0); a ``model`` given with its own ``random_state`` uses
        that one everywhere, and the report states it.
    cache, show_progress
        Passed to :func:`topics.embedding.embed.embed_texts`.
    stability_seeds
        Further seeds to refit the topic model with, to see which topics and changes
        hold (:func:`topics.stats.stability.seed_stability`); each costs one more topic fit.
        Two-year comparisons only, for now.
    by
        The column to compare groups of: ``"year"`` (default), or any corpus column
        (``"venue"``, ``"status"``); papers without a value in it are left out of the
        comparison (the topics are still fitted on every paper).
    groups
        With another ``by``: the groups to compare, in order; default every value.
    themes
        Research areas to track beside the topics (:class:`topics.themes.tracking.Theme` objects
        or names, :func:`topics.themes.tracking.track`): each paper's similarity and membership,
        and each theme's share compared between the first and the last year compared.
    scheduler
        Embed and run the consensus runs (of the fit and of the stability refits) on a
        Dask cluster: a scheduler address or a ``distributed.Client``
        (:mod:`topics.embedding.distributed`, :func:`topics.clustering.runs.on_cluster`);
        default ``None``, this machine. The result is the same either way. An address is
        connected to once for the whole analysis; a ``Client`` given is left open.

    Returns
    -------
    topics.Analysis
        Every table, the fitted model, the comparison and the charts' inputs.

    Raises
    ------
    ValueError
        For years or groups not in the corpus, fewer than two groups to compare, themes
        asked for a corpus of one year, or embeddings of another length than the corpus.
    topics.EmbeddingError
        If the embedding model cannot be resolved or loaded.

    Examples
    --------
    >>> corpus = topics.datasets.iclr_sample()
    >>> analysis = topics.analyze(corpus, embedder="lsa", random_state=0)   # "minilm" by default
    >>> type(analysis.comparison).__name__
    'TwoGroups'
    >>> len(analysis.documents) == len(corpus)
    True
    """
    request = _check_request(corpus, embedder=embedder, model=model, embeddings=embeddings, years=years, by=by, groups=groups,
                             themes=themes, stability_seeds=stability_seeds, random_state=random_state, scheduler=scheduler)
    timings: dict[str, float] = {}
    # one client for the embedding, the fit and the stability refits, not one each
    client, owned = (None, False) if scheduler is None else connect(scheduler)
    try:
        with timed(timings, "embedding"):
            embeddings = _embed(corpus, embeddings, request.backend, client=client, cache=cache, show_progress=show_progress)
        model = request.model
        with timed(timings, "topics"), _cluster(client):
            model.fit(corpus, embeddings)
        with timed(timings, "map"):
            coords = map_coordinates(embeddings, n_neighbors=model.params_["n_neighbors"], random_state=request.seed,
                                     neighbors=model.neighbors_, landmarks=model.landmarks_)
        with timed(timings, "tables"):
            tables = build_tables(model, corpus, embeddings, years=request.years, by=by, groups=request.groups,
                                  include_outliers=include_outliers, random_state=request.seed)
        stability, tracking = _refits_and_themes(request, model, corpus, embeddings, tables["comparison"], client, timings)
        settings = _describe_settings(request, model, corpus, tables, include_outliers=include_outliers)
        return Analysis(corpus=corpus, embeddings=embeddings, model=model, coords=coords, stability=stability,
                        themes=tracking, settings=settings, timings=timings, **tables)
    finally:
        if owned:
            client.close()


@dataclass(frozen=True)
class _Request:
    """What :func:`analyze` was asked for, checked: the backend (``None`` with
    precomputed embeddings), the unfitted model with its seed, the seed, the years and
    groups compared, the themes and the further seeds."""

    backend: Embedder | None
    model: TopicModel
    seed: int
    years: list[int]
    groups: list
    by: str
    themes: tuple
    stability_seeds: list[int]


def _check_request(corpus: pd.DataFrame, *, embedder, model, embeddings, years, by, groups, themes, stability_seeds,
                   random_state, scheduler) -> _Request:
    """Every argument of :func:`analyze` checked against ``corpus`` before the expensive
    steps (a ValueError naming the first that is wrong), warnings about the corpus, and
    the seed resolved once: the given model's own, else ``random_state``."""
    backend = get_embedder(embedder, n_texts=len(corpus)) if embeddings is None else None
    years, groups = _check_grouping(corpus, by, years, groups)
    if len(stability_seeds) and not (by == "year" and len(groups) == 2):
        raise ValueError(
            "stability seeds work with two-year comparisons only (for now); "
            f"this run compares {len(groups)} {'years' if by == 'year' else by + ' groups'}"
        )
    themes = as_themes(themes) if themes else ()
    if themes and len(years) < 2:
        raise ValueError("themes are compared between two years; the corpus has one")
    for theme in themes:  # an unknown example id fails here, not after the embedding
        resolve_examples(theme, corpus)
    if model is not None:  # an impossible smallest topic fails here, not after the fit
        check_min_cluster_size(getattr(model, "min_cluster_size", None), len(corpus), getattr(model, "n_landmarks", None))
    if embeddings is not None and len(embeddings) != len(corpus):
        raise ValueError(f"{len(embeddings)} embeddings for {len(corpus)} documents")
    _warn_about(corpus)
    if scheduler is not None and backend is not None:
        check_per_text(backend)  # before connecting: a backend the workers cannot run is bad input
    own = getattr(model, "random_state", None)  # a model given with its own seed keeps it
    seed = resolve_seed(random_state if own is None else own)
    if model is None:
        model = TopicModel(random_state=seed)
    elif own is None and isinstance(model, TopicModel):
        model.set_params(random_state=seed)
    return _Request(backend, model, seed, years, groups, by, themes, [int(s) for s in stability_seeds])


def _warn_about(corpus: pd.DataFrame) -> None:
    """Warnings that do not stop the run: papers in other languages, a corpus of very few papers."""
    warn_languages(corpus)
    if len(corpus) < FEW_PAPERS:
        logger.warning(
            "the corpus has only %d papers: its topics hold a few papers each and every comparison rests on very few; "
            "read the results as indicative (from about %d papers on, topics and comparisons are steadier)",
            len(corpus), FEW_PAPERS,
        )


def _embed(corpus: pd.DataFrame, embeddings, backend: Embedder | None, *, client, cache, show_progress: bool) -> np.ndarray:
    """The embeddings given, else those of :func:`embedding_texts` by ``backend``: on this
    machine, or on the Dask cluster of ``client``."""
    if embeddings is not None:
        return embeddings
    texts = embedding_texts(corpus)
    if client is None:
        return embed_texts(texts, backend, cache=cache, show_progress=show_progress)
    return embed_texts_distributed(texts, backend, scheduler=client, cache=cache, show_progress=show_progress)


def _refits_and_themes(request: _Request, model: TopicModel, corpus: pd.DataFrame, embeddings: np.ndarray,
                       comparison: Comparison, client, timings: dict) -> tuple[pd.DataFrame, ThemeTracking | None]:
    """The refits with the further seeds (:func:`topics.stats.stability.seed_stability`)
    and the themes tracked (:func:`topics.themes.tracking.track`), where asked for."""
    stability, tracking = pd.DataFrame(), None
    if request.stability_seeds:
        with timed(timings, "stability"), _cluster(client):
            stability = seed_stability(model, corpus, embeddings, comparison, seeds=request.stability_seeds)
    if request.themes:
        with timed(timings, "themes"):
            years = (int(request.years[0]), int(request.years[-1]))
            tracking = track(corpus, embeddings, request.themes, embedder=request.backend, years=years)
    return stability, tracking


def _describe_settings(request: _Request, model: TopicModel, corpus: pd.DataFrame, tables: dict, *,
                      include_outliers: bool) -> Settings:
    """The :class:`Settings` of an analysis: what it was asked for (``request``), what the
    fitted ``model`` used, and the papers per year and group of its ``tables``."""
    documents, groups, by = tables["documents"], list(tables["comparison"].groups), request.by
    selected = documents[documents["year"].isin(request.years)]
    return Settings(
        embedding=request.backend.name if request.backend is not None else "precomputed embeddings",
        random_state=request.seed,
        include_outliers=include_outliers,
        n_documents=len(corpus),
        documents_per_year={int(y): int(n) for y, n in corpus["year"].value_counts().sort_index().items()},
        outlier_share=model.outlier_share_,
        core_outlier_share=model.core_outlier_share_,
        low_confidence_share=float(documents["low_confidence"].mean()),
        n_areas=int((tables["areas"]["area"] != -1).sum()),
        seeds=[int(s) for s in model.seeds_],
        n_landmarks=0 if model.landmarks_ is None else len(model.landmarks_),
        reduce_outliers=model.reduce_outliers,
        stability_seeds=list(request.stability_seeds),
        by=by,
        groups=groups,
        years=[int(y) for y in request.years],
        documents_per_group={g: int((selected[by] == g).sum()) for g in groups},
        documents_without_group=int(selected[by].isna().sum()) if by != "year" else 0,
        **_groups_by_year(selected, by, groups),
        params={k: v for k, v in model.params_.items() if k != "random_state"},
    )


def _cluster(scheduler):
    """Where the consensus runs go: the Dask cluster of ``scheduler``, else this machine."""
    return nullcontext() if scheduler is None else on_cluster(scheduler)


def build_tables(
    model: TopicModel,
    corpus: pd.DataFrame,
    embeddings: np.ndarray,
    *,
    years: Sequence[int],
    by: str = "year",
    groups: Sequence | None = None,
    include_outliers: bool = False,
    random_state: int = 0,
) -> dict:
    """Every table of an :class:`Analysis` from a fitted ``model`` of ``corpus``, by field
    name: ``documents``, ``topics``, ``areas``, ``terms``, ``representatives``,
    ``similarity`` (:mod:`topics.clustering.tables`), and over the papers of ``years``
    the ``comparison`` by ``by`` (:func:`topics.stats.groups.compare_groups`), the
    ``area_comparison``, the ``prevalence`` and the ``bursts`` (trends over years only),
    and what is new in the last year (:func:`new_in_last_year`: ``emerging`` sub-topics
    and ``rising`` phrases; years only; ``random_state`` seeds the sub-topics' search).

    With one year (``by="year"`` and ``years`` of one year) nothing is compared: the
    comparisons are :class:`~topics.stats.comparison.OneGroup` descriptions
    (:func:`topics.stats.groups.describe_group`).
    """
    documents = document_table(model, corpus)
    selected = documents[documents["year"].isin(years)]
    by_area = selected.assign(topic=selected["area"], topic_label=selected["area_label"])
    if by == "year" and len(years) == 1:
        comparison = describe_group(selected, by, years[0], include_outliers=include_outliers)
        area_comparison = describe_group(by_area, by, years[0], include_outliers=include_outliers)
    else:
        comparison = compare_groups(selected, by, groups, include_outliers=include_outliers)
        area_comparison = compare_groups(by_area, by, list(comparison.groups), include_outliers=include_outliers)
    groups = list(comparison.groups)
    bursts = pd.DataFrame()
    if comparison.trend_over_years:
        bursts = detect_bursts(selected, include_outliers=include_outliers)
    new = new_in_last_year(model, corpus, embeddings, years=years, random_state=random_state) if by == "year" else {}
    return {
        "documents": documents,
        "prevalence": prevalence(selected[selected[by].isin(groups)], by=by, include_outliers=include_outliers),
        "comparison": comparison,
        "area_comparison": area_comparison.per_area(area_comparison.table),
        "bursts": bursts,
        "emerging": new.get("emerging", pd.DataFrame()),
        "rising": new.get("rising", pd.DataFrame()),
        "topics": topic_table(model, corpus),
        "areas": area_table(model),
        "terms": term_table(model),
        "representatives": representative_documents(model, corpus, embeddings),
        "similarity": topic_similarity(model),
    }


def new_in_last_year(model: TopicModel, corpus: pd.DataFrame, embeddings: np.ndarray, *, years: Sequence[int],
                     random_state: int = 0) -> dict:
    """What the last of ``years`` brought, against the earlier ones: the ``emerging``
    sub-topics (:func:`topics.clustering.emerging.emerging_subtopics`) and the ``rising``
    phrases of titles, abstracts and, where the corpus has a ``keywords`` column, the
    authors' keywords (:func:`topics.stats.rising.rising_phrases`). Empty tables with
    fewer than two years. ``random_state`` seeds the sub-topics' search (the analysis's seed)."""
    if len(years) < 2:
        return {}
    inside = corpus["year"].isin(years).to_numpy()
    rows = np.flatnonzero(inside)
    texts = embedding_texts(corpus.iloc[rows])
    labels, year = model.labels_[rows], corpus["year"].to_numpy()[rows]
    names = {int(t): n for t, n in model.topic_names_.items()}
    emerging = emerging_subtopics(
        np.asarray(embeddings)[rows], labels, year, texts, latest=int(years[-1]), topic_labels=names,
        doc_ids=corpus["doc_id"].to_numpy()[rows].tolist(), titles=corpus["title"].fillna("").astype(str).to_numpy()[rows].tolist(),
        random_state=int(random_state),
    )
    keywords = corpus["keywords"].to_numpy()[rows] if "keywords" in corpus else None
    rising = rising_phrases(paper_phrases(texts, keywords), year, latest=int(years[-1]), topics=labels, topic_labels=names)
    return {"emerging": emerging, "rising": rising}


def _groups_by_year(documents: pd.DataFrame, by: str, groups) -> dict:
    """For a grouping other than year: papers per year and group, and the p-value of
    Pearson's chi-square test that the groups' shares are the same every year (when
    they are not, a topic's change between years can show up as a lean to a group)."""
    if by == "year":
        return {"groups_per_year": {}, "groups_year_p_value": None}
    table = pd.crosstab(documents["year"], documents[by]).reindex(columns=groups, fill_value=0)
    p_value = None
    if table.shape[0] > 1:
        from scipy.stats import chi2_contingency

        p_value = float(chi2_contingency(table.to_numpy(), correction=False).pvalue)
    per_year = {int(y): {g: int(row[g]) for g in groups} for y, row in table.iterrows()}
    return {"groups_per_year": per_year, "groups_year_p_value": p_value}


def _check_grouping(corpus: pd.DataFrame, by: str, years, groups) -> tuple[list[int], list]:
    """The years whose papers are compared and the groups, checked against the corpus."""
    present = sorted(int(y) for y in corpus["year"].unique())
    if by == "year":
        if groups is not None:
            raise ValueError("with by='year' the years are the groups: give them as years, not groups")
        if len(present) == 1 and (years is None or [int(y) for y in years] == present):
            logger.info(
                "the corpus has one year (%d): its topics are fitted and described, with nothing to compare "
                "(`topics update` adds a later year to a saved analysis)", present[0],
            )
            return present, present
        if years is not None and len(years) == 2:
            chosen = list(pick_years(corpus, *years))
        else:
            chosen = sorted(resolve_groups(corpus, "year", None if years is None else [int(y) for y in years]))
        check_group_sizes(_sizes(corpus, "year", chosen), "year", chosen=years is not None)
        return chosen, list(chosen)
    if years is None:
        years = present
    years = [int(y) for y in years]
    for y in years:
        if y not in present:
            raise ValueError(f"year {y} is not in the corpus (years present: {', '.join(map(str, present))})")
    selected = corpus[corpus["year"].isin(years)]
    groups = resolve_groups(selected, by, groups)
    check_group_sizes(_sizes(selected, by, groups), by)
    return years, groups


def _sizes(corpus: pd.DataFrame, by: str, groups) -> dict:
    """Papers per group of ``corpus[by]``, for ``groups``."""
    counts = corpus[by].value_counts()
    return {g: int(counts.get(g, 0)) for g in groups}


#: What a text cell may not start with in a CSV file, lest a spreadsheet read it as a
#: formula (the OWASP rule against CSV injection).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(table: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``table`` to write as CSV: every text cell and column name that starts
    with one of :data:`FORMULA_PREFIXES` gets a leading single quote (``'=HYPERLINK(...)``),
    so a spreadsheet shows it as text instead of running it. Numbers are not text cells:
    a negative number stays a number. ``table`` itself keeps the raw values."""

    def safe(value):
        return "'" + value if isinstance(value, str) and value.startswith(FORMULA_PREFIXES) else value

    out = table.copy(deep=False)
    for column in out.columns:
        if not (pd.api.types.is_numeric_dtype(out[column]) or pd.api.types.is_datetime64_any_dtype(out[column])):
            out[column] = out[column].map(safe)
    out.columns = [safe(c) for c in out.columns]
    return out


def write_tables(analysis: Analysis, directory: str | os.PathLike[str]) -> dict[str, Path]:
    """Write ``documents.csv``, ``topics.csv``, ``areas.csv``, ``comparison.csv`` (per
    topic), ``area_comparison.csv`` (per area) and ``prevalence.csv`` (shares per group)
    into ``directory`` (an analysis of one year compares nothing: no ``comparison.csv``
    and ``area_comparison.csv``), ``stability.csv`` where the analysis refitted with other seeds,
    ``bursts.csv`` where it looked for bursts (trends over years), and ``themes.csv`` (one
    row per theme: :attr:`topics.themes.tracking.ThemeTracking.summary`) and ``theme_papers.csv``
    (one row per theme member: theme, doc_id, year, title, similarity, source) where it
    tracked themes, ``emerging.csv`` and ``rising.csv`` where the last year brought
    emerging sub-topics or rising phrases (``doc_ids`` joined by ";"), and
    ``new_topics.csv`` and ``new_papers.csv`` where new papers were added to it
    (:func:`topics.update.update`).

    ``comparison.csv`` has the columns of the analysis's comparison table (its kind:
    :func:`topics.stats.groups.compare_groups`); ``documents.csv`` carries the grouping column
    when it is not one of its own. Text cells that a spreadsheet would run as a formula are
    written with a leading single quote (:func:`spreadsheet_safe`); the analysis's tables
    keep the raw values.

    Returns the paths written, by table name. Where a file cannot be written, the files
    this call wrote before it are removed and the error is raised.

    Parameters
    ----------
    analysis
        The result of :func:`topics.analyze` (or :func:`topics.load`).
    directory
        The folder to write into; created if missing.

    Returns
    -------
    dict of str to pathlib.Path
        The paths written, by table name.

    Raises
    ------
    OSError
        If a file cannot be written (the files this call wrote before it are removed).

    Examples
    --------
    >>> written = topics.write_tables(analysis, "tables")
    >>> sorted(written)[:3]
    ['area_comparison', 'areas', 'comparison']
    """
    from topics.clustering.tables import DOCUMENT_COLUMNS, TOPIC_COLUMNS

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    document_cols = list(DOCUMENT_COLUMNS)
    if analysis.by not in document_cols:
        document_cols.append(analysis.by)
    compares = analysis.comparison.compares  # one year: no comparison tables
    tables = {
        "documents": analysis.documents[document_cols],
        "topics": analysis.topics[TOPIC_COLUMNS],
        **({"comparison": analysis.comparison.table} if compares else {}),
        "prevalence": analysis.prevalence,
    }
    if len(analysis.areas):
        tables["areas"] = analysis.areas
        if compares:
            tables["area_comparison"] = analysis.area_comparison.table.rename(columns={"topic": "area"})
    if len(analysis.stability):
        tables["stability"] = analysis.stability
    if len(analysis.bursts):
        tables["bursts"] = analysis.bursts
    if len(analysis.emerging):
        tables["emerging"] = analysis.emerging.assign(doc_ids=analysis.emerging["doc_ids"].map(lambda ids: ";".join(map(str, ids))))
    if len(analysis.rising):
        tables["rising"] = analysis.rising
    if len(analysis.new_papers):
        tables["new_topics"] = analysis.new_topics
        tables["new_papers"] = analysis.new_papers
    if analysis.themes is not None:
        tables["themes"] = analysis.themes.summary
        tables["theme_papers"] = analysis.themes.members[["theme", "doc_id", "year", "title", "similarity", "source"]]
    _warn_of_earlier_tables(directory, tables)
    paths = {}
    try:
        for name, table in tables.items():
            path = directory / f"{name}.csv"
            paths[name] = path
            spreadsheet_safe(table).to_csv(path, index=False, float_format="%.10g", lineterminator="\n")
    except OSError:
        for path in paths.values():
            path.unlink(missing_ok=True)
        raise
    return paths


def _warn_of_earlier_tables(directory: Path, tables: dict) -> None:
    """One warning naming the tables of :data:`TABLE_NAMES` in ``directory`` that this
    analysis does not write: an earlier run's, which would pass for this one's. They are
    kept (they may be the user's)."""
    assert set(tables) <= set(TABLE_NAMES), sorted(set(tables) - set(TABLE_NAMES))
    earlier = [f"{name}.csv" for name in TABLE_NAMES if name not in tables and (directory / f"{name}.csv").is_file()]
    if earlier:
        logger.warning("%s holds %s of an earlier run, which this analysis does not write; they describe another "
                       "analysis (remove them, or write the tables into an empty folder)", directory, ", ".join(earlier))
