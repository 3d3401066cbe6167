import json
import logging

import pandas as pd
import pytest

from topics.io.corpus import CORPUS_COLUMNS, CorpusError, read_corpus, read_paper_list

A1 = "Optimal transport between measures is studied here. We prove a bound."
A2 = "Long-tailed recognition suffers from class imbalance. We rebalance logits."
A3 = "Self-supervised learning learns representations without labels."


def write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding))
    return path


@pytest.mark.parametrize("header", ["ICLR 2025 Papers", "ICLR 2025 论文列表"])
def test_both_header_languages(tmp_path, header):
    f = write(tmp_path / "list.txt", f"{header}\n\n{A1}\n\n{A2}\n")
    df = read_paper_list(f)
    assert list(df.columns) == CORPUS_COLUMNS
    assert df["year"].tolist() == [2025, 2025]
    assert df["venue"].tolist() == ["ICLR", "ICLR"]
    assert df["abstract"].tolist() == [A1, A2]
    assert df["position"].tolist() == [1, 2]
    assert df["source"].iloc[0] == "list.txt"


def test_crlf_bom_trailing_spaces_and_blank_runs(tmp_path):
    text = "\ufeffICLR 2024 Papers  \r\n\r\n\r\n" + A1 + "   \r\n \r\n\r\n\r\n" + A2 + "\t\r\n\r\n"
    df = read_paper_list(write(tmp_path / "x.txt", text))
    assert df["abstract"].tolist() == [A1, A2]
    assert df["year"].unique().tolist() == [2024]


def test_multiline_paragraph_is_one_abstract(tmp_path):
    df = read_paper_list(write(tmp_path / "x.txt", "ICLR 2024 Papers\n\nline one\nline two\n\n" + A3))
    assert df["abstract"].tolist() == ["line one line two", A3]


def test_doc_id_is_stable_and_text_derived(tmp_path):
    f = write(tmp_path / "x.txt", f"ICLR 2024 Papers\n\n{A1}\n\n{A2}\n")
    first, second = read_paper_list(f), read_paper_list(f)
    assert first["doc_id"].tolist() == second["doc_id"].tolist()
    moved = read_paper_list(write(tmp_path / "y.txt", f"ICLR 2024 Papers\n\n{A2}\n\n  {A1}\n"))
    assert set(moved["doc_id"]) == set(first["doc_id"])  # position and whitespace do not matter


def test_duplicates_are_dropped_with_a_warning(tmp_path, caplog):
    write(tmp_path / "a.txt", f"ICLR 2024 Papers\n\n{A1}\n\n{A2}\n")
    write(tmp_path / "b.txt", f"ICLR 2025 Papers\n\n{A1}  \n\n{A3}\n")
    with caplog.at_level(logging.WARNING, logger="topics.io.corpus"):
        df = read_corpus(tmp_path)
    assert df["abstract"].tolist() == [A1, A2, A3]
    assert any("duplicate abstract" in r.message and "b.txt" in r.message for r in caplog.records)


def test_tables_csv_jsonl_parquet_and_extra_columns(tmp_path):
    rows = [
        {"id": "p1", "title": "T1", "abstract": A1, "year": 2024, "venue": "ICLR", "status": "Oral"},
        {"id": "p2", "title": "T2", "abstract": A2, "year": 2025, "venue": "ICLR", "status": "Poster"},
    ]
    pd.DataFrame(rows).to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "t.jsonl").write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    pd.DataFrame(rows).to_parquet(tmp_path / "t.parquet")
    for name in ("t.csv", "t.jsonl", "t.parquet"):
        df = read_corpus(tmp_path / name)
        assert list(df.columns) == CORPUS_COLUMNS + ["status"], name
        assert df["doc_id"].tolist() == ["p1", "p2"]
        assert df["year"].tolist() == [2024, 2025]
        assert df["title"].tolist() == ["T1", "T2"]
        assert df["status"].tolist() == ["Oral", "Poster"]
        assert df["position"].tolist() == [1, 2]


def test_table_without_optional_columns(tmp_path):
    pd.DataFrame({"abstract": [A1, A3], "year": ["2024", "2025"]}).to_csv(tmp_path / "t.csv", index=False)
    df = read_corpus(tmp_path / "t.csv")
    assert df["title"].tolist() == ["", ""] and df["venue"].tolist() == ["", ""]
    assert df["doc_id"].str.startswith("h").all()


