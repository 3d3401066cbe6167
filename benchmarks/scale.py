"""Scaling benchmark: 4k, 20k and 100k abstracts, cold and warm, per stage, peak RSS.

    python benchmarks/scale.py data               # write the resampled corpora (seconds)
    python benchmarks/scale.py embed --n 100000   # embed into the normal cache, resumable (~40 min on 2 cores)
    python benchmarks/scale.py run --n 4364 20000 100000   # per-stage timings, one subprocess per size
    python benchmarks/scale.py cold --n 100000    # `topics report` into an empty cache, then again warm (~35 min)
    python benchmarks/scale.py --table            # only rewrite the table in benchmarks/README.md

The corpora
-----------
Only 4,364 real abstracts ship with the package (the full ICLR 2024/2025 lists), so the
larger corpora are made from them by resampling with light perturbation
(:func:`make_corpus`): rows 0-4,363 are the real papers; every further row copies a
paper drawn uniformly at random (seeded) and perturbs its abstract by deleting each word
with probability 0.05 and swapping two random adjacent words, so every text is new to
the embedding cache and to the de-duplication, while staying a near copy of a real
abstract (a cosine of about 0.98 to it). Title, year, venue follow the copied paper; the
id gets a ``~k`` suffix. The 20k corpus is the first 20,000 rows of the 100k one, so the
100k cache covers it. Such a corpus is easier to cluster than 100k distinct papers
(near copies form dense groups): the clustering timings are indicative, not a claim
about 100k real abstracts.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from run import child, write_block  # benchmarks/run.py: one subprocess runner and README writer for every benchmark

HERE = Path(__file__).resolve().parent
DATA = HERE / ".work" / "scale"
RESULTS = HERE / "results"
SIZES = (4_364, 20_000, 100_000)


def make_corpus(n: int, *, seed: int = 0, drop: float = 0.05):
    """The first ``n`` rows of the resampled corpus (module docs); a corpus frame."""
    import numpy as np
    import pandas as pd

    from topics.io.datasets import iclr_full

    real = iclr_full()
    if n <= len(real):
        return real.iloc[:n].reset_index(drop=True)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(real), size=n - len(real))
    copies = real.iloc[picks].reset_index(drop=True).copy()
    abstracts = []
    for k, text in enumerate(copies["abstract"]):
        words = text.split()
        keep = rng.random(len(words)) >= drop
        words = [w for w, kept in zip(words, keep) if kept] or words
        if len(words) > 2:
            j = int(rng.integers(0, len(words) - 1))
            words[j], words[j + 1] = words[j + 1], words[j]
        abstracts.append(" ".join(words))
    copies["abstract"] = abstracts
    copies["doc_id"] = [f"{d}~{k}" for k, d in enumerate(copies["doc_id"])]
    return pd.concat([real, copies], ignore_index=True)


def corpus_path(n: int) -> Path:
    return DATA / f"scale-{n}.parquet"


def _keys(n: int) -> list[str]:
    """Cache keys of the ``n`` corpus: the hashes of what ``analyze`` embeds ("title. abstract")."""
    from topics.embedding.cache import text_key
    from topics.io.corpus import read_corpus
    from topics.pipeline import embedding_texts

    return [text_key(t) for t in embedding_texts(read_corpus(corpus_path(n)))]


def cached_vectors(n: int, cache_dir) -> "np.ndarray":
    """The MiniLM vectors of the ``n`` corpus from ``cache_dir``, never embedding anything."""
    import numpy as np

    from topics.embedding.cache import EmbeddingCache
    from topics.embedding.backends import get_embedder

    store = EmbeddingCache(cache_dir).load(get_embedder("minilm").fingerprint())
    keys = _keys(n)
    missing = sum(k not in store for k in keys)
    if missing:
        raise SystemExit(f"{missing} of {len(keys)} vectors of the {n} corpus are not in {cache_dir}")
    return np.stack([store[k] for k in keys])


def write_data(sizes=SIZES) -> None:
    big = make_corpus(max(sizes))
    DATA.mkdir(parents=True, exist_ok=True)
    for n in sizes:
        part = big.iloc[:n]
        part = part.drop_duplicates("abstract")
        cols = ["doc_id", "title", "abstract", "year", "venue"]
        part[cols].rename(columns={"doc_id": "id"}).to_parquet(corpus_path(n), index=False)
        print(f"wrote {corpus_path(n)} ({len(part):,} rows)")


def embed(n: int, chunk_size: int) -> None:
    """Embed the ``n`` corpus into the normal cache, resumably; log throughput."""
    import logging

    from topics.embedding.backends import get_embedder
    from topics.embedding.cache import EmbeddingCache, missing_keys
    from topics.embedding.embed import embed_texts
    from topics.io.corpus import read_corpus
    from topics.pipeline import embedding_texts

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    corpus = read_corpus(corpus_path(n))
    texts = embedding_texts(corpus)
    embedder = get_embedder("minilm")
    _, missing = missing_keys(texts, EmbeddingCache().load(embedder.fingerprint()))
    start = time.perf_counter()
    embed_texts(texts, embedder, cache=True, show_progress=True, chunk_size=chunk_size)
    seconds = time.perf_counter() - start
    out = {"n": n, "embedded": len(missing), "seconds": seconds, "texts_per_s": len(missing) / seconds if missing else None,
           "embedding": embedder.name, "chunk_size": chunk_size}
    (HERE / ".work").mkdir(exist_ok=True)
    with open(HERE / ".work" / "scale-embed-log.jsonl", "a") as fh:
        fh.write(json.dumps(out) + "\n")
    print(json.dumps(out))


SYNTHETIC_CACHE = HERE / ".work" / "synthetic-cache"


def synthetic_cache(n: int, *, noise: float = 0.0086, seed: int = 0) -> None:
    """A separate cache where every text of the ``n`` corpus has a MiniLM-like vector.

    Real MiniLM vectors where the normal cache has them (the 4,364 real papers, as
    ``analyze`` embeds them); for every copy, its original's real vector plus Gaussian
    noise (``noise`` per dimension: cosine about 0.986 to the original, the median
    measured over 10,240 copies embedded for real), renormalised. For timing the warm
    path at sizes the shared machine cannot embed in one session (100,000 texts are
    about 30 min at 57 texts/s); never mixed into the normal cache.
    """
    import numpy as np

    from topics.io.corpus import read_corpus
    from topics.embedding.cache import EmbeddingCache
    from topics.embedding.backends import get_embedder

    fingerprint = get_embedder("minilm").fingerprint()
    real = EmbeddingCache().load(fingerprint)
    corpus = read_corpus(corpus_path(n))
    keys = _keys(n)
    by_id = dict(zip(corpus["doc_id"], keys))
    rng = np.random.default_rng(seed)
    out, synthetic = {}, 0
    for doc_id, key in zip(corpus["doc_id"], keys):
        if key in real:
            out[key] = real[key]
            continue
        original = by_id[doc_id.split("~")[0]]
        if original not in real:
            raise SystemExit(f"the real paper {doc_id.split('~')[0]} is not embedded yet: run `topics report --dataset full` first")
        v = real[original] + rng.normal(scale=noise, size=real[original].shape).astype(np.float32)
        out[key] = (v / np.linalg.norm(v)).astype(np.float32)
        synthetic += 1
    EmbeddingCache(SYNTHETIC_CACHE).save(fingerprint, out)
    info = {"n": n, "real": len(keys) - synthetic, "synthetic": synthetic, "noise": noise}
    (SYNTHETIC_CACHE / f"scale-{n}.json").write_text(json.dumps(info) + "\n")
    print(json.dumps(info))


def _workers_peak_rss() -> list[float]:
    """Peak RSS (VmHWM, MiB) of each live worker process of this one (the consensus runs' pool)."""
    import psutil

    peaks = []
    for p in psutil.Process().children(recursive=True):
        try:
            with open(f"/proc/{p.pid}/status") as fh:
                peaks += [int(line.split()[1]) / 1024 for line in fh if line.startswith("VmHWM")]
        except OSError:
            pass
    return peaks


class _Clock:
    """Wall and CPU seconds of each stage, and the process's peak RSS after it."""

    def __init__(self):
        self.wall, self.cpu, self.rss = {}, {}, {}

    @staticmethod
    def now() -> tuple[float, float]:
        return time.perf_counter(), time.process_time()

    @staticmethod
    def since(start: tuple[float, float]) -> tuple[float, float]:
        return time.perf_counter() - start[0], time.process_time() - start[1]

    def done(self, stage: str, seconds: float, cpu_seconds: float | None) -> None:
        import resource

        self.wall[stage], self.cpu[stage] = seconds, cpu_seconds
        self.rss[stage] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _wrap(owner, attr: str, label: str, spans: dict) -> None:
    """Time every call of ``owner.attr`` into ``spans[label]`` (wall and CPU seconds)."""
    original = getattr(owner, attr)

    def wrapper(*args, **kwargs):
        start = _Clock.now()
        try:
            return original(*args, **kwargs)
        finally:
            spans.setdefault(label, []).append(_Clock.since(start))

    setattr(owner, attr, wrapper)


def measure_stages(corpus: Path, cache: Path, out: Path) -> dict:
    """One in-process ``analyze`` and report of ``corpus`` with its MiniLM vectors read from
    ``cache``, timed per stage (run it in a fresh process: :func:`run_size`)."""
    clock = _Clock()
    start = clock.now()
    import bertopic  # noqa: F401 - the imports a run pays for, timed together
    import hdbscan  # noqa: F401
    import umap  # noqa: F401

    import topics
    import topics.clustering.consensus
    import topics.clustering.model
    import topics.clustering.neighbors
    import topics.pipeline
    import topics.report.render  # noqa: F401
    from topics.embedding.backends import get_embedder
    from topics.io.corpus import read_corpus

    clock.done("imports", *clock.since(start))
    spans: dict[str, list] = {}
    _wrap(topics.clustering.neighbors, "nearest_neighbors", "neighbours", spans)
    _wrap(topics.clustering.consensus, "_parallel_runs", "runs", spans)
    _wrap(topics.clustering.model.TopicModel, "_set_topics", "naming", spans)
    _wrap(topics.pipeline, "map_coordinates", "map", spans)
    start = clock.now()
    papers = read_corpus(corpus)
    clock.done("reading", *clock.since(start))
    embedder = get_embedder("minilm")
    start = clock.now()
    emb = cached_vectors(len(papers), cache)
    clock.done("embedding (read from the cache)", *clock.since(start))
    start = clock.now()
    a = topics.analyze(papers, embeddings=emb, random_state=0)
    total = clock.since(start)
    _fit_stages(clock, spans, a)
    start = clock.now()
    topics.write_report(a, out / "scale.html")
    clock.done("charts and report", *clock.since(start))
    return {"stages_s": clock.wall, "stages_cpu_s": clock.cpu, "peak_rss_mib_after": clock.rss, "embedding": embedder.name,
            "n_docs": len(papers), "analyze_s": total[0], "analyze_cpu_s": total[1],
            "n_topics": int((a.topics["topic"] != -1).sum()), "outlier_share": a.model.outlier_share_,
            "html_mib": os.path.getsize(out / "scale.html") / 2**20, "params": a.model.params_,
            "landmarks": 0 if a.model.landmarks_ is None else len(a.model.landmarks_), "workers_peak_rss_mib": _workers_peak_rss()}


def _fit_stages(clock: _Clock, spans: dict, a) -> None:
    """The stages inside ``analyze``, from the timed calls in ``spans`` and ``a.timings``."""
    def total_of(label):
        return tuple(sum(x) for x in zip(*spans[label])) if spans.get(label) else (0.0, 0.0)

    mapping, runs, graph, naming = (total_of(label) for label in ("map", "runs", "neighbours", "naming"))
    clock.done("neighbour graphs (exact)", *graph)
    clock.done(f"consensus runs ({a.model.n_runs} UMAP runs x 4 HDBSCAN readings, in worker processes)", runs[0], None)
    clock.done("naming", *naming)
    clock.done("co-association, Leiden, c-TF-IDF, bookkeeping (rest of the fit)", a.timings["topics"] - graph[0] - runs[0] - naming[0], None)
    clock.done("map layout (UMAP 2-D)", a.timings["map"], mapping[1])
    clock.done("statistics and tables", a.timings["tables"], None)


def report_command(corpus: Path, cache: Path, out: Path) -> dict:
    """``topics report`` of ``corpus`` with ``cache`` (run it in a fresh process: :func:`run_size`)."""
    from topics.cli import main

    code = main(["report", str(corpus), "-q", "--cache-dir", str(cache), "-o", str(out / "r.html"), "--tables", str(out / "t")])
    return {"exit": code, "html_mib": os.path.getsize(out / "r.html") / 2**20}


def _in_child(command: str, n: int, cache: Path, out: str) -> list[str]:
    """The arguments that run ``command`` of this script on the ``n`` corpus in a fresh process (:func:`run.child`)."""
    return [str(Path(__file__).resolve()), command, "--n", str(n), "--cache", str(cache), "--out", str(out)]


def run_size(n: int, cache: Path, label: str, report: bool) -> dict:
    with tempfile.TemporaryDirectory() as out:
        result = {"stages": child(_in_child("stages", n, cache, out))}
        if report:
            result["report"] = child(_in_child("report", n, cache, out))
    result.update(n=n, cache=label)
    print(json.dumps(result))
    return result


def cold_and_warm(n: int) -> dict:
    """``topics report`` of the ``n`` corpus into an empty cache folder (cold: every text is
    embedded), then the same command again (warm: every vector read from that cache)."""
    import shutil

    cache = HERE / ".work" / "cold-cache"
    shutil.rmtree(cache, ignore_errors=True)
    result = {"n": n, "cache": str(cache.relative_to(HERE))}
    with tempfile.TemporaryDirectory() as out:
        for label in ("cold", "warm"):
            result[label] = child(_in_child("report", n, cache, out))
            print(label, json.dumps(result[label]), flush=True)
    result["embedding_texts_per_s"] = n / (result["cold"]["wall_s"] - result["warm"]["wall_s"])
    return result


def dask_embedding(corpus: Path, n: int, chunk: int) -> dict:
    """Texts per second of MiniLM in this process and on a 1- and a 2-worker LocalCluster
    (1 thread each), and the least cosine between their vectors and this process's."""
    import numpy as np
    from distributed import Client, LocalCluster

    from topics.embedding.backends import get_embedder
    from topics.embedding.distributed import embed_texts_distributed
    from topics.embedding.embed import embed_texts
    from topics.io.corpus import read_corpus
    from topics.text import clean_for_terms

    texts = [clean_for_terms(t) for t in read_corpus(corpus)["abstract"]][:n]
    embedder = get_embedder("minilm")
    embedder.encode(texts[:8])
    start = time.perf_counter()
    ref = embed_texts(texts, embedder, cache=False)
    out = {"n": len(texts), "single_process": {"texts_per_s": len(texts) / (time.perf_counter() - start)}}
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, Client(cluster) as client:
            embed_texts_distributed(texts[-16 * workers:], "minilm", scheduler=client, cache=False, chunk_size=8)  # each worker loads the model
            start = time.perf_counter()
            v = embed_texts_distributed(texts, "minilm", scheduler=client, cache=False, chunk_size=chunk)
            seconds = time.perf_counter() - start
        cos = (v * ref).sum(1) / np.linalg.norm(v, axis=1) / np.linalg.norm(ref, axis=1)
        out[f"{workers}_workers"] = {"texts_per_s": len(texts) / seconds, "min_cosine": float(cos.min())}
    out["speedup_2_vs_1_worker"] = out["2_workers"]["texts_per_s"] / out["1_workers"]["texts_per_s"]
    return out


def dask_throughput(n: int, chunk: int) -> dict:
    """Embedding throughput: one process, a 1-worker and a 2-worker LocalCluster (1 thread each)."""
    import multiprocessing

    result = child([str(Path(__file__).resolve()), "dask-child", "--n", str(n), "--chunk", str(chunk)])
    result["cpu_count"] = multiprocessing.cpu_count()
    with open("/proc/loadavg") as fh:
        result["load_average_after"] = fh.read().split()[:3]
    return result


def _exponent(ns, ts) -> float | None:
    """Least-squares slope of log(time) against log(size): time ~ size ** slope."""
    import numpy as np

    pairs = [(n, t) for n, t in zip(ns, ts) if t and t > 0]
    if len(pairs) < 2:
        return None
    x, y = np.log([p[0] for p in pairs]), np.log([p[1] for p in pairs])
    return float(np.polyfit(x, y, 1)[0])


def table() -> str:
    """The scaling tables of benchmarks/README.md, from results/scale-*.json."""
    runs = {}
    for path in sorted(RESULTS.glob("scale-*-warm-*.json")):
        if "single-fit" in path.name:  # the code before consensus topics: reported apart
            continue
        r = json.loads(path.read_text())
        runs[(r["n"], r["cache"])] = r
    if not runs:
        return "(no scaling results yet)\n"
    keys = sorted(runs)
    lines = ["| stage | " + " | ".join(f"{n:,} ({c})" for n, c in keys) + " | exponent (CPU s) |",
             "|---|" + "---|" * (len(keys) + 1)]
    stages = list(runs[keys[-1]]["stages"]["stages_s"])
    for stage in stages:
        cells, ns, cpus = [], [], []
        for k in keys:
            st = runs[k]["stages"]
            wall, cpu = st["stages_s"].get(stage), (st.get("stages_cpu_s") or {}).get(stage)
            cells.append("-" if wall is None else f"{wall:.1f}" + (f" ({cpu:.1f})" if cpu is not None else ""))
            ns.append(k[0])
            cpus.append(cpu if cpu is not None else wall)
        slope = _exponent(ns, cpus) if stage != "imports" and not stage.startswith("embedding") else None
        lines.append(f"| {stage} | " + " | ".join(cells) + f" | {'-' if slope is None else f'{slope:.2f}'} |")
    def row(label, fn):
        lines.append(f"| **{label}** | " + " | ".join(fn(runs[k]) for k in keys) + " | |")
    row("whole run, wall (CPU) s", lambda r: f"{r['stages']['wall_s']:.0f} ({r['stages'].get('cpu_s', float('nan')):.0f})")
    row("peak RSS", lambda r: f"{r['stages']['peak_rss_mib'] / 1024:.2f} GiB")
    row("topics, outliers", lambda r: f"{r['stages']['n_topics']}, {100 * r['stages']['outlier_share']:.0f} %")
    row("report HTML", lambda r: f"{r['stages']['html_mib']:.1f} MiB")
    row("`topics report` wall (CPU) s, RSS", lambda r: f"{r['report']['wall_s']:.0f} ({r['report']['cpu_s']:.0f}), {r['report']['peak_rss_mib'] / 1024:.2f} GiB" if "report" in r else "-")
    return "\n".join(lines) + "\n"


def update_readme() -> None:
    write_block("<!-- scaling table: benchmarks/scale.py --table -->", "<!-- end of scaling table -->", table().rstrip("\n"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("data")
    e = sub.add_parser("embed")
    e.add_argument("--n", type=int, default=100_000)
    e.add_argument("--chunk-size", type=int, default=1024)
    sc = sub.add_parser("synth-cache")
    sc.add_argument("--n", type=int, default=100_000)
    r = sub.add_parser("run")
    r.add_argument("--n", type=int, nargs="+", default=list(SIZES))
    r.add_argument("--cache", choices=["real", "synthetic"], default="real")
    r.add_argument("--report", action="store_true", help="also time the `topics report` command")
    r.add_argument("--tag", default="warm")
    c = sub.add_parser("cold")
    c.add_argument("--n", type=int, default=100_000)
    d = sub.add_parser("dask")
    d.add_argument("--n", type=int, default=384)
    d.add_argument("--chunk", type=int, default=32)
    for name, what in (("stages", "one size's stages"), ("report", "one size's `topics report`")):
        one = sub.add_parser(name, help=f"{what}, as JSON (what `run` and `cold` start in a fresh process)")
        one.add_argument("--n", type=int, required=True)
        one.add_argument("--cache", type=Path, required=True)
        one.add_argument("--out", type=Path, required=True)
    dc = sub.add_parser("dask-child", help="the embedding throughputs of `dask`, as JSON (run in a fresh process)")
    dc.add_argument("--n", type=int, default=384)
    dc.add_argument("--chunk", type=int, default=32)
    parser.add_argument("--table", action="store_true", help="only rewrite the scaling table in benchmarks/README.md")
    args = parser.parse_args(argv)
    if args.table:
        update_readme()
        print(table())
    elif args.command == "data":
        write_data()
    elif args.command == "embed":
        embed(args.n, args.chunk_size)
    elif args.command == "dask":
        result = dask_throughput(args.n, args.chunk)
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "scale-dask-throughput.json").write_text(json.dumps(result, indent=2) + "\n")
        print(json.dumps(result))
    elif args.command == "cold":
        result = cold_and_warm(args.n)
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / f"scale-{args.n}-cold.json").write_text(json.dumps(result, indent=2) + "\n")
        print(json.dumps(result))
    elif args.command == "stages":
        print(json.dumps(measure_stages(corpus_path(args.n), args.cache, args.out)))
    elif args.command == "report":
        print(json.dumps(report_command(corpus_path(args.n), args.cache, args.out)))
    elif args.command == "dask-child":
        print(json.dumps(dask_embedding(corpus_path(4_364), args.n, args.chunk)))
    elif args.command == "synth-cache":
        synthetic_cache(args.n)
    elif args.command == "run":
        from topics.embedding.cache import default_cache_dir

        cache = default_cache_dir() if args.cache == "real" else SYNTHETIC_CACHE
        RESULTS.mkdir(exist_ok=True)
        for n in args.n:
            result = run_size(n, cache, args.cache, args.report)
            path = RESULTS / f"scale-{n}-{args.tag}-{args.cache}.json"
            path.write_text(json.dumps(result, indent=2) + "\n")
        update_readme()
    else:
        parser.print_help()


if __name__ == "__main__":
    main()
