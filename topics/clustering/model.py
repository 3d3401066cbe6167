"""``TopicModel``: BERTopic (UMAP + HDBSCAN + c-TF-IDF) with corpus-size-aware defaults.

The one stateful object of the package. It follows the scikit-learn estimator
contract: ``__init__`` only stores its keyword arguments, ``fit`` returns ``self``,
learned state ends in ``_``, and ``random_state`` is resolved inside ``fit``. Embeddings
are computed once (:func:`topics.embedding.embed.embed_texts`) and passed in.

Parameters derived from the corpus size
---------------------------------------
BERTopic's defaults (``n_neighbors=15``, ``min_topic_size=10``, HDBSCAN ``min_samples``
equal to the cluster size) suit tens of thousands of documents; on the 90 bundled
abstracts they put nearly everything in the outlier topic. With ``n`` documents, any
parameter left as ``None`` is set by :func:`size_rule`:

==================  ======================================  ========  ==========
parameter           rule                                    n = 90    n = 4,364
==================  ======================================  ========  ==========
``n_neighbors``     ``clip(round(sqrt(n) / 2), 5, 15)``     5         15
``min_cluster_size````max(4, round(sqrt(n) / 3))``          4         22
``min_samples``     ``max(1, min_cluster_size // 3)``       1         7
==================  ======================================  ========  ==========

Small neighbourhoods and a low ``min_samples`` let HDBSCAN find several small, dense
groups in a small corpus, while the square-root growth keeps the topics of a large
corpus fine-grained but above noise.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted
from sklearn.feature_extraction.text import CountVectorizer

from topics.naming.acronyms import find_acronyms
from topics.clustering.areas import area_rule, topic_areas
from topics.clustering.assign import NOVELTY_QUANTILE, assign_documents, leave_one_out, place_runs, vote_cut, vote_weights
from topics.clustering.hierarchy import FixedClusterer, ward_areas, ward_topics
from topics.clustering.consensus import ConsensusClusterer, extend_labels, membership_confidence
from topics.naming.terms import PhraseAnalyzer
from topics.naming.coverage import PhraseIndex, name_parts
from topics.naming.fields import name_fields
from topics.naming.labels import OUTLIER_NAME, Name, class_terms, named, topic_names
from topics.clustering.order import canonical_order, graph_to_rows, to_rows
from topics.clustering.neighbors import extend_values, landmark_rows, landmark_step, nearest_neighbors, place_values, resolve_seed
from topics.embedding.embed import check_same_embedder
from topics.text import clean_for_terms
from topics.vectors import unit_rows

__all__ = [
    "LARGEST_TOPIC",
    "METHODS",
    "MIN_DOCUMENTS",
    "SMALL_CORPUS",
    "TopicModel",
    "check_inputs",
    "check_min_cluster_size",
    "describe_topics",
    "fit_bertopic",
    "rebuild_bertopic",
    "resolve_method",
    "size_rule",
    "ward_min_size",
]

logger = logging.getLogger(__name__)

MIN_DOCUMENTS = 10
#: Below this many clustered papers ``method="auto"`` uses Ward's hierarchy, from it the consensus.
SMALL_CORPUS = 200
#: Ward's hierarchy is not cut where one topic would hold more than this share of the papers.
LARGEST_TOPIC = 0.5
METHODS = ("auto", "consensus", "ward")


def resolve_method(method: str, n_docs: int) -> str:
    """The clustering ``method`` that runs for ``n_docs`` clustered papers: "consensus" or "ward"."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if method == "auto":
        return "ward" if n_docs < SMALL_CORPUS else "consensus"
    return method


def ward_min_size(n_docs: int) -> int:
    """The smallest topic Ward's hierarchy splits down to: ``max(3, round(sqrt(n) / 3))``.

    One paper less than the size rule's floor of 4, for corpora under about 110 papers:
    Ward's topics have no outliers, so a group of three papers on one question is a topic
    a reader would keep (``benchmarks/README.md``, "Small corpora").
    """
    return int(max(3, round(float(np.sqrt(n_docs)) / 3)))


