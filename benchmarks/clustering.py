"""Clustering at scale: today's UMAP + HDBSCAN against the alternatives the issue names.

    python benchmarks/clustering.py --n 20000 100000 [--cache synthetic|real]

For one corpus of the scaling benchmark (``benchmarks/scale.py``), times in one process:

* ``knn_pynndescent``: the approximate cosine kNN graph (pynndescent, k = n_neighbors of
  ``topics.size_rule``), computed once;
* ``umap5_shared_knn``: UMAP to 5-D, seeded, given that graph (``precomputed_knn``), as a
  consensus of several seeds could share one graph;
* ``umap2_shared_knn``: the 2-D map layout from the same graph;
* ``hdbscan``: the ``hdbscan`` package on the 5-D layout (what ``TopicModel`` runs);
* ``fast_hdbscan``: ``fast_hdbscan.HDBSCAN`` on the same layout, same parameters;
* ``evoc``: EVoC (``evoc.EVoC``) directly on the embeddings, no UMAP at all;

with the agreement (adjusted Rand index, outliers as their own label) of fast_hdbscan
and EVoC against hdbscan. Each library's numba code is compiled once before timing
(a first fit on 2,000 rows), so the times are the warm ones a cached installation sees.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from scale import RESULTS, SYNTHETIC_CACHE, cached_vectors  # noqa: E402


def _vectors(n: int, cache: str) -> np.ndarray:
    from topics.embedding.cache import default_cache_dir

    return cached_vectors(n, SYNTHETIC_CACHE if cache == "synthetic" else default_cache_dir())


def _rss() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(n: int, cache: str) -> dict:
    import evoc
    import fast_hdbscan
    import hdbscan
    from pynndescent import NNDescent
    from sklearn.metrics import adjusted_rand_score
    from umap import UMAP

    from topics.clustering.model import size_rule

    x = _vectors(n, cache)
    p = size_rule(n)
    k = p["n_neighbors"]
    t, rss = {}, {}

    def timed(name, fn):
        start = time.perf_counter()
        out = fn()
        t[name] = time.perf_counter() - start
        rss[name] = _rss()
        return out

    # compile every numba kernel once, on a small slice
    warm = x[:2000]
    NNDescent(warm, metric="cosine", n_neighbors=k, random_state=0, n_jobs=1)
    UMAP(n_neighbors=k, n_components=5, metric="cosine", min_dist=0.0, random_state=0, n_jobs=1).fit(warm)
    fast_hdbscan.HDBSCAN(min_cluster_size=10).fit(warm[:, :5])
    evoc.EVoC(random_state=0).fit(warm)

    index = timed("knn_pynndescent", lambda: NNDescent(x, metric="cosine", n_neighbors=k, random_state=0, n_jobs=1))
    idx, dist = index.neighbor_graph

    def umap(dims, min_dist):
        return UMAP(n_neighbors=k, n_components=dims, metric="cosine", min_dist=min_dist, random_state=0, n_jobs=1,
                    precomputed_knn=(idx.copy(), dist.copy(), None)).fit_transform(x)

    five = timed("umap5_shared_knn", lambda: umap(5, 0.0))
    timed("umap2_shared_knn", lambda: umap(2, 0.1))
    args = dict(min_cluster_size=p["min_cluster_size"], min_samples=p["min_samples"])
    ref = timed("hdbscan", lambda: hdbscan.HDBSCAN(metric="euclidean", cluster_selection_method="eom", **args).fit(five).labels_)
    fast = timed("fast_hdbscan", lambda: fast_hdbscan.HDBSCAN(cluster_selection_method="eom", **args).fit(five).labels_)
    ev = timed("evoc", lambda: evoc.EVoC(random_state=0).fit(x).labels_)

    def summary(labels):
        return {"n_clusters": int(labels.max() + 1), "outlier_share": float(np.mean(labels == -1)),
                "ari_vs_hdbscan": float(adjusted_rand_score(ref, labels))}

    return {"n": n, "cache": cache, "params": p, "seconds": t, "peak_rss_mib_after": rss,
            "hdbscan": summary(ref), "fast_hdbscan": summary(fast), "evoc": summary(ev)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[20_000, 100_000])
    parser.add_argument("--cache", choices=["real", "synthetic"], default="synthetic")
    args = parser.parse_args()
    RESULTS.mkdir(exist_ok=True)
    for n in args.n:
        result = run(n, args.cache)
        (RESULTS / f"clustering-{n}-{args.cache}.json").write_text(json.dumps(result, indent=2) + "\n")
        print(json.dumps(result))


if __name__ == "__main__":
    main()
