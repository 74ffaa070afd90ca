"""A snapshot directory written atomically: checks on the target, a temp dir, then a rename."""

from __future__ import annotations

import json
import logging
import os
import shutil
import uuid
from pathlib import Path

from graphs.errors import GraphImportError
from graphs.layout import META_FILE

logger = logging.getLogger(__name__)

TEMP_MARK = ".tmp-"


def check_target(out: Path, overwrite: bool) -> None:
    """Refuse an existing `out` without `overwrite`, and any `out` that is not a snapshot.

    Raises:
        GraphImportError: `out` exists and may not (or cannot) be replaced.
    """
    if out.exists() and not overwrite:
        raise GraphImportError(
            f"{out} already exists; pass --overwrite (Python: BuildOptions(overwrite=True)) to "
            "replace it or pick another output directory"
        )
    if out.exists() and not _replaceable(out):
        raise GraphImportError(
            f"{out} exists and is not a snapshot (no manifest.json); refusing to replace it even "
            "with --overwrite; remove it yourself or pick another output directory"
        )


def new_temp(out: Path) -> Path:
    """A fresh temp dir beside `out`, named after this process (stale ones are removed first).

    It never opens as a snapshot: the manifest is written last, just before the rename.
    """
    clean_stale_temps(out)
    temp = out.parent / f".{out.name}{TEMP_MARK}{os.getpid()}-{uuid.uuid4().hex[:8]}"
    temp.mkdir(parents=True)
    return temp


def clean_stale_temps(out: Path, mark: str = TEMP_MARK) -> None:
    """Remove temp dirs of earlier builds of `out` whose process is gone.

    Their names are `.{out.name}{mark}{pid}-...`; a build inside such a dir left its own
    temp beside it (one more leading dot), which goes too.
    """
    if not out.parent.is_dir():
        return
    for prefix in (f".{out.name}{mark}", f"..{out.name}{mark}"):
        for temp in out.parent.glob(f"{prefix}*"):
            pid_text = temp.name.removeprefix(prefix).split("-")[0]
            if pid_text.isdigit() and not _alive(int(pid_text)):
                logger.info("removing %s left by an interrupted build", temp)
                shutil.rmtree(temp, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _replaceable(out: Path) -> bool:
    return out.is_dir() and ((out / "manifest.json").is_file() or not any(out.iterdir()))


def replace_dir(temp: Path, out: Path) -> None:
    """Move the finished `temp` to `out`, replacing a snapshot there."""
    if not out.exists():
        temp.rename(out)
        return
    old = out.parent / f".{out.name}.old-{uuid.uuid4().hex[:8]}"
    out.rename(old)
    temp.rename(out)
    shutil.rmtree(old, ignore_errors=True)


def write_part_meta(directory: Path, content_hash: str) -> None:
    """Stamp a snapshot part (csr/, ids/) with the content hash it was built from."""
    (directory / META_FILE).write_text(json.dumps({"content_hash": content_hash}))
