"""Keyphraseness: how often authors choose a term as a keyword where they write it.

Mihalcea & Csomai (2007, "Wikify!") rank candidate keyphrases by *keyphraseness*: the
number of documents in which a term was chosen as a keyphrase over the number in which it
appears. Here the keyphrases are the keywords authors give their own papers: "pruning" is
written in 202 papers of the reference corpus and chosen as a keyword in 37 of them,
"optimal transport" in 112 and 71; "gap" is written in 869 and chosen in none, and
"parameters", "distribution" or "complex" in over 1,500 each and never chosen. A word that
authors write everywhere and never call their field names a topic only where nothing else
can (:func:`topics.naming.labels.is_vague`).

:func:`build` counts any corpus with keywords. The package ships the counts of 14,655
papers with author keywords in ``../shared/data/bigcorpus.parquet`` (ICLR 2017-2023, IJCAI
2020-2024, NeurIPS 2022, CoRL, COLM, WWW, 3DV and a few more:
``topics/data/keyphrases.tsv.gz``, rebuilt by ``benchmarks/keyphrases.py``), and
:func:`reference` reads them once; the environment variable :data:`ENVIRON` points it at
other counts (a field's own keywords). Terms are compared as
:func:`topics.naming.coverage.phrase_key` writes them (lower case, singular words); a term
the counts have seen in fewer than :data:`MIN_TEXTS` papers is never rejected, so words of
fields far from machine learning are left to the other rules.
"""

from __future__ import annotations

import gzip
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from topics.naming.coverage import name_parts, phrase_key

__all__ = ["ENVIRON", "MIN_KEYPHRASENESS", "MIN_TEXTS", "Keyphraseness", "build", "reference"]

#: A term written in at least this many papers of the reference corpus is known well
#: enough to judge; rarer terms are never rejected.
MIN_TEXTS = 50

#: A known term that authors choose as a keyword in fewer than this share of the papers
#: that write it names no research area ("gap": 0 of 869; "accuracy": 4 of 1,857).
MIN_KEYPHRASENESS = 0.01

#: Keywords of up to this many words are counted.
MAX_WORDS = 4

#: The environment variable that points :func:`reference` at other counts (a file
#: :meth:`Keyphraseness.write` wrote): a field's own keywords, or counts that leave out
#: the venue whose names are being checked against its keywords.
ENVIRON = "TOPICS_KEYPHRASES"


@dataclass(frozen=True)
class Keyphraseness:
    """For each term, the papers that chose it as a keyword (``keyword``) and the papers
    whose title or abstract writes it (``text``), over ``n_docs`` papers with keywords."""

    keyword: Mapping[str, int]
    text: Mapping[str, int]
    n_docs: int

    def __call__(self, term: str) -> float | None:
        """The share of the papers writing ``term`` that chose it as a keyword; None for a
        term written in fewer than :data:`MIN_TEXTS` papers."""
        key = phrase_key(term)
        seen = self.text.get(key, 0)
        return self.keyword.get(key, 0) / seen if seen >= MIN_TEXTS else None

    def rejects(self, term: str) -> bool:
        """Whether ``term`` is known and almost never chosen as a keyword
        (:data:`MIN_KEYPHRASENESS`); a compound name is rejected if either part is."""
        return any((k := self(part)) is not None and k < MIN_KEYPHRASENESS for part in name_parts(term))

    def write(self, path: str | Path) -> None:
        """Write the counts as a gzipped table: term, keyword papers, text papers."""
        rows = sorted(self.text.keys() | self.keyword.keys())
        lines = [f"# papers with keywords\t{self.n_docs}\n", "term\tkeyword\ttext\n"]
        lines += [f"{t}\t{self.keyword.get(t, 0)}\t{self.text.get(t, 0)}\n" for t in rows]
        with gzip.GzipFile(path, "wb", mtime=0) as out:  # the same counts, the same bytes
            out.write("".join(lines).encode("utf-8"))

    @classmethod
    def read(cls, path: str | Path | Traversable) -> Keyphraseness:
        """Read counts that :meth:`write` wrote."""
        source = Path(path) if isinstance(path, str) else path
        with source.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
            n_docs = int(next(lines).split("\t")[1])
            next(lines)
            keyword, text = {}, {}
            for line in lines:
                term, k, n = line.rstrip("\n").split("\t")
                if int(k):
                    keyword[term] = int(k)
                text[term] = int(n)
        return cls(keyword, text, n_docs)


def build(texts: Sequence[str], keywords: Sequence[Iterable[str]], *, min_texts: int = 20) -> Keyphraseness:
    """Count keyphraseness over ``texts`` (a paper's title and abstract) and their authors'
    ``keywords``: every keyword of up to :data:`MAX_WORDS` words that at least two papers
    chose, every word and two-word phrase written in at least ``min_texts`` papers."""
    chosen = Counter()
    for words in keywords:
        chosen.update({k for k in map(phrase_key, words) if k and len(k.split()) <= MAX_WORDS})
    keyword = {k: n for k, n in chosen.items() if n >= 2}
    longest = {len(k.split()) for k in keyword} | {2}
    written = Counter()
    for text in texts:
        words = phrase_key(text).split()
        grams = set(words)
        for n in sorted(longest - {1}):
            spans = (" ".join(words[i : i + n]) for i in range(len(words) - n + 1))
            grams.update(g for g in spans if n == 2 or g in keyword)
        written.update(grams)
    text = {t: n for t, n in written.items() if n >= min_texts or t in keyword}
    return Keyphraseness({k: n for k, n in keyword.items() if k in text}, text, len(texts))


def reference() -> Keyphraseness:
    """The counts names are judged by: the file :data:`ENVIRON` names, else the counts
    the package ships (see the module's description); each file is read once."""
    return _read(os.environ.get(ENVIRON, ""))


@cache
def _read(path: str) -> Keyphraseness:
    if not path:
        return Keyphraseness.read(files("topics") / "data" / "keyphrases.tsv.gz")
    if not Path(path).is_file():
        raise FileNotFoundError(f"{ENVIRON}={path}: no such file (counts written by topics.naming.keyphrases.Keyphraseness.write)")
    try:
        return Keyphraseness.read(path)
    except (OSError, EOFError, StopIteration, IndexError, ValueError) as exc:
        raise ValueError(f"{ENVIRON}={path}: not a file of keyphrase counts ({exc.__class__.__name__})") from None
