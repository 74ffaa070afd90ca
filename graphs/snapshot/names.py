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
content hash like csr/ and ids/; its files are graphs/snapshot/name_store.py's.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from graphs.errors import SnapshotError
from graphs.layout import NODES_FILE
from graphs.snapshot.aliases import has_aliases, read_aliases
from graphs.snapshot.name_keys import ALIAS, BASE, STEMMED, NameForms, base_words
from graphs.snapshot.name_store import (
    NAMES_FORMAT_VERSION,
    REBUILD_NAMES,
    WITHOUT_ALIASES,
    NameArrays,
    collect,
    load_arrays,
    stored_format,
)

logger = logging.getLogger(__name__)
REBUILD = "rebuild it with `ark graph import ...` (--overwrite)"


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
        nodes: Internal ids, distinct, in the order of each one's first entry: exact keys
            first (then stemmed), each form's in key order.
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
        """Map a names/ directory written by `write_name_index` (graphs/snapshot/name_store.py).

        Raises:
            SnapshotError: a file is missing or damaged, or from another build.
        """
        return cls(load_arrays(directory, content_hash), NameForms(analyzer))

    @classmethod
    def from_names(
        cls, names: Iterable[str], analyzer: str, aliases: Iterable[list[str]] | None = None
    ) -> NameIndex:
        """An index built in memory (a snapshot written before this format), aliases too."""
        forms = NameForms(analyzer)
        return cls(collect(names, forms, aliases), forms)

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


def snapshot_names(
    directory: Path, snapshot: Path, analyzer: str, content_hash: str, names: pa.Array
) -> NameIndex:
    """The name index of the snapshot at `snapshot`, from its names/ `directory` when usable.

    The current format; the one before aliases (`WITHOUT_ALIASES`) for nodes without an
    aliases column; else (a snapshot written before the index existed, with an older format
    of it, or with aliases its index lacks) one built in memory from its `names` and aliases
    (once per process; a rebuild stores it). A damaged meta.json is reported by opening.

    Raises:
        SnapshotError: names/ is damaged or from another build, or its alias offsets are not
            one per node.
    """
    found = stored_format(directory) if directory.is_dir() else -1
    if found in (None, NAMES_FORMAT_VERSION) or (
        found == WITHOUT_ALIASES and not has_aliases(snapshot / NODES_FILE)
    ):
        index = NameIndex.open(directory, analyzer, content_hash)
        offsets = len(index.arrays.alias_offsets)
        if offsets not in (0, len(names) + 1):
            raise SnapshotError(
                f"{directory / 'alias_offsets.npy'} holds {offsets} offsets for "
                f"{len(names):,} nodes; {REBUILD_NAMES}"
            )
        return index
    logger.info(
        "snapshot %s has no name index of format %d; building one in memory (%s)",
        snapshot,
        NAMES_FORMAT_VERSION,
        REBUILD,
    )
    aliases = read_aliases(snapshot / NODES_FILE)
    return NameIndex.from_names(names.to_pylist(), analyzer, aliases)
