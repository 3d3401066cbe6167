"""The big real corpus end to end: 207,204 abstracts of 39 venues, 1987-2026 (issue 19).

    python benchmarks/bigcorpus.py --view venue --backend static            # cold, then warm
    python benchmarks/bigcorpus.py --view neurips --backend static
    python benchmarks/bigcorpus.py --view largest --backend static
    python benchmarks/bigcorpus.py --view venue --backend static --n 20000  # a random subset, for the exponents
    python benchmarks/bigcorpus.py --table                                   # only rewrite the table in README.md

Reads ``../shared/data/bigcorpus.parquet`` (or ``--data``), never copied into the project.
Three views, as issue 19 asks:

* ``venue``: every paper, topics compared between the 39 venues (``by="venue"``);
* ``neurips``: NeurIPS 1987-2025, trends over the years (``by="year"``);
* ``largest``: the five largest venues, trends over their common years (``by="year"``).

Each run is one fresh interpreter (``run.child``: wall and CPU time, peak RSS of that
process alone) doing what ``topics report`` does, timed per stage: reading (the Parquet
file through :func:`topics.read_corpus`, then the view's rows), embedding (into an empty
cache for ``cold``, the filled one for ``warm``), the topic fit, the map, the tables, the
report and the CSV tables. ``cold`` also starts from an empty static-model folder, so it
includes distilling the static model (``--backend static``). ``--n`` draws a seeded random
subset of the view first; runs at two sizes give each stage's exponent
(``log(t2/t1) / log(n2/n1)``), printed by ``--table``.

Results go to ``benchmarks/results/bigcorpus-<view>-<backend>-<n>.json``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import shutil
import sys
import tempfile
from datetime import date
from pathlib import Path

from run import child, commit, machine, write_block  # benchmarks/run.py

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
DATA = HERE.parent.parent / "shared" / "data" / "bigcorpus.parquet"
START, END = "<!-- bigcorpus table: benchmarks/bigcorpus.py --table -->", "<!-- end of bigcorpus table -->"

RUN = """
import json, resource, time
t, rss = {{}}, {{}}
def done(stage, start):
    t[stage] = time.perf_counter() - start
    rss[stage] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
s = time.perf_counter()
import topics
from topics.pipeline import analyze, write_tables
from topics.report.render import write_report
done("imports", s)
s = time.perf_counter()
corpus = topics.read_corpus([{data!r}])
view = {view!r}
if view == "neurips":
    corpus = corpus[(corpus["venue"] == "NeurIPS") & (corpus["year"] <= 2025)]
elif view == "largest":
    top = corpus["venue"].value_counts().index[:5]
    corpus = corpus[corpus["venue"].isin(top)]
    years = corpus.groupby("venue")["year"].agg(["min", "max"])
    corpus = corpus[(corpus["year"] >= years["min"].max()) & (corpus["year"] <= years["max"].min())]
if {n}:
    corpus = corpus.sample(min({n}, len(corpus)), random_state=0)
corpus = corpus.reset_index(drop=True)
done("reading", s)
by = "venue" if view == "venue" else "year"
a = analyze(corpus, embedder={backend!r}, by=by, cache={cache!r}, random_state=0)
for stage, seconds in a.timings.items():
    t[stage] = seconds
