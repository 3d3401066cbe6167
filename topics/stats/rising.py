"""Phrases whose share of papers rises in the latest year.

A new year's report should say what authors started to write about, not only which
topics grew: a new method ("flow matching", "test-time scaling") lives inside an old
topic and moves its share little. :func:`rising_phrases` counts, for every phrase of the
package's vocabulary (:class:`topics.naming.terms.PhraseAnalyzer`: words and two-word
phrases of titles and abstracts, and the authors' own keywords where a corpus has them),
how many papers of the latest year and of the earlier years use it, and keeps those whose
share rose beyond chance:

* **test**: one-sided Fisher's exact test of the phrase's papers in the latest year
  against the earlier years (the hypergeometric tail: given how many papers use the
  phrase at all, are there more in the latest year than its size explains?), with
  Benjamini-Hochberg false-discovery control over every phrase tested
  (:func:`phrase_tests`);
* **which phrases are tested**: those that at least ``min_count`` papers use, all years
  together. That count does not depend on which papers are of the latest year, so
  under the null the choice is independent of the test (independent filtering,
  Bourgon, Gentleman & Huber 2010); a floor on the latest year's count instead would
  keep just the phrases the latest year happened to favour, and with the years
  permuted on the full ICLR lists it discovered some phrase in 6.0 % of null corpora
  against the promised 5 %, this rule in 2.5 % (``benchmarks/rising_null.py``). A test
  can only reject where at least ``min_count`` papers of the latest year use the
  phrase (a handful of papers make no trend; the p-value is 1 below that), so a listed
  phrase always has them;
* **Tarone's screen**: a phrase of few papers cannot pass however they fall: its least
  attainable p-value, all of its papers in the latest year, is fixed by the counts
  before the years are looked at. Such tests are left out before Benjamini-Hochberg
  (:func:`topics.stats.trends.screened_benjamini_hochberg`, Gilbert 2005), so the
  many rare phrases the total-count floor lets in do not raise the bar for the rest;
* **ranking**: by the ratio of the phrase's share in the latest year to its share before
  (each smoothed by half a paper), so that a phrase that barely existed before and is
  now common comes first, ahead of a common phrase that rose a little;
* **one item per acronym**: a phrase and the acronym its papers define for it
  ("vision transformers (ViTs)") are one item (:func:`merge_acronyms`), not two that
  each hold part of its papers;
* **what is listed**: phrases of two or more words, hyphenated compounds and acronyms
  with their phrase, not single words. Checked against the keywords later authors chose
  (``benchmarks/emerging_keywords.py``), the single words that rose were mostly words
  whose share follows fashion without naming a line of work ("alignment", "frontier",
  "transformer", "prompt", "diffusion" beside "diffusion models") or a model's name
  ("bert", "qwen2"); the new lines of work a researcher looks for ("flow matching",
  "test-time scaling", "vision-language-action models") are phrases. Single words are
  still tested, so the false-discovery control covers them;
* **one phrase per idea**: a phrase held inside a longer rising phrase that most of its
  latest-year papers also use ("splatting" in "gaussian splatting") is dropped for the
  longer one.

Each phrase comes with the topics it lives in: the topics of most of its latest-year
papers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from topics.naming.acronyms import definition_counts, document_definitions
from topics.naming.coverage import PhraseIndex, phrase_key
from topics.naming.keyphrases import reference
from topics.naming.terms import PhraseAnalyzer, is_name_candidate
from topics.stats.trends import newcombe_diff_ci, screened_benjamini_hochberg

__all__ = [
    "KEYPHRASE_LIKE", "MIN_COUNT", "RISING_COLUMNS", "defined_acronyms", "is_single_word", "keyword_phrases", "merge_acronyms",
    "nested_phrases", "paper_phrases", "phrase_tests", "rising_phrases",
]

#: The fewest papers (all years together) that use a phrase for it to be tested, and of
#: the latest year for it to be listed: :func:`rising_phrases`' default ``min_count``.
MIN_COUNT = 5

#: The least keyphraseness (:mod:`topics.naming.keyphrases`) of a phrase that
#: :func:`paper_phrases` keeps, where the counts know it.
KEYPHRASE_LIKE = 0.01

#: The columns of :func:`rising_phrases`.
RISING_COLUMNS = [
    "phrase", "n_latest", "n_before", "share_latest", "share_before", "ratio", "low", "high", "p", "q", "topics",
]


def keyword_phrases(keywords: object) -> list[str]:
    """A paper's author keywords ("a; b, c") as lower-case phrases, empty ones dropped."""
    if keywords is None or (isinstance(keywords, float) and np.isnan(keywords)):
        return []
    parts = str(keywords).replace(",", ";").split(";")
    return [" ".join(p.lower().split()) for p in parts if p.strip() and p.strip() != "[]"]


