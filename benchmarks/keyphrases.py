"""Build the keyphraseness counts the package ships (``topics/data/keyphrases.tsv.gz``).

    python benchmarks/keyphrases.py [--exclude ICLR:2023 NeurIPS:2022] [-o PATH]

Counts, over every paper of ``../shared/data/bigcorpus.parquet`` that has author keywords,
how many chose each term as a keyword and how many write it in their title or abstract
(:func:`topics.naming.keyphrases.build`). ``--exclude`` leaves venue-years out, so that the
names of those venue-years can be scored against their keywords by counts that never saw
them (``benchmarks/names_keywords.py`` does so for the venue-year it scores).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from topics.naming.keyphrases import Keyphraseness, build

HERE = Path(__file__).resolve().parent
BIGCORPUS = HERE.parent.parent / "shared" / "data" / "bigcorpus.parquet"
PACKAGED = HERE.parent / "topics" / "data" / "keyphrases.tsv.gz"


def author_keywords(cell) -> list[str]:
    """A paper's keywords as the corpus writes them ("a; b; c"), empty ones dropped."""
    return [k.strip() for k in str(cell or "").split(";") if k.strip() and k.strip() not in ("[]", "nan")]


def papers_with_keywords(keywords_of: Callable[[object], list[str]], exclude: list[tuple[str, int]] = ()) -> tuple[list[str], list[list[str]]]:
    """The big corpus's papers whose keywords (``keywords_of(cell)``) are not empty, less
    the ``(venue, year)`` pairs in ``exclude``: their texts ("title. abstract") and keywords."""
    frame = pd.read_parquet(BIGCORPUS, columns=["venue", "year", "title", "abstract", "keywords"])
    frame["kw"] = frame["keywords"].map(keywords_of)
    frame = frame[frame["kw"].map(len) > 0]
    for venue, year in exclude:
        frame = frame[~((frame["venue"] == venue) & (frame["year"] == int(year)))]
    return (frame["title"].fillna("") + ". " + frame["abstract"].fillna("")).tolist(), frame["kw"].tolist()


def counts(exclude: list[tuple[str, int]] = ()) -> Keyphraseness:
    """Keyphraseness over the big corpus's papers with keywords, leaving out the
    ``(venue, year)`` pairs in ``exclude``."""
    return build(*papers_with_keywords(author_keywords, exclude))


def build_packaged(description: str, default_output: Path, make: Callable, summary: Callable) -> int:
    """The command line of a script that builds a packaged file from the big corpus:
    ``--exclude VENUE:YEAR ...`` and ``-o PATH`` (default ``default_output``).
    ``make(exclude)`` builds the result, which is written with its ``write(path)``;
    ``summary(result, path, seconds)`` is the line printed. 2 where the corpus is missing."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--exclude", nargs="*", default=[], metavar="VENUE:YEAR")
    parser.add_argument("-o", "--output", type=Path, default=default_output)
    args = parser.parse_args()
    if not BIGCORPUS.exists():
        print(f"error: {BIGCORPUS} not found", file=sys.stderr)
        return 2
    start = time.perf_counter()
    result = make([tuple(item.split(":")) for item in args.exclude])
    result.write(args.output)
    print(summary(result, args.output, time.perf_counter() - start))
    return 0


def main() -> int:
    return build_packaged(__doc__.splitlines()[0], PACKAGED, counts, lambda result, output, seconds: (
        f"{result.n_docs:,} papers with keywords; {len(result.text):,} terms, {len(result.keyword):,} chosen as "
        f"keywords by at least two papers; {seconds:.1f} s -> {output}"))


if __name__ == "__main__":
    sys.exit(main())
