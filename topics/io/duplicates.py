"""Near-duplicate abstracts: found with MinHash and locality-sensitive hashing, collapsed to one.

The same abstract with another case, other spacing or a few words added ("Version 2.")
is not an exact duplicate, but fitted as a paper of its own it is not a second paper
either: fifty such copies form a topic of their own, and one that "grows" if the copies
fall in one year. :func:`near_duplicates` finds them the way large text collections are
deduplicated (Broder 1997, "On the resemblance and containment of documents"; Lee et al.
2022, "Deduplicating training data makes language models better"): each abstract is the
set of its word 5-shingles (lower-cased, punctuation dropped), a MinHash of 128
permutations estimates the Jaccard similarity of two such sets, and a locality-sensitive
hash index (``datasketch.MinHashLSH``) finds the pairs above :data:`NEAR_DUPLICATE_JACCARD`
without comparing every pair. A paper joins the first earlier paper it is that similar
to; :func:`drop_near_duplicates` keeps that first one.
"""

from __future__ import annotations

import logging
import re
import zlib

import numpy as np
import pandas as pd

__all__ = ["NEAR_DUPLICATE_JACCARD", "SHINGLE_WORDS", "drop_near_duplicates", "near_duplicates"]

logger = logging.getLogger(__name__)

#: Estimated Jaccard similarity of the shingle sets from which two abstracts are copies
#: (Lee et al. 2022 use 0.8 on 5-gram shingles).
NEAR_DUPLICATE_JACCARD = 0.8
SHINGLE_WORDS = 5
NUM_PERM = 128
_WORD = re.compile(r"\w+")


def _shingles(text: str) -> list[bytes]:
    words = _WORD.findall(text.lower())
    if len(words) <= SHINGLE_WORDS:
        return [" ".join(words).encode("utf-8")]
    return [" ".join(words[i : i + SHINGLE_WORDS]).encode("utf-8") for i in range(len(words) - SHINGLE_WORDS + 1)]


def near_duplicates(texts, *, threshold: float = NEAR_DUPLICATE_JACCARD) -> np.ndarray:
    """For each text, the position of the earlier text it nearly repeats (estimated Jaccard
    similarity of word 5-shingles at least ``threshold``), or -1."""
    from datasketch import MinHash, MinHashLSH

    lsh = MinHashLSH(threshold=threshold, num_perm=NUM_PERM)
    out = np.full(len(texts), -1, dtype=np.int64)
    # CRC-32 hashes a shingle in half the time of datasketch's default SHA-1, as well spread
    hashes = MinHash.bulk([_shingles(str(t)) for t in texts], num_perm=NUM_PERM, seed=1, hashfunc=zlib.crc32)
    for i, h in enumerate(hashes):
        candidates = sorted(int(j) for j in lsh.query(h) if hashes[int(j)].jaccard(h) >= threshold)
        if candidates:
            out[i] = candidates[0]
        else:
            lsh.insert(str(i), h)
    return out


def drop_near_duplicates(corpus: pd.DataFrame, *, threshold: float = NEAR_DUPLICATE_JACCARD) -> pd.DataFrame:
    """``corpus`` without the abstracts that nearly repeat an earlier one (:func:`near_duplicates`),
    with one warning that says how many and gives an example."""
    repeats = near_duplicates(corpus["abstract"].tolist(), threshold=threshold)
    dropped = np.flatnonzero(repeats >= 0)
    if len(dropped):
        i, j = dropped[0], repeats[dropped[0]]
        logger.warning(
            "%d near-duplicate abstract%s dropped (word 5-shingles, MinHash Jaccard >= %.2f): e.g. %s #%d repeats %s #%d; "
            "keep them with --keep-near-duplicates (read_corpus(keep_near_duplicates=True))",
            len(dropped), "s" if len(dropped) > 1 else "", threshold, corpus["source"].iat[i], corpus["position"].iat[i],
            corpus["source"].iat[j], corpus["position"].iat[j],
        )
    return corpus.iloc[np.flatnonzero(repeats < 0)].reset_index(drop=True)
