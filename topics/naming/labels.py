"""Human-readable topic and area names that hold for their papers.

Candidates come from each group's c-TF-IDF terms (BERTopic's class-based TF-IDF), ranked
by :func:`rank_candidates`: phrases that read like a research area ("self-supervised
learning", "long-tailed recognition"), distinctive for the group, then single words.
Among them a group is named by coverage (:mod:`topics.naming.coverage`, the share of its
papers that use the name):

1. the best-ranked phrase that at least half of the group's papers use (:data:`HOLD`);
2. else a compound of the two phrases that together cover the most of its papers
   ("long-tailed recognition / deep clustering"), flagged ``mixed``: the group joins two
   themes, and its name says so rather than claiming one;
3. else, of the phrases and the compound that at least a quarter of its papers use
   (:data:`FLOOR`) and the best-ranked single word that half of them use ("speech"), the
   one that fits the group best (:func:`name_fit`: coverage first, and how few papers
   outside the group use the name second), so a topic of drug-discovery papers is
   "drug discovery / amino acid" and not "structures", a word half of them use and a
   tenth of the corpus too;
4. else whichever of these covers the most papers, and here a broad word takes part
   (:func:`is_broad`): the plural of a word that only starts names ("graphs") for any
   group, the word itself ("image", "graph") for an area, so an area of vision topics
   whose papers share no phrase is "image" (56 % of it on the full lists), not "object" (28 %).

Words and phrases that authors write in many papers and almost never choose as one of
their keywords ("gap", "parameters", "distribution", "downstream tasks"; keyphraseness,
:mod:`topics.naming.keyphrases`) take part in none of these steps: they name a group only
where no other candidate reaches :data:`FLOOR`.

A phrase that nearly always sits inside one longer term is completed to it or names
nothing (:func:`complete_fragments`: "linear unit networks" is "rectified linear unit
networks"). A phrase names only the group that uses it most, so "optimal transport" names the topic
that holds the optimal-transport papers, not a neighbour with two of them. Names are
distinct across groups. Areas are named first and their topics after them
(:func:`name_groups`): a topic does not take its area's name unless it holds most of the
area's papers, so an area is never named after one of its topics but for that case.

The rule is deterministic; rename topics where a reader knows better
(:meth:`topics.TopicModel.rename`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from topics.text import singular
from topics.naming.coverage import COMPOUND, PhraseIndex, coverage, name_parts, name_precision, phrase_key
from topics.naming.keyphrases import reference
from topics.naming.terms import (
    ADJECTIVE_ENDING,
    CONNECTOR,
    NOUN_EXCEPTIONS,
    HEAD_ONLY_TERMS,
    NOT_ALONE_TERMS,
    PhraseAnalyzer,
    connected_terms,
    is_bad_word,
    is_phrase,
    is_name_candidate,
    modifier_words,
)

__all__ = [
    "Name",
    "area_names",
    "class_terms",
    "complete_fragments",
    "complete_modifier",
    "extend_phrase",
    "is_broad",
    "is_broad_plural",
    "is_modifier",
    "is_vague",
    "name_fit",
    "name_groups",
    "name_topics",
    "named",
    "topic_names",
]

@dataclass(frozen=True)
class Name:
    """A group's name, the share of its papers that use it (:mod:`topics.naming.coverage`),
    whether it joins two themes, and whether it is what related papers call their field
    rather than words the group's papers write (:mod:`topics.naming.fields`)."""

    name: str
    coverage: float
    mixed: bool = False
    transferred: bool = False


#: A name holds for its group when at least this share of the group's papers use it.
HOLD = 0.5

#: A name used by fewer than this share of its group's papers does not describe the
#: group: a compound or another candidate is sought first.
FLOOR = 0.25

OUTLIER_NAME = "outliers (no topic)"


