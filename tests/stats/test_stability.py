import numpy as np
import pandas as pd
import pytest

import topics
from tests.conftest import make_theme_corpus
from topics.clustering.model import TopicModel
from topics.clustering.tables import document_table
from topics.embedding.embed import embed_texts
from topics.stats import narration
from topics.stats.comparison import TwoGroups
from topics.stats.stability import STABILITY_COLUMNS, labeling_stability, match_topics, refits_ran, seed_stability
from topics.stats.trends import compare_years


def test_match_topics_by_hand():
    reference = [0, 0, 0, 1, 1, -1, -1]
    other = [5, 5, -1, 5, 6, 6, -1]
    m = match_topics(reference, other).set_index("topic")
    # topic 0 = {0,1,2}; 5 = {0,1,3}: 2 shared of 4 -> 0.5; 6 = {4,5}: none
    assert m.loc[0, "match"] == 5 and m.loc[0, "jaccard"] == pytest.approx(0.5)
    # topic 1 = {3,4}; 5: 1 of 4 -> 0.25; 6 = {4,5}: 1 of 3 -> 1/3
    assert m.loc[1, "match"] == 6 and m.loc[1, "jaccard"] == pytest.approx(1 / 3)
    assert -1 not in m.index
    lost = match_topics([0, 0, 1], [-1, -1, 2]).set_index("topic")
    assert lost.loc[0, "match"] == -1 and lost.loc[0, "jaccard"] == 0.0  # only outliers there
    with pytest.raises(ValueError, match="different lengths"):
        match_topics([0, 1], [0])


@pytest.fixture(scope="module")
def trending():
    """Four well-separated themes; transport papers mostly from 2025, speech mostly from 2024."""
    corpus = make_theme_corpus(n_per_theme=20)
    skew = {"transport": 2025, "speech": 2024}
    for theme, year in skew.items():
        rows = corpus.index[corpus["theme"] == theme]
        corpus.loc[rows, "year"] = [year] * 18 + [2024 + 2025 - year] * 2
    embeddings = embed_texts(corpus["abstract"].tolist(), "lsa", cache=False)
    model = TopicModel(method="consensus", random_state=0).fit(corpus, embeddings)
    comparison = compare_years(document_table(model, corpus), 2024, 2025)
    return corpus, embeddings, model, comparison


def _without_full_refits(model, corpus, embeddings, comparison, monkeypatch):
    """:func:`seed_stability` over seeds 1 and 2 with ``TopicModel.fit`` forbidden (an
    AssertionError if it runs), and the table that full refits with those seeds give."""
    from sklearn.base import clone

    refits = [clone(model).set_params(random_state=s).fit(corpus, embeddings) for s in (1, 2)]
    expected = seed_stability(model, corpus, embeddings, comparison, seeds=(1, 2), refits=refits)

    def no_fit(self, *args, **kwargs):
        raise AssertionError("a full refit ran")

    monkeypatch.setattr(TopicModel, "fit", no_fit)
    return seed_stability(model, corpus, embeddings, comparison, seeds=(1, 2)), expected


def test_ward_topics_are_not_refitted_for_each_seed(trending, monkeypatch):
    """Ward's topics do not depend on the seed: the table is what refits would give, without them."""
    corpus, embeddings, _, _ = trending
    model = TopicModel(method="ward", random_state=0).fit(corpus, embeddings)
    comparison = compare_years(document_table(model, corpus), 2024, 2025)
    table, expected = _without_full_refits(model, corpus, embeddings, comparison, monkeypatch)
    pd.testing.assert_frame_equal(table, expected)
    assert {k: v for k, v in table.attrs.items() if k != "refitted"} == {k: v for k, v in expected.attrs.items() if k != "refitted"}
    assert table["stable"].all()
    # what was done is what is said: no refit ran, so no sentence claims refits or seeds they came back in
    assert table.attrs["refitted"] is False and expected.attrs["refitted"] is True
    assert refits_ran(expected) and not refits_ran(table)
    sentence = comparison.narrate(stability=table)[-1]
    assert sentence == (
        f"The topics do not depend on the seed, so no refit was needed: all {len(table)} topics "
        "and their changes are the same with any seed."
    )
    assert "Refitted" not in " ".join(comparison.narrate(stability=table))
    assert comparison.narrate(stability=expected)[-1].startswith("Refitted with 2 other seeds")


