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

import re
from collections.abc import Mapping, Sequence

import numpy as np
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

__all__ = ["extend_phrase", "GENERIC_TERMS", "HEAD_ONLY_TERMS", "TOKEN_PATTERN", "PhraseAnalyzer", "is_name_candidate", "name_topics"]

#: Tokens for topic terms: a letter, then letters or digits, hyphenated parts kept
#: ("self-supervised", "long-tailed", "gpt-4"); :class:`PhraseAnalyzer` drops one-letter tokens.
TOKEN_PATTERN = r"(?u)\b[a-zA-Z][a-zA-Z0-9]*(?:-[a-zA-Z0-9]+)*\b"

#: Words that can end a name ("language models", "tabular data", "deep learning") but
#: are too broad to start one or to be one.
HEAD_ONLY_TERMS = frozenset(
    """
    model models data dataset datasets learning training representation representations
    network networks generation optimization analysis systems system methods
    algorithms algorithm tasks task benchmark benchmarks inference
    """.split()
)

#: Broad modifiers that start good names ("language models", "neural fields") but say
#: nothing alone.
NOT_ALONE_TERMS = HEAD_ONLY_TERMS | frozenset(
    "language neural deep sparse large samples sample graph image images text video".split()
)

#: Words that occur in abstracts of every field and name none.
GENERIC_TERMS = frozenset(
    """
    paper papers propose proposed proposes approach approaches method methodology
    result results show shows shown demonstrate demonstrates demonstrated novel new existing
    work works study studies problem problems performance performances
    experiment experiments experimental empirical empirically based using use used uses
    effective effectively efficient efficiently improve improves improved improvement
    improvements state art sota significant significantly extensive various different
    framework frameworks modeling technique techniques achieve achieves
    achieved outperform outperforms introduce introduces introduced present presents
    provide provides leverage leverages leveraging enable enables key challenge challenges
    challenging potential recent recently widely large small high low better best strong
    code available github com https trained train evaluation evaluate evaluated setting settings general generally
    specific specifically previous prior current address addresses addressing aim aims
    including include includes like way ways number numbers important able single multiple
    given make makes making remains remain remaining fundamental framework-agnostic wide
    range crucial critical typically commonly common main level levels end real world
    """.split()
)

# Endings that mark a verb form or an adjective at the end of a phrase.
_BAD_LAST = re.compile(r"(?:ed|ing|ly|ive|ous|ful|able|ible)$")
# ...but these '-ing'/'-ed' words are nouns in research-area names.
_NOUN_EXCEPTIONS = frozenset(
    """
    learning training reasoning modeling modelling embedding embeddings clustering
    planning pruning tuning fine-tuning prompting editing watermarking unlearning
    forecasting sampling scaling rendering inpainting captioning grounding reranking
    ranking encoding decoding hashing matching tracking parsing retrieval-augmented
    distillation red-teaming jailbreaking steering merging routing pretraining
    pre-training post-training finetuning benchmarking labeling labelling annotation
    """.split()
)


class PhraseAnalyzer:
    """Unigrams and bigrams that really occur in the text, for ``CountVectorizer``.

    scikit-learn drops stop words *before* forming n-grams, which invents phrases
    ("information across modalities" becomes "information modalities"). Here a bigram
    is two adjacent tokens of the text, neither of them a stop word.
    """

    def __init__(self, token_pattern: str = TOKEN_PATTERN):
        self.token_pattern = token_pattern
        self._regex = re.compile(token_pattern)

    def __call__(self, text: str) -> list[str]:
        return self.grams(self.tokens(text))

    def tokens(self, text: str) -> list[str]:
        """The lower-case tokens of ``text``, stop words included, in order."""
        return self._regex.findall(text.lower())

    @staticmethod
    def grams(tokens: Sequence[str]) -> list[str]:
        """Unigrams and adjacent bigrams of ``tokens`` without stop or one-letter words."""
        keep = [len(t) > 1 and t not in ENGLISH_STOP_WORDS for t in tokens]
        grams = [t for t, k in zip(tokens, keep) if k]
        grams += [f"{a} {b}" for a, b, ka, kb in zip(tokens, tokens[1:], keep, keep[1:]) if ka and kb]
        return grams

    def __getstate__(self) -> dict:
        return {"token_pattern": self.token_pattern}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["token_pattern"])


