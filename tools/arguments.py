"""Parsing a tool call's raw arguments (JSON text or a mapping) into its validated model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from tools.errors import BadArgumentsError, BadJsonError
from tools.format import ignored_note
from tools.lenient_json import loads_lenient
from tools.schemas import MAX_QUERY_CHARS, TOOL_ARGS, ToolArgs

_SHOWN_INPUT_CHARS = 60
_SHOWN_ERRORS = 5


def parse_arguments(
    name: str,
    arguments: str | Mapping[str, Any] | None,
    *,
    disabled: Mapping[str, str],
    signature: str,
) -> tuple[ToolArgs, list[str]]:
    """Validate the arguments of a call to tool `name`.

    An empty string or None means no arguments (`{}`). Parameters that an ablation switched off
    (`disabled`, field -> reason) are accepted, cleared and reported in the returned notes, so
    the run behaves as if the parameter did not exist and the model is told. A `query` longer
    than the limit (a long question searched verbatim) is cut to its first `MAX_QUERY_CHARS`
    characters, with a note saying so, the same for every model. JSON text that small models
    get almost right (a quote left unescaped inside a string, a bracket left open at the end)
    is read after the repair and the note says what was changed (`tools.lenient_json`).

    Args:
        name: A tool name from :data:`tools.schemas.TOOL_ARGS`.
        arguments: JSON text of an object, or an already-decoded mapping.
        disabled: Parameters switched off in this run, mapped to why.
        signature: The tool's signature as the model sees it, quoted in error messages.

    Returns:
        The validated arguments and the notes to append to the observation.

    Raises:
        BadJsonError: If `arguments` is text that is not JSON, even after the repair.
        BadArgumentsError: If the JSON is not an object or does not fit the tool's parameters.
    """
    decoded, notes = _decode(arguments, signature)
    query = decoded.get("query")
    if isinstance(query, str) and len(query) > MAX_QUERY_CHARS:
        decoded = {**decoded, "query": cut_query(query)}
        notes.append(
            f"note: the query had {len(query):,} characters; searched its first "
            f"{MAX_QUERY_CHARS:,} (the limit). Search the key terms for a sharper result."
        )
    try:
        args = TOOL_ARGS[name].model_validate(decoded)
    except ValidationError as error:
        raise BadArgumentsError(_describe(error, name, signature)) from None
    cleared: dict[str, None] = {}
    for field, reason in disabled.items():
        if getattr(args, field) is not None:
            notes.append(ignored_note(field, reason))
            cleared[field] = None
    return (args.model_copy(update=cleared) if cleared else args), notes


def cut_query(query: str) -> str:
    """`query` cut to at most `MAX_QUERY_CHARS` characters, at a word boundary when one is near."""
    if len(query) <= MAX_QUERY_CHARS:
        return query
    head = query[:MAX_QUERY_CHARS]
    space = head.rfind(" ")
    return head[:space] if space > MAX_QUERY_CHARS - 100 else head


def _decode(
    arguments: str | Mapping[str, Any] | None, signature: str
) -> tuple[dict[str, Any], list[str]]:
    notes: list[str] = []
    if arguments is None:
        return {}, notes
    if isinstance(arguments, Mapping):
        return dict(arguments), notes
    if not isinstance(arguments, str):
        decoded: object = arguments  # already decoded by the caller
    elif not arguments.strip():
        return {}, notes
    else:
        try:
            read = loads_lenient(arguments)
        except (ValueError, RecursionError) as error:
            raise BadJsonError(
                f"arguments are not valid JSON ({error}); send one JSON object, e.g. for "
                f"{signature}"
            ) from None
        decoded = read.value
        if read.repaired:
            notes.append(
                f"note: the arguments were not valid JSON; read them after this repair: "
                f'{read.describe()}. Write a quote inside a string as \\".'
            )
    if not isinstance(decoded, dict):
        raise BadArgumentsError(
            f"arguments must be a JSON object, got {_json_kind(decoded)}; call {signature}"
        )
    return decoded, notes


def _json_kind(value: object) -> str:
    kinds = {list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    return kinds.get(type(value), "null" if value is None else type(value).__name__)


def _describe(error: ValidationError, name: str, signature: str) -> str:
    problems = [_problem(detail) for detail in error.errors(include_url=False)]
    shown = "; ".join(problems[:_SHOWN_ERRORS])
    if len(problems) > _SHOWN_ERRORS:
        shown += f"; and {len(problems) - _SHOWN_ERRORS} more"
    return f"bad arguments for {name}: {shown}. Call {signature}"


def _problem(detail: Mapping[str, Any]) -> str:
    where = ".".join(str(part) for part in detail["loc"]) or "arguments"
    kind = detail["type"]
    if kind == "missing":
        return f"missing required field {where!r}"
    if kind == "extra_forbidden":
        return f"unexpected field {where!r}"
    if kind == "model_type":
        return f"arguments must be a JSON object, got {_json_kind(detail.get('input'))}"
    shown = repr(detail.get("input"))
    if len(shown) > _SHOWN_INPUT_CHARS:
        shown = shown[:_SHOWN_INPUT_CHARS] + "..."
    message = str(detail["msg"]).removeprefix("Value error, ")
    if message.startswith(f"{where} "):  # our validators name the field themselves
        return f"{message} (got {shown})"
    return f"{where}: {message} (got {shown})"
