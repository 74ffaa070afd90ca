"""Run by test_verify_damage.py in a child process: damage each file, run `ark` on each copy.

Prints one line per (file, damage, command) with the exit code, flushed before the next run,
so a crash (a signal) names the run that caused it.
Usage: python damage_driver.py SNAPSHOT WORKDIR
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from typer.testing import CliRunner

from cli.app import build_app

DAMAGES = ("data", "header")
COMMANDS = {
    "search": ["search", "{}", "alpha beta gamma", "-k", "5"],
    "neighbors": ["neighbors", "{}", "n1", "--query", "beta"],
    "neighbors-typed": ["neighbors", "{}", "n2", "--type", "b", "--edge-type", "r2"],
    "verify": ["graph", "verify", "{}"],
}


def damage(file: Path, how: str) -> bool:
    """Overwrite bytes of `file` in place, keeping its size: its data (0x7F) or bytes 8..72
    (bits flipped). Whether any byte changed (an empty array's .npy has no data to damage)."""
    before = file.read_bytes()
    data = bytearray(before)
    if how == "data":  # every byte after a .npy header (the whole file otherwise)
        start = data.index(b"\n") + 1 if file.suffix == ".npy" else 0
        data[start:] = b"\x7f" * (len(data) - start)
    else:
        data[8:72] = bytes(byte ^ 0xFF for byte in data[8:72])
    file.write_bytes(bytes(data))
    return bytes(data) != before


def main() -> None:
    """Damage every file of the snapshot two ways and print each command's exit code."""
    base, work = Path(sys.argv[1]), Path(sys.argv[2])
    app = build_app()
    for relative in sorted(p.relative_to(base) for p in base.rglob("*") if p.is_file()):
        for how in DAMAGES:
            copy = work / "copy"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(base, copy)
            if not damage(copy / relative, how):
                print(f"done {relative} {how} unchanged 0", flush=True)  # nothing to find
                continue
            for name, argv in COMMANDS.items():
                print(f"start {relative} {how} {name}", flush=True)
                result = CliRunner().invoke(app, [str(copy) if a == "{}" else a for a in argv])
                traceback = result.exception is not None and not isinstance(
                    result.exception, SystemExit
                )
                code = "traceback" if traceback else str(result.exit_code)
                print(f"done {relative} {how} {name} {code}", flush=True)
                if traceback:
                    print(f"exception {result.exception!r}", flush=True)


if __name__ == "__main__":
    main()
