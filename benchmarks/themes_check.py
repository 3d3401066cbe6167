"""Precision and recall of :func:`topics.themes.tracking.track` on the labelled check set.

``tests/data/theme_check.csv`` holds 200 ICLR papers (5 themes x 40), each labelled in or
out of its theme by reading its title and abstract, drawn before any membership rule
existed (``benchmarks/theme_check_draw.py``). This script runs ``track`` on the full
lists with only each theme's name, as a user typing ``--theme NAME`` would, and scores
its membership against those labels, beside the phrase-only baseline (papers whose title
or abstract contains the theme's name; also with the acronyms ``track`` finds)::

    python benchmarks/themes_check.py            # MiniLM embeddings (from the cache)
    python benchmarks/themes_check.py --markdown # the tables for benchmarks/README.md

Two kinds of figures:

* **on the check set**: each of the 200 papers counts once (precision and recall with
  95 % Wilson intervals);
* **weighted**: each paper counts for its stratum (``stratum_size / papers drawn from
  it``), estimating precision and recall over all 4,364 papers. The strata are uneven
  (12 of 51 optimal-transport papers that name it, 6 of ~4,000 random papers), so these
  estimates are much noisier.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

import numpy as np
import pandas as pd

import topics
from topics.pipeline import embedding_texts
from topics.themes.membership import phrase_matches
from topics.themes.tracking import track
from topics.stats.trends import wilson_interval

CHECK = Path(__file__).resolve().parent.parent / "tests" / "data" / "theme_check.csv"


def score(check: pd.DataFrame, predicted: pd.Series) -> dict:
    y = check["label"].eq("in").to_numpy()
    p = check["id"].map(predicted).fillna(False).astype(bool).to_numpy()
    w = (check["stratum_size"] / check.groupby(["theme", "stratum"])["id"].transform("size")).to_numpy()
    tp, fp, fn = int((p & y).sum()), int((p & ~y).sum()), int((~p & y).sum())
    out = {"tp": tp, "fp": fp, "fn": fn, "precision": tp / max(tp + fp, 1), "recall": tp / max(tp + fn, 1)}
    for name, k, n in (("precision", tp, tp + fp), ("recall", tp, tp + fn)):
        low, high = wilson_interval(k, n)
        out[f"{name}_ci"] = (float(low), float(high))
    wtp, wfp, wfn = (w * (p & y)).sum(), (w * (p & ~y)).sum(), (w * (~p & y)).sum()
    out["w_precision"] = wtp / max(wtp + wfp, 1e-12)
    out["w_recall"] = wtp / max(wtp + wfn, 1e-12)
    return out


def evaluate(corpus: pd.DataFrame, embeddings: np.ndarray, check: pd.DataFrame, *, embedder=None) -> pd.DataFrame:
    themes = list(dict.fromkeys(check["theme"]))
    tracking = track(corpus, embeddings, themes, embedder=embedder)
    papers = tracking.papers.copy()
    texts = (corpus["title"].fillna("") + ". " + corpus["abstract"]).tolist()
    name_only = {t: pd.Series(phrase_matches(texts, [t]), index=corpus["doc_id"]) for t in themes}
    papers["name_only"] = [name_only[t][d] for t, d in zip(papers["theme"], papers["doc_id"])]
    rows = []
    for theme in themes + ["all"]:
        sub = check if theme == "all" else check[check["theme"] == theme]
        for method, column in (("track", "member"), ("name or acronym", "names_theme"), ("phrase only (the name)", "name_only")):
            if theme == "all":
                parts = [score(check[check["theme"] == t], papers[papers["theme"] == t].set_index("doc_id")[column]) for t in themes]
                tp, fp, fn = (sum(p[k] for p in parts) for k in ("tp", "fp", "fn"))
                res = score_counts(tp, fp, fn)
                res.update(weighted_all(check, papers, column, themes))
            else:
                res = score(sub, papers[papers["theme"] == theme].set_index("doc_id")[column])
            rows.append({"theme": theme, "method": method, **res})
    out = pd.DataFrame(rows)
    summary = tracking.summary.set_index("theme")
    sizes = {("track", t): summary.loc[t, "n_members"] for t in themes}
    sizes.update({("name or acronym", t): summary.loc[t, "n_phrase"] for t in themes})
    sizes.update({("phrase only (the name)", t): name_only[t].sum() for t in themes})
    out["n_members"] = [sizes.get((m, t), np.nan) for m, t in zip(out["method"], out["theme"])]
    return out


def score_counts(tp: int, fp: int, fn: int) -> dict:
    out = {"tp": tp, "fp": fp, "fn": fn, "precision": tp / max(tp + fp, 1), "recall": tp / max(tp + fn, 1)}
    for name, k, n in (("precision", tp, tp + fp), ("recall", tp, tp + fn)):
        low, high = wilson_interval(k, n)
        out[f"{name}_ci"] = (float(low), float(high))
    return out


def weighted_all(check, papers, column, themes) -> dict:
    wtp = wfp = wfn = 0.0
    for t in themes:
        sub = check[check["theme"] == t]
        y = sub["label"].eq("in").to_numpy()
        p = sub["id"].map(papers[papers["theme"] == t].set_index("doc_id")[column]).fillna(False).astype(bool).to_numpy()
        w = (sub["stratum_size"] / sub.groupby("stratum")["id"].transform("size")).to_numpy()
        wtp += (w * (p & y)).sum()
        wfp += (w * (p & ~y)).sum()
        wfn += (w * (~p & y)).sum()
    return {"w_precision": wtp / wtp_or(wtp + wfp), "w_recall": wtp / wtp_or(wtp + wfn)}


def wtp_or(x: float) -> float:
    return x if x > 0 else 1e-12


def markdown(table: pd.DataFrame) -> str:
    lines = ["| theme | method | members (all 4,364) | precision (95 % CI) | recall (95 % CI) | TP / FP / FN | weighted P / R |",
             "|---|---|---|---|---|---|---|"]
    for r in table.itertuples(index=False):
        members = "" if pd.isna(r.n_members) else f"{int(r.n_members)}"
        lines.append(
            f"| {r.theme} | {r.method} | {members} | {r.precision:.2f} ({r.precision_ci[0]:.2f}-{r.precision_ci[1]:.2f}) "
            f"| {r.recall:.2f} ({r.recall_ci[0]:.2f}-{r.recall_ci[1]:.2f}) | {r.tp} / {r.fp} / {r.fn} "
            f"| {r.w_precision:.2f} / {r.w_recall:.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="minilm", help="embedding backend (default minilm; read from the cache)")
    parser.add_argument("--markdown", action="store_true", help="print markdown tables")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    check = pd.read_csv(CHECK)
    corpus = topics.io.datasets.iclr_full()
    embedder = topics.get_embedder(args.backend)
    embeddings = topics.embed_texts(embedding_texts(corpus), embedder, cache=True)  # what analyze embeds
    for label, use in (("theme vector from papers only (precomputed embeddings)", None),
                       (f"theme vector from papers and the embedded name ({embedder.name})", embedder)):
        table = evaluate(corpus, embeddings, check, embedder=use)
        print(f"\n### {label}\n")
        if args.markdown:
            print(markdown(table))
        else:
            with pd.option_context("display.width", 200):
                print(table.drop(columns=["precision_ci", "recall_ci"]).round(3).to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
