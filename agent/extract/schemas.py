"""What the LLM extractor asks for: the generic entity schema or SARG's reasoning schema.

`entity` (for `ark graph extract`): named entities with types and subject-predicate-object
facts between them (`born_in`, `directed_by`). `reasoning` (SARG Sec. 3.2.1 and App. C, for
per-question extraction in `ark answer`): ⟨cause, relation, effect⟩ triples that a chain of
reasoning can step along, with no entity list. Each schema is one tool (the single source of
the JSON shape the prompt asks for and the parser reads) and one system prompt.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from tools.json_schema import bounded_text, closed_object

SchemaName = Literal["entity", "reasoning"]
SCHEMAS: tuple[str, ...] = ("entity", "reasoning")
TOOL_NAME = "record_extraction"
MAX_TRIPLES = 12
MAX_ENTITIES = 30
MAX_NAME = 100
"""Bounds a decoding grammar enforces, so a small model cannot write past its token cap
(a string or list that never ends is what leaves unparseable JSON under an enforced schema)."""
ENTITY_TYPES = (
    "person", "organisation", "place", "work", "date", "event", "group", "product", "concept",
)  # fmt: skip


@dataclass(frozen=True)
class ExtractionSchema:
    """One schema: its name, system prompt template and the tool the model fills in."""

    name: SchemaName
    system_prompt: str
    tool: dict[str, Any]


def _tool(properties: dict[str, Any], required: list[str], description: str) -> dict[str, Any]:
    parameters = {**closed_object(properties), "required": required}
    return {
        "type": "function",
        "function": {"name": TOOL_NAME, "description": description, "parameters": parameters},
    }


def _sentence() -> dict[str, Any]:
    return {"type": "integer", "description": "Number of the stating sentence."}


def _text(description: str, longest: int = MAX_NAME) -> dict[str, Any]:
    return bounded_text(description, longest)


def entity_schema() -> ExtractionSchema:
    """Named entities and the facts between them (`ark graph extract`)."""
    entity = closed_object(
        {
            "name": _text("The name as written in the passage."),
            "type": {"type": "string", "enum": list(ENTITY_TYPES)},
        }
    )
    triple = closed_object(
        {
            "subject": _text("An entity name."),
            "relation": _text("Short snake_case verb phrase.", 40),
            "object": _text("An entity name."),
            "sentence": _sentence(),
        }
    )
    properties = {
        "entities": {"type": "array", "items": entity, "maxItems": MAX_ENTITIES},
        "triples": {"type": "array", "items": triple, "maxItems": MAX_TRIPLES},
    }
    description = "Record the entities and relation triples read from the passage."
    tool = _tool(properties, ["entities", "triples"], description)
    return ExtractionSchema("entity", "extract_system.md.j2", tool)


def reasoning_schema() -> ExtractionSchema:
    """SARG's ⟨cause, relation, effect⟩ triples (paper Sec. 3.2.1, App. C)."""
    triple = closed_object(
        {
            "cause": _text("The earlier or enabling state / thing."),
            "relation": _text("Short snake_case verb phrase.", 40),
            "effect": _text("The later or resulting state / thing."),
            "sentence": _sentence(),
        }
    )
    description = "Record the reasoning triples (cause, relation, effect) the passage states."
    triples = {"type": "array", "items": triple, "maxItems": MAX_TRIPLES}
    tool = _tool({"triples": triples}, ["triples"], description)
    return ExtractionSchema("reasoning", "extract_reasoning_system.md.j2", tool)


def schema_named(name: str) -> ExtractionSchema:
    """The schema called `name` (`entity` or `reasoning`).

    Raises:
        ValueError: an unknown name (the message lists the known ones).
    """
    if name == "reasoning":
        return reasoning_schema()
    if name == "entity":
        return entity_schema()
    raise ValueError(f"unknown extraction schema {name!r}; choose one of: {', '.join(SCHEMAS)}")
