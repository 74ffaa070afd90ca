"""Pieces of the closed, bounded JSON schemas that structured output asks models to fill.

Strict JSON-schema modes (OpenAI's strict mode, the grammars llama.cpp, vLLM and SGLang compile)
want every object closed with every property required, and a bounded string or list is what
keeps a small model from writing past its token cap under an enforced schema (a string that
never ends is what leaves unparseable JSON). Used by the extraction schemas
(agent/extract/schemas.py) and the plan schema (tools/plans/plan_schema.py).
"""

from __future__ import annotations

from typing import Any


def closed_object(properties: dict[str, Any]) -> dict[str, Any]:
    """A closed object with every property required."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def bounded_text(description: str, longest: int, *, shortest: int = 0) -> dict[str, Any]:
    """A string of at most `longest` (and at least `shortest`) characters."""
    text: dict[str, Any] = {"type": "string", "description": description, "maxLength": longest}
    if shortest:
        text["minLength"] = shortest
    return text
