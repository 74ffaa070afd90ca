"""The one skeleton of a snapshot build, shared by the in-memory and the streaming writer.

Both builds go through the same steps, here once: refuse a bad target, write into a temp dir
beside it, time each phase, sort out the invalid rows (raise, or report and skip), and at the
end stamp the manifest with the files' sizes and checksums, write it last and rename the
temp dir into place; on any failure the temp dir goes. What differs, how rows are checked
(Arrow in graphs/build/validate.py, SQL in graphs/build/stream/checks.py) and how files are
written, is each writer's own.
"""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from graphs.build.checks import check_candidates, warn_about_rows
from graphs.build.directory import check_target, new_temp, replace_dir
from graphs.build.options import BuildOptions
from graphs.build.problems import RowProblems, count_problems, raise_for_problems, write_report
from graphs.build.stream.budget import format_size, peak_rss
from graphs.layout import REPORT_FILE
from graphs.manifest import (
    MANIFEST_FILE,
    Manifest,
    RelationSignature,
    recorded_sizes,
    write_manifest,
)
from graphs.snapshot.checksums import file_checksums

logger = logging.getLogger(__name__)


class RowFindings(Protocol):
    """What a writer's row checks found (graphs.build.validate.ValidGraph, stream CheckedGraph)."""

    @property
    def type_names(self) -> list[str]:
        """Node types of the valid nodes, sorted."""
        ...

    @property
    def problems(self) -> list[RowProblems]:
        """Invalid rows, grouped by reason, in rule order."""
        ...

    @property
    def num_nodes(self) -> int:
        """Valid nodes."""
        ...

    @property
    def name_as_text(self) -> int:
        """Nodes whose empty text was replaced by their name."""
        ...

    @property
    def duplicate_edges(self) -> int:
        """Exact repeats of an edge collapsed into its first row."""
        ...

    @property
    def self_loops(self) -> int:
        """Kept edges whose src equals dst."""
        ...


@dataclass(frozen=True, kw_only=True)
class SnapshotLabels:
    """What a snapshot is called and made of, recorded in its manifest as given."""

    name: str
    candidate_types: Sequence[str] = ()
    sources: Sequence[str] = ()


@dataclass
class BuildRun:
    """One build in progress: its target, temp dir, options and phase timings."""

    out: Path
    temp: Path
    options: BuildOptions
    labels: SnapshotLabels
    timings: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def timed(self, phase: str) -> Iterator[None]:
        """Record how long `phase` takes (seconds, in the manifest's build_seconds)."""
        started = time.perf_counter()
        yield
        self.timings[phase] = round(time.perf_counter() - started, 3)
        logger.info(
            "phase %s: %.1f s, peak memory so far %s",
            phase,
            self.timings[phase],
            format_size(peak_rss()),
        )

    def settle_rows(self, found: RowFindings, nodes_file: str, edges_file: str) -> int:
        """Check the candidate types, then raise for invalid rows or report and skip them.

        Returns:
            The number of rows skipped (0 without `options.skip_invalid`).

        Raises:
            GraphImportError: an unknown candidate type, or invalid rows without skip_invalid.
        """
        check_candidates(self.labels.candidate_types, found.type_names)
        skipped = count_problems(found.problems)
        if not self.options.skip_invalid:
            raise_for_problems(found.problems)
        warn_about_rows(
            nodes_file,
            edges_file,
            found.name_as_text,
            found.num_nodes,
            found.duplicate_edges,
            found.self_loops,
        )
        if skipped:
            chosen = self.options.report_path
            report = chosen or self.temp / REPORT_FILE
            write_report(found.problems, report)
            logger.info(  # the CLI prints this itself; a warning here would show it twice
                "skipped %d invalid rows; every one is listed in %s",
                skipped,
                self.out / REPORT_FILE if chosen is None else report,
            )
        return skipped

    def finish(self, manifest: Manifest, *, skipped: int) -> Path:
        """Label and stamp `manifest`, write it last and rename the temp dir into place."""
        manifest = manifest.model_copy(
            update={
                "name": self.labels.name,
                "candidate_types": list(self.labels.candidate_types),
                "sources": [str(source) for source in self.labels.sources],
                "skipped_rows": skipped,
                "file_sizes": recorded_sizes(self.temp),
                "file_checksums": file_checksums(self.temp, skip=[MANIFEST_FILE]),
                "build_seconds": self.timings,
            }
        )
        write_manifest(manifest, self.temp)
        replace_dir(self.temp, self.out)
        logger.info(
            "snapshot %s: %d nodes, %d edges (%s)",
            self.out,
            manifest.num_nodes,
            manifest.num_edges,
            ", ".join(f"{k} {v:.1f}s" for k, v in self.timings.items()),
        )
        return self.out


@contextmanager
def building(out: Path, options: BuildOptions, labels: SnapshotLabels) -> Iterator[BuildRun]:
    """A build of `out`: the target checked, a fresh temp dir, removed again on any failure.

    Raises:
        GraphImportError: `out` exists and may not (or cannot) be replaced.
    """
    check_target(out, options.overwrite)
    temp = new_temp(out)
    try:
        yield BuildRun(out=out, temp=temp, options=options, labels=labels)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise


def counts_by_name(names: list[str], codes: np.ndarray) -> dict[str, int]:
    """How many of `codes` name each of `names` (a code is an index into `names`)."""
    counts = np.bincount(np.asarray(codes), minlength=len(names)).tolist() if len(names) else []
    return {label: int(count) for label, count in zip(names, counts, strict=True)}


def relation_signatures(
    keys: np.ndarray, counts: np.ndarray, relation_names: list[str], type_names: list[str]
) -> list[RelationSignature]:
    """Signatures from keys ``(relation * types + source type) * types + target type``.

    Args:
        keys: Distinct signature keys, ascending.
        counts: Edges of each key.
        relation_names: Relation of each relation code.
        type_names: Node type of each type code.
    """
    types = max(len(type_names), 1)
    signatures = []
    for key, count in zip(keys.tolist(), counts.tolist(), strict=True):
        rest, target = divmod(int(key), types)
        relation, source = divmod(rest, types)
        signatures.append(
            RelationSignature(
                relation=relation_names[relation],
                source_type=type_names[source],
                target_type=type_names[target],
                count=int(count),
            )
        )
    return signatures
