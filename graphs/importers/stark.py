"""Import a STaRK semi-structured knowledge base (prime, mag, amazon) into a graph snapshot.

Edges are taken one per column of STaRK's `edge_index`, in the stored direction, with the
stored relation. STaRK's SKB constructor (`stark_qa/skb/knowledge_base.py`) makes the graph
undirected with `to_undirected(..., reduce='mean')`, which averages the type codes of an edge
and its reverse; this importer does not. Reverse edges appear only where the raw files hold
them (PrimeKG's `kg.csv` stores most edges in both directions, so prime's do; mag and amazon
store one direction). The snapshot's adjacency serves both directions of every edge anyway.
Exact repeats of an edge in the raw files (prime's duplicated rows, amazon's repeated
`also_buy` entries) are collapsed into one edge and self-loops (a product in its own
`also_buy`) are kept, as STaRK's own graph builder keeps them; both are counted in the
manifest. `BuildOptions(strict=True)` (--strict) makes both invalid rows instead.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from graphs.build.options import BuildOptions
from graphs.errors import GraphImportError
from graphs.importers.stark_files import StarkFiles, check_dataset, load_stark_files
from graphs.importers.stark_text import StarkTextConfig, is_missing, node_name, render_document

logger = logging.getLogger(__name__)

CANDIDATE_TYPES = MappingProxyType({"mag": ("paper",), "amazon": ("product",)})
_EXTRA_ATTRIBUTES = MappingProxyType(
    {
        "prime": (("source", "source"), ("source_id", "id")),
        "mag": (("mag_id", "mag_id"),),
        "amazon": (("asin", "asin"),),
    }
)


def import_stark(
    root: str | Path,
    dataset: str,
    out: str | Path,
    *,
    options: BuildOptions | None = None,
    text: StarkTextConfig | None = None,
) -> Path:
    """Build a snapshot from a processed STaRK SKB.

    Args:
        root: the SKB directory: the dataset root holding `processed/`, the `processed/`
            directory itself, or a data root holding `<dataset>/processed/`.
        dataset: "prime", "mag" or "amazon".
        out: the snapshot directory to write.
        options: overwrite, invalid-row and strictness settings (see BuildOptions).
        text: document rendering options.

    Returns:
        The snapshot directory.

    Raises:
        GraphImportError: files are missing or malformed, torch is absent, or rows are
            invalid and `options.skip_invalid` is off.
    """
    from graphs.build.memory import build_snapshot

    files = load_stark_files(root, dataset)
    nodes, edges = stark_tables(files, dataset, text or StarkTextConfig())
    present = set(pc.unique(nodes.column("type")).to_pylist())
    every_type = tuple(name for _, name in sorted(files.node_type_dict.items()) if name in present)
    candidates = CANDIDATE_TYPES.get(dataset, every_type)
    logger.info("STaRK %s: %d nodes, %d edges", dataset, nodes.num_rows, edges.num_rows)
    return build_snapshot(
        nodes,
        edges,
        Path(out),
        name=f"stark-{dataset}",
        candidate_types=candidates,
        sources=files.sources,
        options=options,
        nodes_file=f"{files.directory / 'node_info.pkl'} (row = node index + 1)",
        edges_file=f"{files.directory / 'edge_index.pt'} (row = edge column + 1)",
    )


def stark_tables(
    files: StarkFiles, dataset: str, text: StarkTextConfig
) -> tuple[pa.Table, pa.Table]:
    """Node and edge tables for `build_snapshot`, ids being STaRK's node indices as strings.

    Nodes: id, type, name, text, plus per-dataset attributes (prime: source, source_id;
    mag: mag_id; amazon: asin). Edges: src, dst, relation, one row per `edge_index` column.

    Raises:
        GraphImportError: a node or edge type code has no name, or a node has no record.
    """
    check_dataset(dataset)
    directory = files.directory
    type_names = _names_for_codes(
        files.node_types, files.node_type_dict, directory / "node_types.pt", "node type"
    )
    relations = _names_for_codes(
        files.edge_types, files.edge_type_dict, directory / "edge_types.pt", "relation"
    )
    num_nodes = len(files.node_types)
    names: list[str] = []
    documents: list[str] = []
    extras: dict[str, list[str | None]] = {column: [] for column, _ in _EXTRA_ATTRIBUTES[dataset]}
    for index, type_name in enumerate(type_names.to_pylist()):
        info = files.node_info[index]
        if not isinstance(info, Mapping):
            raise GraphImportError(
                f"node {index}: expected a dict of attributes, found {type(info).__name__}",
                file=str(directory / "node_info.pkl"),
                row=index + 1,
            )
        names.append(node_name(dataset, info, type_name))
        documents.append(render_document(dataset, info, type_name, text))
        for column, key in _EXTRA_ATTRIBUTES[dataset]:
            value = info.get(key)
            extras[column].append(None if is_missing(value) else str(value))
    columns: dict[str, pa.Array] = {
        "id": _index_strings(np.arange(num_nodes, dtype=np.int64)),
        "type": type_names,
        "name": pa.array(names, pa.string()),
        "text": pa.array(documents, pa.string()),
    }
    columns.update({column: pa.array(values, pa.string()) for column, values in extras.items()})
    edges = pa.table(
        {
            "src": _index_strings(files.edge_index[0]),
            "dst": _index_strings(files.edge_index[1]),
            "relation": relations,
        }
    )
    return pa.table(columns), edges


def _names_for_codes(
    codes: np.ndarray, names: Mapping[int, str], path: Path, what: str
) -> pa.Array:
    ordered = sorted(names)
    lookup = np.full(max(max(ordered), int(codes.max(initial=0))) + 1, -1, dtype=np.int64)
    lookup[ordered] = np.arange(len(ordered))
    positions = np.full(len(codes), -1, dtype=np.int64)
    valid = codes >= 0
    positions[valid] = lookup[codes[valid]]
    bad = np.flatnonzero(positions < 0)
    if len(bad):
        known = ", ".join(f"{code}={names[code]}" for code in ordered)
        raise GraphImportError(
            f"{len(bad)} entries have a {what} code with no name, the first at position "
            f"{int(bad[0])} (code {int(codes[bad[0]])}, row = position + 1); known codes: {known}",
            file=str(path),
            row=int(bad[0]) + 1,
        )
    return pc.take(pa.array([names[code] for code in ordered], pa.string()), pa.array(positions))


def _index_strings(indices: np.ndarray) -> pa.Array:
    return pc.cast(pa.array(np.asarray(indices, dtype=np.int64)), pa.string())
