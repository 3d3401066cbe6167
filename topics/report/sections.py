"""The report's sections as plain rows and cards for the template (:mod:`topics.report.render`).

Each function reads an :class:`topics.pipeline.Analysis` and returns lists of dicts of
numbers and text; the Jinja2 template escapes and lays them out.
"""

from __future__ import annotations

import numpy as np

from topics.figures.style import PALETTE, topic_colors
from topics.pipeline import Analysis
from topics.report.kinds import tag
from topics.stats.stability import refits_ran
from topics.text import first_sentence, paper_title, plain_text
from topics.themes.tracking import narrate_themes, theme_topics
from topics.vectors import unit_rows

__all__ = ["area_rows", "new_in_year_section", "new_topic_section", "novel_against_chance", "theme_section", "topic_cards"]


def topic_cards(analysis: Analysis) -> list[dict]:
    groups = analysis.groups
    a, b = groups[0], groups[-1]
    comparison = analysis.comparison
    comp = comparison.table.set_index("topic")
    reps = analysis.representatives
    colors = topic_colors(analysis.topics["topic"])
    refitted = refits_ran(analysis.stability, method=analysis.settings.params.get("method"))
    stability = analysis.stability.set_index("topic") if refitted else None  # no claim of refits that did not run
    cards = []
    for row in analysis.topics.itertuples(index=False):
        if row.topic == -1:
            continue
        c = comp.loc[row.topic] if row.topic in comp.index else None
        papers = [
            {"title": paper_title(r.title, r.abstract), "year": r.year, "abstract": first_sentence(plain_text(r.abstract), max_chars=300)}
            for r in reps[reps["topic"] == row.topic].itertuples(index=False)
        ]
        back = stability.loc[row.topic] if stability is not None and row.topic in stability.index else None
        cards.append(
            {
                "recovered": int(back["recovered"]) if back is not None else None,
                "n_seeds": int(back["n_seeds"]) if back is not None else None,
                "topic": row.topic,
                "label": row.label,
                "name_coverage": float(row.name_coverage),
                "mixed": bool(row.mixed),
                "transferred": bool(getattr(row, "transferred", False)),
                "color": colors[row.topic],
                "terms": row.top_terms,
                "area": row.area_label,
                "confidence": float(row.mean_confidence),
                "n_low": int(analysis.documents.loc[analysis.documents["topic"] == row.topic, "low_confidence"].sum()),
                "n_docs": row.n_docs,
                "n_a": int(c[f"n_{a}"]) if c is not None else 0,
                "n_b": int(c[f"n_{b}"]) if c is not None else 0,
                "share_a": float(c[f"share_{a}"]) if c is not None else 0.0,
                "share_b": float(c[f"share_{b}"]) if c is not None else 0.0,
                "direction": c["direction"] if c is not None and "direction" in c else "",
                "per_group": [
                    {"name": g, "n": int(c[f"n_{g}"]) if c is not None else 0, "share": float(c[f"share_{g}"]) if c is not None else 0.0}
                    for g in groups
                ],
                "tag": tag(comparison, c)[0],
                "tag_class": tag(comparison, c)[1],
                "papers": papers,
            }
        )
    return cards


def area_rows(analysis: Analysis) -> list[dict]:
    """Each area with its change and its topics (largest first), for the drill-down table
    of a two-group comparison (other kinds show their areas in a chart); else ``[]``."""
    if not len(analysis.areas) or "diff_pp" not in analysis.area_comparison.table:
        return []
    a, b = analysis.groups[0], analysis.groups[-1]
    comp = analysis.area_comparison.table.set_index("topic")
    topic_comp = analysis.comparison.table.set_index("topic")
    rows = []
    for area in analysis.areas.itertuples(index=False):
        if area.area == -1 or area.area not in comp.index:
            continue
        c = comp.loc[area.area]
        members = analysis.topics[(analysis.topics["area"] == area.area) & (analysis.topics["topic"] != -1)]
        rows.append(
            {
                "area": int(area.area), "label": area.label, "n_docs": int(area.n_docs),
                "transferred": bool(getattr(area, "transferred", False)), "mixed": bool(getattr(area, "mixed", False)),
                "share_a": float(c[f"share_{a}"]), "share_b": float(c[f"share_{b}"]),
                "diff": float(c["diff_pp"]), "low": float(c["ci_low_pp"]), "high": float(c["ci_high_pp"]),
                "q": float(c["q_value"]), "direction": c["direction"],
                "topics": [
                    {
                        "topic": int(t.topic), "label": t.label, "n_docs": int(t.n_docs),
                        "diff": float(topic_comp.loc[t.topic, "diff_pp"]) if t.topic in topic_comp.index else float("nan"),
                        "direction": topic_comp.loc[t.topic, "direction"] if t.topic in topic_comp.index else "",
                    }
                    for t in members.itertuples(index=False)
                ],
            }
        )
    return rows


