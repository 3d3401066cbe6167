"""The static backend (`--backend static`) beside MiniLM: speed, distillation time, quality.

    python benchmarks/static_backend.py                      # all parts, 30-60 minutes on 2 busy cores
    python benchmarks/static_backend.py --parts throughput   # or any of: distil throughput labels evaluate
    python benchmarks/static_backend.py --table              # only print the table for benchmarks/README.md

``STATIC_BENCH_PER_VENUE=100`` shrinks the label sample that MiniLM embeds (300 papers per venue by default);
``STATIC_BENCH_EVALUATE=sample:minilm,full:static`` picks the evaluate runs (default: both datasets, both
backends; results merge into the file, so runs can be added later).

Parts (results merged into ``benchmarks/results/static-backend.json``):

- **distil**: distilling the static model from the packaged MiniLM into an empty folder
  (a fresh ``StaticEmbedder(cache_dir=...)``), wall and CPU seconds.
- **throughput**: texts/s of ``StaticEmbedder.encode`` on 50,000 "title. abstract" texts of
  ``../shared/data/bigcorpus.parquet`` (a new embedder: its first pass tokenises every
  distinct fragment; then a second pass), and of the default MiniLM backend on 300 of
  them; no embedding cache. Both wall-clock and CPU-time rates: these 2-core machines are
  shared, so the wall rate depends on the load (recorded) and the CPU rate does not.
- **labels**: agreement with a label on a stratified sample of bigcorpus (the 10 largest
  venues, 300 papers each, the same 3,000 papers for every backend; static also on 1,000
  each): k-means (k = number of classes) NMI and ARI, and 5-fold cross-validated logistic
  regression accuracy and macro-F1, against ``venue`` and against a coarser ``field``
  (vision: CVPR, ICCV; robotics: ICRA, IROS; language: ACL, EMNLP; machine learning:
  NeurIPS, ICML, ICLR; AI: AAAI); and how many of each paper's 10 nearest neighbours
  under MiniLM are among its 10 under the other backend. LSA (TF-IDF + SVD) is the
  weightless reference.
- **evaluate**: ``topics evaluate`` (topics' scores: NPMI, diversity, outliers, seed
  agreement) on the bundled sample and on the full ICLR lists, ``--backend static`` against
  the default.
- **teaching**: the static model as distilled (``StaticEmbedder(teach=False)``) against
  the same model taught to imitate MiniLM on the bundled full lists (the default,
  :mod:`topics.embedding.teach`), on corpora it was not taught on: ICLR 2023 and NeurIPS
  2022 from bigcorpus, and the 1,000-paper label sample (100 from each of the 10 venues).
  For each: the share of MiniLM's 10 nearest neighbours kept; k-means (k = 30) ARI
  against k-means of MiniLM's vectors; ``TopicModel`` (seed 0) topics, outliers and ARI
  against ``TopicModel`` on MiniLM's vectors; on the label sample also the NMI of the
  topics and of k-means (k = classes) against ``field`` and ``venue``; on ICLR 2023 the
  ARI between the fits with seeds 0 and 1.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import numpy as np

from topics.vectors import unit_rows

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "static-backend.json"
BIGCORPUS = ROOT.parent / "shared" / "data" / "bigcorpus.parquet"
VENUES = ["CVPR", "NeurIPS", "IROS", "ICRA", "EMNLP", "ACL", "AAAI", "ICLR", "ICCV", "ICML"]
FIELDS = {"CVPR": "vision", "ICCV": "vision", "IROS": "robotics", "ICRA": "robotics", "ACL": "language",
          "EMNLP": "language", "NeurIPS": "ml", "ICML": "ml", "ICLR": "ml", "AAAI": "ai"}
PARTS = ("distil", "throughput", "labels", "evaluate", "teaching")


class Clock:
    """Wall and CPU seconds of a block (CPU: this process and its threads)."""

    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall, self.cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu


def machine() -> dict:
    flags = ""
    if Path("/proc/cpuinfo").exists():
        flags = next((line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("flags")), "")
    return {"cpus": os.cpu_count(), "avx512_bf16": "avx512_bf16" in flags, "amx": "amx_tile" in flags,
            "load_average_1min": round(os.getloadavg()[0], 1)}


def bigcorpus_texts(frame) -> list[str]:
    from topics.pipeline import embedding_texts

    return embedding_texts(frame)


def distil() -> dict:
    from topics.embedding.static import StaticEmbedder

    with tempfile.TemporaryDirectory() as folder:
        embedder = StaticEmbedder(cache_dir=folder)
        with Clock() as clock:
            embedder.encode(["warm up"])
    return {"distil_wall_s": round(clock.wall, 1), "distil_cpu_s": round(clock.cpu, 1), **machine()}


def throughput(n_static: int = 50_000, n_minilm: int = 300) -> dict:
    import pandas as pd

    from topics.embedding.backends import get_embedder
    from topics.embedding.static import StaticEmbedder

    frame = pd.read_parquet(BIGCORPUS).sample(n_static, random_state=0)
    texts = bigcorpus_texts(frame)
    out = {"n_static": n_static, "n_minilm": n_minilm, "mean_characters": round(float(np.mean([len(t) for t in texts])), 1)}
    with Clock() as load:
        static = StaticEmbedder()
        static.encode(["warm up"])  # loads the distilled model (distils it first if it is not cached)
    out["static_load_s"] = round(load.wall, 2)
    for label in ("static_first_pass", "static_second_pass"):
        out[f"{label}_load_before"] = round(os.getloadavg()[0], 1)
        with Clock() as clock:
            vectors = static.encode(texts)
        out[f"{label}_per_s_wall"] = round(n_static / clock.wall)
        out[f"{label}_per_s_cpu"] = round(n_static / clock.cpu)
    out["static_dim"] = int(vectors.shape[1])
    minilm = get_embedder("minilm")
    minilm.encode(texts[:8])  # loads the model
    out["minilm_name"] = minilm.name
    out["minilm_load_before"] = round(os.getloadavg()[0], 1)
    with Clock() as clock:
        minilm.encode(texts[:n_minilm])
    out["minilm_per_s_wall"] = round(n_minilm / clock.wall, 1)
    out["minilm_per_s_cpu"] = round(n_minilm / clock.cpu, 1)  # torch's threads summed
    out["speedup_wall"] = round(out["static_first_pass_per_s_wall"] / out["minilm_per_s_wall"])
    out["speedup_cpu"] = round(out["static_first_pass_per_s_cpu"] / out["minilm_per_s_cpu"])
    return {**out, **machine()}


def stratified(frame, per_venue: int, seed: int = 0):
    picked = frame[frame["venue"].isin(VENUES)]
    return picked.groupby("venue", group_keys=False).sample(per_venue, random_state=seed).reset_index(drop=True)


def label_scores(vectors: np.ndarray, labels: np.ndarray, seed: int = 0) -> dict:
    from sklearn.cluster import KMeans
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
    from sklearn.model_selection import StratifiedKFold, cross_validate

    k = len(np.unique(labels))
    clusters = KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(vectors)
    cv = cross_validate(LogisticRegression(max_iter=3000, C=10.0), vectors, labels,
                        cv=StratifiedKFold(5, shuffle=True, random_state=seed), scoring=("accuracy", "f1_macro"))
    return {"kmeans_nmi": round(normalized_mutual_info_score(labels, clusters), 3),
            "kmeans_ari": round(adjusted_rand_score(labels, clusters), 3),
            "logreg_accuracy": round(float(cv["test_accuracy"].mean()), 3),
            "logreg_macro_f1": round(float(cv["test_f1_macro"].mean()), 3)}


def neighbour_overlap(a: np.ndarray, b: np.ndarray, k: int = 10) -> float:
    """Mean share of each row's k nearest neighbours (cosine) under ``a`` that are among its k under ``b``."""
    def knn(x):
        x = unit_rows(x)
        sims = x @ x.T
        np.fill_diagonal(sims, -np.inf)
        return np.argpartition(-sims, k, axis=1)[:, :k]

    na, nb = knn(a), knn(b)
    return round(float(np.mean([len(set(r) & set(s)) / k for r, s in zip(na, nb)])), 3)


