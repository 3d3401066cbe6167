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


def synthetic_abstract(rng: np.random.Generator, words: list[str], extra=(), n_extra: int = 0) -> str:
    """One synthetic abstract: 30 words of a theme's vocabulary (``n_extra`` of them from
    ``extra`` instead, a sub-theme led by its first two words) and 8 fillers, shuffled."""
    body = list(rng.choice(words, size=30 - n_extra)) + list(rng.choice(FILLER, size=8))
    if n_extra:
        body += list(rng.choice(extra, size=n_extra))
    rng.shuffle(body)
    lead = f"{extra[0]} {extra[1]} " if n_extra else ""
    return lead + " ".join(body) + "."


def synthetic_corpus(rows: list[dict], prefix: str) -> pd.DataFrame:
    """The rows as a corpus: ids ``<prefix>0``, ``<prefix>1``, ... in order, venue TEST,
    no titles, source "synthetic", positions from 1."""
    frame = pd.DataFrame(rows)
    frame.insert(0, "doc_id", [f"{prefix}{i}" for i in range(len(frame))])
    frame.insert(1, "venue", "TEST")
    frame.insert(3, "title", "")
    frame["source"] = "synthetic"
    frame["position"] = range(1, len(frame) + 1)
    return frame


def make_theme_corpus(n_per_theme: int = 15, seed: int = 0, years=(2024, 2025)) -> pd.DataFrame:
    """Documents drawn from four disjoint vocabularies, with the theme kept as ``theme``."""
    rng = np.random.default_rng(seed)
    rows = []
    for theme, vocab in THEMES.items():
        words = vocab.split()
        for i in range(n_per_theme):
            rows.append({"abstract": synthetic_abstract(rng, words), "year": years[i % len(years)], "theme": theme})
    return synthetic_corpus(rows, "d")


@pytest.fixture(scope="session")
def sample_corpus() -> pd.DataFrame:
    return topics.io.datasets.iclr_sample()


@pytest.fixture(scope="session")
def theme_corpus() -> pd.DataFrame:
    return make_theme_corpus()


@pytest.fixture(scope="session")
def sample_analysis(sample_corpus) -> topics.Analysis:
    return topics.analyze(sample_corpus, embedder="lsa", random_state=0, cache=False)


@pytest.fixture(scope="session")
def sample_minilm(sample_corpus) -> np.ndarray:
    """The bundled sample's vectors by the default backend, as :func:`topics.analyze`
    embeds them (fp32 for 90 papers, :data:`~topics.embedding.backends.EXACT_BELOW`):
    embedded once per run, through the default cache (``$TOPICS_CACHE_DIR``), which the
    report check and the docs' real-model block read too, so that a fresh machine embeds
    the 90 abstracts once instead of once per test. Tests of embedding or of the cache
    itself embed on their own."""
    from topics.embedding.backends import DEFAULT_BACKEND
    from topics.pipeline import embedding_texts

    embedder = topics.get_embedder(DEFAULT_BACKEND, n_texts=len(sample_corpus))
    return topics.embed_texts(embedding_texts(sample_corpus), embedder, cache=True)


@pytest.fixture
def sample_minilm_cache(sample_corpus, sample_minilm, tmp_path):
    """A new cache folder that holds the bundled sample's vectors (:func:`sample_minilm`) and nothing else."""
    from topics.embedding.cache import text_key
    from topics.pipeline import embedding_texts

    folder = tmp_path / "sample-cache"
    keys = [text_key(text) for text in embedding_texts(sample_corpus)]
    topics.EmbeddingCache(folder).save(sample_minilm.fingerprint, dict(zip(keys, np.asarray(sample_minilm))))
    return folder


def full_lists_vectors(backend: str = "minilm") -> tuple[pd.DataFrame, np.ndarray]:
    """The full ICLR lists and ``backend``'s vectors of what analyze embeds for them.

    Read from the committed fixture ``tests/data/iclr_full_<backend>.npy`` (float16, its
    sha256 checked; written by ``benchmarks/full_lists_vectors.py``) where it holds this
    backend's vectors of today's texts: a fresh clone then embeds nothing. Where it does
    not (another default path, other texts, no fixture), a warning says so and the texts
    are embedded through the cache, as before (minutes on 2 cores).
    """
    import importlib.util
    import warnings
    from pathlib import Path

    from topics.pipeline import embedding_texts
    from topics.vectors import unit_rows

    script = Path(__file__).resolve().parent.parent / "benchmarks" / "full_lists_vectors.py"
    spec = importlib.util.spec_from_file_location("full_lists_vectors", script)
    fixture = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fixture)
    corpus = topics.io.datasets.iclr_full()
    texts = embedding_texts(corpus)
    embedder = topics.get_embedder(backend, n_texts=len(texts))
    vectors = fixture.read_fixture(backend, texts, embedder.fingerprint())
    if isinstance(vectors, str):
        warnings.warn(f"{vectors}: embedding the full lists (rerun benchmarks/full_lists_vectors.py --backend {backend})",
                      stacklevel=2)
        return corpus, topics.embed_texts(texts, embedder, cache=True)
    return corpus, unit_rows(vectors).astype(np.float32)


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


# Five years with planted trends, of realistic sizes, one of them a small year.
TREND_YEARS = (2021, 2022, 2023, 2024, 2025)
TREND_SIZES = (300, 40, 600, 900, 1300)
PLANTED_SHARES = {
    "emerging": (0.002, 0.004, 0.01, 0.05, 0.10),
    "growing": (0.05, 0.075, 0.10, 0.125, 0.15),
    "fading": (0.20, 0.17, 0.14, 0.11, 0.08),
    "flat": (0.12,) * 5,
    "bump": (0.03, 0.05, 0.10, 0.05, 0.03),
}