def test_clear_themes_and_their_changes_hold_in_every_seed(trending):
    corpus, embeddings, model, comparison = trending
    assert isinstance(comparison, TwoGroups)
    assert set(comparison.table["direction"]) >= {"grew", "shrank"}
    table = seed_stability(model, corpus, embeddings, comparison, seeds=(1, 2))
    assert list(table.columns) == STABILITY_COLUMNS
    assert list(table["topic"]) == [t for t in comparison.table["topic"] if t != -1]
    assert (table["n_seeds"] == 2).all() and (table["recovered"] == 2).all() and (table["unmatched"] == 0).all()
    assert table.attrs["refit_unmatched"] == [[], []]  # every refitted topic found its reference topic
    assert (table["mean_jaccard"] > 0.9).all() and table["stable"].all()
    grew = comparison.table.loc[comparison.table["direction"] == "grew", "topic"]
    assert (table.set_index("topic").loc[grew, "diff_pp_min"] > 0).all()  # it grew in every refit too
    text = comparison.narrate(stability=table)
    assert text == narration.narrate_years(comparison, stability=table)
    sentence = text[-1]
    n_clear = int(comparison.table["direction"].isin(["grew", "shrank"]).sum())
    assert sentence == (
        f"Refitted with 2 other seeds, {len(table)} of {len(table)} topics came back every time; "
        f"{n_clear} of the {n_clear} clear changes held in every seed."
    )


def _two_year_comparison(labels, years):
    documents = pd.DataFrame({"year": years, "topic": labels, "topic_label": [f"t{t}" for t in labels]})
    return compare_years(documents, 2024, 2025)


def test_topics_are_matched_one_to_one():
    # Two reference topics of two papers each; the refit joins them into one topic of four.
    # Each shares half of the joined topic's papers (Jaccard 0.5): as best matches both
    # would "come back", matched one to one only one does, and the other has no match.
    years = [2024, 2025] * 4
    reference = [0, 0, 1, 1, 2, 2, 2, 2]
    refit = [5, 5, 5, 5, 7, 7, 8, 8]
    corpus = pd.DataFrame({"year": years})
    assert match_topics(reference, refit).set_index("topic").loc[[0, 1], "match"].tolist() == [5, 5]
    table = labeling_stability(corpus, reference, _two_year_comparison(reference, years), [refit], seeds=[1]).set_index("topic")
    assert table.loc[[0, 1], "recovered"].sum() == 1 and table.loc[[0, 1], "unmatched"].sum() == 1
    assert table.loc[2, "recovered"] == 1 and table.loc[2, "mean_jaccard"] == pytest.approx(0.5)  # 7 or 8, one of them
    assert (table["recovered"] + table["unmatched"] == table["n_seeds"]).all()
    refit_unmatched = table.attrs["refit_unmatched"]
    assert len(refit_unmatched) == 1 and len(refit_unmatched[0]) == 1 and refit_unmatched[0][0] in (7, 8)


def test_centroids_break_a_tie_between_equal_matches():
    # Reference topic 0 splits into refit topics 3 (its 2024 papers) and 4 (its 2025
    # papers), each with a Jaccard index of 0.5. Its centroid is closer to topic 4's, so
    # with the embeddings it is matched to 4, whose share grew.
    years = [2024, 2024, 2025, 2025, 2024, 2025, 2024, 2025]
    reference = [0, 0, 0, 0, 1, 1, 1, 1]
    refit = [3, 3, 4, 4, 9, 9, 9, 9]
    embeddings = np.array([[0, 1]] * 2 + [[2, 0]] * 2 + [[1, 1]] * 4, dtype=float)
    corpus = pd.DataFrame({"year": years})
    comparison = _two_year_comparison(reference, years)
    table = labeling_stability(corpus, reference, comparison, [refit], seeds=[1], embeddings=embeddings).set_index("topic")
    assert table.loc[0, "recovered"] == 1 and table.loc[0, "diff_pp_min"] > 0  # topic 4: 2025 papers only
    assert table.attrs["refit_unmatched"] == [[3]]
    with pytest.raises(ValueError, match="3 embeddings for 8 documents"):
        labeling_stability(corpus, reference, comparison, [refit], seeds=[1], embeddings=embeddings[:3])


