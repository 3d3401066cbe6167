"""Guided themes: how did a research area the user names fare from one year to the next?

Unsupervised topics answer "is optimal transport growing?" only when the clusterer
happens to isolate that area. :func:`track` answers it directly: a :class:`Theme` is a
name ("optimal transport"), optionally with extra phrases and example papers, and every
paper gets a similarity to each theme and a membership decided by this rule:

1. **Phrase.** A paper *names* the theme if its title or abstract contains the theme's
   name or one of its phrases (case, hyphens and plurals ignored), or an acronym of one
   of them. Acronyms come from the corpus itself (Schwartz & Hearst 2003,
   :func:`topics.naming.acronyms.definition_counts`): a short form counts when at least two papers define it with a
   long form that contains a theme phrase ("optimal transport (OT)", "vertical federated
   learning (VFL)") and most papers that define it do so; a paper that defines it as
   something else does not name the theme through it.
2. **Similarity.** The theme's vector is the mean of the embeddings of its *positives*:
   the papers that name it and its examples (plus, where an embedder with a fixed vector
   space is given, the embeddings of the name and phrases themselves). This is Rocchio's
   relevance feedback with the phrase as pseudo-relevance judgement (Rocchio 1971; Xu &
   Croft 1996). Each paper's similarity is its cosine to that vector; each positive is
   scored against the mean of the *other* positives, so that it does not vote for itself.
3. **Calibrated cut.** Positives are a sample of the theme's papers, the others a mix of
   members and non-members: a positive-unlabelled problem. The cut ``t`` maximises
   ``r(t)^2 / P(s >= t)``, where ``r(t)`` is the share of the theme's members at or
   above ``t``, estimated from the positives (the upper tail of a normal with their
   median and scaled median absolute deviation), and ``P(s >= t)`` the share of all papers (Lee & Liu 2003, ICML,
   "Learning with positive and unlabeled examples using weighted logistic regression").
   Where positives are a random sample of the members this criterion is proportional
   to precision times recall, so it needs no constant: a cut too low swallows
   neighbouring areas (the denominator grows), a cut too high misses papers that never
   use the phrase (``r`` falls). With fewer than :data:`MIN_POSITIVES` positives no cut
   is calibrated and only the positives are members (with a warning).
4. **Members** are the positives and every paper at or above the cut. A paper may belong
   to several themes.

Measured on a labelled check set (``tests/data/theme_check.csv``: 5 themes x 40 ICLR
papers labelled by reading them; ``benchmarks/themes_check.py``), the rule reaches
precision 0.81 and recall 0.84 against 0.88 and 0.74 for papers containing the phrase.
Papers admitted by similarity alone are much less precise than that for broad themes
(``benchmarks/README.md``): treat them as candidates.

The steps of the rule are plain functions in :mod:`topics.themes.membership`; :class:`Theme` and
theme files (:func:`read_themes`) are defined in :mod:`topics.themes.specs`.

Statistics per theme (:mod:`topics.stats.trends` helpers): members and share of each year's
papers with Wilson intervals; the difference between two years with Newcombe's hybrid
score interval; Fisher's exact p; Benjamini-Hochberg q over the themes; a direction.
Shares are of *all* papers of a year: themes do not depend on the topic model, so
outliers play no part.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from topics.naming.acronyms import document_definitions
from topics.themes.membership import (
    MIN_POSITIVES,
    acronym_meanings,
    acronyms_for,
    calibrate_cut,
    phrase_matches,
    theme_similarity,
)
from topics.themes.specs import Theme, as_themes, resolve_examples
from topics.stats.narration import capitalize
from topics.text import singular_words
from topics.stats.trends import benjamini_hochberg, newcombe_diff_ci, pick_years, wilson_interval

__all__ = [
    "theme_topics",
    "ThemeTracking",
    "track",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ThemeTracking:
    """The tables :func:`track` builds (all plain DataFrames).

    Attributes
    ----------
    summary : one row per theme; see :func:`track`
    prevalence : one row per (theme, year)
    papers : one row per (theme, paper), every paper
    top_papers : the most similar members per theme and year
    year_a, year_b : the compared years
    """

    summary: pd.DataFrame
    prevalence: pd.DataFrame
    papers: pd.DataFrame
    top_papers: pd.DataFrame
    year_a: int
    year_b: int
    themes: tuple[Theme, ...] = field(default_factory=tuple)

    @property
    def members(self) -> pd.DataFrame:
        """The rows of :attr:`papers` that belong to their theme."""
        return self.papers[self.papers["member"]].reset_index(drop=True)


# --------------------------------------------------------------------------- tracking


def _query_vectors(theme: Theme, embedder) -> np.ndarray | None:
    if embedder is None or embedder.fingerprint() is None:  # LSA's space is fitted to the corpus: phrases alone land elsewhere
        return None
    from topics.embedding.embed import embed_texts

    return embed_texts(list(theme.all_phrases), embedder, cache=False)


def track(
    corpus: pd.DataFrame,
    embeddings: np.ndarray,
    themes: Sequence[Theme | str] | Theme | str,
    *,
    embedder=None,
    years: tuple[int, int] | None = None,
    alpha: float = 0.05,
    n_top: int = 5,
) -> ThemeTracking:
    """Find each theme's papers and compare the theme's share between two years.

    Parameters
    ----------
    corpus
        A corpus frame (``doc_id``, ``year``, ``title``, ``abstract``).
    embeddings
        ``(n_docs, dim)`` embeddings of the corpus rows, L2-normalised (as
        :func:`topics.embed_texts` returns them), from any backend.
    themes
        :class:`Theme` objects or plain names.
    embedder
        The embedder that made ``embeddings`` (a name or :class:`topics.embedding.backends.Embedder`).
        Where given and its vector space does not depend on the corpus (MiniLM, not
        LSA), the theme's name and phrases are embedded too and join the positives'
        mean. ``None``: the theme vector comes from papers only.
    years
        The two years to compare; default the two present.
    alpha
        False-discovery rate below which a change is called "grew" or "shrank".
    n_top
        Most similar members listed per theme and year in ``top_papers``.

    Returns
    -------
    ThemeTracking
        ``summary``: one row per theme, in the order given: ``theme``, ``n_<a>``,
        ``n_<b>``, ``share_<a>``, ``share_<b>`` (of all papers of the year, 0-1),
        ``diff_pp``, ``ci_low_pp``, ``ci_high_pp`` (95 % Newcombe interval, points),
        ``p_value`` (Fisher's exact), ``q_value`` (Benjamini-Hochberg over themes),
        ``direction``, ``n_members`` (all years), ``n_phrase`` (members that name the
        theme), ``n_example`` (examples that do not), ``n_similarity`` (members by
        similarity alone), ``cut`` (the calibrated similarity cut, NaN where none),
        ``acronyms`` and ``phrases`` (``"; "``-separated).
        ``prevalence``: ``theme``, ``year``, ``n_docs``, ``year_total``, ``share``,
        ``ci_low``, ``ci_high`` (95 % Wilson), every year of the corpus.
        ``papers``: ``theme``, ``doc_id``, ``year``, ``title``, ``similarity``,
        ``names_theme``, ``example``, ``member``, ``source`` ("phrase", "example",
        "similarity" or "" for non-members), sorted by theme then similarity.
        ``top_papers``: ``theme``, ``year``, ``rank``, ``doc_id``, ``title``,
        ``similarity``, ``source``.
    """
    themes = as_themes(themes)
    embeddings = np.asarray(embeddings, dtype=np.float32)
    if embeddings.ndim != 2 or len(embeddings) != len(corpus):
        raise ValueError(f"embeddings must have one row per paper: {len(corpus)} papers, shape {embeddings.shape}")
    year_a, year_b = pick_years(corpus, *(years if years is not None else (None, None)))
    # read in doc_id order: the theme's mean vector and its ties then do not depend on the row order
    order = np.argsort(corpus["doc_id"].astype(str).to_numpy(), kind="stable")
    corpus, embeddings = corpus.iloc[order], embeddings[order]
    if embedder is not None:
        from topics.embedding.backends import get_embedder

        embedder = get_embedder(embedder, n_texts=len(corpus))  # as the corpus was embedded
    read = _read(corpus)
    frames, rows = zip(*(_members(theme, corpus, embeddings, embedder, read) for theme in themes))
    papers = _sorted_papers(list(frames), themes)
    prevalence = _prevalence(papers, corpus, themes)
    summary = _compare(prevalence, pd.DataFrame(list(rows)), year_a, year_b, alpha=alpha)
    return ThemeTracking(summary=summary, prevalence=prevalence, papers=papers, top_papers=_top_papers(papers, themes, n_top),
                         year_a=year_a, year_b=year_b, themes=themes)


@dataclass(frozen=True)
class _Read:
    """The corpus as :func:`track` reads it: titles, "title. abstract" texts, their singular
    words, the acronyms each defines, and what each acronym means in the corpus."""

    titles: pd.Series
    texts: list[str]
    normed: list[str]
    definitions: list
    meanings: dict


def _read(corpus: pd.DataFrame) -> _Read:
    titles = corpus["title"].fillna("").astype(str)
    texts = (titles + ". " + corpus["abstract"].astype(str)).tolist()
    definitions = [document_definitions(t) for t in texts]
    return _Read(titles, texts, [singular_words(t) for t in texts], definitions, acronym_meanings(texts))


def _members(theme: Theme, corpus: pd.DataFrame, embeddings: np.ndarray, embedder, read: _Read) -> tuple[pd.DataFrame, dict]:
    """One theme's papers (one row per paper of the corpus) and its row of the summary."""
    example = resolve_examples(theme, corpus)
    acronyms = acronyms_for(read.meanings, theme.all_phrases)
    names = phrase_matches(read.texts, theme.all_phrases, acronyms=acronyms, definitions=read.definitions, normalized=read.normed)
    positive = names | example
    sims = theme_similarity(embeddings, positive, _query_vectors(theme, embedder))
    cut = calibrate_cut(sims, positive)
    if np.isnan(cut):
        logger.warning(
            "theme %r: only %d paper(s) name it or are examples (fewer than %d); no similarity cut is calibrated, "
            "so only those are members; add phrases or examples", theme.name, int(positive.sum()), MIN_POSITIVES,
        )
        by_similarity = np.zeros(len(corpus), dtype=bool)
    else:
        by_similarity = ~positive & (np.nan_to_num(sims, nan=-np.inf) >= cut)
    member = positive | by_similarity
    source = np.where(names, "phrase", np.where(example, "example", np.where(by_similarity, "similarity", "")))
    frame = pd.DataFrame({
        "theme": theme.name, "doc_id": corpus["doc_id"].to_numpy(), "year": corpus["year"].astype(int).to_numpy(),
        "title": read.titles.to_numpy(), "similarity": sims, "names_theme": names, "example": example,
        "member": member, "source": source,
    })
    row = {
        "theme": theme.name, "n_members": int(member.sum()), "n_phrase": int(names.sum()),
        "n_example": int((example & ~names).sum()), "n_similarity": int(by_similarity.sum()), "cut": cut,
        "acronyms": "; ".join(acronyms), "phrases": "; ".join(theme.phrases),
    }
    logger.info("theme %r: %d members (%d name it, %d by similarity >= %.3f)", theme.name, member.sum(), names.sum(),
                by_similarity.sum(), cut)
    return frame, row


def _sorted_papers(frames: list[pd.DataFrame], themes: tuple[Theme, ...]) -> pd.DataFrame:
    """The themes' papers in one table: by theme (in the order given), then by similarity."""
    papers = pd.concat(frames, ignore_index=True)
    return papers.sort_values(["theme", "similarity"], ascending=[True, False], key=lambda c: c.map(
        {t.name: i for i, t in enumerate(themes)}) if c.name == "theme" else c, na_position="first").reset_index(drop=True)


def _top_papers(papers: pd.DataFrame, themes: tuple[Theme, ...], n_top: int) -> pd.DataFrame:
    """The ``n_top`` most similar members of each theme in each year."""
    members = papers[papers["member"]]
    top = (members.sort_values(["similarity"], ascending=False, na_position="first")
           .groupby(["theme", "year"], sort=False).head(n_top).copy())
    top["rank"] = top.groupby(["theme", "year"]).cumcount() + 1
    order = {t.name: i for i, t in enumerate(themes)}
    top = top.assign(_o=top["theme"].map(order)).sort_values(["_o", "year", "rank"])
    return top[["theme", "year", "rank", "doc_id", "title", "similarity", "source"]].reset_index(drop=True)


def _prevalence(papers: pd.DataFrame, corpus: pd.DataFrame, themes: tuple[Theme, ...]) -> pd.DataFrame:
    totals = corpus.groupby("year").size()
    out = []
    for theme in themes:
        part = papers[(papers["theme"] == theme.name) & papers["member"]]
        counts = part.groupby("year").size().reindex(totals.index, fill_value=0)
        low, high = wilson_interval(counts.to_numpy(), totals.to_numpy())
        out.append(pd.DataFrame({
            "theme": theme.name, "year": totals.index.astype(int), "n_docs": counts.to_numpy(),
            "year_total": totals.to_numpy(), "share": counts.to_numpy() / totals.to_numpy(), "ci_low": low, "ci_high": high,
        }))
    return pd.concat(out, ignore_index=True)


def _compare(prevalence: pd.DataFrame, counts: pd.DataFrame, year_a: int, year_b: int, *, alpha: float) -> pd.DataFrame:
    a = prevalence[prevalence["year"] == year_a].set_index("theme").loc[counts["theme"]]
    b = prevalence[prevalence["year"] == year_b].set_index("theme").loc[counts["theme"]]
    x_a, n_a = a["n_docs"].to_numpy(), a["year_total"].to_numpy()
    x_b, n_b = b["n_docs"].to_numpy(), b["year_total"].to_numpy()
    low, high = newcombe_diff_ci(x_a, n_a, x_b, n_b)
    p_values = np.array([stats.fisher_exact([[xa, na - xa], [xb, nb - xb]])[1] for xa, na, xb, nb in zip(x_a, n_a, x_b, n_b)])
    q_values = benjamini_hochberg(p_values)
    diff = x_b / n_b - x_a / n_a
    out = pd.DataFrame({
        "theme": counts["theme"].to_numpy(), f"n_{year_a}": x_a, f"n_{year_b}": x_b,
        f"share_{year_a}": x_a / n_a, f"share_{year_b}": x_b / n_b, "diff_pp": 100 * diff,
        "ci_low_pp": 100 * low, "ci_high_pp": 100 * high, "p_value": p_values, "q_value": q_values,
        "direction": np.where(q_values < alpha, np.where(diff > 0, "grew", "shrank"), "no clear change"),
    })
    out = pd.concat([out, counts.drop(columns="theme").reset_index(drop=True)], axis=1)
    out.attrs.update(year_a=year_a, year_b=year_b, n_a=int(n_a[0]), n_b=int(n_b[0]))
    return out


def theme_topics(tracking: ThemeTracking, documents: pd.DataFrame, *, n: int = 5) -> pd.DataFrame:
    """Which topics each theme's members fall into.

    ``documents`` is :func:`topics.document_table` output (``doc_id``, ``topic``,
    ``topic_label``). Returns ``theme``, ``topic``, ``topic_label``, ``n_docs``,
    ``share`` (of the theme's members, 0-1), the ``n`` largest per theme; outliers
    (topic -1) are listed like any topic. A theme without members has no row; none of
    them with members gives an empty table.
    """
    members = tracking.members.merge(documents[["doc_id", "topic", "topic_label"]], on="doc_id", how="left")
    if members.empty:  # no theme matched a paper: no topic to list
        return pd.DataFrame({"theme": pd.Series(dtype=object), "topic": pd.Series(dtype=int),
                             "topic_label": pd.Series(dtype=object), "n_docs": pd.Series(dtype=int), "share": pd.Series(dtype=float)})
    counts = members.groupby(["theme", "topic", "topic_label"], sort=False).size().rename("n_docs").reset_index()
    counts["share"] = counts["n_docs"] / counts["theme"].map(members.groupby("theme").size())
    counts = counts.sort_values(["theme", "n_docs", "topic"], ascending=[True, False, True])
    order = {t.name: i for i, t in enumerate(tracking.themes)}
    counts = counts.groupby("theme", sort=False).head(n)
    return counts.sort_values(["theme", "n_docs"], key=lambda c: c.map(order) if c.name == "theme" else -c).reset_index(drop=True)


def narrate_themes(summary: pd.DataFrame) -> list[str]:
    """Two sentences per theme of a :func:`topics.themes.tracking.track` summary table.

    The first states the theme's shares of each year's papers, the change with its 95 %
    interval and q, and whether it is a clear change; the second where its papers came
    from (naming it, or similarity alone) or why only the papers naming it are counted.
    """
    a, b = int(summary.attrs["year_a"]), int(summary.attrs["year_b"])
    sentences = []
    for row in summary.to_dict("records"):
        verb = {"grew": "grew", "shrank": "shrank"}.get(row["direction"], "went")
        verdict = "" if row["direction"] in ("grew", "shrank") else ": no clear change"
        sentences.append(
            f"{capitalize(row['theme'])} {verb} from {100 * row[f'share_{a}']:.1f} % to {100 * row[f'share_{b}']:.1f} % of papers "
            f"({row[f'n_{a}']} and {row[f'n_{b}']} papers; {row['diff_pp']:+.1f} points, 95 % CI {row['ci_low_pp']:+.1f} to "
            f"{row['ci_high_pp']:+.1f}; q = {row['q_value']:.2g}){verdict}."
        )
        named = f"{row['n_phrase']} name it" + (f" (or its acronym {row['acronyms'].replace('; ', ', ')})" if row["acronyms"] else "")
        examples = f", {row['n_example']} are examples" if row["n_example"] else ""
        if row["cut"] != row["cut"]:  # NaN: no cut calibrated
            sentences.append(
                f"Only {row['n_phrase'] + row['n_example']} paper(s) name {row['theme']!r} or are examples, too few to "
                "calibrate a similarity cut, so only those are counted; add phrases or example papers to find more."
            )
        else:
            sentences.append(
                f"Of its {row['n_members']} papers over all years, {named}{examples}, and {row['n_similarity']} more {'is' if row['n_similarity'] == 1 else 'are'} as "
                f"similar to those as the cut calibrated on them requires (cosine >= {row['cut']:.2f})."
            )
    return sentences
