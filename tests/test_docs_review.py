"""Sentences of the docs and the report's methods that state what the code does, checked
against the code (the code blocks are tests/test_docs.py's)."""

from __future__ import annotations

import inspect
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_stability_matching_is_described_as_the_code_does_it():
    """Refitted topics are matched one to one (align_topics, not each to the topic sharing
    the most papers), and a topic comes back where its match has a Jaccard index of at
    least seed_stability's min_jaccard. That is not "half of its papers shared": a match
    three times the topic's size that holds all of its papers shares them all, at a
    Jaccard index of 1/3, and the topic does not come back."""
    from topics.stats.stability import seed_stability

    threshold = inspect.signature(seed_stability).parameters["min_jaccard"].default
    statistics = " ".join((ROOT / "docs" / "guides" / "statistics.md").read_text(encoding="utf-8").split())
    methods = (ROOT / "topics" / "report" / "templates" / "report.html.j2").read_text(encoding="utf-8")
    for text in (statistics, methods):
        assert "one to one" in text and "sharing the most papers" not in text
        assert f"Jaccard index of at least {threshold}" in text
        assert "at least half of its papers shared" not in text and "shared at least half of the papers" not in text
