"""Does "New in <year>" name what authors call new? Checked on real next years.

    python benchmarks/emerging_keywords.py [--pair ICLR:2022:2023 ...] [--backend static]
    python benchmarks/emerging_keywords.py --series ICLR:2018,2019,2020,2022,2023

The ground truth is the author keywords of ``../shared/data/bigcorpus.parquet`` (never
read by the method unless ``--with-keywords``): for a venue's consecutive years A -> B, a
keyword is **new** when at most 5 keyworded papers of A and at least 20 of B choose it,
and **rising** when at least 10 papers of B choose it and its share of B's keyworded
papers is at least twice its share of A's (each smoothed by half a paper). The report
items are the emerging sub-topics (:func:`topics.clustering.emerging.emerging_subtopics`)
and the rising phrases (:func:`topics.stats.rising.rising_phrases`) of the two years, as
"New in B" lists them. Scores (a name matches a keyword as in ``names_keywords.py``: one
holds the other's words in order, the shorter with at least 2/3 of the longer's words):

* **top-10 named**: the share of the 10 new keywords most used in B that some item matches;
* **items that match**: the share of items that match a new or rising keyword.

Topics come from two fits: ``joint`` (``topics.analyze`` over A and B together, as
``topics report`` does) and ``update`` (fitted on A alone, B's papers placed in A's
topics by ``TopicModel.transform``, as ``topics update`` does). Results go to
``results/emerging-keywords.json``; the table is in ``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
BIGCORPUS = HERE.parent.parent / "shared" / "data" / "bigcorpus.parquet"
PAIRS = (
    "ICLR:2017:2018", "ICLR:2018:2019", "ICLR:2019:2020", "ICLR:2022:2023", "CoRL:2021:2022", "CoRL:2022:2023",
    "CoRL:2023:2024", "CoRL:2024:2025", "COLM:2024:2025", "Interspeech:2021:2022", "Interspeech:2022:2023", "ICLR:2020:2022",
    "3DV:2025:2026",
)


def keyword_sets(keywords: pd.Series, acronyms: dict) -> list[set[str]]:
    from topics.naming.acronyms import expand_acronyms
    from topics.naming.coverage import phrase_key
    from topics.stats.rising import keyword_phrases

    # acronyms written out before keyword_phrases lower-cases them ("offline RL" is "offline
    # reinforcement learning"); expand_acronyms is case-sensitive
    return [{phrase_key(expand_acronyms(k, acronyms)) for k in keyword_phrases(expand_acronyms(v, acronyms) if isinstance(v, str) else v)} - {""}
            for v in keywords]


def lower_case_acronyms(acronyms: dict) -> dict:
    """``acronyms`` keyed in lower case as well, for items the report lists in lower case
    ("offline rl"); not where the lower-case acronym is an English stop word ("IT", "ON")."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    lower = {k.lower(): v for k, v in acronyms.items() if len(k) >= 2 and k.lower() not in ENGLISH_STOP_WORDS}
    return {**lower, **acronyms}


def truth(kw_a: list[set[str]], kw_b: list[set[str]]) -> tuple[list[str], set[str]]:
    """The 10 new keywords most used in B, and every new or rising keyword."""
    a = Counter(k for ks in kw_a for k in ks)
    b = Counter(k for ks in kw_b for k in ks)
    na, nb = sum(1 for ks in kw_a if ks), sum(1 for ks in kw_b if ks)
    new = sorted((k for k, n in b.items() if n >= 20 and a[k] <= 5), key=lambda k: (-b[k], k))
    rising = {k for k, n in b.items() if n >= 10 and ((n + 0.5) / nb) >= 2 * ((a[k] + 0.5) / na)}
    return new[:10], set(new) | rising


#: Pairs whose earlier year's keywords were picked from a fixed list, the later year's free
#: text: every free-text keyword looks new ("neural network", "gan"), so they judge nothing.
FIXED_LIST = {"ICLR:2017:2018"}


def judged(pair: str, keyworded: dict) -> bool:
    """Whether a pair's keywords can judge it: both years have author keywords on at least
    half their papers, and the earlier year's were not picked from a fixed list."""
    return pair not in FIXED_LIST and min(keyworded.values()) >= 0.5


