"""The benchmark scripts stay runnable: each imports, and its ``--help`` runs."""

from __future__ import annotations

import ast
import importlib.util
import runpy
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.glob("*.py"))


def test_there_are_benchmarks():
    assert {"run.py", "scale.py"} <= {p.name for p in SCRIPTS}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_a_benchmark_imports_and_answers_help(script, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # the scripts import each other (run.py's helpers)
    spec = importlib.util.spec_from_file_location(f"benchmark_{script.stem}", script)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    monkeypatch.setattr(sys, "argv", [str(script), "--help"])
    with pytest.raises(SystemExit) as exited:
        runpy.run_path(str(script), run_name="__main__")
    assert exited.value.code in (0, None)
    assert capsys.readouterr().out.startswith("usage:")


def test_scale_benchmark_keeps_no_code_in_strings():
    """Its stages are functions, so a renamed import fails here, not in an hour-long run."""
    tree = ast.parse((BENCHMARKS / "scale.py").read_text(encoding="utf-8"))
    code = [
        node.value.value[:40] for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        and "import " in node.value.value
    ]
    assert not code


def test_scale_stages_read_their_vectors_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import scale

    monkeypatch.setattr(scale, "DATA", tmp_path)
    corpus = scale.make_corpus(40)
    corpus[["doc_id", "title", "abstract", "year", "venue"]].rename(columns={"doc_id": "id"}).to_parquet(scale.corpus_path(40))
    with pytest.raises(SystemExit, match="40 of 40 vectors of the 40 corpus are not in"):
        scale.cached_vectors(40, tmp_path / "empty-cache")


def _dotted(node: ast.AST) -> str | None:
    """``a.b.c`` of an attribute chain on a name, else ``None``."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def test_the_code_run_py_runs_in_fresh_interpreters_names_what_exists():
    """``run.py`` times whole runs in fresh interpreters, so it keeps their code in strings:
    every ``from topics... import`` name and every ``topics.<module>.<name>`` they use exists."""
    import importlib

    tree = ast.parse((BENCHMARKS / "run.py").read_text(encoding="utf-8"))
    templates = [node.value.value for node in tree.body if isinstance(node, ast.Assign)
                 and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str) and "import " in node.value.value]
    assert len(templates) >= 3
    missing = []
    for code in templates:
        for node in ast.walk(ast.parse(code.replace("{{", "{").replace("}}", "}"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("topics"):
                module = importlib.import_module(node.module)
                missing += [f"{node.module}.{a.name}" for a in node.names if not hasattr(module, a.name)]
            name = _dotted(node) if isinstance(node, ast.Attribute) else None
            if name and name.startswith("topics.") and name.count(".") >= 3:
                module_name, attr = name.rsplit(".", 1)
                try:
                    module = importlib.import_module(module_name)
                except ModuleNotFoundError:
                    continue  # an attribute of an attribute, not a module's name
                missing += [] if hasattr(module, attr) else [name]
    assert not missing