def test_folder_reads_every_supported_file(tmp_path):
    write(tmp_path / "a.txt", f"ICLR 2024 Papers\n\n{A1}\n")
    pd.DataFrame({"abstract": [A2], "year": [2025]}).to_csv(tmp_path / "b.csv", index=False)
    write(tmp_path / "notes.md", "# not a paper list")
    df = read_corpus(tmp_path)
    assert df["source"].tolist() == ["a.txt", "b.csv"]


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("empty.txt", "", "empty"),
        ("blank.txt", "\n\n  \n", "empty"),
        ("noyear.txt", "ICLR Papers\n\n" + A1, "names no year"),
        ("noabs.csv", "title,year\nT,2024\n", "no 'abstract' column"),
        ("noyear.csv", "abstract,title\nx,T\n", "no 'year' column"),
        ("badyear.csv", "abstract,year\nx,twenty\n", "not a whole number"),
        ("headeronly.txt", "ICLR 2024 Papers\n\n", "no abstracts"),
    ],
)
def test_bad_input_names_file_and_problem(tmp_path, name, content, message):
    f = write(tmp_path / name, content)
    with pytest.raises(CorpusError, match=message) as err:
        read_corpus(f)
    assert name in str(err.value)
    assert "\n" not in str(err.value)


def test_missing_file_and_non_utf8(tmp_path):
    with pytest.raises(CorpusError, match="nope.txt: not found"):
        read_corpus(tmp_path / "nope.txt")
    f = tmp_path / "latin.txt"
    f.write_bytes("ICLR 2024 Papers\n\nCaf\xe9 society.\n".encode("latin-1"))
    with pytest.raises(CorpusError, match="latin.txt: not UTF-8"):
        read_corpus(f)


def test_unsupported_suffix(tmp_path):
    f = write(tmp_path / "x.docx", "hello")
    with pytest.raises(CorpusError, match="unsupported type"):
        read_corpus(f)


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".csv.gz"])
def test_large_tables_are_read_in_chunks_with_file_row_numbers(tmp_path, monkeypatch, suffix):
    import topics.io.corpus as C

    monkeypatch.setattr(C, "TABLE_CHUNK_ROWS", 3)  # eight rows: three chunks
    rows = pd.DataFrame({
        "id": [f"p{i}" for i in range(8)],
        "abstract": [f"Abstract   number {i}\tabout  things." if i != 4 else "" for i in range(8)],
        "year": [2024, 2025] * 4,
        "extra": list("abcdefgh"),
    })
    path = tmp_path / f"t{suffix}"
    rows.to_parquet(path) if suffix == ".parquet" else rows.to_csv(path, index=False)
    df = read_corpus(path)
    assert df["doc_id"].tolist() == ["p0", "p1", "p2", "p3", "p5", "p6", "p7"]  # the empty row 5 skipped
    assert df["position"].tolist() == [1, 2, 3, 4, 6, 7, 8]  # row numbers of the file, across chunks
    assert df["abstract"].iloc[5] == "Abstract number 6 about things."
    assert df["extra"].tolist() == list("abcdfgh") and list(df.columns[: len(CORPUS_COLUMNS)]) == CORPUS_COLUMNS
    rows["year"] = rows["year"].astype(object)
    rows.loc[6, "year"] = "20x5" if suffix != ".parquet" else None
    rows.to_parquet(path) if suffix == ".parquet" else rows.to_csv(path, index=False)
    with pytest.raises(CorpusError, match=r"row 7: year .* is not a whole number" if suffix != ".parquet" else r"row 7: no year"):
        read_corpus(path)


