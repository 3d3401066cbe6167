"""Sentences that state what a comparison found.

Each kind of :class:`topics.stats.comparison.Comparison` tells its findings through one
function here (:meth:`~topics.stats.comparison.Comparison.narrate` calls it): the
summary of the HTML report, of the command line and of the notebooks is written from the
comparison alone, so the words stay true when the data change. The functions read a
comparison's ``table``, ``groups``, ``sizes`` and ``by``.
"""

from __future__ import annotations

import math
import numbers

import pandas as pd

__all__ = [
    "MAX_SIZES_LISTED",
    "capitalize",
    "clear_bursts",
    "describe_change",
    "describe_trend",
    "narrate_areas",
    "narrate_groups",
    "narrate_one_group",
    "narrate_pair",
    "narrate_trend",
    "narrate_years",
    "span_halves",
]

#: A trend's first sentence lists the papers of each group up to this many groups, and
#: gives the smallest and the largest over more (36 years of NeurIPS would list 36 numbers).
MAX_SIZES_LISTED = 5


def capitalize(text: str) -> str:
    """``text`` with its first character upper case (the rest unchanged)."""
    return text[:1].upper() + text[1:]


def describe_change(row: pd.Series | dict, year_a: int, year_b: int) -> str:
    """One sentence on one topic: its shares, the change with its interval, and q."""
    a, b = row[f"share_{year_a}"], row[f"share_{year_b}"]
    verb = {"grew": "grew", "shrank": "shrank"}.get(row["direction"], "went")
    return (
        f"{capitalize(str(row['label']))} {verb} from {100 * a:.1f} % to {100 * b:.1f} % of papers "
        f"({row['diff_pp']:+.1f} points, 95 % CI {row['ci_low_pp']:+.1f} to {row['ci_high_pp']:+.1f}; "
        f"q = {row['q_value']:.2g})."
    )


def narrate_areas(area_comparison, *, max_items: int = 3, alpha: float = 0.05) -> list[str]:
    """Sentences on the areas (groups of topics) of a two-year comparison built per area
    (:class:`~topics.stats.comparison.TwoGroups`): how many changed clearly, then each
    clear change (largest |z| first, at most ``max_items`` each way), or the largest
    estimated rise and fall."""
    table = area_comparison.table
    areas = table[table["topic"] != -1]
    if not len(areas):
        return []
    a, b = area_comparison.year_a, area_comparison.year_b
    grew = areas[areas["direction"] == "grew"].sort_values("z", ascending=False)
    shrank = areas[areas["direction"] == "shrank"].sort_values("z")
    n_clear = len(grew) + len(shrank)
    if len(areas) == 1 and not areas["ci_low_pp"].notna().any():  # one area holds every paper: nothing can change
        return [f"The topics fall into one area, which holds every {_basis(table).replace('papers', 'paper', 1)} in {a} and in {b}: "
                "there is no change between areas to compare."]
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


def narrate_years(comparison, *, stability: pd.DataFrame | None = None, max_items: int = 5, alpha: float = 0.05) -> list[str]:
    """Summarise a two-year comparison (:class:`~topics.stats.comparison.TwoGroups` by year).

    ``stability`` is an optional :func:`topics.stats.stability.seed_stability` table of
    the same comparison.

    Returns
    -------
    list of str
        An overview sentence; then one sentence per clear change (largest |z| first,
        at most ``max_items`` each way); where nothing changed clearly, the largest
        estimated changes with a note on what the sample sizes allow; with
        ``stability``, a last sentence on which topics and changes held across seeds.
    """
    a, b = comparison.year_a, comparison.year_b
    n_a, n_b = comparison.n_a, comparison.n_b
    comparison = comparison.table
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
    if not stability.attrs.get("refitted", True):  # the topics do not depend on the seed: nothing was refitted
        return (
            f"The topics do not depend on the seed, so no refit was needed: all {len(stability)} topics "
            "and their changes are the same with any seed."
        )
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


