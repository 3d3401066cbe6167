"""Embedding throughput and batch independence: fixed-shape length buckets against the previous batching.

    python benchmarks/embedding_throughput.py                  # 600 abstracts of the full lists
    python benchmarks/embedding_throughput.py --n 200 --repeats 1 --precision fp32
    python benchmarks/embedding_throughput.py --precisions     # fp32, bf16 and int8 on 300 abstracts
    python benchmarks/embedding_throughput.py --table          # only rewrite the table in benchmarks/README.md

What is compared, on the same texts in the same process ("title. abstract" as
:func:`topics.pipeline.embedding_texts` builds them, drawn at random from the full ICLR
lists, long ones as windows):

* **previous** -- the batching before fixed shapes: sentence-transformers' ``encode``,
  32 pieces per pass sorted by character length and padded to the longest of the pass;
* **fixed shapes** -- :class:`topics.embedding.backends.SentenceTransformerEmbedder` now:
  every piece padded to its length bucket (:func:`topics.embedding.backends.length_bucket`),
  passes of a fixed shape per bucket (:func:`topics.embedding.backends.fixed_shape_batches`).

Reported: texts/s (wall and per CPU second, best of ``--repeats`` alternating rounds),
the word pieces each scheme runs through the model against the real ones (padding and
dummy rows; machine-independent, unlike the timings), the largest difference and the
smallest cosine between the two schemes' vectors, and batch independence: the first
``--check-n`` texts embedded again shuffled and in chunks of 25 (as a resumed run or a
partly cached corpus would), counting the vectors that are not bit-identical.

``--precisions`` compares the backend's precisions on the same texts instead (fixed
shapes; int8 is PyTorch's dynamic quantisation of the linear layers, one text a pass):
texts/s (best of ``--repeats`` alternating rounds) and the smallest and median cosine of
each vector to its fp32 one (issue 19 adopts int8 only at a minimum of 0.99).

These 2-core machines are shared and noisy: compare the ratios within one run.
Results go to ``benchmarks/results/embedding-throughput-<cpu>.json`` and
``benchmarks/results/embedding-precisions-<cpu>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from datetime import date
from pathlib import Path

import numpy as np

from run import HERE, RESULTS, commit, machine, write_block  # benchmarks/run.py

START, END = "<!-- embedding throughput table: benchmarks/embedding_throughput.py --table -->", "<!-- end of embedding throughput table -->"


def embedders(precision: str):
    """The backend as it is, and the previous batching (the same windows and pooling)."""
    from topics.embedding.backends import SentenceTransformerEmbedder

    class Previous(SentenceTransformerEmbedder):
        """The batching before fixed shapes: sentence-transformers' encode, 32 per pass."""

        def _encode(self, texts, show_progress):
            model = self._load()
            options = dict(batch_size=32, show_progress_bar=False, convert_to_numpy=True)
            if self.precision != "bf16":
                return np.asarray(model.encode(list(texts), normalize_embeddings=True, **options), dtype=np.float32)
            import torch

            with torch.autocast("cpu", dtype=torch.bfloat16):
                vectors = np.asarray(model.encode(list(texts), normalize_embeddings=False, **options), dtype=np.float32)
            return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)

    return SentenceTransformerEmbedder(precision=precision), Previous(precision=precision)


def word_pieces(embedder, texts: list[str]) -> dict[str, int]:
    """Word pieces each batching runs through the model for ``texts`` (no forward pass):
    the real ones, passes of 32 in input order padded to their longest, the previous
    batching (sorted by characters, then the same), and fixed shapes with dummy rows."""
    from topics.embedding.backends import SentenceTransformerEmbedder, fixed_shape_batches

    class Probe(SentenceTransformerEmbedder):
        counts: dict[str, int] = {}

        def _encode(self, pieces, show_progress):
            model = self._load()
            limit = int(model.max_seq_length)
            n = self._token_counts(model, pieces)
            padded = lambda order: sum(int(n[order[i : i + 32]].max()) * len(order[i : i + 32]) for i in range(0, len(n), 32))  # noqa: E731
            shapes = fixed_shape_batches(n, pass_pieces=self._pass_pieces(limit), limit=limit)
            self.counts = {
                "real": int(n.sum()),
                "unsorted_batches_of_32": padded(np.arange(len(n))),
                "previous": padded(np.argsort([-len(t) for t in pieces])),  # sentence-transformers sorts by characters
                "fixed_shapes": sum(rows * length for length, rows, _ in shapes),
                "pieces": len(pieces),
            }
            return np.zeros((len(pieces), 1), dtype=np.float32)

    probe = Probe(precision=embedder.precision, batch_size=embedder.batch_size)
    probe._model = embedder._load()
    probe.encode(texts)
    return probe.counts


