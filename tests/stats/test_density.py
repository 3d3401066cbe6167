"""Where on the map the latest year grew (topics.stats.density): a planted cluster of new
papers is found where it was planted; years shuffled evenly over the papers give no peak."""

import numpy as np
import pytest

from topics.stats.density import DENSITY_COLUMNS, PEAK_COLUMNS, growth_peaks, year_density


def _planted(seed=0, new_cluster=150):
    """Three blobs in every year; in the last year a fourth blob at (8, 8) as well."""
    rng = np.random.default_rng(seed)
    centres = [(0, 0), (8, 0), (0, 8)]
    old = np.vstack([rng.normal(c, 1.0, (300, 2)) for c in centres])
    new = np.vstack([rng.normal(c, 1.0, (200, 2)) for c in centres] + [rng.normal((8, 8), 1.0, (new_cluster, 2))])
    topics = np.r_[np.repeat([0, 1, 2], 300), np.repeat([0, 1, 2], 200), np.full(new_cluster, 1)]
    return np.vstack([old, new]), np.r_[np.full(len(old), 2023), np.full(len(new), 2024)], topics


def test_the_density_difference_peaks_where_the_new_year_grew():
    coords, years, _ = _planted()
    grid = year_density(coords, years)
    assert list(grid.columns) == DENSITY_COLUMNS and len(grid) == 96 * 96
    assert grid["density_latest"].sum() == pytest.approx(1, abs=0.02)
    assert grid["density_before"].sum() == pytest.approx(1, abs=0.02)
    peak = grid.loc[grid["difference"].idxmax()]
    assert np.hypot(peak["x"] - 8, peak["y"] - 8) < 1
    low = grid.loc[grid["difference"].idxmin()]  # the old blobs hold a smaller share of the new year
    assert min(np.hypot(low["x"] - cx, low["y"] - cy) for cx, cy in [(0, 0), (8, 0), (0, 8)]) < 1.5
    assert grid["difference"].isna().any()  # empty space is left blank
    assert grid.attrs["latest"] == 2024 and (grid.attrs["n_latest"], grid.attrs["n_before"]) == (750, 900)


def test_a_planted_new_cluster_is_the_one_significant_peak_named_by_its_topic():
    coords, years, topics = _planted()
    peaks = growth_peaks(year_density(coords, years), coords, years, topics=topics, topic_labels={0: "a", 1: "b", 2: "c"})
    assert list(peaks.columns) == PEAK_COLUMNS
    assert len(peaks) == 1
    peak = peaks.iloc[0]
    assert np.hypot(peak["x"] - 8, peak["y"] - 8) < 1
    assert peak["topic_label"] == "b" and peak["p"] == pytest.approx(0.01)
    assert peak["share_latest"] > 0.9 and peak["n_latest"] <= peak["n_near"]


def test_years_spread_evenly_give_a_peak_about_as_often_as_alpha():
    coords, years, topics = _planted()
    found = []
    for seed in range(20):
        shuffled = np.random.default_rng(seed).permutation(years)
        found.append(len(growth_peaks(year_density(coords, shuffled), coords, shuffled, topics=topics, random_state=seed)))
    assert sum(n > 0 for n in found) <= 3  # at alpha = 0.05, 4 or more of 20 has probability 0.016


def test_papers_after_the_latest_year_are_left_out_and_a_year_alone_is_refused():
    coords, years, _ = _planted()
    later = np.vstack([coords, np.full((50, 2), 20.0)])
    grid = year_density(later, np.r_[years, np.full(50, 2025)], latest=2024)
    assert grid["x"].max() < 15 and grid.attrs["n_latest"] == 750
    with pytest.raises(ValueError, match="earlier years"):
        year_density(coords, np.full(len(coords), 2024))
    with pytest.raises(ValueError, match="shape"):
        year_density(coords[:10], years)
