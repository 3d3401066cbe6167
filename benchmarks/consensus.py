"""What each step of the consensus buys: agreement between independent consensus fits.

    python benchmarks/consensus.py            # 120 UMAP runs on the full lists, then the comparison (~5 min on 2 cores)
    python benchmarks/consensus.py --epochs   # runs per fit against epochs per run (~15 min on 2 cores)
    python benchmarks/consensus.py --epochs --precision fp32 --budgets 60x70,80x70   # on exact vectors, chosen budgets
    python benchmarks/consensus.py --table    # only rewrite the tables in benchmarks/README.md

A bank of 120 UMAP runs (seeds 0-119, the package's own run function: the exact
neighbour graph, 200 epochs, each layout read by HDBSCAN at four granularities) is
fitted once on the full ICLR 2024 + 2025 lists. Each variant of the consensus is then
built from disjoint blocks of runs (runs 0-9, 10-19, ... for ten runs per fit) and
disjoint Leiden seeds, as random states 0, 1, ... would, so two fits share no seed, and
scored as `topics evaluate` scores seed agreement: the mean and
smallest adjusted Rand index over all pairs of fits, the share of a fit's topics found
again (Jaccard >= 0.5) in both of two further fits, and the share of its clear
2024-vs-2025 changes that hold in both, averaged over every choice of reference and
pair. Results go to ``benchmarks/results/consensus-full.json``.

``--epochs`` asks how to spend a fixed budget of UMAP work: ten consensus fits (today's
four readings, squared, best of ten Leiden starts, random states 0-9) for each of 20
runs of 200 epochs (the default until session 15), 40 of 200, 40 of 100 (the default
since) and 60 of 70, each fit from its own seeds (``run_seeds``), timed per fit in this
process with the runs over every core. Results: ``benchmarks/results/consensus-epochs.json``;
with ``--precision fp32`` (MiniLM's exact vectors, as on CPUs without native bfloat16)
``consensus-epochs-fp32.json``. ``--budgets`` runs only the budgets given and merges
their rows into the results file.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "consensus-full.json"
EPOCH_RESULTS = HERE / "results" / "consensus-epochs.json"
START, END = "<!-- consensus table: benchmarks/consensus.py --table -->", "<!-- end of consensus table -->"
EPOCH_START, EPOCH_END = "<!-- epochs table: benchmarks/consensus.py --table -->", "<!-- end of epochs table -->"
#: (runs per fit, epochs per run) for --epochs
BUDGETS = [(20, 200), (40, 200), (40, 100), (60, 70)]
N_FITS = 10
N_BANK = 120
#: (label, runs per fit, readings used per run, co-association power, Leiden starts)
VARIANTS = [
    ("one reading, co-association as is, one Leiden start", 10, 1, 1.0, 1),
    ("one reading, squared, one start", 10, 1, 2.0, 1),
    ("four readings, squared, one start", 10, 4, 2.0, 1),
    ("four readings, squared, best of ten starts", 10, 4, 2.0, 10),
    ("one reading, as is, one start", 20, 1, 1.0, 1),
    ("four readings, squared, one start", 20, 4, 2.0, 1),
    ("four readings, squared, best of ten starts (default)", 20, 4, 2.0, 10),
]


def bank():
    import numpy as np

    from topics.clustering.runs import parallel_runs
    from topics.io.datasets import iclr_full
    from topics.embedding.embed import embed_texts
    from topics.embedding.backends import get_embedder
    from topics.clustering.model import size_rule
    from topics.clustering.neighbors import nearest_neighbors
    from topics.pipeline import embedding_texts

    corpus = iclr_full()
    embedder = get_embedder("minilm")
    embeddings = embed_texts(embedding_texts(corpus), embedder, cache=True)
    rule = size_rule(len(corpus))
    k = rule["n_neighbors"]
    graph = nearest_neighbors(embeddings, n_neighbors=k + 1)
    settings = (k, 5, 200, rule["min_cluster_size"], rule["min_samples"])
    runs = parallel_runs(embeddings, (graph[0][:, :k], graph[1][:, :k]), settings, list(range(N_BANK)), -1)
    return corpus, embedder.name, graph, rule, np.stack([labels for labels, _ in runs])  # (runs, readings, docs)


def consensus(clusterings, graph, min_size: int, power: float, restarts: int, random_state: int):
    from topics.clustering.consensus import assign_outliers, coassociation, partition_graph

    together = coassociation(clusterings, graph[0]).power(power)
    return assign_outliers(partition_graph(together, min_size=min_size, random_state=random_state, restarts=restarts), *graph)


def agreement(corpus, fits) -> dict:
    import numpy as np
    import pandas as pd
    from sklearn.metrics import adjusted_rand_score

    from topics.stats.metrics import clear_changes_held, seed_agreement
    from topics.stats.stability import labeling_stability
    from topics.stats.trends import compare_years

    aris = [adjusted_rand_score(a, b) for a, b in itertools.combinations(fits, 2)]
    recovered, held = [], []
    for r, reference in enumerate(fits):
        others = [f for j, f in enumerate(fits) if j != r]
        comparison = compare_years(pd.DataFrame({"year": corpus["year"].to_numpy(), "topic": reference}), 2024, 2025)
        comparison.table["label"] = comparison.table["topic"].astype(str)
        for a, b in itertools.combinations(others, 2):
            recovered.append(seed_agreement([reference, a, b])["topics_recovered"])
            held.append(clear_changes_held(labeling_stability(corpus, reference, comparison, [a, b], seeds=[1, 2]), comparison))
    return {
        "fits": len(fits),
        "topics": [int(f.max() + 1) for f in fits],
        "outlier_share": float(np.mean([np.mean(f == -1) for f in fits])),
        "mean_ari": float(np.mean(aris)),
        "min_ari": float(np.min(aris)),
        "topics_recovered": float(np.mean(recovered)),
        "changes_held": float(np.nanmean(held)),
    }


def cached_bank(path: Path | None):
    """:func:`bank`, kept in ``path`` (an ``.npz``) when given, for reruns of the comparison."""
    if path is not None and path.exists():
        from topics.io.datasets import iclr_full

        data = np.load(path, allow_pickle=False)
        return iclr_full(), str(data["embedding"]), (data["indices"], data["distances"]), json.loads(str(data["rule"])), data["runs"]
    corpus, embedding, graph, rule, runs = bank()
    if path is not None:
        np.savez(path, embedding=embedding, indices=graph[0], distances=graph[1], rule=json.dumps(rule), runs=runs)
    return corpus, embedding, graph, rule, runs


def run(bank_file: Path | None = None) -> dict:
    start = time.perf_counter()
    corpus, embedding, graph, rule, runs = cached_bank(bank_file)
    bank_s = time.perf_counter() - start
    from run import commit  # benchmarks/run.py

    out = {"n_documents": len(corpus), "embedding": embedding, "commit": commit(), "bank_runs": N_BANK, "bank_s": bank_s, "variants": []}
    for label, per_fit, n_readings, power, restarts in VARIANTS:
        fits = []
        for block in range(min(N_BANK // per_fit, 8)):  # block b: runs and Leiden seeds of random state b
            clusterings = runs[block * per_fit : (block + 1) * per_fit, :n_readings].reshape(-1, runs.shape[-1])
            fits.append(consensus(clusterings, graph, rule["min_cluster_size"], power, restarts, block))
        row = {"label": label, "runs": per_fit, "readings": n_readings, "power": power, "leiden_starts": restarts, **agreement(corpus, fits)}
        print(json.dumps(row), flush=True)
        out["variants"].append(row)
    return out


def epoch_path(precision: str) -> Path:
    return EPOCH_RESULTS if precision == "auto" else EPOCH_RESULTS.with_name(f"consensus-epochs-{precision}.json")


def epoch_run(precision: str = "auto", budgets=BUDGETS) -> dict:
    """Ten consensus fits per (runs, epochs) of ``budgets``, as ``TopicModel`` fits them,
    merged into the rows already in the results file for ``precision``."""
    from topics.clustering.consensus import ConsensusClusterer
    from topics.clustering.model import size_rule
    from topics.embedding.backends import get_embedder
    from topics.embedding.embed import embed_texts
    from topics.io.datasets import iclr_full
    from topics.pipeline import embedding_texts
    from run import commit  # benchmarks/run.py

    corpus = iclr_full()
    embedder = get_embedder("minilm" if precision == "auto" else f"minilm-{precision}")
    embeddings = embed_texts(embedding_texts(corpus), embedder, cache=True)
    rule = size_rule(len(corpus))
    path = epoch_path(precision)
    kept = json.loads(path.read_text())["budgets"] if path.exists() else []
    kept = [row for row in kept if (row["runs"], row["epochs"]) not in set(budgets)]
    out = {"n_documents": len(corpus), "embedding": embedder.name, "commit": commit(), "budgets": kept}
    for n_runs, epochs in budgets:
        fits, seconds = [], []
        for state in range(N_FITS):
            clusterer = ConsensusClusterer(
                n_runs=n_runs, n_epochs=epochs, n_neighbors=rule["n_neighbors"], min_cluster_size=rule["min_cluster_size"],
                min_samples=rule["min_samples"], n_jobs=-1, random_state=state,
            )
            start = time.perf_counter()
            fits.append(clusterer.fit(embeddings).labels_)
            seconds.append(time.perf_counter() - start)
        row = {"runs": n_runs, "epochs": epochs, "commit": out["commit"], "fit_s": float(np.median(seconds)), **agreement(corpus, fits)}
        print(json.dumps(row), flush=True)
        out["budgets"].append(row)
    out["budgets"].sort(key=lambda row: (row["runs"] * row["epochs"], row["runs"]))
    return out


def epoch_table() -> str:
    lines = []
    for path in (epoch_path("auto"), epoch_path("fp32")):
        if not path.exists():
            continue
        data = json.loads(path.read_text())
        lines += [
            *([""] if lines else []),
            f"Full lists ({data['n_documents']:,} papers), {data['embedding']}: {N_FITS} consensus "
            "fits per row, each from its own seeds (median fit time in one process, runs over both cores):",
            "",
            "| runs x epochs | commit | fit (s) | topics | outliers | mean ARI | min ARI | topics back in both refits | clear changes held |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for v in data["budgets"]:
            lines.append(
                f"| {v['runs']} x {v['epochs']} | {v.get('commit', data['commit'])} | {v['fit_s']:.1f} | {min(v['topics'])}-{max(v['topics'])} "
                f"| {v['outlier_share']:.1%} | {v['mean_ari']:.3f} | {v['min_ari']:.3f} | {v['topics_recovered']:.1%} | {v['changes_held']:.1%} |"
            )
    return "\n".join(lines)


def table() -> str:
    data = json.loads(RESULTS.read_text())
    lines = [
        f"Full lists ({data['n_documents']:,} papers), {data.get('embedding', 'MiniLM')}, commit {data.get('commit', '?')}: "
        f"consensus fits from disjoint blocks of a bank of {data['bank_runs']} UMAP runs (up to 8 fits per variant):",
        "",
        "| runs per fit | consensus | topics | outliers | mean ARI | min ARI | topics back in both refits | clear changes held |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for v in data["variants"]:
        topics = f"{min(v['topics'])}-{max(v['topics'])}"
        lines.append(
            f"| {v['runs']} | {v['label']} | {topics} | {v['outlier_share']:.1%} | {v['mean_ari']:.3f} | {v['min_ari']:.3f} "
            f"| {v['topics_recovered']:.1%} | {v['changes_held']:.1%} |"
        )
    return "\n".join(lines)


def write_table() -> None:
    from run import write_block  # benchmarks/run.py

    write_block(START, END, table(), missing_heading="")
    if EPOCH_RESULTS.exists():
        write_block(EPOCH_START, EPOCH_END, epoch_table(), missing_heading="")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", action="store_true", help="only rewrite the table in benchmarks/README.md")
    parser.add_argument("--bank", type=Path, default=None, help="keep the bank of runs in this .npz (reused when it exists)")
    parser.add_argument("--epochs", action="store_true", help="compare runs per fit against epochs per run instead")
    parser.add_argument("--precision", default="auto", choices=["auto", "fp32"], help="with --epochs: MiniLM's vectors (default: this CPU's)")
    parser.add_argument("--budgets", default=None, help="with --epochs: RUNSxEPOCHS,... (default: %s)" % ",".join(f"{r}x{e}" for r, e in BUDGETS))
    args = parser.parse_args()
    if args.epochs:
        budgets = [tuple(int(x) for x in b.split("x")) for b in args.budgets.split(",")] if args.budgets else BUDGETS
        RESULTS.parent.mkdir(exist_ok=True)
        epoch_path(args.precision).write_text(json.dumps(epoch_run(args.precision, budgets), indent=2) + "\n")
    elif not args.table:
        RESULTS.parent.mkdir(exist_ok=True)
        RESULTS.write_text(json.dumps(run(args.bank), indent=2) + "\n")
    write_table()


if __name__ == "__main__":
    main()