def paper_phrases(
    texts: Sequence[str], keywords: Sequence | None = None, *, analyzer: PhraseAnalyzer | None = None,
    min_keyphraseness: float | None = None, acronyms: bool = True,
) -> list[set[str]]:
    """The set of phrases each paper uses: its name candidates among the words and
    two-word phrases of its text (:func:`topics.naming.terms.is_name_candidate`), and its
    author keywords where ``keywords`` is given.

    Spellings of one term ("prompt", "prompts") count as one, written as the corpus most
    often writes it (:func:`topics.naming.coverage.phrase_key`). Terms that authors write
    everywhere and never choose as keywords (:mod:`topics.naming.keyphrases`: "learning",
    "data") are left out: counted on other papers than these, that filter is independent
    of the years, so it removes tests that could not name a field without weakening the
    false-discovery control over the rest (independent filtering, Bourgon, Gentleman &
    Huber 2010). A phrase is kept where the counts do not know it (a new name such as
    "whisper" is written too rarely before), or where authors choose it as a keyword in
    at least ``min_keyphraseness`` of the papers that write it (default
    :data:`KEYPHRASE_LIKE`).

    With ``acronyms`` (the default), a phrase and the acronym the papers define for it
    are one item, "vision transformers (ViT)" (:func:`merge_acronyms`).
    """
    analyzer = analyzer or PhraseAnalyzer()
    vague = reference()
    grams_of = [set(analyzer.grams(analyzer.tokens(str(text)))) for text in texts]
    candidates = {g for g in set().union(*grams_of) if is_name_candidate(g)}  # each distinct gram judged once
    raw = [grams & candidates for grams in grams_of]
    if keywords is not None:
        raw = [grams | set(keyword_phrases(keywords[i])) for i, grams in enumerate(raw)]
    papers = Counter()  # papers per spelling
    for grams in raw:
        papers.update(grams)
    key_of = {g: phrase_key(g) for g in papers}
    written: dict[str, str] = {}  # per key, the spelling most papers use (the first in order of a tie)
    for g, n in papers.items():
        key = key_of[g]
        if key and (key not in written or (-n, g) < (-papers[written[key]], written[key])):
            written[key] = g
    least = KEYPHRASE_LIKE if min_keyphraseness is None else float(min_keyphraseness)
    kept = {key: form for key, form in written.items() if not vague.rejects(form) and ((k := vague(form)) is None or k >= least)}
    out = [{kept[key_of[g]] for g in grams if key_of[g] in kept} for grams in raw]
    return merge_acronyms(texts, out, raw, keys=key_of) if acronyms else out


