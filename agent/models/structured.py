"""Structured output: ask any model for JSON that fits a schema, in the strongest form it has.

Served models get the schema as `response_format: {"type": "json_schema", ...}`, which
OpenAI enforces with strict mode and llama.cpp's server, vLLM, SGLang and Ollama's OpenAI API
turn into a grammar, so the reply is valid by construction. An endpoint that rejects the
parameter is asked again without it (the adapter remembers, once per model) and the mode
recorded is then `prompt`. In-process `hf:` models take the same door: the schema is enforced
while decoding (llguidance's grammar mask, agent/models/hf/constrained.py). Models without it
(scripted, `hf:` without llguidance) are asked through the prompt alone. Whatever the mode, a
reasoning prefix (`<think>…</think>`) is stripped before parsing, almost-JSON is repaired
leniently, and every fallback is counted in `StructuredStats`; a reply holding only
reasoning is asked once more, then counted as a failure, never returned as an empty result.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from agent.models.base import Message, Model, ModelReply
from tools.lenient_json import json_span, loads_lenient

THINKING = re.compile(
    r"<(think|thinking|reasoning|thought)>.*?(?:</\1>|$)", re.IGNORECASE | re.DOTALL
)
JSON_ONLY = "Reply with the JSON object only, no reasoning."


class StructuredMode(StrEnum):
    """How a structured reply is asked for."""

    auto = "auto"  # the schema where the backend takes it, else the prompt
    schema = "schema"  # response_format json_schema (enforced by the server)
    prompt = "prompt"  # the prompt alone, read with lenient repair


@runtime_checkable
class SchemaModel(Protocol):
    """A model that can enforce a JSON schema on its reply.

    The OpenAI-compatible adapter sends it as `response_format`; the in-process `hf:` adapter
    masks tokens against it while decoding.
    """

    name: str

    def takes_response_format(self) -> bool:
        """False once the endpoint has rejected `response_format`."""
        ...

    async def generate_structured(
        self,
        messages: list[Message],
        schema: dict[str, Any],
        *,
        name: str,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> ModelReply:
        """One turn whose text the endpoint constrains to `schema` (`max_tokens`: its cap)."""
        ...


@dataclass
class StructuredStats:
    """Counts over many structured asks (stored with a run's summary).

    Attributes:
        asked: Structured replies asked for.
        by_mode: How many went out per mode actually used (`schema`, `prompt`).
        repaired: Replies read only after lenient repair.
        thinking: Replies with a reasoning prefix stripped.
        retried: Replies holding only reasoning, asked again.
        failed: Replies with no usable JSON in the end.
        rejected_schema: Endpoints that rejected `response_format` (then asked without).
    """

    asked: int = 0
    by_mode: dict[str, int] = field(default_factory=dict)
    repaired: int = 0
    thinking: int = 0
    retried: int = 0
    failed: int = 0
    rejected_schema: int = 0

    def to_record(self) -> dict[str, Any]:
        """Plain-dict form."""
        return {
            "asked": self.asked,
            "by_mode": dict(self.by_mode),
            "repaired": self.repaired,
            "thinking": self.thinking,
            "retried": self.retried,
            "failed": self.failed,
            "rejected_schema": self.rejected_schema,
        }


@dataclass(frozen=True)
class StructuredReply:
    """One structured ask's outcome.

    Attributes:
        value: The JSON value read (None when nothing usable came back).
        mode: The mode the request went out in (`schema` or `prompt`).
        repaired: The JSON was read only after lenient repair.
        thinking: A reasoning prefix was stripped.
        error: Why `value` is None.
        reply: The model's last reply.
    """

    value: Any
    mode: StructuredMode
    repaired: bool = False
    thinking: bool = False
    error: str | None = None
    reply: ModelReply | None = None


def strip_thinking(text: str) -> tuple[str, bool]:
    """`text` without `<think>…</think>` (and similar) blocks, and whether there was one."""
    stripped = THINKING.sub("", text)
    return stripped.strip(), stripped != text


def read_json(text: str) -> tuple[Any, bool]:
    """The JSON object in `text` (from its first `{`, fences and prose around it ignored).

    Raises:
        ValueError: no JSON object can be read, even leniently.
    """
    if "{" not in text:
        raise ValueError("no JSON object in the reply")
    try:
        read = loads_lenient(json_span(text))
    except (json.JSONDecodeError, RecursionError) as error:
        raise ValueError(f"unparseable JSON ({error.__class__.__name__})") from None
    return read.value, read.repaired


async def ask_structured(
    model: Model,
    messages: list[Message],
    schema: dict[str, Any],
    *,
    name: str,
    mode: StructuredMode = StructuredMode.auto,
    stats: StructuredStats | None = None,
    temperature: float | None = 0.0,
    max_tokens: int | None = None,
) -> StructuredReply:
    """Ask `model` for a JSON value fitting `schema`; see the module docstring.

    Args:
        model: Any model; one with `generate_structured` gets the schema sent.
        messages: The conversation; its prompt should describe the JSON too (for `prompt`).
        schema: JSON schema of the value.
        name: The schema's name (OpenAI's `json_schema.name`).
        mode: `auto`, `schema` (send the schema even if unsure) or `prompt`.
        stats: Counts to add this ask to.
        temperature: Sampling temperature.
        max_tokens: Cap on the reply where the schema door is used (None: the model's own);
            the prompt path keeps the model's cap.

    Raises:
        ModelError: as the model raises it (the endpoint is down, ...).
    """
    stats = stats if stats is not None else StructuredStats()
    stats.asked += 1
    for attempt in range(2):
        reply, used = await _ask(
            model, messages, schema, name, mode, stats, temperature, max_tokens
        )
        stats.by_mode[used.value] = stats.by_mode.get(used.value, 0) + 1
        text, thinking = strip_thinking(str(reply.message.get("content") or ""))
        stats.thinking += int(thinking)
        if not text and thinking and attempt == 0:
            stats.retried += 1
            messages = [*messages, reply.message, {"role": "user", "content": JSON_ONLY}]
            continue
        try:
            value, repaired = read_json(text)
        except ValueError as error:
            stats.failed += 1
            reason = "the reply held only reasoning" if thinking and not text else str(error)
            return StructuredReply(None, used, False, thinking, reason, reply)
        stats.repaired += int(repaired)
        return StructuredReply(value, used, repaired, thinking, None, reply)
    raise AssertionError("unreachable: the loop returns on its second attempt")


async def _ask(
    model: Model,
    messages: list[Message],
    schema: dict[str, Any],
    name: str,
    mode: StructuredMode,
    stats: StructuredStats,
    temperature: float | None,
    max_tokens: int | None,
) -> tuple[ModelReply, StructuredMode]:
    schema_door = isinstance(model, SchemaModel) and model.takes_response_format()
    if mode is not StructuredMode.prompt and schema_door:
        assert isinstance(model, SchemaModel)
        reply = await model.generate_structured(
            messages, schema, name=name, temperature=temperature, max_tokens=max_tokens
        )
        if model.takes_response_format():
            return reply, StructuredMode.schema
        stats.rejected_schema += 1  # the adapter dropped it and asked again
        return reply, StructuredMode.prompt
    return await model.generate(messages, [], temperature=temperature), StructuredMode.prompt