def totals(results: list[dict], part) -> dict:
    """Top-10 keywords named and items that match, summed over the judged pairs."""
    judged_ = [r for r in results if r["judged"]]
    top = sum(len(r["new_top10"]) for r in judged_)
    named = sum(len(part(r)["named"]) for r in judged_)
    items = sum(len(part(r)["items"]) for r in judged_)
    hits = sum(len(part(r)["hits"]) for r in judged_)
    return {"pairs": [r["pair"] for r in judged_], "top10": top, "named": named, "items": items, "hits": hits}


def matches(name: str, keyword: str) -> bool:
    a, b = name.replace("-", " ").split(), keyword.replace("-", " ").split()
    if not a or not b:
        return False
    longer, shorter = (a, b) if len(a) >= len(b) else (b, a)
    n = len(shorter)
    held = any(longer[i : i + n] == shorter for i in range(len(longer) - n + 1))
    return held and n * 3 >= len(longer) * 2


def score(items: list[str], top10: list[str], good: set[str], acronyms: dict) -> dict:
    from topics.naming.acronyms import expand_acronyms
    from topics.naming.coverage import name_parts, phrase_key

    lower = lower_case_acronyms(acronyms)
    keys = [[phrase_key(expand_acronyms(p, table)) for p in name_parts(item) for table in (acronyms, lower)] for item in items]
    named = [k for k in top10 if any(matches(p, k) for parts in keys for p in parts)]
    hits = [item for item, parts in zip(items, keys) if any(matches(p, k) for p in parts for k in good)]
    return {
        "top10_named": len(named) / max(len(top10), 1), "named": named,
        "items_match": len(hits) / max(len(items), 1), "items": items, "hits": hits,
    }


def report_items(embeddings, labels, names, years, texts, titles, keywords, year_b) -> tuple[list[str], list[str]]:
    from topics.clustering.emerging import emerging_subtopics

    sub = emerging_subtopics(embeddings, labels, years, texts, latest=year_b, topic_labels=names, titles=titles)
    return sub["name"].tolist(), []


def fits(corpus: pd.DataFrame, year_a: int, backend: str, seed: int):
    """(embeddings, {fit: (labels, names)}) for the joint fit and the update."""
    import topics
    from topics.pipeline import embedding_texts

    joint = topics.analyze(corpus, embedder=backend, random_state=seed)
    emb = joint.embeddings
    old = (corpus["year"] == year_a).to_numpy()
    model_a = topics.TopicModel(random_state=seed).fit(corpus[old].reset_index(drop=True), emb[old])
    labels_u = np.empty(len(corpus), dtype=int)
    labels_u[old] = model_a.labels_
    texts = embedding_texts(corpus)
    labels_u[~old] = model_a.transform([texts[i] for i in np.flatnonzero(~old)], emb[~old])["topic"].to_numpy()
    names_j = dict(joint.model.topic_names_)
    names_u = dict(model_a.topic_names_)
    return emb, {"joint": (joint.model.labels_, names_j), "update": (labels_u, names_u)}


#: How the rising phrases are found and listed (``--no-acronyms``, ``--single-words``):
#: keyword arguments of ``paper_phrases`` and ``rising_phrases``.
PHRASE_OPTIONS = {"acronyms": True, "single_words": False}


def run_pair(data: pd.DataFrame, pair: str, backend: str, seed: int, with_keywords: bool, min_keyphraseness: float) -> dict:
    import topics
    from keyphrases import counts as keyphrase_counts  # benchmarks/keyphrases.py
    from topics.naming.keyphrases import ENVIRON

    venue, a, b = pair.split(":")
    year_a, year_b = int(a), int(b)
    frame = data[(data["venue"] == venue) & data["year"].isin([year_a, year_b])].reset_index(drop=True)
    with tempfile.TemporaryDirectory() as folder:  # read as `topics report` reads a table
        path = Path(folder) / "pair.parquet"
        frame.to_parquet(path)
        corpus = topics.read_corpus(path)
        # names are chosen with keyphraseness counted without these venue-years' keywords
        held_out = Path(folder) / "keyphrases.tsv.gz"
        keyphrase_counts([(venue, year_a), (venue, year_b)]).write(held_out)
        os.environ[ENVIRON] = str(held_out)
        return _score_pair(corpus, pair, year_a, year_b, backend, seed, with_keywords, min_keyphraseness)


