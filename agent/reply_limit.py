"""The most a model's reply may add to the conversation and the record.

A reply is kept whole up to `MAX_REPLY_CHARS` characters of text and `MAX_ARGUMENT_CHARS` of
each tool call's arguments; the rest is cut, the cut marked in the message itself (so the
model, the trajectory and distillation see the same thing) and counted in the step record
(`StepRecord.truncated_chars`). Without a bound a model that rambles (2 MB a turn was seen) is
re-sent its own reply every turn: 40 MB requests by turn 20 and hundreds of MB per agent.
"""

from __future__ import annotations

from typing import Any

MAX_REPLY_CHARS = 16_000
"""Characters of an assistant turn's text kept: about 4,000 tokens, four times the default
--max-tokens, so only a reply a server did not bound is ever cut."""
MAX_ARGUMENT_CHARS = 8_000
"""Characters of one tool call's arguments kept (a call's JSON is a few hundred)."""
CUT_NOTE = "\n[cut by ARK: the reply held {total:,} characters; the first {kept:,} are kept]"


def bounded_reply(message: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """`message` with its text and tool-call arguments cut to the limits, and the chars cut."""
    cut = 0
    content = message.get("content")
    if isinstance(content, str) and len(content) > MAX_REPLY_CHARS:
        cut += len(content) - MAX_REPLY_CHARS
        note = CUT_NOTE.format(total=len(content), kept=MAX_REPLY_CHARS)
        message = {**message, "content": content[:MAX_REPLY_CHARS] + note}
    calls = message.get("tool_calls")
    if calls:
        kept_calls = []
        for call in calls:
            function = call.get("function") or {}
            arguments = function.get("arguments")
            if isinstance(arguments, str) and len(arguments) > MAX_ARGUMENT_CHARS:
                cut += len(arguments) - MAX_ARGUMENT_CHARS
                function = {**function, "arguments": arguments[:MAX_ARGUMENT_CHARS]}
                call = {**call, "function": function}
            kept_calls.append(call)
        message = {**message, "tool_calls": kept_calls}
    return message, cut
