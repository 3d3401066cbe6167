"""Scaling benchmark: 4k, 20k and 100k abstracts, cold and warm, per stage, peak RSS.

    python benchmarks/scale.py data               # write the resampled corpora (seconds)
    python benchmarks/scale.py embed --n 100000   # embed into the normal cache, resumable (~40 min on 2 cores)
    python benchmarks/scale.py run --n 4364 20000 100000   # per-stage timings, one subprocess per size
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
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / ".work" / "scale"
RESULTS = HERE / "results"
PY = sys.executable
SIZES = (4_364, 20_000, 100_000)


def make_corpus(n: int, *, seed: int = 0, drop: float = 0.05):
    """The first ``n`` rows of the resampled corpus (module docs); a corpus frame."""
    import numpy as np
    import pandas as pd

    from topics.datasets import iclr_full

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

    from topics.corpus import read_corpus
    from topics.embed import EmbeddingCache, embed_texts, get_embedder, _missing_keys
    from topics.text import clean_for_terms

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    corpus = read_corpus(corpus_path(n))
    texts = [clean_for_terms(t) for t in corpus["abstract"]]
    embedder = get_embedder("minilm")
    _, missing = _missing_keys(texts, EmbeddingCache().load(embedder.fingerprint()))
    start = time.perf_counter()
    embed_texts(texts, embedder, cache=True, show_progress=True, chunk_size=chunk_size)
    seconds = time.perf_counter() - start
    out = {"n": n, "embedded": len(missing), "seconds": seconds, "texts_per_s": len(missing) / seconds if missing else None,
           "embedding": embedder.name, "chunk_size": chunk_size}
    (HERE / ".work").mkdir(exist_ok=True)
    with open(HERE / ".work" / "scale-embed-log.jsonl", "a") as fh:
        fh.write(json.dumps(out) + "\n")
    print(json.dumps(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("data")
    e = sub.add_parser("embed")
    e.add_argument("--n", type=int, default=100_000)
    e.add_argument("--chunk-size", type=int, default=1024)
    args = parser.parse_args()
    if args.command == "data":
        write_data()
    elif args.command == "embed":
        embed(args.n, args.chunk_size)
    else:
        parser.print_help()


if __name__ == "__main__":
    main()
