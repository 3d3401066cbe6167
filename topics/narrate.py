"""Sentences that state what a year-to-year comparison found.

:func:`narrate` writes the summary of the HTML report and of the notebooks from the
comparison table alone, so the words stay true when the data change.
"""

from __future__ import annotations

import pandas as pd

__all__ = ["describe_change", "narrate", "narrate_areas"]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def describe_change(row: pd.Series | dict, year_a: int, year_b: int) -> str:
    """One sentence on one topic: its shares, the change with its interval, and q."""
    a, b = row[f"share_{year_a}"], row[f"share_{year_b}"]
    verb = {"grew": "grew", "shrank": "shrank"}.get(row["direction"], "went")
    return (
        f"{_cap(str(row['label']))} {verb} from {100 * a:.1f} % to {100 * b:.1f} % of papers "
        f"({row['diff_pp']:+.1f} points, 95 % CI {row['ci_low_pp']:+.1f} to {row['ci_high_pp']:+.1f}; "
        f"q = {row['q_value']:.2g})."
    )


def narrate_areas(area_comparison: pd.DataFrame, *, max_items: int = 3, alpha: float = 0.05) -> list[str]:
    """Sentences on the areas (groups of topics) of a :func:`topics.trends.compare_years`
    table built per area: how many changed clearly, then each clear change (largest |z|
    first, at most ``max_items`` each way), or the largest estimated rise and fall."""
    areas = area_comparison[area_comparison["topic"] != -1]
    if not len(areas):
        return []
    a, b = int(area_comparison.attrs["year_a"]), int(area_comparison.attrs["year_b"])
    grew = areas[areas["direction"] == "grew"].sort_values("z", ascending=False)
    shrank = areas[areas["direction"] == "shrank"].sort_values("z")
    n_clear = len(grew) + len(shrank)
    lead = f"The topics fall into {len(areas)} area{'s' if len(areas) != 1 else ''}; "
    if n_clear:
        sentences = [lead + f"{n_clear} changed clearly in share from {a} to {b} ({len(grew)} grew, {len(shrank)} shrank)."]
        for part in (grew.head(max_items), shrank.head(max_items)):
            sentences.extend(f"Area {describe_change(row, a, b)}" for _, row in part.iterrows())
        return sentences
    sentences = [lead + f"no area's share changed clearly from {a} to {b} (no q-value below {alpha:g})."]
    rise, fall = areas.loc[areas["diff_pp"].idxmax()], areas.loc[areas["diff_pp"].idxmin()]
    if rise["diff_pp"] > 0:
        sentences.append(f"The largest estimated rise among areas: {_lower(describe_change(rise, a, b))}")
    if fall["diff_pp"] < 0:
        sentences.append(f"The largest estimated fall among areas: {_lower(describe_change(fall, a, b))}")
    return sentences


def _lower(sentence: str) -> str:
    return sentence[:1].lower() + sentence[1:]


def narrate(
    comparison: pd.DataFrame, *, stability: pd.DataFrame | None = None, max_items: int = 5, alpha: float = 0.05
) -> list[str]:
    """Summarise a :func:`topics.trends.compare_years` table as plain sentences.

    ``stability`` is an optional :func:`topics.stability.seed_stability` table of the
    same comparison.

    Returns
    -------
    list of str
        An overview sentence; then one sentence per clear change (largest |z| first,
        at most ``max_items`` each way); where nothing changed clearly, the largest
        estimated rise and fall with a note on what the sample sizes allow; with
        ``stability``, a last sentence on which topics and changes held across seeds.
    """
    a, b = int(comparison.attrs["year_a"]), int(comparison.attrs["year_b"])
    n_a, n_b = int(comparison.attrs["n_a"]), int(comparison.attrs["n_b"])
    counted = bool(comparison["outliers_counted"].iloc[0]) if "outliers_counted" in comparison and len(comparison) else False
    basis = "all papers" if counted else "papers assigned to a topic"
    grew = comparison[comparison["direction"] == "grew"].sort_values("z", ascending=False)
    shrank = comparison[comparison["direction"] == "shrank"].sort_values("z")
    n_clear = len(grew) + len(shrank)
    sentences = [
        f"Comparing {a} ({n_a} {basis}) with {b} ({n_b}) across {len(comparison)} topics, "
        + (
            f"{n_clear} topic{'s' if n_clear != 1 else ''} changed clearly in share "
            f"(false-discovery rate q < {alpha:g}): {len(grew)} grew and {len(shrank)} shrank."
            if n_clear
            else f"no topic's share changed clearly (no q-value below {alpha:g})."
        )
    ]
    for part in (grew.head(max_items), shrank.head(max_items)):
        sentences.extend(describe_change(row, a, b) for _, row in part.iterrows())
    if not n_clear and len(comparison):
        rise = comparison.loc[comparison["diff_pp"].idxmax()]
        fall = comparison.loc[comparison["diff_pp"].idxmin()]
        for lead, row, shown in (("rise", rise, rise["diff_pp"] > 0), ("fall", fall, fall["diff_pp"] < 0)):
            if shown:
                sentence = describe_change(row, a, b)
                sentences.append(f"The largest estimated {lead}: {sentence[:1].lower()}{sentence[1:]}")
        sentences.append(
            f"With {min(n_a, n_b)} papers in the smaller year, differences of this size are within what chance allows; "
            "the intervals show the range of changes the data are compatible with."
        )
    if stability is not None and len(stability):
        sentences.append(_stability_sentence(comparison, stability))
    return sentences


def _stability_sentence(comparison: pd.DataFrame, stability: pd.DataFrame) -> str:
    n = int(stability["n_seeds"].iloc[0])
    seeds = f"{n} other seed{'s' if n != 1 else ''}"
    back = int((stability["recovered"] == n).sum())
    lead = f"Refitted with {seeds}, {back} of {len(stability)} topics came back every time"
    clear = comparison.loc[comparison["direction"].isin(["grew", "shrank"]), "topic"]
    held = stability[stability["topic"].isin(clear)]
    if not len(held):
        return lead + "."
    fragile = held.loc[~held["stable"], "label"].tolist()
    text = f"{lead}; {int(held['stable'].sum())} of the {len(held)} clear changes held in every seed"
    return text + (f" (not: {', '.join(fragile)})." if fragile else ".")
