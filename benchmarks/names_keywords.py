"""Do topic names say what the papers' own authors call their work?

    python benchmarks/names_keywords.py [--venue ICLR --year 2023] [--backend minilm]

A check on names that no naming rule of this package has seen: the author keywords that
OpenReview venues ask for (``keywords`` in ``../shared/data/bigcorpus.parquet``: ICLR
2017-2023, NeurIPS 2022, COLM, CoRL, ...). The venue-year is fitted as ``topics report``
fits it (embeddings from the cache when they are there), and each topic is then named by
several methods, all from the same clustering:

* ``topics``: the package's names (:mod:`topics.naming.labels`: chosen by coverage);
* ``c-TF-IDF``: the first of the topic's c-TF-IDF terms, over the package's phrases
  (what BERTopic's label starts with, given the same vectorizer);
* ``c-TF-IDF, BERTopic's vectorizer``: the first c-TF-IDF term with BERTopic's default
  ``CountVectorizer`` (single words, English stop words removed);
* ``KeyBERTInspired``: BERTopic's ``KeyBERTInspired`` representation over the package's
  c-TF-IDF candidates (the candidate closest to the topic's representative papers in the
  embedding space), first term;
* ``MMR``: BERTopic's ``MaximalMarginalRelevance`` (diversity 0.3) over the same
  candidates, first term.

Scores, per method (a compound name "A / B" matches where either part does; acronyms the
corpus defines are written out in names and keywords alike, and keywords and names are
compared as :func:`topics.naming.coverage.phrase_key` words):

* **keyword agreement**: the share of a topic's papers with an author keyword that
  matches the name, where a keyword matches when one holds the other's words in order and
  the shorter has at least 2/3 of the longer's words ("language models" matches "large
  language models"; "object" does not match "object detection"); median over topics;
* **in top keywords**: the share of topics whose name matches one of the five keywords
  most used among the topic's papers;
* **keyword contained**: the looser count, the share of a topic's papers one of whose
  keywords holds the name ("object" in "object detection"); median over topics;
* **coverage**: :func:`topics.naming.coverage.coverage`, the share of papers whose title
  or abstract uses the name; median over topics.

The package's area names are scored the same way, over the areas' papers. The package
judges candidate names by how often authors choose them as keywords
(:mod:`topics.naming.keyphrases`); here those counts leave out the venue-year being
scored (``benchmarks/keyphrases.py``), so its own keywords play no part in its names.

``topics evaluate --labels-column keywords`` has a looser check of its own
(:func:`topics.stats.metrics.keyword_match`: the name holds, or is held by, one of the 8
keywords its papers use most, so "object" counts for "object detection"). This script
matches more strictly, so that a vague word does not pass.

Results go to ``results/names-keywords-<venue>-<year>.json`` and the table printed is in
``benchmarks/README.md``.
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

from keyphrases import counts as keyphrase_counts  # benchmarks/keyphrases.py
from run import commit  # benchmarks/run.py
from topics.naming.keyphrases import ENVIRON

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
WORK = HERE / ".work"  # git-ignored: the fits, kept so that naming variants reuse one clustering
BIGCORPUS = ROOT.parent / "shared" / "data" / "bigcorpus.parquet"


def keyword_keys(keywords: str, acronyms) -> list[str]:
    """A paper's author keywords as phrase keys, acronyms written out, empty ones dropped."""
    from topics.naming.acronyms import expand_acronyms
    from topics.naming.coverage import phrase_key

    parts = [k.strip() for k in str(keywords or "").replace(",", ";").split(";")]
    keys = []
    for part in parts:
        if not part or part in ("[]", "nan"):
            continue
        key = phrase_key(expand_acronyms(part, acronyms) if acronyms else part)
        if key:
            keys.append(key)
    return keys


def _contains(longer: list[str], shorter: list[str]) -> bool:
    n = len(shorter)
    return any(longer[i : i + n] == shorter for i in range(len(longer) - n + 1))


def matches(name_key: str, keyword_key: str, *, strict: bool = True) -> bool:
    """Whether a name part and a keyword say the same thing: one holds the other's words
    in order, and (``strict``) the shorter has at least 2/3 of the longer's words. Without
    ``strict``, whether the keyword holds the name. A hyphen joins words or not, as the
    authors please: "multi-modal learning" and "multimodal learning" are one keyword, as
    are "self-supervised learning" and "self supervised learning"."""
    return any(_matches(name_key.replace("-", joint).split(), keyword_key.replace("-", joint).split(), strict) for joint in (" ", ""))


