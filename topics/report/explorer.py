"""The report's paper explorer: the papers as one JSON payload for a searchable list.

:func:`explorer_data` builds the payload from an :class:`topics.pipeline.Analysis`: each
paper's title, abstract, year or group, topic, area, confidence, themes, link and its
five nearest papers (:func:`nearest_papers`, cosine similarity of the fitted
embeddings). A corpus larger than :data:`EXPLORER_MAX_PAPERS` is cut to the papers
nearest their topic centres, stratified by topic (:func:`explorer_rows`); the tables
keep every paper. :func:`script_json` writes the payload so that it can sit in a
``<script type="application/json">`` element whatever the papers say; where the paper
texts are long, the papers travel gzip-compressed inside it (:data:`PACK_ABOVE`,
:func:`pack_text`), as plotly.js does in the report.
"""

from __future__ import annotations

import base64
import gzip
import json
import os

import numpy as np
import pandas as pd

from topics.pipeline import Analysis
from topics.text import paper_title
from topics.vectors import unit_rows

__all__ = [
    "EXPLORER_MAX_PAPERS", "N_NEIGHBORS", "PACK_ABOVE", "explorer_data", "explorer_rows", "nearest_papers",
    "explorer_script", "pack_text", "script_json", "unpack", "unpack_text",
]

#: The most papers the explorer holds; above it, :func:`explorer_rows` picks which.
#: As many as the map draws (:data:`topics.figures.MAP_MAX_POINTS`): with their
#: abstracts (packed) and neighbours, 10,000 papers add about 7 MB to the report.
EXPLORER_MAX_PAPERS = 10_000
#: Neighbours listed for each paper.
N_NEIGHBORS = 5
#: Characters of titles and abstracts above which the papers are stored gzip-compressed
#: (and base64-encoded) in the payload: under half the size, unpacked by the browser
#: (``DecompressionStream``) when the page opens.
PACK_ABOVE = 500_000
# Similarity scores per chunk of rows in nearest_papers (float32: 64 MB).
_CHUNK_CELLS = 2**24


