"""ark graph embed: offline loading, the sidecar manifest, resuming, and refusing mismatches."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphs.dense.build import EmbedRequest, embed_snapshot, node_text
from graphs.dense.embeddings import Embeddings, EmbeddingsError, embed_dir
from graphs.dense.encoder import EncoderError, TextEncoder
from graphs.snapshot import Snapshot


def test_encoder_loads_offline_and_normalises(encoder_dir: Path) -> None:
    encoder = TextEncoder.load(encoder_dir)
    vectors = encoder.encode(["red kettle", "a blue lamp made by Acme"])
    assert vectors.shape == (2, 16) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)
    assert not np.allclose(vectors[0], vectors[1])
    assert len(encoder.fingerprint) == 64 and encoder.name == "encoder"


def test_encoder_errors_say_what_to_pass(tmp_path: Path) -> None:
    with pytest.raises(EncoderError, match="does not exist"):
        TextEncoder.load(tmp_path / "missing")
    with pytest.raises(EncoderError, match=r"modules\.json"):
        TextEncoder.load(tmp_path)


def test_embed_writes_plain_and_every_variant(tiny: tuple[Path, Path], encoder_dir: Path) -> None:
    snapshot = Snapshot.open(tiny[0])
    encoder = TextEncoder.load(encoder_dir)
    manifest = embed_snapshot(snapshot, encoder, EmbedRequest(chunk_rows=5))
    assert list(manifest.variants) == ["plain", "hop1", "hop2", "convex", "walk", "louvain"]
    assert manifest.encoder_hash == encoder.fingerprint and manifest.dim == 16
    embeddings = Embeddings.open(snapshot.path, content_hash=snapshot.manifest.content_hash)
    plain = embeddings.matrix("plain")
    assert plain.dtype == np.float16 and plain.shape == (snapshot.num_nodes, 16)
    expected = encoder.encode([node_text(snapshot, node) for node in range(snapshot.num_nodes)])
    np.testing.assert_allclose(plain.astype(np.float32), expected, atol=2e-3)
    for name in ("hop1", "hop2", "convex", "walk", "louvain"):
        matrix = embeddings.matrix(name).astype(np.float32)
        np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1, atol=2e-3)
        assert not np.allclose(matrix, plain.astype(np.float32), atol=1e-3), name
    assert manifest.variants["convex"].stats["final_displacement"] < 1e-6
    assert not (embed_dir(snapshot.path) / "progress.json").exists()


class _CountingEncoder:
    """Wraps the real encoder, counts encoded texts, and can stop after n calls."""

    def __init__(self, encoder: TextEncoder, stop_after: int | None = None) -> None:
        self._encoder = encoder
        self.name, self.fingerprint, self.dim = encoder.name, encoder.fingerprint, encoder.dim
        self.texts = 0
        self._calls_left = stop_after

    def encode(self, texts: list[str]) -> np.ndarray:
        if self._calls_left is not None:
            if self._calls_left == 0:
                raise KeyboardInterrupt
            self._calls_left -= 1
        self.texts += len(texts)
        return self._encoder.encode(texts)


def test_interrupted_encoding_resumes_where_it_stopped(
    tiny: tuple[Path, Path], encoder_dir: Path
) -> None:
    snapshot = Snapshot.open(tiny[0])
    encoder = TextEncoder.load(encoder_dir)
    request = EmbedRequest(variants=["walk"], chunk_rows=4)
    stopping = _CountingEncoder(encoder, stop_after=2)
    with pytest.raises(KeyboardInterrupt):
        embed_snapshot(snapshot, stopping, request)  # type: ignore[arg-type]
    with pytest.raises(EmbeddingsError, match="no embeddings"):
        Embeddings.open(snapshot.path, content_hash=snapshot.manifest.content_hash)
    resumed = _CountingEncoder(encoder)
    embed_snapshot(snapshot, resumed, request)  # type: ignore[arg-type]
    assert resumed.texts == snapshot.num_nodes - 8
    embeddings = Embeddings.open(snapshot.path, content_hash=snapshot.manifest.content_hash)
    expected = encoder.encode([node_text(snapshot, node) for node in range(snapshot.num_nodes)])
    np.testing.assert_allclose(embeddings.matrix().astype(np.float32), expected, atol=2e-3)
    assert embeddings.variants == ["plain", "walk"]
    with pytest.raises(EmbeddingsError, match="--variants hop1"):
        embeddings.matrix("hop1")


def test_adding_a_variant_keeps_the_rest_and_another_encoder_needs_overwrite(
    tiny: tuple[Path, Path], encoder_dir: Path
) -> None:
    snapshot = Snapshot.open(tiny[0])
    encoder = TextEncoder.load(encoder_dir)
    embed_snapshot(snapshot, encoder, EmbedRequest(variants=["hop1"]))
    counting = _CountingEncoder(encoder)
    manifest = embed_snapshot(snapshot, counting, EmbedRequest(variants=["louvain"]))  # type: ignore[arg-type]
    assert counting.texts == 0 and list(manifest.variants) == ["plain", "hop1", "louvain"]
    counting.fingerprint = "0" * 64
    with pytest.raises(EmbeddingsError, match="--overwrite"):
        embed_snapshot(snapshot, counting, EmbedRequest(variants=[]))  # type: ignore[arg-type]
    embed_snapshot(snapshot, counting, EmbedRequest(variants=[], overwrite=True))  # type: ignore[arg-type]
    assert counting.texts == snapshot.num_nodes


def test_snapshot_without_embeddings_still_opens_and_says_how_to_add_them(
    tiny: tuple[Path, Path],
) -> None:
    snapshot = Snapshot.open(tiny[0])
    assert snapshot.index.search("kettle", 3)[0].size
    with pytest.raises(EmbeddingsError, match="ark graph embed"):
        Embeddings.open(snapshot.path, content_hash=snapshot.manifest.content_hash)


def test_unknown_variant_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="choose from hop1, hop2, convex, walk, louvain"):
        EmbedRequest(variants=["hop3"])