def _matches(a: list[str], b: list[str], strict: bool) -> bool:
    if not a or not b:
        return False
    if not strict:
        return _contains(b, a)
    longer, shorter = (a, b) if len(a) >= len(b) else (b, a)
    return _contains(longer, shorter) and len(shorter) * 3 >= len(longer) * 2


def name_keys(name: str, acronyms) -> list[str]:
    from topics.naming.acronyms import expand_acronyms
    from topics.naming.coverage import name_parts, phrase_key

    return [phrase_key(expand_acronyms(p, acronyms) if acronyms else p) for p in name_parts(name)]


def top_keywords(keywords: list[list[str]], n: int = 8) -> list[str]:
    """The ``n`` keywords most papers chose (each counted once a paper), ties in
    alphabetical order: the same in every process (a ``Counter`` over sets would order
    ties by Python's per-process string hashing)."""
    counts = Counter(k for ks in keywords for k in set(ks))
    return sorted(counts, key=lambda k: (-counts[k], k))[:n]


def score(names: dict[int, str], labels: np.ndarray, keywords: list[list[str]], acronyms, index, transferred=frozenset()) -> dict:
    """Keyword agreement, top-keyword matches, containment and coverage of ``names``;
    ``transferred`` are the groups whose names are marked as what related papers call
    them."""
    from topics.naming.coverage import coverage, name_parts
    from topics.naming.labels import FLOOR, is_broad, is_vague

    rows = []
    for t, name in sorted(names.items()):
        if t == -1:
            continue
        members = np.flatnonzero(labels == t)
        with_kw = [i for i in members if keywords[i]]
        parts = name_keys(name, acronyms)
        agree = [any(matches(p, k) for p in parts for k in keywords[i]) for i in with_kw]
        contained = [any(matches(p, k, strict=False) for p in parts for k in keywords[i]) for i in with_kw]
        ranked = top_keywords([keywords[i] for i in with_kw], 8)
        top = ranked[:5]
        rows.append({
            "topic": int(t), "name": name, "papers": int(len(members)), "with_keywords": len(with_kw),
            "keyword_agreement": float(np.mean(agree)) if agree else float("nan"),
            "keyword_contained": float(np.mean(contained)) if contained else float("nan"),
            "in_top_keywords": bool(any(matches(p, k) for p in parts for k in top)),
            "in_top8_keywords": bool(any(matches(p, k) for p in parts for k in ranked)),
            "top_keywords": ranked,
            "coverage": coverage(index, name, labels == t),
            "compound": len(parts) > 1,
            "vague": bool(any(is_vague(p) or (" " not in p and is_broad(p)) for p in name_parts(name))),
            "transferred": t in transferred,
        })
    frame = pd.DataFrame(rows)
    return {
        "topics": len(frame),
        "keyword_agreement_median": float(frame.keyword_agreement.median()),
        "keyword_agreement_mean": float(frame.keyword_agreement.mean()),
        "in_top_keywords": float(frame.in_top_keywords.mean()),
        "in_top8_keywords": float(frame.in_top8_keywords.mean()),
        "vague": int(frame.vague.sum()),
        "transferred": int(frame.transferred.sum()),
        "written_or_marked": float(((frame.coverage >= FLOOR) | frame.transferred).mean()),
        "keyword_contained_median": float(frame.keyword_contained.median()),
        "coverage_median": float(frame.coverage.median()),
        "coverage_min": float(frame.coverage.min()),
        "compound": int(frame.compound.sum()),
        "per_topic": rows,
    }


class _Backend:
    """BERTopic's embedding back end over one of this package's embedders (for the
    representation models that embed candidate words)."""

    def __new__(cls, embedder):
        from bertopic.backend import BaseEmbedder

        class Backend(BaseEmbedder):
            def embed(self, documents, verbose=False):
                return embedder.encode(list(documents))

        return Backend()


def first_terms(bertopic, texts, labels, representation=None, vectorizer=None) -> dict[int, str]:
    """The first term of each topic after ``update_topics`` with ``representation`` and
    ``vectorizer`` (BERTopic's defaults where ``None``; the model's own vectorizer kept
    when only ``representation`` is given)."""
    import copy

    model = copy.deepcopy(bertopic)
    kwargs = {"top_n_words": 10}
    if vectorizer is not None:
        kwargs["vectorizer_model"] = vectorizer
    else:
        kwargs["vectorizer_model"] = model.vectorizer_model
    if representation is not None:
        kwargs["representation_model"] = representation
    model.update_topics(list(texts), topics=[int(t) for t in labels], **kwargs)
    return {int(t): (terms[0][0] if terms and terms[0][0] else f"topic {t}") for t, terms in model.get_topics().items()}


