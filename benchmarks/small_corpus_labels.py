"""Small corpora against official labels: the consensus and Ward's hierarchy on samples
of AAAI and IJCAI papers with their primary areas.

    python benchmarks/small_corpus_labels.py

A check beside ``small_corpus.py`` that no rule was tuned on: six seeded random samples
of 90 or 150 papers of one venue-year of ``../shared/data/bigcorpus.parquet`` whose
``primary_area`` is filled, MiniLM embeddings of "title. abstract" as ``topics report``
embeds them, and per sample the NMI and pair F1 of each method's topics with the primary
areas. Methods: ``consensus`` (``TopicModel(method="consensus")``), ``default``
(``TopicModel()``: Ward under 200 papers, no topic over half the papers) and
``ward-plain`` (the same hierarchy without that condition). Writes
``results/small-corpus-labels.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from small_corpus import pair_scores  # noqa: E402

SAMPLES = [("AAAI", 2021, 90, 0), ("AAAI", 2022, 90, 1), ("IJCAI", 2022, 90, 2), ("IJCAI", 2023, 90, 3),
           ("AAAI", 2021, 150, 4), ("IJCAI", 2024, 150, 5)]


def main() -> int:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    from sklearn.metrics import normalized_mutual_info_score

    from topics.clustering.hierarchy import ward_topics
    from topics.clustering.model import TopicModel, ward_min_size
    from topics.embedding.embed import embed_texts
    from topics.pipeline import embedding_texts

    data = pd.read_parquet(HERE.parent.parent / "shared" / "data" / "bigcorpus.parquet")
    data = data[data["primary_area"].notna()]
    rows = []
    for venue, year, n, seed in SAMPLES:
        sample = data[(data["venue"] == venue) & (data["year"] == year)].sample(n, random_state=seed)
        corpus = pd.DataFrame({"doc_id": sample["id"].str[-40:], "title": sample["title"],
                               "abstract": sample["abstract"], "year": sample["year"]})
        x = embed_texts(embedding_texts(corpus), "minilm")
        truth = pd.factorize(sample["primary_area"])[0]
        labelings = {
            "consensus": TopicModel(method="consensus", random_state=0).fit(corpus, x).labels_,
            "default": TopicModel(random_state=0).fit(corpus, x).labels_,
            "ward-plain": ward_topics(x, min_cluster_size=ward_min_size(n)),
        }
        for method, labels in labelings.items():
            rows.append({"sample": f"{venue} {year}, {n}", "method": method, "topics": len(set(labels) - {-1}),
                         "nmi": float(normalized_mutual_info_score(truth, labels)),
                         "pair_f1": pair_scores(truth, labels)["f1"], "areas": int(truth.max() + 1)})
            print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    print(table.pivot(index="sample", columns="method", values=["nmi", "pair_f1", "topics"]).round(3).to_string())
    print(table.groupby("method")[["nmi", "pair_f1", "topics"]].mean().round(3).to_string())
    (HERE / "results" / "small-corpus-labels.json").write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
