"""Tables written into a folder that holds an earlier run's."""

from __future__ import annotations

import topics
from topics.pipeline import TABLE_NAMES, write_tables
from tests.test_update import _embed, first_year  # noqa: F401  (fixture)


def test_tables_of_an_earlier_run_left_beside_these_are_named(sample_analysis, first_year, tmp_path, caplog):  # noqa: F811
    """A one-year analysis writes no comparison.csv: written into the folder of an earlier
    two-year run, the old comparison.csv stayed beside the new tables unannounced, as if it
    were this run's. It is kept (it may be the user's), with a warning naming it."""
    write_tables(sample_analysis, tmp_path)
    old = (tmp_path / "comparison.csv").read_bytes()
    with caplog.at_level("WARNING", logger="topics.pipeline"):
        written = write_tables(first_year, tmp_path)
    assert "comparison" not in written and (tmp_path / "comparison.csv").read_bytes() == old
    warned = " ".join(r.getMessage() for r in caplog.records)
    assert "comparison.csv" in warned and "area_comparison.csv" in warned and "earlier" in warned
    assert "documents.csv" not in warned


def test_no_warning_where_the_folder_holds_only_this_runs_tables(sample_analysis, tmp_path, caplog):
    (tmp_path / "notes.csv").write_text("mine")
    with caplog.at_level("WARNING", logger="topics.pipeline"):
        written = write_tables(sample_analysis, tmp_path)
        write_tables(sample_analysis, tmp_path)
    assert not caplog.records and set(written) <= set(TABLE_NAMES)
