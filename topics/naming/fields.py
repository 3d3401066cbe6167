"""What authors call a group's field: author keywords predicted from the group's words.

Many fields are named by words their abstracts rarely write: the papers of a vision area
write "image", "object" and "feature", and their authors give "computer vision" as a
keyword. :class:`KeywordProfiles` holds, for each author keyword that enough papers of a
reference corpus chose, a small sparse *profile*: a logistic regression from the words
and two-word phrases a paper's title and abstract write (:func:`text_terms`) to the
chance that its authors choose the keyword. Over a group of papers, the mean of those
chances is the share of its papers expected to give the keyword
(:func:`expected_keywords`); the keyword a group's papers are expected to give most,
and the other groups least, names it (:mod:`topics.naming.labels`).

The package ships profiles of the 14,655 papers with author keywords in
``../shared/data/bigcorpus.parquet`` (``topics/data/keyword_profiles.tsv.gz``, rebuilt by
``benchmarks/keyword_profiles.py``); :func:`reference` reads them once, and the
environment variable :data:`ENVIRON` points it at others (profiles that leave out the
venue whose names are checked against its keywords). Keywords are compared as
:func:`topics.naming.coverage.phrase_key` writes them.
"""

from __future__ import annotations

import dataclasses
import gzip
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from topics.naming.coverage import PhraseIndex, coverage, name_parts, phrase_key
from topics.naming.labels import FLOOR, HOLD, Name, is_broad, is_vague, name_groups, named
from topics.naming.keyphrases import reference as keyphraseness
from topics.naming.terms import PhraseAnalyzer

__all__ = [
    "ENVIRON", "KEYWORD_BETA", "MIN_EXPECTED", "MIN_WORD_KEYPHRASENESS", "RESCUE", "TRANSFER", "KeywordProfiles", "expected_keywords", "field_names", "name_fields", "reference",
    "spellings", "text_terms", "weak_name", "written_form",
]

#: How much more a keyword's share of the group counts than the group's share of its
#: expected choosers (F-beta's beta): measured on ICLR 2023, 1 and 2 give the same
#: topic names but one (benchmarks/README.md, "Names researchers use").
KEYWORD_BETA = 1.0

#: A keyword names a group only where at least this share of the group's papers are
#: expected to choose it (:func:`expected_keywords`).
MIN_EXPECTED = 0.05

#: A keyword names a group only where at least this share of the papers that write it
#: chose it as a keyword (:mod:`topics.naming.keyphrases`): "fairness" (0.23), not
#: "classification" (0.04), "neural network" (0.07) or "machine learning" (0.09).
MIN_WORD_KEYPHRASENESS = 0.1

#: A keyword that fewer than :data:`topics.naming.labels.FLOOR` of a group's papers write
#: may still name it, marked *transferred* ("what related papers call it"), where at
#: least this share of its papers are expected to choose it.
TRANSFER = 0.2

#: A group that would otherwise be named "A / B" or by a vague or broad word
#: (:func:`weak_name`) takes the keyword that fits it best (:func:`field_names`) where at
#: least this share of its papers are expected to choose it, marked transferred where
#: they do not write it: one covering name for a glued one, a field for a word.
RESCUE = 0.05

#: The environment variable that points :func:`reference` at other profiles (a file
#: :meth:`KeywordProfiles.write` wrote).
ENVIRON = "TOPICS_KEYWORD_PROFILES"


def text_terms(text: str) -> set[str]:
    """The words and two-word phrases of ``text`` as :func:`phrase_key` writes them: what
    a profile reads."""
    words = phrase_key(text).split()
    return set(words) | {f"{a} {b}" for a, b in zip(words, words[1:])}


