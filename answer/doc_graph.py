"""The query graph over a document snapshot: the extracted facts of the retrieved passages.

A document snapshot (`graphs.importers.documents`) holds `passage` nodes, entity nodes and
one `fact` node per extracted triple, linked `fact -stated_in-> passage`,
`fact -has_subject-> entity` and `fact -has_object-> entity`, with the relation label in the
fact's `label` column. The triples of the retrieved passages become G_D (Eq. 2), each citing
the passage that states it (its provenance).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from answer.query_graph import Passage, QueryGraph, Triple
from graphs.importers.documents.schema import (
    FACT,
    FACT_LABEL,
    FACT_RELATIONS,
    HAS_OBJECT,
    HAS_SUBJECT,
    PASSAGE,
    STATED_IN,
)

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot


def is_document_snapshot(snapshot: Snapshot) -> bool:
    """True when the snapshot was built from documents (it has passages and fact nodes)."""
    types = set(snapshot.node_type_names)
    relations = set(snapshot.relation_names)
    return {PASSAGE, FACT} <= types and set(FACT_RELATIONS) <= relations


class DocumentSource:
    """Evidence from a document snapshot: passages, and the facts extracted from them."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.passage_type = snapshot.type_code(PASSAGE)
        self._stated_in = snapshot.relation_code(STATED_IN)
        self._subject = snapshot.relation_code(HAS_SUBJECT)
        self._object = snapshot.relation_code(HAS_OBJECT)
        table = snapshot.node_columns(["id", "type", FACT_LABEL])
        self._labels = {
            str(node_id): str(label or "related_to")
            for node_id, kind, label in zip(
                table["id"], table["type"], table[FACT_LABEL], strict=True
            )
            if kind == FACT
        }

    def facts(self, passage: int) -> list[Triple]:
        """The triples extracted from one passage (internal id), citing its external id."""
        snapshot = self.snapshot
        cited = snapshot.external_id(passage)
        around = snapshot.neighbors(passage, relations=[self._stated_in])
        triples = []
        for fact in around.nodes[around.directions < 0].tolist():
            subject = self._end(fact, self._subject)
            obj = self._end(fact, self._object)
            if subject is not None and obj is not None:
                label = self._labels.get(snapshot.external_id(fact), "related_to")
                triples.append(Triple(subject, label, obj, (cited,)))
        return triples

    def _end(self, fact: int, relation: int) -> str | None:
        around = self.snapshot.neighbors(fact, relations=[relation])
        ends = around.nodes[around.directions > 0]
        return self.snapshot.external_id(int(ends[0])) if len(ends) else None

    async def query_graph(self, retrieved: Sequence[int], question: str) -> QueryGraph:
        """G_D: the facts of the retrieved passages (the question is not needed here)."""
        triples = [triple for passage in retrieved for triple in self.facts(int(passage))]
        keys = list(dict.fromkeys(k for t in triples for k in (t.head, t.tail)))
        nodes = self.snapshot.find_internal_ids(keys)
        names = self.snapshot.labels(nodes)[1] if len(nodes) else []
        retrieved_nodes = np.asarray(list(retrieved), dtype=np.int64)
        passage_ids = self.snapshot.labels(retrieved_nodes)[0] if len(retrieved_nodes) else []
        texts = self.snapshot.texts(retrieved_nodes) if len(retrieved_nodes) else []
        return QueryGraph(
            triples,
            labels=dict(zip(keys, names, strict=True)),
            sources=dict(zip(passage_ids, texts, strict=True)),
        )

    def passages(self, retrieved: Sequence[int]) -> list[Passage]:
        """The retrieved passages; a passage's name is the subject of its first fact."""
        snapshot = self.snapshot
        rows = []
        for node in (int(n) for n in retrieved):
            facts = self.facts(node)
            name = snapshot.name(snapshot.internal_id(facts[0].head)) if facts else ""
            rows.append(Passage(snapshot.external_id(node), name, snapshot.text(node)))
        return rows
