"""Small corpora: which clustering groups the 90 bundled abstracts as a reader does?

    python benchmarks/small_corpus.py [--seeds 0 1 2 3 4]

The check set is ``tests/data/bundled_groups.csv``: the 90 bundled abstracts grouped by
research theme by reading them (26 groups, 6 of them single papers; how they were made:
``tests/data/bundled_groups.md``). Each method clusters the packaged MiniLM embeddings
of the same texts ``topics report`` embeds, and is scored by pair F1 (Manning et al.,
*Introduction to Information Retrieval*, 16.3): over all pairs of papers, precision =
share of the pairs a method puts together that the check set puts together, recall the
converse. An outlier (-1) is a group of its own. Also reported: the adjusted Rand index,
the number of topics, and for the seeded methods the mean ARI between the labellings of
different seeds (1.0 for a deterministic method).

Methods:

* ``consensus``: ``TopicModel``'s consensus of 20 UMAP + HDBSCAN runs (the default for
  every corpus size up to session 14);
* ``default``: ``TopicModel()``, which under 200 papers is Ward's hierarchy split down to
  ``ward_min_size`` at the partition of highest silhouette with no topic over half the
  papers (:func:`topics.clustering.hierarchy.ward_topics`);
* ``ward-plain``: the same hierarchy and the size rule's smallest topic, without the
  "no topic over half" condition (``method="ward"`` before session 14);
* ``agglomerative-<linkage>``: scikit-learn's agglomerative clustering of the unit
  embeddings, cut where the silhouette (cosine) is highest between 2 and n/3 clusters;
* ``agglomerative-oracle``: average linkage told the check set's number of groups (a
  reference only: a user does not know it);
* ``leiden``: Leiden (igraph, modularity) on the exact k-NN graph of the size rule,
  weighted by cosine similarity;
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from topics.vectors import unit_rows

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"


def pair_scores(truth, labels) -> dict[str, float]:
    """Pair precision, recall and F1 of ``labels`` against ``truth``; -1 is a group of one."""
    truth = np.asarray(truth)
    labels = np.asarray(labels).copy()
    lone = labels == -1
    labels[lone] = labels.max() + 1 + np.arange(lone.sum())  # each outlier alone
    same_t = truth[:, None] == truth[None, :]
    same_l = labels[:, None] == labels[None, :]
    upper = np.triu(np.ones_like(same_t, dtype=bool), 1)
    both = (same_t & same_l & upper).sum()
    p = both / max((same_l & upper).sum(), 1)
    r = both / max((same_t & upper).sum(), 1)
    return {"precision": float(p), "recall": float(r), "f1": float(2 * p * r / (p + r)) if p + r else 0.0}


def check_set() -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """The bundled corpus, its MiniLM embeddings and the check set's group per paper."""
    from topics.embedding.embed import embed_texts
    from topics.io.datasets import iclr_sample
    from topics.pipeline import embedding_texts

    corpus = iclr_sample()
    groups = pd.read_csv(ROOT / "tests" / "data" / "bundled_groups.csv").set_index("doc_id")["group"]
    truth = pd.factorize(corpus["doc_id"].map(groups))[0]
    embeddings = embed_texts(embedding_texts(corpus), "minilm")
    return corpus, embeddings, truth


def agglomerative_silhouette(x: np.ndarray, linkage: str) -> np.ndarray:
    from sklearn.cluster import AgglomerativeClustering
    from sklearn.metrics import silhouette_score

    best, best_labels = -2.0, None
    for k in range(2, max(3, len(x) // 3) + 1):
        labels = AgglomerativeClustering(n_clusters=k, linkage=linkage, metric="euclidean" if linkage == "ward" else "cosine").fit_predict(x)
        s = silhouette_score(x, labels, metric="cosine")
        if s > best:
            best, best_labels = s, labels
    return best_labels


def leiden_knn(x: np.ndarray, random_state: int) -> np.ndarray:
    from topics.clustering.consensus import partition_graph
    from topics.clustering.model import size_rule
    from topics.clustering.neighbors import nearest_neighbors
    import scipy.sparse as sp

    k = size_rule(len(x))["n_neighbors"]
    idx, dist = nearest_neighbors(x, n_neighbors=k + 1)
    rows = np.repeat(np.arange(len(x)), k)
    w = sp.csr_matrix((1.0 - dist[:, 1:].ravel(), (rows, idx[:, 1:].ravel())), shape=(len(x), len(x)))
    w = w.maximum(w.T)
    return partition_graph(w, random_state=random_state)


def methods(corpus, x, truth, seeds):
    from sklearn.cluster import AgglomerativeClustering

    from topics.clustering.hierarchy import ward_topics
    from topics.clustering.model import TopicModel, size_rule

    x = unit_rows(x)
    out = {}
    out["consensus"] = [TopicModel(method="consensus", random_state=s).fit(corpus, x).labels_ for s in seeds]
    out["default"] = [TopicModel(random_state=s).fit(corpus, x).labels_ for s in seeds[:2]]
    out["ward-plain"] = [ward_topics(x, min_cluster_size=size_rule(len(x))["min_cluster_size"])]
    for linkage in ("average", "complete", "ward"):
        out[f"agglomerative-{linkage}"] = [agglomerative_silhouette(x, linkage)]
    k = len(set(truth))
    out["agglomerative-oracle"] = [AgglomerativeClustering(n_clusters=k, linkage="average", metric="cosine").fit_predict(x)]
    out["leiden"] = [leiden_knn(x, s) for s in seeds]
    return out


def main(argv=None) -> int:
    from sklearn.metrics import adjusted_rand_score

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--label", default="now", help="a name for this run in the results file")
    args = parser.parse_args(argv)
    corpus, x, truth = check_set()
    rows = []
    for name, labelings in methods(corpus, x, truth, args.seeds).items():
        start = time.perf_counter()
        scores = [pair_scores(truth, lab) for lab in labelings]
        agree = [adjusted_rand_score(a, b) for a, b in itertools.combinations(labelings, 2)]
        rows.append({
            "method": name,
            "pair_f1": float(np.mean([s["f1"] for s in scores])),
            "pair_f1_min": float(np.min([s["f1"] for s in scores])),
            "precision": float(np.mean([s["precision"] for s in scores])),
            "recall": float(np.mean([s["recall"] for s in scores])),
            "ari": float(np.mean([adjusted_rand_score(truth, lab) for lab in labelings])),
            "topics": float(np.mean([len(set(lab) - {-1}) for lab in labelings])),
            "outliers": float(np.mean([np.mean(np.asarray(lab) == -1) for lab in labelings])),
            "seed_ari": float(np.mean(agree)) if agree else 1.0,
            "runs": len(labelings),
        })
    table = pd.DataFrame(rows)
    print(table.round(3).to_string(index=False))
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "small-corpus.json"
    saved = json.loads(path.read_text()) if path.exists() else {}
    saved[args.label] = rows
    path.write_text(json.dumps(saved, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