@dataclass(frozen=True)
class KeywordProfiles:
    """Per keyword (a row), the weights of the terms that predict it and an intercept."""

    keywords: tuple[str, ...]
    terms: tuple[str, ...]
    weights: sp.csr_matrix  # keywords x terms
    intercept: np.ndarray
    papers: np.ndarray  # papers of the reference corpus that chose each keyword

    def features(self, texts: Sequence[str]) -> sp.csr_matrix:
        """Which profile terms each text writes (texts x terms, 0/1)."""
        column = {t: j for j, t in enumerate(self.terms)}
        rows, cols = [], []
        for i, text in enumerate(texts):
            js = [column[t] for t in text_terms(text) if t in column]
            rows += [i] * len(js)
            cols += js
        data = np.ones(len(rows), dtype=np.float32)
        return sp.csr_matrix((data, (rows, cols)), shape=(len(texts), len(self.terms)))

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        """The chance that each text's authors choose each keyword (texts x keywords)."""
        logits = np.asarray((self.features(texts) @ self.weights.T).todense()) + self.intercept
        return 1.0 / (1.0 + np.exp(-logits))

    def write(self, path: str | Path) -> None:
        """A gzipped table, one keyword a line: keyword, papers, intercept, then
        ``term=weight`` pairs (weights to 4 significant digits)."""
        lines = [f"# keywords\t{len(self.keywords)}\n"]
        for k, keyword in enumerate(self.keywords):
            row = self.weights.getrow(k)
            pairs = sorted(zip(row.indices.tolist(), row.data.tolist()), key=lambda p: (-abs(p[1]), p[0]))
            cells = "\t".join(f"{self.terms[j]}={w:.4g}" for j, w in pairs)
            lines.append(f"{keyword}\t{int(self.papers[k])}\t{self.intercept[k]:.4g}\t{cells}\n")
        with gzip.GzipFile(path, "wb", mtime=0) as out:
            out.write("".join(lines).encode("utf-8"))

    @classmethod
    def read(cls, path: str | Path | Traversable) -> KeywordProfiles:
        """Read profiles that :meth:`write` wrote."""
        source = Path(path) if isinstance(path, str) else path
        keywords, papers, intercept, rows, cols, data = [], [], [], [], [], []
        column: dict[str, int] = {}
        with source.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
            next(lines)
            for k, line in enumerate(lines):
                keyword, n, b, *cells = line.rstrip("\n").split("\t")
                keywords.append(keyword)
                papers.append(int(n))
                intercept.append(float(b))
                for cell in cells:
                    term, w = cell.rsplit("=", 1)
                    rows.append(k)
                    cols.append(column.setdefault(term, len(column)))
                    data.append(float(w))
        weights = sp.csr_matrix((np.asarray(data, dtype=np.float32), (rows, cols)), shape=(len(keywords), len(column)))
        return cls(tuple(keywords), tuple(column), weights, np.asarray(intercept), np.asarray(papers))


def expected_keywords(chances: np.ndarray, labels: Sequence[int], groups: Sequence[int]) -> np.ndarray:
    """The expected number of each group's papers to choose each keyword (groups x
    keywords), from :meth:`KeywordProfiles.predict`'s ``chances``; ``labels`` are the
    papers' groups."""
    labels = np.asarray(labels)
    return np.vstack([chances[labels == g].sum(axis=0) for g in groups]) if len(groups) else np.zeros((0, chances.shape[1]))


def reference() -> KeywordProfiles:
    """The profiles names are chosen by: the file :data:`ENVIRON` names, else the ones the
    package ships; each file is read once."""
    return _read(os.environ.get(ENVIRON, ""))


@cache
def _read(path: str) -> KeywordProfiles:
    if not path:
        return KeywordProfiles.read(files("topics") / "data" / "keyword_profiles.tsv.gz")
    if not Path(path).is_file():
        raise FileNotFoundError(f"{ENVIRON}={path}: no such file (profiles written by topics.naming.fields.KeywordProfiles.write)")
    return KeywordProfiles.read(path)


