"""The MCP server behind `ark mcp`: ARK's read-only tools and schemas, stdio or gated HTTP."""
