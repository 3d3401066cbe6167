"""Emerging sub-topics: groups of papers inside a topic concentrated in the latest year.

A new method ("flow matching", "test-time scaling") rarely makes a topic of its own at a
conference's grain: its papers sit inside an older topic ("generative models",
"reasoning") and move that topic's share little. :func:`emerging_subtopics` looks inside
each topic for them, as a scan over the topic's own hierarchy:

1. **The topic's hierarchy.** Ward's agglomerative hierarchy of the topic's unit-length
   embeddings (Ward 1963, as for small corpora in :mod:`topics.clustering.hierarchy`);
   every branch of it with at least ``min_size`` papers and at most ``max_share`` of the
   topic is a candidate sub-topic. Deterministic: the same papers, in any row order,
   give the same tree.
2. **A test per branch.** Does the latest year hold a larger share of the branch than
   of the rest of its topic (the topic's papers outside the branch)? One-sided Fisher's
   exact test of the two independent samples, branch and rest, on their 2 x 2 table of
   latest-year and earlier papers. Conditioned on the table's margins, the branch's
   latest-year papers follow the hypergeometric law of a draw of the branch's size from
   its topic, so the test is that tail; it compares the branch with the rest of its
   topic, never with a topic that holds it. A topic that grows as a whole does not make
   every branch of it "emerging": the branch must grow more than the rest of its
   parent. Benjamini-Hochberg across every branch of every topic, after Tarone's screen
   (:func:`topics.stats.trends.screened_benjamini_hochberg`): a branch too small to
   pass whatever its years (8 papers of a topic whose latest year holds 60 % of it are
   all of the latest year with probability about 0.6^8 = 0.02) is not counted among the
   tests, where it would only make the others' bar higher.
3. **One branch per region.** Of the branches that pass, the most significant is kept,
   then the next that does not overlap it, and so on (the scan statistic's "most likely
   cluster", Kulldorff 1997, taken over a tree).

Each sub-topic is then named by the rule topics are named by, against the rest of its
topic (:func:`topics.naming.labels.topic_names`, never by its parent's name), and reported
with its growth: its share of the latest year's papers against its share of the earlier
years', with the 95 % interval of the change (Newcombe).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from topics.clustering.order import canonical_order
from topics.naming.coverage import name_parts
from topics.naming.labels import class_terms, topic_names
from topics.naming.terms import PhraseAnalyzer
from topics.stats.trends import newcombe_diff_ci, screened_benjamini_hochberg
from topics.vectors import unit_rows

__all__ = ["EMERGING_COLUMNS", "emerging_subtopics", "scan_branches"]

#: The columns of :func:`emerging_subtopics`.
EMERGING_COLUMNS = [
    "subtopic", "name", "topic", "topic_label", "n_docs", "n_latest", "share_latest", "share_before",
    "change", "low", "high", "p", "q", "doc_ids", "examples",
]

#: Above this many papers a topic's hierarchy is built over k-means micro-groups of its
#: papers rather than the papers themselves (Ward's linkage is quadratic in memory).
MAX_TREE_PAPERS = 3000


def _branches(x: np.ndarray, *, min_size: int, max_size: int, random_state: int) -> list[np.ndarray]:
    """Row positions of every branch of Ward's hierarchy of ``x`` with between
    ``min_size`` and ``max_size`` papers (micro-groups above :data:`MAX_TREE_PAPERS`)."""
    from scipy.cluster.hierarchy import linkage, to_tree

    groups = [np.array([i]) for i in range(len(x))]
    points = x
    if len(x) > MAX_TREE_PAPERS:
        from sklearn.cluster import KMeans

        micro = KMeans(MAX_TREE_PAPERS, n_init=1, random_state=random_state).fit(x)
        groups = [np.flatnonzero(micro.labels_ == k) for k in range(MAX_TREE_PAPERS)]
        points = micro.cluster_centers_
    root = to_tree(linkage(points, method="ward"))
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        members = np.concatenate([groups[i] for i in node.pre_order()])
        if min_size <= len(members) <= max_size:
            out.append(np.sort(members))
        if len(members) >= 2 * min_size and not node.is_leaf():
            stack.extend([node.get_left(), node.get_right()])
    return out


def scan_branches(
    embeddings: np.ndarray, labels: Sequence[int], is_latest: Sequence[bool], *, min_size: int, max_share: float = 0.5,
    alpha: float = 0.05, random_state: int = 0,
) -> pd.DataFrame:
    """Every candidate branch of every topic with its one-sided test against the rest of
    its topic (module docs, steps 1-2): columns ``topic``, ``members`` (row positions),
    ``n_docs``, ``n_latest``, ``p``, ``least_p`` (the p-value had every paper of the
    branch been of the latest year) and ``q`` (``nan`` where the branch cannot pass at
    ``alpha`` and is screened out)."""
    from scipy.stats import hypergeom

    x, labels, is_latest = unit_rows(embeddings, dtype=np.float64), np.asarray(labels), np.asarray(is_latest, dtype=bool)
    rows = []
    for topic in sorted(set(labels.tolist()) - {-1}):
        inside = np.flatnonzero(labels == topic)
        k_topic = int(is_latest[inside].sum())
        if len(inside) < 2 * min_size or k_topic == 0 or k_topic == len(inside):
            continue
        for branch in _branches(x[inside], min_size=min_size, max_size=int(max_share * len(inside)), random_state=random_state):
            members = inside[branch]
            k = int(is_latest[members].sum())
            # Fisher's exact test of the branch against the rest of its topic: P(X >= k)
            p = float(hypergeom.sf(k - 1, len(inside), k_topic, len(members)))
            least = float(hypergeom.pmf(min(len(members), k_topic), len(inside), k_topic, len(members)))
            rows.append({"topic": int(topic), "members": members, "n_docs": len(members), "n_latest": k, "p": p, "least_p": least})
    table = pd.DataFrame(rows, columns=["topic", "members", "n_docs", "n_latest", "p", "least_p"])
    table["q"] = screened_benjamini_hochberg(table["p"].to_numpy(), table["least_p"].to_numpy(), alpha=alpha)
    return table


def _disjoint(significant: pd.DataFrame) -> list[int]:
    """Row labels of the most significant branches that share no paper (step 3)."""
    taken: set[int] = set()
    kept = []
    for i, row in significant.sort_values(["p", "n_docs"], ascending=[True, False], kind="stable").iterrows():
        members = set(row["members"].tolist())
        if members & taken:
            continue
        kept.append(i)
        taken |= members
    return kept


def _name(texts: Sequence[str], members: np.ndarray, inside: np.ndarray, parent: str, analyzer: PhraseAnalyzer) -> str:
    """The sub-topic's name by the topic rule, against the rest of its topic."""
    is_member = np.isin(inside, members)
    labels = np.where(is_member, 0, 1)
    local = [texts[i] for i in inside]
    terms = class_terms(local, labels, analyzer)
    banned = set(name_parts(parent)) | {parent}
    names = topic_names(terms, labels, local, analyzer=analyzer, forbidden={0: banned, 1: set()})
    return names.get(0, "")


