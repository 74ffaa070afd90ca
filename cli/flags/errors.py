"""The error of command-line flags that cannot be combined or are out of range (FlagError)."""

from __future__ import annotations

from graphs.errors import ArkError

__all__ = ["FlagError"]


class FlagError(ArkError, ValueError):
    """Command-line flags that cannot be combined or are out of range (the message says why)."""
