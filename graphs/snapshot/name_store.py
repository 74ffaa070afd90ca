"""The name index's files (names/): built from a snapshot's names and aliases, and mapped.

The arrays (`NameArrays`) are the index graphs/snapshot/names.py reads: every name's and
alias's keys sorted, the nodes and form flags aligned with them, the table of the words names
begin with, and the aliases themselves (graphs/snapshot/aliases.py). Each is stored as
``names/NAME.npy`` beside a meta.json with the build's content hash and the format.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphs.errors import SnapshotError
from graphs.layout import META_FILE
from graphs.snapshot.aliases import AliasStore, AliasWriter, alias_keys, read_aliases
from graphs.snapshot.name_keys import NameForms
from graphs.snapshot.nodestore import NodeStore

NAMES_FORMAT_VERSION = 3
WITHOUT_ALIASES = 2
"""The format before aliases: the same keys, without the alias arrays. A snapshot whose
nodes have no aliases column reads it as this format with no aliases (`snapshot_names` in
graphs/snapshot/names.py); any other is rebuilt in memory until it is imported again."""
REBUILD_NAMES = (
    "delete that names/ folder (the index is then built in memory when needed) or rebuild the "
    "snapshot with `ark graph import ...` (--overwrite)"
)
BATCH = 65_536


@dataclass(frozen=True)
class NameArrays:
    """The arrays of names/ (each a .npy of that name).

    Attributes:
        keys: uint64, sorted: every indexed run's key.
        nodes: The node of each key.
        forms: uint8 form flags of each key (`STEMMED`, `BASE`, `ALIAS`).
        starts: uint64, sorted, unique: the keys of the one-word runs names begin with.
        longest: uint8: the most words of a name beginning with each of `starts`.
        alias_offsets: int64: where each node's aliases start in `alias_bytes` (empty: the
            graph has none; graphs/snapshot/aliases.py).
        alias_bytes: uint8: every node's aliases, one per line.
    """

    keys: np.ndarray
    nodes: np.ndarray
    forms: np.ndarray
    starts: np.ndarray
    longest: np.ndarray
    alias_offsets: np.ndarray
    alias_bytes: np.ndarray

    FILES = ("keys", "nodes", "forms", "starts", "longest", "alias_offsets", "alias_bytes")

    def check(self) -> bool:
        """Whether the aligned arrays have equal lengths and the aliases end with their data."""
        return (
            len(self.keys) == len(self.nodes) == len(self.forms)
            and len(self.starts) == len(self.longest)
            and self.aliases.check()
        )

    @property
    def aliases(self) -> AliasStore:
        """The nodes' aliases."""
        return AliasStore(self.alias_offsets, self.alias_bytes)


def load_arrays(directory: Path, content_hash: str) -> NameArrays:
    """Map a names/ directory written by `write_name_index` (or one of `WITHOUT_ALIASES`).

    Raises:
        SnapshotError: a file is missing or damaged, or from another build.
    """
    meta = _read(directory / META_FILE, lambda path: json.loads(path.read_text()))
    if not isinstance(meta, dict):
        raise SnapshotError(f"{directory / META_FILE} is damaged; {REBUILD_NAMES}")
    found = meta.get("format")
    files = NameArrays.FILES[: 5 if found == WITHOUT_ALIASES else None]
    loaded = [  # plain ndarray views of the maps: cheaper to index
        _read(
            directory / f"{name}.npy",
            lambda path: np.load(path, mmap_mode="r").view(np.ndarray),
        )
        for name in files
    ]
    if found == WITHOUT_ALIASES:
        store = AliasWriter().store()
        loaded += [store.offsets, store.data]
    arrays = NameArrays(*loaded)
    if meta.get("content_hash") != content_hash:
        raise SnapshotError(
            f"{directory} was built from another snapshot (content hash); {REBUILD_NAMES}"
        )
    if found not in (NAMES_FORMAT_VERSION, WITHOUT_ALIASES) or not arrays.check():
        raise SnapshotError(
            f"{directory}: unknown format or arrays of different lengths; {REBUILD_NAMES}"
        )
    return arrays


def _read(path: Path, load: Callable[[Path], Any]) -> Any:
    """One file of names/ loaded.

    Raises:
        SnapshotError: it is missing or damaged.
    """
    try:
        return load(path)
    except (OSError, ValueError) as error:
        raise SnapshotError(
            f"the name index file {path} is missing or damaged "
            f"({type(error).__name__}); {REBUILD_NAMES}"
        ) from error


