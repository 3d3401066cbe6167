"""A consensus whose runs see their own neighbours (issue 40, session 22): the figures of
``benchmarks/README.md`` ("A consensus that sees its own neighbours") from fits made by
``embedding_runtimes.py --fit``.

    python benchmarks/embedding_runtimes.py --fit today.npy --seed 0 --pool 16 --jobs 1 --out FITS/today-p16-seed0.pkl
    ...                     # today's vectors seeds 0-3, float16's, fp32's and OpenVINO bf16's seeds 0-1, pools 16, 20, 24;
    ...                     # and the exact graph (no --pool) as FITS/today-exact-seed0.pkl ... seed3.pkl
    python benchmarks/embedding_runtimes.py --table today=FITS/today-p16-seed0.pkl,... --control fp32 --out FITS/table-p16.json
    python benchmarks/consensus_neighbor_pool.py FITS          # results/consensus-neighbor-pool.json

Fit files are named ``<vectors>-p<pool>-seed<s>.pkl`` (``<vectors>`` today, float16, fp32,
openvino-bf16) and ``today-exact-seed<s>.pkl``. The script gathers: the screening (per
pool, the ARI of every pair among seeds 0-1 of today's and float16's fits: seed bar and
cross-vector), the 16-pool's equivalence table (``FITS/table-p16.json``), the quality of
today's fits (topics, outliers, NPMI and diversity of the top 10 terms, as ``topics
evaluate`` scores them) and, where ``consensus_sensitivity.py``'s run cache holds exact-graph
runs, Leiden's own seed: each cached fit's runs partitioned with Leiden random states 0-4.
"""

from __future__ import annotations

import argparse
import itertools
import json
import pickle
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from embedding_runtimes import pair_figures  # noqa: E402

RESULTS = HERE / "results" / "consensus-neighbor-pool.json"
RUNS = HERE / ".work" / "consensus-runs"  # consensus_sensitivity.py's cache


def screening(fits: Path, pool: int, corpus) -> dict:
    """Seed bars and cross-vector ARI among seeds 0-1 of today's and float16's fits with ``pool``."""
    loaded = {p.stem: pickle.loads(p.read_bytes()) for p in sorted(fits.glob(f"*-p{pool}-seed[01].pkl"))
              if p.stem.split("-p")[0] in ("today", "float16")}
    pairs = []
    for a, b in itertools.combinations(loaded, 2):
        f = pair_figures(corpus, loaded[a], loaded[b])
        same_set = a.split("-p")[0] == b.split("-p")[0]
        kind = "seed bar" if same_set else ("cross, same seed" if a[-1] == b[-1] else "cross, other seed")
        pairs.append({"a": a, "b": b, "kind": kind, "ari": f["ari"], "topics_back": f["topics_back"], "same_name": f["same_name"]})
    mean = {k: float(np.mean([p["ari"] for p in pairs if p["kind"] == k])) for k in ("seed bar", "cross, same seed", "cross, other seed")}
    mean["cross"] = float(np.mean([p["ari"] for p in pairs if p["kind"] != "seed bar"]))
    mean["gap"] = mean["seed bar"] - mean["cross"]
    shape = {n: {"topics": int(d["labels"].max()) + 1, "outliers": float((d["labels"] == -1).mean()), "seconds": round(d["seconds"])}
             for n, d in loaded.items()}
    return {"pairs": pairs, "mean_ari": mean, "fits": shape}


def quality(fits: Path, corpus) -> dict:
    """Topics, outliers, NPMI and diversity of today's fits that kept their terms."""
    from topics.stats.metrics import document_terms, npmi_coherence, topic_diversity

    docs = document_terms(corpus["abstract"].astype(str).tolist())
    out = {}
    for path in sorted(fits.glob("today-*.pkl")):
        fit = pickle.loads(path.read_bytes())
        if "terms" in fit:
            labels = fit["labels"]
            out[path.stem] = {"topics": int(labels.max()) + 1, "outliers": float((labels == -1).mean()),
                              "npmi": float(npmi_coherence(fit["terms"], docs)["npmi"].mean()),
                              "diversity": topic_diversity(fit["terms"]), "fit_s": round(fit["seconds"])}
    return out


def leiden_seeds(cache: Path, min_size: int = 22) -> dict:
    """Mean pairwise ARI of the labels from Leiden random states 0-4 over each cached fit's runs."""
    from sklearn.metrics import adjusted_rand_score

    from topics.clustering.consensus import assign_outliers, coassociation, partition_graph

    out = {}
    for name in ("runs-torch-bf16-0", "runs-torch-bf16-1", "runs-torch-bf16-f16-0"):
        if not (cache / f"{name}.npz").exists():
            continue
        cached = np.load(cache / f"{name}.npz")
        graph = coassociation(cached["runs"], cached["indices"]).power(2.0)
        out[name] = {}
        for restarts in (10, 1):
            labels = [assign_outliers(partition_graph(graph, min_size=min_size, random_state=s, restarts=restarts),
                                      cached["indices"], cached["distances"], min_share=0.3) for s in range(5)]
            aris = [adjusted_rand_score(a, b) for a, b in itertools.combinations(labels, 2)]
            out[name][f"best_of_{restarts}"] = {"mean": float(np.mean(aris)), "min": float(np.min(aris)),
                                                "max": float(np.max(aris)), "topics": [int(x.max()) + 1 for x in labels]}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fits", type=Path, help="the folder of embedding_runtimes.py --fit's files")
    parser.add_argument("--runs", type=Path, default=RUNS, help="consensus_sensitivity.py's run cache")
    args = parser.parse_args()
    from topics.io.datasets import iclr_full

    corpus = iclr_full()
    table = args.fits / "table-p16.json"
    out = {"what": "TopicModel(neighbor_pool=m) on the full ICLR lists (4,364 papers, n_neighbors 15): each consensus "
                   "run's UMAP sees 14 neighbours drawn by its seed from the m nearest",
           "screening": {f"14 of {m}": screening(args.fits, m, corpus) for m in (16, 20, 24)},
           "equivalence_pool16": json.loads(table.read_text()) if table.exists() else None,
           "quality": quality(args.fits, corpus), "leiden_random_states": leiden_seeds(args.runs)}
    for name, found in out["screening"].items():
        print(name, json.dumps(found["mean_ari"]))
    RESULTS.write_text(json.dumps(out, indent=1, default=list) + "\n")


if __name__ == "__main__":
    main()
