"""The `ark` command line, REPL and MCP server: the composition root that wires and prints."""
