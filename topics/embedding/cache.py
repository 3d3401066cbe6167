"""The on-disk embedding cache: vectors per model fingerprint, keyed by text hash.

:func:`topics.embedding.backends.embed_texts` reads from it before embedding and appends each chunk
as soon as it is embedded (so an interrupted run resumes where it stopped), and
:func:`topics.embedding.distributed.embed_texts_distributed` gathers its workers' chunks into it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

import numpy as np

__all__ = ["EmbeddingCache", "default_cache_dir"]

logger = logging.getLogger(__name__)


def default_cache_dir() -> Path:
    """``$TOPICS_CACHE_DIR``, else ``$XDG_CACHE_HOME/topics``, else ``~/.cache/topics``."""
    if os.environ.get("TOPICS_CACHE_DIR"):
        return Path(os.environ["TOPICS_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "topics"


def _digest(fingerprint: str) -> str:
    """What names a fingerprint's files: ``embeddings-<digest>.npz`` and ``.parts/``."""
    return hashlib.sha256(fingerprint.encode("utf-8")).hexdigest()[:24]


def _named_digest(path: Path) -> str:
    """The digest in the name of a main file, or of the folder of a chunk file."""
    named = path.parent if path.parent.suffix == ".parts" else path
    return named.name.removeprefix("embeddings-").split(".")[0]


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class EmbeddingCache:
    """Vectors on disk per model fingerprint, keyed by text hash, written chunk by chunk.

    For each fingerprint the cache holds one main file ``embeddings-<digest>.npz`` and a
    folder ``embeddings-<digest>.parts/`` of chunk files. :meth:`append` writes one chunk
    file as soon as a chunk is embedded, so an interrupted run keeps every chunk it
    finished and the next run embeds only the rest; :meth:`compact` folds the chunk files
    into the main file. Every file holds ``keys`` (text hashes), ``vectors``,
    ``fingerprint`` (the model that made them) and ``checksum`` (sha256 of the three)
    and is written atomically (a temporary file, then a rename), so several processes
    may append at once. A file that cannot be read, whose checksum does not match, or
    that records another model's fingerprint than its name says (a file copied or
    renamed) is reported as a warning and ignored, so its vectors are recomputed, never
    trusted. (Files written before the fingerprint was recorded are read by their name.)

    Parameters
    ----------
    directory
        The cache folder; default ``$TOPICS_CACHE_DIR``, else ``~/.cache/topics``.

    Examples
    --------
    >>> cache = topics.EmbeddingCache("cache")
    >>> vectors = topics.embed_texts(["optimal transport", "diffusion models"], "hashing", cache=cache)
    >>> again = topics.embed_texts(["optimal transport", "diffusion models"], "hashing", cache=cache)
    >>> bool((vectors == again).all())
    True
    """

    def __init__(self, directory: str | os.PathLike[str] | None = None):
        self.directory = Path(directory) if directory is not None else default_cache_dir()

    def path(self, fingerprint: str) -> Path:
        """The main file for ``fingerprint``."""
        return self.directory / f"embeddings-{_digest(fingerprint)}.npz"

    def parts_dir(self, fingerprint: str) -> Path:
        """The folder of chunk files for ``fingerprint`` (see :meth:`append`)."""
        return self.path(fingerprint).with_suffix(".parts")

    def parts(self, fingerprint: str) -> list[Path]:
        """The chunk files written for ``fingerprint`` and not yet compacted."""
        folder = self.parts_dir(fingerprint)
        return sorted(folder.glob("part-*.npz")) if folder.is_dir() else []

    @staticmethod
    def _checksum(keys: np.ndarray, vectors: np.ndarray, fingerprint: str | None = None) -> str:
        h = hashlib.sha256()
        if fingerprint is not None:  # None: a file from before the fingerprint was recorded
            h.update(fingerprint.encode("utf-8") + b"\0")
        h.update("\n".join(keys.tolist()).encode("utf-8"))
        h.update(str(vectors.shape).encode())
        h.update(np.ascontiguousarray(vectors).tobytes())
        return h.hexdigest()

    def _read(self, path: Path) -> tuple[np.ndarray, np.ndarray] | None:
        try:
            with np.load(path, allow_pickle=False) as data:
                keys, vectors, checksum = data["keys"], data["vectors"], str(data["checksum"])
                made_by = str(data["fingerprint"]) if "fingerprint" in data.files else None
            if vectors.ndim != 2 or len(keys) != len(vectors) or checksum != self._checksum(keys, vectors, made_by):
                raise ValueError("checksum or shape mismatch")
            if made_by is not None and _digest(made_by) != _named_digest(path):
                logger.warning("embedding cache %s holds vectors of another model (%s) than its name says; recomputing", path, made_by)
                return None
        except FileNotFoundError:  # compacted by another process meanwhile: its vectors are in the main file
            return None
        except Exception as exc:  # a damaged file raises zipfile, OS, key or value errors
            logger.warning("embedding cache %s is damaged (%s); recomputing", path, exc)
            return None
        return keys, vectors

    def _write(self, path: Path, keys: np.ndarray, vectors: np.ndarray, fingerprint: str) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.stem}.tmp{os.getpid()}-{uuid.uuid4().hex[:8]}.npz")
        checksum = self._checksum(keys, vectors, fingerprint)
        np.savez(tmp, keys=keys, vectors=vectors, fingerprint=np.array(fingerprint), checksum=np.array(checksum))
        os.replace(tmp, path)
        return path

    def load(self, fingerprint: str) -> dict[str, np.ndarray]:
        """All vectors stored for ``fingerprint`` (main file and chunk files) as ``{text_key: vector}``.

        The chunk files are read before the main file: :meth:`compact` writes the main
        file before it deletes the chunks it folded in, so a chunk deleted while this
        runs is in the main file read after it, and another process's compaction cannot
        hide vectors from this one.
        """
        store: dict[str, np.ndarray] = {}
        for path in [*self.parts(fingerprint), self.path(fingerprint)]:
            if path.exists() and (read := self._read(path)) is not None:
                store.update(zip(read[0].tolist(), read[1]))
        return store

    def append(self, fingerprint: str, keys: Sequence[str], vectors: np.ndarray) -> Path:
        """Store one chunk: ``vectors[i]`` for text hash ``keys[i]``, in a new chunk file.

        Returns the chunk file's path. Safe to call from several processes at once.
        """
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or len(keys) != len(vectors):
            raise ValueError(f"{len(keys)} keys for vectors of shape {vectors.shape}")
        name = f"part-{time.time_ns():020d}-{os.getpid()}-{uuid.uuid4().hex[:8]}.npz"
        return self._write(self.parts_dir(fingerprint) / name, np.array(list(keys), dtype="U32"), vectors, fingerprint)

    def save(self, fingerprint: str, store: dict[str, np.ndarray]) -> Path:
        """Write ``store`` as the main file for ``fingerprint`` atomically; returns the file path.

        Chunk files are left as they are (:meth:`compact` folds them in).
        """
        keys = np.array(sorted(store), dtype="U32")
        vectors = np.stack([store[k] for k in keys.tolist()]).astype(np.float32)
        return self._write(self.path(fingerprint), keys, vectors, fingerprint)

    def compact(self, fingerprint: str) -> Path | None:
        """Fold the chunk files of ``fingerprint`` into its main file and delete them.

        Holds a lock file while it runs (where the platform has ``fcntl``), so two
        processes compacting at once cannot drop each other's chunks; chunk files
        appended meanwhile stay for the next compaction. Returns the main file, or
        ``None`` where there was nothing to fold in.
        """
        parts = self.parts(fingerprint)
        if not parts:
            return None
        lock_path = self.parts_dir(fingerprint) / ".lock"
        with open(lock_path, "a+b") as lock:
            try:
                import fcntl

                fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            except ImportError:  # pragma: no cover - Windows: no lock, at worst some vectors are recomputed
                pass
            parts = self.parts(fingerprint)  # again, under the lock
            store: dict[str, np.ndarray] = {}
            main = self.path(fingerprint)
            for path in [main, *parts]:
                if path.exists() and (read := self._read(path)) is not None:
                    store.update(zip(read[0].tolist(), read[1]))
            if not store:
                return None
            self.save(fingerprint, store)
            for path in parts:
                path.unlink(missing_ok=True)
        logger.info("embedding cache: %d chunk files folded into %s (%d vectors)", len(parts), main, len(store))
        return main


def as_cache(cache: EmbeddingCache | str | os.PathLike[str] | bool | None) -> EmbeddingCache:
    """``cache`` as an :class:`EmbeddingCache`: ``True`` is the default folder, a path its folder."""
    return cache if isinstance(cache, EmbeddingCache) else EmbeddingCache(None if cache is True else cache)


def missing_keys(texts: Sequence[str], store: dict) -> tuple[list[str], list[tuple[str, int]]]:
    """Text keys in order, and ``(key, first index)`` of each distinct text not in ``store``."""
    keys = [text_key(t) for t in texts]
    first: dict[str, int] = {}
    for i, k in enumerate(keys):
        if k not in store and k not in first:
            first[k] = i
    return keys, list(first.items())
