"""The memory budget of a build: parsing sizes, the default limit and the peak measured."""

from __future__ import annotations

import os
import re
import resource
import sys
from dataclasses import dataclass

from graphs.errors import GraphImportError

DEFAULT_FRACTION = 0.25
"""The default budget is this fraction of the machine's memory ..."""
DEFAULT_CAP = 16 * 2**30
"""... capped at 16 GiB (more only helps DuckDB sort in fewer passes)."""
MINIMUM = 64 * 10**6
ENGINE_SHARE = 0.5
"""Share of the budget given to DuckDB (validation, sorts) and later to the BM25 builder; the
rest holds the interpreter and its libraries (~0.5 GB), Arrow batches, numpy chunks and what
either engine allocates past its own limit."""
_UNITS = {
    "": 1,
    "b": 1,
    "k": 10**3,
    "kb": 10**3,
    "kib": 2**10,
    "m": 10**6,
    "mb": 10**6,
    "mib": 2**20,
    "g": 10**9,
    "gb": 10**9,
    "gib": 2**30,
    "t": 10**12,
    "tb": 10**12,
    "tib": 2**40,
}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")


def parse_size(text: str) -> int:
    """Bytes in a size such as ``512MB``, ``4GB``, ``1.5GiB`` or ``1000000``.

    Raises:
        GraphImportError: not a size, an unknown unit, below 64 MB or above the machine's
            memory.
    """
    match = _SIZE.match(text)
    unit = match.group(2).lower() if match else ""
    if match is None or unit not in _UNITS:
        raise GraphImportError(
            f"--memory-limit {text!r} is not a size; write a number with a unit, such as "
            "512MB, 4GB or 1.5GiB"
        )
    size = int(float(match.group(1)) * _UNITS[unit])
    if size < MINIMUM:
        raise GraphImportError(
            f"--memory-limit {text!r} is below the 64MB a build needs; pass at least 64MB"
        )
    machine = total_memory()
    if size > machine:
        raise GraphImportError(
            f"--memory-limit {text!r} is more than this machine's {format_size(machine)} of "
            "memory; pass at most that"
        )
    return size


def total_memory() -> int:
    """Physical memory of this machine in bytes (8 GiB when it cannot be read)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


def default_memory_limit() -> int:
    """25% of the machine's memory, capped at 16 GiB and at least 64 MiB."""
    return max(MINIMUM, min(int(total_memory() * DEFAULT_FRACTION), DEFAULT_CAP))


def peak_rss() -> int:
    """Peak resident memory of this process so far, in bytes (VmHWM)."""
    found = _status("VmHWM:")
    if found is not None:
        return found
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def current_rss() -> int:
    """Resident memory of this process now, in bytes (VmRSS; the peak where unavailable)."""
    found = _status("VmRSS:")
    return found if found is not None else peak_rss()


def _status(key: str) -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def peak_child_rss() -> int:
    """Largest peak resident memory of any finished child process (e.g. tokenising workers)."""
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def format_size(size: int) -> str:
    """``size`` bytes for people: 1.2 GB, 350 MB."""
    if size >= 10**9:
        return f"{size / 1e9:.1f} GB"
    return f"{size / 1e6:.0f} MB"


@dataclass(frozen=True)
class MemoryBudget:
    """How a build splits its memory limit.

    Attributes:
        limit: The whole budget in bytes (--memory-limit).
        threads: Worker threads for DuckDB.
    """

    limit: int
    threads: int = 2

    @property
    def engine_bytes(self) -> int:
        """DuckDB's memory_limit: what sorts, joins and group-bys hold before spilling."""
        return max(MINIMUM // 2, int(self.limit * ENGINE_SHARE))

    @property
    def batch_rows(self) -> int:
        """Rows per Arrow batch streamed through Python (smaller under a small budget)."""
        return int(min(1 << 20, max(1 << 14, self.limit // 2048))) // 8 * 8
