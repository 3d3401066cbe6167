"""The topic-quality metrics :mod:`topics.evaluate` reports, each computed from the corpus
itself (nothing external is needed):

* **NPMI coherence** (Bouma 2009; used for topic models by Lau, Newman & Baldwin 2014 and
  Röder, Both & Hinneburg 2015) of each topic's top 10 terms, from document
  co-occurrence in the corpus: with ``P(w)`` the share of documents holding term ``w``
  and ``P(w, v)`` the share holding both, ``NPMI(w, v) = log(P(w, v) / (P(w) P(v))) /
  -log P(w, v)``, -1 when the two never occur together and 1 when they always do. A
  topic's coherence is the mean over its term pairs; the analysis's is the mean over
  topics.
* **Topic diversity** (Dieng, Ruiz & Blei 2020): the share of distinct terms among all
  topics' top 10 terms; 1 when no two topics share a term.
* **Outlier share**: papers without a topic.
* **Seed agreement**: refits of the same model with other seeds on the same
  embeddings; the mean adjusted Rand index (ARI) between every two of the fits (outliers
  as one group), the share of the reference's topics that come back (matched one to one,
  :func:`topics.stats.alignment.align_topics`, with a Jaccard index of papers >= 0.5) in
  every refit, and, with two
  years, the share of the reference's clear changes that come back with the same
  direction in every refit.
* **Agreement with labels** where the corpus has a label column: normalised mutual
  information (NMI) and ARI between topics and labels, once with the outliers as one
  group and once with them left out. A keyword column (``;``-separated keywords per
  paper) is scored instead by the share of topics whose name matches one of the 8 most
  frequent keywords of its papers (:func:`keyword_match`).

Terms are matched in a canonical form (lower case; every character other than letters,
digits and spaces removed, so "self-supervised" and BERTopic's "selfsupervised" are the
same term), so that models with different tokenisers are scored alike.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

from topics.text import fold_accents, normalize, singular

__all__ = [
    "canonical",
    "clear_changes_held",
    "document_terms",
    "keyword_match",
    "label_agreement",
    "names_match",
    "npmi_coherence",
    "seed_agreement",
    "split_keywords",
    "topic_diversity",
]

def canonical(term: str) -> str:
    """A term as metrics compare it: :func:`topics.text.normalize` with hyphens joined
    ("self-supervised" and "selfsupervised" are one term)."""
    return normalize(str(term).replace("-", "").replace("\u2010", ""))


def document_terms(texts: Sequence[str], *, max_words: int = 3) -> list[frozenset[str]]:
    """The canonical n-grams (1 to ``max_words`` words) each document holds."""
    out = []
    for text in texts:
        words = canonical(re.sub(r"[^0-9A-Za-z\- ]+", " ", fold_accents(text))).split()
        grams = set(words)
        for n in range(2, max_words + 1):
            grams.update(" ".join(words[i : i + n]) for i in range(len(words) - n + 1))
        out.append(frozenset(grams))
    return out


def npmi_coherence(
    topic_terms: Mapping[int, Sequence[str]], doc_terms: Sequence[frozenset[str]], *, top_n: int = 10
) -> pd.DataFrame:
    """NPMI coherence of each topic's top ``top_n`` terms from document co-occurrence.

    Parameters
    ----------
    topic_terms
        Terms per topic, best first (topic -1 is skipped).
    doc_terms
        The canonical terms of each document (:func:`document_terms`).

    Returns
    -------
    pandas.DataFrame
        ``topic``, ``npmi`` (mean over the term pairs, NaN for fewer than two terms),
        ``n_terms`` (terms scored).
    """
    n_docs = len(doc_terms)
    if n_docs == 0:
        raise ValueError("no documents to count co-occurrences in")
    rows = []
    for topic, terms in topic_terms.items():
        if topic == -1:
            continue
        words = list(dict.fromkeys(canonical(t) for t in terms if canonical(t)))[:top_n]
        holders = [np.fromiter((w in d for d in doc_terms), dtype=bool, count=n_docs) for w in words]
        scores = []
        for a, b in itertools.combinations(range(len(words)), 2):
            p_a, p_b = holders[a].mean(), holders[b].mean()
            p_ab = (holders[a] & holders[b]).mean()
            if p_ab == 0 or p_a == 0 or p_b == 0:
                scores.append(-1.0)
            elif p_ab == 1:
                scores.append(1.0)
            else:
                scores.append(float(np.log(p_ab / (p_a * p_b)) / -np.log(p_ab)))
        rows.append({"topic": int(topic), "npmi": float(np.mean(scores)) if scores else np.nan, "n_terms": len(words)})
    return pd.DataFrame(rows, columns=["topic", "npmi", "n_terms"])


def topic_diversity(topic_terms: Mapping[int, Sequence[str]], *, top_n: int = 10) -> float:
    """Share of distinct canonical terms among every topic's top ``top_n`` (topic -1 skipped)."""
    terms = [canonical(t) for topic, ts in topic_terms.items() if topic != -1 for t in list(ts)[:top_n] if canonical(t)]
    return len(set(terms)) / len(terms) if terms else float("nan")


