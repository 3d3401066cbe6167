"""Name coverage: how many of a group's papers use its name.

A paper *uses* a name when its text holds the name's words in order, compared the way a
reader would: case, accents, hyphens ("self-supervised" and "self supervised") and
plurals (:func:`topics.text.singular`) do not matter, and an acronym the corpus defines
counts as its definition ("LoRA" in a paper uses "low-rank adaptation"), unless that paper
defines the acronym otherwise (a paper's own "SSL (semi-supervised learning)" does not
use "self-supervised learning"). A name is not read across punctuation that ends a
phrase ("equations (PDEs)" does not hold "equations pdes").

:class:`PhraseIndex` reads every text once and answers, for any phrase, which papers use
it; :func:`coverage` is the share of a group's papers that do. A compound name
("long-tailed recognition / deep clustering", :mod:`topics.naming.labels`) is used by a
paper that uses either part.
"""

from __future__ import annotations

import functools
import re
from collections import ChainMap
from collections.abc import Mapping, Sequence

import numpy as np

from topics.naming.acronyms import document_definitions, expand_acronyms, word_pattern

_ANY_WORD = word_pattern({"x": ""})  # the pattern for acronyms that are not all capitals
from topics.text import fold_accents, singular

__all__ = ["COMPOUND", "PhraseIndex", "coverage", "name_parts", "name_precision", "phrase_key"]

#: What joins the parts of a compound name.
COMPOUND = " / "

_BREAK = re.compile(r"[()\[\]{},;:!?\"]|\.(?=\s|$)")


_NOT_WORD = re.compile(r"[^a-z0-9-]+")


def phrase_key(phrase: str) -> str:
    """The form in which a phrase is looked up: lower case, accents folded, characters
    other than letters, digits and inner hyphens one space, each word
    :func:`topics.text.singular` ("Self-Supervised Models" -> "self-supervised model").

    Hyphenated words stay whole, so "supervised learning" is not found inside
    "self-supervised learning"; :meth:`PhraseIndex.uses` looks a name up with and without
    hyphens between its words, so "self supervised learning" in a text uses
    "self-supervised learning" and "DIFFUSION-MODELS" uses "diffusion models".
    """
    words = (w.strip("-") for w in _NOT_WORD.sub(" ", fold_accents(phrase).lower()).split())
    return " ".join(singular(w) for w in words if w)


@functools.lru_cache(maxsize=1 << 17)
def _word_key(word: str) -> str:
    return phrase_key(word)


def _words_key(text: str) -> str:
    """:func:`phrase_key` of ``text``, each distinct whitespace-separated word keyed once
    (the same key: no character it rewrites joins two words; about three times faster
    on whole abstracts)."""
    return " ".join(k for k in map(_word_key, text.split()) if k)


def name_parts(name: str) -> list[str]:
    """The parts of a compound name, or the name alone."""
    return [p.strip() for p in name.split(COMPOUND) if p.strip()]


class PhraseIndex:
    """Which of ``texts`` use a phrase, for any phrase.

    Each text is read once: acronyms written out (the text's own definitions first, then
    ``acronyms``, the corpus's), split where punctuation ends a phrase, and kept as
    :func:`phrase_key` words. An index of words to texts narrows each look-up to the
    texts that hold the phrase's rarest word.
    """

    def __init__(self, texts: Sequence[str], acronyms: Mapping[str, str] | None = None):
        self.acronyms = dict(acronyms or {})
        self._words = word_pattern(self.acronyms) if self.acronyms else None
        self._docs: list[str] = []
        postings: dict[str, list[int]] = {}
        for i, text in enumerate(texts):
            doc = self._read(text, own=True)
            self._docs.append(f" {doc} ")
            for word in set(doc.split()):
                postings.setdefault(word, []).append(i)
        self._postings = {w: np.asarray(ids, dtype=np.int64) for w, ids in postings.items()}
        self._cache: dict[str, np.ndarray] = {}
        self._names: dict[str, np.ndarray] = {}
        self.n_docs = len(self._docs)

    def _read(self, text: str, *, own: bool = False) -> str:
        """``text`` as the index keeps it: acronyms written out, phrases split at punctuation."""
        if self.acronyms:
            defined = dict(document_definitions(text)) if own and "(" in text else {}
            mapping = ChainMap(defined, self.acronyms) if defined else self.acronyms
            words = self._words if not defined or self._words is not _ANY_WORD else word_pattern(mapping)
            text = expand_acronyms(text, mapping, words=words)
        return " | ".join(k for k in (_words_key(s) for s in _BREAK.split(text)) if k)

    def uses(self, name: str) -> np.ndarray:
        """Boolean array: which texts use ``name`` (either part of a compound name)."""
        if name in self._names:
            return self._names[name]
        out = np.zeros(self.n_docs, dtype=bool)
        for part in name_parts(name):
            for key in self._read(part).split(" | "):  # "ReLU networks" reads as the texts do
                for variant in _spellings(key):
                    out |= self._uses(variant)
        self._names[name] = out
        return out

    def _uses(self, key: str) -> np.ndarray:
        if key in self._cache:
            return self._cache[key]
        out = np.zeros(self.n_docs, dtype=bool)
        words = key.split()
        if words:
            lists = [self._postings.get(w) for w in set(words)]
            if all(p is not None for p in lists):
                rarest = min(lists, key=len)
                needle = f" {key} "
                hits = [i for i in rarest.tolist() if needle in self._docs[i]]
                out[hits] = True
        self._cache[key] = out
        return out


def _spellings(key: str) -> list[str]:
    """``key`` with each pair of adjacent words joined by a space or by a hyphen ("self
    supervised learning", "self-supervised learning", ...): a text's hyphenated word is
    matched whole or not at all."""
    words = key.replace("-", " ").split()
    out = [words[0]] if words else []
    for word in words[1:]:
        out = [f"{head}{glue}{word}" for head in out for glue in (" ", "-")]
    return out


def coverage(index: PhraseIndex, name: str, members: np.ndarray) -> float:
    """The share of the papers ``members`` (a boolean mask or positions) that use ``name``."""
    members = np.asarray(members)
    used = index.uses(name)[members]
    return float(used.mean()) if used.size else 0.0


def name_precision(index: PhraseIndex, name: str, members: np.ndarray) -> float:
    """The share of the papers that use ``name`` that are among ``members`` (a boolean
    mask or positions): 1.0 for a name no other paper uses, 0.0 for one nobody uses."""
    used = index.uses(name)
    total = int(used.sum())
    return float(used[np.asarray(members)].sum()) / total if total else 0.0
