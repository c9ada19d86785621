"""The MCP boundary: stdio and streamable HTTP."""
