"""The language check on real English abstracts: no false alarm on the bundled lists."""

from __future__ import annotations

from topics.io.datasets import iclr_full
from topics.io.languages import READ_CHARS, detect_languages, warn_languages


def test_the_bundled_english_abstracts_raise_no_language_warning(caplog):
    """fastText's detector truncates its input to 80 characters unless told otherwise, so
    the 1,000 characters the module meant to read were 80, and "FOSI: Hybrid First and
    Second Order Optimization" was taken for Italian (p = 0.53): every report of the full
    lists warned of one abstract "not in English"."""
    corpus = iclr_full()
    with caplog.at_level("WARNING", logger="topics.io.languages"):
        english = warn_languages(corpus)
    assert english.all() and not caplog.records


def test_the_detector_reads_read_chars_characters():
    """An abstract whose first sentence is English and whose rest is German is German
    when the detector reads READ_CHARS characters, not the first 80."""
    english = "We study graphs. "
    german = ("Wir untersuchen die Konvergenz stochastischer Gradientenverfahren für tiefe neuronale Netze "
              "und zeigen, dass die Lernrate schrittweise verkleinert werden muss.")
    text = english * 5 + german * 3
    assert len(english * 5) < 100 < READ_CHARS
    assert detect_languages([text])["language"].tolist() == ["de"]
