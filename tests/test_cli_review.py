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
