"""The Qwen-family training chat template: loading, marker checks, inference variant."""

from __future__ import annotations

import re
from typing import Any

from distill.errors import ChatTemplateError
from prompts.loader import PromptFileError, read_prompt

TRAINING_TEMPLATE_FILE = "qwen_train_chat_template.jinja"

_GENERATION_TAG = re.compile(r"\{%-?\s*(?:end)?generation\s*-?%\}")
_GENERATION_OPEN = re.compile(r"\{%-?\s*generation\s*-?%\}")


def load_training_template(name: str = TRAINING_TEMPLATE_FILE) -> str:
    """Read a training chat template shipped in the `prompts` package.

    Args:
        name: File name under `prompts/`.

    Returns:
        The Jinja source, with `{% generation %}` markers around assistant turns.

    Raises:
        ChatTemplateError: The file does not exist or has no generation markers.
    """
    try:
        source = read_prompt(name)
    except PromptFileError as error:
        raise ChatTemplateError(
            f"no chat template {name!r} in prompts/; ship it there or pass an existing file name"
        ) from error
    check_generation_markers(source, origin=f"prompts/{name}")
    return source


def has_generation_markers(template: str) -> bool:
    """True when `template` marks assistant output with `{% generation %}` blocks."""
    return _GENERATION_OPEN.search(template) is not None


def check_generation_markers(template: str | None, *, origin: str = "the chat template") -> None:
    """Raise unless `template` can produce an assistant-token mask.

    Args:
        template: Jinja chat template source (None when a tokenizer has none).
        origin: Where the template came from, for the error message.

    Raises:
        ChatTemplateError: The template is missing or lacks `{% generation %}` markers.
    """
    if not template:
        raise ChatTemplateError(
            f"{origin} is empty: the tokenizer has no chat template; set one "
            f"(ARK ships prompts/{TRAINING_TEMPLATE_FILE} for the Qwen family)"
        )
    if not has_generation_markers(template):
        raise ChatTemplateError(
            f"{origin} has no {{% generation %}} ... {{% endgeneration %}} markers around "
            "assistant turns, so assistant-only loss cannot tell assistant tokens apart; use "
            f"prompts/{TRAINING_TEMPLATE_FILE} (`chat_template: qwen` in the training config) or "
            "add the markers around each assistant message's output, <|im_end|> included"
        )


def inference_template(training_template: str) -> str:
    """Strip the generation markers: the template a trained student is served with.

    The markers only drive the assistant mask, so both variants render the same text.
    """
    return _GENERATION_TAG.sub("", training_template)


def render(
    tokenizer: Any,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    *,
    template: str | None = None,
    add_generation_prompt: bool = False,
) -> str:
    """Render a conversation to text with `template` (default: the tokenizer's own).

    Args:
        tokenizer: A transformers tokenizer.
        messages: OpenAI-format messages.
        tools: OpenAI tool schemas, or None.
        template: Jinja source to use instead of the tokenizer's template.
        add_generation_prompt: Append the assistant header the model continues from.

    Returns:
        The prompt text.
    """
    text = tokenizer.apply_chat_template(
        messages,
        tools=tools,
        chat_template=template,
        tokenize=False,
        add_generation_prompt=add_generation_prompt,
    )
    return str(text)
