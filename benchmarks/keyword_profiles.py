"""Build the keyword profiles the package ships (``topics/data/keyword_profiles.tsv.gz``).

    python benchmarks/keyword_profiles.py [--exclude ICLR:2023 NeurIPS:2022] [-o PATH]
    python benchmarks/keyword_profiles.py --spellings   # topics/data/keyword_spellings.tsv.gz

Over every paper of ``../shared/data/bigcorpus.parquet`` that has author keywords, each
keyword that at least :data:`MIN_PAPERS` papers chose gets a profile
(:class:`topics.naming.fields.KeywordProfiles`): the :data:`KEEP` terms (words and
two-word phrases of the titles and abstracts that at least :data:`MIN_TERM_PAPERS` papers
write) that most mark the papers that chose it (:func:`log_odds`), and a logistic
regression from them to the chance that a paper's authors choose it (scikit-learn, L2).
Keywords are split
where authors join several ("Machine Learning: Deep Learning"), written as
:func:`topics.naming.coverage.phrase_key` writes them, and an acronym keyword that is the
initials of a longer keyword is counted as that one ("LLMs" as "large language model").
``--spellings`` writes, for each keyword of the profiles, the spelling its authors write
most often (:func:`spellings`: "bias" for the key "bia", "AI ethics" for "ai ethic"), so
that a keyword the group's own texts do not write is shown as a word, not as its key.
``--exclude`` leaves venue-years out, so that the names of those venue-years can be
scored against their keywords by profiles that never saw them
(``benchmarks/names_keywords.py``).
"""

from __future__ import annotations

import gzip
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from keyphrases import build_packaged, papers_with_keywords  # benchmarks/keyphrases.py
from topics.naming.coverage import phrase_key
from topics.naming.fields import KeywordProfiles, text_terms

HERE = Path(__file__).resolve().parent
PACKAGED = HERE.parent / "topics" / "data" / "keyword_profiles.tsv.gz"
SPELLINGS = HERE.parent / "topics" / "data" / "keyword_spellings.tsv.gz"

#: A keyword chosen by fewer papers gets no profile.
MIN_PAPERS = 8
#: A term written by fewer papers is no feature.
MIN_TERM_PAPERS = 10
#: The largest weights kept per profile.
KEEP = 60
#: The inverse strength of each profile's L2 penalty (scikit-learn's ``C``).
C = 1.0
_SPLIT = re.compile(r"[;,:]")
#: IJCAI's area codes between an area and its subarea ("Robotics: ROB: Motion and path
#: planning"): not keywords (they made "rob", "etf" and "gtep" keywords of 50-130 papers).
_AREA_CODE = re.compile(r":\s*[A-Z]{1,5}\s*(?=:)")
_WORD = re.compile(r"[^\W_]+")
_EDGES = " '\".,;[]{}"


def keyword_keys(cell) -> list[str]:
    """A paper's keywords ("a; b: c, d") as phrase keys of up to four words, IJCAI's area
    codes ("ROB" in "Robotics: ROB: Multi-robot systems") left out."""
    return sorted({key for key, _ in written_keywords(cell)})


def written_keywords(cell) -> list[tuple[str, str]]:
    """A paper's keywords as :func:`keyword_keys` reads them, each as ``(key, shown)``:
    its phrase key and how its authors wrote it (:func:`shown`)."""
    parts = (k.strip() for k in _SPLIT.split(_AREA_CODE.sub("", str(cell or ""))))
    pairs = ((phrase_key(k), shown(k)) for k in parts if k not in ("", "[]", "nan"))
    return [(key, text) for key, text in pairs if key and len(key.split()) <= 4]


def shown(keyword: str) -> str:
    """A keyword as a name is shown: words in lower case but those with a capital after
    their first letter ("Intuitive Physics" -> "intuitive physics", "AI Ethics" -> "AI
    ethics", "AIOps", "Sim-to-Real" -> "sim-to-real"), quotes and stops at its ends and
    unclosed brackets dropped."""
    def word(found: re.Match) -> str:
        w = found.group()
        return w if any(c.isupper() for c in w[1:]) else w.lower()

    text = keyword
    if text.count("(") != text.count(")"):  # "Categorization)": a bracket the split left unclosed
        text = text.replace("(", " ").replace(")", " ")
    return _WORD.sub(word, " ".join(text.split()).strip(_EDGES))


def spellings(exclude=()) -> dict[str, str]:
    """Each keyword that at least :data:`MIN_PAPERS` papers chose (the profiles'
    vocabulary) -> the spelling its authors write most often (:func:`shown`; ties in
    alphabetical order): "bia" -> "bias", "ai ethic" -> "AI ethics"."""
    _, written = papers_with_keywords(written_keywords, exclude)
    forms: dict[str, Counter] = {}
    for pairs in written:
        for key, text in set(pairs):
            forms.setdefault(key, Counter())[text] += 1
    chosen = Counter(k for ks in corpus(exclude)[1] for k in ks)
    return {k: min(forms[k], key=lambda t: (-forms[k][t], t)) for k in sorted(chosen) if chosen[k] >= MIN_PAPERS and k in forms}