def field_names(
    chances: np.ndarray, labels: Sequence[int], groups: Sequence[int], index: PhraseIndex, profiles: KeywordProfiles, *,
    forbidden: dict[int, set[str]] | None = None, transfer: float | Sequence[float] = TRANSFER, beta: float = KEYWORD_BETA,
    score: np.ndarray | None = None,
) -> dict[int, Name]:
    """The author keyword that names each of ``groups``, where one does.

    Each keyword is scored for a group by the F-measure (beta :data:`KEYWORD_BETA`) of the share of the group's papers expected to
    choose it (:func:`expected_keywords`, at least :data:`MIN_EXPECTED`) and the group's
    share of the corpus's expected choosers. A keyword holds for a group where at least
    :data:`topics.naming.labels.FLOOR` of its papers, and two, write it (``index``), or, marked
    ``transferred``, where at least ``transfer`` of them (one bar, or one per group) are expected to choose it.
    Vague and broad words (:func:`topics.naming.labels.is_vague`) name nothing. The best
    (group, keyword) pairs are taken first, one keyword per group and one group per
    keyword; ``forbidden`` lists, per group, keywords it may not take. ``score`` (groups x
    keywords) orders the pairs instead of the F-measure, under the same bars (another
    signal measured in ``benchmarks/names_ranker.py``).
    """
    labels = np.asarray(labels)
    sizes = np.array([(labels == g).sum() for g in groups], dtype=float)
    expected = expected_keywords(chances, labels, groups)
    recall = expected / np.maximum(sizes, 1)[:, None]
    precision = expected / np.maximum(chances.sum(axis=0), 1e-12)
    b2 = beta * beta
    fit = (1 + b2) * recall * precision / np.maximum(b2 * precision + recall, 1e-12)
    fit[recall < MIN_EXPECTED] = 0
    bars = np.broadcast_to(np.asarray(transfer, dtype=float), (len(groups),))
    rank = fit if score is None else score
    pairs = sorted(zip(*np.nonzero(fit)), key=lambda gk: (-rank[gk], gk))
    out: dict[int, Name] = {}
    taken: set[str] = set()
    for g, k in pairs:
        group, keyword = groups[g], profiles.keywords[k]
        if group in out or keyword in taken or keyword in (forbidden or {}).get(group, ()) or not _nameable(keyword):
            continue
        name = named(index, keyword, labels == group, keyword=True)
        if name.transferred and recall[g, k] < bars[g]:
            continue
        out[group] = name
        taken.add(keyword)
    return out


def _nameable(keyword: str, word_bar: float | None = None) -> bool:
    """Whether an author keyword can name a group: not vague by the counts, not a broad
    word, not two joined ("knowledge representation and reasoning": IJCAI's track names),
    and one that at least :data:`MIN_WORD_KEYPHRASENESS` of the papers writing it choose
    ("fairness", not "classification"; "computer vision", not "neural network")."""
    if " and " in f" {keyword} " or is_vague(keyword) or is_broad(keyword):
        return False
    chosen = keyphraseness()(keyword)
    return chosen is None or chosen >= (MIN_WORD_KEYPHRASENESS if word_bar is None else word_bar)