def test_non_utf8_csv_is_named(tmp_path):
    f = tmp_path / "latin.csv"
    f.write_bytes("abstract,year\nCaf\xe9 society and its discontents.,2024\n".encode("latin-1"))
    with pytest.raises(CorpusError, match="latin.csv: not UTF-8 text"):
        read_corpus(f)


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
@pytest.mark.parametrize(
    "year, message",
    [
        (1e20, r"row 2: year '?1e\+?20'? is out of range"),
        (-5, r"row 2: year '?-5'? is out of range"),
        (1899, r"row 2: year '?1899'? is out of range"),
        (1999.5, r"row 2: year '?1999.5'? is not a whole number"),
        ("nineteen", r"row 2: year 'nineteen' is not a whole number"),
    ],
)
def test_implausible_years_name_file_row_and_value(tmp_path, suffix, year, message):
    rows = pd.DataFrame({"abstract": [A1, A2], "year": [2024, year]})
    if isinstance(year, str):
        rows = rows.astype({"year": str})  # a Parquet column holds one type
    path = tmp_path / f"t{suffix}"
    if suffix == ".csv":
        path.write_text(f"abstract,year\n{A1},2024\n{A2},{'1e20' if year == 1e20 else year}\n", encoding="utf-8")
    elif suffix == ".jsonl":
        path.write_text("\n".join(json.dumps(r) for r in rows.to_dict("records")), encoding="utf-8")
    else:
        rows.to_parquet(path)
    with pytest.raises(CorpusError, match=message) as err:
        read_corpus(path)
    assert f"file {path}" in str(err.value) and "whole numbers from 1900 to" in str(err.value)
    assert "\n" not in str(err.value)


def test_a_plausible_year_far_back_is_read(tmp_path):
    path = write(tmp_path / "t.csv", f"abstract,year\n{A1},1999\n{A2},2025\n")
    assert read_corpus(path)["year"].tolist() == [1999, 2025]


def test_paper_list_header_year_is_checked(tmp_path):
    f = write(tmp_path / "x.txt", f"ICLR 2099 Papers\n\n{A1}\n")
    with pytest.raises(CorpusError, match=r"x.txt: header 'ICLR 2099 Papers' on line 1: year 2099 is out of range"):
        read_corpus(f)


def test_broken_jsonl_names_the_line(tmp_path):
    f = write(tmp_path / "t.jsonl", json.dumps({"abstract": A1, "year": 2024}) + "\n\n" + '{"abstract": "x", "year": 2025\n')
    with pytest.raises(CorpusError, match=r"t.jsonl: line 3: not valid JSON"):
        read_corpus(f)
    f = write(tmp_path / "u.jsonl", json.dumps({"abstract": A1, "year": 2024}) + "\n[1, 2]\n")
    with pytest.raises(CorpusError, match=r"u.jsonl: line 2: a JSON list, expected an object"):
        read_corpus(f)


def test_unsupported_files_in_a_folder_are_named(tmp_path, caplog):
    write(tmp_path / "a.txt", f"ICLR 2024 Papers\n\n{A1}\n")
    write(tmp_path / "notes.md", "# not a paper list")
    write(tmp_path / "data.xlsx", "not read")
    with caplog.at_level(logging.WARNING, logger="topics.io.corpus"):
        read_corpus(tmp_path)
    skipped = [r.message for r in caplog.records if "skipped" in r.message]
    assert len(skipped) == 2 and any("data.xlsx" in m for m in skipped) and any("notes.md" in m for m in skipped)


def test_a_very_long_abstract_is_warned_about(tmp_path, caplog):
    import topics.io.corpus as C

    long = "word " * (C.LONG_ABSTRACT_CHARS // 5 + 10)
    write(tmp_path / "t.csv", f"abstract,year\n{A1},2024\n{long},2025\n")
    with caplog.at_level(logging.WARNING, logger="topics.io.corpus"):
        df = read_corpus(tmp_path / "t.csv")
    assert len(df) == 2
    warned = [r.message for r in caplog.records if "characters" in r.message]
    assert len(warned) == 1 and "t.csv: 1 abstract over 20,000 characters (the longest, #2" in warned[0]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="topics.io.corpus"):
        read_corpus(write(tmp_path / "short.csv", f"abstract,year\n{A1},2024\n"))
    assert not [r for r in caplog.records if "characters" in r.message]


def test_a_file_given_twice_gives_one_warning(tmp_path, caplog):
    from topics.io.datasets import iclr_sample

    iclr_sample()[["abstract", "year"]].to_csv(tmp_path / "a.csv", index=False)
    with caplog.at_level(logging.WARNING):
        corpus = read_corpus([tmp_path / "a.csv", tmp_path / "a.csv"])
    assert len(corpus) == 90
    warnings = [r.getMessage() for r in caplog.records if "duplicate" in r.getMessage()]
    assert warnings == ["90 duplicate abstracts dropped: e.g. a.csv #1 repeats a.csv #1"]
