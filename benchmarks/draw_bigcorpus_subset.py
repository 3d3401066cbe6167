"""Draw the small NeurIPS subset of the big corpus that CI runs notebook 05 on.

``../shared/data/bigcorpus.parquet`` (207,204 abstracts, 39 venues; see its README) must
not be committed, and a clean clone (CI) does not have it. Notebook
``notebooks/05_big_corpus.py`` reads it where it exists and otherwise reads the subset
this script writes, ``tests/data/bigcorpus_neurips_sample.parquet`` (committed)::

    python benchmarks/draw_bigcorpus_subset.py                  # writes the committed file
    python benchmarks/draw_bigcorpus_subset.py --per-year 60 -o /tmp/larger.parquet
    python benchmarks/draw_bigcorpus_subset.py --check          # redraw, compare with the committed file

How the subset is drawn (``--per-year 20``, ``--seed 20260119``, the defaults):

1. Read the columns ``id``, ``title``, ``abstract``, ``year``, ``venue`` and ``status``
   of ``bigcorpus.parquet``; keep the rows whose ``venue`` is ``NeurIPS`` (18,377: every
   year from 1987 to 2022, then 2025; there are no NeurIPS 2023 or 2024 rows).
2. Drop the rows whose ``status`` is ``Reject`` (116 rejected 2022 submissions that the
   OpenReview crawl of 2022 includes): the notebook is about accepted papers. 18,261 rows
   are left.
3. Sort by ``year``, then ``id`` (so the draw does not depend on the file's row order).
4. From every year, draw ``--per-year`` papers uniformly at random without replacement
   (all of the year's papers where it has fewer; every year has at least 50), with
   ``numpy.random.default_rng([seed, year])``: one generator per year, so a year's draw
   does not depend on the other years or on ``--per-year`` of another run.
5. Write them sorted by year, then id, as Parquet (zstd), columns ``id``, ``title``,
   ``abstract``, ``year``, ``venue``, ``status``.

The draw is **stratified by year with equal allocation**: 20 papers of every one of the
37 years (740 papers, about 0.3 MB), so that each year's topic shares rest on the same
number of papers (120 in each six-year period of the notebook). 20 a year, not more,
keeps the notebook's test (one consensus fit with the ``lsa`` backend) near a minute on
two cores: the fit costs about 95 CPU-seconds on 740 papers against 160 on 1,110. It therefore does not keep the real growth of the conference (50
papers in 1987, 2,934 in 2022 in the big corpus): counts per year in the subset say
nothing; shares within a year are unbiased estimates of that year's shares in the big
corpus (a simple random sample of the year). The big corpus's own caveats apply to the
subset: its early years are not every paper of those years, 2025 is a partial crawl, and
statuses are written as each source writes them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BIGCORPUS = ROOT.parent / "shared" / "data" / "bigcorpus.parquet"
OUTPUT = ROOT / "tests" / "data" / "bigcorpus_neurips_sample.parquet"
COLUMNS = ["id", "title", "abstract", "year", "venue", "status"]
VENUE = "NeurIPS"
DROP_STATUS = ("Reject",)
SEED = 20260119
PER_YEAR = 20


def draw(source: Path, *, venue: str = VENUE, per_year: int = PER_YEAR, seed: int = SEED) -> pd.DataFrame:
    """The stratified subset of ``source`` described in the module docstring."""
    frame = pd.read_parquet(source, columns=COLUMNS, filters=[("venue", "==", venue)])
    frame = frame[~frame["status"].isin(DROP_STATUS)]
    frame = frame.sort_values(["year", "id"], kind="stable").reset_index(drop=True)
    picks = []
    for year, rows in frame.groupby("year", sort=True):
        rng = np.random.default_rng([seed, int(year)])
        take = min(per_year, len(rows))
        picks.append(rows.iloc[np.sort(rng.choice(len(rows), take, replace=False))])
    out = pd.concat(picks, ignore_index=True).sort_values(["year", "id"], kind="stable").reset_index(drop=True)
    out["year"] = out["year"].astype("int64")
    for col in ("id", "title", "abstract", "venue", "status"):
        out[col] = out[col].astype(str)
    return out[COLUMNS]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=BIGCORPUS, help=f"the big corpus (default {BIGCORPUS})")
    parser.add_argument("-o", "--output", type=Path, default=OUTPUT, help=f"where to write the subset (default {OUTPUT})")
    parser.add_argument("--venue", default=VENUE, help=f"the venue to draw from (default {VENUE})")
    parser.add_argument("--per-year", type=int, default=PER_YEAR, help=f"papers drawn from each year (default {PER_YEAR})")
    parser.add_argument("--seed", type=int, default=SEED, help=f"random seed (default {SEED})")
    parser.add_argument("--check", action="store_true", help="draw again and compare with --output instead of writing it")
    args = parser.parse_args(argv)
    if args.per_year < 1:
        parser.error("--per-year must be at least 1")
    if not args.source.is_file():
        print(f"{args.source}: not found (the big corpus lives in ../shared/data/, outside the repository)", file=sys.stderr)
        return 2
    subset = draw(args.source, venue=args.venue, per_year=args.per_year, seed=args.seed)
    if args.check:
        committed = pd.read_parquet(args.output)
        same = committed.reset_index(drop=True).equals(subset)
        print(f"{args.output}: {'the same' if same else 'DIFFERENT from'} a new draw ({len(subset)} papers)")
        return 0 if same else 1
    args.output.parent.mkdir(parents=True, exist_ok=True)
    subset.to_parquet(args.output, index=False, compression="zstd")
    per_year = subset.groupby("year").size()
    print(f"wrote {args.output}: {len(subset):,} papers, {per_year.index.min()}-{per_year.index.max()} "
          f"({len(per_year)} years, {per_year.min()}-{per_year.max()} a year), {args.output.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
