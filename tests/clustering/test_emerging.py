import numpy as np
import pytest

from topics.clustering.emerging import EMERGING_COLUMNS, emerging_subtopics, scan_branches


def planted(seed=0, per_year=60):
    """Two topics over three years. Inside topic 0, a sub-theme ("flow matching") appears
    only in the last year; inside topic 1, a sub-theme ("graph pooling") is spread evenly
    over the years."""
    rng = np.random.default_rng(seed)
    dim = 32
    centres = {name: rng.normal(size=dim) for name in ("gen", "flow", "graph", "pool")}
    centres["flow"] = centres["gen"] + 1.2 * rng.normal(size=dim) / np.sqrt(dim) * 3
    centres["pool"] = centres["graph"] + 1.2 * rng.normal(size=dim) / np.sqrt(dim) * 3
    rows = []
    for year in (2021, 2022, 2023):
        for i in range(per_year):
            rows.append(("gen", 0, year, f"generative models sample images with diffusion models paper {i}"))
            rows.append(("graph", 1, year, f"graph neural networks for node classification on graphs paper {i}"))
            if i < 10:
                rows.append(("pool", 1, year, f"graph pooling layers coarsen graph neural networks paper {i}"))
        if year == 2023:
            for i in range(25):
                rows.append(("flow", 0, year, f"flow matching trains continuous normalizing flows for generative models {i}"))
    x = np.stack([centres[r[0]] + 0.35 * rng.normal(size=dim) for r in rows])
    return rows, x


def planted_later_heavy(seed=0, n_flow=18):
    """Two years, the later with twice the papers of the earlier (as in most next-year
    pairs of the benchmarks: the later year holds 49-67 % of the papers). Inside topic
    0 a sub-theme of ``n_flow`` papers appears only in the later year; inside topic 1 a
    sub-theme holds the same share of both years."""
    rng = np.random.default_rng(seed)
    dim = 32
    centres = {name: rng.normal(size=dim) for name in ("gen", "graph")}
    centres["flow"] = centres["gen"] + 3.6 * rng.normal(size=dim) / np.sqrt(dim)
    centres["pool"] = centres["graph"] + 3.6 * rng.normal(size=dim) / np.sqrt(dim)
    rows = []
    for year, n in ((2022, 40), (2023, 80)):
        rows += [("gen", 0, year, f"generative models sample images with diffusion models paper {i}") for i in range(n)]
        rows += [("graph", 1, year, f"graph neural networks for node classification on graphs paper {i}") for i in range(n)]
        rows += [("pool", 1, year, f"graph pooling layers coarsen graph neural networks paper {i}") for i in range(n // 5)]
    rows += [("flow", 0, 2023, f"flow matching trains continuous normalizing flows for generative models {i}") for i in range(n_flow)]
    x = np.stack([centres[r[0]] + 0.35 * rng.normal(size=dim) for r in rows])
    return rows, x


def test_a_sub_theme_is_found_where_the_later_year_holds_most_papers():
    rows, x = planted_later_heavy()
    labels = np.array([r[1] for r in rows])
    years = np.array([r[2] for r in rows])
    assert np.mean(years == 2023) > 0.6
    table = emerging_subtopics(x, labels, years, [r[3] for r in rows], topic_labels={0: "generative models", 1: "graph neural networks"})
    assert len(table) == 1, table[["name", "topic", "n_docs", "n_latest", "q"]]
    flow = {i for i, r in enumerate(rows) if r[0] == "flow"}
    found = table.iloc[0]
    assert found["topic"] == 0 and len(flow & set(found["doc_ids"])) >= 0.9 * len(flow)
    assert len(set(found["doc_ids"]) - flow) <= 0.2 * len(found["doc_ids"])
    assert found["q"] <= 0.05


def test_a_sub_theme_of_the_last_year_is_found_and_an_even_one_is_not():
    rows, x = planted()
    labels = np.array([r[1] for r in rows])
    years = np.array([r[2] for r in rows])
    texts = [r[3] for r in rows]
    table = emerging_subtopics(x, labels, years, texts, topic_labels={0: "generative models", 1: "graph neural networks"})
    assert list(table.columns) == EMERGING_COLUMNS
    assert len(table) == 1, table[["name", "topic", "n_docs", "n_latest", "q"]]
    found = table.iloc[0]
    flow = {i for i, r in enumerate(rows) if r[0] == "flow"}
    assert found["topic"] == 0 and found["topic_label"] == "generative models"
    assert len(flow & set(found["doc_ids"])) >= 0.9 * len(flow)
    assert len(set(found["doc_ids"]) - flow) <= 0.2 * len(found["doc_ids"])
    assert "flow" in found["name"] and found["name"] != "generative models"
    assert found["low"] > 0 and found["share_latest"] > found["share_before"]
    assert found["q"] <= 0.05


def test_a_topic_growing_as_a_whole_makes_no_branch_emerging():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(300, 16))
    years = np.array([2022] * 100 + [2023] * 200)  # the whole topic doubles
    labels = np.zeros(300, dtype=int)
    scanned = scan_branches(x, labels, years == 2023, min_size=10)
    assert len(scanned) > 10  # branches were tested
    assert not (scanned["q"] <= 0.05).any()  # nan: screened out, cannot pass


def test_no_earlier_year_gives_an_empty_table():
    x = np.random.default_rng(2).normal(size=(40, 8))
    table = emerging_subtopics(x, np.zeros(40, dtype=int), np.full(40, 2024), ["a paper"] * 40)
    assert table.empty and list(table.columns) == EMERGING_COLUMNS


def test_large_topics_are_scanned_over_micro_groups(monkeypatch):
    import topics.clustering.emerging as emerging

    monkeypatch.setattr(emerging, "MAX_TREE_PAPERS", 50)
    rows, x = planted(per_year=40)
    labels = np.array([r[1] for r in rows])
    years = np.array([r[2] for r in rows])
    table = emerging.emerging_subtopics(x, labels, years, [r[3] for r in rows])
    flow = {i for i, r in enumerate(rows) if r[0] == "flow"}
    assert len(table) >= 1 and len(flow & set(table.iloc[0]["doc_ids"])) >= 0.8 * len(flow)


def test_each_branch_is_tested_against_the_rest_of_its_topic():
    from scipy.stats import fisher_exact

    rows, x = planted()
    labels = np.array([r[1] for r in rows])
    is_latest = np.array([r[2] for r in rows]) == 2023
    scanned = scan_branches(x, labels, is_latest, min_size=5)
    assert len(scanned) > 20
    for row in scanned.itertuples():
        inside = np.flatnonzero(labels == row.topic)
        rest = np.setdiff1d(inside, row.members)
        # two independent samples, the branch and the rest of its topic: Fisher's exact test
        table = [[row.n_latest, row.n_docs - row.n_latest], [int(is_latest[rest].sum()), int((~is_latest[rest]).sum())]]
        assert row.p == pytest.approx(fisher_exact(table, alternative="greater").pvalue, rel=1e-9)
        # the least p-value: every paper of the branch of the latest year, as many as the topic has
        k_most = min(row.n_docs, int(is_latest[inside].sum()))
        best = [[k_most, row.n_docs - k_most], [int(is_latest[inside].sum()) - k_most, len(rest) - int(is_latest[inside].sum()) + k_most]]
        assert row.least_p == pytest.approx(fisher_exact(best, alternative="greater").pvalue, rel=1e-9)
    # a branch that cannot reach the level is left out of the false-discovery control
    assert scanned.loc[scanned["q"].isna(), "least_p"].min() > 0.05 / len(scanned)
