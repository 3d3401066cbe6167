"""Human-readable topic names from c-TF-IDF terms.

A topic's name is the highest-weighted *phrase* among its top c-TF-IDF terms that reads
like a research area: two words (a hyphenated word counts as one, so
"self-supervised learning" and "long-tailed recognition" qualify), neither a stop word
nor generic paper vocabulary ("propose", "method", "results", "novel"), not ending in a
verb form or an adjective. Where a topic has no such phrase its best single term is
used. Names are made distinct across topics: a topic whose best phrase is taken by a
heavier topic takes its next candidate.

The rule is deliberately simple and deterministic; rename topics where a reader knows
better (:meth:`topics.TopicModel.rename`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from topics.text import singular
from topics.naming.terms import (
    ADJECTIVE_ENDING,
    NOUN_EXCEPTIONS,
    HEAD_ONLY_TERMS,
    NOT_ALONE_TERMS,
    PhraseAnalyzer,
    is_bad_word,
    is_phrase,
    is_name_candidate,
)

__all__ = [
    "Name",
    "area_names",
    "class_terms",
    "complete_modifier",
    "extend_phrase",
    "is_modifier",
    "name_topics",
    "topic_names",
]

@dataclass(frozen=True)
class Name:
    """A group's name, the share of its papers that use it (:mod:`topics.naming.coverage`),
    and whether it joins two themes."""

    name: str
    coverage: float
    mixed: bool = False


#: A name must be at least this many times as common among the topic's documents as
#: in the whole corpus ("neural networks" is everywhere and names nothing).
MIN_LIFT = 2.0


def _candidates(
    terms: Sequence[tuple[str, float]],
    doc_counts: Mapping[str, int],
    size: int,
    corpus_counts: Mapping[str, int] | None = None,
    n_docs: int | None = None,
    completions: Mapping[str, str] | None = None,
) -> list[str]:
    """Name candidates, best first: distinctive shared phrases, else the best two words.

    A phrase must occur in at least ``max(2, size / 10)`` of the topic's documents (so
    that one paper repeating a phrase cannot name a topic) and, where the corpus counts
    are known, be at least :data:`MIN_LIFT` times as common in the topic as in the
    corpus. Candidates are ranked by c-TF-IDF weight x coverage (share of the topic's
    documents holding the term) x the square root of precision (share of all documents
    holding the term that are in this topic), so "group fairness" beats "machine
    learning" for a fairness topic. Precision enters softened because the lift bar
    already keeps names specific: past it, a name should above all describe many of the
    topic's papers ("optimal transport" in 3 of 9 papers, and in 2 papers elsewhere,
    over "heterogeneous graph" in 2 of 9 and nowhere else). A topic with no such phrase is named by its two best single words ("graphs,
    molecules"), not by a made-up phrase; then come single words and the rest.

    ``completions`` maps modifiers to the phrase they most often start in the topic
    ("long-tailed" -> "long-tailed recognition", :func:`complete_modifier`); such a phrase
    competes with the others at its modifier's score, so a topic whose papers share
    "long-tailed" but not one phrase is still named by the phrase its authors use.
    """
    need = min(size, max(2, int(np.ceil(size / 10))))

    def score(item: tuple[str, float]) -> float:
        term, weight = item
        inside = doc_counts.get(term, 1)
        precision = inside / max(corpus_counts.get(term, inside), 1) if corpus_counts else 1.0
        return weight * inside / max(size, 1) * np.sqrt(precision)

    def distinctive(term: str) -> bool:
        if not corpus_counts or not n_docs or not size:
            return True
        inside = doc_counts.get(term, 0)
        return inside / size >= MIN_LIFT * corpus_counts.get(term, inside) / n_docs

    scored = [(t, score((t, w))) for t, w in terms]
    completed = set()
    for modifier, phrase in (completions or {}).items():
        base = next((s for t, s in scored if t == modifier), None)
        # only a modifier most of the topic's papers share ("long-tailed" in 5 of 7)
        if base is not None and distinctive(modifier) and doc_counts.get(modifier, 0) > size / 2:
            scored.append((phrase, base))
            completed.add(phrase)
    ranked = [(t, 0.0) for t, _ in sorted(scored, key=lambda ts: ts[1], reverse=True)]
    ranked = list(dict.fromkeys(ranked))
    phrases = [
        t for t, _ in ranked
        if is_phrase(t) and is_name_candidate(t)
        and (t in completed or (doc_counts.get(t, need) >= need and distinctive(t)))
    ]
    singles = [t for t, _ in ranked if not is_phrase(t) and is_name_candidate(t)]
    pairs = []
    if not phrases:
        good: list[str] = []
        # words that cannot name a topic alone ("graph") can stand in a pair ("graph, molecules")
        pool = [t for t, _ in ranked if not is_phrase(t) and not is_bad_word(t) and t not in HEAD_ONLY_TERMS]
        for t in [t for t in pool if distinctive(t)] or pool:
            if not any(singular(t) == singular(g) for g in good):  # "experts, expert" says one thing
                good.append(t)
        pairs = [f"{a}, {b}" for a, b in zip(good, good[1:])][:3]
    rest = [t for t, _ in terms if t and t not in phrases and t not in singles]
    return phrases + pairs + singles + rest


def name_topics(
    terms: Mapping[int, Sequence[tuple[str, float]]],
    sizes: Mapping[int, int] | None = None,
    doc_counts: Mapping[int, Mapping[str, int]] | None = None,
    corpus_counts: Mapping[str, int] | None = None,
    *,
    n_docs: int | None = None,
    completions: Mapping[int, Mapping[str, str]] | None = None,
    outlier_name: str = "outliers (no topic)",
) -> dict[int, str]:
    """Name each topic from its ranked ``(term, weight)`` list.

    Parameters
    ----------
    terms
        For each topic id, its terms sorted by descending c-TF-IDF weight.
    sizes
        Documents per topic; larger topics choose first when names would collide.
    doc_counts
        For each topic, how many of its documents contain each term (see
        :func:`_candidates`). Without it every term counts as widely shared.
    corpus_counts
        How many documents of the whole corpus contain each term.
    n_docs
        Documents in the corpus; with ``corpus_counts`` it makes names distinctive.
    outlier_name
        The name of topic -1.

    Returns
    -------
    dict
        ``{topic: name}``, names distinct across topics.
    """
    sizes = sizes or {}
    order = sorted(terms, key=lambda t: (-sizes.get(t, 0), t))
    names: dict[int, str] = {}
    taken: set[str] = set()
    for topic in order:
        if topic == -1:
            names[topic] = outlier_name
            continue
        counts = (doc_counts or {}).get(topic, {})
        candidates = _candidates(
            terms[topic], counts, sizes.get(topic, 0), corpus_counts, n_docs, (completions or {}).get(topic)
        ) or [f"topic {topic}"]
        name = next((c for c in candidates if c not in taken and not _overlaps(c, taken)), None)
        if name is None:
            base = candidates[0]
            extra = next((c for c in candidates if c != base and c not in base), str(topic))
            name = f"{base} ({extra})"
            if name in taken:
                name = f"{base} (topic {topic})"
        names[topic] = name
        taken.add(name)
    return {t: names[t] for t in terms}


def topic_names(
    terms: Mapping[int, Sequence[tuple[str, float]]],
    labels: Sequence[int],
    texts: Sequence[str],
    *,
    analyzer: PhraseAnalyzer | None = None,
) -> dict[int, str]:
    """Names for the groups of ``labels`` from their ranked c-TF-IDF ``terms``.

    Counts in how many documents of each group, and of the corpus, each candidate term
    occurs (tokenising each text once with ``analyzer``), names the groups with
    :func:`name_topics`, and extends two-word names by the word that nearly always
    follows (:func:`extend_phrase`).
    """
    analyzer = analyzer or PhraseAnalyzer()
    labels = np.asarray(labels)
    sizes = pd.Series(labels).value_counts().to_dict()
    tokens = [analyzer.tokens(text) for text in texts]  # one pass serves counting and extension
    topic_counts, corpus_counts = _doc_counts(terms, labels, [analyzer.grams(t) for t in tokens])
    completions = {}
    for t, ranked in terms.items():
        streams = [tokens[i] for i in np.flatnonzero(labels == t)]
        done = {w: complete_modifier(w, streams) for w, _ in ranked[:10] if is_modifier(w) and not is_bad_word(w)}
        completions[t] = {w: p for w, p in done.items() if p}
    names = name_topics(terms, sizes, topic_counts, corpus_counts, n_docs=len(texts), completions=completions)
    out = dict(names)
    for t in sorted(names, key=lambda t: (-sizes.get(t, 0), t)):
        if t == -1:
            continue
        longer = extend_phrase(names[t], [tokens[i] for i in np.flatnonzero(labels == t)])
        others = {n for u, n in out.items() if u != t and u != -1}
        if longer != names[t] and longer not in others and not _overlaps(longer, others):  # names stay distinct
            out[t] = longer
    return out


def _doc_counts(ranked: Mapping, topics: np.ndarray, grams_per_doc: list[list[str]]) -> tuple[dict, dict]:
    """How many of each topic's documents, and of all documents, hold each candidate term."""
    wanted = {w for terms in ranked.values() for w, _ in terms}
    corpus: dict[str, int] = dict.fromkeys(wanted, 0)
    counts: dict[int, dict[str, int]] = {t: dict.fromkeys((w for w, _ in terms), 0) for t, terms in ranked.items()}
    for topic, grams in zip(topics.tolist(), grams_per_doc):
        for w in wanted.intersection(grams):
            corpus[w] += 1
            if topic in counts and w in counts[topic]:
                counts[topic][w] += 1
    return counts, corpus


def extend_phrase(name: str, token_streams: Sequence[Sequence[str]], *, min_share: float = 0.6) -> str:
    """Extend a two-word name by the word that nearly always follows or precedes it.

    "graph neural" becomes "graph neural networks" and "neural radiance" becomes
    "neural radiance fields" when at least ``min_share`` of the phrase's occurrences in
    ``token_streams`` (the topic's documents as lower-case token lists) continue with the
    same word, and that word is not a stop word or generic term; failing that, "space
    models" becomes "state space models" when the phrase nearly always follows the same
    word.
    """
    words = name.split()
    if len(words) != 2:
        return name
    word, count, total = _follower(words, token_streams)
    if word is not None:
        longer = f"{name} {word}"
        ending_ok = word in ("problems", "problem") or not is_bad_word(word)
        if count >= min_share * total and count >= 2 and ending_ok and word not in words and is_name_candidate(longer):
            return longer
    # "space models" nearly always follows "state": "state space models"
    reversed_streams = [list(reversed(tokens)) for tokens in token_streams]
    word, count, total = _follower(list(reversed(words)), reversed_streams)
    if word is not None and not is_bad_word(word) and word not in words and count >= 2 and count >= min_share * total:
        longer = f"{word} {name}"
        if is_name_candidate(longer):
            return longer
    return name


def _follower(words: Sequence[str], token_streams: Sequence[Sequence[str]], accept=None) -> tuple[str | None, int, int]:
    """The word that most often follows ``words`` in ``token_streams``, counting singular
    and plural together ("equation" and "equations"), in its most frequent form; with its
    count and the number of occurrences of ``words``. ``accept(word)`` limits the words
    considered."""
    n, first, rest = len(words), words[0], list(words[1:])
    forms: dict[str, dict[str, int]] = {}
    total = 0
    for tokens in token_streams:
        tokens = list(tokens)
        i = -1
        while True:
            try:
                i = tokens.index(first, i + 1)  # scans in C: far faster than comparing word by word
            except ValueError:
                break
            if i + n >= len(tokens) or tokens[i + 1 : i + n] != rest:
                continue
            total += 1
            nxt = tokens[i + n]
            if nxt and (accept is None or accept(nxt)):
                group = forms.setdefault(singular(nxt), {})
                group[nxt] = group.get(nxt, 0) + 1
    if not forms:
        return None, 0, total
    _, group = max(forms.items(), key=lambda kv: (sum(kv[1].values()), kv[0]))
    word = max(group.items(), key=lambda kv: (kv[1], kv[0]))[0]
    return word, sum(group.values()), total


def is_modifier(term: str) -> bool:
    """A single word that describes rather than names ("long-tailed", "self-supervised",
    "out-of-distribution"): hyphenated, or ending like an adjective or participle."""
    if " " in term or term in NOUN_EXCEPTIONS:
        return False
    return "-" in term or bool(ADJECTIVE_ENDING.search(term))


def complete_modifier(term: str, token_streams: Sequence[Sequence[str]]) -> str | None:
    """The modifier ``term`` with the noun that most often follows it in the topic's
    documents ("long-tailed" -> "long-tailed recognition"), if that follows at least twice
    and makes a name candidate."""
    def noun(word: str) -> bool:
        return not is_bad_word(word) and word not in NOT_ALONE_TERMS - HEAD_ONLY_TERMS and is_name_candidate(f"{term} {word}")

    word, count, _ = _follower([term], token_streams, accept=noun)
    if word is None or count < 2:
        return None
    phrase = f"{term} {word}"
    return phrase if is_name_candidate(phrase) else None


def _overlaps(candidate: str, taken: set[str]) -> bool:
    # "language models" next to "large language models" reads as the same name, but not
    # next to "vision-language models": whole words, in order.
    if " " not in candidate:
        return False
    words = tuple(singular(w) for w in candidate.split())
    for other in taken:
        others = tuple(singular(w) for w in other.split(" (")[0].split())
        if len(others) < 2:  # "transformers" does not take "vision transformers"
            continue
        short, long_ = (words, others) if len(words) <= len(others) else (others, words)
        if any(long_[i : i + len(short)] == short for i in range(len(long_) - len(short) + 1)):
            return True
    return False


def class_terms(
    texts: Sequence[str], classes: Sequence[int], analyzer, *, top_n: int = 30
) -> dict[int, list[tuple[str, float]]]:
    """The top ``top_n`` c-TF-IDF terms of each class (BERTopic's class-based TF-IDF).

    The documents of each class are counted together with ``analyzer`` (a
    :class:`topics.naming.labels.PhraseAnalyzer`); weights use BERTopic's
    ``ClassTfidfTransformer(reduce_frequent_words=True)``, as for topics.
    """
    from bertopic.vectorizers import ClassTfidfTransformer
    from sklearn.feature_extraction.text import CountVectorizer

    classes = np.asarray(classes)
    ids = sorted(set(classes.tolist()))
    joined = [" \n ".join(texts[i] for i in np.flatnonzero(classes == c)) for c in ids]
    vectorizer = CountVectorizer(analyzer=analyzer)
    counts = vectorizer.fit_transform(joined)
    weights = ClassTfidfTransformer(reduce_frequent_words=True).fit_transform(counts).toarray()
    vocabulary = vectorizer.get_feature_names_out()
    out = {}
    for row, c in enumerate(ids):
        best = np.argsort(-weights[row], kind="stable")[:top_n]
        out[int(c)] = [(str(vocabulary[j]), float(weights[row, j])) for j in best if weights[row, j] > 0]
    return out


def area_names(
    topic_areas_: Mapping[int, int],
    labels: Sequence[int],
    texts: Sequence[str],
    *,
    analyzer=None,
    outlier_name: str = "outliers (no topic)",
) -> dict[int, str]:
    """A name per area from c-TF-IDF terms over the areas (:func:`class_terms`): areas are
    named like topics, and with fewer, larger groups the distinctive phrases are broader
    ("language models" over "jailbreak attacks").

    ``labels`` are the documents' topics; ``topic_areas_`` maps them to areas.
    """
    analyzer = analyzer or PhraseAnalyzer()
    areas = np.array([topic_areas_.get(int(t), -1) for t in labels], dtype=int)
    inside = areas != -1
    names: dict[int, str] = {-1: outlier_name} if (~inside).any() or -1 in topic_areas_ else {}
    if not inside.any():
        return names
    kept = [texts[i] for i in np.flatnonzero(inside)]
    terms = class_terms(kept, areas[inside], analyzer)
    if len(terms) == 1:  # one area: c-TF-IDF has nothing to contrast; name it by its own terms
        only = next(iter(terms))
        names[only] = topic_names(terms, areas[inside], kept, analyzer=analyzer)[only]
        return names
    names.update(topic_names(terms, areas[inside], kept, analyzer=analyzer))
    return names