def _basis(comparison: pd.DataFrame) -> str:
    counted = bool(comparison["outliers_counted"].iloc[0]) if "outliers_counted" in comparison and len(comparison) else False
    return "papers" if counted else "papers with a topic"


def _listing(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'s' if n != 1 else ''}"


def _decimals(value: float, most: int = 4) -> int:
    """Decimals that show ``value`` with two significant digits below 1, one decimal from 1 up (at most ``most``)."""
    if not math.isfinite(value) or value == 0:
        return 1
    return min(most, max(1, 1 - math.floor(math.log10(abs(value)))))


def _points(value: float) -> str:
    """A signed number of percentage points: ``+4.0``, ``-0.53``, ``-0.012`` (two significant
    digits below 1, at most four decimals), never ``-0.0``."""
    value = float(value)
    text = f"{value:+.{_decimals(value)}f}"
    return "+0.0" if math.isfinite(value) and float(text) == 0 else text


def _percents(a: float, b: float) -> tuple[str, str]:
    """Two shares (0-1) as percentages, each with two significant digits below 1 % and one
    decimal from 1 % up, and more decimals for both (at most four) where two different
    shares would otherwise read the same."""
    a, b = 100 * float(a), 100 * float(b)
    da, db = _decimals(a), _decimals(b)
    while a != b and f"{a:.{da}f}" == f"{b:.{db}f}" and max(da, db) < 4:
        da = db = max(da, db) + 1
    return f"{a:.{da}f}", f"{b:.{db}f}"


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _period(groups: list) -> str:
    """The groups of a half of the span: ``2021``, ``2021 and 2022``, ``1987–2004``."""
    return _listing([str(g) for g in groups]) if len(groups) <= 2 else f"{groups[0]}–{groups[-1]}"


def span_halves(scores) -> tuple[list[bool], list[bool]]:
    """Which groups of an ordered span are in its first half and which in its second: those
    scored below the midpoint of the scores, and those above it (a group on the midpoint is
    in neither). The halves a trend's class compares (:func:`topics.stats.groups.classify_trends`)
    and its sentence quotes (:func:`describe_trend`)."""
    scores = [float(v) for v in scores]
    mid = (min(scores) + max(scores)) / 2
    return [v < mid for v in scores], [v > mid for v in scores]


def _halves(row, groups: list, scores: list, sizes: dict | None) -> list[tuple[str, float]]:
    """The (period, pooled share) of the first and of the second half of the span.

    The halves are :func:`span_halves`; a half's share is its papers on the topic over all
    its papers.
    """
    out = []
    for inside in span_halves(scores):
        half = [g for g, keep in zip(groups, inside) if keep]
        if len(half) == 1:
            out.append((_period(half), float(row[f"share_{half[0]}"])))
            continue
        if sizes is None:
            raise ValueError(
                f"describe_trend needs the papers per group (sizes=) to pool the shares of {_period(half)}; "
                "pass the comparison's sizes"
            )
        papers = sum(sizes[g] for g in half)
        out.append((_period(half), sum(float(row[f"share_{g}"]) * sizes[g] for g in half) / papers))
    return out


