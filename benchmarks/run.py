"""Benchmark the topics pipeline against plain BERTopic on the same documents.

    python benchmarks/run.py --dataset sample    # 90 abstracts, about two minutes
    python benchmarks/run.py --dataset full      # 4,364 abstracts, 15-40 minutes on 2 cores
    python benchmarks/run.py --table             # only rewrite the table in benchmarks/README.md

Every scenario runs in its own subprocess so that wall time includes interpreter
start-up and peak RSS (``os.wait4`` of that child) belongs to that run alone:

* ``report_cold``  -- ``topics report`` as ``make report`` runs it (``make report-full``
  for the full lists: two stability seeds instead of four) with an empty cache and an
  empty numba cache (``NUMBA_CACHE_DIR`` in a new folder): nothing computed before;
* ``report_warm``  -- the same command again: the analysis kept in the cache is reused
  (embeddings, compiled kernels and fit);
* ``setup_kernels`` and ``report_first`` -- what ``make setup`` compiles at installation
  (``python -m topics.clustering.precompile``, into a new ``NUMBA_CACHE_DIR``), then the
  report command with that numba cache and an empty embedding cache: the first
  ``topics report`` after installing, as on a fresh machine after ``make setup``;
* ``baseline``     -- plain BERTopic as its docs suggest,
  ``BERTopic(embedding_model=SentenceTransformer(MiniLM)).fit_transform(docs)``, cold
  (its own empty numba cache);
* ``stages``       -- one in-process run of the library functions with an empty embedding
  cache, timed per stage (UMAP, HDBSCAN and naming are timed by wrapping their methods),
  with the process's peak RSS after each stage;
* ``embedding``    -- throughput of the default ``minilm`` backend (its precision and
  batching, truncating long abstracts as sentence-transformers does) against the
  sentence-transformers fp32 baseline (batch 32) on the same abstracts, and the cosine
  similarity of every embedding to its fp32 one.

Timings on shared machines are noisy, so the targets are ratios within one run.
Results go to ``benchmarks/results/<dataset>-<cpu>.json`` (``cpu``: ``avx512-bf16`` or
``avx2``, since the default precision depends on it), and the table in
``benchmarks/README.md`` is rebuilt from every results file.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from datetime import date
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
PY = sys.executable


def child(code: str | list[str], env: dict | None = None) -> dict:
    """Run ``code`` in a fresh interpreter (a string of code, or a list of arguments: a script
    and its options); return its wall and CPU time, its own peak RSS and JSON output."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        argv = [PY, *code] if isinstance(code, list) else [PY, "-c", code]
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env={**os.environ, **(env or {})})
        _, status, usage = os.wait4(proc.pid, 0)  # this child's rusage alone
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"child failed:\n{stderr[-3000:]}")
    result = json.loads(stdout.strip().splitlines()[-1]) if stdout.strip() else {}
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_rss_mib": usage.ru_maxrss / 1024, **result}


REPORT = """
import json
from topics.cli import main
code = main(["report", "--dataset", "{dataset}", "-q", "--cache-dir", "{cache}", "-o", "{out}/r.html", "--tables", "{out}/t",
             "--stability-seeds", "{stability_seeds}"])
print(json.dumps({{"exit": code}}))
"""

BASELINE = """
import json, time
from bertopic import BERTopic
from sentence_transformers import SentenceTransformer
from topics.io.datasets import load_dataset
from topics.embedding.backends import resolve_model
docs = load_dataset("{dataset}")["abstract"].tolist()
start = time.perf_counter()
model = BERTopic(embedding_model=SentenceTransformer(resolve_model(None)[0], device="cpu"))
topics, _ = model.fit_transform(docs)
print(json.dumps({{"fit_transform_s": time.perf_counter() - start, "n_topics": len(set(topics)) - (-1 in topics),
                  "outlier_share": sum(t == -1 for t in topics) / len(topics)}}))
"""

