"""Where on the map the latest year grew: its papers' density against the earlier years'.

Emerging sub-topics and rising phrases say *what* a new year brought; the map should say
*where*. :func:`year_density` smooths each side's papers into a density over the map
(a two-dimensional histogram on a regular grid convolved with a Gaussian kernel, the
binned kernel density estimate of Wand 1994), each normalised to sum to one so that years
of different size compare fairly, and returns their difference per grid cell.

:func:`growth_peaks` then marks the places where the latest year grew beyond chance. At
each cell, the papers near it (weighted by the same kernel) hold a share of the latest
year; its excess over the year's share of all papers, divided by its standard error under
years drawn at random (a binomial over the kernel-weighted papers), is the cell's ``z``
(cells with fewer than ``min_papers`` papers near them, a paper at the cell's centre
counting one and others by the kernel, get none). Every local maximum
of ``z`` is a candidate, kept when its ``z`` is larger than the largest ``z`` anywhere on
the map in all but ``alpha`` of the maps drawn with the years shuffled among the papers: a
permutation test of the maximum, which holds the family-wise error over the whole map
(Westfall & Young 1993; the scan over the map is in the null distribution, as in
Kulldorff's spatial scan statistic, Kulldorff 1997). Each kept peak is named by the topic
that holds most of the latest year's papers near it.

The bandwidth is the median distance from a paper to its ``k``-th nearest paper on the
map, ``k`` as many papers as the smallest emerging sub-topic
(:func:`topics.clustering.emerging.emerging_subtopics`: 1 % of the latest year, at least
5), so that a group that small stands out. Scott's rule (Scott 1992) assumes one blob and
blurs a map of many clusters into one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["DENSITY_COLUMNS", "PEAK_COLUMNS", "growth_peaks", "year_density"]

#: The columns of :func:`year_density`.
DENSITY_COLUMNS = ["x", "y", "density_latest", "density_before", "difference", "z"]
#: The columns of :func:`growth_peaks`.
PEAK_COLUMNS = ["x", "y", "difference", "z", "n_near", "n_latest", "share_latest", "p", "topic", "topic_label"]


def _latest_mask(years: Sequence[int], latest: int | None) -> tuple[np.ndarray, np.ndarray, int]:
    """(papers of the latest year, papers before it, the latest year)."""
    years = np.asarray(years)
    latest = int(years.max()) if latest is None else int(latest)
    return years == latest, years < latest, latest


def _smooth(weights: np.ndarray, sigma: tuple[float, float]) -> np.ndarray:
    """``weights`` on the grid convolved with the Gaussian kernel (``sigma`` in cells)."""
    from scipy.ndimage import gaussian_filter

    return gaussian_filter(weights, sigma=sigma, mode="constant")


def _cells(points: np.ndarray, edges: list[np.ndarray]) -> np.ndarray:
    """Each point's cell on the grid of ``edges``, as a flat index (rows: y)."""
    ex, ey = edges
    col = np.clip(np.searchsorted(ex, points[:, 0], side="right") - 1, 0, len(ex) - 2)
    row = np.clip(np.searchsorted(ey, points[:, 1], side="right") - 1, 0, len(ey) - 2)
    return row * (len(ex) - 1) + col


