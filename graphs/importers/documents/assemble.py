"""Assemble the document graph's node and edge tables: documents, passages, entities, facts."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pyarrow as pa

from graphs.importers.documents.model import Document, Extraction, Passage
from graphs.importers.documents.resolve import Entity, Resolution
from graphs.importers.documents.schema import (
    DOCUMENT,
    FACT,
    HAS_OBJECT,
    HAS_PASSAGE,
    HAS_SUBJECT,
    MENTIONED_IN,
    PASSAGE,
    STATED_IN,
)
from graphs.importers.documents.vocabulary import RelationVocabulary, canonical_label

EXTRA_COLUMNS = ("document", "source", "label", "passage", "sentence")
_RELATIONS_IN_TEXT = 12


@dataclass
class _Rows:
    columns: dict[str, list[str]] = field(
        default_factory=lambda: {c: [] for c in ("id", "type", "name", "text", *EXTRA_COLUMNS)}
    )
    edges: dict[str, list[str]] = field(
        default_factory=lambda: {"src": [], "dst": [], "relation": []}
    )

    def node(self, node_id: str, kind: str, name: str, text: str, **extra: str) -> None:
        for column, value in (("id", node_id), ("type", kind), ("name", name), ("text", text)):
            self.columns[column].append(value)
        for column in EXTRA_COLUMNS:
            self.columns[column].append(extra.get(column, ""))

    def edge(self, src: str, dst: str, relation: str) -> None:
        self.edges["src"].append(src)
        self.edges["dst"].append(dst)
        self.edges["relation"].append(relation)


def passage_node_id(passage: Passage) -> str:
    """External id of a passage node."""
    return f"passage:{passage.passage_id}"


def assemble(
    documents: Sequence[Document],
    passages: Sequence[Passage],
    extractions: Mapping[str, Extraction],
    resolution: Resolution,
    vocabulary: RelationVocabulary,
) -> tuple[pa.Table, pa.Table]:
    """Node and edge tables of the document graph.

    Args:
        documents: The documents read.
        passages: Their passages.
        extractions: Passage id -> extraction (failed passages are absent).
        resolution: Surface names resolved into entities.
        vocabulary: Canonical relation label -> edge type.

    Returns:
        (nodes, edges) for `build_snapshot`: document -has_passage-> passage,
        entity -mentioned_in-> passage, entity -<relation>-> entity, and one `fact` node per
        triple (its text quotes the evidence sentence) with fact -stated_in-> passage,
        -has_subject-> / -has_object-> entity.
    """
    rows = _Rows()
    titles = {document.doc_id: document.title for document in documents}
    counts = Counter(passage.doc_id for passage in passages)
    for document in documents:
        count = counts[document.doc_id]
        details = "".join(f"\n{key}: {value}" for key, value in document.metadata.items())
        rows.node(
            f"doc:{document.doc_id}", DOCUMENT, document.title,
            f"{document.title}{details}\n({count} passages from {document.source})",
            source=document.source,
        )  # fmt: skip
    mentioned: dict[str, set[str]] = defaultdict(set)
    relations: dict[str, list[str]] = defaultdict(list)
    for passage in passages:
        node_id = passage_node_id(passage)
        title = titles.get(passage.doc_id, passage.doc_id)
        rows.node(
            node_id, PASSAGE, f"{title} #{passage.index}", passage.text,
            document=f"doc:{passage.doc_id}",
        )  # fmt: skip
        rows.edge(f"doc:{passage.doc_id}", node_id, HAS_PASSAGE)
        extraction = extractions.get(passage.passage_id)
        if extraction is not None:
            _add_facts(rows, passage, title, extraction, resolution, vocabulary, relations)
            for name in _names(extraction):
                if name in resolution.by_name:
                    mentioned[resolution.by_name[name].entity_id].add(node_id)
    for entity in resolution.entities:
        if entity.entity_id not in mentioned:
            continue
        rows.node(entity.entity_id, entity.type, entity.name, _entity_text(entity, relations))
        for node_id in sorted(mentioned[entity.entity_id]):
            rows.edge(entity.entity_id, node_id, MENTIONED_IN)
    return pa.table(rows.columns), pa.table(rows.edges)


def _names(extraction: Extraction) -> list[str]:
    names = [mention.name for mention in extraction.mentions]
    for triple in extraction.triples:
        names += [triple.subject, triple.object]
    return names


def _add_facts(
    rows: _Rows,
    passage: Passage,
    title: str,
    extraction: Extraction,
    resolution: Resolution,
    vocabulary: RelationVocabulary,
    relations: dict[str, list[str]],
) -> None:
    seen: set[tuple[str, str, str]] = set()
    for number, triple in enumerate(extraction.triples):
        subject = resolution.by_name.get(triple.subject)
        obj = resolution.by_name.get(triple.object)
        if subject is None or obj is None or subject is obj:
            continue
        label = canonical_label(triple.relation)
        statement = (subject.entity_id, label, obj.entity_id)
        if not label or statement in seen:
            continue  # a model repeating itself states one fact once per passage
        seen.add(statement)
        fact_id = f"fact:{passage.passage_id}:{number}"
        rows.node(
            fact_id, FACT, f"{subject.name} {label} {obj.name}",
            f"{subject.name} -[{label}]-> {obj.name}\nEvidence ({title}, passage "
            f"{passage.passage_id}, sentence {triple.sentence + 1}): {triple.evidence}",
            label=label, passage=passage_node_id(passage), sentence=str(triple.sentence),
        )  # fmt: skip
        rows.edge(fact_id, passage_node_id(passage), STATED_IN)
        rows.edge(fact_id, subject.entity_id, HAS_SUBJECT)
        rows.edge(fact_id, obj.entity_id, HAS_OBJECT)
        rows.edge(subject.entity_id, obj.entity_id, vocabulary.edge_type(label))
        relations[subject.entity_id].append(f"{label} {obj.name}")
        relations[obj.entity_id].append(f"{subject.name} {label}")


def _entity_text(entity: Entity, relations: Mapping[str, list[str]]) -> str:
    parts = [f"{entity.name} ({entity.type})."]
    if entity.aliases:
        parts.append(f"Also: {', '.join(entity.aliases[:10])}.")
    facts = list(dict.fromkeys(relations.get(entity.entity_id, ())))
    if facts:
        parts.append(f"Relations: {'; '.join(facts[:_RELATIONS_IN_TEXT])}.")
    return " ".join(parts)
