"""TopicModel: fitting, its parameters and the scikit-learn contract, outliers, landmarks, names."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.metrics import adjusted_rand_score, homogeneity_score

from tests.conftest import THEMES
from topics.text import clean_for_terms
from topics.clustering.model import TopicModel, size_rule
from topics.embedding.embed import embed_texts
from topics.clustering.tables import topic_table


def test_recovers_known_themes(theme_corpus, theme_model):
    labels = theme_model.labels_
    assert len(set(labels) - {-1}) == 4
    assert adjusted_rand_score(theme_corpus["theme"], labels) > 0.9
    names = set(theme_model.topic_names_.values())
    assert len(names) == len(theme_model.topic_names_)  # distinct
    # each theme's topic is named by one of that theme's own words
    for theme, topic in zip(theme_corpus["theme"], labels):
        if topic != -1:
            assert any(w in THEMES[theme].split() for w in theme_model.topic_names_[topic].split()), theme_model.topic_names_[topic]


def test_same_seed_same_assignments(theme_corpus, theme_embeddings, theme_model):
    again = TopicModel(random_state=0).fit(theme_corpus, theme_embeddings)
    np.testing.assert_array_equal(again.labels_, theme_model.labels_)
    assert again.topic_names_ == theme_model.topic_names_


def test_size_rule_scales_with_corpus():
    small, large = size_rule(90), size_rule(4364)
    assert small == {"n_neighbors": 5, "min_cluster_size": 4, "min_samples": 1}
    assert large == {"n_neighbors": 15, "min_cluster_size": 22, "min_samples": 7}


def test_explicit_parameters_win(theme_corpus, theme_embeddings):
    m = TopicModel(min_cluster_size=9, n_neighbors=7, random_state=1).fit(theme_corpus, theme_embeddings)
    assert m.params_["min_cluster_size"] == 9 and m.params_["n_neighbors"] == 7
    assert TopicModel(min_cluster_size=9).get_params()["min_cluster_size"] == 9  # sklearn contract
    first = m.texts_[0]
    m.fit(theme_corpus.iloc[::-1], theme_embeddings[::-1])  # a refit forgets the texts of the first fit
    assert m.texts_[0] == first_text(theme_corpus.iloc[-1]) and m.texts_[-1] == first
    assert not hasattr(TopicModel(), "texts_")
    assert m.fit_texts_[0] == clean_for_terms(theme_corpus["abstract"].iloc[-1])  # as terms are counted


def first_text(row) -> str:
    return row["abstract"]


def test_input_validation(theme_corpus, theme_embeddings):
    with pytest.raises(ValueError, match="shape"):
        TopicModel().fit(theme_corpus, theme_embeddings[:-1])
    with pytest.raises(ValueError, match="at least 10"):
        TopicModel().fit(theme_corpus.head(5), theme_embeddings[:5])
    with pytest.raises(NotFittedError, match="not fitted"):  # scikit-learn's own error
        topic_table(TopicModel())
    with pytest.raises(NotFittedError):
        TopicModel().topics


def test_reduce_outliers_keeps_the_original_share(sample_corpus):
    emb = embed_texts(sample_corpus["abstract"].tolist(), "lsa", cache=False)
    # outlier_share=1 keeps every paper the consensus left out; at min_cluster_size 8 the
    # consensus leaves some of the sample out, so there are some to reassign
    plain = TopicModel(method="consensus", random_state=0, outlier_share=1.0, min_cluster_size=8).fit(sample_corpus, emb)
    assert (plain.labels_ == -1).any(), "the sample should have some outliers to reassign"
    assert plain.outlier_share_ == pytest.approx(plain.core_outlier_share_)
    reduced = TopicModel(method="consensus", random_state=0, outlier_share=1.0, min_cluster_size=8, reduce_outliers=True).fit(sample_corpus, emb)
    assert not (reduced.labels_ == -1).any() and reduced.outlier_share_ == 0
    assert reduced.core_outlier_share_ == pytest.approx(plain.core_outlier_share_)


def test_neighbour_votes_assign_most_consensus_outliers(sample_corpus):
    emb = embed_texts(sample_corpus["abstract"].tolist(), "lsa", cache=False)
    kept = TopicModel(method="consensus", random_state=0, outlier_share=1.0, min_cluster_size=8).fit(sample_corpus, emb)
    voted = TopicModel(method="consensus", random_state=0, min_cluster_size=8).fit(sample_corpus, emb)
    assert voted.core_outlier_share_ == pytest.approx(kept.core_outlier_share_)
    assert voted.outlier_share_ < kept.outlier_share_
    # only former outliers moved: papers with a consensus topic keep their grouping
    # (topic ids are renumbered by size, so compare the partitions)
    had_topic = kept.labels_ != -1
    assert adjusted_rand_score(voted.labels_[had_topic], kept.labels_[had_topic]) == pytest.approx(1.0)


def test_rename_and_merge_return_new_models(theme_corpus, theme_model):
    before = dict(theme_model.topic_names_)
    renamed = theme_model.rename({0: "my name"})
    assert renamed.topic_names_[0] == "my name" and theme_model.topic_names_ == before
    assert renamed.topic_name_coverage_[0] == 0 and not renamed.topic_mixed_[0] and not renamed.topic_transferred_[0]
    glued = theme_model.rename({0: f"{before[0]} / my name"})  # a reader's "A / B" joins two themes too
    assert glued.topic_mixed_[0] and glued.topic_name_coverage_[0] > 0
    merged = theme_model.merge([0, 1])
    assert len(set(merged.labels_) - {-1}) == 3
    assert len(set(theme_model.labels_) - {-1}) == 4
    merged_docs = np.isin(theme_model.labels_, [0, 1])
    assert len(set(merged.labels_[merged_docs])) == 1
    with pytest.raises(KeyError):
        theme_model.rename({99: "x"})


def test_latex_never_becomes_a_term(sample_analysis):
    terms = set(sample_analysis.terms["term"])
    for token in terms:
        assert not any(ch in token for ch in "$\\{}`'"), token
    for junk in ("mathcal", "textbf", "textit", "mathbb", "emph", "alpha"):
        assert not any(junk in t.split() for t in terms), junk


@pytest.mark.slow
def test_bundled_files_name_the_themes_the_project_describes(sample_corpus, sample_minilm):
    """Self-supervised learning, long-tailed recognition and optimal transport are in the
    bundled files: each comes out as a topic name (or one part of a compound name), and
    that topic holds the papers about it; every name covers at least a quarter of its
    topic's papers, and the median name at least half.
    (fp32, as the default backend embeds a corpus this small on every CPU: bf16 vectors
    differ between CPUs with native bfloat16 and those that emulate it, enough to move
    Ward's cut on 90 papers; with native bf16 the self-supervised group came out as
    "contrastive learning", 6 of its 8 papers using the name, "self-supervised learning"
    4 of them.) The vectors are the run's one embedding of the sample (``sample_minilm``)."""
    import re

    import topics
    from topics.naming.acronyms import find_acronyms
    from topics.naming.coverage import name_parts
    from topics.naming.terms import GENERIC_PHRASES

    assert ":fp32:" in sample_minilm.fingerprint  # what the default backend gives 90 papers on every CPU
    analysis = topics.analyze(sample_corpus, embeddings=sample_minilm, random_state=0, cache=False)
    names = {t: n for t, n in analysis.model.topic_names_.items() if t != -1}
    docs = analysis.documents

    def topic_named(pattern: str) -> int:  # a name, or one part of a compound name, matches
        found = [t for t, n in names.items() if any(re.search(pattern, p) for p in name_parts(n))]
        assert found, f"no topic name matches {pattern!r}: {sorted(names.values())}"
        return found[0]

    themes = {
        r"^self-supervised learning$": r"^Self-supervised learning|self-supervised learning \(SSL\)",
        r"^long-tailed": r"long-tailed recognition",
        r"^optimal transport$": r"Optimal Transport \(OT\)|Sinkhorn",
    }
    for name, papers in themes.items():
        topic = topic_named(name)
        about = docs["abstract"].str.contains(papers, regex=True)
        assert about.sum() >= 2
        where = docs.loc[about, "topic"].value_counts()
        # the named topic holds more of the papers about its theme than any other topic
        assert where.get(topic, 0) == where.max(), f"{names[topic]!r} holds {where.get(topic, 0)} of {dict(where)}"
    # every name is written by a quarter of its papers, or marked as what related papers call it (issue 37)
    model = analysis.model
    covered = [c for t, c in model.topic_name_coverage_.items() if t != -1 and not model.topic_transferred_[t]]
    assert min(covered) >= 0.25 and np.median(covered) >= 0.5, model.topic_name_coverage_
    areas = [c for a, c in model.area_name_coverage_.items() if a != -1 and not model.area_transferred_[a]]
    assert min(areas) >= 0.25, model.area_name_coverage_
    acronyms = {a.lower() for a in find_acronyms(sample_corpus["abstract"])}
    for name in names.values():
        assert not set(name_parts(name)) & GENERIC_PHRASES
        assert not set(name.replace("/", " ").split()) & acronyms, f"{name!r} is a bare acronym the corpus defines"