def stored_format(directory: Path) -> int | None:
    """The format of the name index stored in `directory` (None: none, or unreadable meta)."""
    try:
        found = json.loads((directory / META_FILE).read_text()).get("format")
    except (OSError, ValueError, AttributeError):
        return None
    return found if isinstance(found, int) else None


def write_name_index(
    directory: Path, store_file: Path, analyzer: str, content_hash: str, nodes_file: Path
) -> None:
    """Write names/ from the names in nodes.arrow (internal order), read a batch at a time.

    `nodes_file`: the snapshot's nodes.parquet, whose aliases column (if any) is indexed too.
    """
    names = NodeStore(store_file).column("name")
    batches = (names.slice(start, BATCH).to_pylist() for start in range(0, len(names), BATCH))
    aliases = read_aliases(nodes_file)
    every = (name for batch in batches for name in batch)
    write_names(directory, every, analyzer, content_hash, aliases)


def write_names(
    directory: Path,
    names: Iterable[str],
    analyzer: str,
    content_hash: str,
    aliases: Iterable[list[str]] | None = None,
) -> None:
    """Write names/ from every node's name (and aliases) in internal order (any iterables)."""
    directory.mkdir(parents=True, exist_ok=True)
    arrays = collect(names, NameForms(analyzer), aliases)
    for name in NameArrays.FILES:
        np.save(directory / f"{name}.npy", getattr(arrays, name))
    meta = {
        "format": NAMES_FORMAT_VERSION,
        "content_hash": content_hash,
        "entries": len(arrays.keys),
    }
    (directory / META_FILE).write_text(json.dumps(meta))


def collect(
    names: Iterable[str], forms: NameForms, aliases: Iterable[list[str]] | None = None
) -> NameArrays:
    """Every name's and alias's keys, sorted, and the table of the words names begin with.

    Kept compact while collecting (22 bytes a key); the first words are reduced to their
    longest name a batch at a time, so only distinct first words are held. A node's aliases
    are keyed after its name (graphs/snapshot/aliases.py `alias_keys`).
    """
    keys: list[np.ndarray] = []
    nodes: list[np.ndarray] = []
    flags: list[np.ndarray] = []
    starts: list[np.ndarray] = []
    longest: list[np.ndarray] = []
    rows: list[tuple[int, int, int, int, int]] = []  # key, node, flags, first, words

    def flush() -> None:
        table = np.array(rows, dtype=np.uint64).reshape(-1, 5)
        rows.clear()
        keys.append(table[:, 0].copy())
        nodes.append(table[:, 1].astype(np.int64))
        flags.append(table[:, 2].astype(np.uint8))
        begins, most = _longest_by_key(table[:, 3], table[:, 4].astype(np.uint8))
        starts.append(begins)
        longest.append(most)

    writer = AliasWriter()
    pairs = (
        zip(names, itertools.repeat([]))
        if aliases is None
        else zip(names, aliases, strict=True)  # one alias list per node, or ValueError
    )
    for node, (name, also) in enumerate(pairs):
        found = alias_keys(forms, name or "", also)
        rows += [(key, node, flag, first, count) for key, flag, first, count in found]
        if aliases is not None:
            writer.add(also)
        if len(rows) >= BATCH:
            flush()
    flush()
    store = writer.store()
    all_keys = np.concatenate(keys)
    order = np.argsort(all_keys, kind="stable")
    all_nodes = np.concatenate(nodes)
    dtype = np.int32 if not len(all_nodes) or all_nodes.max() < 2**31 else np.int64
    begins, most = _longest_by_key(np.concatenate(starts), np.concatenate(longest))
    return NameArrays(
        keys=all_keys[order],
        nodes=all_nodes.astype(dtype)[order],
        forms=np.concatenate(flags)[order],
        starts=begins,
        longest=most,
        alias_offsets=store.offsets,
        alias_bytes=store.data,
    )


def _longest_by_key(firsts: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct first-word keys, sorted, each with its largest word count."""
    starts, inverse = np.unique(firsts, return_inverse=True)
    longest = np.zeros(len(starts), dtype=np.uint8)
    np.maximum.at(longest, inverse.reshape(-1), counts)
    return starts, longest
