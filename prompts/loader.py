"""The one reader of prompt files: read them from the `prompts` package and render them strictly."""

from __future__ import annotations

from importlib.resources import files
from typing import Any

from jinja2 import Environment, StrictUndefined, Template


class PromptFileError(FileNotFoundError):
    """A prompt file that the package does not ship was asked for."""


def read_prompt(name: str) -> str:
    """The text of a file shipped in prompts/.

    Args:
        name: File name inside prompts/ (e.g. "agent_system.md.j2").

    Raises:
        PromptFileError: No such file in the package (the message lists the shipped ones).
    """
    resource = files("prompts").joinpath(name)
    if not resource.is_file():
        shipped = sorted(p.name for p in files("prompts").iterdir() if not p.name.endswith(".py"))
        raise PromptFileError(f"no prompt file {name!r} in prompts/; shipped: {', '.join(shipped)}")
    return resource.read_text(encoding="utf-8")


def environment() -> Environment:
    """The Jinja environment prompts render in: a missing variable raises (StrictUndefined)."""
    return Environment(undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False)


def prompt_template(name: str) -> Template:
    """A prompt file compiled as a strict Jinja template."""
    return environment().from_string(read_prompt(name))


def render_prompt(name: str, **variables: Any) -> str:
    """Render prompts/`name` with `variables`; a variable the template uses but lacks raises."""
    return prompt_template(name).render(**variables)
