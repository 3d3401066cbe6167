"""A static embedding backend: model2vec token vectors distilled from the packaged MiniLM.

A static model (model2vec; Tulkens and van Dongen 2024) keeps one vector per word piece
of a sentence transformer's vocabulary and embeds a text as the mean of its pieces'
vectors: no transformer runs at embedding time, so it embeds hundreds of times faster
than MiniLM, at a loss of quality (it reads a bag of word pieces, not their order or
context). The vectors come from MiniLM itself: model2vec's distillation
(``model2vec.distill.distill_from_model``) runs each of the 29,525 word pieces of
MiniLM's vocabulary (``[CLS] piece [SEP]``) through the model once, mean-pools the
output, reduces it to ``pca_dims`` dimensions by PCA and down-weights frequent pieces
(SIF, Zipf's law on the vocabulary order). It needs no corpus and no network.

A piece's vector alone only roughly predicts the vector MiniLM gives a whole text, so by
default the distilled vectors are then taught to imitate MiniLM (tokenlearn's objective,
:mod:`topics.embedding.teach`) on a packaged teaching set: the 4,364 bundled ICLR 2024
and 2025 abstracts with MiniLM's vectors of them (``topics/data/teaching/``). On corpora
it was not taught on (ICLR 2023, NeurIPS 2022, ten venues of the big corpus) a paper
then keeps about 40 % of its ten MiniLM neighbours instead of 27 %, and the topics agree
with MiniLM's about twice as well (``benchmarks/README.md``, "Teaching the static
vectors"). The teaching set's targets are MiniLM's, so a model distilled from another
sentence transformer (``model=``) is not taught unless asked; ``teach=False`` gives the
distillation as it is.

:class:`StaticEmbedder` distils the model on first use from the local model folder
(:func:`topics.embedding.weights.resolve_model`: the packaged, checksummed
all-MiniLM-L6-v2 by default; about 3 CPU minutes), teaches it (about half a CPU
minute) and keeps both under the topics cache folder (:func:`static_model_dir`), keyed
by the source weights' checksum, the model2vec version, the distillation parameters and
(taught) the teaching set's checksum; later runs load it in a fraction of a second.

Embedding is model2vec's ``StaticModel.encode`` with ``max_length=None`` (the whole
text, not its first 512 pieces), computed faster: the texts are cut into words at ASCII
spaces (which always separate BERT word pieces), each distinct word is tokenised once
(and remembered across calls), and the texts' piece counts are multiplied with the
vector table as one sparse product. The result equals
``StaticModel.encode(texts, max_length=None)`` to float rounding (tested), and each
vector depends on its text alone, so the vectors are cached and embedded in chunks
like MiniLM's.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import re
import shutil
import time
import uuid
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from itertools import chain
from pathlib import Path

import numpy as np

from topics.embedding.cache import default_cache_dir
from topics.embedding.teach import read_teaching_set, teach_vectors, teacher_of, teaching_set_path
from topics.embedding.weights import EmbeddingError, resolve_model, sha256_file
from topics.vectors import unit_rows

__all__ = ["StaticEmbedder", "static_model_dir"]

logger = logging.getLogger(__name__)

#: Texts tokenised and pooled together in :meth:`StaticEmbedder.encode`.
BATCH_SIZE = 4096
#: Distinct words remembered between calls before the memory is cleared.
MAX_REMEMBERED = 2_000_000
#: New words or fragments tokenised in one call, joined by spaces.
JOINED = 1000
#: The file, next to model2vec's, that records what a distilled model folder holds.
MANIFEST = "topics-static.json"

_ASCII_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # BERT's pre-tokeniser splits off each of these


def _model2vec_version() -> str:
    try:
        return version("model2vec")
    except PackageNotFoundError as exc:
        raise EmbeddingError("the static backend needs model2vec: pip install model2vec skeletoken") from exc


def _incidence(lengths: np.ndarray, columns: np.ndarray, n_columns: int):
    """A sparse matrix whose row ``i`` has a one in each of the next ``lengths[i]`` ``columns``."""
    import scipy.sparse as sp

    indptr = np.concatenate([[0], np.cumsum(lengths)])
    return sp.csr_matrix((np.ones(len(columns), dtype=np.float32), columns, indptr), shape=(len(lengths), n_columns))


def _count_matrix(ids: list[list[int]], vocabulary: int):
    """Word-piece counts per row of ``ids``, as a sparse ``(len(ids), vocabulary)`` matrix in canonical form."""
    lengths = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
    flat = np.fromiter(chain.from_iterable(ids), dtype=np.int64, count=int(lengths.sum()))
    counts = _incidence(lengths, flat, vocabulary)
    counts.sum_duplicates()
    counts.sort_indices()
    return counts


def _teaching_digest(path: Path) -> str:
    """The first 12 hex digits of a teaching set's sha256 (part of a taught model's fingerprint);
    hashed again when the file changes (its size or modification time)."""
    stat = path.stat()
    return _digest_of(path, stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _digest_of(path: Path, size: int, mtime_ns: int) -> str:
    return sha256_file(path)[:12]


def static_model_dir(fingerprint: str, cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """The folder that holds the static model distilled for ``fingerprint``.

    ``<cache_dir>/static/model2vec-<version>-<digest>``, where ``cache_dir`` defaults to
    :func:`topics.embedding.cache.default_cache_dir` and the digest is of the whole
    fingerprint (source weights' checksum, model2vec version, distillation parameters).
    """
    base = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    digest = hashlib.sha256(fingerprint.encode("utf-8")).hexdigest()[:16]
    return base / "static" / f"model2vec-{_model2vec_version()}-{digest}"


class StaticEmbedder:
    """Static word-piece vectors distilled from a sentence transformer with model2vec.

    Parameters
    ----------
    model
        The sentence transformer to distil from: ``None`` for the packaged
        all-MiniLM-L6-v2, or a local model folder (see
        :func:`topics.embedding.weights.resolve_model`).
    pca_dims
        Dimensions kept by the distillation's PCA (model2vec's default, 256; MiniLM has 384).
    sif_coefficient
        The SIF weight ``a / (a + p(piece))`` of each piece, with ``p`` from Zipf's law
        over the vocabulary order (model2vec's default, 1e-4).
    teach
        Teach the distilled vectors to imitate MiniLM on the packaged teaching set
        (:mod:`topics.embedding.teach`) or use them as distilled. ``None`` (default)
        teaches when the source is the model the teaching set's vectors come from (the
        packaged MiniLM), so a static model distilled from another sentence transformer
        is not made to imitate MiniLM unless ``teach=True`` asks for it.
    teaching_set
        A teaching set written by :func:`topics.embedding.teach.write_teaching_set` (MiniLM's
        vectors of a sample of your own corpus, say); default the packaged one. Its
        checksum is part of :meth:`fingerprint`. Dask workers read it from the same path.
    cache_dir
        Where distilled and taught models are kept (under ``static/``); default
        :func:`topics.embedding.cache.default_cache_dir`.

    The source weights' checksum, the model2vec version, both parameters and, for a
    taught model, the teaching set's checksum are part of :meth:`fingerprint`, so
    vectors of different static models never share a cache entry.
    A text with no word piece in the vocabulary (an empty text) gets the zero vector;
    every other vector has unit length.
    """

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        *,
        pca_dims: int = 256,
        sif_coefficient: float = 1e-4,
        teach: bool | None = None,
        teaching_set: str | os.PathLike[str] | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
    ):
        if isinstance(pca_dims, bool) or not isinstance(pca_dims, (int, np.integer)) or pca_dims < 2:
            raise ValueError(f"pca_dims must be an integer of at least 2, got {pca_dims!r}")
        if not 0 < sif_coefficient < 1:
            raise ValueError(f"sif_coefficient must lie strictly between 0 and 1, got {sif_coefficient!r}")
        self.model = model
        self.pca_dims = int(pca_dims)
        self.sif_coefficient = float(sif_coefficient)
        self.cache_dir = cache_dir
        self._source, self._source_fingerprint = resolve_model(model)
        self.teaching_set = Path(teaching_set).expanduser().resolve() if teaching_set is not None else teaching_set_path()
        if not self.teaching_set.is_file():
            raise ValueError(f"no teaching set at {self.teaching_set}")
        # fingerprints read "<kind>:<weights' sha256>:...": the same weights, packaged or in a local folder
        same_weights = teacher_of(self.teaching_set).split(":")[1] == self._source_fingerprint.split(":", 1)[1]
        self.teach = same_weights if teach is None else bool(teach)
        source_name = Path(str(model)).name if model else "all-MiniLM-L6-v2"
        on = "the bundled ICLR abstracts" if teaching_set is None else self.teaching_set.name
        taught = f", taught on {on}" if self.teach else ""
        self.name = f"static ({source_name} distilled by model2vec{taught}, {self.pca_dims} dims)"
        self._reset()

    def _reset(self) -> None:
        self._vectors: np.ndarray | None = None
        self._tokenizer = None
        self._unknown: int | None = None
        self._by_words = False
        self._forget()

    def _forget(self) -> None:
        # per kind ("word", "fragment"): {unit: row} and the units' word-piece counts, sparse (units, vocabulary)
        self._memory: dict[str, tuple[dict[str, int], object]] = {"word": ({}, None), "fragment": ({}, None)}

    def __getstate__(self) -> dict:
        # Sent to other processes (Dask workers) without the loaded model; each loads its own.
        state = dict(self.__dict__)
        for key in ("_vectors", "_tokenizer", "_unknown", "_by_words", "_memory"):
            state.pop(key)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._reset()

    def fingerprint(self) -> str:
        distilled = (
            f"static:{self._source_fingerprint}:model2vec-{_model2vec_version()}"
            f":pca{self.pca_dims}:sif{self.sif_coefficient!r}:mean:whole-text"
        )
        return f"{distilled}:taught-{_teaching_digest(self.teaching_set)}" if self.teach else distilled

    def model_dir(self) -> Path:
        """The folder of this embedder's distilled model (:func:`static_model_dir`)."""
        return static_model_dir(self.fingerprint(), self.cache_dir)

    # -- the distilled model: load, or distil once and keep ------------------------------

    def _read(self, folder: Path):
        """The vector table and tokenizer in ``folder``, or ``None`` if it is absent or does not check out."""
        manifest = folder / MANIFEST
        if not manifest.exists():
            return None
        try:
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer

            record = json.loads(manifest.read_text(encoding="utf-8"))
            weights = folder / "model.safetensors"
            if record.get("fingerprint") != self.fingerprint() or record.get("sha256") != sha256_file(weights):
                raise ValueError("its manifest does not match its files or this embedder")
            tensors = load_file(weights)
            if set(tensors) != {"embeddings"}:  # vocabulary quantisation would add a mapping and weights
                raise ValueError(f"unexpected tensors {sorted(tensors)}")
            tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except Exception as exc:  # a damaged folder raises JSON, OS, safetensors or value errors
            logger.warning("static model %s is damaged (%s); making it again", folder, exc)
            return None
        vectors = np.ascontiguousarray(tensors["embeddings"], dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != tokenizer.get_vocab_size():
            logger.warning("static model %s has %s vectors for %d word pieces; making it again",
                           folder, vectors.shape, tokenizer.get_vocab_size())
            return None
        return vectors, tokenizer

    def _distil(self, folder: Path) -> None:
        """Distil the static model from the local source folder and write it to ``folder`` atomically."""
        try:
            from model2vec.distill import distill_from_model
            from transformers import AutoModel, AutoTokenizer
        except ImportError as exc:
            raise EmbeddingError(
                f"distilling the static model needs model2vec, skeletoken, transformers and torch ({exc}); "
                "pip install model2vec skeletoken"
            ) from exc
        local = Path(self._source).is_dir()  # the packaged MiniLM or a local folder: nothing is downloaded
        logger.info("distilling a static model from %s with model2vec (once; minutes on a laptop) into %s", self._source, folder)
        start = time.perf_counter()
        try:
            source = AutoModel.from_pretrained(self._source, local_files_only=local)
            tokenizer = AutoTokenizer.from_pretrained(self._source, local_files_only=local, use_fast=True)
        except Exception as exc:
            raise EmbeddingError(f"cannot load {self._source!r} to distil a static model ({type(exc).__name__}: {exc})") from exc
        static = distill_from_model(
            source, tokenizer, device="cpu", pca_dims=self.pca_dims, sif_coefficient=self.sif_coefficient,
            quantize_to="float32", pooling="mean",
        )
        seconds = time.perf_counter() - start
        self._publish(folder, static.save_pretrained, {"distil_seconds": round(seconds, 1)})
        logger.info("distilled the static model in %.0f s", seconds)

    def _teach(self, folder: Path) -> None:
        """Teach the distilled model on ``self.teaching_set`` (:mod:`topics.embedding.teach`)
        and write the taught model to ``folder`` atomically."""
        from safetensors.numpy import save_file

        distilled = StaticEmbedder(self.model, pca_dims=self.pca_dims, sif_coefficient=self.sif_coefficient,
                                   teach=False, cache_dir=self.cache_dir)
        vectors = distilled._load()
        texts, targets, teacher = read_teaching_set(self.teaching_set)
        logger.info("teaching the static model to imitate %s on %d abstracts (once; about a CPU minute)", teacher, len(texts))
        start = time.perf_counter()
        table, record = teach_vectors(vectors, distilled.token_counts(texts), targets, random_state=0)
        seconds = time.perf_counter() - start
        source = distilled.model_dir()

        def write(tmp: Path) -> None:
            tmp.mkdir(parents=True)
            for name in ("config.json", "modules.json", "tokenizer.json", "README.md"):
                if (source / name).exists():
                    shutil.copyfile(source / name, tmp / name)
            save_file({"embeddings": table}, str(tmp / "model.safetensors"))

        self._publish(folder, write, {"teach_seconds": round(seconds, 1), "teacher": teacher, **record})
        logger.info("taught the static model in %.0f s", seconds)

    def _publish(self, folder: Path, write, record: dict) -> None:
        """Write a model folder with ``write(tmp)``, add the manifest (this embedder's
        fingerprint, the weights' sha256 and ``record``) and move it to ``folder``
        atomically; if another process wrote ``folder`` meanwhile, keep its copy."""
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = folder.with_name(f".{folder.name}.tmp{os.getpid()}-{uuid.uuid4().hex[:8]}")
        try:
            write(tmp)
            record = {"fingerprint": self.fingerprint(), "sha256": sha256_file(tmp / "model.safetensors"),
                      "source": self._source, **record}
            (tmp / MANIFEST).write_text(json.dumps(record, indent=2), encoding="utf-8")
            if self._read(folder) is not None:
                logger.info("another process wrote %s meanwhile; using its copy", folder)
                return
            if folder.exists():  # a damaged copy: move it aside first (a rename never replaces a full folder)
                aside = folder.with_name(f".{folder.name}.damaged-{uuid.uuid4().hex[:8]}")
                try:
                    os.replace(folder, aside)
                except FileNotFoundError:  # another process moved it first
                    pass
                shutil.rmtree(aside, ignore_errors=True)
            os.rename(tmp, folder)  # atomic: readers see no folder or a whole one
        except OSError:
            if not (folder / MANIFEST).exists():
                raise
            logger.info("another process wrote %s meanwhile; using its copy", folder)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def _load(self) -> np.ndarray:
        if self._vectors is not None:
            return self._vectors
        folder = self.model_dir()
        loaded = self._read(folder)
        if loaded is None:
            (self._teach if self.teach else self._distil)(folder)
            loaded = self._read(folder)
            if loaded is None:
                raise EmbeddingError(f"the static model distilled into {folder} cannot be read back")
        self._vectors, tokenizer = loaded
        tokenizer.no_truncation()
        tokenizer.no_padding()
        self._tokenizer = tokenizer
        spec = json.loads(tokenizer.to_str())
        unknown = spec["model"].get("unk_token")
        self._unknown = tokenizer.token_to_id(unknown) if unknown else None
        # BERT's normaliser and pre-tokeniser, and no added word that could span a space
        self._by_words = (
            (spec.get("pre_tokenizer") or {}).get("type") == "BertPreTokenizer"
            and (spec.get("normalizer") or {"type": "BertNormalizer"}).get("type") == "BertNormalizer"
            and all(token.get("special") for token in spec.get("added_tokens") or [])
        )
        return self._vectors

    # -- embedding ---------------------------------------------------------------------

    def _tokenise(self, units: list[str]):
        """Word-piece counts of each of ``units`` (strings without spaces) as a sparse ``(len(units), vocabulary)`` matrix.

        The units are joined by spaces, ``JOINED`` at a time, and tokenised together; an
        ASCII space always separates word pieces under BERT's pre-tokeniser, so each
        piece belongs to the unit its offset falls in.
        """
        import scipy.sparse as sp

        owners, pieces = [], []
        for first in range(0, len(units), JOINED):
            group = units[first : first + JOINED]
            starts = np.cumsum([0] + [len(u) + 1 for u in group])  # where each unit begins in the joined text
            encoding = self._tokenizer.encode(" ".join(group), add_special_tokens=False)
            offsets = np.asarray([o[0] for o in encoding.offsets], dtype=np.int64)
            owners.append(first + np.searchsorted(starts, offsets, side="right") - 1)
            pieces.append(np.asarray(encoding.ids, dtype=np.int64))
        owner = np.concatenate(owners) if owners else np.zeros(0, dtype=np.int64)
        ids = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)
        keep = ids != (-1 if self._unknown is None else self._unknown)
        return sp.csr_matrix((np.ones(int(keep.sum()), dtype=np.float32), (owner[keep], ids[keep])),
                             shape=(len(units), len(self._vectors)))

    def _rows(self, units: list[str], kind: str) -> np.ndarray:
        """Rows of the remembered counts of ``kind`` ("word" or "fragment") for ``units``, counting new ones first.

        A new word's counts are the sum of its fragments' (the word cut at ASCII
        punctuation, which BERT's pre-tokeniser always splits off), so a fragment shared by
        many words ("model" in "model," "(model" "model.") is tokenised once.
        """
        import scipy.sparse as sp

        known, counts = self._memory[kind]
        new = list(set(units).difference(known))  # the order of new rows does not change any count
        if new or counts is None:
            if kind == "fragment":
                block = self._tokenise(new)
            else:
                fragments = [[f for f in _ASCII_PUNCTUATION.split(word) if f] for word in new]
                rows = self._rows(list(chain.from_iterable(fragments)), "fragment")
                per_word = np.fromiter(map(len, fragments), dtype=np.int64, count=len(fragments))
                fragment_counts = self._memory["fragment"][1]
                block = (_incidence(per_word, rows, fragment_counts.shape[0]) @ fragment_counts).tocsr()
            first = 0 if counts is None else counts.shape[0]
            counts = block if counts is None else sp.vstack([counts, block], format="csr")
            known.update(zip(new, range(first, first + len(new))))
            self._memory[kind] = (known, counts)
        return np.fromiter(map(known.__getitem__, units), dtype=np.int64, count=len(units))

    def token_counts(self, texts: Sequence[str]):
        """How often each word piece occurs in each text, as a sparse ``(len(texts), vocabulary)`` matrix.

        The counts of the model's own tokeniser (no special tokens, unknown pieces
        dropped, nothing truncated). For a BERT tokeniser (MiniLM's) they are computed
        word by word: BERT's pre-tokeniser always separates word pieces at ASCII spaces
        and around ASCII punctuation, so the texts are split at spaces (by Arrow), each
        distinct word is counted once as the sum of its fragments between punctuation,
        and words and fragments are remembered for later calls (up to
        :data:`MAX_REMEMBERED` words). Other tokenisers read each text whole.
        """
        import pyarrow as pa
        import pyarrow.compute as pc

        vocabulary = len(self._load())
        if not self._by_words:
            encodings = self._tokenizer.encode_batch_fast(list(texts), add_special_tokens=False)
            return _count_matrix([[i for i in e.ids if i != self._unknown] for e in encodings], vocabulary)
        words = pc.split_pattern(pa.array(list(texts), type=pa.large_string()), " ")
        words_per_text = pc.list_value_length(words).to_numpy(zero_copy_only=False).astype(np.int64)
        encoded = pc.dictionary_encode(pc.list_flatten(words))
        if len(self._memory["word"][0]) > MAX_REMEMBERED:
            self._forget()
        rows = self._rows(encoded.dictionary.to_pylist(), "word")
        word_counts = self._memory["word"][1]
        text_words = _incidence(words_per_text, rows[encoded.indices.to_numpy(zero_copy_only=False)], word_counts.shape[0])
        counts = (text_words @ word_counts).tocsr()
        counts.sum_duplicates()
        counts.sort_indices()  # so each row is summed in the same order whatever batch it is in
        return counts

    def encode(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        from tqdm.auto import tqdm

        texts = list(texts)
        vectors = self._load()
        out = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
        with tqdm(total=len(texts), disable=not show_progress, desc="embedding (static)", unit="text") as bar:
            for start in range(0, len(texts), BATCH_SIZE):
                batch = texts[start : start + BATCH_SIZE]
                out[start : start + len(batch)] = np.asarray(self.token_counts(batch) @ vectors, dtype=np.float32)
                bar.update(len(batch))
        empty = int((~out.any(axis=1)).sum())
        if empty:
            logger.warning("%d of %d texts have no word piece in the static model's vocabulary; their vectors are zero", empty, len(texts))
        return unit_rows(out)
