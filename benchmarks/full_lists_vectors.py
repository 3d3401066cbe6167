"""Write the test suite's fixture: one backend's vectors of the full ICLR lists, as analyze embeds them.

    python benchmarks/full_lists_vectors.py            # the default backend, minilm
    python benchmarks/full_lists_vectors.py --backend minilm-fp32

The slow theme check (``tests/themes/test_tracking.py``) needs MiniLM's vectors of the
4,364 papers of ``topics report --dataset full`` ("title. abstract"): about 3.5 minutes
of an idle 2-core machine, much longer on a loaded one, and a fresh clone has no cache.
This script writes them to ``tests/data/iclr_full_<backend>.npy`` (float16, 3.4 MB for
MiniLM's 384 dimensions) and beside them ``tests/data/iclr_full_<backend>.json``: the
backend, the embedder's fingerprint, the sha256 of the ``.npy`` file and of the texts, and
the shape. The tests read them with ``tests.conftest.full_lists_vectors``, which refuses a
file whose hash does not match and falls back to embedding where the fingerprint or the
texts are no longer those of today's default (rerun this script then). It reads the
vectors through the embedding cache, so it is quick where ``make report-full`` ran.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "tests" / "data"


def texts_digest(texts: list[str]) -> str:
    """The sha256 of the texts, each UTF-8 and ended by a newline: what the vectors are of."""
    return hashlib.sha256("".join(f"{t}\n" for t in texts).encode("utf-8")).hexdigest()


def fixture_paths(backend: str, folder: Path = FOLDER) -> tuple[Path, Path]:
    """The ``.npy`` file of ``backend``'s vectors and the ``.json`` file that describes it."""
    return folder / f"iclr_full_{backend}.npy", folder / f"iclr_full_{backend}.json"


def save_fixture(vectors, texts: list[str], fingerprint: str, backend: str, folder: Path = FOLDER) -> dict:
    """Write ``vectors`` of ``texts`` (as float16) and the record beside them; returns the record."""
    import numpy as np

    vectors = np.asarray(vectors).astype(np.float16)
    npy, about = fixture_paths(backend, folder)
    np.save(npy, vectors, allow_pickle=False)
    record = {
        "backend": backend,
        "fingerprint": fingerprint,
        "sha256": hashlib.sha256(npy.read_bytes()).hexdigest(),
        "texts_sha256": texts_digest(texts),
        "shape": list(vectors.shape),
        "dtype": "float16",
    }
    about.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return record


def write_fixture(backend: str, folder: Path = FOLDER, *, cache=True) -> dict:
    """Embed the full lists with ``backend`` (through the cache) and write the fixture; returns its record."""
    from topics.embedding.backends import get_embedder
    from topics.embedding.embed import embed_texts
    from topics.io.datasets import iclr_full
    from topics.pipeline import embedding_texts

    texts = embedding_texts(iclr_full())
    embedder = get_embedder(backend, n_texts=len(texts))  # as analyze builds it for this corpus
    fingerprint = embedder.fingerprint()
    if fingerprint is None:
        raise SystemExit(f"the {backend} backend is fitted to each corpus (no fingerprint): nothing to keep")
    vectors = embed_texts(texts, embedder, cache=cache, show_progress=True)
    return save_fixture(vectors, texts, fingerprint, backend, folder)


def read_fixture(backend: str, texts: list[str], fingerprint: str, folder: Path = FOLDER):
    """The fixture's vectors (float32) of ``texts`` by an embedder of ``fingerprint``, or the
    reason it cannot give them (a string: no fixture, another fingerprint, other texts).

    A file whose sha256 is not the one recorded beside it raises ``ValueError``: a damaged
    or edited fixture is never used, nor silently replaced.
    """
    import numpy as np

    npy, about = fixture_paths(backend, folder)
    if not about.exists() or not npy.exists():
        return f"no fixture {npy.name}"
    record = json.loads(about.read_text(encoding="utf-8"))
    digest = hashlib.sha256(npy.read_bytes()).hexdigest()
    if digest != record["sha256"]:
        raise ValueError(f"{npy}: sha256 {digest[:12]}, not the {record['sha256'][:12]} of {about.name}; "
                         f"rerun python benchmarks/full_lists_vectors.py --backend {backend}")
    if record["fingerprint"] != fingerprint:
        return f"{npy.name} holds vectors of {record['fingerprint']}, not of {fingerprint}"
    if record["texts_sha256"] != texts_digest(texts):
        return f"{npy.name} holds vectors of other texts than embedding_texts(iclr_full()) gives today"
    vectors = np.load(npy, allow_pickle=False)
    if list(vectors.shape) != record["shape"] or vectors.dtype != np.float16:
        raise ValueError(f"{npy}: {vectors.dtype} {vectors.shape}, not the float16 {record['shape']} of {about.name}")
    return vectors.astype(np.float32)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", default="minilm", help="the embedding backend (default minilm, as analyze uses it)")
    args = parser.parse_args()
    record = write_fixture(args.backend)
    npy = fixture_paths(args.backend)[0]
    print(f"{npy.relative_to(ROOT)}: {record['shape'][0]} x {record['shape'][1]} float16, {npy.stat().st_size / 1e6:.1f} MB, "
          f"{record['fingerprint']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
