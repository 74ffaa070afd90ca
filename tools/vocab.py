"""Resolving the names and ids a model writes (node types, relations, node ids) to codes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from graphs.errors import UnknownNodeError
from tools.errors import (
    ToolCallError,
    UnknownNodeIdError,
    UnknownRelationError,
    UnknownTypeError,
)

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot

_WRAPPERS = "[]()<>\"'` "


class Vocabulary:
    """Node type and relation names of a snapshot, looked up exactly, then case-insensitively."""

    def __init__(self, node_types: Sequence[str], relations: Sequence[str]) -> None:
        self.node_types = list(node_types)
        self.relations = list(relations)
        self._type_codes = _lookup(self.node_types)
        self._relation_codes = _lookup(self.relations)

    def type_codes(self, names: Sequence[str]) -> list[int]:
        """Distinct codes of node type names, in first-seen order.

        Raises:
            UnknownTypeError: For the first unknown name, suggesting the closest valid ones.
        """
        return _codes(names, self._type_codes, lambda name: UnknownTypeError(name, self.node_types))

    def relation_codes(self, names: Sequence[str]) -> list[int]:
        """Distinct codes of relation (edge type) names, in first-seen order.

        Raises:
            UnknownRelationError: For the first unknown name, suggesting the closest valid ones.
        """
        return _codes(
            names, self._relation_codes, lambda name: UnknownRelationError(name, self.relations)
        )


def _codes(
    names: Sequence[str], lookup: dict[str, int], unknown: Callable[[str], ToolCallError]
) -> list[int]:
    """Codes of `names` (exact, then case-insensitive match), distinct, in first-seen order."""
    codes = []
    for name in names:
        code = lookup.get(name, lookup.get(name.casefold()))
        if code is None:
            raise unknown(name)
        codes.append(code)
    return list(dict.fromkeys(codes))


def _lookup(names: Sequence[str]) -> dict[str, int]:
    """Exact names, plus case-folded forms that are unambiguous."""
    folded: dict[str, list[int]] = {}
    for code, name in enumerate(names):
        folded.setdefault(name.casefold(), []).append(code)
    table = {key: codes[0] for key, codes in folded.items() if len(codes) == 1}
    table.update({name: code for code, name in enumerate(names)})
    return table


def resolve_node(snapshot: Snapshot, node_id: str) -> int:
    """The internal id of an external node id.

    Raises:
        UnknownNodeIdError: If the snapshot has no such node; when the id only differs by
            wrapping (`[P12]`, quotes, spaces) the message suggests the bare id.
    """
    try:
        return snapshot.internal_id(node_id)
    except UnknownNodeError:
        hints = node_hints(snapshot, node_id)
        raise UnknownNodeIdError([node_id], hints, type_names_among(snapshot, [node_id])) from None


def type_names_among(snapshot: Snapshot, node_ids: Sequence[str]) -> dict[str, str]:
    """Node type names (`Paper`, any case) a model passed where node ids belong -> the type."""
    names = {name.casefold(): name for name in snapshot.node_type_names}
    given = {node_id: names.get(node_id.strip(_WRAPPERS).casefold()) for node_id in node_ids}
    return {node_id: name for node_id, name in given.items() if name is not None}


def node_hints(snapshot: Snapshot, node_id: str) -> list[str]:
    """Existing ids that `node_id` may have meant.

    Tried: `node_id` without brackets, quotes or spaces, and the bracketed id of a copied
    listing line (`[P12] Title (paper)` -> `P12`).
    """
    candidates = [node_id.strip(_WRAPPERS)]
    if node_id.startswith("[") and "]" in node_id:
        candidates.append(node_id[1 : node_id.index("]")].strip())
    hints = []
    for candidate in dict.fromkeys(candidates):
        if not candidate or candidate == node_id:
            continue
        try:
            snapshot.internal_id(candidate)
        except UnknownNodeError:
            continue
        hints.append(candidate)
    return hints
