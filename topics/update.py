"""A new year on top of a saved analysis: the old topics kept, the new papers placed in
them, the themes the old topics miss found and named, and the years compared.

:func:`update` takes an :class:`topics.pipeline.Analysis` (fitted, or loaded with
:func:`topics.load`) and the papers of a later year with their embeddings (from the
backend the analysis was fitted with), and returns a new analysis of the old and the new
papers together:

1. **The old topics stay.** Nothing is refitted: every old paper keeps its topic and
   confidence, every topic its id, name, terms, centroid and area.
2. **The new papers are placed** by :meth:`topics.TopicModel.transform` (the vote of their
   nearest fitted papers; :mod:`topics.clustering.assign`), each with a confidence and
   whether it is *novel* (further from every topic centroid than all but 5 % of the
   fitted papers are from theirs).
3. **Candidate new topics** come from the novel papers alone (:func:`candidate_topics`):
   they are clustered as a small corpus is (Ward's hierarchy below
   :data:`topics.clustering.model.SMALL_CORPUS` papers, else the consensus), with the
   fitted model's smallest topic (``min_cluster_size``) as the smallest group. A group
   keeps the papers at least as close to its centre (each measured without itself) as
   the novelty cut, the rule that made them novel: a member would not be novel if the
   candidate were a topic. A group that keeps at least ``min_cluster_size`` papers is a
   candidate; its papers move to it from the topic they were placed in, and it gets the
   next free topic id, c-TF-IDF terms over all the papers
   (:func:`topics.naming.labels.class_terms`), a name by the rule old topics were named by
   (:func:`topics.naming.labels.topic_names`, never by a phrase of an old topic's name),
   and the area of the nearest old topic. Novel papers outside every candidate stay where
   they were placed. A candidate is provisional: none of the model's clusterings holds
   it, so its papers' confidence is 0 (flagged ``low_confidence``) until a refit.
4. **The years are compared** over the old and the new papers
   (:func:`topics.pipeline.build_tables`): two years give the two-year comparison, three
   or more a trend.

The result holds ``new_topics`` (one row per candidate) and ``new_papers`` (one row per
added paper); the report shows them in its "New in <year>" section. Its model is the old
one extended by the new papers -- they join the papers later assignments vote among --
so it can be saved (:func:`topics.save`) and updated again with the next year, and the
topics keep their ids. Seed stability and tracked themes describe the old fit only and
are dropped.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass

import numpy as np
import pandas as pd

from topics.clustering.assign import NOVELTY_QUANTILE
from topics.clustering.hierarchy import ward_topics
from topics.clustering.model import TopicModel, resolve_method
from topics.clustering.neighbors import place_values
from topics.clustering.tables import TOPIC_COLUMNS
from topics.pipeline import Analysis, Settings, build_tables, timed
from topics.stats.groups import check_group_sizes
from topics.vectors import unit_rows

__all__ = ["NEW_PAPER_COLUMNS", "NEW_TOPIC_COLUMNS", "candidate_topics", "check_new_papers", "update"]

logger = logging.getLogger(__name__)

#: The columns of an updated analysis's ``new_topics`` table.
NEW_TOPIC_COLUMNS = [*TOPIC_COLUMNS[:TOPIC_COLUMNS.index("n_docs") + 1], "tightness", *TOPIC_COLUMNS[TOPIC_COLUMNS.index("n_docs") + 1:]]
#: The columns of an updated analysis's ``new_papers`` table.
NEW_PAPER_COLUMNS = ["doc_id", "year", "title", "topic", "topic_label", "confidence", "similarity", "nearest_topic", "novel", "new_topic"]


def _own_similarity(x: np.ndarray) -> np.ndarray:
    """Each row's cosine to the mean of the other rows (its group's centre without it)."""
    if len(x) < 2:
        return np.full(len(x), -np.inf)
    raw = np.asarray(x, dtype=np.float64)
    rest = raw.sum(axis=0) - raw
    return np.einsum("ij,ij->i", unit_rows(raw, dtype=np.float64), unit_rows(rest, dtype=np.float64))


def candidate_topics(
    embeddings: np.ndarray,
    texts: list[str] | None = None,
    *,
    min_cluster_size: int,
    cut: float,
    random_state: int = 0,
    n_jobs: int | None = -1,
) -> tuple[np.ndarray, dict[int, float], str]:
    """Groups of novel papers that could be topics (module docs, step 3).

    Parameters
    ----------
    embeddings
        The novel papers' embeddings, one row each.
    texts
        Their texts; needed only where the consensus clusters them (from
        :data:`topics.clustering.model.SMALL_CORPUS` papers on).
    min_cluster_size
        The smallest candidate (the fitted model's smallest topic).
    cut
        The novelty cut (:func:`topics.clustering.assign.novelty_cut`): a group keeps
        the papers at least this similar to its centre, each measured without itself.
    random_state
        Seeds the consensus (Ward's hierarchy has no randomness).

    Returns
    -------
    (labels, tightness, method)
        ``labels``: a candidate per paper, 0, 1, ... largest first, -1 for none;
        ``tightness``: per candidate the median similarity of its papers to its centre
        (each without itself); ``method``: "ward" or "consensus".
    """
    x = np.asarray(embeddings, dtype=np.float32)
    if min_cluster_size < 2:
        raise ValueError(f"min_cluster_size must be at least 2, got {min_cluster_size}")
    method = resolve_method("auto", len(x))
    labels = np.full(len(x), -1, dtype=int)
    if len(x) < max(min_cluster_size, 2):
        return labels, {}, method
    if method == "ward":
        groups = ward_topics(x, min_cluster_size=min_cluster_size)
    else:
        if texts is None or len(texts) != len(x):
            raise ValueError("the consensus needs the novel papers' texts, one per embedding")
        groups = TopicModel(method="consensus", min_cluster_size=min_cluster_size, random_state=random_state,
                            n_jobs=n_jobs).fit(list(texts), x).labels_
    kept = []
    for g in np.unique(groups[groups != -1]):
        members = np.flatnonzero(groups == g)
        close = members[_own_similarity(x[members]) >= cut]
        if len(close) >= min_cluster_size:
            kept.append(close)
    kept.sort(key=lambda m: (-len(m), int(m[0])))
    tightness = {}
    for k, members in enumerate(kept):
        labels[members] = k
        tightness[k] = float(np.median(_own_similarity(x[members])))
    return labels, tightness, method


def update(
    analysis: Analysis,
    corpus: pd.DataFrame,
    embeddings: np.ndarray,
    *,
    min_cluster_size: int | None = None,
    novelty_quantile: float = NOVELTY_QUANTILE,
    random_state: int | None = None,
) -> Analysis:
    """The analysis of ``analysis``'s papers and the new ``corpus`` together, with the old
    topics kept (module docs: what is kept, added and compared).

    Parameters
    ----------
    analysis
        A fitted or loaded analysis; it is not changed.
    corpus
        The new papers (a corpus frame, :func:`topics.read_corpus`); none may share a
        ``doc_id`` with a paper of ``analysis``.
    embeddings
        Their embeddings, from the backend ``analysis`` was fitted with.
    min_cluster_size
        The smallest candidate new topic; default the fitted model's smallest topic.
    novelty_quantile
        As in :meth:`topics.TopicModel.transform`.
    random_state
        Seeds the clustering of the novel papers; default the analysis's seed
        (``analysis.settings.random_state``).

    Returns
    -------
    Analysis
        The updated analysis. ``new_topics`` has one row per candidate new topic:
        ``topic`` (ids after the largest old id), ``label``, ``name_coverage``,
        ``mixed``, ``area``, ``area_label``, ``n_docs``, ``tightness`` (the median
        similarity of its papers to its centre), ``mean_confidence``, ``top_terms``,
        ``typical_titles``. ``new_papers`` has one row per new paper: ``doc_id``,
        ``year``, ``title``, ``topic`` (a candidate's id where the paper is in one),
        ``topic_label``, ``confidence``, ``similarity`` (to the nearest old topic's
        centroid), ``nearest_topic``, ``novel``, ``new_topic`` (in a candidate).
        ``settings.update`` states the new years, the number of new and novel
        papers, the novelty cut and how candidates were found.
    """
    embeddings = np.asanyarray(embeddings, dtype=np.float32)  # an Embeddings array keeps its fingerprint for transform
    _check(analysis, corpus, embeddings)
    timings: dict[str, float] = {}
    seed = analysis.settings.random_state
    with timed(timings, "assign"):
        assigned = analysis.model.transform(corpus, embeddings, novelty_quantile=novelty_quantile)
    with timed(timings, "candidates"):
        found = _candidates(analysis.model, corpus, embeddings, assigned, min_cluster_size=min_cluster_size,
                            random_state=seed if random_state is None else int(random_state))
    with timed(timings, "tables"):
        extended = analysis.model.extend(corpus, embeddings, found.topics)
        all_corpus = pd.concat([analysis.corpus, corpus], ignore_index=True, sort=False)
        all_embeddings = np.vstack([np.asarray(analysis.embeddings, dtype=np.float32), embeddings])
        tables = _year_tables(extended, all_corpus, all_embeddings, include_outliers=analysis.settings.include_outliers, random_state=seed)
    _log(analysis, corpus, found)
    return Analysis(
        corpus=all_corpus,
        embeddings=all_embeddings,
        model=extended,
        coords=np.vstack([analysis.coords, _place(analysis, embeddings)]),
        settings=_settings(analysis, corpus, all_corpus, extended, tables, found, novelty_quantile),
        timings=timings,
        new_topics=_new_topics(tables["topics"], found),
        new_papers=_new_papers(tables["documents"].iloc[len(analysis.corpus):], assigned, found),
        **tables,
    )


@dataclass(frozen=True)
class _Found:
    """What :func:`update` found among the new papers (module docs, step 3)."""

    topics: np.ndarray  # each new paper's topic: the one it was placed in, or its candidate's id
    novel: np.ndarray  # positions of the novel papers
    tightness: dict[int, float]  # per candidate's topic id, as :func:`candidate_topics` gives it
    cut: float  # the novelty cut
    min_cluster_size: int
    method: str  # how candidates were found: "ward" or "consensus"

    @property
    def ids(self) -> list[int]:
        """The candidates' topic ids."""
        return list(self.tightness)


def _candidates(model, corpus: pd.DataFrame, embeddings: np.ndarray, assigned: pd.DataFrame, *,
                min_cluster_size: int | None, random_state: int) -> _Found:
    """The candidate new topics among the novel papers, numbered after the largest old topic id."""
    cut = float(assigned.attrs["novelty_cut"])
    smallest = int(min_cluster_size if min_cluster_size is not None else model.params_["min_cluster_size"])
    texts = corpus["abstract"].astype(str).tolist()
    novel = np.flatnonzero(assigned["novel"].to_numpy())
    groups, tightness, method = candidate_topics(
        embeddings[novel], [texts[i] for i in novel], min_cluster_size=smallest, cut=cut, random_state=random_state, n_jobs=model.n_jobs,
    )
    first = max(int(t) for t in model.topic_names_) + 1
    topics = assigned["topic"].to_numpy(dtype=int).copy()
    in_candidate = groups != -1
    topics[novel[in_candidate]] = first + groups[in_candidate]
    return _Found(topics=topics, novel=novel, tightness={first + k: v for k, v in tightness.items()}, cut=cut,
                  min_cluster_size=smallest, method=method)


def _year_tables(model, corpus: pd.DataFrame, embeddings: np.ndarray, *, include_outliers: bool,
                 random_state: int) -> dict[str, pd.DataFrame]:
    """The tables of the old and new papers together, compared by year (``random_state``: the analysis's seed)."""
    years = sorted(int(y) for y in corpus["year"].unique())
    check_group_sizes({y: int((corpus["year"] == y).sum()) for y in years}, "year")
    return build_tables(model, corpus, embeddings, years=years, by="year", include_outliers=include_outliers,
                        random_state=random_state)


def _new_topics(topics: pd.DataFrame, found: _Found) -> pd.DataFrame:
    """The rows of the candidate new topics, with their tightness (``NEW_TOPIC_COLUMNS``)."""
    new_topics = topics[topics["topic"].isin(found.ids)].copy()
    new_topics.insert(new_topics.columns.get_loc("n_docs") + 1, "tightness", new_topics["topic"].map(found.tightness))
    return new_topics.reset_index(drop=True)


def _new_papers(part: pd.DataFrame, assigned: pd.DataFrame, found: _Found) -> pd.DataFrame:
    """One row per new paper (``NEW_PAPER_COLUMNS``), from its rows of the documents table."""
    return pd.DataFrame({
        "doc_id": part["doc_id"].to_numpy(), "year": part["year"].to_numpy(), "title": part["title"].to_numpy(),
        "topic": part["topic"].to_numpy(), "topic_label": part["topic_label"].to_numpy(), "confidence": part["confidence"].to_numpy(),
        "similarity": assigned["similarity"].to_numpy(), "nearest_topic": assigned["nearest_topic"].to_numpy(),
        "novel": assigned["novel"].to_numpy(), "new_topic": np.isin(found.topics, found.ids),
    }, columns=NEW_PAPER_COLUMNS)


def _log(analysis: Analysis, corpus: pd.DataFrame, found: _Found) -> None:
    dropped = [what for what, there in (("seed stability", len(analysis.stability)), ("themes", analysis.themes is not None)) if there]
    if dropped:
        logger.info("the update keeps no %s: it described the old fit only; refit to compute it again", " and no ".join(dropped))
    logger.info(
        "%d new papers (%s) placed in %d topics; %d novel (similarity to the nearest topic below %.3f); %d candidate new topic%s",
        len(corpus), ", ".join(map(str, sorted(int(y) for y in corpus["year"].unique()))),
        sum(t != -1 for t in analysis.model.topic_names_), len(found.novel), found.cut, len(found.ids), "" if len(found.ids) == 1 else "s",
    )


def _settings(analysis: Analysis, corpus: pd.DataFrame, all_corpus: pd.DataFrame, extended, tables: dict, found: _Found,
              novelty_quantile: float) -> Settings:
    """``analysis.settings`` brought up to date: the years compared, and what the update did (``settings.update``)."""
    documents, comparison = tables["documents"], tables["comparison"]
    return dataclasses.replace(
        analysis.settings,
        n_documents=len(all_corpus),
        documents_per_year={int(y): int(n) for y, n in all_corpus["year"].value_counts().sort_index().items()},
        outlier_share=extended.outlier_share_,
        low_confidence_share=float(documents["low_confidence"].mean()),
        stability_seeds=[],
        by="year",
        groups=list(comparison.groups),
        years=sorted(int(y) for y in all_corpus["year"].unique()),
        documents_per_group={g: int((documents["year"] == g).sum()) for g in comparison.groups},
        documents_without_group=0,
        groups_per_year={},
        groups_year_p_value=None,
        update={
            "years": sorted(int(y) for y in corpus["year"].unique()),
            "n_documents": len(corpus),
            "n_novel": len(found.novel),
            "novelty_cut": found.cut,
            "novelty_quantile": novelty_quantile,
            "min_cluster_size": found.min_cluster_size,
            "method": found.method,
            "n_new_topics": len(found.ids),
            "fitted_years": sorted(int(y) for y in analysis.corpus["year"].unique()),
        },
    )


def _check(analysis: Analysis, corpus: pd.DataFrame, embeddings: np.ndarray) -> None:
    if not isinstance(corpus, pd.DataFrame) or not {"doc_id", "year", "abstract"} <= set(corpus.columns):
        raise ValueError("give the new papers as a corpus frame (topics.read_corpus) with doc_id, year and abstract")
    if not len(corpus):
        raise ValueError("no new papers to add")
    if embeddings.ndim != 2 or len(embeddings) != len(corpus):
        raise ValueError(f"{len(embeddings)} embeddings for {len(corpus)} new papers")
    check_new_papers(analysis, corpus)


def check_new_papers(analysis: Analysis, corpus: pd.DataFrame) -> None:
    """Raise a ValueError where papers of ``corpus`` are in ``analysis`` already (by
    ``doc_id``): :func:`update` refuses them, and ``topics update`` says so before it
    embeds the new papers."""
    seen = set(analysis.corpus["doc_id"].astype(str))
    again = [d for d in corpus["doc_id"].astype(str) if d in seen]
    if again:
        raise ValueError(
            f"{len(again)} of the new papers are in the analysis already (doc_id {again[0]!r}); give only papers it does not hold"
        )


def _place(analysis: Analysis, embeddings: np.ndarray) -> np.ndarray:
    """The map coordinates of the new papers: the similarity-weighted mean of their nearest
    old papers' (:func:`topics.clustering.neighbors.place_values`), so the old ones stay put."""
    n_neighbors = int(analysis.model.params_["n_neighbors"]) + 1
    return place_values(analysis.coords, analysis.embeddings, embeddings, n_neighbors=n_neighbors)