def nearest_papers(embeddings: np.ndarray, *, k: int = N_NEIGHBORS, chunk_size: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ``k`` nearest other rows by cosine similarity.

    Exact: the unit-length embeddings are multiplied with each other one chunk of rows at
    a time (``chunk_size`` rows; default as many as keep a chunk's scores at 64 MB), and
    each row keeps its ``k`` best, itself left out. Ties go to the earlier row.

    Returns
    -------
    (indices, similarities)
        Two ``(n, min(k, n - 1))`` arrays, most similar first: row positions (int64) and
        cosine similarities (float32).
    """
    x = np.asarray(embeddings, dtype=np.float32)
    if x.ndim != 2:
        raise ValueError(f"embeddings must be a 2-D array, got shape {x.shape}")
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    n = len(x)
    k = min(int(k), max(n - 1, 0))
    indices, sims = np.empty((n, k), dtype=np.int64), np.empty((n, k), dtype=np.float32)
    if k == 0:
        return indices, sims
    x = unit_rows(x)
    step = chunk_size or max(1, _CHUNK_CELLS // n)
    for start in range(0, n, step):
        stop = min(n, start + step)
        scores = x[start:stop] @ x.T
        scores[np.arange(stop - start), np.arange(start, stop)] = -np.inf
        best = np.argpartition(-scores, k - 1, axis=1)[:, :k] if k < n - 1 else np.argsort(-scores, axis=1)[:, :k]
        best_scores = np.take_along_axis(scores, best, axis=1)
        order = np.lexsort((best, -best_scores), axis=1)
        indices[start:stop] = np.take_along_axis(best, order, axis=1)
        sims[start:stop] = np.take_along_axis(best_scores, order, axis=1)
    return indices, sims


def explorer_rows(topics, embeddings: np.ndarray, *, max_papers: int = EXPLORER_MAX_PAPERS) -> np.ndarray:
    """Row positions of the papers the explorer holds: all, or the ``max_papers`` nearest
    their topic centres, stratified by topic.

    With ``n > max_papers`` papers, each topic (the outliers, -1, as one more group) keeps
    its share of ``max_papers`` (largest-remainder rounding, so the quotas add up to
    ``max_papers`` exactly): those of its papers with the highest cosine similarity to
    the mean of its papers' unit-length embeddings. Deterministic (ties go to the
    earlier paper).

    Returns
    -------
    numpy.ndarray
        Sorted row positions (``iloc``).
    """
    topics = np.asarray(topics)
    if not isinstance(max_papers, (int, np.integer)) or max_papers < 1:
        raise ValueError(f"max_papers must be a positive integer, got {max_papers!r}")
    n = len(topics)
    if len(embeddings) != n:
        raise ValueError(f"{len(embeddings)} embeddings for {n} papers")
    if n <= max_papers:
        return np.arange(n)
    ids, group = np.unique(topics, return_inverse=True)
    counts = np.bincount(group)
    exact = counts * max_papers / n
    quota = np.floor(exact).astype(int)
    extra = max_papers - quota.sum()
    quota[np.lexsort((np.arange(len(ids)), -(exact - quota)))[:extra]] += 1
    x = unit_rows(embeddings, dtype=np.float32)
    kept = []
    for g in range(len(ids)):
        members = np.flatnonzero(group == g)
        centre = x[members].mean(axis=0)
        centre /= max(float(np.linalg.norm(centre)), 1e-12)
        sims = x[members] @ centre
        kept.append(members[np.lexsort((members, -sims))[: quota[g]]])
    return np.sort(np.concatenate(kept))


def _embeddings(analysis: Analysis) -> np.ndarray | None:
    """The fitted embeddings, one row per paper: the analysis's own, else the model's."""
    for emb in (getattr(analysis, "embeddings", None), getattr(analysis.model, "embeddings_", None)):
        if emb is not None and len(emb) == len(analysis.documents):
            return np.asarray(emb)
    return None


def _link(url: object) -> str:
    """``url`` where it is an http(s) address, else ``""`` (no ``javascript:`` links)."""
    text = "" if url is None or url != url else str(url).strip()
    return text if text.lower().startswith(("http://", "https://")) else ""


def explorer_data(
    analysis: Analysis, *, max_papers: int | None = None, k: int = N_NEIGHBORS, pack_above: int | None = None
) -> dict:
    """The explorer's payload: plain lists and numbers, ready for :func:`script_json`.

    Parameters
    ----------
    analysis
        The result of :func:`topics.analyze`.
    max_papers
        The most papers the explorer holds (:func:`explorer_rows`; default
        :data:`EXPLORER_MAX_PAPERS`); the payload says how many it holds (``n_papers``)
        of how many (``n_documents``).
    k
        Nearest papers listed per paper, among the papers the explorer holds.
    pack_above
        Characters of titles and abstracts above which ``papers`` is gzip-compressed
        into ``packed`` (default :data:`PACK_ABOVE`; :func:`unpack` reverses it).

    Returns
    -------
    dict
        ``n_documents``, ``n_papers``, ``max_papers``, ``by`` (the grouping column),
        ``groups`` (its values, in order, as text), ``topics`` (``id``, ``label``,
        ``area``), ``areas`` (``id``, ``label``), ``themes`` (names), ``has_url``,
        ``x_span`` and ``papers``: one list per field, one entry per paper, in corpus
        order: ``title`` (the abstract's first sentence where there is no title),
        ``abstract``, ``year``, ``group`` (index into ``groups``, -1 for none; only when
        ``by`` is not ``"year"``), ``topic``, ``area``, ``confidence`` (per cent),
        ``low`` (1 for low confidence), ``pos`` (row in the documents table), ``x``,
        ``y`` (map coordinates), ``neighbors`` and ``similarity`` (``k`` indices into
        these lists and their cosine similarities in per cent), ``themes`` (indices into
        ``themes``; with themes), ``url`` (with a ``url`` column; ``""`` where a paper
        has none). Where packed, ``packed`` holds ``papers`` (:func:`pack_text` of its JSON).
    """
    max_papers = EXPLORER_MAX_PAPERS if max_papers is None else max_papers
    docs = analysis.documents
    emb = _embeddings(analysis)
    rows = explorer_rows(docs["topic"], emb, max_papers=max_papers) if emb is not None else np.arange(min(len(docs), max_papers))
    sub = docs.iloc[rows]
    coords = np.asarray(analysis.coords, dtype=float)[rows] if analysis.coords is not None else np.zeros((len(rows), 2))
    papers = _paper_fields(analysis, sub, rows, coords)
    if emb is not None:
        near, sims = nearest_papers(emb[rows], k=k)
        papers["neighbors"] = near.tolist()
        papers["similarity"] = np.rint(100 * sims).astype(int).tolist()
    themes = _theme_fields(analysis, sub, papers)
    has_url = "url" in sub.columns
    if has_url:
        papers["url"] = [_link(u) for u in sub["url"]]
    out = {
        "n_documents": len(docs),
        "n_papers": len(rows),
        "max_papers": int(max_papers),
        "by": analysis.by,
        "groups": [str(g) for g in analysis.groups] if analysis.by != "year" else [str(y) for y in sorted(docs["year"].unique())],
        "topics": _topic_list(analysis.topics),
        "areas": [
            {"id": int(a.area), "label": str(a.label)} for a in analysis.areas.itertuples(index=False) if int(a.area) != -1
        ] if len(analysis.areas) else [],
        "themes": themes,
        "has_url": has_url,
        "x_span": float(np.ptp(coords[:, 0])) if len(coords) else 0.0,
        "papers": papers,
    }
    limit = PACK_ABOVE if pack_above is None else pack_above
    if sum(map(len, papers["title"])) + sum(map(len, papers["abstract"])) > limit:
        out["packed"] = pack_text(json.dumps(out.pop("papers"), ensure_ascii=False, separators=(",", ":"), allow_nan=False))
    return out


def _paper_fields(analysis: Analysis, sub: pd.DataFrame, rows: np.ndarray, coords: np.ndarray) -> dict:
    """The explorer's per-paper lists of the papers ``sub`` (rows ``rows`` of the documents,
    at ``coords`` on the map), up to the coordinates."""
    by = analysis.by
    abstracts = sub["abstract"].fillna("").astype(str).tolist()
    titles = sub["title"].fillna("").astype(str).str.strip().tolist() if "title" in sub else [""] * len(sub)
    titles = [paper_title(t, a, max_chars=120) for t, a in zip(titles, abstracts)]
    papers: dict = {"title": titles, "abstract": abstracts, "year": [int(y) for y in sub["year"]]}
    if by != "year":
        index = {g: i for i, g in enumerate(analysis.groups)}
        papers["group"] = [index.get(g, -1) for g in sub[by]]
    papers["topic"] = [int(t) for t in sub["topic"]]
    papers["area"] = [int(a) for a in sub["area"]] if "area" in sub else [-1] * len(sub)
    papers["confidence"] = [int(round(100 * c)) if c == c else 0 for c in sub["confidence"]]
    papers["low"] = [int(v) for v in sub["low_confidence"]]
    papers["pos"] = [int(r) for r in rows]
    papers["x"] = [round(float(v), 3) for v in coords[:, 0]]
    papers["y"] = [round(float(v), 3) for v in coords[:, 1]]
    return papers


def _theme_fields(analysis: Analysis, sub: pd.DataFrame, papers: dict) -> list[str]:
    """The themes' names; with themes, each paper's themes (indices into them) join ``papers``."""
    if analysis.themes is None:
        return []
    themes = [str(t) for t in analysis.themes.summary["theme"]]
    index = {t: i for i, t in enumerate(themes)}
    members = analysis.themes.members
    per_doc: dict = {}
    for doc_id, theme in zip(members["doc_id"], members["theme"]):
        per_doc.setdefault(doc_id, []).append(index[str(theme)])
    papers["themes"] = [sorted(per_doc.get(d, [])) for d in sub["doc_id"]]
    return themes


def _topic_list(topics: pd.DataFrame) -> list[dict]:
    """The topics by id (the outliers, -1, last)."""
    return [
        {"id": int(t.topic), "label": str(t.label), "area": int(getattr(t, "area", -1))}
        for t in topics.sort_values("topic", key=lambda s: s.where(s != -1, np.iinfo(np.int64).max)).itertuples(index=False)
    ]


def pack_text(text: str) -> str:
    """``text`` gzip-compressed (level 9, no timestamp: the same text gives the same
    bytes) and base64-encoded: ASCII without ``<``, safe in any ``<script>`` element;
    the page unpacks it with ``DecompressionStream("gzip")``."""
    return base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)).decode("ascii")


def unpack_text(packed: str) -> str:
    """The text :func:`pack_text` packed."""
    return gzip.decompress(base64.b64decode(packed)).decode("utf-8")


def unpack(data: dict) -> dict:
    """The payload with packed papers put back into ``papers`` (what the browser does
    when the page opens); a payload without ``packed`` is returned as is."""
    if "packed" not in data:
        return data
    rest = {k: v for k, v in data.items() if k != "packed"}
    return {**rest, "papers": json.loads(unpack_text(data["packed"]))}


# What may not appear literally inside a <script> element: "<" (a "</script>" would end
# it, "<!--" changes how it is parsed), ">" and "&" for good measure, and the two line
# separators that older JavaScript parsers took for line ends.
_SCRIPT_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def script_json(value: object) -> str:
    """``value`` as compact JSON that is safe inside a ``<script>`` element: ``<``, ``>``,
    ``&`` and U+2028/U+2029 written as ``\\uXXXX`` escapes, which JSON reads back as the
    same characters. NaN and infinities raise ``ValueError`` (JSON has none)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).translate(_SCRIPT_ESCAPES)


def explorer_script() -> str:
    """The explorer's JavaScript (``templates/explorer.js``), to inline in the page."""
    path = os.path.join(os.path.dirname(__file__), "templates", "explorer.js")
    with open(path, encoding="utf-8") as f:
        return f.read()
