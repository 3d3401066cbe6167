"""The membership rule of guided themes (:mod:`topics.themes.tracking`), as plain functions.

* :func:`phrase_matches` -- which papers name a theme (its phrases, case, hyphens and
  plurals ignored, or an acronym of them);
* :func:`theme_acronyms` -- the acronyms a corpus defines for a theme (the package's one
  count of Schwartz & Hearst definitions, :func:`topics.naming.acronyms.definition_counts`;
  at least two papers, and most papers that define the short form, must mean the theme);
* :func:`theme_similarity` -- each paper's cosine to the mean of the theme's positives
  (Rocchio relevance feedback), positives leaving themselves out;
* :func:`calibrate_cut` -- the similarity cut from positives and everything else
  (Lee & Liu 2003).

:func:`topics.themes.tracking.track` puts them together; the rule and its measurement are
documented there.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

import numpy as np
from scipy import stats

from topics.naming.acronyms import definition_counts
from topics.text import singular, singular_words

__all__ = [
    "MIN_POSITIVES",
    "acronym_meanings",
    "acronyms_for",
    "calibrate_cut",
    "phrase_pattern",
    "phrase_matches",
    "theme_acronyms",
    "theme_similarity",
]

#: Fewest positives (papers naming the theme, plus examples) from which a cut is calibrated.
MIN_POSITIVES = 3


# --------------------------------------------------------------------------- phrases


def phrase_pattern(phrase: str) -> re.Pattern[str]:
    """A pattern that finds ``phrase`` in :func:`topics.text.singular_words` of a text:
    whole words, case, accents, hyphens, punctuation and plurals ignored."""
    words = singular_words(phrase).split()
    if not words:
        raise ValueError(f"phrase {phrase!r} has no letters or digits")
    return re.compile(r"\b" + " ".join(map(re.escape, words)) + r"\b")


def theme_acronyms(texts: Iterable[str], phrases: Sequence[str], *, min_papers: int = 2) -> list[str]:
    """Short forms ``texts`` define as one of ``phrases``.

    A short form (plural "s" folded: "DMs" is "DM") qualifies when at least
    ``min_papers`` papers define it with a long form containing one of ``phrases`` and
    those are more than half of the papers that define it (:func:`acronym_meanings`).
    """
    return acronyms_for(acronym_meanings(texts), phrases, min_papers=min_papers)


def acronym_meanings(texts: Iterable[str]) -> dict[str, Counter]:
    """``{short form: Counter of normalised long forms}``: how many of ``texts`` define each
    short form (plural "s" folded) as what, read from
    :func:`topics.naming.acronyms.definition_counts` (each text searched once per process)."""
    meanings: dict[str, Counter] = defaultdict(Counter)
    for (short, long), n in definition_counts(texts).items():
        meanings[singular(short)][singular_words(long)] += n
    return dict(meanings)


def acronyms_for(meanings: dict[str, Counter], phrases: Sequence[str], *, min_papers: int = 2) -> list[str]:
    """:func:`theme_acronyms` from :func:`acronym_meanings`, which can be computed once for many themes."""
    patterns = [phrase_pattern(p) for p in phrases]
    out = []
    for short, longs in meanings.items():
        ours = sum(n for long, n in longs.items() if any(p.search(long) for p in patterns))
        if ours >= min_papers and ours > sum(longs.values()) - ours:
            out.append(short)
    return sorted(out)


def phrase_matches(
    texts: Sequence[str], phrases: Sequence[str], *, acronyms: Sequence[str] = (),
    definitions: Sequence[Sequence[tuple[str, str]]] | None = None, normalized: Sequence[str] | None = None,
) -> np.ndarray:
    """Which texts name a theme: a boolean array, one entry per text.

    A text matches if it contains one of ``phrases`` (case, hyphens, punctuation and a
    final plural ignored) or one of ``acronyms`` as a whole word (case kept, plural "s"
    allowed), unless ``definitions`` shows that the text defines that acronym as
    something that contains none of ``phrases``. ``normalized`` may pass
    :func:`topics.text.singular_words` of ``texts``, computed once for many themes.
    """
    normed = normalized if normalized is not None else [singular_words(t) for t in texts]
    patterns = [phrase_pattern(p) for p in phrases]
    anyone = re.compile("|".join(f"(?:{p.pattern})" for p in patterns))
    hit = np.array([anyone.search(t) is not None for t in normed], dtype=bool)
    if not acronyms:
        return hit
    rx = re.compile(r"(?<![0-9A-Za-z])(" + "|".join(map(re.escape, acronyms)) + r")s?(?![0-9A-Za-z])")
    for i, text in enumerate(texts):
        if hit[i] or not any(a in text for a in acronyms):
            continue
        for found in {m.group(1) for m in rx.finditer(text)}:
            own = [singular_words(long) for s, long in (definitions[i] if definitions is not None else ()) if singular(s) == found]
            if not own or any(p.search(long) for long in own for p in patterns):
                hit[i] = True  # used without a definition, or defined as the theme
                break
    return hit


# --------------------------------------------------------------------------- similarity and cut


def theme_similarity(embeddings: np.ndarray, positive: np.ndarray, queries: np.ndarray | None = None) -> np.ndarray:
    """Cosine of each row to the mean of the ``positive`` rows and the ``queries`` (Rocchio).

    Each positive row is scored against the mean without itself, so that it does not vote
    for itself; a lone positive with nothing else to compare with gets NaN.
    """
    total = embeddings[positive].sum(axis=0)
    if queries is not None and len(queries):
        total = total + queries.sum(axis=0)
    norm = np.linalg.norm(total)
    sims = embeddings @ total / norm if norm > 0 else np.zeros(len(embeddings))
    rest = total[None, :] - embeddings[positive]
    rest_norm = np.linalg.norm(rest, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        own = np.einsum("ij,ij->i", embeddings[positive], rest) / rest_norm
    sims = sims.astype(float)
    sims[positive] = np.where(rest_norm > 1e-9, own, np.nan)
    return sims


def calibrate_cut(similarity: np.ndarray, positive: np.ndarray) -> float:
    """The similarity cut ``t`` that maximises Lee & Liu's ``r(t)^2 / P(s >= t)``.

    ``P(s >= t)`` is the share of all entries at or above ``t``. ``r(t)``, the share of
    the theme's members at or above ``t``, is estimated from the ``positive`` entries as
    the upper tail of a normal distribution with their median and their scaled median
    absolute deviation (``1.4826 * MAD``, the robust estimate of a standard deviation,
    so that a few positives that only mention the theme in passing do not widen it).
    The empirical share of positives would do with many positives, but it is a step
    function that cannot tell a paper just below the lowest positive from one far
    below, so with few positives it always cuts at the lowest one. Candidate cuts are the observed
    similarities (ties are never split). NaN similarities (a lone positive with nothing
    to compare with) are ignored. Returns NaN with fewer than :data:`MIN_POSITIVES`
    positives.
    """
    similarity = np.asarray(similarity, dtype=float)
    positive = np.asarray(positive, dtype=bool)
    ok = ~np.isnan(similarity)
    s, p = similarity[ok], positive[ok]
    if p.sum() < MIN_POSITIVES:
        return float("nan")
    order = np.argsort(-s, kind="stable")
    s, p = s[order], p[order]
    last = np.r_[s[1:] != s[:-1], True]  # a cut keeps all ties
    centre = float(np.median(s[p]))
    spread = 1.4826 * float(np.median(np.abs(s[p] - centre))) or float(s[p].std(ddof=1))
    recall = stats.norm.sf(s, loc=centre, scale=spread) if spread > 0 else np.cumsum(p) / p.sum()
    kept = np.arange(1, len(s) + 1) / len(s)
    criterion = np.where(last, recall**2 / kept, -np.inf)
    return float(s[int(np.argmax(criterion))])
