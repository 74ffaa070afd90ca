"""Node aliases: the other names a graph gives its nodes, kept for the name index.

A node table may carry a column ``aliases``: each node's other names, as a list of strings
(JSONL, Parquet) or as one string with the names separated by ``|`` (CSV, TSV): WordNet's
other lemmas of a synset (``drinking glass`` for ``glass (container)``), an ontology's exact
synonyms, a gene's other symbols. The name index (graphs/snapshot/names.py) keys every alias
as it keys a name, flagged `ALIAS` (all but an alias that only clips the name, `clipped`),
and keeps the aliases themselves (`AliasStore`, its ``alias_offsets`` and ``alias_bytes``
arrays) so that a match is confirmed against the alias it was made on (keys are hashes).
Linking (tools/mentions.py) links a run of a question's words by an alias only when it names
no node by its name; the longest run still wins.
"""

from __future__ import annotations

import logging
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from graphs.errors import GraphImportError
from graphs.snapshot.name_keys import ALIAS, NameForms, name_words

logger = logging.getLogger(__name__)

ALIASES_COLUMN = "aliases"
"""The node column whose values are each node's other names."""
SEPARATOR = "|"
"""Between the names of a string-valued aliases column."""
BATCH = 65_536
"""Rows of nodes.parquet read at a time."""

_LISTS = (pa.types.is_list, pa.types.is_large_list)


def _text(kind: pa.DataType) -> bool:
    """Whether values of `kind` are text (strings, dictionary-encoded strings, or nulls)."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return pa.types.is_null(kind) or pa.types.is_string(kind) or pa.types.is_large_string(kind)


def usable(kind: pa.DataType) -> bool:
    """Whether an aliases column of type `kind` holds names: text, or lists of text."""
    return _text(kind) or (any(test(kind) for test in _LISTS) and _text(kind.value_type))


def check_aliases_type(schema: pa.Schema, file: str) -> None:
    """Refuse an aliases column whose values cannot be read as names.

    Raises:
        GraphImportError: the column holds neither strings nor lists of strings.
    """
    if ALIASES_COLUMN not in schema.names or usable(schema.field(ALIASES_COLUMN).type):
        return
    raise GraphImportError(
        f"column {ALIASES_COLUMN!r} has type {schema.field(ALIASES_COLUMN).type}; give each "
        f"node's other names as a list of strings (JSONL, Parquet) or as one string with the "
        f"names separated by {SEPARATOR!r} (CSV), or rename the column if it holds something "
        "else",
        file=file,
    )


def alias_lists(values: pa.Array | pa.ChunkedArray) -> list[list[str]]:
    """Each row's aliases: stripped, distinct, in order (none for a null or empty value)."""
    rows = values.to_pylist()
    return [_cleaned(row.split(SEPARATOR) if isinstance(row, str) else row) for row in rows]


def _cleaned(names: Iterable[str | None] | None) -> list[str]:
    """Non-empty names, one line each, first spelling kept."""
    found = (" ".join(str(name).split()) for name in names or () if name is not None)
    return list(dict.fromkeys(name for name in found if name))


def alias_keys(forms: NameForms, name: str, aliases: list[str]) -> list[tuple[int, int, int, int]]:
    """The keys of a node: its name's (`NameForms.keys`), then its aliases', flagged `ALIAS`.

    An alias key the name (or an earlier alias) already has is not added again, nor any key
    of an alias that only clips the name (`clipped`).
    """
    found = forms.keys(name)
    seen = {key for key, *_ in found}
    for alias in aliases:
        if clipped(alias, name):
            continue  # "Inheritance" for `Mode of inheritance`: part of a name links nothing
        added = [entry for entry in forms.keys(alias, ALIAS) if entry[0] not in seen]
        seen.update(key for key, *_ in added)
        found += added
    return found


def clipped(alias: str, name: str) -> bool:
    """Whether `alias` is only a part of `name`: fewer of its words, in a row.

    The name index links no part of a name (a question writing "inheritance" does not name
    `Mode of inheritance`), so such an alias (HPO gives `Mitochondrial inheritance` the exact
    synonym "Mitochondrial") is not indexed either.
    """
    part, whole = name_words(alias), name_words(name)
    return 0 < len(part) < len(whole) and any(
        whole[start : start + len(part)] == part for start in range(len(whole) - len(part) + 1)
    )


def has_aliases(nodes_file: Path) -> bool:
    """Whether a snapshot's nodes.parquet has an aliases column of names (its footer only)."""
    schema = pq.ParquetFile(nodes_file).schema_arrow
    return ALIASES_COLUMN in schema.names and usable(schema.field(ALIASES_COLUMN).type)


def read_aliases(nodes_file: Path) -> Iterator[list[str]] | None:
    """Each row's aliases from a snapshot's nodes.parquet, a batch at a time.

    None when it has no aliases column of names: none at all, or, in a snapshot built before
    imports checked the column, one of another type (an `aliases` column of numbers is then
    some other data, and logged).
    """
    parquet = pq.ParquetFile(nodes_file)
    if ALIASES_COLUMN not in parquet.schema_arrow.names:
        return None
    kind = parquet.schema_arrow.field(ALIASES_COLUMN).type
    if not usable(kind):
        logger.warning(
            "%s: column %r has type %s, not names; no node is linked by it",
            nodes_file,
            ALIASES_COLUMN,
            kind,
        )
        return None
    batches = parquet.iter_batches(batch_size=BATCH, columns=[ALIASES_COLUMN])
    return (names for batch in batches for names in alias_lists(batch.column(0)))


@dataclass(frozen=True)
class AliasStore:
    """Every node's aliases, one per line in UTF-8 (no arrays at all: the graph has none).

    Attributes:
        offsets: int64[num_nodes + 1]: where each node's aliases start in `data` (empty: none).
        data: uint8: the aliases of every node, each followed by a newline.
    """

    offsets: np.ndarray
    data: np.ndarray

    @classmethod
    def of(cls, lists: Iterable[list[str]]) -> AliasStore:
        """The store of these per-node alias lists (in internal order)."""
        writer = AliasWriter()
        for names in lists:
            writer.add(names)
        return writer.store()

    def __call__(self, node: int) -> list[str]:
        """The aliases of `node`."""
        if not len(self.offsets):
            return []
        start, stop = int(self.offsets[node]), int(self.offsets[node + 1])
        return bytes(self.data[start:stop]).decode("utf-8", "replace").splitlines()

    def check(self) -> bool:
        """Whether the offsets end where the data does (or there are none)."""
        return not len(self.offsets) or int(self.offsets[-1]) == len(self.data)


@dataclass
class AliasWriter:
    """Builds an `AliasStore` one node at a time (8 bytes a node besides the aliases)."""

    ends: array = field(default_factory=lambda: array("q", [0]))
    data: bytearray = field(default_factory=bytearray)

    def add(self, names: list[str]) -> None:
        """Append the next node's aliases."""
        self.data += "".join(f"{name}\n" for name in names).encode()
        self.ends.append(len(self.data))

    def store(self) -> AliasStore:
        """The store written so far (no arrays at all when no node had an alias).

        The arrays share the writer's memory (no copy: the bounded-memory build holds one).
        """
        if not self.data:
            return AliasStore(np.zeros(0, np.int64), np.zeros(0, np.uint8))
        offsets = np.frombuffer(self.ends, dtype=np.int64)
        return AliasStore(offsets, np.frombuffer(self.data, dtype=np.uint8))