def describe_trend(
    row: pd.Series | dict,
    groups: list,
    *,
    unit: str = "year",
    sizes: dict | None = None,
    scores: list | None = None,
) -> str:
    """One sentence on one topic's trend: its share early and late in the span, the slope
    with its interval, and q.

    The shares are those of the first and the second half of the span, each pooled over
    its groups (papers on the topic over all papers of the half; one group per half with
    three groups): the halves :func:`topics.stats.groups.classify_trends` compares, so an
    emerging or growing topic's second share is above its first and a fading topic's
    below, where the first and last group alone could say the opposite. Shares (in %)
    and slopes (in points) keep two significant digits below 1, so a small slope is not
    printed as zero.

    Parameters
    ----------
    row
        A row of a :class:`~topics.stats.comparison.Trend` table.
    groups
        The groups in order.
    unit
        One step of the axis: "year" or "step".
    sizes
        Papers per group (the comparison's ``sizes``); needed where a half holds more
        than one group.
    scores
        The groups' positions (the comparison's ``scores``); default the groups
        themselves where they are numbers, else 0, 1, 2, ...
    """
    if scores is None:
        scores = list(groups) if all(_is_number(g) for g in groups) else list(range(len(groups)))
    (first, a), (last, b) = _halves(row, list(groups), [float(s) for s in scores], sizes)
    a_text, b_text = _percents(a, b)
    verb = {"emerging": "emerged", "growing": "grew", "fading": "faded"}.get(row["trend"])
    start = f"{verb} from {a_text} % of papers in {first} to" if verb else f"was at {a_text} % of papers in {first} and"
    slope, low, high = (_points(row[key]) for key in ("slope_pp", "slope_low_pp", "slope_high_pp"))
    return (
        f"{capitalize(str(row['label']))} {start} {b_text} % in {last} "
        f"({slope} points a {unit}, 95 % CI {low} to {high}; q = {row['q_value']:.2g})."
    )


def clear_bursts(bursts: pd.DataFrame | None, *, alpha: float = 0.05) -> pd.DataFrame:
    """The bursts of :func:`topics.stats.bursts.detect_bursts` that chance does not explain
    (``q_value`` under ``alpha``), the ones the report tells; none from a table without
    q-values (an analysis saved before the test) or from none."""
    if bursts is None:
        return pd.DataFrame(columns=["topic", "label", "start", "end", "share_burst", "share_all"])
    return bursts[bursts["q_value"] < alpha] if "q_value" in bursts.columns else bursts.iloc[:0]


def narrate_trend(trend, *, bursts: pd.DataFrame | None = None, max_items: int = 5, alpha: float = 0.05) -> list[str]:
    """Summarise a :class:`~topics.stats.comparison.Trend`: how many topics moved clearly
    and how, then each rising and fading topic (at most ``max_items`` each; its shares in
    the two halves of the span, :func:`describe_trend`), or the steepest estimated
    slopes; ``bursts`` (:func:`topics.stats.bursts.detect_bursts`) adds the surges of
    topics without a clear trend, those that chance does not explain (``q_value`` under
    ``alpha``). The papers per group are listed for up to
    :data:`MAX_SIZES_LISTED` groups; over more, the smallest and largest are given."""
    groups = list(trend.groups)
    unit = trend.step
    sizes = trend.sizes
    scores = list(trend.scores) or None
    comparison = trend.table
    if len(groups) > MAX_SIZES_LISTED:
        per_group = f"{min(sizes.values()):,} to {max(sizes.values()):,} {_basis(comparison)} each"
    else:
        per_group = f"{_listing([f'{sizes[g]:,}' for g in groups])} {_basis(comparison)}"
    classes = comparison["trend"].value_counts()
    n_clear = int(sum(classes.get(c, 0) for c in ("emerging", "growing", "fading")))
    kinds = [f"{int(classes[c])} {c}" for c in ("emerging", "growing", "fading") if classes.get(c, 0)]
    head = (
        f"From {groups[0]} to {groups[-1]} ({len(groups)} {unit}s with {per_group}), "
        + (
            f"{n_clear} of {len(comparison)} topics moved clearly (Cochran-Armitage trend test, false-discovery rate "
            f"q < {alpha:g}): {_listing(kinds)}"
            if n_clear
            else f"no topic's share moved clearly over the {len(comparison)} topics (no Cochran-Armitage q-value below {alpha:g})"
        )
    )
    n_stable, n_unclear = int(classes.get("stable", 0)), int(classes.get("no clear trend", 0))
    rest = []
    if n_stable:
        rest.append(f"{n_stable} held stable (the data rule out large changes)")
    if n_unclear:
        rest.append(f"{n_unclear} show{'s' if n_unclear == 1 else ''} no clear trend")
    sentences = [head + (f"; {_listing(rest)}." if rest else ".")]
    rising = comparison[comparison["trend"].isin(["emerging", "growing"])].sort_values("z", ascending=False)
    fading = comparison[comparison["trend"] == "fading"].sort_values("z")
    for part in (rising.head(max_items), fading.head(max_items)):
        sentences.extend(describe_trend(row, groups, unit=unit, sizes=sizes, scores=scores) for _, row in part.iterrows())
    if not n_clear and len(comparison):
        up, down = comparison.loc[comparison["slope_pp"].idxmax()], comparison.loc[comparison["slope_pp"].idxmin()]
        for lead, row, shown in (("rise", up, up["slope_pp"] > 0), ("fall", down, down["slope_pp"] < 0)):
            if shown:
                sentence = describe_trend(row, groups, unit=unit, sizes=sizes, scores=scores)
                sentences.append(f"The steepest estimated {lead}: {sentence[:1].lower()}{sentence[1:]}")
        sentences.append(
            f"With {min(sizes.values()):,} papers in the smallest {unit}, slopes of this size are within what chance allows; "
            "the intervals show the range of trends the data are compatible with."
        )
    bursts = clear_bursts(bursts, alpha=alpha)
    if len(bursts):
        quiet = comparison.loc[~comparison["trend"].isin(["emerging", "growing", "fading"]), "topic"]
        surges = bursts[bursts["topic"].isin(quiet)].head(max_items)
        for row in surges.itertuples(index=False):
            when = f"{row.start}" if row.start == row.end else f"{row.start}–{row.end}"
            sentences.append(
                f"{capitalize(str(row.label))} has no clear trend but a burst in {when} (Kleinberg 2002): "
                f"{100 * row.share_burst:.1f} % of papers then, against {100 * row.share_all:.1f} % over all {unit}s."
            )
    return sentences