STAGES = """
import json, resource, time
t, rss = {{}}, {{}}
def done(stage, seconds):
    t[stage] = seconds
    rss[stage] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
s = time.perf_counter()
import hdbscan, umap, bertopic, topics, topics.clustering.model as tm, topics.io.datasets, topics.report.charts, topics.report.render
from topics.embedding.backends import get_embedder
from topics.embedding.embed import embed_texts
from topics.pipeline import embedding_texts
done("imports (topics, BERTopic, UMAP, PyTorch)", time.perf_counter() - s)
spans = {{}}
def timed(owner, attr, label):
    original = getattr(owner, attr)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spans.setdefault(label, []).append(time.perf_counter() - start)
    setattr(owner, attr, wrapper)
import topics.clustering.consensus, topics.clustering.neighbors
timed(topics.clustering.neighbors, "nearest_neighbors", "neighbours")
timed(topics.clustering.consensus, "_parallel_runs", "runs")
timed(tm.TopicModel, "_set_topics", "naming")
s = time.perf_counter(); corpus = topics.io.datasets.load_dataset("{dataset}"); done("reading", time.perf_counter() - s)
embedder = get_embedder("minilm", n_texts=len(corpus))  # as `topics report` embeds this corpus
s = time.perf_counter(); texts = embedding_texts(corpus)
emb = embed_texts(texts, embedder, cache="{cache}"); done("embedding (empty cache)", time.perf_counter() - s)
embedding_s = t["embedding (empty cache)"]
a = topics.analyze(corpus, embeddings=emb, random_state=0)
# the consensus runs (UMAP 5-D, then HDBSCAN's four readings; in worker processes from 200 papers): timed as one span
graph, runs = sum(spans.get("neighbours", [0.0])), sum(spans["runs"])
done("exact neighbour graph", graph)
done(f"consensus runs ({{a.model.n_runs}} UMAP runs x 4 HDBSCAN readings)", runs)
done("naming and areas", spans["naming"][0])
done("co-association, Leiden, c-TF-IDF and BERTopic bookkeeping", a.timings["topics"] - graph - runs - spans["naming"][0])
done("map layout (UMAP, 2-D, same graph)", a.timings["map"])
done("statistics and tables", a.timings["tables"])
s = time.perf_counter(); figs = topics.report.charts.build_figures(a); done("charts", time.perf_counter() - s)
s = time.perf_counter(); topics.write_report(a, "{out}/stages.html"); done("report writing", time.perf_counter() - s)
print(json.dumps({{"stages_s": t, "peak_rss_mib_after": rss, "embedding": embedder.name,
                  "embedding_docs_per_s": len(texts) / embedding_s,
                  "n_topics": int((a.topics["topic"] != -1).sum()), "outlier_share": a.model.outlier_share_}}))
"""

EMBEDDING = """
import json, time, numpy as np
from sentence_transformers import SentenceTransformer
from topics.io.datasets import load_dataset
from topics.embedding.backends import SentenceTransformerEmbedder, resolve_model
from topics.text import clean_for_terms
texts = [clean_for_terms(a) for a in load_dataset("{dataset}")["abstract"]][:{limit}]
base = SentenceTransformer(resolve_model(None)[0], device="cpu")
base.encode(texts[:8])
s = time.perf_counter(); ref = base.encode(texts, batch_size=32, normalize_embeddings=True); ref_t = time.perf_counter() - s
out = {{"n": len(texts), "baseline_fp32_docs_per_s": len(texts) / ref_t}}
# like for like: the default precision and batching, truncating as sentence-transformers does
# (the default embeds long texts as windows, which reads more of them: see embedding_throughput.py)
e = SentenceTransformerEmbedder(long_texts="truncate"); e.encode(texts[:8])
s = time.perf_counter(); v = e.encode(texts); dt = time.perf_counter() - s
cos = (v * ref).sum(1)
out["minilm"] = {{"name": e.name, "docs_per_s": len(texts) / dt, "speedup": ref_t / dt,
                 "min_cosine": float(cos.min()), "mean_cosine": float(cos.mean())}}
print(json.dumps(out))
"""


def versions() -> dict:
    names = ("bertopic", "sentence-transformers", "torch", "umap-learn", "hdbscan", "numba", "numpy", "pandas", "plotly")
    return {n: metadata.version(n) for n in names}


def machine() -> dict:
    """CPU model and the instruction-set flags that decide the embedding speed."""
    from topics.embedding.backends import cpu_flags, native_bf16

    model, flags = platform.processor() or platform.machine(), cpu_flags() or set()
    try:
        model = re.search(r"model name\s*:\s*(.+)", Path("/proc/cpuinfo").read_text()).group(1).strip()
    except (OSError, AttributeError):
        pass
    wanted = ("avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni", "avx_vnni", "amx_bf16")

    return {
        "cpus": os.cpu_count(),
        "cpu": model,
        "flags": [f for f in wanted if f in flags],
        "native_bf16": native_bf16(),
        "python": platform.python_version(),
    }


def commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def run(dataset: str, limit: int | None) -> Path:
    work = Path(tempfile.mkdtemp(prefix="topics-bench-"))
    out = work / "out"
    # the commands of `make report` (four stability seeds) and `make report-full` (two)
    fmt = dict(dataset=dataset, out=out, stability_seeds=4 if dataset == "sample" else 2)
    results = {"dataset": dataset, "date": date.today().isoformat(), "commit": commit(), "machine": machine(), "versions": versions()}
    cold = {"NUMBA_CACHE_DIR": str(work / "numba-report")}
    print("report, cold (empty embedding and numba caches) ...", flush=True)
    results["report_cold"] = child(REPORT.format(cache=work / "cache", **fmt), cold)
    print("report, warm ...", flush=True)
    results["report_warm"] = child(REPORT.format(cache=work / "cache", **fmt), cold)
    installed = {"NUMBA_CACHE_DIR": str(work / "numba-installed")}
    print("kernels compiled at installation, then the first report ...", flush=True)
    results["setup_kernels"] = child("from topics.clustering.precompile import compile_kernels; compile_kernels()", installed)
    results["report_first"] = child(REPORT.format(cache=work / "cache-first", **{**fmt, "out": work / "out-first"}), installed)
    print("plain BERTopic baseline, cold ...", flush=True)
    results["baseline"] = child(BASELINE.format(**fmt), {"NUMBA_CACHE_DIR": str(work / "numba-baseline")})
    print("stages ...", flush=True)
    results["stages"] = child(STAGES.format(cache=work / "cache-stages", **fmt), cold)
    print("embedding throughput and fidelity ...", flush=True)
    results["embedding"] = child(EMBEDDING.format(limit=limit, **fmt))
    base = results["baseline"]["wall_s"]
    results["ratios"] = {
        "report_cold_over_baseline": results["report_cold"]["wall_s"] / base,
        "report_warm_over_baseline": results["report_warm"]["wall_s"] / base,
        "report_first_over_baseline": results["report_first"]["wall_s"] / base,
        "embedding_speedup_minilm": results["embedding"]["minilm"]["speedup"],
    }
    tag = "avx512-bf16" if results["machine"]["native_bf16"] else "avx2"
    path = RESULTS / f"{dataset}-{tag}.json"
    RESULTS.mkdir(exist_ok=True)
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results["ratios"], indent=2))
    print(f"wrote {path}")
    return path


def table() -> str:
    """The README table, one row per results file."""
    rows = [
        "| results file | commit | CPU | report cold / baseline | first report after `make setup` / baseline | "
        "report warm / baseline (wall) | peak RSS cold | embedding speedup (min cosine) | topics, outliers |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    # only this benchmark's files, results/<dataset>-<cpu>.json: the other benchmarks write there too
    for path in sorted([*RESULTS.glob("sample-*.json"), *RESULTS.glob("full-*.json")]):
        r = json.loads(path.read_text())
        ratio, emb = r["ratios"], r["embedding"]["minilm"]
        cpu = "AVX-512 BF16" if r["machine"].get("native_bf16") else "AVX2"
        topics = r["stages"].get("n_topics"), r["stages"].get("outlier_share")
        rows.append(
            f"| `{path.name}` | {r['commit']} | {cpu} | "
            f"{ratio['report_cold_over_baseline']:.2f} ({r['report_cold']['wall_s']:.0f} s vs {r['baseline']['wall_s']:.0f} s) | "
            + (f"{ratio['report_first_over_baseline']:.2f} ({r['report_first']['wall_s']:.0f} s; setup compiles "
               f"{r['setup_kernels']['wall_s']:.0f} s) | " if "report_first" in r else "- | ")
            + f"{ratio['report_warm_over_baseline']:.2f} ({r['report_warm']['wall_s']:.0f} s) | "
            f"{r['report_cold']['peak_rss_mib'] / 1024:.2f} GiB | "
            f"{emb['speedup']:.2f}x on {r['embedding']['n']:,} ({emb['min_cosine']:.5f}) | "
            f"{topics[0]}, {topics[1]:.0%} |"
        )
    return "\n".join(rows)


def write_block(start: str, end: str, body: str, *, missing_heading: str | None = None) -> bool:
    """Write ``body`` between the marker lines ``start`` and ``end`` of benchmarks/README.md.

    Every benchmark keeps its table in such a block. Where the markers are missing, the
    block is appended (under ``missing_heading`` if it is not empty) when
    ``missing_heading`` is given, and nothing is written otherwise. Returns whether the
    README was written.
    """
    readme = HERE / "README.md"
    text = readme.read_text()
    block = f"{start}\n{body}\n{end}"
    if start in text and end in text:
        head, rest = text.split(start, 1)
        text = head + block + rest.split(end, 1)[1]
    elif missing_heading is not None:
        text = text.rstrip() + "\n\n" + (f"{missing_heading}\n\n" if missing_heading else "") + block + "\n"
    else:
        return False
    readme.write_text(text)
    return True


def update_readme() -> None:
    if not write_block("<!-- results table: benchmarks/run.py --table -->", "<!-- end of results table -->", table()):
        raise SystemExit(f"{HERE / 'README.md'} lacks the table markers")
    print(f"updated {HERE / 'README.md'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", choices=["sample", "full"], default="sample")
    parser.add_argument("--embedding-limit", type=int, default=None, help="abstracts for the throughput comparison (default all)")
    parser.add_argument("--table", action="store_true", help="only rebuild the README table from results/")
    args = parser.parse_args()
    if not args.table:
        run(args.dataset, args.embedding_limit)
    update_readme()


if __name__ == "__main__":
    main()
