"""Tables a user saves from a spreadsheet in another shape: the error says what to do."""

from __future__ import annotations

import pytest

from topics.io.corpus import CorpusError, read_corpus


@pytest.mark.parametrize("name, text, separator", [
    ("semicolons.csv", "abstract;year\nAn abstract about graphs.;2024\n", "';'"),
    ("tabs.csv", "abstract\tyear\nAn abstract about graphs.\t2024\n", "tabs"),
])
def test_a_table_of_another_separator_is_named_as_such(tmp_path, name, text, separator):
    """A table separated by semicolons (a spreadsheet's CSV in many locales) or tabs reads
    as one column; the error says which separator the header shows and what is read."""
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(CorpusError) as info:
        read_corpus([tmp_path / name])
    message = str(info.value)
    assert "no 'abstract' column" in message and f"separated by {separator}" in message
    assert "commas" in message and "\n" not in message


def test_a_table_without_the_column_keeps_the_plain_message(tmp_path):
    (tmp_path / "t.csv").write_text("summary,year\nAn abstract about graphs.,2024\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"no 'abstract' column \(columns: summary, year\)$"):
        read_corpus([tmp_path / "t.csv"])


def test_empty_rows_of_a_spreadsheet_export_are_skipped_not_refused(tmp_path, caplog):
    """A spreadsheet saved as CSV often ends in rows of bare separators (",,"): no abstract
    and no year. Empty abstracts are skipped with a warning; these rows were refused
    instead ("row 3: year '' is not a whole number"), the whole file with them."""
    (tmp_path / "t.csv").write_text('abstract,year\n"An abstract about graphs.",2024\n"Another, on proteins.",2025\n,\n,\n',
                                    encoding="utf-8")
    with caplog.at_level("WARNING", logger="topics.io.corpus"):
        corpus = read_corpus([tmp_path / "t.csv"])
    assert corpus["year"].tolist() == [2024, 2025]
    assert "2 rows with an empty abstract skipped" in caplog.text


def test_a_paper_without_a_year_is_named_as_such(tmp_path):
    (tmp_path / "t.csv").write_text('abstract,year\n"An abstract about graphs.",2024\n"Another, on proteins.",\n',
                                    encoding="utf-8")
    with pytest.raises(CorpusError, match=r"row 2: no year; every paper with an abstract needs one"):
        read_corpus([tmp_path / "t.csv"])


def test_one_empty_abstract_is_one_row(tmp_path, caplog):
    (tmp_path / "t.csv").write_text('abstract,year\n"An abstract about graphs.",2024\n,2025\n', encoding="utf-8")
    with caplog.at_level("WARNING", logger="topics.io.corpus"):
        read_corpus([tmp_path / "t.csv"])
    assert "1 row with an empty abstract skipped" in caplog.text
