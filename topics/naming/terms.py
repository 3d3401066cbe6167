"""What counts as a term: tokens, phrases, and the vocabulary that cannot name a topic.

:class:`PhraseAnalyzer` turns a text into the unigrams and real bigrams that
``CountVectorizer`` counts (and that BERTopic's c-TF-IDF weighs); :func:`is_name_candidate`
says whether a term reads like a research area. :mod:`topics.naming.labels` names topics with both.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from topics.naming.acronyms import expand_acronyms, word_pattern
from topics.text import singular

__all__ = [
    "GENERIC_PHRASES",
    "GENERIC_TERMS",
    "HEAD_ONLY_TERMS",
    "NOT_ALONE_TERMS",
    "CONNECTOR",
    "TOKEN_PATTERN",
    "PhraseAnalyzer",
    "connected_terms",
    "is_name_candidate",
    "modifier_words",
]

#: Tokens for topic terms: a letter, then letters or digits, hyphenated parts kept
#: ("self-supervised", "long-tailed", "gpt-4"); :class:`PhraseAnalyzer` drops one-letter tokens.
TOKEN_PATTERN = r"(?u)\b[a-zA-Z][a-zA-Z0-9]*(?:-[a-zA-Z0-9]+)*\b"

#: Words that can end a name ("language models", "tabular data", "deep learning") but
#: are too broad to start one or to be one.
HEAD_ONLY_TERMS = frozenset(
    """
    model models data dataset datasets learning training representation representations
    network networks generation optimization analysis systems system methods
    algorithms algorithm tasks task benchmark benchmarks inference samples sample
    """.split()
)

#: Broad modifiers that start good names ("language models", "neural fields") but say
#: nothing alone.
NOT_ALONE_TERMS = HEAD_ONLY_TERMS | frozenset(
    "language neural deep sparse large graph image images text video".split()
)

#: Words that occur in abstracts of every field and name none.
GENERIC_TERMS = frozenset(
    """
    driven paper papers propose proposed proposes approach approaches method methodology
    result results show shows shown demonstrate demonstrates demonstrated novel new existing
    work works study studies problem problems performance performances
    experiment experiments experimental empirical empirically based using use used uses
    effective effectively efficient efficiently improve improves improved improvement
    improvements art sota significant significantly extensive various different
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

#: Phrases every area of machine learning uses: they pass the distinctiveness test in
#: whichever topic uses them most, yet name no research area. A last resort next to the
#: lift bar (:data:`MIN_LIFT`), which catches phrases that are common everywhere.
GENERIC_PHRASES = frozenset(
    """
    neural networks|neural network|deep neural networks|deep neural network|deep learning|machine learning
    natural language|large language|sequence length|real world|real-world data|wide range|deep models
    neural models|learning models|learning methods|learning algorithms|training data|training process|et al
    """.replace("\n", "|").split("|")
)
GENERIC_PHRASES = frozenset(p.strip() for p in GENERIC_PHRASES) - {""}

# Endings that mark a verb form or an adjective at the end of a phrase.
ADJECTIVE_ENDING = re.compile(r"(?:ed|ing|ly|ive|ous|ful|able|ible)$")
# ...but these '-ing'/'-ed' words are nouns in research-area names.
NOUN_EXCEPTIONS = frozenset(
    """
    learning training reasoning modeling modelling embedding embeddings clustering
    planning pruning tuning fine-tuning prompting editing watermarking unlearning
    forecasting sampling scaling rendering inpainting captioning grounding reranking
    ranking encoding decoding hashing matching tracking parsing retrieval-augmented
    distillation red-teaming jailbreaking steering merging routing pretraining
    pre-training post-training finetuning benchmarking labeling labelling annotation
    """.split()
)


#: Punctuation that ends a phrase: no bigram is formed across it, so "partial
#: differential equations (PDEs)" never yields "equations pdes".
_PHRASE_BREAK = re.compile(r"[()\[\]{},;:!?\"]|\.(?=\s|$)")