def test_topics_fitted_on_landmarks_label_every_paper():
    from tests.conftest import make_theme_corpus

    from topics.clustering.model import TopicModel
    from topics.embedding.backends import HashingEmbedder

    corpus = make_theme_corpus(n_per_theme=50)
    truth = corpus["theme"].to_numpy()
    embeddings = HashingEmbedder().encode(corpus["abstract"].tolist())
    kwargs = dict(n_runs=3, random_state=0, n_jobs=1)
    fit = TopicModel(n_landmarks=120, **kwargs).fit(corpus, embeddings)
    assert len(fit.landmarks_) == 120 and fit.runs_.shape == (12, len(corpus))
    assert fit.params_["min_cluster_size"] == TopicModel(**kwargs)._resolve_params(120)["min_cluster_size"]
    assert fit.labels_.shape == fit.confidence_.shape == truth.shape
    assert fit.reduced_embeddings_.shape == (len(corpus), 5) and np.isfinite(fit.reduced_embeddings_).all()
    assert np.isin(fit.neighbors_[0], fit.landmarks_).all()
    rest = np.setdiff1d(np.arange(len(corpus)), fit.landmarks_)
    # 120 landmarks give a small-corpus size rule, so themes split into several topics; but
    # no topic mixes themes, and the papers never clustered join topics of their own theme
    assert (fit.labels_[rest] != -1).mean() > 0.9
    assert homogeneity_score(truth[rest], fit.labels_[rest]) > 0.95
    whole = TopicModel(n_landmarks=None, **kwargs).fit(corpus, embeddings)
    assert whole.landmarks_ is None and len(whole.runs_[0]) == len(corpus)
    # names come from the landmarks' texts; merging renumbers every paper, landmark or not
    first, second = [t for t in fit.topics if t != -1][:2]
    merged = fit.merge([first, second])
    assert (merged.labels_[np.isin(fit.labels_, [first, second])] == merged.labels_[fit.labels_ == first][0]).all()
    assert len(merged.topic_names_) == len(fit.topic_names_) - 1


