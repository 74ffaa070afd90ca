"""Read a model's extraction reply (tool call or bare JSON, repaired if almost valid)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from agent.models.base import Message
from graphs.importers.documents.model import Extraction, Mention, Triple
from tools.lenient_json import json_span, loads_lenient

CONCEPT = "concept"
_MAX_NAME = 200


class ExtractionReplyError(ValueError):
    """A reply holding no usable extraction; the message is the failure reason shown."""


def reply_payload(message: Message) -> tuple[Any, bool]:
    """The JSON value a reply carries (first tool call's arguments, else its text).

    Also says whether it had to be repaired.

    Raises:
        ExtractionReplyError: No JSON could be read, even leniently.
    """
    calls = message.get("tool_calls") or []
    text = calls[0]["function"]["arguments"] if calls else (message.get("content") or "")
    text = json_span(text)
    if not text:
        raise ExtractionReplyError("empty reply (no tool call, no text)")
    try:
        read = loads_lenient(text)
    except (json.JSONDecodeError, RecursionError) as error:
        raise ExtractionReplyError(f"unparseable JSON ({error.__class__.__name__})") from None
    return read.value, read.repaired


def extraction_from_payload(
    payload: Any, sentences: Sequence[str], *, repaired: bool = False
) -> Extraction:
    """Turn the model's `{"entities": [...], "triples": [...]}` into an Extraction.

    Malformed items are dropped; a triple's sentence number (1-based, out of range -> 1) picks
    its evidence sentence; an argument's type is the type given for that name in `entities`.

    Raises:
        ExtractionReplyError: The value is not an object with `entities` or `triples`.
    """
    if not isinstance(payload, Mapping) or not ({"entities", "triples"} & payload.keys()):
        raise ExtractionReplyError("reply is not an object with `entities` and `triples`")
    mentions = [
        Mention(name, _type(item.get("type")), 0)
        for item in _items(payload.get("entities"))
        if (name := _name(item.get("name")))
    ]
    types = {mention.name: mention.type for mention in mentions}
    triples = []
    for item in _items(payload.get("triples")):
        subject = _name(item.get("subject", item.get("cause")))  # the reasoning schema's names
        relation = _name(item.get("relation"))
        obj = _name(item.get("object", item.get("effect")))
        if not (subject and relation and obj):
            continue
        index = _sentence(item.get("sentence"), len(sentences))
        evidence = sentences[index] if sentences else ""
        triples.append(
            Triple(subject, types.get(subject, CONCEPT), relation, obj,
                   types.get(obj, CONCEPT), index, evidence)
        )  # fmt: skip
    return Extraction(mentions=tuple(mentions), triples=tuple(triples), repaired=repaired)


def _items(value: Any) -> list[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def _name(value: Any) -> str:
    return value.strip()[:_MAX_NAME] if isinstance(value, str) else ""


def _type(value: Any) -> str:
    text = value.strip().lower() if isinstance(value, str) else ""
    return {"organization": "organisation", "location": "place"}.get(text, text or CONCEPT)


def _sentence(value: Any, count: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return 0
    return number - 1 if 1 <= number <= count else 0
