"""Why the consensus topics follow the exact vectors: the final partition step, tested offline.

    python benchmarks/consensus_sensitivity.py --fit torch-bf16 0   # one fit's 40 UMAP runs, cached (minutes)
    python benchmarks/consensus_sensitivity.py                      # every fit not cached yet, then the table

Three vector sets of the full ICLR 2024 + 2025 lists (4,364 x 384, the order of
``topics.io.datasets.iclr_full()``): today's PyTorch bf16 MiniLM vectors, OpenVINO fp32,
and today's rounded to float16 (the committed fixture ``tests/data/iclr_full_minilm.npy``).
For each set and random states 0 and 1 the package's consensus runs (40 UMAP runs of 100
epochs, each read four times, the exact 15-nearest-neighbour graph; the settings
``TopicModel`` resolves for 4,364 papers, rows in canonical order) are fitted once and
cached with the neighbour graph as an .npz (``--cache``). The final labels are then
rebuilt offline from the cached runs with several partition steps over the same squared
co-association graph, each followed by the package's ``assign_outliers``:

- ``best10``: today's, the partition of highest modularity of 10 Leiden starts;
- ``one``: one Leiden start; ``best50``, ``best200``: best of 50, of 200;
- ``cc50``: consensus of 50 Leiden partitions (Lancichinetti & Fortunato 2012): the share
  of starts that put each edge's papers together, on the kNN edges, partitioned again
  until every start agrees (at most 10 rounds), then the best-modularity partition of
  the last round;
- ``thr50``: the same co-classification of 50 starts thresholded at 0.5 (connected
  components of the edges together in at least half of the starts).

Scores (``topics.stats.metrics.seed_agreement``): the seed bar (ARI between random states 0
and 1 of one vector set), the cross-vector ARI at the same random state and at the other,
topic counts, and seconds per partition. Results: ``benchmarks/results/consensus-sensitivity.json``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "consensus-sensitivity.json"
WORK = HERE / ".work"  # git-ignored
#: The vector sets compared. The first two are made by ``embedding_runtimes.py --embed torch-bf16
#: --out .work/vectors/torch-bf16.npy`` and ``--embed openvino-fp32 --out .work/vectors/ov-fp32.npy``
#: (minutes each); the third is the test suite's committed fixture.
VECTORS = {
    "torch-bf16": WORK / "vectors" / "torch-bf16.npy",
    "ov-fp32": WORK / "vectors" / "ov-fp32.npy",
    "torch-bf16-f16": ROOT / "tests" / "data" / "iclr_full_minilm.npy",
}
SEEDS = (0, 1)
JITTER = "torch-bf16-jitter"
VARIANTS = ("best10", "one", "best50", "best200", "cc50", "thr50")


def settings(n_docs: int) -> dict:
    """The consensus settings ``TopicModel()`` resolves for ``n_docs`` papers (4,364: k=15, size 22)."""
    from topics.clustering.model import resolve_method, size_rule

    assert resolve_method("auto", n_docs) == "consensus"
    rule = size_rule(n_docs)
    return {"n_neighbors": min(rule["n_neighbors"], n_docs - 2), "min_cluster_size": rule["min_cluster_size"],
            "min_samples": rule["min_samples"], "n_runs": 40, "n_epochs": 100, "n_components": 5, "outlier_share": 0.3}


def fit_runs(name: str, seed: int, cache: Path, n_jobs: int) -> Path:
    """The 40 runs and neighbour graph of one fit (rows in canonical order), cached to an .npz.

    ``name`` JITTER (``torch-bf16-jitter``) is today's vectors with today's exact neighbour
    graph, its distances (not which papers are neighbours) moved by up to 1e-6 (uniform,
    one fixed draw): the size of the differences between the vector sets, without a
    change of any neighbour. ``name`` "A+graph-B" is vector set A's vectors with B's exact
    neighbour graph."""
    from topics.clustering.consensus import ConsensusClusterer
    from topics.clustering.neighbors import nearest_neighbors
    from topics.clustering.order import canonical_order
    from topics.io.datasets import iclr_full

    path = cache / f"runs-{name}-{seed}.npz"
    if path.exists():
        return path
    texts = iclr_full()["abstract"].astype(str).tolist()
    vector_name, _, graph_name = name.removesuffix("-jitter").partition("+graph-")
    vectors = np.load(VECTORS[vector_name]).astype(np.float32)
    assert len(vectors) == len(texts), (name, vectors.shape)
    order = canonical_order(vectors, texts)
    neighbors = None
    if graph_name:  # these vectors, another set's exact neighbour graph (indices and distances)
        other = np.load(VECTORS[graph_name]).astype(np.float32)[order]
        neighbors = nearest_neighbors(other, n_neighbors=settings(len(texts))["n_neighbors"] + 1)
    if name == JITTER:
        indices, distances = nearest_neighbors(vectors[order], n_neighbors=settings(len(texts))["n_neighbors"] + 1)
        noise = np.random.default_rng(12345).uniform(-1e-6, 1e-6, distances.shape)
        noise[indices == np.arange(len(texts))[:, None]] = 0.0  # each paper stays at distance 0 from itself
        neighbors = (indices, np.clip(distances + noise, 0.0, None).astype(distances.dtype))
    start = time.perf_counter()
    clusterer = ConsensusClusterer(**settings(len(texts)), neighbors=neighbors, n_jobs=n_jobs, random_state=seed).fit(vectors[order])
    seconds = time.perf_counter() - start
    indices, distances = clusterer.neighbors_
    np.savez_compressed(path, runs=clusterer.runs_, indices=indices, distances=distances, order=order,
                        labels=clusterer.labels_, core=clusterer.core_labels_, seconds=seconds)
    print(f"{name} seed {seed}: {clusterer.labels_.max() + 1} topics, {seconds:.0f} s", flush=True)
    return path


def leiden_starts(graph, seeds, resolution: float = 1.0) -> tuple[list[np.ndarray], list[float]]:
    """Memberships and modularities of one Leiden start per seed (igraph, as ``partition_graph`` runs it)."""
    import random

    import igraph
    import scipy.sparse as sp

    upper = sp.triu(graph, k=1).tocoo()
    g = igraph.Graph(n=graph.shape[0], edges=np.column_stack([upper.row, upper.col]), edge_attrs={"weight": upper.data})
    memberships, qualities = [], []
    try:
        for seed in seeds:
            igraph.set_random_number_generator(random.Random(seed))
            m = g.community_leiden(objective_function="modularity", weights="weight", resolution=resolution, n_iterations=-1).membership
            memberships.append(np.asarray(m))
            qualities.append(g.modularity(m, weights="weight", resolution=resolution))
    finally:
        igraph.set_random_number_generator(random)
    return memberships, qualities


def by_size(membership: np.ndarray, min_size: int) -> np.ndarray:
    """Groups numbered by size, largest first; groups under ``min_size`` get -1 (as ``partition_graph``)."""
    sizes = np.bincount(membership, minlength=1)
    order = sorted(np.flatnonzero(sizes >= max(min_size, 1)), key=lambda c: (-sizes[c], c))
    relabel = np.full(len(sizes), -1)
    relabel[order] = np.arange(len(order))
    return relabel[membership]


def coclassification(memberships, graph):
    """Share of the memberships that put the two papers of each edge of ``graph`` together, on its edges."""
    import scipy.sparse as sp

    upper = sp.triu(graph, k=1).tocoo()
    together = np.mean([m[upper.row] == m[upper.col] for m in memberships], axis=0)
    keep = together > 0
    matrix = sp.coo_matrix((together[keep], (upper.row[keep], upper.col[keep])), shape=graph.shape).tocsr()
    return matrix + matrix.T


def consensus_partition(graph, seeds, *, rounds: int = 10) -> tuple[np.ndarray, int]:
    """Lancichinetti & Fortunato's consensus: partition the co-classification of many starts again until they agree."""
    memberships, qualities = leiden_starts(graph, seeds)
    for step in range(1, rounds + 1):
        first = memberships[0]
        if all(np.array_equal(first, m) for m in memberships[1:]):
            return first, step
        graph = coclassification(memberships, graph)
        memberships, qualities = leiden_starts(graph, [s + 7919 * step for s in seeds])
    return memberships[int(np.argmax(qualities))], rounds


