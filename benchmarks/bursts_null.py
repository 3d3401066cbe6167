"""Topic bursts under the null: how often the report would tell a burst that chance made.

400 papers in 15 topics, their years drawn at random over 3, 5 and 10 years (200 corpora
each): in how many does :func:`topics.stats.detect_bursts` find some burst (Kleinberg's
automaton alone), and in how many does a burst pass its test (``q_value`` < 0.05,
:func:`topics.stats.narration.clear_bursts`, what the report and the summary tell)?
Results: benchmarks/README.md, "Bursts tested against chance (session 24)".

    python benchmarks/bursts_null.py --corpora 200 --seed 1
"""

from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--planted", type=float, default=0.1)
    args = parser.parse_args(argv)

    import numpy as np
    import pandas as pd

    from topics.stats.bursts import detect_bursts
    from topics.stats.narration import clear_bursts

    rng = np.random.default_rng(args.seed)
    for n_years in (3, 5, 10):
        found = told = planted = 0
        for _ in range(args.corpora):
            docs = pd.DataFrame({"topic": rng.integers(0, 15, 400), "year": rng.choice(np.arange(2015, 2015 + n_years), 400)})
            bursts = detect_bursts(docs)
            found += len(bursts) > 0
            told += len(clear_bursts(bursts)) > 0
            middle = (docs["year"] == 2015 + n_years // 2) & (rng.random(len(docs)) < args.planted)
            bursts = clear_bursts(detect_bursts(docs.assign(topic=docs["topic"].where(~middle, 0))))
            planted += bool(((bursts["topic"] == 0) & (bursts["start"] <= 2015 + n_years // 2) & (bursts["end"] >= 2015 + n_years // 2)).any())
        print(f"{n_years} years: some burst found in {found} of {args.corpora} null corpora, told (q < 0.05) in {told}; "
              f"the planted burst told in {planted}")


if __name__ == "__main__":
    main()