def name_fields(
    terms, labels: Sequence[int], topic_areas_: dict[int, int], texts: Sequence[str], *,
    analyzer: PhraseAnalyzer | None = None, index: PhraseIndex | None = None, profiles: KeywordProfiles | None = None,
    transfer: float = TRANSFER, keep_held: bool = True, beta: float = KEYWORD_BETA, words: tuple[dict, dict] | None = None,
    rescue: float | None = RESCUE,
) -> tuple[dict[int, Name], dict[int, Name]]:
    """Topic and area names: what authors call the group's field (:func:`field_names`),
    else the name the group's own words give it (:func:`topics.naming.labels.name_groups`).

    Areas are named first; a topic may not take its area's keyword unless it holds most
    of the area's papers. With ``keep_held`` a group keeps a phrase of its own words that
    half its papers write ("long-tailed recognition", where no author keyword is as
    specific); ``transfer`` is :func:`field_names`'. A group left with a glued, vague or
    broad name (:func:`weak_name`) takes the best keyword no other group took where
    ``rescue`` of its papers are expected to choose it (:data:`RESCUE`; ``None``: never).
    Returns ``(topic_names, area_names)``, each a
    :class:`topics.naming.labels.Name` with its coverage, ``mixed`` and ``transferred``.
    """
    analyzer = analyzer or PhraseAnalyzer()
    index = index or PhraseIndex(texts, analyzer.acronyms)
    profiles = profiles or reference()
    labels = np.asarray(labels)
    topic_words, area_words = words or name_groups(terms, labels, topic_areas_, texts, analyzer=analyzer, index=index)
    chances = profiles.predict(texts)
    doc_areas = np.array([topic_areas_.get(int(t), -1) for t in labels], dtype=int)
    areas = field_names(chances, doc_areas, sorted(a for a in area_words if a != -1), index, profiles, transfer=transfer, beta=beta)
    forbidden = _area_fields(areas, topic_areas_, labels, doc_areas)
    topics = field_names(chances, labels, sorted(t for t in topic_words if t != -1), index, profiles, forbidden=forbidden, transfer=transfer, beta=beta)
    if keep_held:  # a phrase of the group's own that half its papers write stays
        topics = {t: n for t, n in topics.items() if not _held(topic_words[t], labels == t, index)}
        areas = {a: n for a, n in areas.items() if not _held(area_words[a], doc_areas == a, index)}
    if rescue is not None:
        areas |= _rescued(areas, area_words, chances, doc_areas, index, profiles, forbidden={}, transfer=rescue, beta=beta)
        forbidden = _area_fields(areas, topic_areas_, labels, doc_areas)
        topics |= _rescued(topics, topic_words, chances, labels, index, profiles, forbidden=forbidden, transfer=rescue, beta=beta)
    return _with_words(topics, topic_words, labels, index, texts), _with_words(areas, area_words, doc_areas, index, texts)


def _area_fields(areas: dict[int, Name], topic_areas_: dict[int, int], labels: np.ndarray, doc_areas: np.ndarray) -> dict[int, set[str]]:
    """Per topic, its area's keyword where the topic holds at most half of the area: one it may not take."""
    return {
        t: {areas[a].name} for t, a in topic_areas_.items()
        if a in areas and (labels[doc_areas == a] == t).mean() <= 0.5
    }


def weak_name(name: str) -> bool:
    """Whether ``name`` glues two themes ("A / B"), or is a word the keyword counts call
    vague ("layer", "complexity": :func:`topics.naming.labels.is_vague`), a broad word
    ("graph", "image": :func:`topics.naming.labels.is_broad`) or one that fewer than
    :data:`MIN_WORD_KEYPHRASENESS` of the papers writing it choose as a keyword
    ("classification", "gradient descent"): the bar an author keyword must pass to name
    a group (:func:`_nameable`)."""
    parts = name_parts(name)
    return len(parts) > 1 or any(is_vague(p) or (" " not in p and is_broad(p)) or not _nameable(phrase_key(p)) for p in parts)


