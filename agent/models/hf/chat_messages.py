"""Chat messages shaped for a tokenizer's chat template (tool-call arguments, empty contents)."""

from __future__ import annotations

import json
import logging
from typing import Any

import jinja2

from agent.models.base import Message

logger = logging.getLogger(__name__)


def template_messages(messages: list[Message], *, decode_arguments: bool) -> list[Message]:
    """Copy `messages` into the shape the chat template expects.

    `content: None` becomes "". With `decode_arguments`, tool-call `arguments` that parse as a
    JSON object become dicts: templates such as Qwen2.5's stock one render arguments with
    `| tojson`, which would quote and escape a string. ARK's Qwen template (and Qwen3's) write
    a string verbatim, which reproduces exactly what the model generated, so there arguments
    stay strings. Malformed arguments always stay strings.
    """
    prepared = []
    for message in messages:
        copy = dict(message)
        if copy.get("content") is None:
            copy["content"] = ""
        if copy.get("tool_calls") and decode_arguments:
            copy["tool_calls"] = [_decoded_call(call) for call in copy["tool_calls"]]
        prepared.append(copy)
    return prepared


def renders_string_arguments(tokenizer: Any) -> bool:
    """Probe the chat template: does it write string tool-call arguments verbatim?"""
    probe = '{"ark_probe": 1}'
    messages = [
        {"role": "user", "content": "probe"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_0",
                    "type": "function",
                    "function": {"name": "probe", "arguments": probe},
                },
            ],
        },
    ]
    try:
        text = tokenizer.apply_chat_template(messages, tokenize=False)
    except (jinja2.TemplateError, ValueError, TypeError, KeyError):
        logger.debug("chat template probe failed; tool-call arguments will be passed as dicts")
        return False
    return isinstance(text, str) and probe in text


def _decoded_call(call: dict[str, Any]) -> dict[str, Any]:
    function = dict(call.get("function") or {})
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        try:
            decoded = json.loads(arguments)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict):
            function["arguments"] = decoded
    return {**call, "function": function}
