"""What ``topics update`` costs beyond the new year's embedding, part by part.

    python benchmarks/update_time.py                      # ICLR+ICML 2022 fitted, 2023 added (3,613 papers)
    python benchmarks/update_time.py --backend static --embed-sample 300   # MiniLM's cost scaled from 300 papers

The issue's budget (issue 39, item 6): an update with a year of about 4,000 papers costs the
new year's embedding plus at most a minute. The script reads the venue-years of
``../shared/data/bigcorpus.parquet`` (as ``topics report`` reads a table), fits the first
year (``topics.analyze``; embeddings from the shared cache where they are there), then
times, in one process:

* **embedding**: the new year's papers embedded without the cache (what a user pays for
  a year never seen);
* **update**: :func:`topics.update.update`, with its own parts (``assign``,
  ``candidates``, ``tables``) and, inside ``tables``, what :func:`topics.pipeline.build_tables`
  spends on each step (from a profile: the functions with the most cumulative time);
* **report**: :func:`topics.render_report` of the updated analysis (what ``topics update
  --out`` writes next).

On a shared machine the seconds move with the load: compare the parts as ratios within one
run. Results go to ``results/update-time-<venues>-<years>-<backend>.json``.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIGCORPUS = HERE.parent.parent / "shared" / "data" / "bigcorpus.parquet"


def read_years(data: Path, venues: list[str], years: list[int]):
    """The papers of ``venues`` in ``years``, read as ``topics report`` reads a table."""
    import pandas as pd

    import topics

    frame = pd.read_parquet(data, columns=["id", "title", "abstract", "year", "venue", "status", "keywords"])
    frame = frame[frame["venue"].isin(venues) & frame["year"].isin(years)].reset_index(drop=True)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "papers.parquet"
        frame.to_parquet(path)
        return topics.read_corpus(path)


def profiled(call, *, top: int = 25) -> tuple[object, list[dict]]:
    """``call()``'s result and the ``top`` functions of the package by cumulative seconds."""
    profile = cProfile.Profile()
    result = profile.runcall(call)
    stats = pstats.Stats(profile)
    rows = [
        {"function": f"{Path(file).parent.name}/{Path(file).name}:{name}", "seconds": round(cum, 2), "calls": calls}
        for (file, _, name), (_, calls, _, cum, _) in stats.stats.items()
        if "/topics/" in file
    ]
    return result, sorted(rows, key=lambda r: -r["seconds"])[:top]


def run(data: Path, venues: list[str], fit_year: int, new_year: int, backend: str, seed: int, *, embed_sample: int = 0,
        embed_backend: str = "minilm") -> dict:
    import numpy as np

    import topics
    from topics.embedding.embed import embed_texts
    from topics.pipeline import embedding_texts
    from topics.update import update

    corpus = read_years(data, venues, [fit_year, new_year])
    old = corpus[corpus["year"] == fit_year].reset_index(drop=True)
    new = corpus[corpus["year"] == new_year].reset_index(drop=True)
    out = {"venues": venues, "fit_year": fit_year, "new_year": new_year, "backend": backend, "n_fitted": len(old), "n_new": len(new)}
    start = time.perf_counter()
    analysis = topics.analyze(old, embeddings=embed_texts(embedding_texts(old), backend), random_state=seed)
    out["fit_s"] = time.perf_counter() - start
    start = time.perf_counter()
    embeddings = embed_texts(embedding_texts(new), backend, cache=False)
    out["embedding_s"] = time.perf_counter() - start
    if embed_sample:  # the user's backend on a sample of the new year, scaled to the whole year
        texts = embedding_texts(new.sample(n=min(embed_sample, len(new)), random_state=seed))
        start = time.perf_counter()
        embed_texts(texts, embed_backend, cache=False)
        out[f"embedding_{embed_backend}_s"] = (time.perf_counter() - start) * len(new) / len(texts)
    start = time.perf_counter()
    updated, out["update_profile"] = profiled(lambda: update(analysis, new, np.asarray(embeddings)))
    out["update_s"] = time.perf_counter() - start
    out["update_parts_s"] = dict(updated.timings)
    start = time.perf_counter()
    html = topics.render_report(updated)
    out["report_s"] = time.perf_counter() - start
    out["report_mb"] = len(html.encode()) / 1e6
    out |= new_in_year(updated)
    out["beyond_embedding_s"] = out["update_s"] + out["report_s"]
    return out


def new_in_year(updated) -> dict:
    """What the report's "New in <year>" lists: sub-topics, phrases, where the year grew
    on the map, and the novel papers."""
    import numpy as np

    from topics.clustering.neighbors import place_again
    from topics.stats.density import growth_peaks, year_density

    docs, coords = updated.documents, np.array(updated.coords, dtype=np.float64)
    old = len(coords) - int(updated.settings.update["n_documents"])  # placed as the report places them
    coords[:old] = place_again(coords[:old], updated.embeddings[:old], n_neighbors=int(updated.model.params_["n_neighbors"]) + 1)
    density = year_density(coords, docs["year"].to_numpy())
    names = dict(zip(updated.topics["topic"].astype(int), updated.topics["label"]))
    peaks = growth_peaks(density, coords, docs["year"].to_numpy(), topics=docs["topic"].to_numpy(), topic_labels=names)
    return {
        "emerging": updated.emerging[["name", "topic_label", "n_docs", "n_latest", "q"]].to_dict("records"),
        "rising": updated.rising[["phrase", "n_before", "n_latest", "q", "topics"]].to_dict("records"),
        "growth_peaks": peaks[["topic_label", "n_near", "n_latest", "p"]].to_dict("records"),
        "n_novel": int(updated.new_papers["novel"].sum()), "n_new_topics": len(updated.new_topics),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--venues", default="ICLR,ICML", help="comma-separated venues of the big corpus (default ICLR,ICML)")
    parser.add_argument("--fit-year", type=int, default=2022)
    parser.add_argument("--new-year", type=int, default=2023)
    parser.add_argument("--backend", default="minilm", help="embedding backend (default minilm; per-text backends only)")
    parser.add_argument("--embed-sample", type=int, default=0, metavar="N",
                        help="also embed N papers of the new year with --embed-backend (no cache) and scale to the whole year")
    parser.add_argument("--embed-backend", default="minilm")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=BIGCORPUS)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    if not args.data.exists():
        print(f"error: {args.data} not found (the big corpus lives in ../shared/data/)", file=sys.stderr)
        return 2
    venues = args.venues.split(",")
    result = run(args.data, venues, args.fit_year, args.new_year, args.backend, args.seed, embed_sample=args.embed_sample,
                 embed_backend=args.embed_backend)
    print(f"{'+'.join(venues)} {args.fit_year} ({result['n_fitted']:,} papers) + {args.new_year} ({result['n_new']:,}), "
          f"{args.backend}: embedding {result['embedding_s']:.1f} s; update {result['update_s']:.1f} s "
          f"({', '.join(f'{k} {v:.1f} s' for k, v in result['update_parts_s'].items())}); report {result['report_s']:.1f} s")
    for key in (k for k in result if k.startswith("embedding_") and k != "embedding_s"):
        print(f"  {key}: {result[key]:.1f} s for the whole new year (scaled from {args.embed_sample} papers)")
    for row in result["update_profile"][:12]:
        print(f"  {row['seconds']:7.1f} s  {row['function']}")
    out = args.out or HERE / "results" / f"update-time-{'-'.join(venues).lower()}-{args.fit_year}-{args.new_year}-{args.backend}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
