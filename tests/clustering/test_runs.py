"""One consensus run (a seeded UMAP layout read by HDBSCAN at several granularities), and
the runs spread over processes."""

import numpy as np
import pandas as pd
from sklearn.metrics import adjusted_rand_score

from tests.clustering.conftest import planted as _planted
from topics.clustering.consensus import ConsensusClusterer
from topics.clustering.neighbors import nearest_neighbors
from topics.clustering.runs import parallel_runs, readings


def test_readings_span_granularities_and_share_one_tree():
    from hdbscan import HDBSCAN

    from topics.clustering.runs import _read

    assert readings(22) == [(22, "eom"), (22, "leaf"), (15, "eom"), (33, "eom")]
    assert min(size for size, _ in readings(2)) == 2
    _, points = _planted(seed=4, n_groups=6, per_group=40, dim=3)
    shared = _read(points, 12, 4)
    for labels, (size, method) in zip(shared, readings(12)):  # the same labels as a fit per reading
        separate = HDBSCAN(min_cluster_size=size, min_samples=4, cluster_selection_method=method).fit(points).labels_
        np.testing.assert_array_equal(labels, separate)
    assert len({tuple(labels) for labels in shared}) > 1  # and the readings do differ


def test_parallel_runs_give_the_same_topics():
    _, points = _planted(seed=3, n_groups=4, per_group=50)
    kwargs = dict(n_runs=4, n_neighbors=10, min_cluster_size=10, random_state=2)
    one = ConsensusClusterer(n_jobs=1, **kwargs).fit(points)
    two = ConsensusClusterer(n_jobs=2, **kwargs).fit(points)
    np.testing.assert_array_equal(one.runs_, two.runs_)
    np.testing.assert_array_equal(one.labels_, two.labels_)
    assert one.runs_.dtype == np.int32  # 4 readings a run, one row each: kept small


def test_one_run_is_four_readings_of_one_seeded_layout():
    truth, points = _planted(seed=3, n_groups=4, per_group=50)
    graph = nearest_neighbors(points, n_neighbors=10)
    settings = (10, 5, 200, 10, None)  # n_neighbors, n_components, n_epochs, min_cluster_size, min_samples
    [(labels, coords)] = parallel_runs(points, graph, settings, [7], n_jobs=1)
    assert labels.shape == (len(readings(10)), 200) and coords.shape == (200, 5) and coords.dtype == np.float32
    assert adjusted_rand_score(truth, labels[0]) > 0.9  # four well-separated groups are found
    again = parallel_runs(points, graph, settings, [7, 8], n_jobs=1)
    np.testing.assert_array_equal(again[0][0], labels)  # the same seed gives the same run ...
    np.testing.assert_array_equal(again[0][1], coords)
    assert not np.array_equal(again[1][1], coords)  # ... and another seed another layout


def test_runs_on_a_dask_cluster_are_the_runs_of_a_local_fit(sample_corpus, monkeypatch):
    """Issue 19: the consensus runs (not only the embedding) go to a Dask cluster when one
    is given, and give the same clusterings, topics and tables as this machine."""
    import pytest

    distributed = pytest.importorskip("distributed")
    import topics
    from topics.clustering.runs import on_cluster

    _, points = _planted(seed=3, n_groups=4, per_group=50)
    kwargs = dict(n_runs=4, n_neighbors=10, min_cluster_size=10, random_state=2)
    local = ConsensusClusterer(n_jobs=1, **kwargs).fit(points)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as client:
            with distributed.get_task_stream(client) as stream, on_cluster(client):
                spread = ConsensusClusterer(n_jobs=-1, **kwargs).fit(points)
            ran = [task for task in stream.data if "_one_run" in task["key"]]
            assert ran and {task["worker"] for task in ran} == set(client.scheduler_info()["workers"])  # both workers ran runs
            np.testing.assert_array_equal(spread.runs_, local.runs_)
            np.testing.assert_array_equal(spread.labels_, local.labels_)

            # the whole analysis, stability refits included, by scheduler address, over
            # one connection (not one for the embedding, the fit and the refits each)
            import topics.embedding.distributed as D

            opened, connect = [], D.connect

            def counting(scheduler):
                client, owned = connect(scheduler)
                opened.append(owned)
                return client, owned

            monkeypatch.setattr(D, "connect", counting)
            monkeypatch.setattr(topics.pipeline, "connect", counting, raising=False)
            model = dict(n_runs=4, random_state=0)
            here = topics.analyze(sample_corpus, embedder="hashing", model=topics.TopicModel(**model), cache=False, stability_seeds=[1])
            assert opened == []
            there = topics.analyze(sample_corpus, embedder="hashing", model=topics.TopicModel(**model), cache=False, stability_seeds=[1],
                                   scheduler=cluster.scheduler_address)
            assert opened.count(True) == 1
    np.testing.assert_array_equal(there.model.labels_, here.model.labels_)
    pd.testing.assert_frame_equal(there.topics, here.topics)
    pd.testing.assert_frame_equal(there.stability, here.stability)