def _excess(latest: np.ndarray, total: np.ndarray, share: float, sigma: tuple[float, float], min_papers: float) -> np.ndarray:
    """Per cell, the z of the latest year's kernel-weighted papers near it against ``share``
    of all papers near it (module docs); NaN where fewer than ``min_papers`` papers are near."""
    from scipy.ndimage import gaussian_filter

    near_latest = gaussian_filter(latest, sigma=sigma, mode="constant")
    near = gaussian_filter(total, sigma=sigma, mode="constant")
    # the sum of squared weights: the squared Gaussian is a Gaussian of sigma / sqrt(2), scaled
    squares = gaussian_filter(total, sigma=(sigma[0] / np.sqrt(2), sigma[1] / np.sqrt(2)), mode="constant") / (4 * np.pi * sigma[0] * sigma[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (near_latest - share * near) / np.sqrt(share * (1 - share) * squares)
    weighed = near * 2 * np.pi * sigma[0] * sigma[1]  # papers near the cell, one at its centre counting 1
    return np.where(weighed >= min_papers, z, np.nan)


def _bandwidth(points: np.ndarray, k: int, *, max_points: int = 20_000) -> float:
    """The median distance from a point to its ``k``-th nearest other point; above
    ``max_points`` points, measured on a seeded sample of them, to the neighbour that
    holds as large a share of the sample as the ``k``-th does of all points."""
    from scipy.spatial import cKDTree

    if len(points) > max_points:
        k = max(1, round(k * max_points / len(points)))
        points = points[np.random.default_rng(0).choice(len(points), size=max_points, replace=False)]
    k = min(k, len(points) - 1)
    distances, _ = cKDTree(points).query(points, k=k + 1)
    return float(max(np.median(distances[:, -1]), 1e-9))


def _edges(density: pd.DataFrame) -> list[np.ndarray]:
    """The cell edges of a :func:`year_density` grid along x and y."""
    out = []
    for axis, width in zip(("x", "y"), density.attrs["cell"]):
        centres = np.unique(density[axis].to_numpy())
        out.append(np.r_[centres - width / 2, centres[-1] + width / 2])
    return out


def year_density(
    coords: np.ndarray,
    years: Sequence[int],
    *,
    latest: int | None = None,
    grid: int = 96,
    bandwidth: tuple[float, float] | None = None,
    floor: float = 0.02,
    min_papers: float = 5,
) -> pd.DataFrame:
    """The density of the ``latest`` year's papers on the map against the earlier years'.

    Parameters
    ----------
    coords
        The map, one (x, y) row per paper.
    years
        Per paper, its year; papers after ``latest`` are left out.
    latest
        The year set against every earlier one; default the last.
    grid
        Cells along each axis.
    bandwidth
        The Gaussian kernel's standard deviation along x and y, in map units; default
        the median distance to the ``k``-th nearest paper (module docs).
    floor
        Cells where both densities are below this share of the larger density's peak
        (the map's empty space) get NaN, so a figure leaves them blank.
    min_papers
        The fewest papers near a cell for its ``z`` (one at its centre counting one,
        others by the kernel).

    Returns
    -------
    pandas.DataFrame
        One row per grid cell (:data:`DENSITY_COLUMNS`), x varying fastest: the cell's
        centre ``x``, ``y``; ``density_latest`` and ``density_before``, each side's
        smoothed share of its papers in the cell (each sums to one over the grid, less
        the kernel's tails beyond its margin of two bandwidths); and
        ``difference``, latest minus before; ``z``, the excess of the latest year among
        the papers near the cell over its share of all papers, in standard errors
        (module docs). ``attrs`` holds ``latest``, ``bandwidth`` (x, y), ``cell`` (the
        cell's width and height), ``n_latest``, ``n_before`` and ``min_papers``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> coords = np.vstack([rng.normal(0, 1, (200, 2)), rng.normal(4, 0.5, (100, 2))])
    >>> years = np.r_[np.full(200, 2023), np.full(100, 2024)]
    >>> grid = year_density(coords, years, grid=32)
    >>> peak = grid.loc[grid["difference"].idxmax()]
    >>> bool(abs(peak["x"] - 4) < 1 and abs(peak["y"] - 4) < 1)
    True
    """
    coords = np.asarray(coords, dtype=np.float64)
    is_latest, is_before, latest = _latest_mask(years, latest)
    if coords.shape != (len(is_latest), 2):
        raise ValueError(f"coords must have shape ({len(is_latest)}, 2), got {coords.shape}")
    if not is_latest.any() or not is_before.any():
        raise ValueError(f"year_density needs papers of {latest} and of earlier years")
    used = coords[is_latest | is_before]
    n_latest = int(is_latest.sum())
    if bandwidth is None:
        bandwidth = (_bandwidth(used, max(5, int(np.ceil(0.01 * n_latest)))),) * 2
    h = np.asarray(bandwidth, dtype=np.float64)
    low, high = used.min(axis=0) - 2 * h, used.max(axis=0) + 2 * h  # room for the kernel's tails
    edges = [np.linspace(low[d], high[d], grid + 1) for d in (0, 1)]
    cell = np.array([edges[0][1] - edges[0][0], edges[1][1] - edges[1][0]])
    sigma = (h[1] / cell[1], h[0] / cell[0])  # in cells, rows (y) first
    cells = _cells(used, edges)
    from_latest = is_latest[is_latest | is_before]
    latest_counts = np.bincount(cells[from_latest], minlength=grid * grid).reshape(grid, grid).astype(np.float64)
    total = np.bincount(cells, minlength=grid * grid).reshape(grid, grid).astype(np.float64)
    dl = _smooth(latest_counts / n_latest, sigma)
    db = _smooth((total - latest_counts) / (len(used) - n_latest), sigma)
    empty = np.maximum(dl, db) < floor * max(dl.max(), db.max())
    z = _excess(latest_counts, total, n_latest / len(used), sigma, min_papers)
    centres = [(e[:-1] + e[1:]) / 2 for e in edges]
    xx, yy = np.meshgrid(centres[0], centres[1])
    frame = pd.DataFrame({"x": xx.ravel(), "y": yy.ravel(), "density_latest": dl.ravel(), "density_before": db.ravel(),
                          "difference": np.where(empty, np.nan, dl - db).ravel(), "z": np.where(empty, np.nan, z).ravel()},
                         columns=DENSITY_COLUMNS)
    frame.attrs.update(latest=latest, bandwidth=(float(h[0]), float(h[1])), cell=(float(cell[0]), float(cell[1])),
                       n_latest=n_latest, n_before=int(is_before.sum()), min_papers=float(min_papers))
    return frame


def _local_maxima(density: pd.DataFrame) -> pd.DataFrame:
    """The grid's cells whose positive ``z`` is the largest within one bandwidth, largest first."""
    from scipy.ndimage import maximum_filter

    nx = int(density["x"].nunique())
    z = np.nan_to_num(density["z"].to_numpy().reshape(-1, nx), nan=-np.inf)
    (hx, hy), (cx, cy) = density.attrs["bandwidth"], density.attrs["cell"]
    size = (2 * max(1, round(hy / cy)) + 1, 2 * max(1, round(hx / cx)) + 1)
    is_max = (z == maximum_filter(z, size=size, mode="constant", cval=-np.inf)) & (z > 0)
    return density.iloc[np.flatnonzero(is_max.ravel())].sort_values("z", ascending=False, kind="stable")


def _permuted_maxima(coords: np.ndarray, is_latest: np.ndarray, density: pd.DataFrame, n_permutations: int,
                     random_state: int) -> np.ndarray:
    """The largest ``z`` over the map's shown cells with the years shuffled among the papers
    compared, once per permutation."""
    edges, (hx, hy), (cx, cy) = _edges(density), density.attrs["bandwidth"], density.attrs["cell"]
    shape = (len(edges[1]) - 1, len(edges[0]) - 1)
    cells = _cells(coords, edges)  # binned once; a shuffle only moves the years
    total = np.bincount(cells, minlength=shape[0] * shape[1]).reshape(shape).astype(np.float64)
    shown = ~np.isnan(density["difference"].to_numpy())
    rng, share = np.random.default_rng(random_state), float(is_latest.mean())
    out = np.full(n_permutations, -np.inf)
    for k in range(n_permutations):
        latest = np.bincount(cells[rng.permutation(is_latest)], minlength=total.size).reshape(shape).astype(np.float64)
        z = _excess(latest, total, share, (hy / cy, hx / cx), density.attrs["min_papers"]).ravel()[shown]
        if np.isfinite(z).any():
            out[k] = np.nanmax(z)
    return out


def growth_peaks(
    density: pd.DataFrame,
    coords: np.ndarray,
    years: Sequence[int],
    *,
    topics: Sequence[int] | None = None,
    topic_labels: dict[int, str] | None = None,
    alpha: float = 0.05,
    max_peaks: int = 5,
    n_permutations: int = 99,
    random_state: int = 0,
) -> pd.DataFrame:
    """The places where the latest year grew beyond chance (module docs).

    Parameters
    ----------
    density
        :func:`year_density` of these ``coords`` and ``years``.
    coords, years
        The map and each paper's year, as given to :func:`year_density`.
    topics, topic_labels
        Per paper its topic (-1 for none), and the topics' names: each peak is named by
        the topic that holds most of its latest-year papers within two bandwidths.
    alpha
        The family-wise error rate over the whole map.
    max_peaks
        The most peaks returned.
    n_permutations, random_state
        How many shuffles of the years the test draws, and their seed.

    Returns
    -------
    pandas.DataFrame
        One row per peak, largest ``z`` first (:data:`PEAK_COLUMNS`): its cell's ``x``,
        ``y``, ``difference`` and ``z``; ``n_near`` papers compared within two bandwidths
        of it (an ellipse with twice the bandwidth's axes), ``n_latest`` of them of the latest
        year and their ``share_latest``; ``p``, the share of shuffles (counting the
        data's own) whose largest ``z`` anywhere on the map is at least as large;
        ``topic`` and ``topic_label`` (-1 and "" without ``topics``).
    """
    coords = np.asarray(coords, dtype=np.float64)
    is_latest, is_before, _ = _latest_mask(years, density.attrs["latest"])
    used = is_latest | is_before
    candidates = _local_maxima(density)
    maxima = _permuted_maxima(coords[used], is_latest[used], density, n_permutations, random_state) if len(candidates) else np.array([])
    hx, hy = density.attrs["bandwidth"]
    rows = []
    for c in candidates.itertuples(index=False):
        p = (1 + int((maxima >= c.z).sum())) / (1 + n_permutations)
        if p > alpha:
            break  # the candidates come largest first
        near = used & (((coords[:, 0] - c.x) / hx) ** 2 + ((coords[:, 1] - c.y) / hy) ** 2 <= 4)
        k, n = int((near & is_latest).sum()), int(near.sum())
        topic = _main_topic(topics, near & is_latest)
        rows.append({"x": float(c.x), "y": float(c.y), "difference": float(c.difference), "z": float(c.z), "n_near": n, "n_latest": k,
                     "share_latest": k / n if n else float("nan"), "p": p, "topic": topic,
                     "topic_label": (topic_labels or {}).get(topic, "" if topic == -1 else str(topic))})
    return pd.DataFrame(rows, columns=PEAK_COLUMNS).head(max_peaks)


def _main_topic(topics: Sequence[int] | None, mask: np.ndarray) -> int:
    """The topic of most of the masked papers (the smallest id of a tie); -1 for none."""
    if topics is None:
        return -1
    counts = Counter(int(t) for t in np.asarray(topics)[mask] if int(t) != -1)
    return min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0] if counts else -1
