"""What an update of a document snapshot changed: documents added, changed and removed, entities.

A document is the same when its passages are (same texts, same order); entities are compared
by id (`entity:...`), so an entity that only a removed document mentioned shows as removed.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pyarrow as pa

from graphs.importers.documents.summary import MAX_LISTED

_DOC, _ENTITY = "doc:", "entity:"
_COLUMNS = ("id", "type", "name", "text", "document")


def no_nodes() -> pa.Table:
    """The node table of no snapshot: an update into an empty place adds everything."""
    return pa.table({name: pa.array([], pa.string()) for name in _COLUMNS})


def _passages_by_document(nodes: pa.Table) -> dict[str, list[tuple[str, str]]]:
    by_document: dict[str, list[tuple[str, str]]] = defaultdict(list)
    columns = nodes.select(["id", "type", "text", "document"]).to_pydict()
    for node_id, kind, text, document in zip(
        columns["id"], columns["type"], columns["text"], columns["document"], strict=True
    ):
        if kind == "passage" and document:
            by_document[document.removeprefix(_DOC)].append((node_id, text))
    for node_id in columns["id"]:
        if node_id.startswith(_DOC):
            by_document.setdefault(node_id.removeprefix(_DOC), [])
    return {doc: sorted(passages) for doc, passages in by_document.items()}


def _entities(nodes: pa.Table) -> dict[str, tuple[str, str]]:
    columns = nodes.select(["id", "name", "type"]).to_pydict()
    return {
        node_id: (name, kind)
        for node_id, name, kind in zip(columns["id"], columns["name"], columns["type"], strict=True)
        if node_id.startswith(_ENTITY)
    }


def document_changes(previous: pa.Table, current: pa.Table) -> dict[str, Any]:
    """Documents added, changed, removed and kept, and entities new and gone, old -> new.

    Args:
        previous: The node table of the snapshot being replaced (`no_nodes()`: none).
        current: The node table of the new snapshot.

    Returns:
        Counts and (the first MAX_LISTED) ids; `new_entities` lists id, name and type.
    """
    before = _passages_by_document(previous)
    after = _passages_by_document(current)
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    changed = sorted(doc for doc in set(after) & set(before) if after[doc] != before[doc])
    old_entities = _entities(previous)
    new_entities = _entities(current)
    appeared = sorted(set(new_entities) - set(old_entities))
    gone = sorted(set(old_entities) - set(new_entities))
    return {
        "added": added[:MAX_LISTED],
        "changed": changed[:MAX_LISTED],
        "removed": removed[:MAX_LISTED],
        "counts": {
            "added": len(added),
            "changed": len(changed),
            "removed": len(removed),
            "unchanged": len(set(after) & set(before)) - len(changed),
            "entities_added": len(appeared),
            "entities_removed": len(gone),
        },
        "new_entities": [
            {"id": node_id, "name": new_entities[node_id][0], "type": new_entities[node_id][1]}
            for node_id in appeared[:MAX_LISTED]
        ],
        "removed_entities": gone[:MAX_LISTED],
    }