def defined_acronyms(texts: Sequence[str], *, min_papers: int = 3) -> dict[str, str]:
    """The acronyms ``texts`` define for one phrase each, ``{acronym: phrase}`` as most
    of the defining papers write them (``{"ViTs": "vision transformers"}``).

    The definitions are those :func:`topics.naming.acronyms.find_acronyms` chooses from
    (:func:`topics.naming.acronyms.definition_counts`: Schwartz & Hearst 2003, each text
    searched once per process), with a stricter rule on top: an acronym is kept where at
    least ``min_papers`` papers define it as the same phrase (compared as
    :func:`topics.naming.coverage.phrase_key` writes them, so "ViT" and "ViTs" are one
    acronym) and more than half of the papers that define it do so (one meaning in this
    corpus); where several acronyms stand for one phrase, the one most papers define.
    A definition one paper makes up ("models struggle (MS)") is never kept.
    """
    counts: Counter = Counter()  # (acronym key, phrase key) -> papers
    spelled: dict[tuple[str, str], Counter] = {}
    for (acronym, definition), n in definition_counts(texts).items():
        pair = (phrase_key(acronym), phrase_key(definition))
        if pair[0] and 2 <= len(pair[1].split()) <= 4:
            counts[pair] += n
            spelled.setdefault(pair, Counter())[(acronym, definition)] += n
    per_acronym: Counter = Counter()
    for (acronym, _), n in counts.items():
        per_acronym[acronym] += n
    best: dict[str, tuple[int, tuple[str, str]]] = {}  # per phrase, its most defined acronym
    for pair, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if n >= min_papers and 2 * n > per_acronym[pair[0]] and pair[1] not in best:
            best[pair[1]] = (n, pair)
    out = {}
    for _, pair in best.values():
        (acronym, _), _ = max(spelled[pair].items(), key=lambda kv: (kv[1], kv[0][0]))
        definition = max(((d, n) for (_, d), n in spelled[pair].items()), key=lambda kv: (kv[1], kv[0]))[0]
        out[acronym] = definition
    return out


def merge_acronyms(texts: Sequence[str], phrases: Sequence[set[str]], raw: Sequence[set[str]] | None = None, *,
                   min_papers: int = 3, keys: Mapping[str, str] | None = None) -> list[set[str]]:
    """``phrases`` with each acronym the corpus defines (:func:`defined_acronyms`) and its
    phrase counted as one item, written "vision transformers (ViT)": a paper has it where it
    uses the phrase as :class:`topics.naming.coverage.PhraseIndex` reads the texts with
    these acronyms written out (the phrase or the acronym, case-sensitive, whole words,
    with or without a plural "s", unless the paper defines the acronym otherwise; within
    one clause; with or without hyphens), or where one of its phrases (or of ``raw``, the
    phrases before any filter, such as its author keywords) is either of them. Without
    this, "vit" and "vision transformers" are two items about one thing, and each has
    only part of its papers. ``keys`` is :func:`topics.naming.coverage.phrase_key` of
    each phrase where the caller has it (computed here for the others).
    """
    defined = defined_acronyms(texts, min_papers=min_papers)
    if not defined:
        return [set(p) for p in phrases]
    index = PhraseIndex(texts, defined)
    key_of: dict[str, str] = dict(keys or {})
    papers_of: dict[str, set[int]] = {}  # phrase key -> papers with a phrase of that key
    for i, (kept, before) in enumerate(zip(phrases, phrases if raw is None else raw)):
        for g in kept | before:
            if g not in key_of:
                key_of[g] = phrase_key(g)
            papers_of.setdefault(key_of[g], set()).add(i)
    out = [set(p) for p in phrases]
    for acronym, definition in defined.items():
        users = index.uses(definition).copy()
        short, long_ = phrase_key(acronym), phrase_key(definition)
        for k in {short, long_}:
            for i in papers_of.get(k, ()):
                if k == short and _defines_otherwise(texts[i], short, long_):
                    continue
                users[i] = True
                out[i] -= {g for g in out[i] if key_of.get(g) == k}
        item = f"{definition} ({acronym})"
        for i in np.flatnonzero(users):
            out[i].add(item)
    return out


def _defines_otherwise(text: str, acronym: str, definition: str) -> bool:
    """Whether ``text`` defines the acronym (its :func:`topics.naming.coverage.phrase_key`)
    as another phrase than ``definition`` (a key too)."""
    own = {phrase_key(d) for a, d in document_definitions(text) if phrase_key(a) == acronym}
    return bool(own) and definition not in own


