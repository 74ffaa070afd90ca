"""The name index: which nodes a run of words names, for linking a question to the graph.

Every node name is indexed under up to four keys, each a 64-bit hash of a normalised word
sequence (graphs/snapshot/name_keys.py), stored sorted in ``names/keys.npy`` with
``nodes.npy`` and ``forms.npy`` aligned:

* the name's words, lower-cased, punctuation dropped (``Glass (container)`` -> ``glass
  container``): the *exact* form;
* the same words stemmed (tantivy's Snowball English stemmer, so ``glasses`` finds
  ``glass``): the *stem* form;
* for a name ending in a parenthesised disambiguator, as lexical and encyclopaedic graphs
  write them (``glass (container)``, ``Paris (Texas)``), the words before it, exact and
  stemmed: the *base* forms, which make the node one of the homonyms of ``glass``.

A node's aliases, where the graph has them (graphs/snapshot/aliases.py: ``drinking glass``
for ``glass (container)``), are keyed the same ways, flagged `ALIAS`, and kept in the
``alias_offsets`` and ``alias_bytes`` arrays to be confirmed against.

A lookup hashes a word run both ways and reads the matching entries; a node is checked
against its name before it is linked, so a hash collision never links a wrong node. Names
whose words are all stopwords of the snapshot's analyzer, or shorter than `MIN_NAME_CHARS`,
are not indexed: they name nothing a question could mean. The index is built at import from
nodes.arrow and the aliases column of nodes.parquet (both builds) and stamped with the build's
content hash like csr/ and ids/.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from graphs.errors import SnapshotError
from graphs.layout import META_FILE
from graphs.snapshot.aliases import AliasStore, AliasWriter, clipped, read_aliases
from graphs.snapshot.name_keys import ALIAS, BASE, STEMMED, NameForms, base_words
from graphs.snapshot.nodestore import NodeStore

NAMES_FORMAT_VERSION = 3
REBUILD_NAMES = (
    "delete that names/ folder (the index is then built in memory when needed) or rebuild the "
    "snapshot with `ark graph import ...` (--overwrite)"
)
BATCH = 65_536


@dataclass(frozen=True)
class Run:
    """A run of a question's words some name is indexed under.

    Attributes:
        start: Index of its first word.
        end: Index after its last word.
        entries: (form it was looked up in, first position, end position) of each of its
            keys' blocks of entries in the sorted keys, the exact form's first.
    """

    start: int
    end: int
    entries: tuple[tuple[int, int, int], ...]


@dataclass(frozen=True)
class RunMatches:
    """The nodes whose indexed keys a run of a question's words has, before confirmation.

    Attributes:
        start: Index of the run's first word.
        end: Index after its last word.
        nodes: Internal ids, distinct, those of exact keys first (then stemmed), each form's
            in key order.
        stemmed: Per node, whether it matched only after stemming (``glasses`` for ``glass``).
        base: Per node, whether it matched its name without the disambiguator (one homonym
            of several).
        alias: Per node, whether it matched one of its aliases, not its name.
    """

    start: int
    end: int
    nodes: tuple[int, ...]
    stemmed: tuple[bool, ...]
    base: tuple[bool, ...]
    alias: tuple[bool, ...]


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


class NameIndex:
    """The name index of a snapshot, memory-mapped (see the module doc).

    Args:
        arrays: The index's arrays.
        name_forms: The key maker (the snapshot's analyzer).
    """

    def __init__(self, arrays: NameArrays, name_forms: NameForms) -> None:
        self.arrays = arrays
        self.keys = arrays.keys
        self.nodes = arrays.nodes
        self.forms = arrays.forms
        self.name_forms = name_forms
        self.aliases = arrays.aliases

    @classmethod
    def open(cls, directory: Path, analyzer: str, content_hash: str) -> NameIndex:
        """Map a names/ directory written by `write_name_index`.

        Raises:
            SnapshotError: a file is missing or damaged, or from another build.
        """
        loaded = []
        for file in [META_FILE, *(f"{name}.npy" for name in NameArrays.FILES)]:
            try:
                if file == META_FILE:
                    meta = json.loads((directory / file).read_text())
                else:  # plain ndarray views of the maps: cheaper to index
                    loaded.append(np.load(directory / file, mmap_mode="r").view(np.ndarray))
            except (OSError, ValueError) as error:
                raise SnapshotError(
                    f"the name index file {directory / file} is missing or damaged "
                    f"({type(error).__name__}); {REBUILD_NAMES}"
                ) from error
        arrays = NameArrays(*loaded)
        if meta.get("content_hash") != content_hash:
            raise SnapshotError(
                f"{directory} was built from another snapshot (content hash); {REBUILD_NAMES}"
            )
        if meta.get("format") != NAMES_FORMAT_VERSION or not arrays.check():
            raise SnapshotError(
                f"{directory}: unknown format or arrays of different lengths; {REBUILD_NAMES}"
            )
        return cls(arrays, NameForms(analyzer))

    @classmethod
    def from_names(
        cls, names: Iterable[str], analyzer: str, aliases: Iterable[list[str]] | None = None
    ) -> NameIndex:
        """An index built in memory (a snapshot written before this format), aliases too."""
        forms = NameForms(analyzer)
        return cls(_collect(names, forms, aliases), forms)

    def runs(self, words: Sequence[str]) -> list[Run]:
        """Every run of `words` some name is indexed under, longest first.

        `matches` reads a run's nodes. A run is tried only from a word some name begins
        with, and only as long as the longest such name (`starts`, `longest`); each run's key
        extends the one before it (the rolling FNV-1a of `fold`), and one pair of binary
        searches over the sorted keys finds every run's entries at once. Keys are 64-bit
        hashes: the caller confirms a node against its name (`confirmed`) before it links it.
        """
        if not words or not len(self.keys):
            return []
        found, keys = self.name_forms.candidates(words, self._longest)
        if not keys:
            return []
        wanted = np.array(keys, dtype=np.uint64)
        lows = np.searchsorted(self.keys, wanted, side="left").tolist()
        highs = np.searchsorted(self.keys, wanted, side="right").tolist()
        entries: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
        for (start, end, form), low, high in zip(found, lows, highs, strict=True):
            if high > low:  # exact keys were collected first: they stay first
                entries.setdefault((start, end), []).append((form, low, high))
        runs = [Run(start, end, tuple(spans)) for (start, end), spans in entries.items()]
        return sorted(runs, key=lambda run: (run.start - run.end, run.start))

    def matches(self, run: Run) -> RunMatches:
        """The distinct nodes of a run's entries.

        Each entry is kept where its form flag is the form it was looked up in (empty only
        where the run's keys collide with another form's). A node keeps its first entry, or
        its first by name where an alias's came first (a name outranks an alias). A few
        entries: plain Python is quicker here than array calls.
        """
        flags: dict[int, int] = {}  # node -> its flag, in order of first entry
        for form, low, high in run.entries:  # exact first: a node an exact key names stays exact
            for node, flag in zip(
                self.nodes[low:high].tolist(), self.forms[low:high].tolist(), strict=True
            ):
                if flag & STEMMED != form:
                    continue
                if node not in flags or (flags[node] & ALIAS and not flag & ALIAS):
                    flags[node] = flag
        nodes = list(flags)
        return RunMatches(
            run.start,
            run.end,
            tuple(nodes),
            tuple(bool(flags[node] & STEMMED) for node in nodes),
            tuple(bool(flags[node] & BASE) for node in nodes),
            tuple(bool(flags[node] & ALIAS) for node in nodes),
        )

    def _longest(self, firsts: list[int]) -> list[int]:
        """For each word's one-word key: the most words of a name it begins (0: none)."""
        starts = self.arrays.starts
        if not len(starts):
            return [0] * len(firsts)
        wanted = np.array(firsts, dtype=np.uint64)
        at = np.minimum(np.searchsorted(starts, wanted), len(starts) - 1)
        hit = np.asarray(starts[at] == wanted)
        return np.where(hit, np.asarray(self.arrays.longest)[at], 0).astype(int).tolist()

    def confirmed(self, words: Sequence[str], stemmed: bool, base: bool, name: str) -> bool:
        """Whether `name` (a matched node's) really normalises to `words` in that form."""
        target = base_words(name, base)
        if stemmed:
            return self.name_forms.stems(target) == self.name_forms.stems(list(words))
        return target == list(words)


def stored_format(directory: Path) -> int | None:
    """The format of the name index stored in `directory` (None: none, or unreadable meta)."""
    try:
        found = json.loads((directory / META_FILE).read_text()).get("format")
    except (OSError, ValueError, AttributeError):
        return None
    return found if isinstance(found, int) else None


def write_name_index(
    directory: Path,
    store_file: Path,
    analyzer: str,
    content_hash: str,
    nodes_file: Path | None = None,
) -> None:
    """Write names/ from the names in nodes.arrow (internal order), read a batch at a time.

    `nodes_file`: the snapshot's nodes.parquet, whose aliases column (if any) is indexed too.
    """
    names = NodeStore(store_file).column("name")
    batches = (names.slice(start, BATCH).to_pylist() for start in range(0, len(names), BATCH))
    aliases = read_aliases(nodes_file) if nodes_file is not None else None
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
    arrays = _collect(names, NameForms(analyzer), aliases)
    for name in NameArrays.FILES:
        np.save(directory / f"{name}.npy", getattr(arrays, name))
    meta = {
        "format": NAMES_FORMAT_VERSION,
        "content_hash": content_hash,
        "entries": len(arrays.keys),
    }
    (directory / META_FILE).write_text(json.dumps(meta))


def _collect(
    names: Iterable[str], forms: NameForms, aliases: Iterable[list[str]] | None = None
) -> NameArrays:
    """Every name's and alias's keys, sorted, and the table of the words names begin with.

    Kept compact while collecting (22 bytes a key); the first words are reduced to their
    longest name a batch at a time, so only distinct first words are held. An alias key the
    node's name (or an earlier alias) already has is not added again, nor an alias that is
    only part of the node's name (`clipped`).
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
        found = forms.keys(name or "")
        seen = {key for key, *_ in found}
        for alias in also:
            if clipped(alias, name or ""):
                continue  # "Inheritance" for `Mode of inheritance`: part of a name links nothing
            found += [key for key in forms.keys(alias, ALIAS) if key[0] not in seen]
            seen.update(key for key, *_ in found)
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
