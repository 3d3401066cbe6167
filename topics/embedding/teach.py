"""Teaching static word-piece vectors to imitate a sentence transformer: tokenlearn's objective.

model2vec's distillation gives each word piece the vector the sentence transformer gives
it alone (``[CLS] piece [SEP]``), so a text's static vector, the mean of its pieces',
only roughly follows the vector the transformer gives the whole text. tokenlearn
(Tulkens and van Dongen, MinishLab 2025, https://github.com/MinishLab/tokenlearn) trains
the table on texts the transformer has embedded: a text's weighted mean of piece vectors,
through one linear layer, is regressed onto the transformer's vector of the text
(PCA-reduced), with a learned weight per piece; the trained table is each piece's vector
times its weight, and the linear layer is dropped.

:func:`teach_vectors` is that objective on word-piece count matrices
(:meth:`topics.embedding.static.StaticEmbedder.token_counts`), so a text is read whole, as
the static backend embeds it, and the pieces' mean is one ``embedding_bag``. It follows
tokenlearn 0.2.1's ``train_supervised``: rows normalised and their norms as the initial
weights, AdamW at learning rate 1e-3, batches of 256, mean squared error, the last tenth
of the (shuffled) texts held out, stopping after ``patience`` epochs without an
improvement of at least 1e-4 and keeping the best epoch. It is written here rather than
imported because the tokenlearn package requires ``model2vec[distill]``, whose pin of
transformers would downgrade the one sentence-transformers uses here.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from topics.vectors import unit_rows

__all__ = ["TEACHING_SET", "read_teaching_set", "teach_vectors", "teacher_of", "teaching_set_path", "write_teaching_set"]

logger = logging.getLogger(__name__)

#: Smallest drop of the held-out loss that counts as an improvement (tokenlearn's).
MIN_IMPROVEMENT = 1e-4


def teach_vectors(
    vectors: np.ndarray,
    counts,
    targets: np.ndarray,
    *,
    pca_dims: int = 256,
    batch_size: int = 256,
    learning_rate: float = 1e-3,
    patience: int = 5,
    max_epochs: int = 200,
    validation_share: float = 0.1,
    random_state: int = 0,
    show_progress: bool = False,
) -> tuple[np.ndarray, dict]:
    """Static vectors trained so that texts' mean piece vectors predict the teacher's vectors.

    Parameters
    ----------
    vectors
        The static table to start from, ``(n_pieces, dim)`` (a model2vec distillation).
    counts
        Word-piece counts of the teaching texts, a sparse ``(n_texts, n_pieces)`` matrix.
    targets
        The teacher's vector of each teaching text, ``(n_texts, teacher_dim)``.
    pca_dims
        The targets are reduced to this many principal components first (tokenlearn's 256).
    batch_size, learning_rate, patience, max_epochs, validation_share
        Training settings (module docs); texts without a known piece are left out.
    random_state
        Seeds the split, the order of the batches and the linear layer.
    show_progress
        A progress bar over the epochs.

    Returns
    -------
    table : ndarray of float32, shape (n_pieces, dim)
        The taught vectors.
    record : dict
        ``epochs`` run, ``best_epoch`` (counted from 0), the held-out ``validation_loss``
        of the kept epoch and after the first (``first_epoch_validation_loss``), the
        teaching and held-out text counts and the targets' dimensions.
    """
    import torch
    from sklearn.decomposition import PCA

    counts, vectors, targets, keep = _checked(counts, vectors, targets)
    n_components = min(pca_dims, targets.shape[1], len(targets) - 1)
    targets = PCA(n_components=n_components, random_state=random_state).fit_transform(targets).astype(np.float32)

    rng = np.random.default_rng(random_state)
    order = rng.permutation(len(targets))  # the held-out texts, then each epoch's batch order
    n_val = max(1, int(round(validation_share * len(order))))
    train, val = order[:-n_val], order[-n_val:]

    torch.manual_seed(random_state)
    student = _Student(vectors, counts, targets)
    optimiser = torch.optim.AdamW(student.parameters(), lr=learning_rate)
    best, initial, epochs = _train(student, optimiser, train, val, rng, batch_size=batch_size, patience=patience,
                                   max_epochs=max_epochs, show_progress=show_progress)
    kept_table, kept_weight = best[2]
    taught = (kept_table * kept_weight[:, None]).numpy().astype(np.float32)
    record = {"epochs": epochs, "best_epoch": best[1], "validation_loss": round(best[0], 6),
              "first_epoch_validation_loss": round(initial, 6), "texts": int(len(keep)), "validation_texts": int(n_val),
              "target_dims": int(n_components)}
    logger.info("taught the static vectors on %d texts in %d epochs (held-out loss %.5f)", len(keep), epochs, best[0])
    return taught, record


def _checked(counts, vectors, targets):
    """:func:`teach_vectors`' inputs as float32, checked, with the texts without a known
    word piece left out: ``(counts, vectors, targets, kept positions)``."""
    import scipy.sparse as sp

    counts = sp.csr_matrix(counts, dtype=np.float32)
    vectors = np.asarray(vectors, dtype=np.float32)
    targets = np.asarray(targets, dtype=np.float32)
    if counts.shape != (len(targets), len(vectors)):
        raise ValueError(f"counts of shape {counts.shape} do not match {len(targets)} targets and {len(vectors)} vectors")
    if not (np.isfinite(targets).all() and np.isfinite(vectors).all()):
        raise ValueError("the targets and the vectors must be finite")
    keep = np.flatnonzero(np.asarray(counts.sum(axis=1)).ravel() > 0)
    if len(keep) < 20:
        raise ValueError(f"teaching needs at least 20 texts with known word pieces, got {len(keep)}")
    return counts[keep], vectors, targets[keep], keep


class _Student:
    """The static table being taught (module docs): unit piece vectors, a weight per piece
    (at first its vector's length) and a linear head onto the targets' components; a
    text's prediction is the head of its pieces' weighted mean."""

    def __init__(self, vectors: np.ndarray, counts, targets: np.ndarray):
        import torch

        self.table = torch.nn.Parameter(torch.from_numpy(unit_rows(vectors).copy()))
        self.weight = torch.nn.Parameter(torch.from_numpy(np.linalg.norm(vectors, axis=1).astype(np.float32)))
        self.head = torch.nn.Linear(vectors.shape[1], targets.shape[1])
        self.counts, self.targets = counts, targets
        self.loss_of = torch.nn.MSELoss()

    def parameters(self) -> list:
        return [self.table, self.weight, *self.head.parameters()]

    def loss(self, rows: np.ndarray):
        """The mean squared error of the predictions for the teaching texts ``rows``."""
        import torch

        part = self.counts[rows]
        ids = torch.from_numpy(part.indices.astype(np.int64))
        offsets = torch.from_numpy(part.indptr[:-1].astype(np.int64))
        n = torch.from_numpy(part.data)
        lengths = torch.from_numpy(np.asarray(part.sum(axis=1), dtype=np.float32).ravel())
        pooled = torch.nn.functional.embedding_bag(ids, self.table, offsets, mode="sum", per_sample_weights=n * self.weight[ids])
        return self.loss_of(self.head(pooled / lengths[:, None]), torch.from_numpy(self.targets[rows]))

    def validation_loss(self, val: np.ndarray, batch_size: int) -> float:
        import torch

        with torch.no_grad():
            total = 0.0
            for first in range(0, len(val), batch_size):
                rows = val[first : first + batch_size]
                total += float(self.loss(rows)) * len(rows)
        return total / len(val)


def _train(student: _Student, optimiser, train: np.ndarray, val: np.ndarray, rng, *, batch_size: int, patience: int,
           max_epochs: int, show_progress: bool):
    """Epochs over ``train`` until the held-out loss on ``val`` has not improved by
    :data:`MIN_IMPROVEMENT` for ``patience`` epochs: ``(best, first epoch's held-out loss,
    epochs run)``, ``best`` being ``(held-out loss, epoch, (table, weight))`` of the kept epoch."""
    from tqdm.auto import tqdm

    best, initial, waited, epoch = (np.inf, -1, None), None, 0, -1
    with tqdm(total=max_epochs, disable=not show_progress, desc="teaching the static vectors", unit="epoch") as bar:
        for epoch in range(max_epochs):
            for first in range(0, len(train), batch_size):
                optimiser.zero_grad()
                loss = student.loss(train[first : first + batch_size])
                loss.backward()
                optimiser.step()
            rng.shuffle(train)
            current = student.validation_loss(val, batch_size)
            if initial is None:
                initial = current
            if best[0] - current > MIN_IMPROVEMENT:
                best, waited = (current, epoch, (student.table.detach().clone(), student.weight.detach().clone())), 0
            else:
                waited += 1
            bar.update(1)
            bar.set_postfix(loss=f"{current:.5f}")
            if waited >= patience:
                break
    return best, initial, epoch + 1


#: The packaged teaching set: the 4,364 bundled ICLR 2024/2025 texts and MiniLM's vectors
#: of them (``benchmarks/static_teaching_set.py`` writes it).
TEACHING_SET = "minilm-iclr-full.npz"


def teaching_set_path() -> Path:
    """Where the packaged teaching set lies (``topics/data/teaching/``)."""
    from importlib import resources

    return Path(str(resources.files("topics") / "data" / "teaching" / TEACHING_SET))


def teacher_of(path: str | os.PathLike[str] | None = None) -> str:
    """The fingerprint of the model whose vectors the teaching set holds (its texts are not
    read; read again when the file changes)."""
    path = teaching_set_path() if path is None else Path(path)
    stat = path.stat()
    return _teacher(path, stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _teacher(path: Path, size: int, mtime_ns: int) -> str:
    with np.load(path, allow_pickle=False) as stored:
        return str(stored["teacher"])


def write_teaching_set(
    path: str | os.PathLike[str], texts: Sequence[str], vectors: np.ndarray, teacher: str, *, dims: int = 256
) -> Path:
    """Write a teaching set: ``texts``, the teacher's ``vectors`` of them reduced to their
    ``dims`` principal components (float16; tokenlearn reduces its targets the same way)
    and the teacher's fingerprint (``Embedder.fingerprint()``, "<kind>:<weights' sha256>:...").

    :class:`topics.embedding.static.StaticEmbedder` (``teaching_set=path``) teaches on it;
    the packaged set is the bundled full lists with the packaged MiniLM's vectors
    (``benchmarks/static_teaching_set.py``). Returns the path written.
    """
    from sklearn.decomposition import PCA

    texts = [str(t) for t in texts]
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim != 2 or len(vectors) != len(texts):
        raise ValueError(f"{len(texts)} texts and vectors of shape {vectors.shape}")
    if len(texts) < 20:
        raise ValueError(f"a teaching set needs at least 20 texts, got {len(texts)}")
    if len(str(teacher).split(":")) < 2:
        raise ValueError(f"teacher must be an embedder fingerprint such as 'minilm:<sha256>:...', got {teacher!r}")
    pca = PCA(n_components=min(dims, vectors.shape[1], len(texts) - 1), random_state=0).fit(vectors)
    encoded = [t.encode("utf-8") for t in texts]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:  # exactly this path: np.savez_compressed would add ".npz" to another name
        np.savez_compressed(
            fh,
            text_bytes=np.frombuffer(b"".join(encoded), dtype=np.uint8),
            text_ends=np.cumsum([len(e) for e in encoded]).astype(np.int64),
            targets=pca.transform(vectors).astype(np.float16),
            teacher=np.array(str(teacher)),
            explained_variance=np.array(float(pca.explained_variance_ratio_.sum())),
        )
    return path


def read_teaching_set(path: str | os.PathLike[str] | None = None) -> tuple[list[str], np.ndarray, str]:
    """The teaching texts, their teacher's vectors (float32) and the teacher's fingerprint."""
    path = teaching_set_path() if path is None else Path(path)
    with np.load(path, allow_pickle=False) as stored:
        data = stored["text_bytes"].tobytes()
        ends = stored["text_ends"]
        targets = stored["targets"].astype(np.float32)
        teacher = str(stored["teacher"])
    starts = np.concatenate([[0], ends[:-1]])
    texts = [data[a:b].decode("utf-8") for a, b in zip(starts, ends)]
    if len(texts) != len(targets):
        raise ValueError(f"{path}: {len(texts)} texts for {len(targets)} vectors")
    return texts, targets, teacher
