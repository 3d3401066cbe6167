"""The Dask engine on LocalClusters of separate worker processes.

Kept apart from ``test_distributed.py``, whose module-wide in-process cluster must be
closed before a process-based cluster starts; each test also has a time limit, so a
cluster that never comes up fails the test instead of stalling the suite.
"""

from __future__ import annotations

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from topics.embedding.backends import HashingEmbedder  # noqa: E402
from topics.embedding.embed import embed_texts  # noqa: E402
from topics.embedding import distributed as D  # noqa: E402
from tests.embedding.test_distributed import TEXTS, cosines, slot  # noqa: E402

pytestmark = pytest.mark.timeout(600)


def test_worker_processes_each_load_the_model_once(tmp_path):
    """Separate worker processes: every chunk is embedded, each process builds one embedder."""
    embedder = HashingEmbedder(n_components=32)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as c:
            vectors = D.embed_texts_distributed(TEXTS, embedder, scheduler=cluster.scheduler_address, cache=False, chunk_size=6)
            states = c.run(D.worker_state)
    per_worker = [s[slot(embedder)] for s in states.values() if slot(embedder) in s]
    assert sum(s["chunks"] for s in per_worker) == 10 and sum(s["texts"] for s in per_worker) == len(TEXTS)
    assert all(s["loads"] == 1 for s in per_worker)
    assert cosines(vectors, embedder.encode(TEXTS)).min() >= 0.9999


@pytest.mark.slow
def test_minilm_on_two_worker_processes_matches_one_process(tmp_path):
    texts = TEXTS[:24] + ["We propose a diffusion model for protein structure generation with equivariant layers."]
    single = embed_texts(texts, "minilm", cache=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        spread = D.embed_texts_distributed(texts, "minilm", cache=tmp_path, chunk_size=8, scheduler=cluster.scheduler_address)
    # other chunks, other processes, one thread each: still the same bytes (fixed-shape passes)
    np.testing.assert_array_equal(spread, single)
