"""`ark graph verify`: check every content hash and invariant of a snapshot, one line a check."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from cli.guards import USER_ERROR_EXIT


def verify(
    snapshot: Annotated[Path, typer.Argument(help="Snapshot directory.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of lines.")] = False,
) -> None:
    """Re-hash a snapshot and check every file against its invariants and sources (slow).

    Exit 0 when everything holds, 2 when a check fails (each failure says what to rebuild).
    """
    from graphs.verify import verify_snapshot

    checks = verify_snapshot(snapshot)
    failed = [check for check in checks if check.problem]
    if as_json:
        print(json.dumps({"ok": not failed, "checks": [asdict(c) for c in checks]}, indent=2))
    else:
        for check in checks:
            verdict = f"FAILED: {check.problem}" if check.problem else "ok"
            print(f"{check.name}: {verdict} ({check.seconds:.2f} s)")
        print(f"snapshot {snapshot}: " + ("damaged" if failed else "verified"))
    if failed:
        raise typer.Exit(code=USER_ERROR_EXIT)