def _bad_word(word: str) -> bool:
    return word in ENGLISH_STOP_WORDS or word in GENERIC_TERMS or word.isdigit() or len(word) < 2


def is_name_candidate(term: str) -> bool:
    """Whether ``term`` (lower-case, space-separated words) can name a topic."""
    words = term.split()
    if not words or len(words) > 3:
        return False
    if any(_bad_word(w) for w in words) or any(w in HEAD_ONLY_TERMS for w in words[:-1]):
        return False
    if len(words) == 1 and words[0] in NOT_ALONE_TERMS:
        return False
    last = words[-1]
    if last not in _NOUN_EXCEPTIONS and _BAD_LAST.search(last) and len(words) > 1:
        return False
    if len(set(words)) < len(words):
        return False
    if len(words) > 1 and last == "".join(p[0] for w in words[:-1] for p in w.split("-") if p):
        return False  # "out-of-distribution ood": a term followed by its own acronym
    return True


def _candidates(
    terms: Sequence[tuple[str, float]], doc_counts: Mapping[str, int], size: int, corpus_counts: Mapping[str, int] | None = None
) -> list[str]:
    """Name candidates, best first: widely shared phrases, then single words, then the rest.

    A phrase must occur in at least ``max(2, size / 10)`` of the topic's documents (so
    that one paper repeating a phrase cannot name a topic). Within a group, candidates
    are ranked by c-TF-IDF weight x coverage (share of the topic's documents holding the
    term) x precision (share of all documents holding the term that are in this topic),
    so "group fairness" beats "machine learning" for a fairness topic.
    """
    need = min(size, max(2, int(np.ceil(size / 10))))

    def score(item: tuple[str, float]) -> float:
        term, weight = item
        inside = doc_counts.get(term, 1)
        precision = inside / max(corpus_counts.get(term, inside), 1) if corpus_counts else 1.0
        return weight * inside / max(size, 1) * precision

    ranked = sorted(terms, key=score, reverse=True)
    phrases = [t for t, _ in ranked if len(t.split()) > 1 and is_name_candidate(t) and doc_counts.get(t, need) >= need]
    singles = [t for t, _ in ranked if len(t.split()) == 1 and is_name_candidate(t)]
    rest = [t for t, _ in terms if t and t not in phrases and t not in singles]
    return phrases + singles + rest


def name_topics(
    terms: Mapping[int, Sequence[tuple[str, float]]],
    sizes: Mapping[int, int] | None = None,
    doc_counts: Mapping[int, Mapping[str, int]] | None = None,
    corpus_counts: Mapping[str, int] | None = None,
    *,
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
        candidates = _candidates(terms[topic], counts, sizes.get(topic, 0), corpus_counts) or [f"topic {topic}"]
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


def extend_phrase(name: str, token_streams: Sequence[Sequence[str]], *, min_share: float = 0.6) -> str:
    """Extend a two-word name by the word that nearly always follows it.

    "graph neural" becomes "graph neural networks" and "neural radiance" becomes
    "neural radiance fields" when at least ``min_share`` of the phrase's occurrences in
    ``token_streams`` (the topic's documents as lower-case token lists) continue with the
    same word, and that word is not a stop word or generic term.
    """
    words = name.split()
    if len(words) != 2:
        return name
    followers: dict[str, int] = {}
    total = 0
    for tokens in token_streams:
        for i in range(len(tokens) - 2):
            if tokens[i] == words[0] and tokens[i + 1] == words[1]:
                total += 1
                followers[tokens[i + 2]] = followers.get(tokens[i + 2], 0) + 1
    if not followers:
        return name
    word, count = max(followers.items(), key=lambda kv: (kv[1], kv[0]))
    longer = f"{name} {word}"
    ending_ok = word in ("problems", "problem") or not _bad_word(word)
    if count >= min_share * total and count >= 2 and ending_ok and word not in words and is_name_candidate(longer):
        return longer
    return name


def _overlaps(candidate: str, taken: set[str]) -> bool:
    # "language models" next to "large language models" reads as the same name.
    return any(candidate in other.split(" (")[0] or other.split(" (")[0] in candidate for other in taken if " " in candidate)
