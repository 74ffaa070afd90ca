"""The tokenising workers of a build: they import only the tokeniser, and leave Ctrl-C to ark.

Run from a main module that does what the `ark` console script does: a worker started by
`spawn` or `forkserver` imports it again, so it must import nothing heavy (cli/entry.py).
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

MAIN = """
import sys
from {entry_module} import {entry_function}  # the `ark` console script's one import
from concurrent.futures import ProcessPoolExecutor
from graphs.bm25.ingest import _ignore_interrupts, _worker_context

PROBE = (
    "(sorted(m for m in __import__('sys').modules if m == 'cli.app' or m.split('.')[0] in"
    " ('langgraph', 'agent', 'torch')),"
    " __import__('signal').getsignal(__import__('signal').SIGINT) is __import__('signal').SIG_IGN)"
)
if __name__ == "__main__":
    with ProcessPoolExecutor(2, mp_context=_worker_context(), initializer=_ignore_interrupts) as p:
        print(p.submit(eval, PROBE).result())
"""


def test_workers_import_only_the_tokeniser_and_ignore_ctrl_c(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[3]
    entry = tomllib.loads((root / "pyproject.toml").read_text())["project"]["scripts"]["ark"]
    module, function = entry.split(":")
    script = tmp_path / "main.py"  # what the console script does, as pip writes it
    script.write_text(MAIN.replace("{entry_module}", module).replace("{entry_function}", function))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "([], True)"
