"""A settings model written out as commented YAML: every key, its default and its help."""

from __future__ import annotations

import inspect
import json
import re
import textwrap
from typing import Any

from pydantic import BaseModel

_SECTION = re.compile(r"^(\w[\w ]*):\s*$")
_ENTRY = re.compile(r"^(\w+):\s*(.*)$")


def attribute_docs(model: type[BaseModel]) -> dict[str, str]:
    """The `Attributes:` section of a Google-style class docstring, as {name: help text}."""
    lines = inspect.cleandoc(model.__doc__ or "").splitlines()
    docs: dict[str, str] = {}
    inside = False
    current: str | None = None
    for line in lines:
        section = _SECTION.match(line)
        if section and not line.startswith(" "):
            inside = section.group(1) == "Attributes"
            current = None
            continue
        if not inside or not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        entry = _ENTRY.match(line.strip()) if depth == 4 else None
        if entry:
            current = entry.group(1)
            docs[current] = entry.group(2)
        elif current is not None:
            docs[current] += " " + line.strip()
    return docs


def commented_yaml(settings: BaseModel, *, indent: int = 0, width: int = 88) -> str:
    """`settings` as YAML that loads back to the same values, each key under its help text.

    Nested settings models become nested mappings. Values are written as JSON scalars and
    lists, which YAML reads unchanged (`null` for None).
    """
    docs = attribute_docs(type(settings))
    pad = " " * indent
    out: list[str] = []
    for name in type(settings).model_fields:
        value = getattr(settings, name)
        help_text = docs.get(name, "")
        if help_text:
            wrapped = textwrap.wrap(help_text, width=width - indent - 2)
            out += [f"{pad}# {line}" for line in wrapped]
        if isinstance(value, BaseModel):
            out.append(f"{pad}{name}:")
            out.append(commented_yaml(value, indent=indent + 2, width=width).rstrip("\n"))
        else:
            out.append(f"{pad}{name}: {_scalar(value)}")
    return "\n".join(out) + "\n"


def _scalar(value: Any) -> str:
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, float) and (abs(value) < 1e-3 and value != 0):
        return f"{value:.1e}"  # 1.0e-05: YAML 1.1 reads it as a number (1e-5 would be a string)
    return json.dumps(value)
