"""Typed errors raised by graphs/ on bad input; messages say what was wrong and how to fix it."""

from __future__ import annotations


class ArkError(Exception):
    """Root of every user-facing error: bad input or setup that the message says how to fix.

    The CLI prints an ArkError as one line and exits with code 2; any other exception is a
    bug and keeps its traceback. Subclass it (through a package's own base) for errors a user
    can cause and fix; never for a broken invariant.
    """


class ConfigError(ArkError, ValueError):
    """A configuration value is out of range or unknown (raised by config validation)."""


class MissingExtraError(ArkError, ImportError):
    """A command needs an optional extra that is not installed.

    Attributes:
        extra: The extra to install (`distill`, `dense`, `mcp`, ...).
        module: The missing top-level module.
    """

    def __init__(self, extra: str, module: str, *, what: str = "this command") -> None:
        super().__init__(
            f"{what} needs the {extra} extra (missing module {module!r}): "
            f"pip install 'ark-kg[{extra}]'"
        )
        self.extra = extra
        self.module = module


class GraphError(ArkError):
    """Base class for every error graphs/ raises on bad input."""


class SnapshotError(GraphError):
    """A snapshot cannot be opened (missing file, format version or content hash mismatch)."""


class UnknownNodeError(GraphError, KeyError):
    """An external node id that the snapshot does not hold."""

    def __init__(self, node_id: str) -> None:
        super().__init__(f"unknown node id {node_id!r}")
        self.node_id = node_id

    def __str__(self) -> str:
        return str(self.args[0])


class GraphImportError(GraphError):
    """Bad input rows or files met while importing a graph."""

    def __init__(self, problem: str, *, file: str | None = None, row: int | None = None) -> None:
        where = ", ".join(
            part for part in (file and f"file {file}", row is not None and f"row {row}") if part
        )
        super().__init__(f"{where}: {problem}" if where else problem)
        self.file = file
        self.row = row
        self.problem = problem
