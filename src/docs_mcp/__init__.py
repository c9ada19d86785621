"""docslice (package docs_mcp): documentation for AI coding agents, one section at a time."""

__version__ = "0.6.0"