def narrate_groups(grouped, *, max_items: int = 5, alpha: float = 0.05) -> list[str]:
    """Summarise a :class:`~topics.stats.comparison.Groups` comparison: how many topics
    differ clearly between the groups, then each (at most ``max_items``) with the group
    it leans to most."""
    groups = list(grouped.groups)
    by = grouped.by
    sizes = grouped.sizes
    comparison = grouped.table
    clear = comparison[comparison["leans"] != "no clear difference"]
    listed = _listing([f"{g} ({sizes[g]:,}{' ' + _basis(comparison) if i == 0 else ''})" for i, g in enumerate(groups)])
    head = f"Comparing {listed} by {by} across {len(comparison)} topics, " + (
        f"{_count(len(clear), 'topic')} differ{'s' if len(clear) == 1 else ''} clearly in share between them "
        f"(chi-square test, false-discovery rate q < {alpha:g})."
        if len(clear)
        else f"no topic's share differs clearly between them (no chi-square q-value below {alpha:g})."
    )
    def lean(row, g) -> str:
        more = "more" if row[f"z_{g}"] > 0 else "less"
        return (
            f"{capitalize(str(row['label']))} is {more} common in {g}: {100 * row[f'share_{g}']:.1f} % of {g} papers against "
            f"{100 * row['share_all']:.1f} % of all (log-odds z = {row[f'z_{g}']:.1f}; "
            + ("" if len(clear) else f"p = {row['p_value']:.2g}, ")
            + f"q = {row['q_value']:.2g})."
        )

    def strongest(row):
        return max(groups, key=lambda g: abs(row[f"z_{g}"]) if row[f"z_{g}"] == row[f"z_{g}"] else -1.0)

    sentences = [head]
    for row in clear.head(max_items).to_dict("records"):
        sentences.append(lean(row, strongest(row)))
    if not len(clear) and len(comparison):
        for row in comparison.sort_values("chi2", ascending=False).head(min(2, max_items)).to_dict("records"):
            sentences.append(f"Not clear after the correction: {_lower(lean(row, strongest(row)))}")
        sentences.append(
            f"With {min(sizes.values()):,} papers in the smallest group, only large differences could be told apart from chance."
        )
    return sentences


