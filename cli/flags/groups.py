"""Flag groups: a frozen dataclass declares a group of flags once; `with_flags` injects them.

simonw/llm's shared-options pattern for Typer. A group is a keyword-only dataclass whose
fields are annotated with `Annotated[T, typer.Option(...)]`; a command names the group once,
as a keyword-only parameter (`agent: AgentFlags`), and `with_flags` replaces that parameter
by the group's fields in the signature Typer reads. When the command runs, the values are
gathered back into one instance of the group, so the command body sees a typed object and
every command taking the group offers exactly the same flags.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable, Collection, Mapping
from typing import Any, TypeVar

CommandT = TypeVar("CommandT", bound=Callable[..., Any])

_FLAG_GROUP_MARK = "__ark_flag_group__"
_INJECTED = "__ark_injected_flags__"


def flag_group(cls: type) -> type:
    """Mark a dataclass as a flag group (see the module docstring)."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"flag group {cls.__name__} must be a dataclass")
    setattr(cls, _FLAG_GROUP_MARK, True)
    return cls


def is_flag_group(annotation: object) -> bool:
    """True when `annotation` is a class marked with `flag_group`."""
    return isinstance(annotation, type) and getattr(annotation, _FLAG_GROUP_MARK, False)


def group_parameters(group: type, *, without: Collection[str] = ()) -> list[inspect.Parameter]:
    """The group's fields as keyword-only parameters carrying their Typer annotations."""
    hints = typing.get_type_hints(group, include_extras=True)
    parameters = []
    for field in dataclasses.fields(group):
        if field.name in without:
            continue
        default = inspect.Parameter.empty
        if field.default is not dataclasses.MISSING:
            default = field.default
        parameters.append(
            inspect.Parameter(
                field.name,
                inspect.Parameter.KEYWORD_ONLY,
                default=default,
                annotation=hints[field.name],
            )
        )
    return parameters


def with_flags(
    *, without: Mapping[str, Collection[str]] | None = None
) -> Callable[[CommandT], CommandT]:
    """Inject the flags of every flag-group parameter of a command.

    Args:
        without: Per group parameter name, fields this command does not offer (they keep the
            group's defaults), e.g. ``{"agent": ("agents",)}`` where the command has its own
            flag of that name. Use sparingly: the point of a group is the same set everywhere.

    Returns:
        A decorator whose result Typer reads as a command taking the groups' flags.
    """
    excluded = dict(without or {})

    def decorate(command: CommandT) -> CommandT:
        signature = inspect.signature(command, eval_str=True)
        groups: dict[str, tuple[type, list[str]]] = {}
        parameters: list[inspect.Parameter] = []
        for parameter in signature.parameters.values():
            if is_flag_group(parameter.annotation):
                fields = group_parameters(
                    parameter.annotation, without=excluded.get(parameter.name, ())
                )
                _refuse_clashes(command, signature, fields)
                groups[parameter.name] = (parameter.annotation, [f.name for f in fields])
                parameters.extend(fields)
            else:
                parameters.append(parameter.replace(kind=inspect.Parameter.KEYWORD_ONLY))
        if not groups:
            raise TypeError(f"{command.__name__} takes no flag group; drop @with_flags")

        @functools.wraps(command)
        def wrapper(**values: Any) -> Any:
            for name, (group, fields) in groups.items():
                values[name] = group(**{field: values.pop(field) for field in fields})
            return command(**values)

        new_signature = signature.replace(parameters=parameters)
        wrapper.__signature__ = new_signature  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
        setattr(
            wrapper, _INJECTED, {name: (group, tuple(f)) for name, (group, f) in groups.items()}
        )
        return typing.cast(CommandT, wrapper)

    return decorate


def _refuse_clashes(
    command: Callable[..., Any], signature: inspect.Signature, fields: list[inspect.Parameter]
) -> None:
    clashes = sorted({field.name for field in fields} & set(signature.parameters))
    if clashes:
        raise TypeError(
            f"{command.__name__} declares {', '.join(clashes)} itself and through a flag group; "
            "drop its own parameter, or name it in with_flags(without=...)"
        )


def injected_flags(command: Callable[..., Any]) -> dict[type, tuple[str, ...]]:
    """Per flag group, the field names `with_flags` injected into `command` (empty: none)."""
    while not hasattr(command, _INJECTED) and hasattr(command, "__wrapped__"):
        command = command.__wrapped__  # Typer wraps each callback once more
    injected: dict[str, tuple[type, tuple[str, ...]]] = getattr(command, _INJECTED, {})
    return {group: fields for group, fields in injected.values()}
