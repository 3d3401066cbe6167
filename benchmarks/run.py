"""Benchmark the topics pipeline against plain BERTopic on the same documents.

    python benchmarks/run.py --dataset sample            # 90 abstracts, a minute or two
    python benchmarks/run.py --dataset full              # 4,364 abstracts, ~30 minutes on 2 cores

Every scenario runs in its own subprocess so that wall time includes interpreter
start-up and peak RSS (ru_maxrss of the child) belongs to that run alone:

* ``report-cold``  -- ``topics report`` with an empty embedding cache;
* ``report-warm``  -- the same command again, embeddings read from the cache;
* ``baseline``     -- plain BERTopic as its docs suggest:
  ``BERTopic(embedding_model=SentenceTransformer(MiniLM)).fit_transform(docs)``, cold;
* ``stages``       -- one in-process run of the library functions, timed per stage;
* ``embedding``    -- throughput of each embedding path against the sentence-transformers
  fp32 baseline (batch 32) on the same abstracts, with the cosine similarity to it.

Timings on shared machines are noisy, so the targets are ratios within one run.
Results go to ``benchmarks/results/<dataset>.json``; ``--markdown`` prints a table row.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import date
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
PY = sys.executable


def child(code: str, env: dict | None = None) -> dict:
    """Run ``code`` in a fresh interpreter; return its wall time, its own peak RSS and JSON output."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen([PY, "-c", code], stdout=out, stderr=err, env={**os.environ, **(env or {})})
        _, status, usage = os.wait4(proc.pid, 0)  # this child's rusage alone
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"child failed:\n{stderr[-3000:]}")
    result = json.loads(stdout.strip().splitlines()[-1]) if stdout.strip() else {}
    return {"wall_s": wall, "peak_rss_mib": usage.ru_maxrss / 1024, **result}


REPORT = """
import json, sys
from topics.cli import main
code = main(["report", "--dataset", "{dataset}", "-q", "--cache-dir", "{cache}", "-o", "{out}/r.html", "--tables", "{out}/t"])
print(json.dumps({{"exit": code}}))
"""

BASELINE = """
import json, time
from bertopic import BERTopic
from sentence_transformers import SentenceTransformer
from topics.datasets import load_dataset
from topics.embed import resolve_model
docs = load_dataset("{dataset}")["abstract"].tolist()
start = time.perf_counter()
model = BERTopic(embedding_model=SentenceTransformer(resolve_model(None)[0], device="cpu"))
topics, _ = model.fit_transform(docs)
print(json.dumps({{"fit_transform_s": time.perf_counter() - start, "n_topics": len(set(topics)) - (-1 in topics),
                  "outlier_share": sum(t == -1 for t in topics) / len(topics)}}))
"""

STAGES = """
import json, time
import topics
from topics.embed import embed_texts
from topics.text import clean_for_terms
t = {{}}
s = time.perf_counter(); corpus = topics.datasets.load_dataset("{dataset}"); t["reading"] = time.perf_counter() - s
s = time.perf_counter(); texts = [clean_for_terms(a) for a in corpus["abstract"]]
emb = embed_texts(texts, "minilm", cache="{cache}"); t["embedding (warm cache)"] = time.perf_counter() - s
s = time.perf_counter(); a = topics.analyze(corpus, embeddings=emb, random_state=0); total = time.perf_counter() - s
t["topics: reduction + clustering + naming"] = a.timings["topics"]
t["map layout (2-D UMAP)"] = a.timings["map"]
t["statistics and tables"] = a.timings["tables"]
s = time.perf_counter(); figs = topics.report.build_figures(a); t["charts"] = time.perf_counter() - s
s = time.perf_counter(); html = topics.render_report(a); t["report rendering"] = time.perf_counter() - s
print(json.dumps({{"stages_s": t, "n_topics": int((a.topics["topic"] != -1).sum()), "outlier_share": a.model.outlier_share_}}))
"""

EMBEDDING = """
import json, time, numpy as np
from sentence_transformers import SentenceTransformer
from topics.datasets import load_dataset
from topics.embed import resolve_model, get_embedder
from topics.text import clean_for_terms
texts = [clean_for_terms(a) for a in load_dataset("{dataset}")["abstract"]][:{limit}]
base = SentenceTransformer(resolve_model(None)[0], device="cpu")
base.encode(texts[:8])
s = time.perf_counter(); ref = base.encode(texts, batch_size=32, normalize_embeddings=True); ref_t = time.perf_counter() - s
out = {{"n": len(texts), "baseline_fp32_docs_per_s": len(texts) / ref_t}}
for name in ("minilm",):
    e = get_embedder(name); e.encode(texts[:8])
    s = time.perf_counter(); v = e.encode(texts); dt = time.perf_counter() - s
    out[name] = {{"docs_per_s": len(texts) / dt, "speedup": ref_t / dt, "min_cosine": float((v * ref).sum(1).min())}}
print(json.dumps(out))
"""


def versions() -> dict:
    names = ("bertopic", "sentence-transformers", "torch", "umap-learn", "hdbscan", "numpy", "pandas", "plotly")
    return {n: metadata.version(n) for n in names}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", choices=["sample", "full"], default="sample")
    parser.add_argument("--embedding-limit", type=int, default=300, help="abstracts for the throughput comparison")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="topics-bench-"))
    cache, out = work / "cache", work / "out"
    fmt = dict(dataset=args.dataset, cache=cache, out=out)
    results = {
        "dataset": args.dataset,
        "date": date.today().isoformat(),
        "machine": {"cpus": os.cpu_count(), "processor": platform.processor() or platform.machine(), "python": platform.python_version()},
        "versions": versions(),
    }
    print("report, cold cache ...", flush=True)
    results["report_cold"] = child(REPORT.format(**fmt))
    print("report, warm cache ...", flush=True)
    results["report_warm"] = child(REPORT.format(**fmt))
    print("plain BERTopic baseline ...", flush=True)
    results["baseline"] = child(BASELINE.format(**fmt))
    print("stages ...", flush=True)
    results["stages"] = child(STAGES.format(**fmt))
    print("embedding throughput ...", flush=True)
    results["embedding"] = child(EMBEDDING.format(limit=args.embedding_limit, **fmt))
    base = results["baseline"]["wall_s"]
    results["ratios"] = {
        "report_cold_over_baseline": results["report_cold"]["wall_s"] / base,
        "report_warm_over_baseline": results["report_warm"]["wall_s"] / base,
        "embedding_speedup_minilm": results["embedding"]["minilm"]["speedup"],
    }
    path = HERE / "results" / f"{args.dataset}.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results["ratios"], indent=2))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