def _score_pair(corpus: pd.DataFrame, pair: str, year_a: int, year_b: int, backend: str | None, seed: int, with_keywords: bool,
                min_keyphraseness: float) -> dict:
    from topics.naming.acronyms import find_acronyms
    from topics.pipeline import embedding_texts
    from topics.stats.rising import paper_phrases, rising_phrases

    texts = embedding_texts(corpus)
    acronyms = find_acronyms(texts)
    kws = keyword_sets(corpus["keywords"], acronyms)
    years = corpus["year"].to_numpy()
    top10, good = truth([k for k, y in zip(kws, years) if y == year_a], [k for k, y in zip(kws, years) if y == year_b])
    keyworded = {y: float(np.mean([bool(k) for k, y_ in zip(kws, years) if y_ == y])) for y in (year_a, year_b)}
    out = {"pair": pair, "papers": len(corpus), "new_top10": top10, "n_new_or_rising": len(good),
           "keyworded": keyworded, "judged": judged(pair, keyworded)}
    keywords = corpus["keywords"] if with_keywords else None
    start = time.perf_counter()
    phrases = paper_phrases(texts, keywords, min_keyphraseness=min_keyphraseness, acronyms=PHRASE_OPTIONS["acronyms"])
    table = rising_phrases(phrases, years, latest=year_b, single_words=PHRASE_OPTIONS["single_words"])
    rising = table["phrase"].tolist()
    out["phrases"] = {**score(rising, top10, good, acronyms), "seconds": time.perf_counter() - start,
                      "rows": table[["phrase", "n_before", "n_latest", "q"]].to_dict("records")}
    if backend is None:
        return out
    start = time.perf_counter()
    emb, fitted = fits(corpus, year_a, backend, seed)
    out["fit_s"] = time.perf_counter() - start
    for fit, (labels, names) in fitted.items():
        start = time.perf_counter()
        sub, _ = report_items(emb, labels, names, years, texts, corpus["title"].tolist(), keywords, year_b)
        out[fit] = {"subtopics": score(sub, top10, good, acronyms), "all": score(sub + rising, top10, good, acronyms),
                    "seconds": time.perf_counter() - start}
    return out