def nested_phrases(phrases: list[str], latest_docs: dict[str, set[int]], *, overlap: float = 0.8) -> set[str]:
    """The phrases held inside a longer one of the list that at least ``overlap`` of
    their latest-year papers also use."""
    dropped = set()
    for short in phrases:
        padded = f" {short} "
        for long_ in phrases:
            if long_ != short and padded in f" {long_} ":
                shared = len(latest_docs[short] & latest_docs[long_])
                if shared >= overlap * len(latest_docs[short]):
                    dropped.add(short)
                    break
    return dropped


def phrase_tests(n_latest_uses, n_before_uses, n_latest: int, n_before: int, *, min_count: int = MIN_COUNT,
                 alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rising phrases' test on counts: per phrase its p-value, its least attainable
    p-value and its q-value (module docs, "test", "which phrases are tested", "Tarone's
    screen").

    ``n_latest_uses`` and ``n_before_uses`` are, per phrase, the papers of the latest and
    of the earlier years that use it; ``n_latest`` and ``n_before`` the years' papers. The
    p-value is the one-sided hypergeometric tail (Fisher's exact test), set to 1 where
    fewer than ``min_count`` papers of the latest year use the phrase (a larger p-value
    than the tail is still a valid one). A phrase is tested where at least ``min_count``
    papers use it in all; its least p-value is the tail with all its papers (as many as
    the latest year holds) in the latest year, and both depend on the total count alone.
    The q-values are Benjamini-Hochberg over the tested phrases that Tarone's screen at
    ``alpha`` keeps (:func:`topics.stats.trends.screened_benjamini_hochberg`); ``nan``
    for the others.

    Examples
    --------
    >>> p, least, q = phrase_tests([30, 3, 2], [0, 40, 1], 100, 200)
    >>> bool(q[0] < 1e-6), float(p[2]), bool(np.isnan(q[2]))
    (True, 1.0, True)
    """
    from scipy.stats import hypergeom

    a = np.asarray(n_latest_uses, dtype=float)
    total = a + np.asarray(n_before_uses, dtype=float)
    papers = n_latest + n_before
    # P(X >= a): X the latest-year papers among the phrase's total, drawn from all papers
    # of which n_latest are of the latest year
    p = np.where(a >= min_count, hypergeom.sf(a - 1, papers, n_latest, total), 1.0)
    most = np.minimum(total, n_latest)
    least = np.where(most >= min_count, hypergeom.sf(most - 1, papers, n_latest, total), 1.0)
    tested = total >= min_count
    q = np.full(a.shape, np.nan)
    q[tested] = screened_benjamini_hochberg(p[tested], least[tested], alpha=alpha)
    return p, least, q


def rising_phrases(
    phrases: Sequence[set[str]],
    years: Sequence[int],
    *,
    latest: int | None = None,
    topics: Sequence[int] | None = None,
    topic_labels: dict[int, str] | None = None,
    min_count: int = MIN_COUNT,
    alpha: float = 0.05,
    top_n: int = 15,
    single_words: bool = False,
) -> pd.DataFrame:
    """The phrases whose share of papers rose most in the ``latest`` year (module docs).

    Parameters
    ----------
    phrases
        Per paper, the phrases it uses (:func:`paper_phrases`).
    years
        Per paper, its year.
    latest
        The year tested against every earlier year; default the last one.
    topics, topic_labels
        Per paper its topic (-1 for none), and the topics' names: each phrase lists the
        topics of most of its latest-year papers.
    min_count
        The fewest papers that must use a phrase, all years together, for it to be
        tested, and of the latest year for it to be listed (default :data:`MIN_COUNT`,
        5). The test itself leaves out the phrases too rare to pass (Tarone's screen).
    alpha
        The false-discovery rate (Benjamini-Hochberg q) a phrase must stay under.
    top_n
        The most phrases returned.
    single_words
        Whether a single word (no space, no hyphen: "alignment", "frontier", "bert") is
        listed; by default it is tested with the rest (so the false-discovery control is
        over every term) but only phrases, hyphenated compounds and acronyms with their
        phrase are listed (module docs, "what is listed").

    Returns
    -------
    pandas.DataFrame
        One row per rising phrase, highest ``ratio`` first (:data:`RISING_COLUMNS`):
        ``n_latest`` and ``n_before`` papers using it, ``share_latest`` and
        ``share_before`` of their years' papers, ``ratio`` of the two shares (each
        smoothed by half a paper), ``low`` and ``high`` the 95 % interval of the change
        in share (Newcombe), ``p`` and ``q`` of the one-sided test (:func:`phrase_tests`),
        ``topics`` the names of the topics most of its latest-year papers sit in
        ("; "-joined).
    """
    years = np.asarray(years)
    if len(phrases) != len(years):
        raise ValueError(f"{len(phrases)} phrase sets for {len(years)} years")
    latest = int(years.max()) if latest is None else int(latest)
    is_latest = years == latest
    n_latest, n_before = int(is_latest.sum()), int((years < latest).sum())
    if n_latest == 0 or n_before == 0:
        return pd.DataFrame(columns=RISING_COLUMNS)
    latest_docs: dict[str, set[int]] = {}
    before = Counter()
    for i, ps in enumerate(phrases):
        if is_latest[i]:
            for p in ps:
                latest_docs.setdefault(p, set()).add(i)
        elif years[i] < latest:
            before.update(ps)
    tested = sorted(p for p in set(latest_docs) | set(before) if len(latest_docs.get(p, ())) + before[p] >= min_count)
    if not tested:
        return pd.DataFrame(columns=RISING_COLUMNS)
    a = np.array([len(latest_docs.get(p, ())) for p in tested], dtype=float)
    b = np.array([before[p] for p in tested], dtype=float)
    p_values, _, q = phrase_tests(a, b, n_latest, n_before, min_count=min_count, alpha=alpha)
    ratio = ((a + 0.5) / n_latest) / ((b + 0.5) / n_before)
    keep = (q <= alpha) & (ratio > 1)
    kept = [p for p, k in zip(tested, keep) if k]
    dropped = nested_phrases(kept, latest_docs)
    low, high = newcombe_diff_ci(b, n_before, a, n_latest)
    rows = [
        {
            "phrase": p, "n_latest": int(a[j]), "n_before": int(b[j]), "share_latest": a[j] / n_latest,
            "share_before": b[j] / n_before, "ratio": float(ratio[j]), "low": float(low[j]), "high": float(high[j]),
            "p": float(p_values[j]), "q": float(q[j]), "topics": _home_topics(latest_docs[p], topics, topic_labels),
        }
        for j, p in enumerate(tested)
        if keep[j] and p not in dropped and (single_words or not is_single_word(p))
    ]
    table = pd.DataFrame(rows, columns=RISING_COLUMNS)
    return table.sort_values(["ratio", "n_latest", "phrase"], ascending=[False, False, True], kind="stable").head(top_n).reset_index(drop=True)


def is_single_word(phrase: str) -> bool:
    """Whether ``phrase`` is one plain word: no space, no hyphen ("alignment", not
    "meta-learning", "flow matching" or "vision transformers (ViTs)")."""
    return " " not in phrase.strip() and "-" not in phrase


def _home_topics(docs: set[int], topics: Sequence[int] | None, labels: dict[int, str] | None, *, share: float = 0.5) -> str:
    """The names of the fewest topics (largest first, at most three) that hold at least
    ``share`` of ``docs``; "" without topics."""
    if topics is None:
        return ""
    counts = Counter(int(topics[i]) for i in docs if int(topics[i]) != -1)
    out, held = [], 0
    for topic, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3]:
        out.append((labels or {}).get(topic, str(topic)))
        held += n
        if held >= share * len(docs):
            break
    return "; ".join(out)
