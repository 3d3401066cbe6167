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
