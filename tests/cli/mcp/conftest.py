"""The MCP server serves the toolset: its tests use the tools tests' tiny snapshot."""

from tests.tools.conftest import tiny_snapshot

__all__ = ["tiny_snapshot"]
