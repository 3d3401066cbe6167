"""Write the static backend's teaching set: the bundled full lists and MiniLM's vectors of them.

    python benchmarks/static_teaching_set.py

``topics.embedding.static.StaticEmbedder`` teaches its distilled vectors to imitate
MiniLM (:mod:`topics.embedding.teach`) on the texts ``topics report --dataset full``
embeds -- the 4,364 bundled ICLR 2024 and 2025 papers, "title. abstract" -- with
MiniLM's vectors of them as targets. This script writes that set to
``topics/data/teaching/minilm-iclr-full.npz``: the texts (UTF-8, with their offsets), the
vectors reduced to their 256 principal components (float16; tokenlearn reduces its
targets the same way), the MiniLM fingerprint that made them and the variance the
components keep. It reads MiniLM's vectors through the embedding cache (about an hour
of CPU to compute them on a 2-core machine if they are not cached).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "topics" / "data" / "teaching" / "minilm-iclr-full.npz"
DIMS = 256


def main() -> int:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    from topics.embedding.backends import get_embedder
    from topics.embedding.embed import embed_texts
    from topics.embedding.teach import read_teaching_set, write_teaching_set
    from topics.io.datasets import iclr_full
    from topics.pipeline import embedding_texts

    texts = embedding_texts(iclr_full())
    teacher = get_embedder("minilm")
    vectors = embed_texts(texts, teacher, cache=True, show_progress=True)
    write_teaching_set(OUT, texts, vectors, teacher.fingerprint(), dims=DIMS)
    assert read_teaching_set(OUT)[0] == texts
    print(f"{OUT.relative_to(ROOT)}: {len(texts)} texts, {DIMS} components, {OUT.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