def test_small_corpora_are_clustered_by_ward_and_larger_ones_by_the_consensus():
    from topics.clustering.model import SMALL_CORPUS, resolve_method

    assert resolve_method("auto", SMALL_CORPUS - 1) == "ward" and resolve_method("auto", SMALL_CORPUS) == "consensus"
    assert resolve_method("consensus", 50) == "consensus"
    with pytest.raises(ValueError, match="unknown method"):
        resolve_method("kmeans", 50)


def test_ward_topics_do_not_depend_on_the_seed(theme_corpus, theme_embeddings):
    a = TopicModel(method="ward", random_state=0).fit(theme_corpus, theme_embeddings)
    b = TopicModel(method="ward", random_state=7).fit(theme_corpus, theme_embeddings)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.params_["method"] == "ward" and a.outlier_share_ == 0.0
    assert set(a.topic_name_coverage_) == set(a.topic_names_)


def test_a_hierarchy_with_no_cut_falls_back_to_the_consensus(theme_corpus):
    """One paper unlike all the others and the rest alike: Ward's first split leaves a branch
    of one paper, so no partition has topics of the smallest size; the consensus runs instead."""
    rng = np.random.default_rng(0)
    embeddings = np.ones((len(theme_corpus), 16)) + 0.01 * rng.normal(size=(len(theme_corpus), 16))
    embeddings[0] = -1.0
    fit = TopicModel(random_state=0, n_runs=3, n_jobs=1).fit(theme_corpus, embeddings)
    assert fit.params_["method"] == "consensus" and len(set(fit.labels_) - {-1}) >= 2