def held_out(venue: str, year: int, kind: str) -> Path:
    """Keyphrase counts or keyword profiles (``kind``) built without ``venue`` ``year``,
    kept in :data:`WORK` (both take minutes to build)."""
    from keyword_profiles import profiles  # benchmarks/keyword_profiles.py

    path = WORK / f"{kind}-{venue}:{year}.tsv.gz"
    if not path.exists():
        WORK.mkdir(exist_ok=True)
        (keyphrase_counts if kind == "keyphrases" else profiles)([(venue, year)]).write(path)
    return path


def package_names(model, terms, *, transfer: float | None = None, fields: bool = True, keep_held: bool = False) -> tuple[dict, dict, dict]:
    """The package's topic and area names for a fitted ``model`` from its c-TF-IDF
    ``terms``: by coverage alone (``fields=False``: the rule before issue 37), or with the
    authors' keywords (:func:`topics.naming.fields.name_fields`, ``transfer`` its bar for a
    keyword the group does not write). Returns topic names, area names, and which groups'
    names are transferred."""
    from topics.naming.coverage import PhraseIndex
    from topics.naming.fields import TRANSFER, name_fields
    from topics.naming.labels import name_groups
    from topics.naming.terms import PhraseAnalyzer

    texts, labels = model.fit_texts_, np.asarray(model.labels_)
    analyzer = PhraseAnalyzer(acronyms=model.acronyms_, remember=True)
    index = PhraseIndex(texts, model.acronyms_)
    if not fields:
        t, a = name_groups(terms, labels, model.topic_areas_, texts, analyzer=analyzer, index=index)
        return t, a, {}
    t, a = name_fields(terms, labels, model.topic_areas_, texts, analyzer=analyzer, index=index,
                       transfer=TRANSFER if transfer is None else transfer, keep_held=keep_held)
    moved = {("topic", g) for g, n in t.items() if n.transferred} | {("area", g) for g, n in a.items() if n.transferred}
    return {g: n.name for g, n in t.items()}, {g: n.name for g, n in a.items()}, moved


def run(venue: str, year: int, backend: str, seed: int, runs: int | None = None) -> dict:
    import topics
    from bertopic.representation import KeyBERTInspired, MaximalMarginalRelevance
    from sklearn.feature_extraction.text import CountVectorizer

    from topics.clustering.model import rebuild_bertopic
    from topics.naming.coverage import PhraseIndex
    from topics.naming.fields import ENVIRON as PROFILES
    from topics.store import save, saved_analysis

    frame = pd.read_parquet(BIGCORPUS)
    frame = frame[(frame.venue == venue) & (frame.year == year)].reset_index(drop=True)
    # names are judged by keyphraseness and keyword profiles built without this venue-year
    os.environ[ENVIRON] = str(held_out(venue, year, "keyphrases"))
    os.environ[PROFILES] = str(held_out(venue, year, "profiles"))
    with tempfile.TemporaryDirectory() as folder:  # read as `topics report` reads a table
        path = Path(folder) / f"{venue.lower()}{year}.parquet"
        frame.to_parquet(path)
        corpus = topics.read_corpus(path)
        start = time.perf_counter()
        runs_tag = f"-{runs}runs" if runs else ""
        kept = WORK / f"fit-{venue.lower()}-{year}-{backend}-{seed}{runs_tag}"  # one fit serves every naming variant
        analysis = saved_analysis(kept, corpus, backend=backend, random_state=seed)
        if analysis is None:
            model = topics.TopicModel(n_runs=runs, random_state=seed) if runs else None
            analysis = topics.analyze(corpus, embedder=backend, model=model, random_state=seed, show_progress=True)
            save(analysis, kept, about={"backend": backend})
        fit_s = time.perf_counter() - start
    model = analysis.model
    if model.landmarks_ is not None:
        raise SystemExit("this check needs every paper fitted (no landmarks): use a corpus under the landmark threshold")
    acronyms = model.acronyms_
    keywords = [keyword_keys(k, acronyms) for k in corpus["keywords"]]
    labels = np.asarray(model.labels_)
    texts = model.fit_texts_
    index = PhraseIndex(texts, acronyms)
    bertopic = model.bertopic_ or rebuild_bertopic(model)
    terms = {int(t): [(w, float(x)) for w, x in ts if w] for t, ts in bertopic.get_topics().items()}
    bertopic.embedding_model = _Backend(topics.get_embedder(backend))
    before = package_names(model, terms, fields=False)
    written = package_names(model, terms, transfer=float("inf"))
    after = package_names(model, terms)
    held = package_names(model, terms, keep_held=True)
    del os.environ[ENVIRON], os.environ[PROFILES]
    methods = {
        "topics, before (coverage rule)": before[0],
        "topics, keywords written by the group": written[0],
        "topics, keywords written or transferred": after[0],
        "topics, keywords where no own phrase holds for half": held[0],
        "c-TF-IDF": {int(t): (ts[0][0] if ts else f"topic {t}") for t, ts in model.topic_terms_.items()},
        "c-TF-IDF, BERTopic's vectorizer": first_terms(bertopic, texts, labels, vectorizer=CountVectorizer(stop_words="english")),
        "KeyBERTInspired": first_terms(bertopic, texts, labels, representation=KeyBERTInspired()),
        "MMR": first_terms(bertopic, texts, labels, representation=MaximalMarginalRelevance(diversity=0.3)),
    }
    moved = {
        "topics, keywords written or transferred": {g for k, g in after[2] if k == "topic"},
        "topics, keywords where no own phrase holds for half": {g for k, g in held[2] if k == "topic"},
    }
    scores = {name: score(names, labels, keywords, acronyms, index, moved.get(name, set())) for name, names in methods.items()}
    areas = np.array([model.topic_areas_.get(int(t), -1) for t in labels])
    area_methods = {
        "areas, before (coverage rule)": (before[1], set()),
        "areas, keywords written by the group": (written[1], set()),
        "areas, keywords written or transferred": (after[1], {g for k, g in after[2] if k == "area"}),
        "areas, keywords where no own phrase holds for half": (held[1], {g for k, g in held[2] if k == "area"}),
    }
    area_scores = {name: score(names, areas, keywords, acronyms, index, m) for name, (names, m) in area_methods.items()}
    import bertopic as bertopic_module

    return {
        "venue": venue, "year": year, "papers": len(corpus), "with_keywords": int(sum(bool(k) for k in keywords)),
        "backend": backend, "seed": seed, "runs": runs or model.params_.get("n_runs"), "fit_s": round(fit_s, 1),
        "commit": commit(), "bertopic": bertopic_module.__version__,
        "outliers": float(np.mean(labels == -1)),
        "methods": scores,
        "areas": area_scores,
    }


