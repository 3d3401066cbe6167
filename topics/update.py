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

import copy
import logging
import time

import numpy as np
import pandas as pd

from topics.clustering.assign import NOVELTY_QUANTILE, place_runs
from topics.clustering.consensus import membership_confidence
from topics.clustering.hierarchy import ward_topics
from topics.clustering.model import TopicModel, resolve_method
from topics.clustering.neighbors import nearest_neighbors, spread
from topics.clustering.tables import TOPIC_COLUMNS
from topics.naming.coverage import PhraseIndex, coverage, name_parts
from topics.naming.labels import OUTLIER_NAME, class_terms, topic_names
from topics.naming.terms import PhraseAnalyzer
from topics.pipeline import Analysis, build_tables
from topics.stats.groups import check_group_sizes
from topics.text import clean_for_terms

__all__ = ["NEW_PAPER_COLUMNS", "NEW_TOPIC_COLUMNS", "candidate_topics", "update"]

logger = logging.getLogger(__name__)

#: The columns of an updated analysis's ``new_topics`` table.
NEW_TOPIC_COLUMNS = [*TOPIC_COLUMNS[:TOPIC_COLUMNS.index("n_docs") + 1], "tightness", *TOPIC_COLUMNS[TOPIC_COLUMNS.index("n_docs") + 1:]]
#: The columns of an updated analysis's ``new_papers`` table.
NEW_PAPER_COLUMNS = ["doc_id", "year", "title", "topic", "topic_label", "confidence", "similarity", "nearest_topic", "novel", "new_topic"]


def _unit(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)


