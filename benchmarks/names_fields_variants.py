"""Naming variants of issue 37 on a fit that benchmarks/names_keywords.py saved (names only).

    python benchmarks/names_fields_variants.py VENUE YEAR

Loads ``.work/fit-<venue>-<year>-static-0-10runs`` and the held-out keyphrase counts and
keyword profiles names_keywords.py built, names the same clustering by the coverage rule
(before) and by the author-keyword rule (:func:`topics.naming.fields.name_fields`) at
several settings, scores each against the papers' own keywords
(:func:`names_keywords.score`) and writes ``results/names-fields-<venue>-<year>.json``.
"""
import argparse
import json
import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def run(venue: str, year: int, show_beta: float | None = None, show_transfer: float | None = None) -> None:
    """Name one saved fit by each variant, print the scores, write the results file."""
    os.environ['TOPICS_KEYPHRASES']=f'benchmarks/.work/keyphrases-{venue}:{year}.tsv.gz'
    os.environ['TOPICS_KEYWORD_PROFILES']=f'benchmarks/.work/profiles-{venue}:{year}.tsv.gz'
    from topics.store import load
    from topics.clustering.model import rebuild_bertopic
    from topics.naming.coverage import PhraseIndex
    from topics.naming.labels import name_groups
    from topics.naming.terms import PhraseAnalyzer
    from topics.naming.fields import name_fields
    import names_keywords as nk
    a = load(f'benchmarks/.work/fit-{venue.lower()}-{year}-static-0-10runs'); m=a.model
    frame = pd.read_parquet(nk.BIGCORPUS); frame = frame[(frame.venue==venue)&(frame.year==year)].reset_index(drop=True)
    texts=m.fit_texts_; labels=np.asarray(m.labels_)
    if 'keywords' in a.corpus:  # the corpus as read (read_corpus may drop rows the parquet holds)
        frame = a.corpus
    kws=[nk.keyword_keys(k, m.acronyms_) for k in frame.keywords]
    assert len(kws)==len(texts)
    b = rebuild_bertopic(m); terms={int(t): [(w, float(x)) for w, x in ts if w] for t, ts in b.get_topics().items()}
    an = PhraseAnalyzer(acronyms=m.acronyms_, remember=True); idx = PhraseIndex(texts, m.acronyms_)
    words = name_groups(terms, labels, m.topic_areas_, texts, analyzer=an, index=idx)
    areas = np.array([m.topic_areas_.get(int(t), -1) for t in labels])
    def show(tag, t, a_, moved_t=set(), moved_a=set()):
        st = nk.score({g: n for g, n in t.items()}, labels, kws, m.acronyms_, idx, moved_t)
        sa = nk.score({g: n for g, n in a_.items()}, areas, kws, m.acronyms_, idx, moved_a)
        print(f"{tag:40s} topics top8 {st['in_top8_keywords']:.0%} top5 {st['in_top_keywords']:.0%} agr {st['keyword_agreement_median']:.2f} comp {st['compound']} vague {st['vague']} T {st['transferred']} ok {st['written_or_marked']:.0%} | areas top8 {sa['in_top8_keywords']:.0%} agr {sa['keyword_agreement_median']:.2f} comp {sa['compound']} vague {sa['vague']} T {sa['transferred']} ok {sa['written_or_marked']:.0%}")
        return st, sa
    out = {'before': show('before', words[0], words[1])}
    variants = [(1, 0.2, True, None), (1, 0.2, False, None), (1, float('inf'), True, None),
                (1, 0.2, True, 0.15), (1, 0.2, True, 0.1), (1, 0.2, True, 0.05)]  # the last three: issue 37's rescue of weak names
    for beta, tr, keep, rescue in variants:
        t, a_ = name_fields(terms, labels, m.topic_areas_, texts, analyzer=an, index=idx, transfer=tr, keep_held=keep, beta=beta, words=words, rescue=rescue)
        tag = f'beta {beta}, transfer {tr}, keep held {keep}' + (f', rescue {rescue}' if rescue is not None else '')
        st, sa = show(tag, {g:n.name for g,n in t.items()}, {g:n.name for g,n in a_.items()}, {g for g,n in t.items() if n.transferred}, {g for g,n in a_.items() if n.transferred})
        out[tag] = (st, sa)
        if show_beta is not None and show_beta==beta and show_transfer==rescue:
            for r in st['per_topic']+sa['per_topic']: print('   ', r['papers'], '*' if r['in_top8_keywords'] else ' ', 'T' if r['transferred'] else ' ', r['name'], '|', ', '.join(r['top_keywords'][:4]))

    from run import commit
    json.dump({'venue': venue, 'year': year, 'backend': 'static', 'runs': 10, 'commit': commit(),
               'variants': {k: {'topics': v[0], 'areas': v[1]} for k, v in out.items()}},
              open(f'benchmarks/results/names-fields-{venue.lower()}-{year}.json', 'w'), indent=1, default=float)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("venue")
    parser.add_argument("year", type=int)
    parser.add_argument("beta", type=float, nargs="?", help="list every name of the variant with this beta ...")
    parser.add_argument("transfer", type=float, nargs="?", help="... and this rescue share")
    args = parser.parse_args(argv)
    run(args.venue, args.year, args.beta, args.transfer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