def planted_share_matrix() -> np.ndarray:
    """(topics, years) shares: the planted topics, then three 'other' topics that split the rest."""
    planted = np.array(list(PLANTED_SHARES.values()))
    rest = (1 - planted.sum(0)) / 3
    return np.vstack([planted, rest, rest, rest])


TREND_LABELS = [*PLANTED_SHARES, "other a", "other b", "other c"]


def make_trend_documents(seed: int = 0, sizes=TREND_SIZES, years=TREND_YEARS) -> pd.DataFrame:
    """A documents table (year, topic, topic_label) drawn from the planted shares, no model."""
    rng = np.random.default_rng(seed)
    shares = planted_share_matrix()
    frames = []
    for j, (year, n) in enumerate(zip(years, sizes)):
        counts = rng.multinomial(n, shares[:, j])
        topic = np.repeat(np.arange(len(counts)), counts)
        frames.append(pd.DataFrame({"year": year, "topic": topic}))
    docs = pd.concat(frames, ignore_index=True)
    docs["topic_label"] = [TREND_LABELS[t] for t in docs["topic"]]
    return docs


def make_trend_corpus(seed: int = 0, n_per_year=(30, 12, 40, 50, 60)) -> pd.DataFrame:
    """A corpus over five years from the four theme vocabularies: transport rises,
    molecules fades, robotics and speech stay flat (a small second year included)."""
    rng = np.random.default_rng(seed)
    weights = {
        "transport": np.array([0.05, 0.10, 0.25, 0.35, 0.45]),
        "molecules": np.array([0.45, 0.40, 0.25, 0.15, 0.05]),
        "robotics": np.full(5, 0.25),
        "speech": np.full(5, 0.25),
    }
    rows = []
    for j, (year, n) in enumerate(zip(TREND_YEARS, n_per_year)):
        p = np.array([w[j] for w in weights.values()])
        for theme, k in zip(weights, rng.multinomial(n, p / p.sum())):
            words = THEMES[theme].split()
            for _ in range(k):
                rows.append({"abstract": synthetic_abstract(rng, words), "year": year, "theme": theme,
                             "status": rng.choice(["Oral", "Poster", "Spotlight"], p=[0.1, 0.7, 0.2])})
    return synthetic_corpus(rows, "t")[["doc_id", "venue", "year", "title", "abstract", "source", "position", "theme", "status"]]


@pytest.fixture(scope="session")
def trend_corpus() -> pd.DataFrame:
    return make_trend_corpus()


@pytest.fixture(scope="session")
def trend_analysis(trend_corpus) -> topics.Analysis:
    """Five generated years through the whole pipeline (weightless backend)."""
    return topics.analyze(trend_corpus, embedder="lsa", random_state=0, cache=False)


@pytest.fixture(scope="session")
def status_analysis(trend_corpus) -> topics.Analysis:
    """The same corpus compared by its 'status' column (three unordered groups)."""
    return topics.analyze(trend_corpus, embedder="lsa", random_state=0, cache=False, by="status")


class CountingEmbedder:
    """A deterministic fake backend that counts how many texts it embedded."""

    name = "counting"

    def __init__(self, fingerprint="fake-v1"):
        self._fp = fingerprint
        self.calls = 0
        self.seen = 0

    def fingerprint(self):
        return self._fp

    def encode(self, texts, *, show_progress=False):
        self.calls += 1
        self.seen += len(texts)
        out = np.array([[len(t), sum(map(ord, t)) % 97, 1.0] for t in texts], dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


class FailingEmbedder(CountingEmbedder):
    """Embeds ``fail_after`` calls, then raises as a killed run would."""

    def __init__(self, fail_after, fingerprint="fake-v1"):
        super().__init__(fingerprint)
        self.fail_after = fail_after

    def encode(self, texts, *, show_progress=False):
        if self.calls == self.fail_after:
            raise KeyboardInterrupt("killed")
        return super().encode(texts, show_progress=show_progress)


#: A sub-theme of the first theme planted in the last year only, and one of the second
#: theme spread evenly over the years (:func:`make_planted_years`).
FLOW = "flow matching velocity field rectified transport straight trajectories".split()
POOL = "pooling coarsening readout hierarchical cluster assignment".split()


def make_planted_years(seed=0, per_theme=24, years=(2021, 2022, 2023)):
    """Four themes over three years; inside the first, a sub-theme ("flow matching") in the
    last year only; inside the second, a sub-theme ("pooling") spread evenly over the years."""
    rng = np.random.default_rng(seed)
    names = list(THEMES)
    rows = []
    for year in years:
        for k, theme in enumerate(names):
            words = THEMES[theme].split()
            for i in range(per_theme):
                sub = k == 1 and i < per_theme // 3
                rows.append({"abstract": synthetic_abstract(rng, words, POOL, 10 if sub else 0), "year": year, "theme": theme + (" pooling" if sub else "")})
        if year == years[-1]:
            words = THEMES[names[0]].split()
            for i in range(per_theme // 2 + 4):
                rows.append({"abstract": synthetic_abstract(rng, words, FLOW, 12), "year": year, "theme": names[0] + " flow"})
    return synthetic_corpus(rows, "d")