def named(index: PhraseIndex, name: str, members: np.ndarray, *, keyword: bool = False) -> Name:
    """``name`` as a :class:`Name` of the group ``members`` (a boolean mask over the texts
    of ``index``): the one rule by which every name gets its coverage and flags, whether a
    rule chose it (:func:`name_groups`, :func:`topics.naming.fields.name_fields`), a new
    topic of an update got it (:meth:`topics.TopicModel.extend`) or a reader gave it
    (:meth:`topics.TopicModel.rename`).

    * ``coverage``: the share of ``members`` that use the name
      (:func:`topics.naming.coverage.coverage`); NaN for the outliers' name or an empty
      group;
    * ``mixed``: the name joins two themes ("A / B": :func:`topics.naming.coverage.name_parts`);
    * ``transferred``: ``keyword`` (the name is an author keyword chosen for the group from
      what related papers call their field) and fewer than :data:`FLOOR` of the group's
      papers, or fewer than two, write it: what related papers call it, not the group's
      own words.

    >>> from topics.naming.coverage import PhraseIndex
    >>> index = PhraseIndex(["optimal transport plans", "Wasserstein distances", "graphs"])
    >>> named(index, "optimal transport", np.array([True, True, False]))
    Name(name='optimal transport', coverage=0.5, mixed=False, transferred=False)
    >>> named(index, "optimal transport / graphs", np.array([True, True, True])).mixed
    True
    >>> named(index, "domain adaptation", np.array([True, True, False]), keyword=True)
    Name(name='domain adaptation', coverage=0.0, mixed=False, transferred=True)
    """
    members = np.asarray(members, dtype=bool)
    if not members.any() or name == OUTLIER_NAME:
        return Name(name, float("nan"))
    share = coverage(index, name, members)
    written = share >= FLOOR and share * members.sum() >= 2  # one paper's phrase names no group
    return Name(name, share, mixed=len(name_parts(name)) > 1, transferred=keyword and not written)

#: A phrase is a fragment of a longer term when at least this share of its uses in the
#: corpus sit next to the same word (:func:`complete_fragments`).
FRAGMENT_SHARE = 0.85

#: A name must be at least this many times as common among the topic's documents as
#: in the whole corpus ("neural networks" is everywhere and names nothing).
MIN_LIFT = 2.0

#: How much more a name's coverage of its group counts than its precision in
#: :func:`name_fit` (F-beta's beta: 2 weighs coverage four times as much).
FIT_BETA = 2.0


