"""The `ark` console script's entry point: it imports nothing until it runs.

Worker processes started with `spawn` or `forkserver` (the BM25 build's tokenisers) import
the parent's main module again, and for `ark` that is the console script, which imports
this module only: not the CLI, the agent and their libraries (seconds and hundreds of MB
per worker, and one more place for a Ctrl-C to land).
"""

from __future__ import annotations


def main() -> None:
    """Run the `ark` application (cli/app.py)."""
    from cli.app import main as run

    run()
