"""Topic quality of `topics` beside plain BERTopic, on the same embeddings.

    python benchmarks/quality.py --dataset sample   # 90 abstracts, about a minute
    python benchmarks/quality.py --dataset full     # 4,364 abstracts, 10-20 minutes on 2 cores
    python benchmarks/quality.py --table            # only rewrite the table in benchmarks/README.md

Both models are scored by `topics.evaluate` (NPMI coherence, diversity, outlier share,
agreement between the fit and refits with other seeds, and the share of clear
2024-vs-2025 changes that hold in every refit). `topics` is refitted with random states
1 and 2 (each a new, disjoint set of run seeds); plain BERTopic (its defaults, UMAP
seeded) with seeds 1 and 2. Results go to ``benchmarks/results/quality-<dataset>.json``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
START, END = "<!-- quality table: benchmarks/quality.py --table -->", "<!-- end of quality table -->"
METRICS = [
    ("topics", "topics", "{:.0f}"),
    ("outlier_share", "outliers", "{:.1%}"),
    ("npmi", "NPMI", "{:.3f}"),
    ("diversity", "diversity", "{:.3f}"),
    ("seed_mean_ari", "seed ARI (mean)", "{:.3f}"),
    ("topics_recovered", "topics back in every refit", "{:.1%}"),
    ("changes_held", "clear changes held", "{:.1%}"),
]


def run(dataset: str, refits: list[int]) -> dict:
    import topics
    from topics.embedding.embed import embed_texts
    from topics.embedding.backends import get_embedder
    from topics.evaluate import evaluate_model, evaluate_plain_bertopic
    from topics.pipeline import embedding_texts

    corpus = topics.io.datasets.load_dataset(dataset)
    embedder = get_embedder("minilm")
    embeddings = embed_texts(embedding_texts(corpus), embedder, cache=True)
    out = {"dataset": dataset, "n_documents": len(corpus), "embedding": embedder.name, "refit_seeds": refits}
    start = time.perf_counter()
    model = topics.TopicModel(random_state=0).fit(corpus, embeddings)
    fit_s = time.perf_counter() - start
    scores = evaluate_model(model, corpus, embeddings, refit_seeds=refits)
    out["topics"] = {**dict(zip(scores["metric"], scores["value"])), "fit_s": fit_s}
    out["names"] = names(model)
    start = time.perf_counter()
    base = evaluate_plain_bertopic(corpus, embeddings, random_state=0, refit_seeds=refits)
    out["plain_bertopic"] = {**dict(zip(base["metric"], base["value"])), "fit_s": (time.perf_counter() - start) / (1 + len(refits))}
    return out


def names(model) -> dict:
    """The fit's topic and area names with their coverage (issue 22: every name at least
    0.25, the topics' median at least 0.5)."""
    import numpy as np

    topics_ = {model.topic_names_[t]: round(float(model.topic_name_coverage_[t]), 3) for t in model.topics if t != -1}
    areas = {model.area_names_[a]: round(float(model.area_name_coverage_[a]), 3) for a in model.areas if a != -1}
    return {
        "topic_median": float(np.median(list(topics_.values()))), "topic_lowest": min(topics_.values()),
        "area_median": float(np.median(list(areas.values()))), "area_lowest": min(areas.values()),
        "mixed_topics": int(sum(bool(model.topic_mixed_[t]) for t in model.topics if t != -1)), "topics": topics_, "areas": areas,
    }


def table() -> str:
    rows = ["| results file | commit | model | " + " | ".join(h for _, h, _ in METRICS) + " | fit (s) |",
            "|---" * (len(METRICS) + 4) + "|"]
    for path in sorted(RESULTS.glob("quality-*.json")):
        data = json.loads(path.read_text())
        for key, name in (("before", "topics before consensus"), ("topics", "topics"), ("plain_bertopic", "plain BERTopic")):
            if key not in data:
                continue
            values = data[key]
            cells = [fmt.format(values[m]) if m in values and values[m] == values[m] else "-" for m, _, fmt in METRICS]
            fit = f"{values['fit_s']:.0f}" if "fit_s" in values else "-"
            commit = values.get("commit", data.get("commit", ""))
            rows.append(f"| `{path.name}` | {commit} | {name} | " + " | ".join(cells) + f" | {fit} |")
    return "\n".join(rows)


def write_table() -> None:
    from run import write_block  # benchmarks/run.py

    write_block(START, END, table(), missing_heading="## Topic quality")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=["sample", "full"], default="sample")
    parser.add_argument("--table", action="store_true", help="only rewrite the table in benchmarks/README.md")
    args = parser.parse_args()
    if not args.table:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE).stdout.strip()
        result = run(args.dataset, [1, 2])
        path = RESULTS / f"quality-{args.dataset}.json"
        previous = json.loads(path.read_text()) if path.exists() else {}
        result.update(commit=commit, date=date.today().isoformat(), python=sys.version.split()[0])
        if "before" in previous:  # the single-seed model's figures, measured once at bb006e9
            result["before"] = previous["before"]
        RESULTS.mkdir(exist_ok=True)
        path.write_text(json.dumps(result, indent=2) + "\n")
        print(json.dumps(result, indent=2))
    write_table()
    return 0


if __name__ == "__main__":
    sys.exit(main())