def label_agreement(topics: Sequence[int], labels: Sequence) -> dict[str, float]:
    """NMI and ARI between topic assignments and reference labels.

    Papers without a label (missing values) are left out. ``*_with_outliers`` counts the
    outliers (topic -1) as one group; ``*_without_outliers`` leaves them out.
    """
    topics = np.asarray(topics)
    labels = pd.Series(list(labels), dtype=object)
    known = labels.notna().to_numpy() & (labels.astype(str).str.strip() != "").to_numpy()
    if known.sum() < 2:
        raise ValueError("fewer than two papers have a label to compare with")
    t, lab = topics[known], labels[known].astype(str).to_numpy()
    inside = t != -1
    out = {
        "nmi_with_outliers": float(normalized_mutual_info_score(lab, t)),
        "ari_with_outliers": float(adjusted_rand_score(lab, t)),
    }
    if inside.sum() >= 2:
        out["nmi_without_outliers"] = float(normalized_mutual_info_score(lab[inside], t[inside]))
        out["ari_without_outliers"] = float(adjusted_rand_score(lab[inside], t[inside]))
    else:
        out["nmi_without_outliers"] = out["ari_without_outliers"] = float("nan")
    return out


def _name_words(text: str, *, join_hyphens: bool = True) -> tuple[str, ...]:
    words = canonical(text) if join_hyphens else normalize(str(text))  # normalize: a hyphen is a space
    return tuple(singular(w) for w in words.split())


def _contains(longer: tuple[str, ...], shorter: tuple[str, ...]) -> bool:
    n = len(shorter)
    return n > 0 and any(longer[i : i + n] == shorter for i in range(len(longer) - n + 1))


def names_match(name: str, keyword: str) -> bool:
    """Whether a topic name and a keyword say the same: equal, or one holds the other's
    words in order, after :func:`canonical` and dropping plural endings. Authors write
    hyphenated words joined, hyphenated or spaced ("selfsupervised", "self-supervised",
    "self supervised"): read with hyphens as spaces, the two may also be equal, but not
    one inside the other, so "supervised learning" does not match "self-supervised
    learning"."""
    a, b = _name_words(name), _name_words(keyword)
    if a and b and (a == b or _contains(a, b) or _contains(b, a)):
        return True
    spaced = _name_words(name, join_hyphens=False)
    return bool(spaced) and spaced == _name_words(keyword, join_hyphens=False)


def split_keywords(value) -> list[str]:
    """The keywords of one paper from a ``;``-separated cell (empty for a missing value)."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return []
    return [k.strip() for k in str(value).split(";") if k.strip()]


def keyword_match(
    names: Mapping[int, str | Sequence[str]], topics: Sequence[int], keywords: Sequence, *, top: int = 8
) -> pd.DataFrame:
    """Does each topic's name match one of the ``top`` most frequent keywords of its papers?

    Parameters
    ----------
    names
        Name per topic; a sequence of names counts as matched when any of them matches.
    topics
        Topic per paper.
    keywords
        Per paper a ``;``-separated keyword cell (case and punctuation ignored).

    Returns
    -------
    pandas.DataFrame
        ``topic``, ``name``, ``top_keywords`` (``; ``-joined), ``match`` (bool); topic -1
        left out.
    """
    topics = np.asarray(topics)
    rows = []
    for topic, name in names.items():
        if topic == -1:
            continue
        counts: Counter[str] = Counter()
        for i in np.flatnonzero(topics == topic):
            counts.update({canonical(k) for k in split_keywords(keywords[i])})  # each keyword once per paper
        common = [k for k, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top]]
        candidates = [name] if isinstance(name, str) else list(name)
        match = any(names_match(n, k) for n in candidates for k in common)
        rows.append({"topic": int(topic), "name": " / ".join(candidates), "top_keywords": "; ".join(common), "match": match})
    return pd.DataFrame(rows, columns=["topic", "name", "top_keywords", "match"])


def seed_agreement(labelings: Sequence[Sequence[int]], *, min_jaccard: float = 0.5) -> dict[str, float]:
    """Agreement of fits with different seeds: the first is the reference.

    Returns
    -------
    dict
        ``mean_ari`` (over every pair of labellings, outliers as one group),
        ``min_ari``, ``topics_recovered`` (share of the reference's topics whose one-to-one
        match, :func:`topics.stats.alignment.align_topics`, has Jaccard >= ``min_jaccard``
        in every other labelling).
    """
    from topics.stats.alignment import align_topics

    labelings = [np.asarray(lab) for lab in labelings]
    if len(labelings) < 2:
        raise ValueError("need at least two labellings to compare")
    aris = [adjusted_rand_score(a, b) for a, b in itertools.combinations(labelings, 2)]
    reference = labelings[0]
    topics = [t for t in np.unique(reference) if t != -1]
    back = np.ones(len(topics), dtype=bool)
    for other in labelings[1:]:
        matches = align_topics(reference, other, min_jaccard=min_jaccard)
        matches = matches[matches["topic"] != -1].set_index("topic")
        back &= np.array([bool(matches.loc[t, "matched"]) for t in topics], dtype=bool)
    return {
        "mean_ari": float(np.mean(aris)),
        "min_ari": float(np.min(aris)),
        "topics_recovered": float(back.mean()) if len(topics) else float("nan"),
    }


def clear_changes_held(stability: pd.DataFrame, comparison) -> float:
    """Share of the clear changes of ``comparison`` (a two-year
    :class:`~topics.stats.comparison.TwoGroups`) that held in every seed of ``stability``
    (:func:`topics.stats.stability.labeling_stability`); NaN where nothing changed clearly."""
    comparison = comparison.table
    clear = comparison.loc[comparison["direction"].isin(["grew", "shrank"]), "topic"]
    held = stability[stability["topic"].isin(clear)]
    return float(held["stable"].mean()) if len(held) else float("nan")