def theme_section(analysis: Analysis) -> dict | None:
    """Rows, cards and sentences of the "Your themes" section; ``None`` without themes."""
    tracking = analysis.themes
    if tracking is None:
        return None
    a, b = tracking.year_a, tracking.year_b
    sentences = narrate_themes(tracking.summary)
    placed = theme_topics(tracking, analysis.documents)
    rows, cards = [], []
    for k, r in enumerate(tracking.summary.to_dict("records")):
        rows.append({
            "theme": r["theme"], "n_a": int(r[f"n_{a}"]), "n_b": int(r[f"n_{b}"]), "share_a": r[f"share_{a}"],
            "share_b": r[f"share_{b}"], "diff": r["diff_pp"], "low": r["ci_low_pp"], "high": r["ci_high_pp"], "q": r["q_value"],
            "direction": r["direction"], "n_members": int(r["n_members"]), "n_phrase": int(r["n_phrase"]),
            "n_similarity": int(r["n_similarity"]), "n_example": int(r["n_example"]),
            "cut": None if r["cut"] != r["cut"] else float(r["cut"]), "acronyms": r["acronyms"],
        })
        top = tracking.top_papers[tracking.top_papers["theme"] == r["theme"]]
        years = [
            {"year": int(y), "papers": [{"title": p.title or p.doc_id, "similarity": p.similarity, "source": p.source}
                                        for p in part.itertuples(index=False)]}
            for y, part in top.groupby("year", sort=True)
        ]
        where = placed[placed["theme"] == r["theme"]]
        cards.append({
            "theme": r["theme"], "color": PALETTE[k % len(PALETTE)], "direction": r["direction"],
            "sentences": sentences[2 * k: 2 * k + 2], "years": years,
            "topics": [{"topic": int(t.topic), "label": t.topic_label, "n_docs": int(t.n_docs), "share": t.share}
                       for t in where.itertuples(index=False)],
        })
    return {"rows": rows, "cards": cards}


def new_topic_section(analysis: Analysis, *, max_papers: int = 12) -> dict | None:
    """The "New in <year>" section of an updated analysis (:func:`topics.update.update`):
    what was added, and each candidate new topic with its papers (the ``max_papers``
    nearest its centre first); ``None`` where no papers were added."""
    added = analysis.new_papers
    if not len(added):
        return None
    about = analysis.settings.update or {}
    years = about.get("years") or sorted(int(y) for y in added["year"].unique())
    docs = analysis.documents
    colors = topic_colors(analysis.topics["topic"])
    emb = analysis.embeddings
    topics = []
    for row in analysis.new_topics.itertuples(index=False):
        members = np.flatnonzero(docs["topic"].to_numpy() == row.topic)
        centre = analysis.model.topic_embeddings_[row.topic]
        x = unit_rows(emb[members])
        order = members[np.argsort(-(x @ centre), kind="stable")]
        topics.append({
            "topic": int(row.topic), "label": row.label, "n_docs": int(row.n_docs), "terms": row.top_terms,
            "area": row.area_label, "color": colors[row.topic], "name_coverage": float(row.name_coverage),
            "tightness": float(row.tightness),
            "papers": [{"title": paper_title(docs["title"].iloc[i], docs["abstract"].iloc[i]), "year": int(docs["year"].iloc[i])}
                       for i in order[:max_papers]],
            "more": max(0, len(order) - max_papers),
        })
    return {
        "years": "–".join(str(y) for y in (years[0], years[-1])) if len(years) > 1 else str(years[0]),
        "fitted_years": ", ".join(map(str, about.get("fitted_years", []))),
        "n_new": len(added), "n_novel": int(added["novel"].sum()), "n_outliers": int((added["topic"] == -1).sum()),
        "expected_novel": about.get("novelty_quantile", 0) * len(added),
        "novel_vs_chance": novel_against_chance(int(added["novel"].sum()), len(added), about.get("novelty_quantile")),
        "cut": about.get("novelty_cut"), "quantile": about.get("novelty_quantile"),
        "min_cluster_size": about.get("min_cluster_size"), "method": about.get("method"), "topics": topics,
    }


def novel_against_chance(n_novel: int, n_new: int, quantile: float | None) -> str:
    """"about", "more than" or "fewer than": how ``n_novel`` of ``n_new`` papers compare
    with the ``quantile`` that chance makes novel (two-sided exact binomial test at 0.05)."""
    from scipy.stats import binomtest

    if not n_new or not quantile:
        return "about"
    if binomtest(n_novel, n_new, quantile).pvalue >= 0.05:
        return "about"
    return "more than" if n_novel > quantile * n_new else "fewer than"


def new_in_year_section(analysis: Analysis, *, max_rows: int = 10) -> dict | None:
    """What the last year compared brought (:func:`topics.pipeline.new_in_last_year`):
    its emerging sub-topics, then its rising phrases; ``None`` where the analysis compares
    no years (one year, or another grouping)."""
    years = analysis.settings.years or []
    if analysis.by != "year" or len(years) < 2:
        return None
    latest = int(years[-1])
    docs = analysis.documents
    subtopics = [
        {
            "name": r.name, "parent": r.topic_label, "topic": int(r.topic), "n_docs": int(r.n_docs), "n_latest": int(r.n_latest),
            "share_before": float(r.share_before), "share_latest": float(r.share_latest), "low": float(r.low), "high": float(r.high),
            "q": float(r.q), "examples": [e for e in str(r.examples).split("; ") if e],
        }
        for r in analysis.emerging.head(max_rows).itertuples(index=False)
    ]
    phrases = [
        {
            "phrase": r.phrase, "n_latest": int(r.n_latest), "n_before": int(r.n_before), "share_latest": float(r.share_latest),
            "share_before": float(r.share_before), "low": float(r.low), "high": float(r.high), "q": float(r.q), "topics": r.topics,
        }
        for r in analysis.rising.head(max_rows).itertuples(index=False)
    ]
    return {
        "year": latest, "before": ", ".join(str(y) for y in years[:-1]), "n_latest": int((docs["year"] == latest).sum()),
        "subtopics": subtopics, "phrases": phrases,
    }