def emerging_subtopics(
    embeddings: np.ndarray,
    labels: Sequence[int],
    years: Sequence[int],
    texts: Sequence[str],
    *,
    latest: int | None = None,
    topic_labels: dict[int, str] | None = None,
    doc_ids: Sequence | None = None,
    titles: Sequence[str] | None = None,
    min_size: int | None = None,
    max_share: float = 0.5,
    alpha: float = 0.05,
    random_state: int = 0,
) -> pd.DataFrame:
    """The sub-topics concentrated in the ``latest`` year (module docs).

    Parameters
    ----------
    embeddings, labels, years, texts
        One row per paper: its vector, topic (-1: none), year and text (for names).
    latest
        The year tested; default the last one. Papers after it are left out.
    topic_labels
        The topics' names (a sub-topic is never named by its parent's name).
    doc_ids, titles
        Per paper, for the ``doc_ids`` and ``examples`` columns (default row positions,
        and the texts' first 80 characters).
    min_size
        The smallest sub-topic; default 1 % of the latest year's papers, at least 5.
    max_share
        The largest share of its topic a sub-topic may hold.
    alpha
        The false-discovery rate a branch's test must stay under.
    random_state
        Seeds the k-means micro-groups of topics above :data:`MAX_TREE_PAPERS` papers.

    Returns
    -------
    pandas.DataFrame
        One row per sub-topic, most significant first (:data:`EMERGING_COLUMNS`):
        ``subtopic`` (0, 1, ...), ``name``, its parent ``topic`` and ``topic_label``,
        ``n_docs`` and ``n_latest`` papers, ``share_latest`` and ``share_before`` (its
        share of the latest year's and of the earlier years' papers), ``change``
        (their difference) with its 95 % interval ``low``-``high``, ``p`` and ``q`` of
        the test against the rest of its topic (``q`` after Tarone's screen),
        ``doc_ids`` of its papers, and the titles of its three papers nearest its
        centre (``examples``, "; "-joined).
    """
    years = np.asarray(years)
    latest = int(years.max()) if latest is None else int(latest)
    rows = np.flatnonzero(years <= latest)
    # in canonical order (:func:`topics.clustering.order.canonical_order`): the same papers
    # in another row order give the same hierarchy, ties and table
    rows = rows[canonical_order(np.asarray(embeddings)[rows], [texts[i] for i in rows])]
    x, labels_, years_ = np.asarray(embeddings)[rows], np.asarray(labels)[rows], years[rows]
    is_latest = years_ == latest
    n_latest, n_before = int(is_latest.sum()), int((~is_latest).sum())
    if n_latest == 0 or n_before == 0:
        return pd.DataFrame(columns=EMERGING_COLUMNS)
    min_size = max(5, int(np.ceil(0.01 * n_latest))) if min_size is None else int(min_size)
    scanned = scan_branches(x, labels_, is_latest, min_size=min_size, max_share=max_share, alpha=alpha, random_state=random_state)
    significant = scanned[scanned["q"] <= alpha]
    names = topic_labels or {}
    texts_ = [texts[i] for i in rows]
    titles_ = [str(titles[i]) for i in rows] if titles is not None else [t[:80] for t in texts_]
    ids = [doc_ids[i] for i in rows] if doc_ids is not None else rows.tolist()
    analyzer, unit, out = PhraseAnalyzer(), unit_rows(x, dtype=np.float64), []
    for k, i in enumerate(_disjoint(significant)):
        row = significant.loc[i]
        members, topic = row["members"], int(row["topic"])
        parent = names.get(topic, str(topic))
        before = int(row["n_docs"] - row["n_latest"])
        low, high = newcombe_diff_ci(before, n_before, int(row["n_latest"]), n_latest)
        centre = unit[members].mean(axis=0)
        typical = members[np.argsort(-(unit[members] @ centre), kind="stable")[:3]]
        out.append({
            "subtopic": k, "name": _name(texts_, members, np.flatnonzero(labels_ == topic), parent, analyzer),
            "topic": topic, "topic_label": parent, "n_docs": int(row["n_docs"]), "n_latest": int(row["n_latest"]),
            "share_latest": row["n_latest"] / n_latest, "share_before": before / n_before,
            "change": row["n_latest"] / n_latest - before / n_before, "low": float(low), "high": float(high),
            "p": float(row["p"]), "q": float(row["q"]), "doc_ids": [ids[j] for j in members],
            "examples": "; ".join(titles_[j] for j in typical),
        })
    return pd.DataFrame(out, columns=EMERGING_COLUMNS)
