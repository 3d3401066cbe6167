"""Two follow-ups of ``consensus_sensitivity.py`` that change the consensus's runs themselves
(scratch experiments of session 21, kept to repeat them; the package is not changed).

    python benchmarks/consensus_sensitivity_runs.py init torch-bf16 torch-bf16-f16 0   # today's graph, float16's spectral init
    python benchmarks/consensus_sensitivity_runs.py init torch-bf16 torch-bf16 0       # its control: today's own init
    python benchmarks/consensus_sensitivity_runs.py perturbed torch-bf16 0             # each run on its own perturbed graph
    python benchmarks/consensus_sensitivity_runs.py compare                            # results/consensus-sensitivity-runs.json

``init GRAPH INIT SEED``: the 40 runs of random state SEED on vector set GRAPH's exact
neighbour graph, each UMAP starting from INIT's spectral layout (UMAP's own, computed once
from INIT's fuzzy graph after the same pruning, scaled as UMAP scales it, without its 1e-4
noise). ``perturbed VECTORS SEED``: the consensus where every run's UMAP sees 14
neighbours drawn (by the run's seed) from each paper's 16 nearest, where the package
gives it the 14 nearest; the co-association, the partition (best of 10 Leiden starts)
and ``assign_outliers`` use the exact graph as in the package. Runs are written to the
cache folder of ``consensus_sensitivity.py``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from consensus_sensitivity import SEEDS, VECTORS, graph_moves, pair_scores, settings  # noqa: E402

CACHE = HERE / ".work" / "consensus-runs"  # consensus_sensitivity.py's default cache
RESULTS = HERE / "results" / "consensus-sensitivity-runs.json"


def _ordered(name: str):
    from topics.clustering.order import canonical_order
    from topics.io.datasets import iclr_full

    texts = iclr_full()["abstract"].astype(str).tolist()
    vectors = np.load(VECTORS[name]).astype(np.float32)
    order = canonical_order(vectors, texts)
    return vectors[order], order, settings(len(texts))


def _read(coords: np.ndarray, st: dict) -> list[np.ndarray]:
    """The four HDBSCAN readings of a layout, as ``topics.clustering.runs`` reads it."""
    from hdbscan import HDBSCAN
    from hdbscan.hdbscan_ import _tree_to_labels

    from topics.clustering.runs import readings

    sets = readings(st["min_cluster_size"])
    first = HDBSCAN(min_cluster_size=sets[0][0], min_samples=st["min_samples"], cluster_selection_method=sets[0][1]).fit(coords)
    tree = first.single_linkage_tree_.to_numpy()
    return [first.labels_] + [_tree_to_labels(coords, tree, size, method)[0] for size, method in sets[1:]]


def _umap(k: int, seed: int, knn, init="spectral"):
    from umap import UMAP

    from topics.clustering.layout import umap_knn

    return UMAP(n_neighbors=k, n_components=5, n_epochs=100, min_dist=0.0, metric="cosine", random_state=seed, n_jobs=1,
                init=init, precomputed_knn=umap_knn(knn))


def spectral_init(name: str) -> np.ndarray:
    """UMAP's spectral layout of vector set ``name``'s pruned fuzzy graph, scaled to 10."""
    from umap.spectral import spectral_layout

    from topics.clustering.layout import no_search_index_warning
    from topics.clustering.neighbors import nearest_neighbors

    vectors, _, st = _ordered(name)
    k = st["n_neighbors"]
    indices, distances = nearest_neighbors(vectors, n_neighbors=k + 1)
    reducer = _umap(k, 0, (indices[:, :k], distances[:, :k]))
    reducer.transform_mode = "graph"
    with no_search_index_warning():
        reducer.fit(vectors)
    graph = reducer.graph_.tocoo()
    graph.sum_duplicates()
    graph.data[graph.data < graph.data.max() / 100.0] = 0.0  # UMAP's pruning at 100 epochs
    graph.eliminate_zeros()
    layout = spectral_layout(vectors, graph.tocsr(), 5, np.random.RandomState(0), metric="cosine")
    return (layout * (10.0 / np.abs(layout).max())).astype(np.float32)


def init_runs(graph_name: str, init_name: str, seed: int) -> None:
    from topics.clustering.consensus import run_seeds
    from topics.clustering.layout import no_search_index_warning
    from topics.clustering.neighbors import nearest_neighbors

    init = spectral_init(init_name)
    vectors, order, st = _ordered(graph_name)
    k = st["n_neighbors"]
    indices, distances = nearest_neighbors(vectors, n_neighbors=k + 1)
    runs, start = [], time.perf_counter()
    for s in run_seeds(seed, 40):
        with no_search_index_warning():
            runs += _read(_umap(k, s, (indices[:, :k], distances[:, :k]), init=init).fit_transform(vectors), st)
    np.savez_compressed(CACHE / f"initswap-{graph_name}-{init_name}-{seed}.npz", runs=np.asarray(runs, dtype=np.int32),
                        indices=indices, order=order)
    print(graph_name, init_name, seed, f"{time.perf_counter() - start:.0f} s", flush=True)


def perturbed_runs(name: str, seed: int) -> None:
    from topics.clustering.consensus import assign_outliers, coassociation, partition_graph, run_seeds
    from topics.clustering.layout import no_search_index_warning
    from topics.clustering.neighbors import nearest_neighbors

    vectors, order, st = _ordered(name)
    k, n = st["n_neighbors"], len(vectors)
    indices, distances = nearest_neighbors(vectors, n_neighbors=k + 3)  # itself and its 17 nearest
    runs, start = [], time.perf_counter()
    for s in run_seeds(seed, 40):
        rng = np.random.default_rng(10_000 + s)
        keep = np.sort(np.argsort(rng.random((n, k + 1)), axis=1)[:, : k - 1], axis=1) + 1  # 14 of the 16 nearest
        knn = (np.column_stack([indices[:, 0], np.take_along_axis(indices, keep, 1)]),
               np.column_stack([distances[:, 0], np.take_along_axis(distances, keep, 1)]))
        with no_search_index_warning():
            runs += _read(_umap(k, s, knn).fit_transform(vectors), st)
    runs = np.asarray(runs, dtype=np.int32)
    exact = (indices[:, : k + 1], distances[:, : k + 1])
    core = partition_graph(coassociation(runs, exact[0]).power(2.0), min_size=st["min_cluster_size"], random_state=seed)
    labels = assign_outliers(core, *exact, min_share=st["outlier_share"])
    out = np.empty_like(labels)
    out[order] = labels  # the order of iclr_full()
    np.savez_compressed(CACHE / f"perturb-{name}-{seed}.npz", runs=runs, indices=exact[0], order=order, labels=out)
    print(name, seed, int(out.max()) + 1, "topics", f"{time.perf_counter() - start:.0f} s", flush=True)


def compare() -> None:
    """Co-association moves of the init swap, and seed bar against cross-vector ARI of the perturbed consensus."""
    swap = {("today", 0): CACHE / "runs-torch-bf16-0.npz", ("today", 1): CACHE / "runs-torch-bf16-1.npz",
            ("float16", 0): CACHE / "runs-torch-bf16-f16-0.npz",
            ("today graph, own init", 0): CACHE / "initswap-torch-bf16-torch-bf16-0.npz",
            ("today graph, float16 init", 0): CACHE / "initswap-torch-bf16-torch-bf16-f16-0.npz"}
    out = {}
    if all(p.exists() for p in swap.values()):
        out["init_swap_moves"] = graph_moves(swap)
    names = ("torch-bf16", "torch-bf16-f16")
    paths = {(n, s): CACHE / f"perturb-{n}-{s}.npz" for n in names for s in SEEDS}
    if all(p.exists() for p in paths.values()):
        labels = {key: np.load(p)["labels"] for key, p in paths.items()}
        out["perturbed_topics"] = {f"{k[0]}/{k[1]}": int(v.max()) + 1 for k, v in labels.items()}
        out["perturbed_pairs"] = [
            dict(pair_scores(labels[a], labels[b]), a=f"{a[0]}/{a[1]}", b=f"{b[0]}/{b[1]}",
                 kind="seed bar" if a[0] == b[0] else ("cross, same seed" if a[1] == b[1] else "cross, other seed"))
            for a, b in itertools.combinations(labels, 2)]
        out["perturbed_moves"] = graph_moves(paths)
    RESULTS.write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("init", "perturbed", "compare"))
    parser.add_argument("args", nargs="*")
    args = parser.parse_args()
    if args.what == "init":
        init_runs(args.args[0], args.args[1], int(args.args[2]))
    elif args.what == "perturbed":
        perturbed_runs(args.args[0], int(args.args[1]))
    else:
        compare()


if __name__ == "__main__":
    main()
