"""The rising phrases' test under the null: the full ICLR lists with their years permuted.

Each permutation keeps the years' sizes and the papers' phrases (``paper_phrases`` of
title and abstract) and asks whether any phrase is discovered (q <= alpha, share higher in
the latest year). With every phrase null, that is the false-discovery rate and the
family-wise error rate at once; Benjamini-Hochberg promises at most ``alpha``. Two floors
are compared: the package's (at least ``min_count`` papers of the latest year use the
phrase: a floor on the outcome of the test) and one on the phrase's total count (independent of the
split under the null: Bourgon, Gentleman & Huber 2010).
Results: benchmarks/README.md, "The test suite and the bundled report ... session 23".

    python benchmarks/rising_null.py --permutations 200 --seed 0
"""

from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--permutations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--alpha", type=float, default=0.05)
    args = parser.parse_args(argv)

    import numpy as np
    import scipy.sparse as sp
    from scipy.stats import hypergeom

    import topics
    from topics.stats.rising import paper_phrases
    from topics.stats.trends import benjamini_hochberg

    corpus = topics.datasets.iclr_full()
    phrases = paper_phrases((corpus["title"].fillna("") + ". " + corpus["abstract"]).tolist())
    column = {p: j for j, p in enumerate(sorted(set().union(*phrases)))}
    rows = [i for i, ps in enumerate(phrases) for _ in ps]
    cols = [column[p] for ps in phrases for p in ps]
    uses = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(phrases), len(column)))
    total = np.asarray(uses.sum(axis=0)).ravel()
    rng = np.random.default_rng(args.seed)
    found = {"latest-year floor (the package)": 0, "total floor": 0}
    for _ in range(args.permutations):
        years = rng.permutation(corpus["year"].to_numpy())
        latest = years == years.max()
        n_latest, n = int(latest.sum()), len(years)
        floor = max(5, int(np.ceil(0.01 * n_latest)))  # rising_phrases' default min_count
        a = np.asarray(uses[latest].sum(axis=0)).ravel()
        p = hypergeom.sf(a - 1, n, n_latest, total)
        rises = (a + 0.5) / n_latest > (total - a + 0.5) / (n - n_latest)
        for name, tested in zip(found, (a >= floor, total >= floor)):
            found[name] += bool(((benjamini_hochberg(p[tested]) <= args.alpha) & rises[tested]).any())
    for name, k in found.items():
        print(f"{name}: some phrase discovered in {k} of {args.permutations} permutations ({k / args.permutations:.1%})")


if __name__ == "__main__":
    main()
