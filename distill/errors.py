"""Typed errors raised by distill/ on bad input (each message says how to fix it)."""

from __future__ import annotations

from graphs.errors import ArkError


class DistillError(ArkError):
    """Base of everything distill/ raises on bad input or a bad setup."""


class ChatTemplateError(DistillError):
    """A chat template cannot be used for assistant-only training."""


class RunDirError(DistillError):
    """A run directory is missing, empty or holds unreadable records."""


class SFTDataError(DistillError):
    """An SFT dataset directory is missing or malformed."""


class TrainConfigError(DistillError):
    """A training configuration (YAML or flags) is invalid."""


class AdapterError(DistillError):
    """An adapter directory is missing or cannot be merged."""


class BaseModelError(DistillError):
    """The base model names a local directory that does not exist."""


class EmptyTrainingSetError(DistillError):
    """Truncation left no conversation with an assistant token to train on."""


class TrainMemoryError(DistillError):
    """A training run would need more memory than its limit (refused before it starts)."""
