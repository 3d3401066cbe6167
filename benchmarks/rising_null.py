"""The rising phrases' test under the null: the full ICLR lists with their years permuted.

Each permutation keeps the years' sizes and the papers' phrases (``paper_phrases`` of
title and abstract) and asks whether any phrase is discovered (q <= alpha, share higher in
the latest year). With every phrase null, that is the false-discovery rate and the
family-wise error rate at once; Benjamini-Hochberg promises at most ``alpha``. Four rules
are compared, each with its 95 % (Wilson) interval:

* the latest-year floor with plain Benjamini-Hochberg (``rising_phrases`` before 0.2.0's
  session 24: a phrase tested where at least ``max(5, 1 %)`` of the latest year's papers
  use it, a floor on the outcome of the test);
* a floor of the same size on the phrase's total count, plain Benjamini-Hochberg (the
  total does not depend on the split under the null: Bourgon, Gentleman & Huber 2010);
* the valid form at that floor: ``topics.stats.rising.phrase_tests`` (the total-count
  floor, Tarone's screen, and no rejection below the floor in the latest year);
* the valid form at the package's default floor (``MIN_COUNT``, 5 papers).

Results: benchmarks/README.md, "What is new next year, session 24".

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
    from topics.stats.rising import MIN_COUNT, paper_phrases, phrase_tests
    from topics.stats.trends import benjamini_hochberg, wilson_interval

    corpus = topics.datasets.iclr_full()
    phrases = paper_phrases((corpus["title"].fillna("") + ". " + corpus["abstract"]).tolist())
    column = {p: j for j, p in enumerate(sorted(set().union(*phrases)))}
    rows = [i for i, ps in enumerate(phrases) for _ in ps]
    cols = [column[p] for ps in phrases for p in ps]
    uses = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(phrases), len(column)))
    total = np.asarray(uses.sum(axis=0)).ravel()
    every = len(total)
    # no rule tests a phrase of fewer papers than this (a latest-year floor implies it)
    few = min(5, MIN_COUNT)
    uses, total = uses[:, total >= few].tocsr(), total[total >= few]
    rng = np.random.default_rng(args.seed)
    names = ("latest-year floor, plain BH (before session 24)", "total floor, plain BH", "total floor, screened (valid form)",
             f"total floor {MIN_COUNT}, screened (the package)")
    found = dict.fromkeys(names, 0)
    tests = dict.fromkeys(names, 0)  # left after the screen, summed over the permutations
    for _ in range(args.permutations):
        years = rng.permutation(corpus["year"].to_numpy())
        latest = years == years.max()
        n_latest, n = int(latest.sum()), len(years)
        floor = max(5, int(np.ceil(0.01 * n_latest)))  # rising_phrases' min_count before session 24
        a = np.asarray(uses[latest].sum(axis=0)).ravel()
        rises = (a + 0.5) / n_latest > (total - a + 0.5) / (n - n_latest)
        p = hypergeom.sf(a - 1, n, n_latest, total)
        q = {}
        for name, tested in zip(names[:2], (a >= floor, total >= floor)):
            q[name] = np.full(a.shape, np.nan)
            q[name][tested] = benjamini_hochberg(p[tested])
        for name, least in zip(names[2:], (floor, MIN_COUNT)):
            q[name] = phrase_tests(a, total - a, n_latest, n - n_latest, min_count=least, alpha=args.alpha)[2]
        for name in names:
            found[name] += bool(((q[name] <= args.alpha) & rises).any())
            tests[name] += int((~np.isnan(q[name])).sum())
    print(f"{n} papers, {n_latest} of the latest year, {every} phrases; floor {floor} (1 % of the latest year, at least 5): "
          f"{int((total >= floor).sum())} phrases pass it in total, {int((total >= MIN_COUNT).sum())} pass {MIN_COUNT}")
    for name in names:
        k = found[name]
        low, high = wilson_interval(k, args.permutations)
        print(f"{name}: some phrase discovered in {k} of {args.permutations} permutations ({k / args.permutations:.1%}, "
              f"95 % interval {float(low):.1%}-{float(high):.1%}); {tests[name] / args.permutations:.0f} tests a permutation after any screen")


if __name__ == "__main__":
    main()