def run_series(data: pd.DataFrame, series: str, top_n: int) -> list[dict]:
    """Rising phrases (Fisher's exact test + Benjamini-Hochberg, the last year against all
    earlier ones) against Kleinberg bursts (:func:`topics.stats.bursts.phrase_bursts`) on
    a venue's years ("ICLR:2018,2019,2020,2022,2023"): for each last year from the third
    on, both lists scored against the keywords new or rising from the year before it."""
    import topics
    from keyphrases import counts as keyphrase_counts  # benchmarks/keyphrases.py
    from topics.naming.acronyms import find_acronyms
    from topics.naming.keyphrases import ENVIRON
    from topics.pipeline import embedding_texts
    from topics.stats.bursts import phrase_bursts
    from topics.stats.rising import paper_phrases, rising_phrases

    venue, listed = series.split(":")
    years_ = [int(y) for y in listed.split(",")]
    frame = data[(data["venue"] == venue) & data["year"].isin(years_)].reset_index(drop=True)
    out = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "series.parquet"
        frame.to_parquet(path)
        corpus = topics.read_corpus(path)
        held_out = Path(folder) / "keyphrases.tsv.gz"
        keyphrase_counts([(venue, y) for y in years_]).write(held_out)
        os.environ[ENVIRON] = str(held_out)
        texts = embedding_texts(corpus)
        acronyms = find_acronyms(texts)
        kws = keyword_sets(corpus["keywords"], acronyms)
        years = corpus["year"].to_numpy()
        phrases = paper_phrases(texts)
        for before, last in zip(years_[1:], years_[2:]):
            top10, good = truth([k for k, y in zip(kws, years) if y == before], [k for k, y in zip(kws, years) if y == last])
            upto = years <= last
            ph, yr = [p for p, keep in zip(phrases, upto) if keep], years[upto]
            lists = {"rising": rising_phrases(ph, yr, latest=last, top_n=top_n)["phrase"].tolist(),
                     "bursts": phrase_bursts(ph, yr, top_n=top_n)["phrase"].tolist()}
            name = f"{venue} {years_[0]}-{last}"
            out.append({"pair": name, "series": name, "truth": f"{before} -> {last}", "new_top10": top10, "judged": True,
                        **{kind: score(items, top10, good, acronyms) for kind, items in lists.items()}})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pair", action="append", help=f"VENUE:YEAR_A:YEAR_B (repeatable; default {', '.join(PAIRS)})")
    parser.add_argument("--backend", default="static", help="embedding backend for the fits (default static)")
    parser.add_argument("--phrases-only", action="store_true", help="score the rising phrases alone (no embedding, no fit)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--with-keywords", action="store_true", help="let rising phrases read the author keywords too")
    parser.add_argument("--min-keyphraseness", type=float, default=None,
                        help="test only phrases authors choose as keywords at least this often where they write them "
                        "(default the package's, topics.stats.rising.KEYPHRASE_LIKE)")
    parser.add_argument("--no-acronyms", action="store_true", help="count an acronym and its phrase apart (as before 0.2.0)")
    parser.add_argument("--single-words", action="store_true", help="list rising single words too (as before 0.2.0)")
    parser.add_argument("--series", help="VENUE:Y1,Y2,Y3,...: compare rising phrases with Kleinberg bursts over these years "
                        "(no pairs, no fit)")
    parser.add_argument("--top-n", type=int, default=15, help="the most items of each list in --series (default 15)")
    parser.add_argument("--data", type=Path, default=BIGCORPUS)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "emerging-keywords.json")
    args = parser.parse_args(argv)
    if not args.data.exists():
        print(f"error: {args.data} not found (the big corpus lives in ../shared/data/)", file=sys.stderr)
        return 2
    import keyphrases  # benchmarks/keyphrases.py: the held-out counts read the same file

    keyphrases.BIGCORPUS = args.data
    data = pd.read_parquet(args.data, columns=["id", "title", "abstract", "year", "venue", "status", "keywords"])
    PHRASE_OPTIONS.update(acronyms=not args.no_acronyms, single_words=args.single_words)
    if args.series:
        return _print_series(run_series(data, args.series, args.top_n), args.out)
    backend = None if args.phrases_only else args.backend
    results = [run_pair(data, pair, backend, args.seed, args.with_keywords, args.min_keyphraseness) for pair in args.pair or PAIRS]
    parts = {"phrases": lambda r: r["phrases"]}
    if backend:
        parts |= {f"{fit} (all items)": (lambda r, fit=fit: r[fit]["all"]) for fit in ("joint", "update")}
    summary = {name: totals(results, part) for name, part in parts.items()}
    for name, t in summary.items():
        print(f"judged pairs ({len(t['pairs'])}), {name}: top-10 named {t['named']} of {t['top10']}; "
              f"items that match {t['hits']} of {t['items']}")
    for r in results:
        p = r["phrases"]
        print(f"{r['pair']:<22} phrases  top-10 named {p['top10_named']:.0%} of {len(r['new_top10'])}; "
              f"items that match {p['items_match']:.0%} of {len(p['items'])}")
        for fit in ("joint", "update") if backend else ():
            s = r[fit]
            print(f"{r['pair']:<22} {fit:<8} top-10 named {s['all']['top10_named']:.0%} (sub-topics alone "
                  f"{s['subtopics']['top10_named']:.0%}); items that match {s['all']['items_match']:.0%} of {len(s['all']['items'])}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"backend": backend, "with_keywords": args.with_keywords, "min_keyphraseness": args.min_keyphraseness,
                                    "summary": summary, "results": results}, indent=1, default=str))
    return 0


def _print_series(results: list[dict], out: Path) -> int:
    for name in ("rising", "bursts"):
        t = totals(results, lambda r, name=name: r[name])
        print(f"{name}: top-10 named {t['named']} of {t['top10']}; items that match {t['hits']} of {t['items']}")
        for r in results:
            print(f"  {r['series']} (truth {r['truth']}): named {r[name]['named']}; {len(r[name]['hits'])} of "
                  f"{len(r[name]['items'])} items match: {r[name]['hits']}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"series": results}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
