import pandas as pd
import pytest

from topics.cli import main


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
    assert topics.columns.tolist() == ["topic", "label", "area", "area_label", "n_docs", "share", "mean_confidence",
                                       "top_terms", "typical_titles"]
    assert topics["n_docs"].sum() == 90
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
    assert main(["report", "--backend", "lsa", "-q", "-o", str(tmp_path / "r.html"), "--tables", str(tmp_path / "t")]) == 0
    for name in ("documents.csv", "topics.csv", "comparison.csv", "areas.csv", "area_comparison.csv"):
        assert (tmp_path / "t" / name).read_bytes() == (out / "t" / name).read_bytes(), name


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
        ({"one.txt": "ICLR 2024 Papers\n\n" + "\n\n".join(f"Abstract number {i} about things." for i in range(12))}, ["one.txt"], "need exactly two years"),
        ({}, ["--stability-seeds", "-1"], "--stability-seeds must be 0 or more"),
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


def test_stability_seeds_add_a_table_and_a_summary_sentence(tmp_path, capsys):
    args = ["report", "--backend", "lsa", "-q", "--stability-seeds", "2", "-o", str(tmp_path / "r.html"), "--tables", str(tmp_path / "t")]
    assert main(args) == 0
    table = pd.read_csv(tmp_path / "t" / "stability.csv")
    assert list(table.columns) == [
        "topic", "label", "n_seeds", "recovered", "mean_jaccard", "same_direction", "diff_pp_min", "diff_pp_max", "stable",
    ]
    assert (table["n_seeds"] == 2).all() and table["recovered"].between(0, 2).all()
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
def test_real_minilm_end_to_end(tmp_path):
    cache = tmp_path / "cache"
    args = ["report", "-q", "--cache-dir", str(cache), "-o", str(tmp_path / "r.html"), "--tables", str(tmp_path / "t")]
    assert main(args) == 0
    assert len(list(cache.glob("*.npz"))) == 1
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


@pytest.mark.parametrize("how", ["flag", "env"])
def test_dask_scheduler_from_flag_or_environment(tmp_path, monkeypatch, capsys, how):
    # The corpus-fitted LSA backend cannot be split over workers: the scheduler was seen.
    monkeypatch.chdir(tmp_path)
    args = ["--dask-scheduler", "tcp://127.0.0.1:9"] if how == "flag" else []
    monkeypatch.setenv("TOPICS_DASK_SCHEDULER", "tcp://127.0.0.1:9" if how == "env" else "")
    assert main(["report", "--backend", "lsa", "-q", *args]) == 2
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