def _candidates(
    terms: Sequence[tuple[str, float]],
    doc_counts: Mapping[str, int],
    size: int,
    corpus_counts: Mapping[str, int] | None = None,
    n_docs: int | None = None,
    completions: Mapping[str, str] | None = None,
    modifiers: frozenset[str] = frozenset(),
    broad: bool = False,
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
        if is_phrase(t) and is_name_candidate(t, modifiers, broad=broad)
        and (t in completed or (doc_counts.get(t, need) >= need and distinctive(t)))
    ]
    singles = [t for t, _ in ranked if not is_phrase(t) and is_name_candidate(t, modifiers, broad=broad)]
    pairs = []
    if not phrases:
        good: list[str] = []
        # words that cannot name a topic alone ("graph") can stand in a pair ("graph, molecules")
        pool = [t for t, _ in ranked if not is_phrase(t) and not is_bad_word(t) and t not in HEAD_ONLY_TERMS]
        for t in [t for t in pool if distinctive(t)] or pool:
            if not any(singular(t) == singular(g) for g in good):  # "experts, expert" says one thing
                good.append(t)
        pairs = [f"{a}{COMPOUND}{b}" for a, b in zip(good, good[1:])][:3]
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
    """Name each topic from its ranked ``(term, weight)`` list, by counts alone.

    Without the papers' texts a topic takes its first candidate that no larger topic has
    taken; :func:`topic_names` chooses by coverage where the texts are at hand.

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
    index: PhraseIndex | None = None,
    forbidden: Mapping[int, set[str]] | None = None,
    modifiers: frozenset[str] | None = None,
    broad: bool = False,
    named: Mapping[int, str] | None = None,
) -> dict[int, str]:
    """Names for the groups of ``labels`` that hold for their papers.

    Candidates are ranked from the groups' c-TF-IDF ``terms`` as in :func:`name_topics`,
    joined by the phrases that at least :data:`FLOOR` of a group's papers share; each
    group is then named by coverage (see the module's description), and two-word names
    are extended by the word that nearly always follows (:func:`extend_phrase`) where
    that keeps the name above the bar it met (:data:`HOLD` or :data:`FLOOR`).

    ``index`` (a :class:`topics.naming.coverage.PhraseIndex` over ``texts``) counts who
    uses a name; it is built when not given. ``forbidden`` lists, per group, phrases it
    may not be named by (its area's name, :func:`name_groups`); ``named`` gives groups
    whose names are already chosen: they keep them, and no other group takes them.
    ``modifiers`` are the words the corpus uses as modifiers
    (:func:`topics.naming.terms.modifier_words`, counted over ``texts`` when not
    given): one alone names no group, and it is completed by the word that most often
    follows it in the group ("causal" -> "causal discovery"), as a hyphenated modifier
    is ("long-tailed recognition"). Label -1 is the outliers' and is named
    ``"outliers (no topic)"`` when ``terms`` has it. With
    ``broad`` the groups are areas, which a broad word ("image", "graph": see
    :func:`is_broad`) may name where nothing else reaches :data:`FLOOR` (step 4).
    """
    analyzer = analyzer or PhraseAnalyzer()
    index = index or PhraseIndex(texts, analyzer.acronyms)
    labels = np.asarray(labels)
    sizes = pd.Series(labels).value_counts().to_dict()
    tokens = [analyzer.tokens(text) for text in texts]  # one pass serves counting and extension
    grams = [analyzer.grams(t) for t in tokens]
    modifiers = modifier_words(tokens) if modifiers is None else modifiers
    topic_counts, corpus_counts = _doc_counts(terms, labels, grams)
    order = sorted((t for t in terms if t != -1), key=lambda t: (-sizes.get(t, 0), t))
    streams = {t: [tokens[i] for i in np.flatnonzero(labels == t)] for t in order}
    connected = connected_terms(tokens, analyzer.acronyms)  # "mixture of experts", "theory of mind"
    shared_phrases = _shared_phrases(grams, labels, order, tokens, connected)
    candidates = {}
    for t in order:
        done = {
            w: complete_modifier(w, streams[t], modifiers) for w, _ in terms[t][:10] if is_modifier(w, modifiers) and not is_bad_word(w)
        }
        ranked = _candidates(
            terms[t], topic_counts.get(t, {}), sizes.get(t, 0), corpus_counts, len(texts), {w: p for w, p in done.items() if p}, modifiers,
            broad,
        )
        candidates[t] = [
            c for c in dict.fromkeys(ranked + shared_phrases[t]) if COMPOUND not in c and is_name_candidate(c, modifiers, broad=broad)
        ]
    # "linear unit networks" is part of "rectified linear unit networks": a fragment names nothing
    fragments = complete_fragments([c for cs in candidates.values() for c in cs], tokens, modifiers=modifiers)
    for t in order:
        completed = (fragments.get(c, c) for c in candidates[t])
        candidates[t] = list(dict.fromkeys(c for c in completed if c is not None))
    named = dict(named or {})
    names = _by_coverage(candidates, labels, index, order, forbidden or {}, modifiers, named)
    out = {-1: OUTLIER_NAME} if -1 in terms else {}
    for t in order:
        if t in named:
            out[t] = named[t]
            continue
        members = labels == t
        parts, best = name_parts(names[t]), names[t]
        met = coverage(index, best, members)
        bar = HOLD if met >= HOLD else FLOOR if met >= FLOOR else met  # the bar the name met
        others = {p for u in order if u != t for p in name_parts(out.get(u, names[u]))}
        banned = {phrase_key(p) for p in (forbidden or {}).get(t, ())}
        longer = [extend_phrase(part, streams[t], modifiers=modifiers) for part in parts]
        extended = COMPOUND.join(longer)
        if (
            extended != best
            and not any(p in others or _overlaps(p, others) or phrase_key(p) in banned for p in longer)
            and coverage(index, extended, members) >= bar
        ):
            best = extended
        out[t] = best
    return {t: out[t] for t in terms}


def _shared_phrases(
    grams: Sequence[Sequence[str]], labels: np.ndarray, order: Sequence[int], tokens: Sequence[Sequence[str]],
    connected: frozenset[str] = frozenset(),
) -> dict[int, list[str]]:
    """For each group of ``order``, the two- and three-word phrases that at least
    :data:`FLOOR` of its papers hold and that are :data:`MIN_LIFT` times as common in the
    group as in the corpus, most shared first ("large language models", which c-TF-IDF's
    two-word terms miss; "mixture of experts" where it is among ``connected``).

    Two passes over the documents for all groups at once: one counts each group's
    phrases among its own papers, the other counts the candidates over the corpus.
    """
    def phrases(i: int) -> set[str]:
        return {g for g in grams[i] if " " in g} | set(_trigrams(tokens[i], connected))

    position = {t: k for k, t in enumerate(order)}
    group = [position.get(t, -1) for t in labels.tolist()]  # -1: in no group of ``order``
    inside: list[dict[str, int]] = [{} for _ in order]
    for i, k in enumerate(group):
        if k >= 0:
            counts = inside[k]
            for g in phrases(i):
                counts[g] = counts.get(g, 0) + 1
    sizes = np.bincount([k for k in group if k >= 0], minlength=len(order))
    wanted = [{g for g, n in counts.items() if n >= max(2, FLOOR * size)} for counts, size in zip(inside, sizes)]
    everywhere = dict.fromkeys(set().union(*wanted), 0)
    if everywhere:
        for i in range(len(grams)):
            for g in everywhere.keys() & phrases(i):
                everywhere[g] += 1
    n_docs = len(grams)
    out = {}
    for t, counts, size, want in zip(order, inside, sizes, wanted):
        kept = [g for g in want if counts[g] / size >= MIN_LIFT * everywhere[g] / n_docs]
        out[t] = sorted(kept, key=lambda g: (-counts[g] * np.sqrt(counts[g] / everywhere[g]), g))
    return out


def _trigrams(tokens: Sequence[str], connected: frozenset[str] = frozenset()) -> list[str]:
    """Three adjacent words of a token stream, none of them a stop word or one letter,
    with no punctuation between them (:meth:`PhraseAnalyzer.tokens` marks it by ""); and
    the "X of Y" phrases among ``connected`` (:func:`topics.naming.terms.connected_terms`)."""
    keep = [len(t) > 1 and not is_bad_word(t) for t in tokens]
    return [
        f"{a} {b} {c}" for a, b, c, ka, kb, kc in zip(tokens, tokens[1:], tokens[2:], keep, keep[1:], keep[2:])
        if ka and kc and (kb or (b == CONNECTOR and f"{singular(a)} {b} {singular(c)}" in connected))
    ]


def _by_coverage(
    candidates: Mapping[int, Sequence[str]], labels: np.ndarray, index: PhraseIndex, order: Sequence[int],
    forbidden: Mapping[int, set[str]], modifiers: frozenset[str] = frozenset(), named: Mapping[int, str] | None = None,
) -> dict[int, str]:
    """Each group's name chosen by coverage (steps 1-4 of the module's description)."""
    codes = {t: i for i, t in enumerate(order)}
    code = np.array([codes.get(int(t), -1) for t in labels])
    sizes = np.bincount(code[code >= 0], minlength=len(order))
    corpus_size = max(len(labels), 1)
    n_users: dict[str, np.ndarray] = {}

    def users(name: str) -> np.ndarray:  # how many papers of each group use ``name``
        if name not in n_users:
            used = index.uses(name)
            n_users[name] = np.bincount(code[used & (code >= 0)], minlength=len(order))
        return n_users[name]

    def share(name: str, t: int) -> float:
        return users(name)[codes[t]] / max(sizes[codes[t]], 1)

    def owner(name: str) -> int:
        # the group for which the name is the best feature: the F-measure of its share of
        # the group's papers (recall) and the group's share of its users (precision)
        n = users(name)
        total = max(int(index.uses(name).sum()), 1)
        recall, precision = n / np.maximum(sizes, 1), n / total
        f = np.where(n > 0, 2 * recall * precision / np.maximum(recall + precision, 1e-12), 0.0)
        return order[int(np.argmax(f))]

    def distinctive(name: str, t: int) -> bool:
        # at least MIN_LIFT times as common among the group's papers as among the others:
        # the same bar as the corpus-wide lift for a small topic, and one an area holding
        # half the corpus can still meet
        n, size = users(name)[codes[t]], sizes[codes[t]]
        outside = (int(index.uses(name).sum()) - n) / max(corpus_size - size, 1)
        return n / max(size, 1) >= MIN_LIFT * outside

    names: dict[int, str] = dict(named or {})
    taken: set[str] = {p for name in names.values() for p in name_parts(name)}
    for t in order:
        if t in names:
            continue
        members = code == codes[t]
        banned = {phrase_key(p) for p in forbidden.get(t, ())}

        def free(c: str) -> bool:
            return c not in taken and not _overlaps(c, taken) and phrase_key(c) not in banned

        pool = [c for c in candidates[t] if free(c) and distinctive(c, t)]
        owned = [c for c in pool if owner(c) == t]
        name = _pick(owned, members, index, share=lambda c: share(c, t), modifiers=modifiers)
        if name is None or coverage(index, name, members) < FLOOR:
            fallback = _pick(pool, members, index, share=lambda c: share(c, t), modifiers=modifiers)
            if fallback is not None and (name is None or coverage(index, fallback, members) > coverage(index, name, members)):
                name = fallback
        if name is None:
            name = next((c for c in candidates[t] if free(c)), f"topic {t}")
        names[t] = name
        taken.update(name_parts(name))
    return names


def _pick(pool: Sequence[str], members: np.ndarray, index: PhraseIndex, *, share, modifiers: frozenset[str] = frozenset()) -> str | None:
    """The name for one group from its ranked candidates ``pool`` (steps 1-4)."""
    if not pool:
        return None
    # words and phrases authors write everywhere and never choose as keywords ("gap",
    # "parameters", "downstream tasks") name a group only where nothing else reaches the floor
    vague = [c for c in pool if is_vague(c, modifiers)]
    pool = [c for c in pool if c not in vague]
    phrases = [c for c in pool if is_phrase(c)]
    singles = [c for c in pool if not is_phrase(c) and not is_modifier(c, modifiers)]  # "speech", not "visual"
    held = next((c for c in phrases if share(c) >= HOLD), None)
    if held is not None:
        return held
    compound = _compound(phrases, members, index, share=share)
    if compound is not None and coverage(index, compound, members) >= HOLD:
        return compound
    # no phrase holds for half the group: the phrases and the compound that reach the floor
    # and the best-ranked word that half of it uses compete on how well they fit it
    options = phrases + ([compound] if compound else [])
    fitting = [c for c in options if coverage(index, c, members) >= FLOOR]
    word = next((c for c in singles if share(c) >= HOLD and not is_broad(c, modifiers)), None)
    fitting += [word] if word is not None else []
    if fitting:
        return max(fitting, key=lambda c: (round(name_fit(index, c, members), 9), -fitting.index(c)))
    options += singles
    if not any(coverage(index, c, members) >= FLOOR for c in options):
        options += [c for c in vague if is_phrase(c) or not is_modifier(c, modifiers)]
    if not options:  # only modifiers ("causal"): the caller falls back
        return None
    return max(options, key=lambda c: (round(coverage(index, c, members), 9), -options.index(c)))


def name_fit(index: PhraseIndex, name: str, members: np.ndarray, *, beta: float = FIT_BETA) -> float:
    """How well ``name`` fits the group ``members``: the F-measure (van Rijsbergen's
    F-beta) of its coverage of the group and its precision, the share of the papers that
    use it that are in the group, weighted to coverage by ``beta``.

    A name must hold for its papers first and single them out second: "structures" is
    used by half of a topic of drug-discovery papers, and by a tenth of the corpus.
    """
    recall, precision = coverage(index, name, members), name_precision(index, name, members)
    b2 = beta * beta
    return (1 + b2) * recall * precision / (b2 * precision + recall) if recall and precision else 0.0


def _compound(phrases: Sequence[str], members: np.ndarray, index: PhraseIndex, *, share) -> str | None:
    """The group's main phrase joined by the phrase that covers most of the rest of its
    papers ("long-tailed recognition / deep clustering"); None if no second phrase adds
    a paper."""
    if len(phrases) < 2:
        return None
    first = next((c for c in phrases if share(c) >= FLOOR), None) or max(phrases, key=lambda c: (share(c), -phrases.index(c)))
    covered = index.uses(first)[members]
    best, gain = None, 0
    for c in phrases:
        if c == first or _overlaps(c, {first}) or _overlaps(first, {c}):
            continue
        used = index.uses(c)[members]
        more = int((used & ~covered).sum())
        if more > gain and used.sum() >= 2:  # a theme of the group, not one paper's phrase
            best, gain = c, more
    return None if best is None else f"{first}{COMPOUND}{best}"


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


def extend_phrase(
    name: str, token_streams: Sequence[Sequence[str]], *, min_share: float = 0.6, modifiers: frozenset[str] = frozenset()
) -> str:
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
        if count >= min_share * total and count >= 2 and ending_ok and word not in words and is_name_candidate(longer, modifiers):
            return longer
    # "space models" nearly always follows "state": "state space models"
    reversed_streams = [list(reversed(tokens)) for tokens in token_streams]
    word, count, total = _follower(list(reversed(words)), reversed_streams)
    if word is not None and not is_bad_word(word) and word not in words and count >= 2 and count >= min_share * total:
        longer = f"{word} {name}"
        if is_name_candidate(longer, modifiers):
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


def complete_fragments(
    phrases: Sequence[str], token_streams: Sequence[Sequence[str]], *, min_share: float = FRAGMENT_SHARE, min_uses: int = 3,
    modifiers: frozenset[str] = frozenset(),
) -> dict[str, str | None]:
    """The complete term each fragment among ``phrases`` belongs to, or ``None``.

    A phrase is a fragment when at least ``min_share`` of its (at least ``min_uses``)
    uses in ``token_streams`` sit next to the same content word: "linear unit networks"
    is nearly always "rectified linear unit networks" (ReLU networks written out),
    "category discovery" is "generalized category discovery", "series forecasting" is
    "time series forecasting". This is the nested-term test of C-value (Frantzi, Ananiadou
    & Mima 2000): a candidate that occurs almost only inside one longer term is not a
    term of its own. A fragment maps to its completion (the word before, the word after,
    or both) when that is a name candidate of at most three words, else to ``None``: it
    names nothing. Generic words do not complete a term ("large language models" keeps
    "language models" a term of its own). Phrases that are no fragment are left out of
    the result. One pass over the streams counts every phrase's neighbours.
    """
    wanted: dict[str, list[tuple[str, ...]]] = {}
    for phrase in dict.fromkeys(phrases):
        words = tuple(phrase.split())
        if len(words) > 1:
            wanted.setdefault(words[0], []).append(words)
    uses: dict[tuple[str, ...], int] = {}
    sides: dict[tuple[str, ...], tuple[dict[str, int], dict[str, int]]] = {}
    for tokens in token_streams:
        tokens = list(tokens)
        for i, token in enumerate(tokens):
            for words in wanted.get(token, ()):
                n = len(words)
                if tuple(tokens[i : i + n]) != words:
                    continue
                uses[words] = uses.get(words, 0) + 1
                before, after = sides.setdefault(words, ({}, {}))
                for word, seen in ((tokens[i - 1] if i else "", before), (tokens[i + n] if i + n < len(tokens) else "", after)):
                    if word and not is_bad_word(word):
                        seen[word] = seen.get(word, 0) + 1
    out: dict[str, str | None] = {}
    for words, n in uses.items():
        if n < min_uses:
            continue
        before, after = sides[words]
        left = max(before.items(), key=lambda kv: (kv[1], kv[0]), default=(None, 0))
        right = max(after.items(), key=lambda kv: (kv[1], kv[0]), default=(None, 0))
        complete = list(words)
        if left[1] >= min_share * n:
            complete.insert(0, left[0])
        if right[1] >= min_share * n:
            complete.append(right[0])
        if len(complete) == len(words):
            continue
        term = " ".join(complete)
        out[" ".join(words)] = term if len(complete) <= 3 and is_name_candidate(term, modifiers) else None
    # a completion may itself be a fragment ("unit networks" -> "linear unit networks")
    again = {c for c in out.values() if c is not None and c not in out}
    deeper = complete_fragments(sorted(again), token_streams, min_share=min_share, min_uses=min_uses, modifiers=modifiers) if again else {}
    deeper.update(out)
    return {p: deeper.get(c, c) for p, c in out.items()}


def is_modifier(term: str, modifiers: frozenset[str] = frozenset()) -> bool:
    """A single word that describes rather than names ("long-tailed", "self-supervised",
    "causal"): one the corpus uses as a modifier (``modifiers``,
    :func:`topics.naming.terms.modifier_words`), hyphenated, or ending like an adjective
    or participle."""
    if " " in term:
        return False
    if term in modifiers:
        return True
    return term not in NOUN_EXCEPTIONS and ("-" in term or bool(ADJECTIVE_ENDING.search(term)))


def is_broad(term: str, modifiers: frozenset[str] = frozenset()) -> bool:
    """A word that only starts names ("image", "graph": :data:`topics.naming.terms.NOT_ALONE_TERMS`),
    or its plural (:func:`is_broad_plural`): one names a group only where nothing else
    reaches :data:`FLOOR`, and only an area (:func:`area_names`) can take the singular."""
    return term in NOT_ALONE_TERMS or is_broad_plural(term, modifiers)


def is_vague(term: str, modifiers: frozenset[str] = frozenset()) -> bool:
    """A word or phrase that authors write in many papers and almost never choose as a
    keyword ("gap", "parameters", "downstream tasks": :mod:`topics.naming.keyphrases`,
    over the author keywords the package ships): it names a group only where nothing else
    reaches :data:`FLOOR`. Broad words ("image", "graphs") keep their own rule
    (:func:`is_broad`)."""
    return not is_broad(term, modifiers) and reference().rejects(term)


def is_broad_plural(term: str, modifiers: frozenset[str] = frozenset()) -> bool:
    """A plural whose singular names nothing alone ("graphs", "languages", "videos"):
    coverage counts it wherever its singular is used ("graph neural networks",
    "language models"), so it claims papers that only use the longer names. Such a word
    names a group only when nothing else reaches :data:`FLOOR`."""
    one = singular(term)
    return " " not in term and one != term and (one in modifiers or one in NOT_ALONE_TERMS)


def complete_modifier(term: str, token_streams: Sequence[Sequence[str]], modifiers: frozenset[str] = frozenset()) -> str | None:
    """The modifier ``term`` with the noun that most often follows it in the topic's
    documents ("long-tailed" -> "long-tailed recognition"), if that follows at least twice
    and makes a name candidate."""
    def noun(word: str) -> bool:
        return not is_bad_word(word) and word not in NOT_ALONE_TERMS - HEAD_ONLY_TERMS and is_name_candidate(f"{term} {word}", modifiers)

    word, count, _ = _follower([term], token_streams, accept=noun)
    if word is None or count < 2:
        return None
    phrase = f"{term} {word}"
    return phrase if is_name_candidate(phrase, modifiers) else None


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
    index: PhraseIndex | None = None,
    forbidden: Mapping[int, set[str]] | None = None,
    outlier_name: str = OUTLIER_NAME,
    modifiers: frozenset[str] | None = None,
    named: Mapping[int, str] | None = None,
) -> dict[int, str]:
    """A name per area, chosen like a topic's (:func:`topic_names`) from c-TF-IDF terms
    over the areas (:func:`class_terms`): with fewer, larger groups the distinctive
    phrases are broader ("language models" over "jailbreak attacks").

    ``labels`` are the documents' topics; ``topic_areas_`` maps them to areas;
    ``forbidden`` lists, per area, phrases it may not be named by; ``named`` gives areas
    already named (:func:`topic_names`).
    """
    analyzer = analyzer or PhraseAnalyzer()
    areas = np.array([topic_areas_.get(int(t), -1) for t in labels], dtype=int)
    inside = areas != -1
    names: dict[int, str] = {-1: outlier_name} if (~inside).any() or -1 in topic_areas_ else {}
    if not inside.any():
        return names
    terms = class_terms([texts[i] for i in np.flatnonzero(inside)], areas[inside], analyzer)
    names.update(topic_names(terms, areas, texts, analyzer=analyzer, index=index, forbidden=forbidden, modifiers=modifiers, broad=True, named=named))
    return names


def name_groups(
    terms: Mapping[int, Sequence[tuple[str, float]]],
    labels: Sequence[int],
    topic_areas_: Mapping[int, int],
    texts: Sequence[str],
    *,
    analyzer: PhraseAnalyzer | None = None,
    index: PhraseIndex | None = None,
) -> tuple[dict[int, str], dict[int, str]]:
    """Topic and area names, an area's name broader than its topics' and never one of
    theirs unless that topic holds more than half of the area's papers.

    1. Areas whose best name is one phrase that holds for half of their papers keep it
       ("language models" for an area of language-model topics); their topics may not
       take it (unless one holds most of the area).
    2. Topics are named (:func:`topic_names`).
    3. The other areas are named without their topics' names, so an area of three small
       topics is not named after one of them ("optimal transport" for an area that
       also holds long-tailed recognition and clustering); the areas of step 1 keep
       their names and take no other (the full lists' "agents" area is not left with
       "agent" because the reinforcement-learning area took "agents" on the way).
    4. An area whose name so chosen covers less than :data:`FLOOR` of its papers joins
       topics that share no phrase of their own; it is named by its two largest topics
       ("tabular data / transformers", flagged mixed) where that compound covers more.
       So is an area named by a single word that holds for less than half of it, where
       the compound fits the area better (:func:`name_fit`): "brain / spiking neural
       networks", not "brain", and "variational autoencoders / diffusion models", not
       "process".

    Returns ``(topic_names, area_names)``.
    """
    analyzer = analyzer or PhraseAnalyzer()
    index = index or PhraseIndex(texts, analyzer.acronyms)
    labels = np.asarray(labels)
    doc_areas = np.array([topic_areas_.get(int(t), -1) for t in labels], dtype=int)
    modifiers = modifier_words(analyzer.tokens(text) for text in texts)

    def minority(t: int, area: int) -> bool:
        return (labels[doc_areas == area] == t).mean() <= 0.5

    first = area_names(topic_areas_, labels, texts, analyzer=analyzer, index=index, modifiers=modifiers)
    broad = {
        a: n for a, n in first.items()
        if a != -1 and len(name_parts(n)) == 1 and coverage(index, n, doc_areas == a) >= HOLD
    }
    topic_forbidden = {
        t: {broad[a]} for t, a in topic_areas_.items() if t != -1 and a in broad and minority(t, a)
    }
    topic_names_ = topic_names(terms, labels, texts, analyzer=analyzer, index=index, forbidden=topic_forbidden, modifiers=modifiers)
    area_forbidden = {a: set(broad.values()) for a in set(topic_areas_.values())}
    for t, a in topic_areas_.items():
        if t != -1 and t in topic_names_ and minority(t, a):
            area_forbidden[a] |= set(name_parts(topic_names_[t]))
    # the areas named in step 1 keep their names and take part no more
    rest = area_names(topic_areas_, labels, texts, analyzer=analyzer, index=index, forbidden=area_forbidden, modifiers=modifiers, named=broad)
    for a, name in rest.items():
        members = doc_areas == a
        if a == -1:
            continue
        held = coverage(index, name, members)
        if held >= HOLD or (held >= FLOOR and is_phrase(name)):
            continue
        # 4. No broader name holds for a quarter of the area, or only a word that holds for
        # less than half of it: it joins topics that share no phrase of their own, and says
        # so ("tabular data / transformers", flagged mixed) by its two largest topics
        # (benchmarks/README.md, "Area names": ICLR 2023's area names agree with their
        # papers' author keywords at a median of 0.21 so, 0.05 with "process", "label"...)
        tops = sorted((t for t, x in topic_areas_.items() if x == a and t in topic_names_), key=lambda t: (-int((labels == t).sum()), t))
        if len(tops) < 2:
            continue
        joined = COMPOUND.join(name_parts(topic_names_[t])[0] for t in tops[:2])
        if held < FLOOR:
            better = coverage(index, joined, members) > held
        else:  # a word at the floor gives way only to a compound that reaches it too
            better = coverage(index, joined, members) >= FLOOR and name_fit(index, joined, members) > name_fit(index, name, members)
        if better:
            rest[a] = joined
    return topic_names_, rest  # the areas of step 1 came back unchanged (named=broad)