def labels(per_venue_small: int = 300, per_venue_large: int = 1000) -> dict:
    per_venue_small = int(os.environ.get("STATIC_BENCH_PER_VENUE", per_venue_small))
    import pandas as pd

    from topics.embedding.backends import LSAEmbedder
    from topics.embedding.embed import embed_texts
    from topics.embedding.static import StaticEmbedder

    frame = pd.read_parquet(BIGCORPUS, columns=["title", "abstract", "venue", "year"])
    small = stratified(frame, per_venue_small)
    out = {"sample": len(small), "large_sample": per_venue_large * len(VENUES)}
    texts = bigcorpus_texts(small)
    vectors = {}
    for name, backend in (("minilm", "minilm"), ("static", StaticEmbedder()), ("lsa", LSAEmbedder())):
        with Clock() as clock:
            vectors[name] = embed_texts(texts, backend, cache=True)  # MiniLM's are cached for a rerun
        out[f"embed_{name}_{len(texts)}_wall_s"] = round(clock.wall, 1)
    for name, v in vectors.items():
        for column in ("venue", "field"):
            truth = small["venue"].map(FIELDS).to_numpy() if column == "field" else small["venue"].to_numpy()
            out[f"{name}_{len(texts)}_{column}"] = label_scores(v, truth)
        if name != "minilm":
            out[f"{name}_{len(texts)}_knn10_overlap_with_minilm"] = neighbour_overlap(vectors["minilm"], v)
    large = stratified(frame, per_venue_large)
    big = StaticEmbedder().encode(bigcorpus_texts(large))
    for column in ("venue", "field"):
        truth = large["venue"].map(FIELDS).to_numpy() if column == "field" else large["venue"].to_numpy()
        out[f"static_{len(large)}_{column}"] = label_scores(big, truth)
    return {**out, **machine()}