def table(result: dict) -> str:
    first = next(iter(result["methods"].values()))
    head = (
        f"{result['venue']} {result['year']} ({result['papers']:,} papers, {result['with_keywords']:,} with author keywords), "
        f"{result['backend']}, {result['runs']} runs, seed {result['seed']}, commit {result['commit']}: {first['topics']} topics, "
        f"{next(iter(result['areas'].values()))['topics']} areas\n\n"
        "| names | agreement (median) | in top-5 keywords | in top-8 keywords | coverage median / lowest | written by 1/4 or marked | compound | vague | transferred |\n"
        "|---|---|---|---|---|---|---|---|---|\n"
    )
    rows = [
        f"| {name} | {s['keyword_agreement_median']:.2f} | {s['in_top_keywords']:.0%} | {s['in_top8_keywords']:.0%} | "
        f"{s['coverage_median']:.2f} / {s['coverage_min']:.2f} | {s['written_or_marked']:.0%} | {s['compound']} | {s['vague']} | {s['transferred']} |"
        for name, s in {**result["methods"], **result["areas"]}.items()
    ]
    return head + "\n".join(rows) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venue", default="ICLR")
    parser.add_argument("--year", type=int, default=2023)
    parser.add_argument("--backend", default="minilm")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=None, help="UMAP + HDBSCAN runs of the consensus (default: the package's)")
    args = parser.parse_args()
    if not BIGCORPUS.exists():
        print(f"error: {BIGCORPUS} not found", file=sys.stderr)
        return 2
    result = run(args.venue, args.year, args.backend, args.seed, args.runs)
    RESULTS.mkdir(exist_ok=True)
    tag = "" if args.backend == "minilm" and not args.runs else f"-{args.backend}" + (f"-{args.runs}runs" if args.runs else "")
    out = RESULTS / f"names-keywords-{args.venue.lower()}-{args.year}{tag}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(table(result))
    for name, s in {**result["methods"], **result["areas"]}.items():
        print(f"\n## {name}")
        for row in s["per_topic"]:
            print(f"  {row['papers']:4d} {row['keyword_agreement']:.2f} {row['coverage']:.2f} {'*' if row['in_top8_keywords'] else ' '}{'T' if row['transferred'] else ' '} {row['name']!r:45s} top: {', '.join(row['top_keywords'][:4])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
