"""A local model's chat template: the tokenizer's own, or a Jinja file the user supplies.

Base models and many GGUF files carry no chat template, and the template is not something to
guess from the architecture: the user supplies the model's own, either as a file given
explicitly (`chat_template=FILE`) or kept beside the model where ARK finds it, the way
transformers reads `chat_template.jinja` from a model directory:

- a model directory: `chat_template.jinja` in it (transformers reads it itself);
- a `.gguf` file `NAME.gguf`: `NAME.jinja` beside it, else `chat_template.jinja` in its folder.

A file given explicitly replaces the tokenizer's own template; one found beside the model is
used only when the model carries none.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import jinja2

from agent.models.base import ModelError

logger = logging.getLogger(__name__)

CHAT_TEMPLATE_FILE = "chat_template.jinja"
TEMPLATE_SUFFIX = ".jinja"
_TURN_PROBE = "ark-turn-probe"


class ChatTemplateError(ModelError):
    """A chat template is missing, unreadable or not Jinja (the message says how to supply one)."""


def template_beside(path: Path) -> Path | None:
    """The chat template file kept beside the model at `path`, if there is one.

    Args:
        path: A model directory, a `.gguf` file or a folder holding one.
    """
    if path.is_file():
        candidates = [path.with_suffix(TEMPLATE_SUFFIX), path.parent / CHAT_TEMPLATE_FILE]
    else:
        candidates = [path / CHAT_TEMPLATE_FILE]
    return next((file for file in candidates if file.is_file()), None)


def read_template(file: Path) -> str:
    """The text of the Jinja chat template in `file`.

    Raises:
        ChatTemplateError: The file is unreadable, empty or not a Jinja template.
    """
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ChatTemplateError(f"{file}: cannot read the chat template ({exc})") from exc
    if not text.strip():
        raise ChatTemplateError(f"{file}: the chat template is empty")
    try:
        jinja2.Environment().parse(text)
    except jinja2.TemplateSyntaxError as exc:
        raise ChatTemplateError(
            f"{file}, line {exc.lineno}: not a Jinja chat template ({exc.message})"
        ) from exc
    return text


def supply_template(tokenizer: Any, model_path: Path, chat_template: str | Path | None) -> None:
    """Give `tokenizer` the template the user supplied: `chat_template`, else one beside the model.

    Args:
        tokenizer: The loaded tokenizer (changed in place).
        model_path: The path the model was loaded from (`hf:PATH`).
        chat_template: A Jinja file that replaces the tokenizer's own template, or None.

    Raises:
        ChatTemplateError: The file named or found cannot be read as a template.
    """
    if chat_template is not None:
        file: Path | None = Path(chat_template).expanduser()
    elif getattr(tokenizer, "chat_template", None):
        return
    else:
        file = template_beside(model_path)
    if file is None:
        return
    tokenizer.chat_template = read_template(file)
    logger.info("chat template of %s read from %s", model_path, file)


def missing_template_message(model_path: Path) -> str:
    """What to do when the model at `model_path` has no chat template."""
    if model_path.is_file():
        where = (
            f"save it as {model_path.with_suffix(TEMPLATE_SUFFIX)} (or {CHAT_TEMPLATE_FILE} "
            "in the same folder)"
        )
    else:
        where = f"save it as {model_path / CHAT_TEMPLATE_FILE}"
    return (
        f"{model_path}: the model has no chat template (a base model, or a GGUF file that "
        f"carries none); ARK does not guess one. Write the model's chat template as a Jinja "
        f"file and {where}, or pass it explicitly (LocalHFModel.load(..., chat_template=FILE))"
    )


def turn_end_ids(tokenizer: Any) -> set[int]:
    """The special token the chat template closes an assistant turn with, as a stop token.

    A GGUF file's generation config often names only the tokenizer's `<eos>`, while the
    model ends its turns with the template's own marker (Gemma's `<end_of_turn>`); without it
    a turn runs on into invented turns until the token cap. Empty when the template renders
    no special token right after the assistant's text.
    """
    messages = [
        {"role": "user", "content": "probe"},
        {"role": "assistant", "content": _TURN_PROBE},
    ]
    try:
        text = tokenizer.apply_chat_template(messages, tokenize=False)
    except (jinja2.TemplateError, ValueError, TypeError, KeyError):
        logger.debug("chat template probe failed; only the eos tokens stop a turn")
        return set()
    if not isinstance(text, str) or _TURN_PROBE not in text:
        return set()
    closing = text.split(_TURN_PROBE, 1)[1].lstrip()
    ids = tokenizer(closing, add_special_tokens=False)["input_ids"] if closing else []
    if not ids:
        return set()
    decoder = getattr(tokenizer, "added_tokens_decoder", {}) or {}
    special = set(tokenizer.all_special_ids) | {i for i, t in decoder.items() if t.special}
    return {ids[0]} if ids[0] in special else set()