def size_rule(n_docs: int) -> dict[str, int]:
    """UMAP and HDBSCAN parameters for a corpus of ``n_docs`` documents (module docs)."""
    root = float(np.sqrt(n_docs))
    n_neighbors = int(np.clip(round(root / 2), 5, 15))
    min_cluster_size = int(max(4, round(root / 3)))
    min_samples = max(1, min_cluster_size // 3)
    return {"n_neighbors": n_neighbors, "min_cluster_size": min_cluster_size, "min_samples": min_samples}


def _texts(corpus: pd.DataFrame | Sequence[str]) -> list[str]:
    if isinstance(corpus, pd.DataFrame):
        if "abstract" not in corpus:
            raise ValueError("corpus frame has no 'abstract' column")
        return corpus["abstract"].astype(str).tolist()
    if isinstance(corpus, str):
        raise TypeError("pass a sequence of documents, not one string")
    return [str(t) for t in corpus]


class TopicModel(BaseEstimator):
    """Consensus topics of a corpus from precomputed embeddings, with names, terms and areas.

    ``fit`` runs UMAP + HDBSCAN ``n_runs`` times with different seeds on the same exact
    neighbour graph, builds one set of topics from the runs' agreement
    (:class:`topics.clustering.consensus.ConsensusClusterer`, plugged into BERTopic as its
    clustering model), gives the papers the consensus left out the topic their
    neighbours agree on, names topics from BERTopic's c-TF-IDF terms, and groups the
    topics into areas (:func:`topics.clustering.areas.topic_areas`).

    Parameters
    ----------
    n_neighbors, min_cluster_size, min_samples
        UMAP's neighbourhood size and HDBSCAN's smallest topic and density setting;
        ``None`` derives each from the corpus size (:func:`size_rule`).
    n_components
        Dimensions UMAP reduces to before clustering.
    n_runs, n_epochs
        UMAP runs the consensus is built from (seeds :func:`topics.clustering.consensus.run_seeds`),
        each of ``n_epochs`` epochs and read by HDBSCAN at four granularities
        (:func:`topics.clustering.runs.readings`). Measured on the full ICLR lists (ten
        fits each, disjoint seeds): 40 runs of 100 epochs cost what 20 of 200 did and
        their fits agree at mean ARI 0.929 instead of 0.884
        (:class:`topics.clustering.consensus.ConsensusClusterer`).
    resolution
        Leiden resolution of the consensus partition; larger gives more topics.
    neighbor_pool
        ``None`` (default): every consensus run's UMAP sees the exact ``n_neighbors``
        nearest; an int: each run sees ``n_neighbors - 1`` others drawn by its seed from
        the ``neighbor_pool`` nearest (:class:`topics.clustering.consensus.ConsensusClusterer`).
    outlier_share
        A paper without a consensus topic joins the topic holding at least this share
        of its neighbours' similarity votes (:func:`topics.clustering.consensus.assign_outliers`);
        ``1.0`` keeps every consensus outlier.
    reduce_outliers
        Also give every remaining outlier the topic whose centroid is nearest in
        embedding space (BERTopic's "embeddings" strategy), then recompute terms.
    n_areas
        Areas to group the topics into; ``None`` derives it from the number of topics
        (:func:`topics.clustering.areas.area_rule`).
    top_n_terms
        Terms kept per topic in the tables.
    n_landmarks
        Above this many documents the consensus clusters a random sample of this many
        (landmarks) and every other document follows its nearest landmarks
        (:mod:`topics.clustering.neighbors`); the size rule then uses the landmark count. ``None``
        clusters every document, at a cost growing as ``n^2``.
    n_jobs
        Processes the consensus runs are spread over (``-1``: every core); the topics
        do not depend on it. Below :data:`SMALL_CORPUS` clustered papers the runs stay in
        this process: on the 90 bundled abstracts, 40 runs take about 1 s there against
        about 3 s in two new worker processes.
    method
        How topics are found: ``"auto"`` (default): Ward below :data:`SMALL_CORPUS`
        clustered papers, the consensus from there on (:func:`resolve_method`);
        ``"consensus"``: the consensus of UMAP + HDBSCAN runs; ``"ward"``: Ward's
        hierarchy of the embeddings split down to ``min_cluster_size`` (by default
        :func:`ward_min_size`) at the highest silhouette with no topic over
        :data:`LARGEST_TOPIC` of the papers (:func:`topics.clustering.hierarchy.ward_topics`),
        and areas from the same hierarchy (:func:`topics.clustering.hierarchy.ward_areas`);
        the runs are still made, for each paper's confidence. On the 90 bundled abstracts
        Ward groups the papers closer to a reading of them than the consensus (pair F1
        0.39 against 0.24), and as well on official areas of AAAI and IJCAI samples
        (``benchmarks/README.md``, "Small corpora").
    random_state
        Chooses the runs' seeds: different values use disjoint seed sets; the same
        inputs and seed give identical assignments.

    Attributes
    ----------
    labels_ : ndarray of int, shape (n_docs,)
        Topic per document; -1 for outliers.
    confidence_ : ndarray of float, shape (n_docs,)
        Share of runs in which the document landed in its topic
        (:func:`topics.clustering.consensus.membership_confidence`).
    core_outlier_share_ : float
        Share of documents the consensus left without a topic, before reassignment.
    outlier_share_ : float
        Share of documents without a topic in ``labels_``.
    vote_cut_ : float
        The least share of its neighbours' votes a new document's topic needs in
        :meth:`transform` (:func:`topics.clustering.assign.vote_cut`): calibrated so that
        the same vote, each fitted document left out of its own, leaves ``outlier_share_``
        of them without a topic.
    vote_weights_ : dict of int to float or None
        Each topic's weight in that vote (:func:`topics.clustering.assign.vote_weights`):
        calibrated so that the vote, each fitted document left out of its own, puts as
        many of them in each topic as the fit did. ``None`` for a fit with landmarks.
    runs_ : ndarray of int32, shape (4 * n_runs, n_docs)
        The clusterings behind the consensus: each UMAP run read with HDBSCAN at four
        granularities (:func:`topics.clustering.runs.readings`), in their own numbering.
    topic_names_ : dict[int, str]
        A name per topic that holds for its papers (-1: "outliers (no topic)";
        :mod:`topics.naming.labels`).
    topic_name_coverage_ : dict[int, float]
        The share of each topic's papers that use its name (:mod:`topics.naming.coverage`).
    topic_mixed_ : dict[int, bool]
        Whether a topic's name joins two themes ("A / B"): no one phrase holds for half
        its papers.
    topic_transferred_ : dict[int, bool]
        Whether a topic's name is what related papers call their field, an author keyword
        that fewer than a quarter of its own papers write (:mod:`topics.naming.fields`).
    topic_terms_ : dict[int, list[tuple[str, float]]]
        Top ``top_n_terms`` c-TF-IDF terms with weights per topic.
    topic_embeddings_ : dict[int, ndarray]
        Unit-length mean embedding per topic.
    topic_areas_ : dict[int, int]
        Area per topic (-1 for the outliers).
    area_names_, area_name_coverage_, area_mixed_, area_transferred_ : dict[int, ...]
        A name per area, the share of its papers that use it, whether it is mixed, and
        whether it is transferred.
    reduced_embeddings_ : ndarray, shape (n_docs, n_components)
        The first run's UMAP coordinates.
    acronyms_ : dict[str, str]
        The acronyms the corpus defines, written out in terms and names
        (:func:`topics.naming.acronyms.find_acronyms`).
    params_ : dict
        The resolved parameters.
    neighbors_ : tuple of ndarray
        The exact cosine neighbour graph ``(indices, distances)``
        (:func:`topics.clustering.neighbors.nearest_neighbors`, ``n_neighbors + 1`` columns, each
        document first); with landmarks, each document's nearest landmarks
        (:func:`topics.clustering.neighbors.landmark_graph`). :func:`topics.clustering.layout.map_coordinates` reuses it.
    landmarks_ : ndarray of int or None
        Positions of the documents the consensus clustered, when there were more than
        ``n_landmarks``; ``None`` when it clustered all.
    fitted_documents_ : ndarray of int
        Positions of the documents the consensus clustered and the names were counted
        over: ``landmarks_``, or every document.
    texts_ : list of str
        Every document's text, as given.
    fit_texts_ : list of str
        The texts of ``fitted_documents_`` as terms are counted from them (LaTeX and URLs
        removed, :func:`topics.text.clean_for_terms`).
    embeddings_ : ndarray of float32, shape (n_docs, dim)
        The embeddings the model was fitted on (centroids, representative papers and
        ``merge`` read them).
    embedding_fingerprint_ : str or None
        The backend and precision of the embeddings (their ``fingerprint``, where
        :func:`topics.embed_texts` made them); :meth:`transform` refuses other vectors.
    seeds_ : ndarray of int
        The seeds of the consensus runs.
    bertopic_ : bertopic.BERTopic
        The fitted BERTopic model, for anything this class does not expose.

    Examples
    --------
    >>> embeddings = topics.embed_texts(corpus["abstract"].tolist(), "lsa")
    >>> model = topics.TopicModel(random_state=0).fit(corpus, embeddings)
    >>> model.labels_.shape == (len(corpus),)
    True
    >>> topics.topic_table(model, corpus)[["topic", "label", "n_docs"]].shape[1]
    3
    """

    def __init__(
        self,
        *,
        n_neighbors: int | None = None,
        min_cluster_size: int | None = None,
        min_samples: int | None = None,
        n_components: int = 5,
        n_runs: int = 40,
        n_epochs: int = 100,
        resolution: float = 1.0,
        neighbor_pool: int | None = None,
        outlier_share: float = 0.3,
        reduce_outliers: bool = False,
        n_areas: int | None = None,
        top_n_terms: int = 10,
        n_landmarks: int | None = 20_000,
        n_jobs: int | None = -1,
        method: str = "auto",
        random_state: int | None = None,
    ):
        self.n_neighbors = n_neighbors
        self.min_cluster_size = min_cluster_size
        self.min_samples = min_samples
        self.n_components = n_components
        self.n_runs = n_runs
        self.n_epochs = n_epochs
        self.resolution = resolution
        self.neighbor_pool = neighbor_pool
        self.outlier_share = outlier_share
        self.reduce_outliers = reduce_outliers
        self.n_areas = n_areas
        self.top_n_terms = top_n_terms
        self.n_landmarks = n_landmarks
        self.n_jobs = n_jobs
        self.method = method
        self.random_state = random_state

    # ------------------------------------------------------------------ fitting
    def _resolve_params(self, n_docs: int) -> dict:
        try:
            check_min_cluster_size(self.min_cluster_size, n_docs, self.n_landmarks)
        except ValueError as exc:
            raise ValueError(f"min_cluster_size {self.min_cluster_size}: {exc}") from None
        n_clustered = n_docs if self.n_landmarks is None else min(n_docs, int(self.n_landmarks))
        rule = size_rule(n_clustered)
        params = {k: (getattr(self, k) if getattr(self, k) is not None else v) for k, v in rule.items()}
        params["n_neighbors"] = min(params["n_neighbors"], n_docs - 2)
        params["n_components"] = min(self.n_components, n_docs - 2)
        params["random_state"] = resolve_seed(self.random_state)
        params["n_runs"] = int(self.n_runs)
        params["n_epochs"] = int(self.n_epochs)
        params["resolution"] = float(self.resolution)
        params["neighbor_pool"] = None if self.neighbor_pool is None else int(self.neighbor_pool)
        params["method"] = resolve_method(self.method, n_clustered)
        if params["method"] == "ward" and self.min_cluster_size is None:
            params["min_cluster_size"] = ward_min_size(n_clustered)
        return params

    def fit(self, corpus: pd.DataFrame | Sequence[str], embeddings: np.ndarray) -> TopicModel:
        """Fit topics to ``corpus`` (a corpus frame or a list of abstracts).

        ``embeddings`` has one row per document, in the same order.
        """
        fingerprint = getattr(embeddings, "fingerprint", None)  # the backend and precision, where the vectors say
        texts, embeddings = check_inputs(corpus, embeddings)
        if not 0 <= self.outlier_share <= 1:
            raise ValueError(f"outlier_share must be between 0 and 1, got {self.outlier_share}")
        # fitted on a canonical order, so the same papers in any order give the same topics
        order = canonical_order(embeddings, texts)
        self._fit_ordered([texts[i] for i in order], embeddings[order])
        self._restore_order(order, texts, embeddings)
        self.embedding_fingerprint_ = fingerprint
        return self

    def fit_labels(self, corpus: pd.DataFrame | Sequence[str], embeddings: np.ndarray) -> np.ndarray:
        """The topic of each document that ``fit(corpus, embeddings).labels_`` gives, without
        naming the topics or grouping them into areas, and without changing this model.

        For refits that only count which topics come back (:func:`topics.stats.stability.seed_stability`):
        the consensus and BERTopic's numbering run as in :meth:`fit`, the names, terms and
        areas do not.
        """
        texts, embeddings = check_inputs(corpus, embeddings)
        if not 0 <= self.outlier_share <= 1:
            raise ValueError(f"outlier_share must be between 0 and 1, got {self.outlier_share}")
        order = canonical_order(embeddings, texts)
        return to_rows(self._topics_ordered([texts[i] for i in order], embeddings[order])["topics"], order)

    def _fit_ordered(self, texts: list[str], embeddings: np.ndarray) -> None:
        """The fit itself, on the rows in the order given (``fit`` gives them in canonical order):
        the topics (:meth:`_topics_ordered`), then what the model keeps of them and the areas."""
        found = self._topics_ordered(texts, embeddings)
        params, fitted, topics = found["params"], found["fitted"], found["topics"]
        self.core_outlier_share_ = float(np.mean(found["core"] == -1))
        self.params_ = params
        self.neighbors_ = found["graph"]
        self.landmarks_ = found["landmarks"]
        self.fitted_documents_ = fitted
        self.acronyms_ = found["acronyms"]
        self.bertopic_ = found["bertopic"]
        self.runs_ = found["runs"]
        self.seeds_ = found["clusterer"].seeds_
        self.reduced_embeddings_ = found["reduced"]
        self.texts_ = texts
        self.fit_texts_ = found["fit_texts"]
        self.embeddings_ = embeddings
        self._set_topics(topics, self._ward_areas(embeddings[fitted], topics[fitted], params))
        self._calibrate_vote()

    def _topics_ordered(self, texts: list[str], embeddings: np.ndarray) -> dict:
        """The topic of each row (in the order given) and what the fit keeps of how it was found:
        landmarks, the consensus runs, the topics (Ward's or the consensus's), BERTopic's
        terms, every paper's topic (``params``, ``landmarks``, ``graph``, ``fitted``,
        ``fit_texts``, ``acronyms``, ``clusterer``, ``bertopic``, ``topics``, ``core``,
        ``runs``, ``reduced``)."""
        params = self._resolve_params(len(texts))
        landmarks, graph = landmark_step(
            embeddings, self.n_landmarks, n_neighbors=params["n_neighbors"] + 1, random_state=params["random_state"]
        )
        fitted = np.arange(len(texts)) if landmarks is None else landmarks
        fit_texts = [clean_for_terms(texts[i]) or "empty" for i in fitted]  # only these are counted
        acronyms = find_acronyms(fit_texts)
        clusterer = self._clusterer(params, graph, landmarks, n_fitted=len(fitted))
        topics_by = self._topics_by(clusterer, embeddings[fitted], params)
        bertopic, topics, core = fit_bertopic(
            fit_texts, embeddings[fitted], topics_by, acronyms=acronyms,
            reduce_outliers=self.reduce_outliers, top_n_words=max(self.top_n_terms, 30),
        )
        topics, core, runs, reduced, graph = self._every_paper(clusterer, topics, core, landmarks, graph)
        return {"params": params, "landmarks": landmarks, "graph": graph, "fitted": fitted, "fit_texts": fit_texts,
                "acronyms": acronyms, "clusterer": clusterer, "bertopic": bertopic, "topics": topics, "core": core,
                "runs": runs, "reduced": reduced}

    def _clusterer(self, params: dict, graph, landmarks, *, n_fitted: int) -> ConsensusClusterer:
        """The unfitted consensus of UMAP + HDBSCAN runs over the ``n_fitted`` papers clustered."""
        return ConsensusClusterer(
            n_runs=params["n_runs"],
            n_epochs=params["n_epochs"],
            n_neighbors=params["n_neighbors"],
            n_components=params["n_components"],
            min_cluster_size=params["min_cluster_size"],
            min_samples=params["min_samples"],
            resolution=params["resolution"],
            neighbor_pool=params["neighbor_pool"],
            outlier_share=self.outlier_share,
            neighbors=None if graph is None else landmark_rows(graph, landmarks),
            # below SMALL_CORPUS papers the runs take less time than starting worker processes
            n_jobs=1 if n_fitted < SMALL_CORPUS else self.n_jobs,
            random_state=params["random_state"],
        )

    @staticmethod
    def _topics_by(clusterer: ConsensusClusterer, embeddings: np.ndarray, params: dict):
        """What gives the topics: Ward's hierarchy where ``params["method"]`` says so and it
        has a split (the consensus runs are fitted too, for each paper's confidence), else
        the consensus (``params["method"]`` then becomes "consensus")."""
        if params["method"] != "ward":
            return clusterer
        ward = ward_topics(embeddings, min_cluster_size=params["min_cluster_size"], max_share=LARGEST_TOPIC)
        if ward.max() > 0:
            clusterer.fit(embeddings)  # the runs still give each paper its confidence
            return FixedClusterer(ward, min_cluster_size=params["min_cluster_size"])
        # the root's split leaves a branch under the smallest topic: no cut to make
        logger.info("Ward's hierarchy has no split into topics of %d papers; using the consensus", params["min_cluster_size"])
        params["method"] = "consensus"
        return clusterer

    def _every_paper(self, clusterer: ConsensusClusterer, topics: np.ndarray, core: np.ndarray, landmarks, graph) -> tuple:
        """The topics, core topics, runs, reduced vectors and neighbour graph of every paper:
        the fitted ones' own, or, with landmarks, every other paper following its nearest landmarks."""
        runs, reduced = clusterer.runs_, clusterer.reduced_embeddings_
        if landmarks is None:
            return topics, core, runs, reduced, clusterer.neighbors_
        topics = extend_labels(topics, landmarks, graph, min_share=0.0 if self.reduce_outliers else self.outlier_share)
        core = extend_labels(core, landmarks, graph)
        runs = extend_labels(runs, landmarks, graph)
        reduced = extend_values(reduced, landmarks, graph)
        return topics, core, runs, reduced, graph

    def _calibrate_vote(self) -> None:
        """``vote_weights_`` and ``vote_cut_``, from one leave-one-out neighbour search
        (none where neither needs it: a fit with landmarks and ``reduce_outliers``)."""
        needed = not self.reduce_outliers or len(self.fitted_documents_) == len(self.labels_)
        neighbors = leave_one_out(self) if needed else None
        self.vote_weights_ = vote_weights(self, neighbors)
        self.vote_cut_ = vote_cut(self, neighbors)

    def _ward_areas(self, embeddings: np.ndarray, topics: np.ndarray, params: dict) -> Mapping[int, int] | None:
        """With Ward's topics, the areas from the same hierarchy; else ``None`` (the
        topics' centroids are grouped)."""
        if params["method"] != "ward":
            return None
        n_topics = len(set(topics.tolist()) - {-1})
        return ward_areas(
            embeddings, topics, min_cluster_size=params["min_cluster_size"],
            n_areas=area_rule(n_topics) if self.n_areas is None else int(self.n_areas),
        )

    def _restore_order(self, order: np.ndarray, texts: list[str], embeddings: np.ndarray) -> None:
        """Every learned per-document array of a fit on ``x[order]`` back in the caller's row
        order: ``fitted_documents_`` ascending, with ``fit_texts_`` and BERTopic's topics of
        its documents in the same order."""
        self.labels_ = to_rows(self.labels_, order)
        self.confidence_ = to_rows(self.confidence_, order)
        self.runs_ = to_rows(self.runs_, order, axis=1)
        self.reduced_embeddings_ = to_rows(self.reduced_embeddings_, order)
        self.neighbors_ = graph_to_rows(self.neighbors_, order)
        fitted = order[self.fitted_documents_]
        ascending = np.argsort(fitted)
        self.fitted_documents_ = fitted[ascending]
        self.fit_texts_ = [self.fit_texts_[i] for i in ascending]
        self.bertopic_.topics_ = [self.bertopic_.topics_[i] for i in ascending]
        if self.landmarks_ is not None:
            self.landmarks_ = self.fitted_documents_
        self.texts_ = texts
        self.embeddings_ = embeddings

    def _set_topics(self, topics: np.ndarray, areas: Mapping[int, int] | None = None) -> None:
        """Labels, confidence, names, terms, centroids and areas from the topic of each document
        (``areas``: an area per topic; by default the topics' centroids are grouped)."""
        for name, value in describe_topics(
            topics, self.runs_, self.embeddings_, self.bertopic_.topic_representations_,
            fitted=self.fitted_documents_, fit_texts=self.fit_texts_, acronyms=self.acronyms_,
            top_n_terms=self.top_n_terms, n_areas=self.n_areas, areas=areas,
        ).items():
            setattr(self, name, value)

    def fit_predict(self, corpus: pd.DataFrame | Sequence[str], embeddings: np.ndarray) -> np.ndarray:
        """Fit and return ``labels_``."""
        return self.fit(corpus, embeddings).labels_

    def transform(
        self, corpus: pd.DataFrame | Sequence[str], embeddings: np.ndarray, *, novelty_quantile: float = NOVELTY_QUANTILE
    ) -> pd.DataFrame:
        """Place new documents in the fitted topics, without refitting
        (:func:`topics.clustering.assign.assign_documents`: topic, topic_label, confidence,
        similarity, nearest_topic, novel; ``doc_id`` first where ``corpus`` has one).

        ``embeddings`` must come from the backend and precision the model was fitted on
        (``embedding_fingerprint_``, where :func:`topics.embed_texts` made both): other
        vectors are refused with an :class:`~topics.embedding.weights.EmbeddingError`;
        :func:`topics.embedding.embed.embedder_for` gives the embedder to use."""
        self._check_fitted()
        n = len(corpus)
        if len(embeddings) != n:
            raise ValueError(f"{len(embeddings)} embeddings for {n} documents")
        check_same_embedder(getattr(self, "embedding_fingerprint_", None), embeddings)
        out = assign_documents(self, embeddings, novelty_quantile=novelty_quantile)
        if isinstance(corpus, pd.DataFrame) and "doc_id" in corpus:
            out.insert(0, "doc_id", corpus["doc_id"].to_numpy())
        return out

    # ------------------------------------------------------------------ editing
    def _check_fitted(self) -> None:
        check_is_fitted(self, "labels_", msg="this TopicModel is not fitted yet; call fit(corpus, embeddings) first")

    @property
    def topics(self) -> list[int]:
        """Topic ids in order: -1 (if present) then by size."""
        self._check_fitted()
        return sorted(self.topic_names_, key=lambda t: (t != -1, -int((self.labels_ == t).sum()), t))

    @property
    def areas(self) -> list[int]:
        """Area ids in order: -1 (the outliers, if any) then by size."""
        self._check_fitted()
        doc_areas = self.document_areas()
        return sorted(self.area_names_, key=lambda a: (a != -1, -int((doc_areas == a).sum()), a))

    def document_areas(self) -> np.ndarray:
        """Area per document (-1 for outliers)."""
        self._check_fitted()
        return np.array([self.topic_areas_.get(int(t), -1) for t in self.labels_], dtype=int)

    def rename(self, names: Mapping[int, str]) -> TopicModel:
        """A copy whose topics in ``names`` carry the given names, each with its coverage
        and flags by :func:`topics.naming.labels.named` (a reader's "A / B" is mixed; a
        name a reader gives is never transferred)."""
        self._check_fitted()
        unknown = set(names) - set(self.topic_names_)
        if unknown:
            raise KeyError(f"no topic {sorted(unknown)[0]}; topics are {sorted(self.topic_names_)}")
        new = copy.copy(self)
        names = {int(k): str(v) for k, v in names.items()}
        new.topic_names_ = {**self.topic_names_, **names}
        index = PhraseIndex(self.fit_texts_, self.acronyms_)
        fit_topics = self.labels_[self.fitted_documents_]
        given = {t: named(index, n, fit_topics == t) for t, n in names.items()}
        new.topic_name_coverage_ = {**self.topic_name_coverage_, **{t: n.coverage for t, n in given.items()}}
        new.topic_mixed_ = {**self.topic_mixed_, **{t: n.mixed for t, n in given.items()}}
        new.topic_transferred_ = {**getattr(self, "topic_transferred_", {}), **{t: n.transferred for t, n in given.items()}}
        return new

    def merge(self, topics_to_merge: Sequence[int]) -> TopicModel:
        """A copy in which ``topics_to_merge`` form one topic; terms, names and areas recomputed."""
        self._check_fitted()
        merge = sorted({int(t) for t in topics_to_merge})
        if len(merge) < 2:
            raise ValueError("name at least two topics to merge")
        unknown = [t for t in merge if t not in self.topic_names_ or t == -1]
        if unknown:
            raise KeyError(f"cannot merge topic {unknown[0]}; mergeable topics are {[t for t in self.topics if t != -1]}")
        new = copy.deepcopy(self)
        if new.bertopic_ is None:  # a loaded model (topics.store) keeps no BERTopic object
            new.bertopic_ = rebuild_bertopic(self)
        before = self.labels_[self.fitted_documents_]
        new.bertopic_.merge_topics(self.fit_texts_, merge)
        renumber = dict(zip(before.tolist(), np.asarray(new.bertopic_.topics_, dtype=int).tolist()))
        new._set_topics(np.array([renumber.get(t, -1) for t in self.labels_.tolist()], dtype=int))
        new._calibrate_vote()
        return new

    def extend(self, corpus: pd.DataFrame | Sequence[str], embeddings: np.ndarray, topics: np.ndarray) -> TopicModel:
        """A copy that also holds the documents of ``corpus`` with their ``embeddings`` and ``topics``.

        Nothing is refitted: every fitted document keeps its topic and confidence, every
        topic its name, terms, centroid and area (:func:`topics.update.update`). A new
        document's topic is a fitted one, -1, or an id above the fitted ones: a new topic,
        named by the rule the fitted ones were (never by a phrase of a fitted topic's
        name), with the area of the nearest fitted topic. The new documents join those
        :meth:`transform` votes among; their clusters in ``runs_``, their rows of the
        neighbour graph and their reduced embeddings come from their nearest fitted
        documents. No clustering holds a new topic, so its documents' confidence is 0
        until a refit.
        """
        self._check_fitted()
        texts = _texts(corpus)
        embeddings = np.asarray(embeddings, dtype=np.float32)
        topics = np.asarray(topics, dtype=int)
        if embeddings.ndim != 2 or not len(embeddings) == len(topics) == len(texts):
            raise ValueError(f"{len(texts)} documents, {len(embeddings)} embeddings and {len(topics)} topics; give one of each per document")
        new = copy.copy(self)
        new._add_documents(texts, embeddings, topics)
        new._add_topics(sorted(set(topics.tolist()) - set(self.topic_names_) - {-1}), embeddings, topics)
        new.bertopic_ = None  # BERTopic never saw the new documents; merge rebuilds it from the topics
        return new

    def _add_documents(self, texts: list[str], embeddings: np.ndarray, topics: np.ndarray) -> None:
        """:meth:`extend`: the new documents appended to every per-document attribute."""
        n_old = len(self.labels_)
        runs = place_runs(self, embeddings)
        reduced = place_values(self.reduced_embeddings_, self.embeddings_, embeddings, n_neighbors=int(self.params_["n_neighbors"]) + 1)
        old_graph = tuple(np.asarray(part) for part in self.neighbors_)
        self.labels_ = np.concatenate([np.asarray(self.labels_, dtype=int), topics])
        self.embeddings_ = np.vstack([np.asarray(self.embeddings_, dtype=np.float32), embeddings])
        self.texts_ = list(self.texts_) + list(texts)
        self.fitted_documents_ = np.concatenate([np.asarray(self.fitted_documents_), n_old + np.arange(len(texts))])
        self.fit_texts_ = list(self.fit_texts_) + [clean_for_terms(t) or "empty" for t in texts]
        self.runs_ = np.concatenate([np.asarray(self.runs_), runs], axis=1)
        self.confidence_ = np.concatenate([self.confidence_, membership_confidence(self.labels_, self.runs_)[n_old:]])
        self.outlier_share_ = float(np.mean(self.labels_ == -1))
        reference = self.fitted_documents_
        k = min(old_graph[0].shape[1], len(reference))
        indices, distances = nearest_neighbors(embeddings, n_neighbors=k, among=self.embeddings_[reference])
        self.neighbors_ = (
            np.vstack([self.neighbors_[0], reference[indices].astype(old_graph[0].dtype)]),
            np.vstack([self.neighbors_[1], distances.astype(old_graph[1].dtype)]),
        )
        self.reduced_embeddings_ = np.vstack([self.reduced_embeddings_, reduced])

    def _add_topics(self, ids: list[int], embeddings: np.ndarray, topics: np.ndarray) -> None:
        """:meth:`extend`: the outliers, where the new documents bring the first, and the new
        topics ``ids`` added to every per-topic attribute."""
        names, terms, centroids = dict(self.topic_names_), dict(self.topic_terms_), dict(self.topic_embeddings_)
        name_coverage, mixed, areas = dict(self.topic_name_coverage_), dict(self.topic_mixed_), dict(self.topic_areas_)
        transferred = dict(getattr(self, "topic_transferred_", {}))
        area_names = dict(self.area_names_)
        dtype = next(iter(self.topic_embeddings_.values())).dtype  # centroids are saved as one array
        if (topics == -1).any() and -1 not in names:
            names[-1], areas[-1] = OUTLIER_NAME, -1
            area_names.setdefault(-1, OUTLIER_NAME)
            centroids[-1] = unit_rows(embeddings[topics == -1].mean(axis=0, keepdims=True), dtype=np.float64)[0].astype(dtype)
        if ids:
            old_ids = np.array([t for t in self.topic_embeddings_ if t != -1])
            old_centroids = unit_rows(np.stack([self.topic_embeddings_[t] for t in old_ids]), dtype=np.float64)
            for t, (name, top_terms) in self._name_new_topics(ids).items():
                names[t], terms[t] = name.name, top_terms
                centroids[t] = unit_rows(self.embeddings_[self.labels_ == t].mean(axis=0, keepdims=True), dtype=np.float64)[0].astype(dtype)
                name_coverage[t], mixed[t], transferred[t] = name.coverage, name.mixed, name.transferred
                areas[t] = int(self.topic_areas_[int(old_ids[np.argmax(old_centroids @ centroids[t])])])
        self.topic_names_, self.topic_terms_, self.topic_embeddings_ = names, terms, centroids
        self.topic_name_coverage_, self.topic_mixed_, self.topic_areas_, self.area_names_ = name_coverage, mixed, areas, area_names
        self.topic_transferred_ = transferred

    def _name_new_topics(self, ids: list[int]) -> dict[int, tuple[Name, list]]:
        """:meth:`extend`: each new topic's name (never a phrase of a fitted topic's name) and terms."""
        fit_labels = self.labels_[self.fitted_documents_]
        analyzer = PhraseAnalyzer(acronyms=self.acronyms_)
        index = PhraseIndex(self.fit_texts_, self.acronyms_)
        ranked = class_terms(self.fit_texts_, fit_labels, analyzer, top_n=max(self.top_n_terms, 30))
        old_phrases = {p for t, n in self.topic_names_.items() if t != -1 for p in name_parts(n)}
        chosen = topic_names({t: ranked.get(t, []) for t in ids}, fit_labels, self.fit_texts_, analyzer=analyzer, index=index,
                            forbidden=dict.fromkeys(ids, old_phrases))
        return {t: (named(index, chosen[t], fit_labels == t), ranked.get(t, [])[: self.top_n_terms]) for t in ids}


def check_min_cluster_size(min_cluster_size: int | None, n_docs: int, n_landmarks: int | None = 20_000) -> None:
    """A ValueError where ``min_cluster_size`` leaves no room for two topics among the
    ``n_docs`` papers (or the ``n_landmarks`` clustered): HDBSCAN and Ward's hierarchy
    would then find none, and every paper would be an outlier."""
    n_clustered = n_docs if n_landmarks is None else min(n_docs, int(n_landmarks))
    if min_cluster_size is not None and min_cluster_size > n_clustered // 2:
        raise ValueError(
            f"more than half of the {n_clustered} papers clustered, so no two topics can be found; "
            f"give at most {max(n_clustered // 2, 2)}"
        )


def check_inputs(corpus: pd.DataFrame | Sequence[str], embeddings: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The documents' texts and the embeddings as float32, after checking that they fit
    together (one row per document, at least :data:`MIN_DOCUMENTS`, all finite)."""
    texts = _texts(corpus)
    embeddings = np.asanyarray(embeddings, dtype=np.float32)  # the same object: an Embeddings array stays one
    if embeddings.ndim != 2 or embeddings.shape[0] != len(texts):
        raise ValueError(f"embeddings must have shape ({len(texts)}, dim), got {embeddings.shape}")
    if len(texts) < MIN_DOCUMENTS:
        raise ValueError(f"need at least {MIN_DOCUMENTS} documents to find topics, got {len(texts)}")
    if not np.isfinite(embeddings).all():
        raise ValueError("embeddings contain NaN or infinite values")
    return texts, embeddings


def fit_bertopic(
    texts: Sequence[str], embeddings: np.ndarray, clusterer, *,
    acronyms: Mapping[str, str], reduce_outliers: bool = False, top_n_words: int = 30,
):
    """BERTopic with ``clusterer`` (a :class:`~topics.clustering.consensus.ConsensusClusterer`
    or :class:`~topics.clustering.hierarchy.FixedClusterer`) as its clustering model, fitted to ``texts``.

    Each consensus run reduces the embeddings itself, so BERTopic's own UMAP step is a
    pass-through; terms are counted by :class:`topics.naming.terms.PhraseAnalyzer` with the
    corpus's ``acronyms`` written out, weighted by BERTopic's c-TF-IDF. With
    ``reduce_outliers``, every remaining outlier takes the topic whose centroid is nearest
    (BERTopic's "embeddings" strategy) and the terms are recomputed.

    Returns ``(bertopic, topics, core)``: the fitted BERTopic model, each text's topic in
    BERTopic's numbering, and the topic of each text before outliers were reassigned.
    """
    from bertopic import BERTopic
    from bertopic.dimensionality import BaseDimensionalityReduction
    from bertopic.vectorizers import ClassTfidfTransformer

    vectorizer = CountVectorizer(analyzer=PhraseAnalyzer(acronyms=acronyms))
    ctfidf = ClassTfidfTransformer(reduce_frequent_words=True)
    model = BERTopic(
        language=None,  # "english" strips hyphens: "self-supervised" -> "selfsupervised"
        umap_model=BaseDimensionalityReduction(),
        hdbscan_model=clusterer,
        vectorizer_model=vectorizer,
        ctfidf_model=ctfidf,
        top_n_words=top_n_words,
    )
    topics, _ = model.fit_transform(list(texts), embeddings)
    topics = np.asarray(topics, dtype=int)
    renumber = dict(zip(clusterer.labels_.tolist(), topics.tolist()))
    core = np.array([renumber.get(t, -1) if t != -1 else -1 for t in clusterer.core_labels_], dtype=int)
    if (topics != -1).sum() == 0:
        logger.warning(
            "the consensus found no topic among %d documents (all outliers); lower min_cluster_size (now %d)",
            len(texts), clusterer.min_cluster_size,
        )
    elif reduce_outliers and (topics == -1).any():
        topics = np.asarray(
            model.reduce_outliers(list(texts), topics.tolist(), strategy="embeddings", embeddings=embeddings), dtype=int
        )
        model.update_topics(list(texts), topics=topics.tolist(), vectorizer_model=vectorizer, ctfidf_model=ctfidf, top_n_words=top_n_words)
    return model, topics, core


def rebuild_bertopic(model: TopicModel):
    """The BERTopic object of a fitted model that has none (loaded from a saved analysis,
    :mod:`topics.store`): c-TF-IDF refitted on the fitted documents with their topics as
    given (:class:`~topics.clustering.hierarchy.FixedClusterer`). Raises ValueError where
    BERTopic would number the topics otherwise than the model does. Fitted, like the
    model, in canonical order (:func:`topics.clustering.order.canonical_order`), where
    BERTopic breaks ties between topics of one size."""
    fitted = np.asarray(model.fitted_documents_)
    embeddings = np.asarray(model.embeddings_)[fitted]
    order = canonical_order(embeddings, [model.texts_[i] for i in fitted])
    labels = np.asarray(model.labels_)[fitted][order]
    bertopic, topics, _ = fit_bertopic(
        [model.fit_texts_[i] for i in order], embeddings[order],
        FixedClusterer(labels, min_cluster_size=model.params_["min_cluster_size"]),
        acronyms=model.acronyms_, top_n_words=max(model.top_n_terms, 30),
    )
    if not np.array_equal(topics, labels):
        raise ValueError("BERTopic numbers this loaded model's topics differently; refit it to merge topics")
    bertopic.topics_ = to_rows(bertopic.topics_, order).tolist()  # in the order of fit_texts_
    return bertopic


def describe_topics(
    topics: np.ndarray, runs: np.ndarray, embeddings: np.ndarray, representations: Mapping[int, Sequence[tuple[str, float]]], *,
    fitted: np.ndarray, fit_texts: Sequence[str], acronyms: Mapping[str, str], top_n_terms: int = 10, n_areas: int | None = None,
    areas: Mapping[int, int] | None = None,
) -> dict:
    """What :class:`TopicModel` learns from the topic of each document, by attribute name:
    ``labels_``, ``outlier_share_``, ``confidence_``, ``topic_names_``,
    ``topic_name_coverage_``, ``topic_mixed_``, ``topic_transferred_``, ``topic_terms_``, ``topic_embeddings_``,
    ``topic_areas_``, ``area_names_``, ``area_name_coverage_``, ``area_mixed_`` and ``area_transferred_``.

    ``representations`` are BERTopic's c-TF-IDF terms per topic. Names and their coverage
    are counted over the ``fitted`` documents, whose texts are ``fit_texts`` (the
    landmarks, when there are some: a random sample names a topic, and estimates the
    share of its papers that use the name, as well as all its papers do). ``areas``, an
    area per topic, replaces the grouping of the topics' centroids
    (:func:`topics.clustering.areas.topic_areas`).
    """
    fit_topics = topics[fitted]
    sizes = pd.Series(topics).value_counts().to_dict()
    ranked = {int(t): [(w, float(s)) for w, s in terms if w] for t, terms in representations.items() if t in sizes}
    analyzer = PhraseAnalyzer(acronyms=acronyms, remember=True)  # topic and area names read the same texts
    index = PhraseIndex(fit_texts, acronyms)
    centroids = {}
    for t in sorted(sizes):
        v = embeddings[topics == t].mean(axis=0)
        centroids[int(t)] = v / (np.linalg.norm(v) or 1.0)
    if areas is None:
        areas = topic_areas(centroids, sizes, n_areas=n_areas)
    else:
        areas = {**({-1: -1} if -1 in sizes else {}), **{int(t): int(a) for t, a in areas.items()}}
    names, area = name_fields(ranked, fit_topics, areas, fit_texts, analyzer=analyzer, index=index)
    return {
        "labels_": topics,
        "outlier_share_": float(np.mean(topics == -1)),
        "confidence_": membership_confidence(topics, runs),
        "topic_names_": {t: n.name for t, n in names.items()},
        "topic_name_coverage_": {t: n.coverage for t, n in names.items()},
        "topic_mixed_": {t: n.mixed for t, n in names.items()},
        "topic_transferred_": {t: n.transferred for t, n in names.items()},
        "topic_terms_": {t: terms[:top_n_terms] for t, terms in ranked.items()},
        "topic_embeddings_": centroids,
        "topic_areas_": areas,
        "area_names_": {a: n.name for a, n in area.items()},
        "area_name_coverage_": {a: n.coverage for a, n in area.items()},
        "area_mixed_": {a: n.mixed for a, n in area.items()},
        "area_transferred_": {a: n.transferred for a, n in area.items()},
    }