def _rescued(
    fields: dict[int, Name], words: dict[int, str], chances: np.ndarray, labels: np.ndarray, index: PhraseIndex,
    profiles: KeywordProfiles, *, forbidden: dict[int, set[str]], transfer: float, beta: float,
) -> dict[int, Name]:
    """The groups of ``words`` that no keyword named and whose own name is weak
    (:func:`weak_name`), renamed: a glued name by its part that at least
    :data:`topics.naming.labels.FLOOR` of the group's papers write, where that part is
    neither weak nor a phrase authors seldom choose as a keyword (:func:`_nameable`); else
    by the keyword that fits the group best among those no other group took, where
    ``transfer`` of its papers, and one, are expected to choose it. Groups neither fits
    are left out."""
    weak = sorted(g for g, name in words.items() if g != -1 and g not in fields and not name.startswith("outliers") and weak_name(name))
    if not weak:
        return {}
    keys = {g: {phrase_key(p) for p in name_parts(name)} for g, name in words.items() if g not in fields}
    taken = {n.name for n in fields.values()}
    out: dict[int, Name] = {}
    for g in weak:  # "diffusion models / variational autoencoders": the part a quarter of its papers write
        others = taken.union(*(k for h, k in keys.items() if h != g))
        parts = [p for p in name_parts(words[g]) if not weak_name(p) and _nameable(phrase_key(p)) and phrase_key(p) not in others]
        if len(keys[g]) > 1 and parts:
            best = max(parts, key=lambda p: (coverage(index, p, labels == g), p))
            if coverage(index, best, labels == g) >= FLOOR:
                out[g] = named(index, best, labels == g)
                taken.add(phrase_key(best))
    rest = [g for g in weak if g not in out]
    taken = taken.union(*(k for h, k in keys.items() if h not in out)) | {phrase_key(n.name) for n in out.values()}
    banned = {g: taken | forbidden.get(g, set()) for g in rest}
    bars = [max(transfer, 1 / max(int((labels == g).sum()), 1)) for g in rest]  # and one paper expected to choose it
    return out | field_names(chances, labels, rest, index, profiles, forbidden=banned, transfer=bars, beta=beta)


def _held(name: str, members: np.ndarray, index: PhraseIndex) -> bool:
    return " " in name and len(name_parts(name)) == 1 and coverage(index, name, members) >= HOLD


def written_form(keyword: str, texts: Sequence[str], spelling: str | None = None) -> str:
    """``keyword`` (a :func:`topics.naming.coverage.phrase_key`, singular) as ``texts``
    write it more often: "graph neural networks" where the plural is the commoner. Where
    ``texts`` write it in neither form (a transferred keyword), its authors' ``spelling``
    (:func:`spellings`): "AI ethics", not the key "ai ethic"; where they do, the texts'
    number in the spelling's capitals ("CLIP", not "clip")."""
    if not keyword or not keyword[-1].isalpha():
        return keyword
    one = re.compile(rf"\b{re.escape(keyword)}\b", re.IGNORECASE)
    many = re.compile(rf"\b{re.escape(keyword)}s\b", re.IGNORECASE)
    n_one = sum(len(one.findall(t)) for t in texts)
    n_many = 0 if keyword.endswith("s") else sum(len(many.findall(t)) for t in texts)
    if spelling and not n_one and not n_many:
        return spelling
    form = f"{keyword}s" if n_many > n_one else keyword
    return spelling if spelling and spelling.lower() == form else form  # "CLIP", "NeRF": the authors' capitals


def spellings() -> dict[str, str]:
    """Each keyword of the shipped profiles -> the spelling its authors write most often
    (``topics/data/keyword_spellings.tsv.gz``, written by ``benchmarks/keyword_profiles.py
    --spellings``); read once."""
    return dict(_spellings())


@cache
def _spellings() -> tuple[tuple[str, str], ...]:
    with (files("topics") / "data" / "keyword_spellings.tsv.gz").open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
        return tuple(tuple(line.rstrip("\n").split("\t", 1)) for line in lines if "\t" in line)


def _with_words(fields: dict[int, Name], words: dict[int, str], labels: np.ndarray, index: PhraseIndex, texts) -> dict[int, Name]:
    out = {}
    spelled = spellings() if fields else {}
    for g, name in words.items():
        if g in fields:
            out[g] = dataclasses.replace(fields[g], name=written_form(fields[g].name, texts, spelled.get(fields[g].name)))
        else:
            out[g] = named(index, name, labels == g)
    return out