def thresholded(memberships, graph, threshold: float = 0.5) -> np.ndarray:
    """Connected components of the edges that at least ``threshold`` of the starts keep together."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    together = coclassification(memberships, graph)
    strong = sp.csr_matrix(together >= threshold)
    return connected_components(strong, directed=False)[1]


def partitions(path: Path, seed: int) -> dict:
    """Final labels (original row order) of every variant from one cached fit, with seconds and topic counts."""
    from sklearn.metrics import adjusted_rand_score

    from topics.clustering.consensus import assign_outliers, coassociation, partition_graph

    cached = np.load(path)
    indices, distances, order = cached["indices"], cached["distances"], cached["order"]
    min_size = settings(len(order))["min_cluster_size"]
    graph = coassociation(cached["runs"], indices).power(2.0)
    out, seconds = {}, {}

    start = time.perf_counter()
    out["best10"] = partition_graph(graph, min_size=min_size, random_state=seed)
    seconds["best10"] = time.perf_counter() - start
    assert np.array_equal(out["best10"], cached["core"]), "best10 is not the package's partition"
    seeds = list(range(seed * 1000, seed * 1000 + 50))
    start = time.perf_counter()
    every, qualities_200 = leiden_starts(graph, range(seed * 1000, seed * 1000 + 200))
    per_start = (time.perf_counter() - start) / 200
    out["best200"], seconds["best200"] = by_size(every[int(np.argmax(qualities_200))], min_size), 200 * per_start
    memberships, qualities = every[:50], qualities_200[:50]
    out["one"], seconds["one"] = by_size(memberships[0], min_size), per_start
    out["best50"], seconds["best50"] = by_size(memberships[int(np.argmax(qualities))], min_size), 50 * per_start
    start = time.perf_counter()
    out["thr50"] = by_size(thresholded(memberships, graph), min_size)
    seconds["thr50"] = 50 * per_start + time.perf_counter() - start
    start = time.perf_counter()
    membership, rounds = consensus_partition(graph, seeds)
    out["cc50"], seconds["cc50"] = by_size(membership, min_size), time.perf_counter() - start
    final = {}
    for name, core in out.items():
        labels = assign_outliers(core, indices, distances, min_share=settings(len(order))["outlier_share"])
        final[name] = np.empty_like(labels)
        final[name][order] = labels  # back to the order of iclr_full()
    assert np.array_equal(final["best10"][order], cached["labels"])
    starts_ari = [adjusted_rand_score(a, b) for a, b in itertools.combinations(memberships[:20], 2)]
    return {"labels": final, "seconds": seconds, "cc_rounds": rounds, "modularity_spread": [min(qualities_200), max(qualities_200)],
            "starts_ari": float(np.mean(starts_ari))}


def pair_scores(a: np.ndarray, b: np.ndarray) -> dict:
    from topics.stats.metrics import seed_agreement

    found = seed_agreement([a, b])
    return {"ari": round(float(found["mean_ari"]), 4), "recovered": round(float(found["topics_recovered"]), 4)}


def summary(scores: list[dict]) -> dict:
    aris = [s["ari"] for s in scores]
    return {"mean_ari": round(float(np.mean(aris)), 4), "min_ari": round(float(min(aris)), 4),
            "max_ari": round(float(max(aris)), 4), "recovered": round(float(np.mean([s["recovered"] for s in scores])), 4), "pairs": scores}


def compare(fits: dict, variant: str) -> dict:
    """Seed bar, cross-vector ARI at the same and at the other random state, topic counts of one variant."""
    names = list(VECTORS)
    labels = {key: fit["labels"][variant] for key, fit in fits.items()}
    seed_bar = {name: pair_scores(labels[name, 0], labels[name, 1]) for name in names}
    same = [dict(pair_scores(labels[a, s], labels[b, s]), a=a, b=b, seed=s) for a, b in itertools.combinations(names, 2) for s in SEEDS]
    other = [dict(pair_scores(labels[a, s], labels[b, t]), a=a, b=b, seeds=[s, t])
             for a, b in itertools.combinations(names, 2) for s, t in itertools.permutations(SEEDS, 2)]
    return {
        "seed_bar": summary([dict(v, vectors=k) for k, v in seed_bar.items()]),
        "cross_same_seed": summary(same),
        "cross_other_seed": summary(other),
        "topics": {f"{k[0]}/{k[1]}": int(v.max()) + 1 for k, v in labels.items()},
        "outliers_pct": {f"{k[0]}/{k[1]}": round(100 * float(np.mean(v == -1)), 2) for k, v in labels.items()},
        "seconds": round(float(np.mean([fit["seconds"][variant] for fit in fits.values()])), 3),
    }


def graph_moves(paths: dict) -> dict:
    """How far the squared co-association graphs of two fits lie apart: the mean absolute
    difference of their edge weights over the union of their edges, per pair of fits
    (rows back in the order of ``iclr_full()``), so a move between vector sets can be set
    against a move between seeds."""
    from topics.clustering.consensus import coassociation

    graphs = {}
    for key, path in paths.items():
        cached = np.load(path)
        graph = coassociation(cached["runs"], cached["indices"]).power(2.0).tocoo()
        order = cached["order"]
        graphs[key] = graph.__class__((graph.data, (order[graph.row], order[graph.col])), shape=graph.shape).tocsr()
    moves = {}
    for a, b in itertools.combinations(graphs, 2):
        diff = abs(graphs[a] - graphs[b])
        union = (graphs[a] + graphs[b]).nnz
        moves[f"{a[0]}/{a[1]} vs {b[0]}/{b[1]}"] = round(float(diff.sum() / union), 5)
    return moves


def jitter_check(paths: dict, fits: dict, cache: Path) -> dict | None:
    """Today's fits against the same fits on today's neighbour graph with jittered distances
    (``fit_runs``'s JITTER): ARI per variant at the same and the other random state, and
    how far the co-association graphs moved. None where the jittered fits are not cached."""
    jittered = {(JITTER, seed): cache / f"runs-{JITTER}-{seed}.npz" for seed in SEEDS}
    if not all(path.exists() for path in jittered.values()):
        return None
    jfits = {key: partitions(path, key[1]) for key, path in jittered.items()}
    today = "torch-bf16"
    moves = graph_moves({**{(today, s): paths[today, s] for s in SEEDS}, **jittered})
    return {
        "graph_moves": moves,
        "variants": {variant: {
            "same_seed": [pair_scores(fits[today, s]["labels"][variant], jfits[JITTER, s]["labels"][variant])["ari"] for s in SEEDS],
            "other_seed": [pair_scores(fits[today, s]["labels"][variant], jfits[JITTER, t]["labels"][variant])["ari"]
                           for s, t in itertools.permutations(SEEDS, 2)],
            "jitter_seed_bar": pair_scores(jfits[JITTER, 0]["labels"][variant], jfits[JITTER, 1]["labels"][variant])["ari"],
        } for variant in VARIANTS},
    }


SWAPS = ("torch-bf16+graph-torch-bf16-f16", "torch-bf16-f16+graph-torch-bf16")


def swap_check(paths: dict, fits: dict, cache: Path) -> dict | None:
    """Random state 0 of today's vectors on float16's neighbour graph and of float16's vectors
    on today's: ARI (``best10``) and co-association move to each of the two sets' own fit
    at random state 0. None where these fits are not cached."""
    swapped = {(name, 0): cache / f"runs-{name}-0.npz" for name in SWAPS}
    if not all(path.exists() for path in swapped.values()):
        return None
    own = {(name, 0): paths[name, 0] for name in VECTORS if name != "ov-fp32"}
    moves = graph_moves({**own, **swapped})
    out = {"graph_moves": moves}
    for key, path in swapped.items():
        labels = partitions(path, 0)["labels"]["best10"]
        out[key[0]] = {name: pair_scores(labels, fits[name, 0]["labels"]["best10"])["ari"] for name, _ in own}
        out[key[0]]["topics"] = int(labels.max()) + 1
    return out


def report(paths: dict, cache: Path) -> None:
    import os

    fits = {key: partitions(path, key[1]) for key, path in paths.items()}
    results = {
        "data": "full ICLR 2024 + 2025 lists, 4,364 papers", "settings": settings(4364),
        "load_average": os.getloadavg()[0],
        "umap_seconds": {f"{k[0]}/{k[1]}": round(float(np.load(p)["seconds"]), 1) for k, p in paths.items()},
        "cc50_rounds": {f"{k[0]}/{k[1]}": fit["cc_rounds"] for k, fit in fits.items()},
        "modularity_spread_200": {f"{k[0]}/{k[1]}": [round(q, 5) for q in fit["modularity_spread"]] for k, fit in fits.items()},
        "leiden_starts_mean_ari_20": {f"{k[0]}/{k[1]}": round(fit["starts_ari"], 4) for k, fit in fits.items()},
        "graph_moves": graph_moves(paths),
        "variants": {variant: compare(fits, variant) for variant in VARIANTS},
        "jitter": jitter_check(paths, fits, cache),
        "swapped_graphs": swap_check(paths, fits, cache),
    }
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    print("| variant | seed bar (mean, min) | cross-vector, same seed (mean, min-max) | cross-vector, other seed (mean) | topics | seconds |")
    print("|---|---|---|---|---|---|")
    for variant, r in results["variants"].items():
        topics = sorted(r["topics"].values())
        print(f"| {variant} | {r['seed_bar']['mean_ari']:.3f}, {r['seed_bar']['min_ari']:.3f} "
              f"| {r['cross_same_seed']['mean_ari']:.3f}, {r['cross_same_seed']['min_ari']:.3f}-{r['cross_same_seed']['max_ari']:.3f} "
              f"| {r['cross_other_seed']['mean_ari']:.3f} | {topics[0]}-{topics[-1]} | {r['seconds']:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", nargs=2, metavar=("VECTORS", "SEED"), help="only cache this fit's runs")
    parser.add_argument("--cache", type=Path, default=WORK / "consensus-runs", help="where the runs' .npz go")
    parser.add_argument("--n-jobs", type=int, default=1)
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    if args.fit:
        fit_runs(args.fit[0], int(args.fit[1]), args.cache, args.n_jobs)
        return
    fits = {(name, seed): fit_runs(name, seed, args.cache, args.n_jobs) for name in VECTORS for seed in SEEDS}
    report(fits, args.cache)


if __name__ == "__main__":
    main()