def save(kind: str, load: float, **fields) -> tuple[Path, dict]:
    """Write ``fields`` with the date, commit, machine and load averages (``load``: before
    the run) to ``results/embedding-<kind>-<cpu>.json``; return the path and the results."""
    results = {
        "date": date.today().isoformat(),
        "commit": commit(),
        "machine": machine(),
        "load_average_1min_before": load,
        "load_average_1min_after": os.getloadavg()[0],
        **fields,
    }
    tag = "avx512-bf16" if results["machine"]["native_bf16"] else "avx2"
    path = RESULTS / f"embedding-{kind}-{tag}.json"
    RESULTS.mkdir(exist_ok=True)
    path.write_text(json.dumps(results, indent=2) + "\n")
    return path, results


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def regrouped(embedder, texts: list[str], seed: int = 1) -> np.ndarray:
    """``texts`` embedded shuffled, 25 at a time, returned in their order."""
    order = np.random.default_rng(seed).permutation(len(texts))
    out = np.empty((len(texts), 384), dtype=np.float32)
    for i in range(0, len(order), 25):
        part = order[i : i + 25]
        out[part] = embedder.encode([texts[j] for j in part])
    return out


def run(n: int, precision: str, repeats: int, check_n: int) -> Path:
    from topics.io.datasets import iclr_full
    from topics.pipeline import embedding_texts

    texts = embedding_texts(iclr_full().sample(n=n, random_state=0))
    new, old = embedders(precision)
    load = os.getloadavg()[0]
    rounds = {"previous": [], "fixed_shapes": []}
    vectors = {}
    for r in range(repeats):
        for name, emb in (("previous", old), ("fixed_shapes", new)):
            print(f"round {r + 1}/{repeats}: {name} on {n} texts ...", flush=True)
            vectors[name], wall, cpu = timed(lambda: emb.encode(texts))
            rounds[name].append({"wall_s": wall, "cpu_s": cpu})
    a, b = vectors["previous"], vectors["fixed_shapes"]
    cos = np.sum(a * b, axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    print(f"batch independence: {check_n} texts again, shuffled, 25 at a time ...", flush=True)
    check = texts[:check_n]
    independence = {}
    for name, emb in (("previous", old), ("fixed_shapes", new)):
        again = regrouped(emb, check)
        differ = ~np.all(again == vectors[name][:check_n], axis=1)
        independence[name] = {"differing": int(differ.sum()), "max_abs": float(np.abs(again - vectors[name][:check_n]).max())}
    per = lambda name, key: n / min(x[key] for x in rounds[name])  # noqa: E731
    path, results = save(
        "throughput",
        load,
        n=n,
        precision=new.precision,
        pass_pieces=new.batch_size * 256,
        rounds=rounds,
        texts_per_s={name: {"wall": per(name, "wall_s"), "cpu": per(name, "cpu_s")} for name in rounds},
        ratio_wall=per("fixed_shapes", "wall_s") / per("previous", "wall_s"),
        ratio_cpu=per("fixed_shapes", "cpu_s") / per("previous", "cpu_s"),
        word_pieces=word_pieces(new, texts),
        max_abs_difference=float(np.abs(a - b).max()),
        min_cosine=float(cos.min()),
        batch_independence={"n": check_n, **independence},
    )
    print(json.dumps({k: results[k] for k in ("texts_per_s", "ratio_wall", "ratio_cpu", "word_pieces", "min_cosine", "batch_independence")}, indent=2))
    print(f"wrote {path}")
    return path


def precisions(n: int, repeats: int) -> Path:
    """fp32, bf16 and int8 on the same ``n`` texts: texts/s and cosine to fp32."""
    import torch

    from topics.embedding.backends import SentenceTransformerEmbedder
    from topics.io.datasets import iclr_full
    from topics.pipeline import embedding_texts

    texts = embedding_texts(iclr_full().sample(n=n, random_state=0))
    names = ["fp32", "bf16", "int8"]
    models = {p: SentenceTransformerEmbedder(precision=p) for p in names}
    for emb in models.values():
        emb.encode(texts[:4])  # load and warm up
    load = os.getloadavg()[0]
    rounds = {p: [] for p in names}
    vectors = {}
    for r in range(repeats):
        for p in names:
            print(f"round {r + 1}/{repeats}: {p} on {n} texts ...", flush=True)
            vectors[p], wall, cpu = timed(lambda: models[p].encode(texts))
            rounds[p].append({"wall_s": wall, "cpu_s": cpu})
    rows = {}
    for p in names:
        cos = np.einsum("ij,ij->i", vectors[p].astype(np.float64), vectors["fp32"].astype(np.float64))
        rows[p] = {
            "texts_per_s": n / min(x["wall_s"] for x in rounds[p]),
            "texts_per_cpu_s": n / min(x["cpu_s"] for x in rounds[p]),
            "min_cosine": float(cos.min()),
            "median_cosine": float(np.median(cos)),
        }
    path, _ = save("precisions", load, quantized_engine=torch.backends.quantized.engine, n=n, rounds=rounds, precisions=rows)
    print(json.dumps(rows, indent=2))
    print(f"wrote {path}")
    return path


def table() -> str:
    rows = [
        "| results file | commit | CPU, precision | texts | texts/s previous (wall, per CPU s) | texts/s fixed shapes | ratio wall, CPU | word pieces run / real: unsorted, previous, fixed shapes | min cosine to previous | vectors changed by regrouping: previous, fixed shapes |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for path in sorted(RESULTS.glob("embedding-throughput-*.json")):
        r = json.loads(path.read_text())
        t, w, bi = r["texts_per_s"], r["word_pieces"], r["batch_independence"]
        cpu = "AVX-512 BF16" if r["machine"].get("native_bf16") else "AVX2"
        rows.append(
            f"| `{path.name}` | {r['commit']} | {cpu}, {r['precision']} | {r['n']:,} | "
            f"{t['previous']['wall']:.1f}, {t['previous']['cpu']:.1f} | {t['fixed_shapes']['wall']:.1f}, {t['fixed_shapes']['cpu']:.1f} | "
            f"{r['ratio_wall']:.2f}, {r['ratio_cpu']:.2f} | "
            f"{w['unsorted_batches_of_32'] / w['real']:.3f}, {w['previous'] / w['real']:.3f}, {w['fixed_shapes'] / w['real']:.3f} | "
            f"{r['min_cosine']:.7f} | {bi['previous']['differing']} of {bi['n']} (max {bi['previous']['max_abs']:.1e}), "
            f"{bi['fixed_shapes']['differing']} of {bi['n']} |"
        )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=600, help="abstracts drawn from the full lists (default 600)")
    parser.add_argument("--precision", default="auto", choices=["auto", "fp32", "bf16"])
    parser.add_argument("--repeats", type=int, default=2, help="alternating rounds; the best of each is kept (default 2)")
    parser.add_argument("--check-n", type=int, default=200, help="texts embedded again in another grouping (default 200)")
    parser.add_argument("--precisions", action="store_true", help="compare fp32, bf16 and int8 instead (default --n 300)")
    parser.add_argument("--table", action="store_true", help="only rebuild the README table from results/")
    args = parser.parse_args()
    if args.precisions:
        precisions(300 if args.n == 600 else args.n, args.repeats)
        return
    if not args.table:
        run(args.n, args.precision, args.repeats, min(args.check_n, args.n))
    write_block(START, END, table(), missing_heading="## Embedding throughput: fixed-shape length buckets")
    print(f"updated {HERE / 'README.md'}")


if __name__ == "__main__":
    main()