def evaluate() -> dict:
    out = {}
    topics = [str(Path(sys.executable).with_name("topics"))]
    runs = os.environ.get("STATIC_BENCH_EVALUATE", "sample:minilm,sample:static,full:minilm,full:static")
    for dataset, backend in (run.split(":") for run in runs.split(",")):
        with tempfile.TemporaryDirectory() as folder:
            table = Path(folder) / "scores.csv"
            start = time.perf_counter()
            subprocess.run([*topics, "evaluate", "--dataset", dataset, "--backend", backend, "--csv", str(table), "-q"],
                           check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
            with open(table, newline="") as fh:
                scores = {row["metric"]: float(row["value"]) for row in csv.DictReader(fh) if row["value"] not in ("", "nan")}
        out[f"{dataset}_{backend}"] = {**{k: round(v, 4) for k, v in scores.items()}, "wall_s": round(time.perf_counter() - start, 1)}
        saved = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}  # keep each run, should a later one be stopped
        saved["evaluate"] = {**saved.get("evaluate", {}), **out}
        RESULTS.parent.mkdir(exist_ok=True)
        RESULTS.write_text(json.dumps(saved, indent=2) + "\n")
    return {**out, **machine()}


def teaching() -> dict:
    import pandas as pd
    from sklearn.cluster import KMeans
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    from topics.clustering.model import TopicModel
    from topics.embedding.embed import embed_texts
    from topics.embedding.static import MANIFEST, StaticEmbedder

    frame = pd.read_parquet(BIGCORPUS, columns=["title", "abstract", "venue", "year"])
    corpora = {
        "iclr2023": frame[(frame.venue == "ICLR") & (frame.year == 2023)].reset_index(drop=True),
        "neurips2022": frame[(frame.venue == "NeurIPS") & (frame.year == 2022)].reset_index(drop=True),
        "labels1000": stratified(frame, 100),
    }
    taught, distilled = StaticEmbedder(), StaticEmbedder(teach=False)
    taught.encode(["warm up"])  # teaches it first if the taught model is not kept yet
    out = {"teaching_record": json.loads((taught.model_dir() / MANIFEST).read_text())}

    def kmeans(v, k):
        v = unit_rows(v)
        return KMeans(n_clusters=k, n_init=4, random_state=0).fit_predict(v)

    for name, corpus in corpora.items():
        texts = bigcorpus_texts(corpus)
        vectors = {"minilm": embed_texts(texts, "minilm", cache=True)}  # cached by the labels part or a rerun
        for label, backend in (("distilled", distilled), ("taught", taught)):
            with Clock() as clock:
                vectors[label] = backend.encode(texts)
            out[f"{name}_{label}_embed_s"] = round(clock.wall, 2)
        reference_km = kmeans(vectors["minilm"], 30)
        fits = {label: TopicModel(random_state=0).fit(corpus, v) for label, v in vectors.items()}
        for label, v in vectors.items():
            row = {"papers": len(texts), "topics": len(set(fits[label].labels_) - {-1}),
                   "outliers": round(float(fits[label].outlier_share_), 3)}
            if label != "minilm":
                row["knn10_overlap_with_minilm"] = neighbour_overlap(vectors["minilm"], v)
                row["kmeans30_ari_with_minilm"] = round(adjusted_rand_score(reference_km, kmeans(v, 30)), 3)
                row["topics_ari_with_minilm"] = round(adjusted_rand_score(fits["minilm"].labels_, fits[label].labels_), 3)
            if name == "labels1000":
                for column in ("field", "venue"):
                    truth = corpus["venue"].map(FIELDS).to_numpy() if column == "field" else corpus["venue"].to_numpy()
                    row[f"topics_nmi_{column}"] = round(normalized_mutual_info_score(truth, fits[label].labels_), 3)
                    row[f"kmeans_nmi_{column}"] = round(normalized_mutual_info_score(truth, kmeans(v, len(set(truth)))), 3)
            if name == "iclr2023":  # does a fit come back with another seed?
                again = TopicModel(random_state=1).fit(corpus, v).labels_
                row["seed_ari_0_1"] = round(adjusted_rand_score(fits[label].labels_, again), 3)
            out[f"{name}_{label}"] = row
            print(name, label, row, flush=True)
    return {**out, **machine()}