def test_the_epochs_reach_every_run():
    from tests.conftest import make_theme_corpus

    from topics.clustering.model import TopicModel
    from topics.embedding.backends import HashingEmbedder

    corpus = make_theme_corpus(n_per_theme=30)
    embeddings = HashingEmbedder().encode(corpus["abstract"].tolist())
    kwargs = dict(n_runs=2, random_state=0, n_jobs=1, method="consensus")
    short, long = (TopicModel(n_epochs=e, **kwargs).fit(corpus, embeddings) for e in (5, 200))
    assert short.params_["n_epochs"] == 5 and long.params_["n_epochs"] == 200
    # the same seeds and graph: only the epochs differ, and the layouts (so the runs) with them
    assert short.seeds_ == long.seeds_
    assert not np.array_equal(short.reduced_embeddings_, long.reduced_embeddings_)


def test_extend_adds_documents_and_a_new_topic_and_leaves_the_model_as_it_was(theme_corpus, theme_embeddings, theme_model):
    before = {name: getattr(theme_model, name) for name in ("topic_names_", "topic_areas_", "topic_embeddings_")}
    n_old, fresh = len(theme_model.labels_), max(theme_model.topic_names_) + 1
    texts = theme_corpus["abstract"].tolist()[:5]
    topics = np.array([fresh, fresh, fresh, 0, 0])
    extended = theme_model.extend(texts, theme_embeddings[:5], topics)

    assert len(theme_model.labels_) == n_old and {k: getattr(theme_model, k) for k in before} == before
    assert extended.labels_.tolist() == theme_model.labels_.tolist() + topics.tolist()
    assert len(extended.embeddings_) == len(extended.texts_) == len(extended.confidence_) == n_old + 5
    assert extended.runs_.shape == (theme_model.runs_.shape[0], n_old + 5)
    assert len(extended.neighbors_[0]) == len(extended.reduced_embeddings_) == n_old + 5
    assert (extended.confidence_[n_old:n_old + 3] == 0).all()  # no clustering holds the new topic
    for t in theme_model.topic_names_:  # every fitted topic as it was
        assert extended.topic_names_[t] == theme_model.topic_names_[t]
        assert extended.topic_areas_[t] == theme_model.topic_areas_[t]
    assert extended.topic_names_[fresh] and extended.topic_terms_[fresh]
    assert 0 <= extended.topic_name_coverage_[fresh] <= 1 and fresh in extended.topic_mixed_
    assert extended.topic_areas_[fresh] in set(theme_model.topic_areas_.values())
    assert np.linalg.norm(extended.topic_embeddings_[fresh]) == pytest.approx(1, abs=1e-6)
    assert extended.bertopic_ is None
    with pytest.raises(ValueError, match="5 documents, 5 embeddings and 4 topics"):
        theme_model.extend(texts, theme_embeddings[:5], topics[:4])


@pytest.mark.parametrize("options", [
    dict(method="consensus"), dict(method="consensus", reduce_outliers=True), dict(method="consensus", n_landmarks=120),
], ids=["consensus", "reduce_outliers", "landmarks"])
def test_fit_labels_are_the_fits_labels_without_naming_anything(options, monkeypatch):
    """Issue 40: a stability refit reads only the topic of each paper; ``fit_labels`` gives
    exactly ``fit(...).labels_`` (rows in any order) without naming topics or grouping
    areas, and leaves the model unfitted."""
    from tests.conftest import make_theme_corpus
    from topics.clustering import model as model_module
    from topics.embedding.backends import HashingEmbedder

    corpus = make_theme_corpus(n_per_theme=50)
    corpus = corpus.iloc[np.random.default_rng(3).permutation(len(corpus))].reset_index(drop=True)
    embeddings = HashingEmbedder().encode(corpus["abstract"].tolist())
    kwargs = dict(n_runs=3, random_state=1, n_jobs=1, **options)
    expected = TopicModel(**kwargs).fit(corpus, embeddings).labels_

    def no_naming(*args, **kw):
        raise AssertionError("named the topics")

    monkeypatch.setattr(model_module, "describe_topics", no_naming)
    model = TopicModel(**kwargs)
    labels = model.fit_labels(corpus, embeddings)
    np.testing.assert_array_equal(labels, expected)
    assert len(set(labels.tolist()) - {-1}) >= 4
    assert not hasattr(model, "labels_") and not hasattr(model, "params_")
