"""The REPL drives the agent: its tests use the agent tests' tiny academic snapshot."""

from tests.agent.conftest import tiny_snapshot

__all__ = ["tiny_snapshot"]
