"""What `ark serve` holds: its options, the served snapshots (swapped in whole) and its errors."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphs.errors import ArkError
from graphs.snapshot import Snapshot
from tools.config import ToolConfig
from tools.toolset import Toolset

if TYPE_CHECKING:
    from agent.ark import ArkAgent
    from agent.config import AgentConfig
    from answer.config import SargConfig
    from answer.pipeline import Answerer
    from graphs.importers.documents.extractor import Extractor

EXTRACTION_FILE = "extraction.json"


class ServeError(ArkError):
    """A request the server cannot serve; `status` is its HTTP status, the message the fix."""

    status = 400


class NotFoundError(ServeError):
    """An unknown snapshot, node, job or run (the message lists or says where to look)."""

    status = 404


class ConflictError(ServeError):
    """A request that conflicts with the state (a document snapshot's writer is busy)."""

    status = 409


AnswererFactory = Callable[[Snapshot, "SargConfig", "str | None"], "Answerer"]
"""Builds SARG's answerer for (snapshot, settings, generator spec or None for offline)."""
ExtractorFactory = Callable[[], "Extractor"]
AgentFactory = Callable[[Snapshot, "AgentConfig"], "ArkAgent"]
"""Builds ARK's agents for a snapshot and configuration (agent.factory.make_agent)."""


@dataclass(frozen=True, kw_only=True)
class ServeOptions:
    """How `ark serve` runs (the command maps its flags onto this and nothing else).

    Attributes:
        runs_dir: Where agent runs are recorded, one run directory per snapshot and agent
            configuration (the `ark ask --save` format, read by `ark eval report`).
        uploads_dir: Where uploaded documents are kept (they become sources of the snapshot).
        doc_roots: Folders whose files may be added by server-side path (none: only uploads).
        max_body_bytes: Largest JSON request body.
        max_upload_bytes: Largest document upload.
        max_agents: Most agents one ask may run.
        max_steps: Most steps per agent one ask may ask for.
    """

    runs_dir: Path = Path("ark-serve-runs")
    uploads_dir: Path = Path("ark-serve-uploads")
    doc_roots: tuple[Path, ...] = ()
    max_body_bytes: int = 1 << 20
    max_upload_bytes: int = 16 << 20
    max_agents: int = 8
    max_steps: int = 50


@dataclass(frozen=True, kw_only=True)
class ServeDeps:
    """The parts built on demand, replaceable in tests (scripted extractors, tiny encoders).

    Attributes:
        answerer: SARG's answerer for a snapshot and settings.
        extractor: The document extractor of add/delete jobs (default: offline spaCy).
        agent: ARK's agents for a snapshot and configuration (loads the model spec).
    """

    answerer: AnswererFactory
    extractor: ExtractorFactory
    agent: AgentFactory


@dataclass(frozen=True)
class ServedGraph:
    """One served snapshot, as opened at one moment: readers keep it while a new one swaps in."""

    label: str
    path: Path
    snapshot: Snapshot
    toolset: Toolset

    @property
    def is_documents(self) -> bool:
        """Whether documents can be added and removed (built by `ark graph extract`)."""
        return (self.path / EXTRACTION_FILE).is_file()

    def describe(self) -> dict[str, Any]:
        """The snapshot and its schema as the API lists them."""
        return {
            "label": self.label,
            **self.snapshot.manifest.schema_summary(),
            "tools": self.toolset.tool_names,
            "documents": self.is_documents,
        }


def open_served(label: str, path: Path) -> ServedGraph:
    """Open `path` for serving, with every lazily read part read now.

    A reader holding this object keeps working after a newer snapshot is swapped in at
    `path` (the old files stay open until the last reader lets go).

    Raises:
        SnapshotError: the directory is not a readable snapshot.
    """
    snapshot = Snapshot.open(path)
    _ = snapshot.names, snapshot.degrees  # read now: the directory may be replaced later
    return ServedGraph(label, Path(path), snapshot, Toolset(snapshot, ToolConfig(enable_node=True)))


@dataclass
class GraphRegistry:
    """The served snapshots by label; `swap` replaces one whole, under a lock."""

    graphs: dict[str, ServedGraph]
    _lock: threading.Lock = field(default_factory=threading.Lock)
    writers: dict[str, threading.Lock] = field(default_factory=dict)

    @classmethod
    def open(cls, labelled: Sequence[tuple[str, Path]]) -> GraphRegistry:
        """Open every (label, path)."""
        graphs = {label: open_served(label, path) for label, path in labelled}
        return cls(graphs, writers={label: threading.Lock() for label in graphs})

    def get(self, label: str | None) -> ServedGraph:
        """The snapshot `label` (None: the first served).

        Raises:
            NotFoundError: no such label (the message lists the served ones).
        """
        with self._lock:
            if label is None or label == "":
                return next(iter(self.graphs.values()))
            served = self.graphs.get(label)
        if served is None:
            raise NotFoundError(
                f"no snapshot {label!r} is served; served: {', '.join(self.graphs)} "
                "(GET /api/snapshots lists them)"
            )
        return served

    def labels(self) -> list[str]:
        """The served labels, in command-line order."""
        with self._lock:
            return list(self.graphs)

    def reopen(self, label: str) -> ServedGraph:
        """Open the snapshot now at `label`'s path and serve it from the next request on."""
        current = self.get(label)
        fresh = open_served(label, current.path)
        with self._lock:
            self.graphs[label] = fresh
        return fresh
