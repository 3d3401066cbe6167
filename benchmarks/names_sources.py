"""Candidate sources of author keywords beside the profiles, measured held out (issue 37, round 3).

    python benchmarks/names_sources.py VENUE YEAR

Names one saved held-out fit of ``benchmarks/names_keywords.py`` (``.work/fit-<venue>-<year>-static-0-10runs``,
with the keyphrase counts and keyword profiles built without the venue-year) by
:func:`topics.naming.fields.name_fields`, each time with another source of the chance
that a paper's authors choose each keyword:

* ``profiles``: the shipped method (:class:`topics.naming.fields.KeywordProfiles`);
* ``knn<k>``: **label transfer from the nearest keyworded neighbours**: each paper's ``k``
  nearest papers with author keywords in the big corpus (the venue-year left out), by
  the cosine of tf-idf vectors over the profiles' terms (words and two-word phrases,
  each paper's 40 heaviest kept), and the chance of a keyword is the similarity-weighted
  share of those neighbours that chose it. The same scoring then picks each group's
  keyword against the rest (:func:`topics.naming.fields.field_names`);
* ``blend``: the mean of the profiles' and the 20 neighbours' chances.

Neighbours are found in the profiles' word space, not in an embedding model's, so that
the source works with every backend (minilm, static, lsa, hashing) and ships as a
sparse matrix, not as one model's vectors. Scores as :func:`names_keywords.score`;
results in ``results/names-sources-<venue>-<year>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import scipy.sparse as sp

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


class Neighbours:
    """The keyworded reference papers as tf-idf rows over the profiles' terms, and the
    keywords each chose (as columns of ``keywords``)."""

    def __init__(self, exclude, keywords: tuple[str, ...], *, top_terms: int = 40):
        import keyword_profiles as kp  # benchmarks/keyword_profiles.py

        from topics.naming.fields import KeywordProfiles, text_terms

        texts, chosen = kp.corpus(exclude)
        df = Counter(g for t in texts for g in text_terms(t))
        terms = sorted(g for g, n in df.items() if n >= kp.MIN_TERM_PAPERS)
        self.blank = KeywordProfiles((), tuple(terms), sp.csr_matrix((0, len(terms))), np.zeros(0), np.zeros(0))
        X = self.blank.features(texts).tocsr()
        self.idf = np.log((1 + X.shape[0]) / (1 + np.asarray(X.sum(axis=0)).ravel())) + 1
        self.rows = _top_per_row(self._tfidf(X), top_terms)
        column = {k: j for j, k in enumerate(keywords)}
        pairs = [(i, column[k]) for i, ks in enumerate(chosen) for k in ks if k in column]
        self.chosen = sp.csr_matrix((np.ones(len(pairs)), tuple(zip(*pairs))), shape=(X.shape[0], len(keywords)))
        self.keywords = keywords

    def _tfidf(self, X):
        T = sp.csr_matrix(X.multiply(self.idf[None, :]))
        norms = np.sqrt(np.asarray(T.multiply(T).sum(axis=1)).ravel())
        return sp.csr_matrix(sp.diags(1 / np.maximum(norms, 1e-12)) @ T)

    def vectors(self, texts):
        return self._tfidf(self.blank.features(texts))


class Knn:
    """Chances from the ``k`` nearest keyworded papers (the ``predict`` of a profile source)."""

    def __init__(self, neighbours: Neighbours, k: int = 20):
        self.neighbours, self.k, self.keywords = neighbours, k, neighbours.keywords

    def predict(self, texts):
        S = (self.neighbours.vectors(texts) @ self.neighbours.rows.T).toarray()
        nearest = np.argpartition(-S, self.k, axis=1)[:, : self.k]
        weights = S[np.arange(len(texts))[:, None], nearest]
        W = sp.csr_matrix((weights.ravel(), (np.repeat(np.arange(len(texts)), self.k), nearest.ravel())), shape=S.shape)
        return np.asarray((W @ self.neighbours.chosen).todense()) / np.maximum(weights.sum(axis=1, keepdims=True), 1e-12)


class Blend:
    def __init__(self, a, b):
        self.a, self.b, self.keywords = a, b, a.keywords

    def predict(self, texts):
        return 0.5 * self.a.predict(texts) + 0.5 * self.b.predict(texts)


def _top_per_row(M, keep: int):
    M = sp.csr_matrix(M)
    rows, cols, data = [], [], []
    for i in range(M.shape[0]):
        d, c = M.data[M.indptr[i] : M.indptr[i + 1]], M.indices[M.indptr[i] : M.indptr[i + 1]]
        order = np.argsort(-d, kind="stable")[:keep]
        rows += [i] * len(order)
        cols += c[order].tolist()
        data += d[order].tolist()
    return sp.csr_matrix((data, (rows, cols)), shape=M.shape)


def run(venue: str, year: int) -> dict:
    work = HERE / ".work"
    os.environ["TOPICS_KEYPHRASES"] = str(work / f"keyphrases-{venue}:{year}.tsv.gz")
    os.environ["TOPICS_KEYWORD_PROFILES"] = str(work / f"profiles-{venue}:{year}.tsv.gz")
    import names_keywords as nk

    from topics.clustering.model import rebuild_bertopic
    from topics.naming.coverage import PhraseIndex
    from topics.naming.fields import name_fields, reference
    from topics.naming.labels import name_groups
    from topics.naming.terms import PhraseAnalyzer
    from topics.store import load

    model = (analysis := load(work / f"fit-{venue.lower()}-{year}-static-0-10runs")).model
    texts, labels = model.fit_texts_, np.asarray(model.labels_)
    keywords = [nk.keyword_keys(k, model.acronyms_) for k in analysis.corpus.keywords]
    terms = {int(t): [(w, float(x)) for w, x in ts if w] for t, ts in rebuild_bertopic(model).get_topics().items()}
    analyzer, index = PhraseAnalyzer(acronyms=model.acronyms_, remember=True), PhraseIndex(texts, model.acronyms_)
    words = name_groups(terms, labels, model.topic_areas_, texts, analyzer=analyzer, index=index)
    areas = np.array([model.topic_areas_.get(int(t), -1) for t in labels])
    profiles = reference()
    neighbours = Neighbours([(venue, year)], profiles.keywords)
    sources = {"profiles": profiles, "knn10": Knn(neighbours, 10), "knn20": Knn(neighbours, 20), "knn40": Knn(neighbours, 40),
               "blend profiles + knn20": Blend(profiles, Knn(neighbours, 20))}
    out = {}
    for tag, source in sources.items():
        t, a = name_fields(terms, labels, model.topic_areas_, texts, analyzer=analyzer, index=index, profiles=source, words=words)
        out[tag] = {
            "topics": nk.score({g: n.name for g, n in t.items()}, labels, keywords, model.acronyms_, index, {g for g, n in t.items() if n.transferred}),
            "areas": nk.score({g: n.name for g, n in a.items()}, areas, keywords, model.acronyms_, index, {g for g, n in a.items() if n.transferred}),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("venue")
    parser.add_argument("year", type=int)
    args = parser.parse_args(argv)
    result = run(args.venue, args.year)
    from run import commit  # benchmarks/run.py

    (HERE / "results" / f"names-sources-{args.venue.lower()}-{args.year}.json").write_text(
        json.dumps({"venue": args.venue, "year": args.year, "backend": "static", "runs": 10, "commit": commit(), "sources": result}, indent=1, default=float) + "\n")
    for tag, r in result.items():
        t, a = r["topics"], r["areas"]
        print(f"{tag:24s} topics in top-8 {t['in_top8_keywords']:.0%}, agreement {t['keyword_agreement_median']:.2f}, '/' {t['compound']}, "
              f"transferred {t['transferred']}; areas in top-8 {a['in_top8_keywords']:.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
