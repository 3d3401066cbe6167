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


# ----------------------------------------------------------- the full lists' vectors (issue 40)


def _script(name: str):
    """The benchmark script ``benchmarks/<name>.py`` as a module (the scripts import each
    other, e.g. run.py and keyphrases.py, so their folder is on the path while it loads)."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


def _fixture_script():
    return _script("full_lists_vectors")


def test_the_committed_full_lists_vectors_are_todays_default_embedding():
    """The fixture the slow theme check reads instead of embedding 4,364 papers is intact
    and holds the vectors analyze would compute today: its texts are today's
    ``embedding_texts(iclr_full())``, and its fingerprint is the default backend's on a
    CPU with native bfloat16 (where it was written). A new default path (or other texts)
    fails here: rerun ``benchmarks/full_lists_vectors.py``."""
    import json

    import numpy as np

    import topics
    from topics.embedding.backends import native_bf16
    from topics.pipeline import embedding_texts

    fixture = _fixture_script()
    npy, about = fixture.fixture_paths("minilm")
    record = json.loads(about.read_text(encoding="utf-8"))
    texts = embedding_texts(topics.io.datasets.iclr_full())
    assert record["texts_sha256"] == fixture.texts_digest(texts)
    assert record["shape"] == [len(texts), 384] and npy.stat().st_size < 3.5e6
    if not native_bf16():
        pytest.skip("the fixture holds bf16 vectors; this CPU's default embeds in fp32")
    fingerprint = topics.get_embedder("minilm", n_texts=len(texts)).fingerprint()
    vectors = fixture.read_fixture("minilm", texts, fingerprint)
    assert not isinstance(vectors, str), vectors
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1, atol=2e-3)


def test_a_damaged_fixture_is_refused_and_a_stale_one_says_why(tmp_path):
    import numpy as np

    fixture = _fixture_script()
    texts = ["optimal transport", "graph neural networks", "speech recognition"]
    vectors = np.random.default_rng(0).normal(size=(3, 8))
    fixture.save_fixture(vectors, texts, "toy:1", "toy", tmp_path)
    np.testing.assert_allclose(fixture.read_fixture("toy", texts, "toy:1", tmp_path), vectors, atol=1e-2)
    assert "not of toy:2" in fixture.read_fixture("toy", texts, "toy:2", tmp_path)
    assert "other texts" in fixture.read_fixture("toy", texts[:2], "toy:1", tmp_path)
    assert fixture.read_fixture("other", texts, "toy:1", tmp_path).startswith("no fixture")
    npy = fixture.fixture_paths("toy", tmp_path)[0]
    data = bytearray(npy.read_bytes())
    data[-1] ^= 1
    npy.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="sha256"):
        fixture.read_fixture("toy", texts, "toy:1", tmp_path)


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


# ------------------------------------------- judging a MiniLM runtime on distributions (issue 40)


def _runtimes_script():
    return _script("embedding_runtimes")


def _pairs(group, ari, *, seeds=range(4), theme=1.0):
    """Today's seed s against ``group``'s seed t (every s, every t; s != t within today's),
    with ARI ``ari(s, t)`` and the other figures fixed."""
    return [{"reference": ("today", s), "other": (group, t), "ari": ari(s, t), "topics_back": 1.0, "same_name": 0.9,
             "changes_held": 0.9, "theme_jaccard": {"a": 1.0 if group == "today" else theme, "b": 1.0}}
            for s in range(4) for t in seeds if (group, t) != ("today", s)]


def test_a_runtime_that_moves_topics_as_a_seed_does_passes_and_one_that_moves_them_more_fails():
    judge = _runtimes_script().judge
    seed_pairs = _pairs("today", lambda s, t: 0.90 + 0.01 * (s + t))  # mean 0.93, sd 0.0135
    like_a_seed = _pairs("like", lambda s, t: 0.92, theme=0.99)  # within one sd below the mean
    further = _pairs("further", lambda s, t: 0.93 if s != t else 0.85)  # the same-seed pairs fall short
    control = _pairs("fp32", lambda s, t: 0.93, seeds=range(2), theme=0.995)
    verdict = judge(seed_pairs + like_a_seed + further + control, "today", "fp32")
    assert verdict["seed_bar"]["ari"]["n"] == 12
    assert abs(verdict["seed_bar"]["ari"]["mean"] - 0.93) < 1e-9
    assert verdict["groups"]["like"]["passes"] and verdict["groups"]["fp32"]["passes"]
    further = verdict["groups"]["further"]
    assert not further["passes"] and further["other_seed"]["ari"]["passes"] and not further["same_seed"]["ari"]["passes"]
    assert further["same_seed"]["ari"]["gap_in_sd"] < -5
    assert verdict["groups"]["fp32"]["same_seed"]["ari"]["n"] == 2
    # theme members: judged against the control's, not the seeds' (which agree exactly)
    worse_themes = _pairs("themes", lambda s, t: 0.93, theme=0.95)  # mean Jaccard 0.975 against the control's 0.9975
    assert not judge(seed_pairs + worse_themes + control, "today", "fp32")["groups"]["themes"]["passes"]


def _names_keywords_script():
    return _script("names_keywords")


def test_names_keywords_ranks_tied_keywords_alphabetically_in_every_process():
    """A topic's top keywords, ties included, do not hang on the order papers come in or
    on Python's string hashing: the held-out scores are the same in every process."""
    import numpy as np

    from topics.naming.coverage import PhraseIndex

    script = _names_keywords_script()
    keywords = [["zeta"], ["alpha"], ["mu", "beta"], ["beta"]]
    assert script.top_keywords(keywords, 3) == ["beta", "alpha", "mu"]
    index = PhraseIndex(["zeta", "alpha", "beta mu", "beta"])
    scored = script.score({0: "alpha"}, np.zeros(4, dtype=int), keywords, {}, index)
    assert scored["per_topic"][0]["top_keywords"] == ["beta", "alpha", "mu", "zeta"]
    assert scored["in_top_keywords"] == 1.0


def test_names_keywords_judge_reads_hyphen_joined_and_solid_spellings_as_one():
    """Round 4 counted "multi-modal learning" as a miss against the keyword "multimodal
    learning": a hyphen joins words or not, as authors please."""
    script = _names_keywords_script()
    assert script.matches("multi-modal learning", "multimodal learning")
    assert script.matches("multimodal", "multi-modal learning", strict=False)
    assert script.matches("self-supervised learning", "self supervised learning")
    assert not script.matches("multimodal learning", "multi-task learning")
    assert not script.matches("object", "object detection")


def test_keyword_profiles_leave_out_ijcai_area_codes():
    """IJCAI writes "Robotics: ROB: Multi-robot systems": "ROB" is a code, not a keyword
    (it named CoRL topics "rob")."""
    keys = _script("keyword_profiles").keyword_keys("Robotics: ROB: Multi-robot systems; Search: S: Heuristic search; LLMs; AI Ethics, Trust, Fairness: ETF: Bias")
    assert keys == ["ai ethic", "bia", "fairness", "heuristic search", "llm", "multi-robot system", "robotic", "search", "trust"]


def test_names_ranker_names_each_group_once_within_the_hard_constraints():
    """The ranker's choice (benchmarks/names_ranker.py): areas first, one group per name, a
    topic that holds at most half of its area not taking the area's name, no weak or
    unwritten untransferred name; a group with nothing allowed keeps its own name."""
    import pandas as pd

    ranker = _script("names_ranker")

    def row(level, group, candidate, score, *, parent=-1, share=0.0, source="profiles", weak=False, coverage=0.5, transferred=0.0, expected=0.2):
        return {"level": level, "group": group, "parent": parent, "share_of_parent": share, "candidate": candidate, "source": source,
                "weak": weak, "vague": False, "joined": False, "compound": " / " in candidate, "coverage": coverage,
                "in_profiles": 1.0, "transferred": transferred, "expected": expected, "score": score}

    frame = pd.DataFrame([
        row("area", 0, "computer vision", 3.0),
        row("topic", 1, "computer vision", 5.0, parent=0, share=0.4),  # its area's name: banned
        row("topic", 1, "object detection", 1.0, parent=0, share=0.4),
        row("topic", 1, "detectors", 0.0, parent=0, share=0.4, source="own name", weak=True),
        row("topic", 2, "object detection", 4.0, parent=0, share=0.6),  # taken first: higher score
        row("topic", 2, "image", 9.0, parent=0, share=0.6, weak=True),  # weak: never
        row("topic", 3, "segmentation", 2.0, parent=0, coverage=0.1, transferred=1.0, expected=0.01),  # moved, too few expected
        row("topic", 3, "masks / boxes", 0.0, parent=0, source="own name"),
    ])
    chosen = ranker.choose(frame, frame["score"].to_numpy())
    assert {key: r.candidate for key, r in chosen.items()} == {
        ("area", 0): "computer vision", ("topic", 2): "object detection", ("topic", 1): "detectors", ("topic", 3): "masks / boxes",
    }


def test_names_ranker_contrast_is_the_cosine_to_the_group_less_the_others_mean():
    """Round 5's signal: a keyword near one group's centroid and far from the others'
    scores high for that group only; outliers (-1) make no centroid."""
    import numpy as np

    ranker = _script("names_ranker")
    vectors = np.array([[1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 5.0]])
    labels = np.array([0, 0, 1, 2, -1])
    targets = np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    score = ranker.contrast(vectors, labels, [0, 2], targets)
    np.testing.assert_allclose(score, [[1.0, 0.0], [-0.5, 0.0]], atol=1e-6)


def test_emerging_keywords_judge_reads_acronym_keywords_and_items_as_their_phrases():
    """The next-year judge (benchmarks/emerging_keywords.py): an author keyword "offline RL"
    is the keyword "offline reinforcement learning", and so is a listed item "offline rl";
    a lower-case stop word is not read as an acronym ("it" stays "it")."""
    import pandas as pd

    script = _script("emerging_keywords")

    acronyms = {"RL": "reinforcement learning", "IT": "information technology"}
    sets = script.keyword_sets(pd.Series(["offline RL; Meta-Learning", None, "it"]), acronyms)
    assert sets == [{"offline reinforcement learning", "meta-learning"}, set(), {"it"}]
    truth = {"offline reinforcement learning"}
    scored = script.score(["offline rl", "it works"], sorted(truth), truth, acronyms)
    assert scored["hits"] == ["offline rl"] and scored["named"] == ["offline reinforcement learning"]
