"""Typed errors raised by graphs/ on bad input; messages say what was wrong and how to fix it."""

from __future__ import annotations


class GraphError(Exception):
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
