"""Tool calls for models whose server cannot parse them: one JSON-schema-constrained action.

Native tool calling needs the server to render the tools into the chat template and parse
the model's calls back out (vLLM's `--tool-call-parser`, llama.cpp's `--jinja`); a server or
a small model that cannot gives replies with no call at all. `ActionTurns` wraps any model
with a structured-output door (agent/models/structured.py) and, when a native turn fails that
way, asks for the turn as one action instead: `{"action": {"tool": NAME, "arguments": {...}}}`
under a schema whose alternatives are the offered tools' own argument schemas (the single
source; `select` limited to the node ids the conversation's tools have listed), enforced by
the server's grammar or, in process, by llguidance. The action comes back as an ordinary
assistant message with `tool_calls`, so the trajectory, the tools and distillation see the
same format either way; the step records `turn_as="action"`.

When: `auto` asks natively until native tool calling fails: a turn comes back empty (no
tool call and no text), the server refuses the `tools` parameter, or a model answers the
loop's nudge with text again (two turns in a row without a call: a model that talks instead
of calling, as SmolLM2-135M does every time); then it re-asks that turn as an action and
keeps action turns for the rest of the run (`switched` says why); `action` always asks that
way; `native` never does.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from enum import StrEnum
from typing import Any

from agent.models.base import Message, Model, ModelError, ModelReply
from agent.models.structured import (
    SchemaModel,
    StructuredMode,
    StructuredStats,
    ask_structured,
    strip_thinking,
)
from prompts.loader import render_prompt
from tools.json_schema import closed_object
from tools.listing_parse import parse_listing, parse_names

SCHEMA_NAME = "tool_action"
SELECT = "select"
MAX_SEEN_IDS = 512
"""Past this many listed ids `select` and `node_id` arguments keep plain strings (the toolset
still refuses an id no tool showed)."""
MAX_STRING_CHARS = 300
"""Longest free string argument an action may hold (a query, a reason), and at most a third
of the reply's token cap (a character can cost a token: Gemma 3 270M writes a digit a
token): a small model under a grammar otherwise writes one string to the cap (a 256-token
`node_id` of digits) and the turn holds no call."""
MIN_STRING_CHARS = 16
"""The shortest bound a free string gets, however small the token cap."""
MAX_LIST_ITEMS = 50
"""Longest list argument an action may hold (the tools' own largest k)."""
NODE_ID = "node_id"


class ToolCallMode(StrEnum):
    """How an agent's tool calls are asked for (`--tool-calls`)."""

    auto = "auto"  # natively, switching to action turns when a native turn holds no call
    native = "native"  # the server's own tool calling only
    action = "action"  # always one JSON-schema-constrained action per turn


def string_bound(max_tokens: int | None) -> int:
    """The longest free string an action may hold under a reply cap of `max_tokens`."""
    if max_tokens is None:
        return MAX_STRING_CHARS
    return max(MIN_STRING_CHARS, min(MAX_STRING_CHARS, max_tokens // 3))


def action_schema(
    tools: list[dict[str, Any]], seen: Sequence[str] = (), *, max_chars: int = MAX_STRING_CHARS
) -> dict[str, Any]:
    """`{"action": {"tool", "arguments"}}`, one alternative per offered tool.

    Args:
        tools: The offered tools (their argument schemas are used as they are).
        seen: Node ids the conversation's tools have listed so far: `select` and a
            `node_id` argument may name only those (an enum, up to `MAX_SEEN_IDS`), so a
            small model cannot invent one.
        max_chars: The bound of every free string (`string_bound`); lists hold at most
            `MAX_LIST_ITEMS`, so a grammar cannot let one run to the token cap.
    """
    choices = []
    for tool in tools:
        name = tool["function"]["name"]
        arguments = copy.deepcopy(tool["function"].get("parameters") or {"type": "object"})
        if seen and len(seen) <= MAX_SEEN_IDS:
            properties = arguments.get("properties", {})
            node_ids = properties.get("node_ids") if name == SELECT else None
            if isinstance(node_ids, dict) and node_ids.get("type") == "array":
                node_ids["items"] = {"type": "string", "enum": list(seen)}
            node_id = properties.get(NODE_ID)
            if isinstance(node_id, dict) and node_id.get("type") == "string":
                properties[NODE_ID] = {**node_id, "enum": list(seen)}
        _bound(arguments, max_chars)
        choices.append(
            closed_object({"tool": {"type": "string", "enum": [name]}, "arguments": arguments})
        )
    return closed_object({"action": {"anyOf": choices}})


def _bound(schema: Any, max_chars: int) -> None:
    """Bound, in place, every free string (`max_chars`) and list (`MAX_LIST_ITEMS`)."""
    if isinstance(schema, list):
        for item in schema:
            _bound(item, max_chars)
        return
    if not isinstance(schema, dict):
        return
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "string" in kinds and "enum" not in schema:
        schema.setdefault("maxLength", max_chars)
    if "array" in kinds:
        schema.setdefault("maxItems", MAX_LIST_ITEMS)
    for value in schema.values():
        if isinstance(value, dict | list):
            _bound(value, max_chars)


def seen_ids(messages: list[Message]) -> list[str]:
    """The node ids the conversation's tool results listed, first seen first."""
    found: dict[str, None] = {}
    for message in messages:
        if message.get("role") == "tool":
            text = str(message.get("content") or "")
            for row in parse_listing(text):
                found.setdefault(row.node_id)
            for named in parse_names(text):  # search's "names in the query" rows
                found.setdefault(named.node.node_id)
    return list(found)


def action_messages(messages: list[Message], tools: list[dict[str, Any]]) -> list[Message]:
    """The conversation as a model without tool calling reads it.

    The tools are described in the system message (prompts/action_turn.md.j2); an earlier
    assistant turn's calls are shown as the action JSON it would have written, and each tool
    result as a user message naming the tool.
    """
    described = [
        {
            "name": tool["function"]["name"],
            "description": tool["function"].get("description", ""),
            "parameters": json.dumps(tool["function"].get("parameters") or {}),
        }
        for tool in tools
    ]
    guide = render_prompt("action_turn.md.j2", tools=described).strip()
    names: dict[str, str] = {}
    out: list[Message] = []
    for message in messages:
        role = message.get("role")
        if role == "system":
            out.append({"role": "system", "content": f"{message.get('content') or ''}\n\n{guide}"})
        elif role == "assistant" and message.get("tool_calls"):
            actions = []
            for call in message["tool_calls"]:
                function = call.get("function") or {}
                names[str(call.get("id"))] = str(function.get("name"))
                actions.append(_action_text(function))
            out.append({"role": "assistant", "content": "\n".join(actions)})
        elif role == "tool":
            name = names.get(str(message.get("tool_call_id")), "the tool")
            out.append({"role": "user", "content": f"Result of {name}:\n{message.get('content')}"})
        else:
            out.append({"role": str(role), "content": message.get("content") or ""})
    if not any(m["role"] == "system" for m in out):
        out.insert(0, {"role": "system", "content": guide})
    return out


def _action_text(function: dict[str, Any]) -> str:
    arguments = function.get("arguments")
    try:
        value = json.loads(arguments) if isinstance(arguments, str) else arguments
    except json.JSONDecodeError:
        value = {}
    action = {"tool": function.get("name"), "arguments": value if isinstance(value, dict) else {}}
    return json.dumps({"action": action})


class ActionTurns:
    """A model whose turns fall back to schema-constrained actions (see the module doc).

    Args:
        inner: The model; it needs a structured-output door for action turns to be enforced
            (without one they are asked through the prompt and read leniently).
        mode: When to ask for actions.
        max_tokens: The inner model's reply cap (None: unknown): bounds an action's strings.
    """

    def __init__(
        self,
        inner: Model,
        mode: ToolCallMode = ToolCallMode.auto,
        *,
        max_tokens: int | None = None,
    ) -> None:
        self.inner = inner
        self.max_chars = string_bound(max_tokens)
        self.name = inner.name
        self.mode = mode
        self.acting = mode is ToolCallMode.action
        self.switched: str | None = None
        """Why `auto` switched to action turns (None: it has not)."""
        self.stats = StructuredStats()
        """How the action turns were asked and read."""

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.inner, attribute)  # context_length, aclose, ...

    async def generate(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        *,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> ModelReply:
        """One turn: natively, or as an action once native calls have failed (module doc)."""
        if not tools or not self.acting:
            try:
                reply = await self.inner.generate(
                    messages, tools, temperature=temperature, seed=seed
                )
            except ModelError as error:
                if not tools or self.mode is not ToolCallMode.auto or not _refuses_tools(error):
                    raise
                self._switch(f"the server refused tools: {error}")
            else:
                if (
                    not tools
                    or self.mode is not ToolCallMode.auto
                    or reply.message.get("tool_calls")
                ):
                    return reply
                if _empty(reply):
                    self._switch("a native turn came back empty")
                elif _talked_before(messages):
                    self._switch("two native turns in a row called no tool")
                else:
                    return reply  # the loop nudges it once
        return await self._action(messages, tools, temperature)

    def _switch(self, why: str) -> None:
        self.acting = True
        self.switched = why

    async def _action(
        self, messages: list[Message], tools: list[dict[str, Any]], temperature: float | None
    ) -> ModelReply:
        asked = await ask_structured(
            self.inner,
            action_messages(messages, tools),
            action_schema(tools, seen_ids(messages), max_chars=self.max_chars),
            name=SCHEMA_NAME,
            mode=StructuredMode.auto,
            stats=self.stats,
            temperature=temperature,
        )
        usage = asked.reply.usage if asked.reply is not None else None
        action = asked.value.get("action") if isinstance(asked.value, dict) else None
        if not isinstance(action, dict) or not isinstance(action.get("tool"), str):
            text = str(asked.reply.message.get("content") or "") if asked.reply else ""
            return ModelReply({"role": "assistant", "content": text}, usage, turn_as="action")
        arguments = action.get("arguments")
        call = {
            "id": "",  # numbered by the loop (ensure_call_ids)
            "type": "function",
            "function": {
                "name": action["tool"],
                "arguments": json.dumps(arguments if isinstance(arguments, dict) else {}),
            },
        }
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        return ModelReply(message, usage, turn_as="action")

    @property
    def enforced(self) -> bool:
        """Whether the inner model enforces the action schema (a structured-output door)."""
        return isinstance(self.inner, SchemaModel) and self.inner.takes_response_format()


def _empty(reply: ModelReply) -> bool:
    """No tool call and no text once reasoning is stripped."""
    if reply.message.get("tool_calls"):
        return False
    text, _ = strip_thinking(str(reply.message.get("content") or ""))
    return not text


def _talked_before(messages: list[Message]) -> bool:
    """Whether the conversation's last assistant turn called no tool (it was nudged since)."""
    replies = [m for m in messages if m.get("role") == "assistant"]
    return bool(replies) and not replies[-1].get("tool_calls")


def _refuses_tools(error: ModelError) -> bool:
    """A 400/422 whose message names the `tools` parameter."""
    text = str(error)
    return ("HTTP 400" in text or "HTTP 422" in text) and "tool" in text.lower()