def narrate_pair(pair, *, max_items: int = 5, alpha: float = 0.05) -> list[str]:
    """Summarise a :class:`~topics.stats.comparison.TwoGroups` comparison of two groups
    that are not years: how many topics differ clearly, then each, largest first."""
    a, b = pair.group_a, pair.group_b
    n_a, n_b = pair.n_a, pair.n_b
    comparison = pair.table
    higher_b = comparison[comparison["direction"] == f"higher in {b}"].sort_values("z", ascending=False)
    higher_a = comparison[comparison["direction"] == f"higher in {a}"].sort_values("z")
    n_clear = len(higher_a) + len(higher_b)
    head = f"Comparing {a} ({n_a:,} {_basis(comparison)}) with {b} ({n_b:,}) across {len(comparison)} topics, " + (
        f"{_count(n_clear, 'topic')} differ{'s' if n_clear == 1 else ''} clearly in share (false-discovery rate q < {alpha:g}): "
        f"{len(higher_b)} higher in {b} and {len(higher_a)} higher in {a}."
        if n_clear
        else f"no topic's share differs clearly (no q-value below {alpha:g})."
    )

    def describe(row) -> str:
        return (
            f"{capitalize(str(row['label']))}: {100 * row[f'share_{b}']:.1f} % of {b} papers against {100 * row[f'share_{a}']:.1f} % "
            f"of {a} papers ({row['diff_pp']:+.1f} points, 95 % CI {row['ci_low_pp']:+.1f} to {row['ci_high_pp']:+.1f}; "
            f"q = {row['q_value']:.2g})."
        )

    sentences = [head]
    for part in (higher_b.head(max_items), higher_a.head(max_items)):
        sentences.extend(describe(row) for _, row in part.iterrows())
    if not n_clear and len(comparison):
        for lead, row in (("difference", comparison.loc[comparison["diff_pp"].abs().idxmax()]),):
            sentences.append(f"The largest estimated {lead}: {describe(row)[:1].lower()}{describe(row)[1:]}")
        sentences.append(
            f"With {min(n_a, n_b):,} papers in the smaller group, differences of this size are within what chance allows."
        )
    return sentences


def narrate_one_group(single, *, areas=None, max_items: int = 5) -> list[str]:
    """Describe the topics of one group (:class:`~topics.stats.comparison.OneGroup`): how
    many papers and topics, the largest topics with their shares, the areas, and that
    nothing is compared (a later year can be added with ``topics update``)."""
    table = single.table
    topics = table[table["topic"] != -1].sort_values(["n_" + str(single.group), "topic"], ascending=[False, True])
    n = int(single.sizes[single.group])
    what = f"the {single.group} papers" if single.by == "year" else f"the papers of {single.by} {single.group}"
    basis = _basis(table)
    counted = "" if single.outliers_counted else " with a topic"
    sentences = [f"{capitalize(what)} ({_count(n, 'paper')}{counted}) fall into {_count(len(topics), 'topic')}."]
    top = [f"{row['label']} ({100 * row['share_' + str(single.group)]:.1f} %)" for _, row in topics.head(max_items).iterrows()]
    if top:
        sentences.append(f"The largest: {_listing(top)}.")
    if areas is not None:
        n_areas = int((areas.table["topic"] != -1).sum())
        if n_areas > 1:
            sentences.append(f"The topics group into {n_areas} areas.")
    sentences.append(
        f"With one {single.by} there is nothing to compare: "
        f"shares are of {basis}, and the command “topics update” adds a later year to a saved analysis."
    )
    return sentences
