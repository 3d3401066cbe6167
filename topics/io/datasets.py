"""The bundled ICLR paper lists, each loadable with one call.

* :func:`iclr_sample` -- the five seed files the project started from: 90 abstracts,
  19 from ICLR 2024 and 71 from ICLR 2025, in the paper-list text format.
* :func:`iclr_full` -- the accepted-paper tables of ICLR 2024 (all 2,260) and
  ICLR 2025 (2,104 of 3,704; a non-random subset, see :data:`FULL_CAVEATS`).

Examples
--------
>>> sample = topics.datasets.iclr_sample()
>>> len(sample), sorted(sample["year"].unique().tolist())
(90, [2024, 2025])
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pandas as pd

from topics.io.corpus import read_corpus

__all__ = ["DATASETS", "FULL_CAVEATS", "SAMPLE_CAVEATS", "dataset_caveats", "dataset_path", "iclr_full", "iclr_sample", "load_dataset"]

DATASETS = ("sample", "full")

SAMPLE_CAVEATS = (
    "The bundled sample holds 90 abstracts (19 from ICLR 2024, 71 from ICLR 2025): "
    "a few dozen papers per year give wide intervals, and it is not a random sample of either conference.",
)

FULL_CAVEATS = (
    "The ICLR 2025 list is incomplete: 2,104 of the 3,704 accepted papers, because 1,600 "
    "had no abstract in the public source. It is a non-random subset: most missing abstracts "
    "are one contiguous block of the source's listing order, and posters are under-represented "
    "(72.6 % of the rows against 84.0 % of all accepted papers). Differences between the years "
    "can partly reflect that selection.",
    "The ICLR 2024 list is complete (all 2,260 accepted papers). Rejected and withdrawn "
    "submissions are not included in either year.",
    "The 2025 abstracts use straight quotes and usually no final period; nothing in the "
    "analysis depends on punctuation.",
)


def dataset_path(name: str) -> Path:
    """The folder that holds the bundled dataset ``name`` ("sample" or "full")."""
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; choose one of {', '.join(DATASETS)}")
    folder = "iclr_sample" if name == "sample" else "iclr_full"
    return Path(str(resources.files("topics") / "data" / folder))


def dataset_caveats(name: str) -> tuple[str, ...]:
    """The caveats a report on dataset ``name`` must state."""
    dataset_path(name)  # validates the name
    return SAMPLE_CAVEATS if name == "sample" else FULL_CAVEATS


def load_dataset(name: str) -> pd.DataFrame:
    """Load a bundled dataset by name as a corpus frame (see :mod:`topics.io.corpus`); its
    data files, not the README.md that describes them."""
    return read_corpus(sorted(p for p in dataset_path(name).iterdir() if p.is_file() and p.name != "README.md"))


def iclr_sample() -> pd.DataFrame:
    """The 90 seed abstracts (ICLR 2024: 19, ICLR 2025: 71) as a corpus frame."""
    return load_dataset("sample")


def iclr_full() -> pd.DataFrame:
    """The full ICLR 2024 (2,260) and ICLR 2025 (2,104) lists as a corpus frame.

    Extra columns ``status`` (Oral, Spotlight, Poster) and ``url`` are kept.
    """
    return load_dataset("full")
