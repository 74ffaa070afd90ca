"""Every snapshot file's checksum, recorded at build and checked at the first open after a change.

The build records an xxh3-128 checksum of every file it wrote (the manifest's
`file_checksums`). `Snapshot.open` compares each file's stamp (size, modification time,
inode) with the stamps of the last open that checked it, kept per snapshot in the user's cache
(`opened/` under `$ARK_CACHE_DIR`, else `$XDG_CACHE_HOME/ark`, else `~/.cache/ark`): a file
whose stamp changed since is hashed again (xxh3 reads several GB/s) and must match. So a value
changed in place (one id in `csr/neighbors.npy` that is still a valid node, a letter in
`nodes.arrow`) is caught by the next open, at the cost of one read of the changed files; an
unchanged snapshot opens with a `stat` per file. What this cannot see: a change that keeps a
file's size, modification time and inode (someone restoring the time on purpose); that, and
whether the derived files agree with nodes.parquet and edges.parquet, only `ark graph verify`
checks. A snapshot built before checksums were recorded is opened without this check.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path

import xxhash

from graphs.cache_dir import cache_path
from graphs.errors import SnapshotError

ALGORITHM = "xxh3_128"
_BLOCK = 1 << 22


def checksum(file: Path) -> str:
    """The xxh3-128 hex digest of `file`."""
    digest = xxhash.xxh3_128()
    with file.open("rb") as handle:
        while block := handle.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def file_checksums(directory: Path, skip: Iterable[str] = ()) -> dict[str, str]:
    """Relative path -> checksum of every file under `directory` (but `skip`), sorted."""
    skipped = set(skip)
    files = sorted(p for p in directory.rglob("*") if p.is_file())
    return {
        relative: checksum(file)
        for file in files
        if (relative := file.relative_to(directory).as_posix()) not in skipped
    }


def check_checksums(path: Path, recorded: Mapping[str, str], remedy: str) -> list[str]:
    """Check the files of snapshot `path` whose stamp changed since the last checked open.

    Returns:
        The files hashed (none when every stamp is as last checked).

    Raises:
        SnapshotError: a file's checksum differs from `recorded` (named, with `remedy`).
    """
    if not recorded:
        return []
    stamps_file = _stamps_file(path)
    known = _read_stamps(stamps_file)
    now: dict[str, list[int]] = {}
    hashed = []
    for relative, expected in recorded.items():
        file = path / relative
        try:
            info = file.stat()
        except OSError as error:
            raise SnapshotError(f"snapshot {path} is missing {relative}; {remedy}") from error
        stamp = [info.st_size, info.st_mtime_ns, info.st_ino]
        if known.get(relative) != stamp:
            hashed.append(relative)
            if checksum(file) != expected:
                raise SnapshotError(
                    f"snapshot {path}: {relative} was changed after the build (its {ALGORITHM} "
                    f"checksum differs from the manifest's); {remedy}"
                )
        now[relative] = stamp
    if hashed:
        _write_stamps(stamps_file, now)
    return hashed


def _stamps_file(path: Path) -> Path:
    key = hashlib.sha256(str(path.resolve()).encode("utf-8")).hexdigest()[:32]
    return cache_path("opened") / f"{key}.json"


def _read_stamps(file: Path) -> dict[str, list[int]]:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_stamps(file: Path, stamps: dict[str, list[int]]) -> None:
    """Best effort (a read-only cache only means hashing again next time), atomic."""
    with contextlib.suppress(OSError):
        file.parent.mkdir(parents=True, exist_ok=True)
        temp = file.with_name(f".{file.name}.{uuid.uuid4().hex[:8]}")
        temp.write_text(json.dumps(stamps), encoding="utf-8")
        temp.replace(file)
