"""The whole analysis in one call (topics.pipeline): analyze, write_tables, embedding_texts
and the Analysis it returns."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

import topics
from topics.clustering.model import TopicModel
from topics.embedding.embed import embed_texts
from topics.pipeline import Settings, analyze, embedding_texts, timed, write_tables


def test_titles_are_embedded_with_the_abstract():
    corpus = pd.DataFrame({"title": ["Optimal Transport.", "", None], "abstract": ["We use $x$ OT.", "No title.", "Missing."]})
    assert embedding_texts(corpus) == ["Optimal Transport. We use OT.", "No title.", "Missing."]
    assert embedding_texts(corpus, titles=False) == ["We use OT.", "No title.", "Missing."]


def test_stability_seeds_need_two_years(trend_corpus):
    with pytest.raises(ValueError, match="two-year comparisons only"):
        topics.analyze(trend_corpus, embedder="lsa", cache=False, stability_seeds=[1])


def test_embedding_texts_without_a_title_column_are_the_cleaned_abstracts():
    corpus = pd.DataFrame({"abstract": [r"See \textbf{this} at https://example.org now.", "Plain."]})
    assert embedding_texts(corpus) == embedding_texts(corpus, titles=False) == ["See this at now.", "Plain."]


class _NeverEmbeds:
    """An embedder (and a model) that fails the test if analyze gets as far as using it."""

    name = "never"

    def fingerprint(self):
        return None

    def encode(self, texts, *, show_progress=False):
        raise AssertionError("analyze embedded before checking its arguments")

    def fit(self, corpus, embeddings):
        raise AssertionError("analyze fitted before checking its arguments")


def test_wrong_number_of_embeddings_fails_before_fitting(sample_corpus):
    with pytest.raises(ValueError, match=f"3 embeddings for {len(sample_corpus)} documents"):
        analyze(sample_corpus, embeddings=np.zeros((3, 8), dtype=np.float32), model=_NeverEmbeds())


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"groups": [2024, 2025]}, "with by='year' the years are the groups"),
        ({"years": [2024, 2030]}, r"year 2030 is not in the corpus \(years present: 2024, 2025\)"),
        ({"years": [2024]}, "need at least two years to compare"),
        ({"by": "status"}, "no column 'status' to group by"),
        ({"by": "venue"}, r"column 'venue' has 1 value \(ICLR\); need at least two groups"),
    ],
)
def test_bad_grouping_fails_before_embedding(sample_corpus, kwargs, message):
    with pytest.raises(ValueError, match=message):
        analyze(sample_corpus, embedder=_NeverEmbeds(), model=_NeverEmbeds(), **kwargs)


def test_a_given_model_keeps_its_own_seed(sample_corpus, sample_analysis):
    model = TopicModel(random_state=5)
    analysis = analyze(sample_corpus, embeddings=sample_analysis.embeddings, model=model, random_state=0)
    assert analysis.model is model and model.params_["random_state"] == 5
    assert analysis.settings.random_state == 5  # what the methods section states
    assert analysis.settings.embedding == "precomputed embeddings"
    assert analysis.coords.shape == (len(sample_corpus), 2)
    assert sample_analysis.settings.random_state == 0


def test_a_given_model_without_a_seed_takes_the_analysis_seed_once(sample_corpus, sample_analysis):
    """The seed is resolved once, at the top: a model given without its own takes
    ``random_state``, and the fit, the map and the report state that one."""
    model = TopicModel(n_runs=4)
    analysis = analyze(sample_corpus, embeddings=sample_analysis.embeddings, model=model, random_state=3)
    assert model.random_state == 3 and model.params_["random_state"] == 3 and model.seeds_ == list(range(12, 16))
    assert analysis.settings.random_state == 3


def test_settings_are_typed_and_frozen_and_save_as_the_old_flat_dict(sample_analysis):
    settings = sample_analysis.settings
    assert isinstance(settings, Settings) and settings.by == "year" and settings.params["n_runs"] >= 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.random_state = 1
    flat = settings.as_dict()  # the keys and their order of the 25-key dict it replaced
    assert list(flat)[:20] == [
        "embedding", "random_state", "include_outliers", "n_documents", "documents_per_year", "outlier_share",
        "core_outlier_share", "low_confidence_share", "n_areas", "seeds", "n_landmarks", "reduce_outliers",
        "stability_seeds", "by", "groups", "years", "documents_per_group", "documents_without_group",
        "groups_per_year", "groups_year_p_value",
    ]
    assert list(flat)[20:] == [k for k in sample_analysis.model.params_ if k != "random_state"]
    assert Settings.from_dict(flat) == settings and Settings.from_dict(flat).as_dict() == flat
    updated = dataclasses.replace(settings, update={"n_documents": 3})
    assert list(updated.as_dict())[-1] == "update" and Settings.from_dict(updated.as_dict()) == updated


def test_timed_adds_the_seconds_of_each_stage_even_when_it_fails():
    timings = {}
    with timed(timings, "a"):
        pass
    with pytest.raises(RuntimeError), timed(timings, "b"):
        raise RuntimeError("stage failed")
    first = timings["a"]
    with timed(timings, "a"):
        pass
    assert set(timings) == {"a", "b"} and timings["a"] >= first >= 0


def test_write_tables_for_two_years(sample_analysis, tmp_path):
    paths = write_tables(sample_analysis, tmp_path / "t")
    names = {"documents", "topics", "comparison", "prevalence", "areas", "area_comparison"}
    assert set(paths) == names  # no stability, bursts or themes in this analysis
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == sorted(f"{n}.csv" for n in names)
    assert all(paths[n] == tmp_path / "t" / f"{n}.csv" for n in names)
    comparison = pd.read_csv(paths["comparison"])
    pd.testing.assert_frame_equal(comparison, sample_analysis.comparison.table.reset_index(drop=True),
                                  check_dtype=False, check_exact=False, rtol=1e-9)
    by_area = pd.read_csv(paths["area_comparison"])
    assert by_area.columns[0] == "area"
    assert by_area["area"].tolist() == sample_analysis.area_comparison.table["topic"].tolist()
    documents = pd.read_csv(paths["documents"])
    assert len(documents) == len(sample_analysis.corpus)
    assert documents["topic"].tolist() == sample_analysis.documents["topic"].tolist()
    assert paths["documents"].read_bytes().count(b"\r\n") == 0  # the same bytes on every platform


def test_write_tables_adds_the_grouping_column(status_analysis, tmp_path):
    paths = write_tables(status_analysis, tmp_path)
    documents = pd.read_csv(paths["documents"])
    assert documents.columns[-1] == "status"
    assert documents["status"].tolist() == status_analysis.documents["status"].tolist()


@pytest.mark.parametrize(
    "name, kind, by, groups",
    [
        ("sample_analysis", "two_groups", "year", [2024, 2025]),
        ("trend_analysis", "trend", "year", [2021, 2022, 2023, 2024, 2025]),
        ("status_analysis", "groups", "status", ["Oral", "Poster", "Spotlight"]),
    ],
)
def test_analysis_kind_by_and_groups_mirror_the_comparison(request, name, kind, by, groups):
    analysis = request.getfixturevalue(name)
    comparison = analysis.comparison
    assert (analysis.kind, analysis.by, analysis.groups) == (comparison.kind, comparison.by, list(comparison.groups))
    assert (analysis.kind, analysis.by, analysis.groups) == (kind, by, groups)
    assert analysis.settings.by == by and analysis.settings.groups == groups


def test_groups_per_year_and_their_independence_test(status_analysis):
    from scipy.stats import chi2_contingency

    settings = status_analysis.settings
    table = pd.crosstab(status_analysis.corpus["year"], status_analysis.corpus["status"])[["Oral", "Poster", "Spotlight"]]
    assert settings.groups_per_year == {int(y): {g: int(row[g]) for g in table.columns} for y, row in table.iterrows()}
    assert settings.groups_year_p_value == pytest.approx(chi2_contingency(table.to_numpy(), correction=False).pvalue)
    assert settings.documents_per_group == table.sum().to_dict()
    assert settings.documents_without_group == 0


def test_a_stray_year_is_refused_before_embedding(sample_corpus):
    stray = sample_corpus.iloc[:1].assign(doc_id="stray", year=1999, abstract="A paper from another era.")
    corpus = pd.concat([sample_corpus, stray], ignore_index=True)
    with pytest.raises(ValueError, match=r"year 1999 has 1 of the 91 papers .* --years 2024 2025"):
        analyze(corpus, embedder=_NeverEmbeds(), model=_NeverEmbeds())


def test_grouping_by_a_column_unique_per_paper_fails_before_embedding(sample_corpus):
    with pytest.raises(ValueError, match="column 'doc_id' has a different value for each of its 90 papers"):
        analyze(sample_corpus, embedder=_NeverEmbeds(), model=_NeverEmbeds(), by="doc_id")


def test_a_tiny_group_is_named_in_a_warning(trend_corpus, caplog):
    import logging

    corpus = trend_corpus.copy()
    corpus["track"] = ["main"] * (len(corpus) - 2) + ["workshop"] * 2
    with caplog.at_level(logging.WARNING, logger="topics.stats.groups"), pytest.raises(AssertionError, match="embedded"):
        analyze(corpus, embedder=_NeverEmbeds(), model=_NeverEmbeds(), by="track")
    assert any("track workshop has only 2 of the" in r.message for r in caplog.records)


def test_tables_are_safe_to_open_in_a_spreadsheet(theme_corpus, tmp_path):
    import csv

    payloads = ['=HYPERLINK("http://evil.example","click")', "+cmd|' /C calc'!A0", "@SUM(1+1)", "-2+3+cmd|' /C calc'!A0",
                "\tTabbed", "A plain title"]  # a carriage return: see the next test
    corpus = theme_corpus.assign(title=[payloads[i % len(payloads)] for i in range(len(theme_corpus))])
    analysis = analyze(corpus, embedder="lsa", cache=False, themes=["wasserstein transport"])
    paths = write_tables(analysis, tmp_path)
    assert {"documents", "topics", "theme_papers"} <= set(paths)
    for path in paths.values():
        with path.open(newline="", encoding="utf-8") as handle:
            for row in csv.reader(handle):
                for cell in row:
                    if cell.startswith(("=", "+", "-", "@", "\t", "\r")):
                        float(cell)  # only a number may start so (a negative number stays a number)
    documents = pd.read_csv(paths["documents"], keep_default_na=False)
    expected = ["'" + t if t != "A plain title" else t for t in analysis.documents["title"]]
    assert documents["title"].tolist() == expected
    members = pd.read_csv(paths["theme_papers"], keep_default_na=False)
    assert members["title"].str.startswith("'").sum() == (analysis.themes.members["title"] != "A plain title").sum()
    # the analysis keeps the raw values, and numbers stay numbers
    assert analysis.documents["title"].tolist() == corpus["title"].tolist()
    comparison = pd.read_csv(paths["comparison"])
    for column in ("diff_pp", "ci_low_pp", "z", "q_value"):
        assert pd.api.types.is_numeric_dtype(comparison[column])
        assert comparison[column].tolist() == pytest.approx(analysis.comparison.table[column].tolist())


def test_spreadsheet_safe_quotes_text_cells_only():
    from topics.pipeline import spreadsheet_safe

    table = pd.DataFrame({"title": ["=1+1", "\rx", "\ty", "-cmd", "@a", "+b", "plain", None], "diff_pp": [-1.5, 2.0] * 4,
                          "n": [-3, 4] * 4, "group": [-1, "=g"] * 4})
    safe = spreadsheet_safe(table)
    assert safe["title"].tolist()[:7] == ["'=1+1", "'\rx", "'\ty", "'-cmd", "'@a", "'+b", "plain"]
    assert pd.isna(safe["title"].iloc[7])
    assert safe["diff_pp"].tolist() == [-1.5, 2.0] * 4 and safe["n"].tolist() == [-3, 4] * 4
    assert safe["group"].tolist() == [-1, "'=g"] * 4  # a number in a text column is still a number
    assert table["title"].iloc[0] == "=1+1"  # the table itself keeps its raw values
    assert spreadsheet_safe(table.rename(columns={"n": "=n"})).columns.tolist() == ["title", "diff_pp", "'=n", "group"]


def test_a_failed_write_leaves_no_partial_tables(sample_analysis, tmp_path, monkeypatch):
    calls = []
    original = pd.DataFrame.to_csv

    def fail_third(self, path, *args, **kwargs):
        calls.append(path)
        if len(calls) == 3:
            raise PermissionError(13, "Permission denied", str(path))
        return original(self, path, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_csv", fail_third)
    with pytest.raises(PermissionError):
        write_tables(sample_analysis, tmp_path / "t")
    assert list((tmp_path / "t").iterdir()) == []


def test_a_corpus_of_one_year_is_described_without_a_comparison(theme_corpus, tmp_path, caplog):
    one_year = theme_corpus[theme_corpus["year"] == 2024].reset_index(drop=True)
    with caplog.at_level("INFO", logger="topics.pipeline"):
        analysis = analyze(one_year, embedder="hashing", random_state=0, cache=False)
    assert "the corpus has one year (2024)" in caplog.text and "nothing to compare" in caplog.text
    assert analysis.kind == "one_group" and analysis.groups == [2024] and analysis.settings.years == [2024]
    table = analysis.comparison.table
    assert set(table["topic"]) == set(analysis.topics["topic"]) - {-1}
    assert table["n_2024"].sum() == analysis.comparison.sizes[2024] == int((analysis.documents["topic"] != -1).sum())
    paths = write_tables(analysis, tmp_path / "t")
    assert "comparison" not in paths and "area_comparison" not in paths and {"documents", "topics", "prevalence"} <= set(paths)
    html = topics.render_report(analysis)
    assert "What are the topics of 2024?" in html and 'id="comparison"' not in html and "nothing to compare" in html
    assert "<title>TEST 2024: topics</title>" in html
    with pytest.raises(ValueError, match="need at least two years to compare"):  # chosen years still need two
        analyze(theme_corpus, embedder=_NeverEmbeds(), model=_NeverEmbeds(), years=[2024])


def test_a_small_corpus_is_embedded_in_exact_fp32_on_any_cpu(sample_corpus, monkeypatch):
    """With native bfloat16 the default backend runs bf16, but not on a corpus under
    EXACT_BELOW papers: the same 90 abstracts then give the same topics on every CPU."""
    from topics.embedding import backends

    seen = []

    def encode(self, texts, *, show_progress=False):
        seen.append(self.precision)
        return np.random.default_rng(len(texts)).normal(size=(len(texts), 16)).astype(np.float32)

    monkeypatch.setattr(backends, "native_bf16", lambda: True)
    monkeypatch.setattr(backends.SentenceTransformerEmbedder, "encode", encode)
    analysis = analyze(sample_corpus, embedder="minilm", cache=False, random_state=0)
    assert seen == ["fp32"] and "(fp32" in analysis.settings.embedding


@pytest.fixture(scope="module")
def planted():
    from tests.conftest import make_planted_years

    corpus = make_planted_years()
    embeddings = embed_texts(embedding_texts(corpus), "hashing", cache=False)
    return corpus, embeddings


def test_a_sub_theme_of_the_last_year_is_an_emerging_sub_topic_and_its_phrase_rises(planted):
    from tests.conftest import FLOW

    corpus, embeddings = planted
    analysis = topics.analyze(corpus, embeddings=embeddings, random_state=0)
    themes = corpus.set_index("doc_id")["theme"]
    assert len(analysis.emerging) == 1  # the evenly spread "pooling" sub-theme is not emerging
    found = analysis.emerging.iloc[0]
    members = themes.loc[list(found["doc_ids"])]
    flow = themes.index[themes == "transport flow"]
    assert (members == "transport flow").mean() >= 0.9 and len(set(found["doc_ids"]) & set(flow)) >= 0.9 * len(flow)
    assert set(found["name"].split()) <= set(FLOW) and found["name"] != found["topic_label"]
    assert analysis.rising["phrase"].iloc[0] == "flow matching"
    assert not analysis.rising["phrase"].str.contains("pooling|coarsening").any()


def test_what_is_new_is_left_out_for_other_groupings(planted):
    corpus, embeddings = planted
    corpus = corpus.assign(status=np.where(np.arange(len(corpus)) % 2, "Oral", "Poster"))
    analysis = topics.analyze(corpus, embeddings=embeddings, random_state=0, by="status")
    assert analysis.emerging.empty and analysis.rising.empty


def test_what_is_new_is_written_with_the_tables(planted, tmp_path):
    corpus, embeddings = planted
    analysis = topics.analyze(corpus, embeddings=embeddings, random_state=0)
    written = write_tables(analysis, tmp_path)
    emerging = pd.read_csv(written["emerging"])
    assert emerging["doc_ids"].iloc[0].split(";") == [str(i) for i in analysis.emerging["doc_ids"].iloc[0]]
    assert pd.read_csv(written["rising"])["phrase"].iloc[0] == "flow matching"


def _tables(analysis, directory) -> dict[str, str]:
    """The CSV tables ``write_tables`` writes, as text; documents.csv in doc_id order (it
    lists the papers in the caller's row order)."""
    out = {}
    for name, path in topics.write_tables(analysis, directory).items():
        text = path.read_text()
        if name == "documents":
            text = pd.read_csv(path).sort_values("doc_id").to_csv(index=False)
        out[name] = text
    return out


def _shuffled_runs(files, tmp_path, **options):
    """The same papers read from ``files`` in their order, and in the reverse order with
    the rows shuffled: the tables of an analysis of each (``n_runs`` set on a new model;
    ``caches``, the embedding cache of each, default none)."""
    first = topics.read_corpus(files)
    second = topics.read_corpus(files[::-1])
    second = second.iloc[np.random.default_rng(5).permutation(len(second))].reset_index(drop=True)
    assert not first["doc_id"].equals(second["doc_id"])
    n_runs = options.pop("n_runs", 40)
    caches = options.pop("caches", (False, False))
    return [
        _tables(topics.analyze(c, model=TopicModel(n_runs=n_runs, random_state=0), cache=cache, **options), tmp_path / name)
        for name, c, cache in (("a", first, caches[0]), ("b", second, caches[1]))
    ]


@pytest.fixture(scope="module")
def full_300(tmp_path_factory):
    """300 papers of the full ICLR lists, in two files (one per year)."""
    full = topics.io.datasets.iclr_full()
    sample = full.iloc[np.sort(np.random.default_rng(0).choice(len(full), 300, replace=False))]
    folder = tmp_path_factory.mktemp("full_300")
    files = []
    for year, part in sample.groupby("year"):
        files.append(folder / f"{year}.csv")
        part[["title", "abstract", "year"]].to_csv(files[-1], index=False)
    return files


@pytest.mark.parametrize("backend", ["lsa", "hashing"])
def test_the_order_of_rows_and_files_changes_no_table(full_300, tmp_path, backend):
    a, b = _shuffled_runs(full_300, tmp_path, embedder=backend, n_runs=8, themes=["reinforcement learning"])
    assert a.keys() == b.keys() and "themes" in a
    for name in a:
        assert a[name] == b[name], name


@pytest.mark.slow
def test_the_order_of_rows_and_files_changes_no_table_with_minilm(tmp_path, sample_minilm_cache):
    """The papers in the files' order read the run's one embedding of the sample from a
    cache; the shuffled ones are embedded here, in their order."""
    files = sorted(topics.io.datasets.dataset_path("sample").glob("*.txt"))
    assert len(files) == 5
    a, b = _shuffled_runs(files, tmp_path, embedder="minilm", caches=(sample_minilm_cache, False))
    for name in a:
        assert a[name] == b[name], name


def test_a_corpus_of_ten_papers_is_warned_about(theme_corpus, caplog):
    import logging

    small = theme_corpus.groupby("year").head(5)
    assert len(small) == 10
    with caplog.at_level(logging.WARNING):
        analyze(small, embedder="hashing", cache=False, model=TopicModel(n_runs=4, random_state=0))
    assert any(r.getMessage().startswith("the corpus has only 10 papers") for r in caplog.records)


def test_settings_is_exported():
    """``Analysis.settings`` is a public type, so ``topics`` exports it like ``Analysis``."""
    import topics
    from topics.pipeline import Settings

    assert topics.Settings is Settings and "Settings" in topics.__all__
