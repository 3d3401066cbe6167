"""What a first daily user of the command line ran into: each case fails before its fix."""

from __future__ import annotations

import pytest

from topics.cli import main


@pytest.fixture(scope="module")
def saved_sample(tmp_path_factory):
    """The bundled sample fitted with a per-text weightless backend and saved."""
    out = tmp_path_factory.mktemp("saved")
    assert main(["report", "--backend", "hashing", "--no-cache", "-q", "-o", str(out / "r.html"),
                 "--save-model", str(out / "model")]) == 0
    return out / "model"


def test_update_refuses_papers_it_holds_before_embedding_them(saved_sample, tmp_path, monkeypatch, capsys):
    """Papers the analysis holds already are refused before the embedding, which for
    thousands of abstracts with MiniLM takes minutes."""
    from topics.embedding import embed
    from topics.io.datasets import dataset_path

    def no_embedding(*args, **kwargs):
        raise AssertionError("embedded papers that are refused")

    monkeypatch.setattr(embed, "embed_texts", no_embedding)
    capsys.readouterr()
    assert main(["update", str(saved_sample), str(dataset_path("sample")), "-q", "-o", str(tmp_path / "u.html")]) == 2
    err = capsys.readouterr().err
    assert "of the new papers are in the analysis already" in err and err.count("\n") == 1
    assert not (tmp_path / "u.html").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["report", "--load-model", "{file}", "-o", "{tmp}/r.html"],
        ["assign", "{file}", "{file}"],
        ["update", "{file}", "{file}", "-o", "{tmp}/r.html"],
    ],
)
def test_a_file_where_a_saved_analysis_belongs_is_called_a_file(tmp_path, capsys, argv):
    """A table given where the saved analysis's folder belongs: the error says it is a
    file, not that nothing is there, and does not advise saving an analysis onto it."""
    papers = tmp_path / "papers.csv"
    papers.write_text("abstract,year\nAn abstract about graphs.,2024\n", encoding="utf-8")
    assert main([a.format(file=papers, tmp=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err
    assert f"{papers}: is a file, not a folder" in err and "no such" not in err and f"--save-model {papers}" not in err
    assert err.count("\n") == 1 and papers.read_text(encoding="utf-8").startswith("abstract,year")
    assert not (tmp_path / "r.html").exists()


def test_a_folder_given_as_the_themes_file_is_called_a_folder(tmp_path, capsys):
    assert main(["report", "--backend", "hashing", "-q", "--themes", str(tmp_path), "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert f"--themes {tmp_path}: is a folder; give a TOML or YAML file" in err and "no such" not in err


def _synopses() -> dict[str, str]:
    """The ``text`` blocks of docs/cli.md, by the command they start with."""
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "cli.md").read_text(encoding="utf-8")
    out: dict[str, str] = {}
    for block in re.findall(r"```text\n(.*?)```", page, flags=re.S):
        command = block.split()[1]
        out[command] = out.get(command, "") + block
    return out


@pytest.mark.parametrize("command", ["report", "assign", "update", "evaluate"])
def test_the_cli_page_synopsis_names_every_flag(command):
    """docs/cli.md's synopsis of each command lists every flag its parser takes."""
    import argparse
    import re

    from topics.cli import build_parser

    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    written = set(re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", _synopses()[command]))
    missing = [a.option_strings[-1] for a in action.choices[command]._actions
               if a.option_strings and a.dest != "help" and not set(a.option_strings) & written]
    assert not missing, f"topics {command}: the synopsis lacks {missing}"


def test_the_default_report_path_of_two_years_is_the_one_the_help_gives(tmp_path, monkeypatch, capsys):
    """Without -o, two years of a table of venue "Test" go to reports/test-2022-vs-2024.html,
    as the help's pattern says; the bundled files' name is only their instance."""
    from tests.conftest import make_theme_corpus

    monkeypatch.chdir(tmp_path)
    corpus = make_theme_corpus(n_per_theme=8, years=(2022, 2024))
    corpus.drop(columns="doc_id").to_csv("papers.csv", index=False)
    assert main(["report", "papers.csv", "--backend", "hashing", "--no-cache", "-q"]) == 0
    venue = corpus["venue"].iloc[0].lower()
    written = sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "reports").iterdir())
    assert written == [f"reports/{venue}-2022-vs-2024.html"]
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    start = shown.index("-o HTML, --output HTML")
    pattern = shown[start:shown.index("--tables DIR", start)]
    assert "reports/<venue>-<first>-vs-<last>.html for two years" in pattern


def test_the_years_help_says_the_topics_are_fitted_on_every_year(capsys):
    """``--years 2022 2024`` on three years compares two, but fits the topics on all three
    (the 2023 papers are in the topics, the map and the paper list): the help says so."""
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    start = shown.index("--years YEAR [YEAR ...] the")
    years = shown[start:shown.index("--groups GROUP", start)]
    assert "the years to compare" in years and "fitted on every year's papers" in years


@pytest.mark.parametrize("command", ["report", "update"])
def test_o_never_overwrites_a_file_that_is_not_html(saved_sample, tmp_path, capsys, command):
    """``-o notes.txt`` where notes.txt holds the user's text: refused before any work, the
    file kept; an earlier HTML report at the same path is still rewritten."""
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes", encoding="utf-8")
    new = tmp_path / "new.txt"
    new.write_text("ICLR 2026 Papers\n\nAn abstract about graphs and their nodes.", encoding="utf-8")
    argv = (["report", "--load-model", str(saved_sample)] if command == "report" else ["update", str(saved_sample), str(new)])
    assert main([*argv, "-q", "--no-cache", "-o", str(notes)] if command == "update" else [*argv, "-q", "-o", str(notes)]) == 2
    err = capsys.readouterr().err
    assert f"-o {notes}: exists and is not an HTML file" in err and err.count("\n") == 1
    assert notes.read_text(encoding="utf-8") == "my notes"
    if command == "report":
        old = tmp_path / "old.html"
        old.write_text("<!DOCTYPE html>\n<html><body>an earlier report</body></html>", encoding="utf-8")
        assert main([*argv, "-q", "-o", str(old)]) == 0
        assert "an earlier report" not in old.read_text(encoding="utf-8")
