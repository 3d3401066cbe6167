"""Shared fixtures: the bundled sample, a synthetic corpus with known themes, and one
LSA analysis of the sample that many tests read (fitted once per session)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import topics

THEMES = {
    "transport": "wasserstein transport coupling sinkhorn marginal barycenter entropic monge kantorovich plan",
    "molecules": "molecule protein ligand docking binding atom conformer chemistry drug residue",
    "robotics": "robot manipulation grasp gripper locomotion teleoperation arm policy sim2real torque",
    "speech": "speech audio acoustic phoneme speaker waveform asr vocoder prosody spectrogram",
}
FILLER = "study results method approach data show new propose analysis based".split()


def make_theme_corpus(n_per_theme: int = 15, seed: int = 0, years=(2024, 2025)) -> pd.DataFrame:
    """Documents drawn from four disjoint vocabularies, with the theme kept as ``theme``."""
    rng = np.random.default_rng(seed)
    rows = []
    for theme, vocab in THEMES.items():
        words = vocab.split()
        for i in range(n_per_theme):
            body = list(rng.choice(words, size=30)) + list(rng.choice(FILLER, size=8))
            rng.shuffle(body)
            rows.append({"abstract": " ".join(body) + ".", "year": years[i % len(years)], "theme": theme})
    frame = pd.DataFrame(rows)
    frame.insert(0, "doc_id", [f"d{i}" for i in range(len(frame))])
    frame.insert(1, "venue", "TEST")
    frame.insert(3, "title", "")
    frame["source"] = "synthetic"
    frame["position"] = range(1, len(frame) + 1)
    return frame


@pytest.fixture(scope="session")
def sample_corpus() -> pd.DataFrame:
    return topics.datasets.iclr_sample()


@pytest.fixture(scope="session")
def theme_corpus() -> pd.DataFrame:
    return make_theme_corpus()


@pytest.fixture(scope="session")
def sample_analysis(sample_corpus) -> topics.Analysis:
    return topics.analyze(sample_corpus, embedder="lsa", random_state=0, cache=False)


def values(v):
    """Plain Python numbers from a figure dict's array (Plotly >= 6 encodes numpy
    arrays as ``{"dtype", "bdata", "shape"}``)."""
    if isinstance(v, dict) and "bdata" in v:
        import base64

        arr = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
        if "shape" in v:
            arr = arr.reshape([int(s) for s in str(v["shape"]).split(",")])
        return arr.tolist()
    return np.asarray(v).tolist()