def table(results: dict) -> str:
    rows = ["| measure | static | MiniLM (default) |", "|---|---|---|"]
    t = results.get("throughput", {})
    if t:
        rows.append(f"| texts/s, CPU time (wall under load {t['static_first_pass_load_before']:.0f}) | "
                    f"{t['static_first_pass_per_s_cpu']:,} ({t['static_first_pass_per_s_wall']:,}) | "
                    f"{t['minilm_per_s_cpu']} ({t['minilm_per_s_wall']}) |")
        rows.append(f"| dimensions | {t['static_dim']} | 384 |")
    d = results.get("distil", {})
    if d:
        rows.append(f"| one-time distillation, s CPU (wall) | {d['distil_cpu_s']:.0f} ({d['distil_wall_s']:.0f}) | - |")
    lab = results.get("labels", {})
    n = lab.get("sample")
    for column in ("venue", "field"):
        key = f"minilm_{n}_{column}"
        if key in lab:
            for metric in ("kmeans_nmi", "kmeans_ari", "logreg_accuracy", "logreg_macro_f1"):
                rows.append(f"| {column}: {metric} ({n:,} papers; LSA {lab[f'lsa_{n}_{column}'][metric]:.3f}) | "
                            f"{lab[f'static_{n}_{column}'][metric]:.3f} | {lab[key][metric]:.3f} |")
    if n:
        rows.append(f"| share of MiniLM's 10 nearest neighbours kept (LSA {lab[f'lsa_{n}_knn10_overlap_with_minilm']:.3f}) | "
                    f"{lab[f'static_{n}_knn10_overlap_with_minilm']:.3f} | 1 |")
    ev = results.get("evaluate", {})
    for dataset in ("sample", "full"):
        if f"{dataset}_static" in ev and f"{dataset}_minilm" in ev:
            s, m = ev[f"{dataset}_static"], ev[f"{dataset}_minilm"]
            for metric in ("topics", "outlier_share", "npmi", "diversity", "seed_mean_ari"):
                if metric in s and metric in m:
                    rows.append(f"| `topics evaluate --dataset {dataset}`: {metric} | {s[metric]:.3f} | {m[metric]:.3f} |")
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated, of {', '.join(PARTS)}")
    parser.add_argument("--table", action="store_true", help="only print the table from the results file")
    parser.add_argument("--results", type=Path, default=RESULTS, help=f"results file (default {RESULTS.name}; parts merge into it)")
    args = parser.parse_args()
    results = json.loads(args.results.read_text()) if args.results.exists() else {}
    if not args.table:
        parts = [p.strip() for p in args.parts.split(",") if p.strip()]
        unknown = sorted(set(parts) - set(PARTS))
        if unknown:
            parser.error(f"unknown parts {unknown}; choose from {', '.join(PARTS)}")
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE).stdout.strip()
        for part in parts:
            print(f"== {part}", flush=True)
            results[part] = {**results.get(part, {}), **globals()[part](), "commit": commit, "date": date.today().isoformat()}
            print(json.dumps(results[part], indent=2), flush=True)
            args.results.parent.mkdir(exist_ok=True)
            args.results.write_text(json.dumps(results, indent=2) + "\n")
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