def test_a_change_that_does_not_hold_is_named(trending):
    _, _, _, comparison = trending
    clear = comparison.table[comparison.table["direction"] != "no clear change"].head(2)
    stability = pd.DataFrame(
        {
            "topic": clear["topic"].to_numpy(), "label": ["alpha", "beta"], "n_seeds": 3, "recovered": [3, 2],
            "mean_jaccard": [0.9, 0.5], "same_direction": [3, 1], "diff_pp_min": [1.0, -2.0], "diff_pp_max": [2.0, 3.0],
            "stable": [True, False],
        }
    )
    sentence = comparison.narrate(stability=stability)[-1]
    assert sentence.startswith("Refitted with 3 other seeds, 1 of 2 topics came back every time;")
    assert sentence.endswith("1 of the 2 clear changes held in every seed (not: beta).")


def test_validation(trending):
    corpus, embeddings, model, comparison = trending
    with pytest.raises(ValueError, match="at least one seed"):
        seed_stability(model, corpus, embeddings, comparison, seeds=())
    with pytest.raises(ValueError, match="min_jaccard"):
        seed_stability(model, corpus, embeddings, comparison, min_jaccard=0)


def test_analyze_and_the_report_carry_it(sample_corpus, tmp_path):
    analysis = topics.analyze(sample_corpus, embedder="lsa", random_state=0, cache=False, stability_seeds=[7])
    assert analysis.settings.stability_seeds == [7] and len(analysis.stability)
    assert set(analysis.stability["n_seeds"]) == {1}
    html = topics.render_report(analysis)
    assert "<th>holds in seeds</th>" in html and "refitted with random states 7" in html
    first = analysis.stability.iloc[0]
    assert f"<td>{first.same_direction}/1</td>" in html
    assert html.count("other seeds</div>") == len(analysis.stability)  # one line per topic card
    paths = topics.write_tables(analysis, tmp_path)
    assert pd.read_csv(paths["stability"]).shape[0] == len(analysis.stability)
    plain = topics.analyze(sample_corpus, embedder="lsa", random_state=0, cache=False)
    plain_html = topics.render_report(plain)
    assert plain.stability.empty and "holds in seeds" not in plain_html and "other seeds</div>" not in plain_html
    assert "stability" not in topics.write_tables(plain, tmp_path / "plain")
    np.testing.assert_array_equal(plain.model.labels_, analysis.model.labels_)  # the reference fit is untouched


def test_a_report_states_refits_only_when_refits_ran(trending, tmp_path):
    """Ward's hierarchy: the stability seeds run no refit, so no sentence, card or column claims one,
    also after the analysis is saved and loaded (where the table's attrs may be gone)."""
    corpus, embeddings, _, _ = trending
    analysis = topics.analyze(
        corpus, embeddings=embeddings, model=TopicModel(method="ward", random_state=0), cache=False, stability_seeds=[1, 2],
    )
    assert analysis.settings.params["method"] == "ward"
    loaded = topics.load(topics.save(analysis, tmp_path / "model"))
    for each in (analysis, loaded):
        html = topics.render_report(each)
        assert "came back" not in html and "other seeds</div>" not in html and "<th>holds in seeds</th>" not in html
        assert "Refitted with" not in html and "no refit was needed" in html


def test_refits_count_topics_without_naming_them(trending, monkeypatch):
    """Issue 40: a refit's topics are only aligned with the reference's, never named, so
    seed_stability fits labels only (``TopicModel.fit_labels``); the table is the one that
    full refits give."""
    corpus, embeddings, model, comparison = trending
    table, expected = _without_full_refits(model, corpus, embeddings, comparison, monkeypatch)
    pd.testing.assert_frame_equal(table, expected)
    assert table.attrs == expected.attrs and refits_ran(table)
