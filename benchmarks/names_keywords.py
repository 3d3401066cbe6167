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
    ``strict``, whether the keyword holds the name."""
    a, b = name_key.replace("-", " ").split(), keyword_key.replace("-", " ").split()
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


def score(names: dict[int, str], labels: np.ndarray, keywords: list[list[str]], acronyms, index) -> dict:
    """Keyword agreement, top-keyword matches, containment and coverage of ``names``."""
    from topics.naming.coverage import coverage

    rows = []
    for t, name in sorted(names.items()):
        if t == -1:
            continue
        members = np.flatnonzero(labels == t)
        with_kw = [i for i in members if keywords[i]]
        parts = name_keys(name, acronyms)
        agree = [any(matches(p, k) for p in parts for k in keywords[i]) for i in with_kw]
        contained = [any(matches(p, k, strict=False) for p in parts for k in keywords[i]) for i in with_kw]
        top = [k for k, _ in Counter(k for i in with_kw for k in set(keywords[i])).most_common(5)]
        rows.append({
            "topic": int(t), "name": name, "papers": int(len(members)), "with_keywords": len(with_kw),
            "keyword_agreement": float(np.mean(agree)) if agree else float("nan"),
            "keyword_contained": float(np.mean(contained)) if contained else float("nan"),
            "in_top_keywords": bool(any(matches(p, k) for p in parts for k in top)),
            "top_keywords": top,
            "coverage": coverage(index, name, labels == t),
            "compound": len(parts) > 1,
        })
    frame = pd.DataFrame(rows)
    return {
        "topics": len(frame),
        "keyword_agreement_median": float(frame.keyword_agreement.median()),
        "keyword_agreement_mean": float(frame.keyword_agreement.mean()),
        "in_top_keywords": float(frame.in_top_keywords.mean()),
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


def run(venue: str, year: int, backend: str, seed: int) -> dict:
    import topics
    from bertopic.representation import KeyBERTInspired, MaximalMarginalRelevance
    from sklearn.feature_extraction.text import CountVectorizer

    from topics.clustering.model import rebuild_bertopic
    from topics.naming.coverage import PhraseIndex

    frame = pd.read_parquet(BIGCORPUS)
    frame = frame[(frame.venue == venue) & (frame.year == year)].reset_index(drop=True)
    with tempfile.TemporaryDirectory() as folder:  # read as `topics report` reads a table
        path = Path(folder) / f"{venue.lower()}{year}.parquet"
        frame.to_parquet(path)
        corpus = topics.read_corpus(path)
        # names are judged by keyphraseness counted without this venue-year's keywords
        held_out = Path(folder) / "keyphrases.tsv.gz"
        keyphrase_counts([(venue, year)]).write(held_out)
        os.environ[ENVIRON] = str(held_out)
        start = time.perf_counter()
        analysis = topics.analyze(corpus, embedder=backend, random_state=seed, show_progress=True)
        fit_s = time.perf_counter() - start
    del os.environ[ENVIRON]
    model = analysis.model
    if model.landmarks_ is not None:
        raise SystemExit("this check needs every paper fitted (no landmarks): use a corpus under the landmark threshold")
    acronyms = model.acronyms_
    keywords = [keyword_keys(k, acronyms) for k in corpus["keywords"]]
    labels = np.asarray(model.labels_)
    texts = model.fit_texts_
    index = PhraseIndex(texts, acronyms)
    bertopic = model.bertopic_ or rebuild_bertopic(model)
    bertopic.embedding_model = _Backend(topics.get_embedder(backend))
    methods = {
        "topics": {int(t): n for t, n in model.topic_names_.items()},
        "c-TF-IDF": {int(t): (terms[0][0] if terms else f"topic {t}") for t, terms in model.topic_terms_.items()},
        "c-TF-IDF, BERTopic's vectorizer": first_terms(bertopic, texts, labels, vectorizer=CountVectorizer(stop_words="english")),
        "KeyBERTInspired": first_terms(bertopic, texts, labels, representation=KeyBERTInspired()),
        "MMR": first_terms(bertopic, texts, labels, representation=MaximalMarginalRelevance(diversity=0.3)),
    }
    scores = {name: score(names, labels, keywords, acronyms, index) for name, names in methods.items()}
    areas = np.array([model.topic_areas_.get(int(t), -1) for t in labels])
    area_scores = score({int(a): n for a, n in model.area_names_.items()}, areas, keywords, acronyms, index)
    import bertopic as bertopic_module

    return {
        "venue": venue, "year": year, "papers": len(corpus), "with_keywords": int(sum(bool(k) for k in keywords)),
        "backend": backend, "seed": seed, "fit_s": round(fit_s, 1),
        "commit": commit(), "bertopic": bertopic_module.__version__,
        "outliers": float(np.mean(labels == -1)),
        "methods": scores,
        "areas": area_scores,
    }


def table(result: dict) -> str:
    head = (
        f"{result['venue']} {result['year']} ({result['papers']:,} papers, {result['with_keywords']:,} with author keywords), "
        f"{result['backend']}, seed {result['seed']}, commit {result['commit']}: "
        f"{next(iter(result['methods'].values()))['topics']} topics\n\n"
        "| names | keyword agreement (median) | in top-5 keywords | keyword contains the name (median) | coverage median / lowest | compound names |\n"
        "|---|---|---|---|---|---|\n"
    )
    rows = [
        f"| {name} | {s['keyword_agreement_median']:.2f} | {s['in_top_keywords']:.0%} | {s['keyword_contained_median']:.2f} | "
        f"{s['coverage_median']:.2f} / {s['coverage_min']:.2f} | {s['compound']} |"
        for name, s in result["methods"].items()
    ]
    a = result.get("areas")
    if a:
        rows.append(
            f"| topics' areas ({a['topics']}) | {a['keyword_agreement_median']:.2f} | {a['in_top_keywords']:.0%} | "
            f"{a['keyword_contained_median']:.2f} | {a['coverage_median']:.2f} / {a['coverage_min']:.2f} | {a['compound']} |"
        )
    return head + "\n".join(rows) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venue", default="ICLR")
    parser.add_argument("--year", type=int, default=2023)
    parser.add_argument("--backend", default="minilm")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if not BIGCORPUS.exists():
        print(f"error: {BIGCORPUS} not found", file=sys.stderr)
        return 2
    result = run(args.venue, args.year, args.backend, args.seed)
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"names-keywords-{args.venue.lower()}-{args.year}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(table(result))
    for name, s in {**result["methods"], "areas": result["areas"]}.items():
        print(f"\n## {name}")
        for row in s["per_topic"]:
            print(f"  {row['papers']:4d} {row['keyword_agreement']:.2f} {row['coverage']:.2f} {'*' if row['in_top_keywords'] else ' '} {row['name']!r:45s} top: {', '.join(row['top_keywords'][:3])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