rss["analysis"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
s = time.perf_counter(); write_report(a, {out!r} + "/report.html"); done("report", s)
s = time.perf_counter(); write_tables(a, {out!r} + "/tables"); done("csv tables", s)
import os
print(json.dumps({{
    "stages_s": t, "peak_rss_mib_after": rss, "n_papers": len(corpus), "by": by,
    "groups": int(corpus[by].nunique()), "n_topics": int((a.topics["topic"] != -1).sum()),
    "n_areas": int((a.areas["area"] != -1).sum()), "outlier_share": float(a.model.outlier_share_),
    "report_mb": os.path.getsize({out!r} + "/report.html") / 1e6,
    "years": [int(corpus["year"].min()), int(corpus["year"].max())],
}}))
"""


def measure(view: str, backend: str, n: int, data: Path, keep: Path | None) -> dict:
    work = Path(tempfile.mkdtemp(prefix="topics-big-"))
    out = keep or work / "out"
    out.mkdir(parents=True, exist_ok=True)
    env = {"TOPICS_CACHE_DIR": str(work / "cache")}  # empty: no embeddings, no static model
    code = RUN.format(data=str(data), view=view, n=n, backend=backend, cache=str(work / "cache"), out=str(out))
    result = {"view": view, "backend": backend, "n": n, "date": date.today().isoformat(), "commit": commit(), "machine": machine()}
    for kind in ("cold", "warm"):
        print(f"{view}, {backend}, n={n or 'all'}: {kind} ...", flush=True)
        result[kind] = child(code, env)
        print(json.dumps({k: v for k, v in result[kind].items() if k != "peak_rss_mib_after"}), flush=True)
    shutil.rmtree(work, ignore_errors=True)
    return result


def cpu(run: dict) -> str:
    """The kind of CPU a run had: the default precision and the speed depend on it."""
    return "AVX-512 BF16" if run.get("machine", {}).get("native_bf16") else "AVX2"


def table() -> str:
    files = sorted(RESULTS.glob("bigcorpus-*.json"))
    runs = [json.loads(p.read_text()) for p in files]
    rows = [
        "| results file | commit | CPU | view | papers, groups | topics, outliers | cold: wall (embedding, topics, map, tables, report) | warm: wall (topics, map, tables, report) | peak RSS cold, warm | report |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for path, r in zip(files, runs):
        c, w = r["cold"], r["warm"]
        st = lambda x, k: x["stages_s"].get(k, float("nan"))  # noqa: E731
        rows.append(
            f"| `{path.name}` | {r['commit']} | {cpu(r)} | {r['view']} ({r['backend']}) | {c['n_papers']:,}, {c['groups']} | "
            f"{c['n_topics']}, {c['outlier_share']:.1%} | "
            f"{c['wall_s'] / 60:.1f} min ({st(c, 'embedding'):.0f}, {st(c, 'topics'):.0f}, {st(c, 'map'):.0f}, {st(c, 'tables'):.0f}, {st(c, 'report'):.0f} s) | "
            f"{w['wall_s'] / 60:.1f} min ({st(w, 'topics'):.0f}, {st(w, 'map'):.0f}, {st(w, 'tables'):.0f}, {st(w, 'report'):.0f} s) | "
            f"{c['peak_rss_mib'] / 1024:.1f}, {w['peak_rss_mib'] / 1024:.1f} GiB | {c['report_mb']:.1f} MB |"
        )
    # exponents: the latest runs of the same view and backend on the same kind of CPU at two sizes
    lines = []
    key = lambda r: (r["view"], r["backend"], cpu(r))  # noqa: E731
    for (view, backend, cpu_kind), group in itertools.groupby(sorted(runs, key=lambda r: (*key(r), r["cold"]["n_papers"], r.get("date", ""))), key=key):
        group = list(group)
        small = [r for r in group if r["cold"]["n_papers"] == group[0]["cold"]["n_papers"]][-1]
        large = group[-1]
        if small is large:
            continue
        n1, n2 = small["cold"]["n_papers"], large["cold"]["n_papers"]
        parts = []
        for stage in ("embedding", "topics", "map", "tables", "report"):
            kind = "cold" if stage == "embedding" else "warm"
            t1, t2 = small[kind]["stages_s"].get(stage), large[kind]["stages_s"].get(stage)
            if t1 and t2 and n2 > n1:
                parts.append(f"{stage} {math.log(t2 / t1) / math.log(n2 / n1):.2f}")
        lines.append(f"- {view} ({backend}, {cpu_kind}; {small['commit']}, {large['commit']}), {n1:,} -> {n2:,} papers: " + ", ".join(parts))
    return "\n".join(rows) + ("\n\nExponent of each stage's time against the number of papers:\n\n" + "\n".join(lines) if lines else "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--view", choices=["venue", "neurips", "largest"], default="venue")
    parser.add_argument("--backend", default="static")
    parser.add_argument("--n", type=int, default=0, help="a seeded random subset of the view (0: all of it)")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--keep", type=Path, help="write the report and tables here (default: a temporary folder)")
    parser.add_argument("--table", action="store_true", help="only rewrite the table in benchmarks/README.md")
    args = parser.parse_args()
    if not args.table:
        if not args.data.exists():
            print(f"error: {args.data} not found (the big corpus lives in ../shared/data/)", file=sys.stderr)
            return 2
        result = measure(args.view, args.backend, args.n, args.data, args.keep)
        RESULTS.mkdir(exist_ok=True)
        path = RESULTS / f"bigcorpus-{args.view}-{args.backend}-{args.n or 'all'}.json"
        path.write_text(json.dumps(result, indent=2) + "\n")
        print(f"wrote {path}")
    write_block(START, END, table(), missing_heading="## The big corpus: 207,204 real abstracts (issue 19)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
