"""Fit once, use everywhere: save/load on the full lists, and new papers into old topics.

    python benchmarks/assign.py               # the full lists (embeddings cached: ~5-10 minutes on 2 cores)
    python benchmarks/assign.py --dataset sample

1. **Save and load**: the joint analysis of both years (``topics.analyze``) is saved
   (``topics.save``), loaded back (``topics.load``, timed in this process and in a fresh
   one, imports included), and its tables written again and compared byte for byte.
2. **Self-assignment**: the fitted papers assigned to their own model
   (``TopicModel.transform``): the share that keeps its topic (all of them: a fitted
   paper's vector is recognised), and the share that the neighbour rule alone gives its
   topic (each vector doubled: the same direction, not a fitted paper's vector).
3. **2024 -> 2025**: a model fitted on ICLR 2024 alone assigns the 2025 papers; that
   assignment is compared, on the 2025 papers, with a joint fit of both years and with a
   fit on 2025 alone: topics matched one to one (``topics.stats.alignment.align_topics``,
   optimal matching on shared papers; matched at Jaccard >= 0.5, and >= 0.3), the adjusted
   Rand index (outliers as one group; and over the papers that have a topic in both), and
   the share of the papers that have a topic in both whose assigned topic is matched to
   their topic in the other fit. The novel share of the 2025 papers is set against the 5 %
   a paper like the 2024 ones would get by chance.

Results go to ``benchmarks/results/assign-<dataset>.json``.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def compare(assigned: np.ndarray, other: np.ndarray, name: str) -> dict:
    from sklearn.metrics import adjusted_rand_score

    from topics.stats.alignment import align_topics

    both = (assigned != -1) & (other != -1)
    alignment = align_topics(assigned, other, min_jaccard=0.5)
    pairs = alignment[(alignment["topic"] != -1) & (alignment["match"] != -1)]
    loose = pairs[pairs["jaccard"] >= 0.3]
    matched = dict(zip(pairs.loc[pairs["matched"], "topic"], pairs.loc[pairs["matched"], "match"]))
    loose_map = dict(zip(loose["topic"], loose["match"]))
    same = np.array([matched.get(int(a), None) == int(b) for a, b in zip(assigned[both], other[both])])
    same_loose = np.array([loose_map.get(int(a), None) == int(b) for a, b in zip(assigned[both], other[both])])
    return {
        "against": name,
        "topics_assigned": int(len(np.unique(assigned[assigned != -1]))),
        "topics_other": int(len(np.unique(other[other != -1]))),
        "matched_jaccard_0.5": int(pairs["matched"].sum()),
        "matched_jaccard_0.3": int(len(loose)),
        "ari_all": float(adjusted_rand_score(assigned, other)),
        "ari_topics": float(adjusted_rand_score(assigned[both], other[both])),
        "papers_with_topic_in_both": float(both.mean()),
        "same_matched_topic_0.5": float(same.mean()),
        "same_matched_topic_0.3": float(same_loose.mean()),
    }


def run(dataset: str, seed: int) -> dict:
    import topics
    from topics.embedding.backends import get_embedder
    from topics.embedding.embed import embed_texts
    from topics.pipeline import embedding_texts

    corpus = topics.datasets.load_dataset(dataset)
    embedder = get_embedder("minilm")
    texts = embedding_texts(corpus)
    # last chunk first, each call rereading the shared cache: another process embedding
    # the same lists from the start meets this one halfway instead of repeating its work
    for start in range(len(texts) - len(texts) % 512 if len(texts) % 512 else len(texts) - 512, -1, -512):
        embed_texts(texts[start : start + 512], embedder, cache=True)
    embeddings = embed_texts(texts, embedder, cache=True)
    out: dict = {"dataset": dataset, "n_documents": len(corpus), "embedding": embedder.name, "seed": seed}

    # 1. the joint analysis, saved and loaded
    start = time.perf_counter()
    joint = topics.analyze(corpus, embeddings=embeddings, random_state=seed)
    out["joint_analysis_s"] = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "model"
        start = time.perf_counter()
        topics.save(joint, folder)
        out["save_s"] = time.perf_counter() - start
        out["saved_mb"] = sum(p.stat().st_size for p in folder.iterdir()) / 2**20
        out["saved_files"] = len(list(folder.iterdir()))
        start = time.perf_counter()
        loaded = topics.load(folder)
        out["load_s"] = time.perf_counter() - start
        code = f"import time; t = time.perf_counter(); import topics; topics.load({str(folder)!r}); print(time.perf_counter() - t)"
        fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        out["load_fresh_process_s"] = float(fresh.stdout.strip().splitlines()[-1])
        before = topics.write_tables(joint, Path(tmp) / "before")
        after = topics.write_tables(loaded, Path(tmp) / "after")
        out["tables_identical"] = all(filecmp.cmp(p, after[k], shallow=False) for k, p in before.items())
        out["tables"] = sorted(before)

    # 2. and 3. fit on the first year, assign the second
    years = sorted(corpus["year"].unique())
    first, second = (corpus["year"] == years[0]).to_numpy(), (corpus["year"] == years[-1]).to_numpy()
    start = time.perf_counter()
    early = topics.TopicModel(random_state=seed).fit(corpus[first], embeddings[first])
    out["fit_first_year_s"] = time.perf_counter() - start
    mine = early.transform(corpus[first], embeddings[first])["topic"].to_numpy()
    clustered = early.labels_ != -1
    # twice each vector: the same direction, but not a fitted paper's vector, so the
    # neighbour rule places it (the papers themselves keep their fitted topics)
    by_rule = early.transform(corpus[first], 2 * embeddings[first])["topic"].to_numpy()
    out["self_assignment"] = {
        "same_topic": float((mine == early.labels_).mean()),
        "same_topic_papers_with_topic": float((mine[clustered] == early.labels_[clustered]).mean()),
        "same_topic_by_neighbour_rule": float((by_rule == early.labels_).mean()),
        "same_topic_by_neighbour_rule_papers_with_topic": float((by_rule[clustered] == early.labels_[clustered]).mean()),
    }
    start = time.perf_counter()
    assigned = early.transform(corpus[second], embeddings[second])
    out["assign_s"] = time.perf_counter() - start
    late = topics.TopicModel(random_state=seed).fit(corpus[second], embeddings[second])
    labels = assigned["topic"].to_numpy()
    out["assigned"] = {
        "n_papers": int(second.sum()),
        "novel_share": float(assigned["novel"].mean()),
        "novelty_cut": float(assigned.attrs["novelty_cut"]),
        "outlier_share": float((labels == -1).mean()),
        "mean_confidence": float(assigned["confidence"].mean()),
        "first_year_topics": int(len(early.topics) - (-1 in early.topics)),
    }
    out["comparisons"] = [
        compare(labels, joint.model.labels_[second], f"joint fit of {years[0]} and {years[-1]}"),
        compare(labels, late.labels_, f"fit on {years[-1]} alone"),
    ]
    # where the novel papers went in the joint fit: topics mostly made of novel 2025 papers
    novel = assigned["novel"].to_numpy()
    joint_late = joint.model.labels_[second]
    rows = []
    for t in np.unique(joint_late[novel]):
        if t == -1:
            continue
        members = joint_late == t
        rows.append({"joint_topic": int(t), "label": joint.model.topic_names_[int(t)], "novel": int((members & novel).sum()),
                     "papers_2nd_year": int(members.sum()), "papers_1st_year": int((joint.model.labels_[first] == t).sum())})
    out["novel_in_joint_topics"] = sorted(rows, key=lambda r: -r["novel"])[:8]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=["sample", "full"], default="full")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    result = run(args.dataset, args.seed)
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"assign-{args.dataset}.json"
    path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