def _own_similarity(x: np.ndarray) -> np.ndarray:
    """Each row's cosine to the mean of the other rows (its group's centre without it)."""
    if len(x) < 2:
        return np.full(len(x), -np.inf)
    raw = np.asarray(x, dtype=np.float64)
    rest = raw.sum(axis=0) - raw
    return np.einsum("ij,ij->i", _unit(raw), _unit(rest))


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
        Seeds the clustering of the novel papers; default the fitted model's seed.

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
        ``settings["update"]`` states the new years, the number of new and novel
        papers, the novelty cut and how candidates were found.
    """
    model = analysis.model
    embeddings = np.asanyarray(embeddings, dtype=np.float32)  # an Embeddings array keeps its fingerprint for transform
    _check(analysis, corpus, embeddings)
    timings: dict[str, float] = {}
    start = time.perf_counter()
    assigned = model.transform(corpus, embeddings, novelty_quantile=novelty_quantile)
    cut = float(assigned.attrs["novelty_cut"])
    timings["assign"] = time.perf_counter() - start

    start = time.perf_counter()
    smallest = int(min_cluster_size if min_cluster_size is not None else model.params_["min_cluster_size"])
    seed = int(model.params_["random_state"] if random_state is None else random_state)
    texts = corpus["abstract"].astype(str).tolist()
    novel = np.flatnonzero(assigned["novel"].to_numpy())
    groups, tightness, method = candidate_topics(
        embeddings[novel], [texts[i] for i in novel], min_cluster_size=smallest, cut=cut, random_state=seed, n_jobs=model.n_jobs,
    )
    first = max(int(t) for t in model.topic_names_) + 1
    topics = assigned["topic"].to_numpy(dtype=int).copy()
    in_candidate = groups != -1
    topics[novel[in_candidate]] = first + groups[in_candidate]
    ids = [first + k for k in range(len(tightness))]
    timings["candidates"] = time.perf_counter() - start

    start = time.perf_counter()
    extended = _extend(model, texts, embeddings, topics, ids)
    all_corpus = pd.concat([analysis.corpus, corpus], ignore_index=True, sort=False)
    all_embeddings = np.vstack([np.asarray(analysis.embeddings, dtype=np.float32), embeddings])
    years = sorted(int(y) for y in all_corpus["year"].unique())
    check_group_sizes({y: int((all_corpus["year"] == y).sum()) for y in years}, "year")
    include_outliers = bool(analysis.settings.get("include_outliers", False))
    tables = build_tables(extended, all_corpus, all_embeddings, years=years, by="year", include_outliers=include_outliers)
    timings["tables"] = time.perf_counter() - start

    new_years = sorted(int(y) for y in corpus["year"].unique())
    documents = tables["documents"]
    new_topics = tables["topics"][tables["topics"]["topic"].isin(ids)].copy()
    new_topics.insert(new_topics.columns.get_loc("n_docs") + 1, "tightness", new_topics["topic"].map({first + k: v for k, v in tightness.items()}))
    part = documents.iloc[len(analysis.corpus):]
    new_papers = pd.DataFrame({
        "doc_id": part["doc_id"].to_numpy(), "year": part["year"].to_numpy(), "title": part["title"].to_numpy(),
        "topic": part["topic"].to_numpy(), "topic_label": part["topic_label"].to_numpy(), "confidence": part["confidence"].to_numpy(),
        "similarity": assigned["similarity"].to_numpy(), "nearest_topic": assigned["nearest_topic"].to_numpy(),
        "novel": assigned["novel"].to_numpy(), "new_topic": np.isin(topics, ids),
    }, columns=NEW_PAPER_COLUMNS)
    dropped = [what for what, there in (("seed stability", len(analysis.stability)), ("themes", analysis.themes is not None)) if there]
    if dropped:
        logger.info("the update keeps no %s: it described the old fit only; refit to compute it again", " and no ".join(dropped))
    logger.info(
        "%d new papers (%s) placed in %d topics; %d novel (similarity to the nearest topic below %.3f); %d candidate new topic%s",
        len(corpus), ", ".join(map(str, new_years)), sum(t != -1 for t in model.topic_names_), len(novel), cut,
        len(ids), "" if len(ids) == 1 else "s",
    )
    comparison = tables["comparison"]
    settings = {
        **analysis.settings,
        "n_documents": len(all_corpus),
        "documents_per_year": {int(y): int(n) for y, n in all_corpus["year"].value_counts().sort_index().items()},
        "outlier_share": extended.outlier_share_,
        "low_confidence_share": float(documents["low_confidence"].mean()),
        "stability_seeds": [],
        "by": "year",
        "groups": list(comparison.groups),
        "years": years,
        "documents_per_group": {g: int((documents["year"] == g).sum()) for g in comparison.groups},
        "documents_without_group": 0,
        "groups_per_year": {},
        "groups_year_p_value": None,
        "update": {
            "years": new_years,
            "n_documents": len(corpus),
            "n_novel": len(novel),
            "novelty_cut": cut,
            "novelty_quantile": novelty_quantile,
            "min_cluster_size": smallest,
            "method": method,
            "n_new_topics": len(ids),
            "fitted_years": sorted(int(y) for y in analysis.corpus["year"].unique()),
        },
    }
    return Analysis(
        corpus=all_corpus,
        embeddings=all_embeddings,
        model=extended,
        coords=np.vstack([analysis.coords, _place(analysis.embeddings, analysis.coords, embeddings, model)]),
        settings=settings,
        timings=timings,
        new_topics=new_topics.reset_index(drop=True),
        new_papers=new_papers,
        **tables,
    )


def _check(analysis: Analysis, corpus: pd.DataFrame, embeddings: np.ndarray) -> None:
    if not isinstance(corpus, pd.DataFrame) or not {"doc_id", "year", "abstract"} <= set(corpus.columns):
        raise ValueError("give the new papers as a corpus frame (topics.read_corpus) with doc_id, year and abstract")
    if not len(corpus):
        raise ValueError("no new papers to add")
    if embeddings.ndim != 2 or len(embeddings) != len(corpus):
        raise ValueError(f"{len(embeddings)} embeddings for {len(corpus)} new papers")
    seen = set(analysis.corpus["doc_id"].astype(str))
    again = [d for d in corpus["doc_id"].astype(str) if d in seen]
    if again:
        raise ValueError(
            f"{len(again)} of the new papers are in the analysis already (doc_id {again[0]!r}); give only papers it does not hold"
        )


def _place(old_embeddings: np.ndarray, values: np.ndarray, embeddings: np.ndarray, model) -> np.ndarray:
    """``values`` (one row per old paper: map or UMAP coordinates) for the new papers: the
    similarity-weighted mean over their nearest old papers, so the old ones stay put."""
    k = min(int(model.params_["n_neighbors"]) + 1, len(old_embeddings))
    indices, distances = nearest_neighbors(embeddings, n_neighbors=k, among=np.asarray(old_embeddings, dtype=np.float32))
    return spread(values, indices, distances, np.arange(len(embeddings))).astype(np.asarray(values).dtype)


def _extend(model, texts: list[str], embeddings: np.ndarray, topics: np.ndarray, ids: list[int]):
    """A copy of ``model`` that holds the new papers with ``topics``, the candidate topics
    ``ids`` named and described, and every old topic as it was."""
    n_old = len(model.labels_)
    new = copy.copy(model)
    new.labels_ = np.concatenate([np.asarray(model.labels_, dtype=int), topics])
    new.embeddings_ = np.vstack([np.asarray(model.embeddings_, dtype=np.float32), embeddings])
    new.texts_ = list(model.texts_) + list(texts)
    new.fitted_documents_ = np.concatenate([np.asarray(model.fitted_documents_), n_old + np.arange(len(texts))])
    new.fit_texts_ = list(model.fit_texts_) + [clean_for_terms(t) or "empty" for t in texts]
    new.runs_ = np.concatenate([np.asarray(model.runs_), place_runs(model, embeddings)], axis=1)
    # no clustering of the model holds a candidate: its papers' confidence is 0 (flagged
    # low) until a refit measures it
    new.confidence_ = np.concatenate([model.confidence_, membership_confidence(new.labels_, new.runs_)[n_old:]])
    new.outlier_share_ = float(np.mean(new.labels_ == -1))
    reference = new.fitted_documents_
    graph_k = np.asarray(model.neighbors_[0]).shape[1]
    indices, distances = nearest_neighbors(embeddings, n_neighbors=min(graph_k, len(reference)), among=new.embeddings_[reference])
    new.neighbors_ = (
        np.vstack([model.neighbors_[0], reference[indices].astype(np.asarray(model.neighbors_[0]).dtype)]),
        np.vstack([model.neighbors_[1], distances.astype(np.asarray(model.neighbors_[1]).dtype)]),
    )
    new.reduced_embeddings_ = np.vstack([model.reduced_embeddings_, _place(model.embeddings_, model.reduced_embeddings_, embeddings, model)])
    names, terms, centroids = dict(model.topic_names_), dict(model.topic_terms_), dict(model.topic_embeddings_)
    name_coverage, mixed, areas = dict(model.topic_name_coverage_), dict(model.topic_mixed_), dict(model.topic_areas_)
    area_names = dict(model.area_names_)
    dtype = next(iter(model.topic_embeddings_.values())).dtype  # centroids are saved as one array
    if (topics == -1).any() and -1 not in names:  # the first outliers among the papers
        names[-1], areas[-1] = OUTLIER_NAME, -1
        area_names.setdefault(-1, OUTLIER_NAME)
        centroids[-1] = _unit(embeddings[topics == -1].mean(axis=0, keepdims=True))[0].astype(dtype)
    if ids:
        fit_labels = new.labels_[reference]
        analyzer = PhraseAnalyzer(acronyms=model.acronyms_)
        index = PhraseIndex(new.fit_texts_, model.acronyms_)
        ranked = class_terms(new.fit_texts_, fit_labels, analyzer, top_n=max(model.top_n_terms, 30))
        old_phrases = {p for t, n in model.topic_names_.items() if t != -1 for p in name_parts(n)}
        named = topic_names({t: ranked.get(t, []) for t in ids}, fit_labels, new.fit_texts_, analyzer=analyzer, index=index,
                            forbidden=dict.fromkeys(ids, old_phrases))
        old_ids = np.array([t for t in model.topic_embeddings_ if t != -1])
        old_centroids = _unit(np.stack([model.topic_embeddings_[t] for t in old_ids]))
        for t in ids:
            members = new.labels_ == t
            names[t] = named[t]
            terms[t] = ranked.get(t, [])[: model.top_n_terms]
            centroids[t] = _unit(new.embeddings_[members].mean(axis=0, keepdims=True))[0].astype(dtype)
            name_coverage[t] = coverage(index, named[t], fit_labels == t)
            mixed[t] = len(name_parts(named[t])) > 1
            areas[t] = int(model.topic_areas_[int(old_ids[np.argmax(old_centroids @ centroids[t])])])
    new.topic_names_, new.topic_terms_, new.topic_embeddings_ = names, terms, centroids
    new.topic_name_coverage_, new.topic_mixed_, new.topic_areas_, new.area_names_ = name_coverage, mixed, areas, area_names
    new.bertopic_ = None  # BERTopic never saw the new papers; merge rebuilds it from the topics
    return new