def write_spellings(table: dict[str, str], path: Path = SPELLINGS) -> None:
    """:func:`spellings` as a gzipped table, one keyword a line: key, spelling."""
    with gzip.GzipFile(path, "wb", mtime=0) as out:
        out.write("".join(f"{k}\t{v}\n" for k, v in table.items()).encode("utf-8"))


def acronym_map(counts: Counter) -> dict[str, str]:
    """Acronym keywords ("llm", "gan") -> the most chosen keyword whose initials they are."""
    initials: dict[str, list[str]] = {}
    for key in counts:
        words = key.replace("-", " ").split()
        if len(words) > 1:
            initials.setdefault("".join(w[0] for w in words), []).append(key)
    out = {}
    for key in counts:
        if " " not in key and key.isalpha() and 2 <= len(key) <= 6 and key in initials:
            best = max(initials[key], key=lambda k: (counts[k], k))
            if counts[best] >= 3:
                out[key] = best
    return out


def corpus(exclude=()) -> tuple[list[str], list[list[str]]]:
    texts, keywords = papers_with_keywords(keyword_keys, exclude)
    short = acronym_map(Counter(k for ks in keywords for k in ks))
    return texts, [sorted({short.get(k, k) for k in ks}) for ks in keywords]


def fit(texts: list[str], keywords: list[list[str]]) -> KeywordProfiles:
    """Profiles of the keywords at least :data:`MIN_PAPERS` of the papers chose: each a
    logistic regression over its :data:`KEEP` terms of highest log-odds (:func:`log_odds`)."""
    from sklearn.linear_model import LogisticRegression

    chosen = Counter(k for ks in keywords for k in ks)
    vocab = sorted(k for k, n in chosen.items() if n >= MIN_PAPERS)
    df = Counter(g for t in texts for g in text_terms(t))
    terms = sorted(g for g, n in df.items() if n >= MIN_TERM_PAPERS)
    blank = KeywordProfiles((), tuple(terms), sp.csr_matrix((0, len(terms))), np.zeros(0), np.zeros(0))
    X = blank.features(texts).tocsc()
    col = {k: j for j, k in enumerate(vocab)}
    pairs = [(i, col[k]) for i, ks in enumerate(keywords) for k in ks if k in col]
    Y = sp.csr_matrix((np.ones(len(pairs)), tuple(zip(*pairs))), shape=(len(texts), len(vocab)))
    inside = np.asarray((Y.T @ X).todense())  # keywords x terms: papers choosing k that write t
    written = np.asarray(X.sum(axis=0)).ravel()
    chosen_n = np.asarray(Y.sum(axis=0)).ravel()
    rows, cols, data, intercept = [], [], [], []
    for k in range(len(vocab)):
        score = log_odds(inside[k], written, chosen_n[k], len(texts))
        score[inside[k] < 3] = -np.inf
        keep = np.argsort(-score, kind="stable")[:KEEP]
        keep = np.sort(keep[np.isfinite(score[keep]) & (score[keep] > 0)])
        y = Y[:, k].toarray().ravel()
        model = LogisticRegression(C=C, max_iter=200).fit(X[:, keep], y)
        rows += [k] * len(keep)
        cols += keep.tolist()
        data += model.coef_[0].tolist()
        intercept.append(float(model.intercept_[0]))
    weights = sp.csr_matrix((data, (rows, cols)), shape=(len(vocab), len(terms)))
    return KeywordProfiles(tuple(vocab), tuple(terms), weights, np.asarray(intercept), chosen_n.astype(int))


def log_odds(inside: np.ndarray, written: np.ndarray, n_chosen: int, n_docs: int, *, prior: float = 0.5) -> np.ndarray:
    """How strongly writing each term marks the papers that chose a keyword: the log-odds
    ratio of writing it among them and among the rest, smoothed by ``prior``, times the
    square root of how many of them write it (so that a term two of them write does not
    lead)."""
    a, b = inside, written - inside
    ratio = np.log((a + prior) / (n_chosen - a + prior)) - np.log((b + prior) / (n_docs - n_chosen - b + prior))
    return ratio * np.sqrt(a)


def profiles(exclude=()) -> KeywordProfiles:
    """Profiles over the big corpus's papers with keywords, leaving out ``exclude``."""
    texts, keywords = corpus(exclude)
    return fit(texts, keywords)


def main() -> int:
    if sys.argv[1:] == ["--spellings"]:  # the spellings alone: seconds, where the profiles take minutes
        table = spellings()
        write_spellings(table)
        print(f"{len(table):,} keyword spellings -> {SPELLINGS} ({SPELLINGS.stat().st_size / 1e3:.0f} kB)")
        return 0
    return build_packaged(__doc__.splitlines()[0], PACKAGED, profiles, lambda result, output, seconds: (
        f"{len(result.keywords):,} keyword profiles over {len(result.terms):,} terms; "
        f"{seconds:.0f} s -> {output} ({output.stat().st_size / 1e6:.2f} MB)"))


if __name__ == "__main__":
    sys.exit(main())