class PhraseAnalyzer:
    """Unigrams and bigrams that really occur in the text, for ``CountVectorizer``.

    scikit-learn drops stop words *before* forming n-grams, which invents phrases
    ("information across modalities" becomes "information modalities"). Here a bigram
    is two adjacent tokens of the text, neither of them a stop word, with no punctuation
    between them. With ``acronyms`` (:func:`topics.naming.acronyms.find_acronyms`), each
    acronym the corpus defines is written out first ("SSL" -> "self-supervised
    learning"), so terms and names use the words, not the letters.

    With ``remember=True`` each text's tokens are kept after the first time, so the
    several passes of naming topics and areas over the same texts tokenise each once
    (use a fresh analyzer per batch of work: the memory grows with the texts seen).
    """

    def __init__(self, token_pattern: str = TOKEN_PATTERN, acronyms: Mapping[str, str] | None = None, remember: bool = False):
        self.token_pattern = token_pattern
        self.acronyms = dict(acronyms or {})
        self.remember = remember
        self._regex = re.compile(token_pattern)
        self._acronym_words = word_pattern(self.acronyms)
        self._seen: dict[str, list[str]] = {}

    def __call__(self, text: str) -> list[str]:
        return self.grams(self.tokens(text))

    def tokens(self, text: str) -> list[str]:
        """The lower-case tokens of ``text``, stop words included, in order; an empty
        string stands where punctuation ends a phrase."""
        if self.remember:
            if text not in self._seen:
                self._seen[text] = self._tokens(text)
            return self._seen[text]
        return self._tokens(text)

    def _tokens(self, text: str) -> list[str]:
        if self.acronyms:
            text = expand_acronyms(text, self.acronyms, words=self._acronym_words)
        out: list[str] = []
        for segment in _PHRASE_BREAK.split(text.lower()):
            out.extend(self._regex.findall(segment))
            out.append("")
        return out

    @staticmethod
    def grams(tokens: Sequence[str]) -> list[str]:
        """Unigrams and adjacent bigrams of ``tokens`` without stop or one-letter words."""
        keep = [len(t) > 1 and t not in ENGLISH_STOP_WORDS for t in tokens]
        grams = [t for t, k in zip(tokens, keep) if k]
        grams += [f"{a} {b}" for a, b, ka, kb in zip(tokens, tokens[1:], keep, keep[1:]) if ka and kb]
        return grams

    def __getstate__(self) -> dict:
        return {"token_pattern": self.token_pattern, "acronyms": self.acronyms}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["token_pattern"], state.get("acronyms"))


def is_bad_word(word: str) -> bool:
    return word in ENGLISH_STOP_WORDS or word in GENERIC_TERMS or word.isdigit() or len(word) < 2


#: A word is a modifier in a corpus when at least this share of its uses run straight on
#: into another content word of the same phrase (:func:`modifier_words`)...
MODIFIER_SHARE = 0.9
#: ...and it is used at least this often (rarer words keep the spelling rule alone).
MODIFIER_MIN_USES = 5


def modifier_words(token_streams: Iterable[Sequence[str]]) -> frozenset[str]:
    """The words a corpus uses as modifiers: a word at least :data:`MODIFIER_SHARE` of
    whose (at least :data:`MODIFIER_MIN_USES`) uses are followed by another content word,
    with no punctuation between ("causal discovery", "adversarial attacks", "neural
    networks"). Such a word describes a field and names none alone, and a phrase ending
    in it is cut short ("graph neural"). The corpus says so itself, whatever the word's
    spelling: on the full ICLR lists "causal" runs on in 97 % of its uses, "adversarial"
    98 %, "bayesian" 98 %, "neural" 99 %, "visual" 96 %, against nouns such as "speech"
    70 %, "graph" 81 %, "preference" 88 %, "fairness" 41 % and "reasoning" 52 %.

    ``token_streams`` are :meth:`PhraseAnalyzer.tokens` lists (stop words kept, an empty
    string where punctuation ends a phrase).
    """
    uses: dict[str, int] = {}
    runs_on: dict[str, int] = {}
    for tokens in token_streams:
        for word, nxt in zip(tokens, list(tokens[1:]) + [""]):
            if not word or len(word) < 2 or word in ENGLISH_STOP_WORDS:
                continue
            uses[word] = uses.get(word, 0) + 1
            if nxt and len(nxt) > 1 and nxt not in ENGLISH_STOP_WORDS:
                runs_on[word] = runs_on.get(word, 0) + 1
    return frozenset(
        w for w, n in uses.items() if n >= MODIFIER_MIN_USES and runs_on.get(w, 0) >= MODIFIER_SHARE * n
    )


