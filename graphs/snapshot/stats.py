"""Summary statistics of a snapshot, as shown by `ark graph info`."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphs.snapshot import Snapshot

PERCENTILES = (50, 90, 99)


def percentiles(values: np.ndarray) -> dict[str, float]:
    """min, p50, p90, p99, max and mean of `values` (zeros for an empty array)."""
    if not len(values):
        return {"min": 0.0, **{f"p{p}": 0.0 for p in PERCENTILES}, "max": 0.0, "mean": 0.0}
    points = np.percentile(values, PERCENTILES)
    return {
        "min": float(values.min()),
        **{f"p{p}": float(point) for p, point in zip(PERCENTILES, points, strict=True)},
        "max": float(values.max()),
        "mean": round(float(values.mean()), 2),
    }


def snapshot_info(snapshot: Snapshot) -> dict[str, Any]:
    """Counts, types, relation signatures and phrases, degree and text-length percentiles.

    Degrees count edges in both directions; text lengths are UTF-8 bytes.
    """
    manifest = snapshot.manifest
    return {
        "path": str(snapshot.path),
        "name": manifest.name,
        "format_version": manifest.format_version,
        "num_nodes": manifest.num_nodes,
        "num_edges": manifest.num_edges,
        "node_types": manifest.node_types,
        "relations": manifest.relations,
        "signatures": [signature.model_dump() for signature in manifest.signatures],
        "relation_phrases": manifest.relation_phrases,
        "candidate_types": manifest.candidate_types or list(manifest.node_types),
        "degree": percentiles(snapshot.degrees),
        "text_bytes": percentiles(snapshot.text_lengths()),
        "extra_columns": manifest.extra_columns,
        "sources": manifest.sources,
        "built_at": manifest.built_at,
        "content_hash": manifest.content_hash,
        "skipped_rows": manifest.skipped_rows,
        "analyzer": snapshot.index.analyzer,
        "bm25": snapshot.index.params.describe(),
        "duplicate_edges": manifest.duplicate_edges,
        "self_loops": manifest.self_loops,
        "disk_bytes": sum(manifest.file_sizes.values()),
    }
