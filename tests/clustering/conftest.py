"""Shared by the clustering tests: the synthetic four-theme corpus embedded and fitted
once per session, and planted groups of points."""

from __future__ import annotations

import numpy as np
import pytest

from topics.clustering.model import TopicModel
from topics.embedding.embed import embed_texts


@pytest.fixture(scope="session")
def theme_embeddings(theme_corpus):
    return embed_texts(theme_corpus["abstract"].tolist(), "lsa", cache=False)


@pytest.fixture(scope="session")
def theme_model(theme_corpus, theme_embeddings):
    return TopicModel(random_state=0).fit(theme_corpus, theme_embeddings)


def planted(seed=0, n_groups=5, per_group=80, dim=16):
    """``(truth, unit vectors)``: ``per_group`` noisy points around each of ``n_groups`` centres."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_groups, dim)) * 4
    truth = np.repeat(np.arange(n_groups), per_group)
    points = centres[truth] + rng.normal(size=(len(truth), dim))
    return truth, (points / np.linalg.norm(points, axis=1, keepdims=True)).astype(np.float32)