#: The one word a three-word name may hold between its nouns ("mixture of experts",
#: "chain of thought", "theory of mind"): Justeson & Katz's (1995) noun-preposition-noun
#: term pattern, with the preposition technical terms use almost only.
CONNECTOR = "of"


def connected_terms(token_streams: Iterable[Sequence[str]], acronyms: Mapping[str, str] | None = None) -> frozenset[str]:
    """The "X of Y" phrases (:data:`CONNECTOR`) a corpus writes as one term: hyphenated
    somewhere ("mixture-of-experts") or the definition of an acronym ("theory of mind
    (ToM)", ``acronyms`` as :func:`topics.naming.acronyms.find_acronyms` finds them). Each
    is given as its words' singulars (:func:`topics.text.singular`), with spaces.

    Authors join the words of a term, or abbreviate it, and not of a phrase such as "graphs
    of citations"; so only these "X of Y" phrases are name candidates.
    """
    def key(words: Sequence[str]) -> str | None:
        words = [w.lower() for w in words]
        if len(words) != 3 or words[1] != CONNECTOR or any(is_bad_word(w) for w in (words[0], words[2])):
            return None
        return " ".join(singular(w) for w in words)

    found = {key(definition.split()) for definition in (acronyms or {}).values()}
    for tokens in token_streams:
        found.update(key(t.split("-")) for t in tokens if f"-{CONNECTOR}-" in t)
    return frozenset(found - {None})


def _content_words(words: Sequence[str]) -> list[str]:
    """``words`` without the :data:`CONNECTOR` between the nouns of a three-word phrase."""
    return [w for i, w in enumerate(words) if not (len(words) == 3 and i == 1 and w == CONNECTOR)]


def is_name_candidate(term: str, modifiers: frozenset[str] = frozenset(), *, broad: bool = False) -> bool:
    """Whether ``term`` (lower-case, space-separated words, a :data:`CONNECTOR` allowed
    between the nouns of three) can name a topic; a phrase may not end in one of the
    corpus's ``modifiers`` (:func:`modifier_words`).

    With ``broad`` (an area's name), a word that only starts topics' names ("graph",
    "image", "text", "video", "language": :data:`NOT_ALONE_TERMS`) may be one: an area of
    topics named "image segmentation" and "image captioning" can be "image"."""
    words = term.split()
    if not words or len(words) > 3 or term.strip() in GENERIC_PHRASES:
        return False
    content = _content_words(words)
    if any(is_bad_word(w) for w in content) or (len(words) > 1 and all(w in HEAD_ONLY_TERMS for w in content)):
        return False  # "dataset distillation" and "representation learning" name fields; "learning model" does not
    if len(words) == 1 and words[0] in (HEAD_ONLY_TERMS if broad else NOT_ALONE_TERMS):
        return False
    last = words[-1]
    if len(words) > 1 and (last in modifiers or (last not in NOUN_EXCEPTIONS and ADJECTIVE_ENDING.search(last))):
        return False
    if len(set(words)) < len(words):
        return False
    if len(words) > 1 and last == "".join(p[0] for w in words[:-1] for p in w.split("-") if p):
        return False  # "out-of-distribution ood": a term followed by its own acronym
    return True



def is_phrase(term: str) -> bool:
    """Two or more words, or one hyphenated compound of three or more parts that does not
    end like an adjective ("mixture-of-experts", not "long-tailed")."""
    if len(term.split()) > 1:
        return True
    parts = term.split("-")
    return len(parts) >= 3 and not (ADJECTIVE_ENDING.search(parts[-1]) and parts[-1] not in NOUN_EXCEPTIONS)
