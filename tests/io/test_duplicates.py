import logging

import numpy as np
import pandas as pd

from topics.cli import main
from topics.io.corpus import read_corpus
from topics.io.datasets import iclr_sample
from topics.io.duplicates import near_duplicates


def _with_copies(tmp_path):
    """The bundled sample and 50 near-copies of its first abstract: upper-cased, with extra
    spaces, or with " Version i." appended (the case of issue 38)."""
    sample = iclr_sample()[["title", "abstract", "year"]]
    first = sample["abstract"].iat[0]
    copies = [first.upper() if i % 3 == 0 else first.replace(" ", "   ") if i % 3 == 1 else f"{first} Version {i}." for i in range(50)]
    frame = pd.concat([sample, pd.DataFrame({"title": "", "abstract": copies, "year": 2025})], ignore_index=True)
    frame.to_csv(tmp_path / "papers.csv", index=False)
    return tmp_path / "papers.csv", len(sample)


def test_near_copies_are_collapsed_to_one_paper_with_one_warning(tmp_path, caplog):
    path, n = _with_copies(tmp_path)
    with caplog.at_level(logging.WARNING):
        corpus = read_corpus(path)
    assert len(corpus) == n
    # the 33 copies that only differ in spacing, or are upper-cased like another, are exact duplicates once the
    # whitespace is normalised; the other 17 nearly repeat the first
    warnings = [r.getMessage() for r in caplog.records if "duplicate" in r.getMessage()]
    assert len(warnings) == 2
    assert warnings[0].startswith("33 duplicate abstracts dropped")
    assert warnings[1].startswith("17 near-duplicate abstracts dropped") and "papers.csv #1;" in warnings[1]
    assert len(read_corpus(path, keep_near_duplicates=True)) == n + 17


def test_distinct_abstracts_are_not_near_duplicates():
    sample = iclr_sample()
    assert (near_duplicates(sample["abstract"].tolist()) == -1).all()
    texts = ["graph neural networks for molecules " * 3, "graph neural networks for proteins " * 3, "a b"]
    assert near_duplicates(texts).tolist() == [-1, -1, -1]


def test_the_cli_keeps_them_on_request(tmp_path, capsys):
    path, n = _with_copies(tmp_path)
    args = ["report", str(path), "--backend", "hashing", "--no-cache", "-q", "--tables", str(tmp_path / "t"), "-o", str(tmp_path / "r.html")]
    assert main(args) == 0
    assert len(pd.read_csv(tmp_path / "t" / "documents.csv")) == n
    assert main([*args, "--keep-near-duplicates"]) == 0
    assert len(pd.read_csv(tmp_path / "t" / "documents.csv")) == n + 17
