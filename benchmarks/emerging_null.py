"""The emerging sub-topics' test on planted corpora: plain Benjamini-Hochberg against the
screened one (Tarone's screen, ``topics.stats.trends.screened_benjamini_hochberg``).

Null: the planted corpora of ``tests/clustering/test_emerging.py`` (``planted_later_heavy``)
with each paper's year drawn at random (two thirds in the later year): how many corpora
list any branch. Power: the same corpora with their sub-theme of ``n`` papers only in the
later year: how many list a branch that is at least 80 % that sub-theme.
Results: benchmarks/README.md, "What is new next year, session 23".

    python benchmarks/emerging_null.py --corpora 200
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent.parent / "tests" / "clustering" / "test_emerging.py"


def planted():
    """``planted_later_heavy`` of the test suite: the corpora the tests plant."""
    spec = importlib.util.spec_from_file_location("planted_emerging", TESTS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.planted_later_heavy


def listed(table, alpha: float, screened: bool) -> np.ndarray:
    from topics.stats.trends import benjamini_hochberg

    q = table["q"].to_numpy() if screened else benjamini_hochberg(table["p"].to_numpy())
    return np.nan_to_num(q, nan=1.0) <= alpha


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=int, default=100, help="null corpora; a quarter of this per planted size")
    parser.add_argument("--alpha", type=float, default=0.05)
    args = parser.parse_args(argv)
    from topics.clustering.emerging import scan_branches

    plant = planted()
    rng = np.random.default_rng(0)
    false = {True: 0, False: 0}
    for r in range(args.corpora):
        rows, x = plant(seed=100 + r, n_flow=18)
        latest = rng.uniform(size=len(rows)) < 2 / 3
        table = scan_branches(x, np.array([row[1] for row in rows]), latest, min_size=5)
        for screened in false:
            false[screened] += bool(listed(table, args.alpha, screened).any())
    print(f"null, {args.corpora} corpora: any branch listed by plain BH {false[False]}, screened {false[True]}")
    for n in (14, 16, 18, 20, 22, 25):
        found = {True: 0, False: 0}
        for r in range(args.corpora // 4):
            rows, x = plant(seed=200 + r, n_flow=n)
            years = np.array([row[2] for row in rows])
            table = scan_branches(x, np.array([row[1] for row in rows]), years == years.max(), min_size=5)
            flow = {i for i, row in enumerate(rows) if row[0] == "flow"}
            good = np.array([len(flow & set(m.tolist())) >= 0.8 * len(m) for m in table["members"]], dtype=bool)
            for screened in found:
                found[screened] += bool((listed(table, args.alpha, screened) & good).any())
        print(f"{n} planted papers only in the later year, {args.corpora // 4} corpora: found by plain BH {found[False]}, screened {found[True]}")


if __name__ == "__main__":
    main()
