"""Every notebook runs top to bottom on the bundled files; a failure names the notebook
and the cell."""

from pathlib import Path

import pytest

pytestmark = pytest.mark.notebook

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.py"))
#: Papers a notebook reads in the suite where not 1,200 (``TOPICS_N_PAPERS``): notebook 04 fits
#: the full lists twice; 600 of them took 0.44x the CPU time of 1,200, and 400 0.82x the wall time of 600
#: (one run each, loaded machine), with every chart drawn.
N_PAPERS = {"04_trends_and_groups": "400"}


@pytest.fixture(scope="module")
def notebook_env(tmp_path_factory):
    import os

    old = dict(os.environ)
    # the weightless backend keeps the suite fast; the real model runs in test_cli
    # and notebook 04 a sample of the full lists (TOPICS_N_PAPERS); with TOPICS_N_PAPERS
    # set, notebook 05 reads the committed NeurIPS subset (tests/data/bigcorpus_neurips_sample.parquet,
    # drawn by benchmarks/draw_bigcorpus_subset.py), never ../shared/data/bigcorpus.parquet
    os.environ.update(TOPICS_BACKEND="lsa", TOPICS_N_PAPERS="1200", TOPICS_CACHE_DIR=str(tmp_path_factory.mktemp("nbcache")))
    yield
    os.environ.clear()
    os.environ.update(old)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, notebook_env, tmp_path, monkeypatch):
    jupytext = pytest.importorskip("jupytext")
    monkeypatch.setenv("TOPICS_N_PAPERS", N_PAPERS.get(path.stem, "1200"))  # the kernel starts with this environment
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = jupytext.read(path)
    client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    try:
        client.execute()
    except CellExecutionError as exc:
        index = next((i for i, c in enumerate(nb.cells) if c.get("outputs") and any(o.get("output_type") == "error" for o in c["outputs"])), "?")
        source = nb.cells[index]["source"][:200] if index != "?" else ""
        pytest.fail(f"{path.name}, cell {index}: {str(exc).splitlines()[-1] if str(exc) else exc}\n{source}", pytrace=False)
    plots = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if "application/vnd.plotly.v1+json" in o.get("data", {})]
    assert plots, f"{path.name} shows no interactive chart"


def test_make_notebooks_writes_notebooks_jupyter_and_nbconvert_open(tmp_path):
    """`jupyter nbconvert --execute notebooks/01_explore_topics.py` failed (NotJSONError): `make
    notebooks` writes each .py as a valid .ipynb beside it, with the same cells."""
    import shutil
    import subprocess
    import sys

    jupytext = pytest.importorskip("jupytext")
    import nbformat

    root = Path(__file__).parent.parent
    if shutil.which("make") is None:
        pytest.skip("no make")
    (tmp_path / "notebooks").mkdir()
    for path in NOTEBOOKS:
        shutil.copy(path, tmp_path / "notebooks" / path.name)
    shutil.copy(root / "Makefile", tmp_path / "Makefile")
    (tmp_path / ".venv").symlink_to(Path(sys.executable).parent.parent)  # this environment, set up already
    done = subprocess.run(["make", "-o", ".venv/.installed", "notebooks"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    for path in NOTEBOOKS:
        written = tmp_path / "notebooks" / f"{path.stem}.ipynb"
        nb = nbformat.read(written, as_version=4)  # what nbconvert reads: JSON, a valid notebook
        nbformat.validate(nb)
        assert [c.source for c in nb.cells] == [c.source for c in jupytext.read(path).cells]
