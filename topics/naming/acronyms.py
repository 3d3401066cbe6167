"""Acronyms and their definitions, found in the corpus itself.

Abstracts define the acronyms of their field: "self-supervised learning (SSL)",
"optimal transport (OT)", "mixture of experts (MoE)". :func:`find_acronyms` runs the
Schwartz & Hearst (2003) algorithm ("A simple algorithm for identifying abbreviation
definitions in biomedical text", the ``abbreviations`` package) over the documents and
keeps, per acronym, the definition the corpus uses most. :func:`expand_acronyms` writes
each acronym out in full, so that topic terms and names read "self-supervised learning"
where the abstracts write "SSL" -- and an acronym stays bare only where the corpus never
defines it.

Schwartz-Hearst stops at the shortest definition whose words start the acronym's
letters, so "self-supervised learning (SSL)" gives "supervised learning"; a definition
preceded by a hyphenated prefix ("self-") is extended to take it back.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections import Counter
from collections.abc import Iterable, Mapping

__all__ = ["REMEMBERED", "definition_counts", "document_definitions", "expand_acronyms", "find_acronyms", "word_pattern"]

logger = logging.getLogger(__name__)

#: An acronym: 2 to 10 characters, starting with a letter, at least two capitals
#: ("SSL", "MoE", "NeRF", "GPT-4" is left alone), optionally a plural "s".
_ACRONYM = re.compile(r"^(?=(?:.*[A-Z]){2})[A-Za-z][A-Za-z0-9]{1,9}$")


def _schwartz_hearst():
    """The ``abbreviations`` package's module, imported without its side effect.

    Importing it calls ``logging.basicConfig(level=INFO)``, which would give the root
    logger a handler and make every library's INFO messages print in the user's
    session; whatever that import added to the root logger is taken back.
    """
    import sys

    if "abbreviations.schwartz_hearst" in sys.modules:
        return sys.modules["abbreviations.schwartz_hearst"]
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    from abbreviations import schwartz_hearst

    for handler in root.handlers[:]:
        if handler not in handlers:
            root.removeHandler(handler)
    root.setLevel(level)
    return schwartz_hearst


def _clean_definition(definition: str) -> str:
    return re.sub(r"\s+", " ", definition.replace("\u2010", "-")).strip(" -").lower()


def find_acronyms(texts: Iterable[str], *, min_count: int = 1) -> dict[str, str]:
    """The corpus's acronyms and the definition it uses most for each.

    Parameters
    ----------
    texts
        Documents (abstracts); each is searched on its own
        (:func:`document_definitions`).
    min_count
        Keep an acronym only where its chosen definition occurs at least this often.

    Returns
    -------
    dict
        ``{acronym as written: definition in lower case}``, e.g. ``{"SSL":
        "self-supervised learning"}``. Acronyms without two capital letters (which are
        often ordinary words) and definitions of a single word are left out.
    """
    found: dict[str, Counter[str]] = {}
    for (acronym, definition), n in definition_counts(texts).items():
        found.setdefault(acronym, Counter())[definition] += n
    out = {}
    for acronym, counts in found.items():
        definition, count = max(counts.items(), key=lambda kv: (kv[1], len(kv[0]), kv[0]))
        if count >= min_count:
            out[acronym] = definition
    return out


def definition_counts(texts: Iterable[str]) -> Counter[tuple[str, str]]:
    """How many of ``texts`` make each definition, ``{(acronym as written, definition):
    texts}`` (:func:`document_definitions` of each). :func:`find_acronyms` keeps the most
    made definition of each acronym; :func:`topics.stats.rising.defined_acronyms` the ones
    most papers that define an acronym agree on; :func:`topics.themes.membership.acronym_meanings`
    what each short form means to the guided themes."""
    counts: Counter[tuple[str, str]] = Counter()
    for text in texts:
        counts.update(document_definitions(text))
    return counts


#: How many texts' definitions :func:`document_definitions` remembers (then it starts afresh).
REMEMBERED = 1 << 17
_remembered: dict[bytes, tuple[tuple[str, str], ...]] = {}


def document_definitions(text: str) -> list[tuple[str, str]]:
    """The acronyms one document defines, as ``(acronym as written, definition)`` pairs.

    Found by the Schwartz & Hearst (2003) algorithm, each definition with its hyphenated
    prefix, acronyms with at least two capitals, definitions of two or more words, in
    lower case, without choosing among definitions (:func:`find_acronyms` chooses;
    :mod:`topics.themes.membership` needs to know which papers define an acronym as what).

    Each text is searched once per process: the definitions of the last
    :data:`REMEMBERED` texts are kept under a digest of the text (not the text), so the
    fit's acronyms, the phrase index's own definitions
    (:class:`topics.naming.coverage.PhraseIndex`) and the rising phrases' acronyms
    (:mod:`topics.stats.rising`) of one report share one search.
    """
    text = str(text)
    if "(" not in text:
        return []
    key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    found = _remembered.get(key)
    if found is None:
        found = tuple(_search(text))
        if len(_remembered) >= REMEMBERED:
            _remembered.clear()
        _remembered[key] = found
    return list(found)


def _search(text: str) -> list[tuple[str, str]]:
    """:func:`document_definitions` of ``text``, searched."""
    schwartz_hearst = _schwartz_hearst()
    try:
        pairs = schwartz_hearst.extract_abbreviation_definition_pairs(doc_text=text.replace("\n", " "))
    except Exception as exc:  # the package raises bare errors on odd input; one abstract must not stop the rest
        logger.debug("acronym search failed on one document: %s", exc)
        return []
    out = []
    for acronym, definition in pairs.items():
        acronym = acronym.strip()
        singular = acronym[:-1] if acronym.endswith("s") and len(acronym) > 2 else acronym
        if not _ACRONYM.match(singular):
            continue
        definition = _clean_definition(_with_hyphen_prefix(text, definition))
        if len(definition.split()) < 2 and "-" not in definition:
            continue
        out.append((acronym, definition))
    return out


_PREFIX_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")


def _with_hyphen_prefix(text: str, definition: str) -> str:
    """"supervised learning" -> "self-supervised learning" where the text has the prefix:
    the run of hyphenated words (``([A-Za-z0-9]+-)+``) right before the first occurrence
    of ``definition`` that has one. Found with ``str.find`` and a walk back, not a
    regular expression compiled per definition (which cost more than the rest of the
    acronym search)."""
    i = text.find(definition)
    while i >= 0:
        k = i
        while k > 0 and text[k - 1] in _PREFIX_CHARS:
            k -= 1
        prefix = text[k:i].split("--")[-1].lstrip("-")
        if prefix.endswith("-") and len(prefix) > 1:
            return prefix + definition
        i = text.find(definition, i + 1)
    return definition


_EMPTY_BRACKETS = re.compile(r"\s*\(\s*\)")

#: A word that may be an acronym, whole (not part of a hyphenated compound).
_WORD = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]{1,10}(?![\w-])")
#: The same, with at least two capitals: every acronym :func:`find_acronyms` keeps has
#: them, and letting the regular expression skip all other words (most of a text) makes
#: the expansion about ten times faster than a Python call per word.
_CAPITALISED_WORD = re.compile(r"(?<![\w-])(?=[A-Za-z0-9]*[A-Z][A-Za-z0-9]*[A-Z])[A-Za-z][A-Za-z0-9]{1,10}(?![\w-])")


def word_pattern(acronyms: Mapping[str, str]) -> re.Pattern[str]:
    """The words :func:`expand_acronyms` looks up for ``acronyms``: only words with two or
    more capitals where every acronym has them (as all that :func:`find_acronyms` keeps
    do), else every word. Compute it once per mapping and pass it to each call."""
    return _CAPITALISED_WORD if all(sum(ch.isupper() for ch in key) >= 2 for key in acronyms) else _WORD


def expand_acronyms(text: str, acronyms: Mapping[str, str], *, words: re.Pattern[str] | None = None) -> str:
    """``text`` with each acronym of ``acronyms`` (and its plural) replaced by its definition.

    Matching is case-sensitive and on whole words, so "OT" is expanded and "ot" is not.
    A definition directly followed by its own acronym in brackets is written once.
    ``words`` is :func:`word_pattern` of ``acronyms``, computed here when not given.
    """
    if not acronyms:
        return text

    def replace(match: re.Match[str]) -> str:
        word = match.group(0)
        definition = acronyms.get(word)
        if definition is None and word.endswith("s") and word[:-1] in acronyms:
            singular = acronyms[word[:-1]]
            definition = singular if singular.endswith("s") else singular + "s"
        if definition is None and word + "s" in acronyms:  # only the plural was defined: "LLMs"
            plural = acronyms[word + "s"]
            definition = plural[:-1] if plural.endswith("s") and not plural.endswith("ss") else plural
        if definition is None:
            return word
        # a window, not the whole text, before and after the word: copying the text for
        # each word made this quadratic in the text's length
        window = 2 * len(definition) + 16
        before = match.string[max(0, match.start() - window) : match.start()].rstrip()
        after = match.string[match.end() : match.end() + 16].lstrip()
        if before.endswith("(") and after.startswith(")") and before[:-1].rstrip().lower().rstrip("s").endswith(definition.rstrip("s")):
            return ""  # "optimal transport (OT)": the definition is already there
        return definition

    words = words if words is not None else word_pattern(acronyms)
    return _EMPTY_BRACKETS.sub("", words.sub(replace, text))
