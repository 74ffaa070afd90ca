"""Typed errors for bad tool calls; each becomes an observation that names what is valid."""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from typing import ClassVar

_LISTED_NAMES = 30


def closest_names(name: str, valid: Sequence[str], *, n: int = 3) -> list[str]:
    """Valid names closest to `name` (case-insensitive), best first; empty when none is close."""
    lowered = {candidate.lower(): candidate for candidate in valid}
    matches = difflib.get_close_matches(name.lower(), list(lowered), n=n, cutoff=0.6)
    return [lowered[match] for match in matches]


def describe_valid(name: str, valid: Sequence[str]) -> str:
    """A hint such as "did you mean 'paper'? valid: author, paper" (long lists are shortened)."""
    hints = closest_names(name, valid)
    listed = ", ".join(valid[:_LISTED_NAMES])
    if len(valid) > _LISTED_NAMES:
        listed += f", ... ({len(valid):,} in all)"
    prefix = "did you mean " + " or ".join(repr(h) for h in hints) + "? " if hints else ""
    return f"{prefix}valid: {listed}"


class ToolCallError(Exception):
    """A tool call the model got wrong; the message says what was wrong and how to fix it."""

    kind: ClassVar[str] = "tool_call"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UnknownToolError(ToolCallError):
    """The model called a tool that this toolset does not offer."""

    kind = "unknown_tool"

    def __init__(self, name: str, valid: Sequence[str]) -> None:
        super().__init__(f"unknown tool {name!r}; {describe_valid(name, valid)}")
        self.name = name


class BadJsonError(ToolCallError):
    """The arguments string is not valid JSON."""

    kind = "bad_json"


class BadArgumentsError(ToolCallError):
    """The arguments are JSON but not a valid object for the tool (missing, extra, wrong types)."""

    kind = "bad_arguments"


class UnknownNodeIdError(ToolCallError):
    """One or more node ids that the snapshot does not hold."""

    kind = "unknown_node"

    def __init__(
        self,
        node_ids: Sequence[str],
        hints: Sequence[str] = (),
        type_names: Mapping[str, str] | None = None,
    ) -> None:
        """`hints`: existing ids meant; `type_names`: ids that name a node type -> that type."""
        listed = ", ".join(repr(node_id) for node_id in node_ids)
        noun = "id" if len(node_ids) == 1 else "ids"
        message = f"unknown node {noun} {listed}"
        if hints:
            message += "; did you mean " + " or ".join(repr(h) for h in hints) + "?"
        elif not type_names:
            message += "."
        if type_names:
            names = ", ".join(repr(name) for name in type_names)
            what = "is a node type, not a node id" if len(type_names) == 1 else "are node types"
            message += (
                f"; {names} {what}: list such nodes with search or neighbors "
                f"and node_types {json.dumps(list(dict.fromkeys(type_names.values())))}, then "
                "use their ids."
            )
        message += " Use ids exactly as shown in brackets by search or neighbors ([P12] -> P12)."
        super().__init__(message)
        self.node_ids = list(node_ids)


class UnknownTypeError(ToolCallError):
    """A node type name that the snapshot does not have."""

    kind = "unknown_type"

    def __init__(self, name: str, valid: Sequence[str]) -> None:
        super().__init__(f"unknown node type {name!r}; {describe_valid(name, valid)}")
        self.name = name


class UnknownRelationError(ToolCallError):
    """An edge type (relation) name that the snapshot does not have."""

    kind = "unknown_relation"

    def __init__(self, name: str, valid: Sequence[str]) -> None:
        super().__init__(f"unknown edge type {name!r}; {describe_valid(name, valid)}")
        self.name = name


class NotShownError(ToolCallError):
    """Ids that exist but that no tool showed earlier in this trajectory (select rejects them)."""

    kind = "not_shown"

    def __init__(self, node_ids: Sequence[str], selectable: Sequence[str]) -> None:
        listed = ", ".join(repr(node_id) for node_id in node_ids)
        noun = "id" if len(node_ids) == 1 else "ids"
        message = (
            f"node {noun} {listed} {'was' if len(node_ids) == 1 else 'were'} not shown by a tool "
            "in this run; select only ids that a tool listed (a mistyped id may name another "
            "node)."
        )
        if selectable:
            recent = list(selectable)[-_LISTED_NAMES:][::-1]
            more = f", ... ({len(selectable):,} in all)" if len(selectable) > len(recent) else ""
            message += " Selectable, latest first: " + ", ".join(recent) + more + "."
        else:
            message += " Nothing has been shown yet."
        message += " To select another node, find it with search first."
        super().__init__(message)
        self.node_ids = list(node_ids)
