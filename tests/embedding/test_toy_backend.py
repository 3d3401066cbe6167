"""A backend added from outside the package: the one registration is all it takes.

ARCHITECTURE.md ("Where a change goes") says a new backend is a class and one
``register_backend`` call; this registers a toy one from the test and runs it through
``analyze``, the ``--backend`` choices and help, and the checks ``topics assign`` makes
of a saved analysis -- with no other file changed.
"""

import numpy as np
import pytest

import topics
from topics.cli import main
from topics.embedding import backends
from topics.io.datasets import dataset_path
from topics.store import save


class LetterCounts:
    """Letter frequencies of a text: weightless, per text."""

    name = "toy letter counts"

    def fingerprint(self) -> str:
        return "toy:letters"

    def encode(self, texts, *, show_progress: bool = False) -> np.ndarray:
        counts = np.array([[t.lower().count(c) for c in "abcdefghijklmnopqrstuvwxyz"] for t in texts], dtype=np.float64)
        counts += np.random.default_rng(0).random(counts.shape) * 1e-3  # no two texts alike
        return (counts / np.linalg.norm(counts, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture
def toy(monkeypatch):
    """The toy backend registered for one test (the registry is as it was afterwards)."""
    monkeypatch.setattr(backends, "BACKENDS", dict(backends.BACKENDS))
    return backends.register_backend(backends.Backend("toy", lambda model, n_texts: LetterCounts(), "letter counts, for tests"))


def test_analyze_embeds_with_a_registered_backend(toy):
    corpus = topics.datasets.iclr_sample()
    analysis = topics.analyze(corpus, embedder="toy", random_state=0, cache=False)
    assert analysis.settings.embedding == "toy letter counts"
    assert analysis.embeddings.shape == (len(corpus), 26)
    np.testing.assert_array_equal(analysis.embeddings, LetterCounts().encode(topics.pipeline.embedding_texts(corpus)))


def test_the_cli_offers_and_checks_a_registered_backend(toy, tmp_path, monkeypatch, capsys):
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    assert "toy (letter counts, for tests)" in " ".join(capsys.readouterr().out.split())
    corpus = topics.datasets.iclr_sample()
    save(topics.analyze(corpus, embedder="toy", random_state=0, cache=False), tmp_path / "model",
         about={"backend": "toy", "fingerprint": "toy:letters"})
    assert main(["assign", str(tmp_path / "model"), str(dataset_path("sample")), "-q", "--no-cache"]) == 0
    assert "placed in the" in capsys.readouterr().out
    # the same backend declared corpus-fitted: new papers cannot be placed in its space
    monkeypatch.setitem(backends.BACKENDS, "toy", backends.Backend("toy", toy.build, toy.description, per_text=False))
    assert main(["assign", str(tmp_path / "model"), str(dataset_path("sample")), "-q", "--no-cache"]) == 2
    assert "fitted with the toy backend" in capsys.readouterr().err


def test_an_unregistered_backend_is_refused_by_the_cli(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["report", "--backend", "toy", "-q"])
    assert exited.value.code == 2
    assert "invalid choice: 'toy'" in capsys.readouterr().err


def test_a_registered_backend_embeds_new_papers_for_a_fitted_model(toy):
    """``embedder_for`` (how ``transform`` and ``update`` users find the embedder of a fitted
    model) reads the registry: the backend its fingerprint's first field names."""
    from topics.embedding.embed import check_same_embedder, embedder_for

    assert isinstance(embedder_for("toy:letters"), LetterCounts)
    with pytest.raises(topics.EmbeddingError, match=r'here "toy"\)$'):
        check_same_embedder("toy:letters", topics.embed_texts(["a b"], "hashing", cache=False))
