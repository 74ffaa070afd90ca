"""The errors of a run directory: unusable, held by another writer, or not writable."""

from __future__ import annotations

from graphs.errors import ArkError


class RunStoreError(ArkError):
    """A run directory cannot be used as asked (not empty, other config, corrupt file)."""


class RunLockedError(RunStoreError):
    """Another process is writing to the run directory (the message names it)."""


class RunWriteError(RunStoreError):
    """Writing to the run directory failed (e.g. the disk is full).

    What was written before is intact; the command can be rerun with --resume once the cause
    is fixed.
    """
