"""Typed errors raised by answer/ on bad input; messages say what was wrong and how to fix it."""

from __future__ import annotations

from graphs.errors import ArkError, ConfigError


class AnswerError(ArkError):
    """Base class for every error answer/ raises on bad input or setup."""


class AnswerConfigError(AnswerError, ConfigError):
    """A SARG setting is out of range or unknown."""


class EncoderSetupError(AnswerError):
    """The sentence encoder or KeyBERT cannot be loaded (extra missing, no model directory)."""


class RetrievalError(AnswerError):
    """The retriever asked for cannot run on this snapshot (e.g. dense without embeddings)."""
