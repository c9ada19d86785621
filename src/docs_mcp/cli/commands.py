"""The five tools on the command line: each command prints exactly the text its tool gives the model."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import program
from docs_mcp.errors import DocsMCPError

#: command → the MCP tool it prints (README's command table says the same).
TOOL_COMMANDS = {
    "search": "search_docs",
    "toc": "get_doc_toc",
    "section": "get_doc_section",
    "find": "search_in_doc",
    "read": "get_doc_content",
}


def tool_call(app: App, args: argparse.Namespace) -> Awaitable[str]:
    """The library call behind a command: the same one the MCP tool makes, with the same arguments."""
    t = app.tools
    match args.command:
        case "search":
            return t.search_docs(args.query, args.max_results, args.headings, args.source_name)
        case "toc":
            return t.get_doc_toc(args.url)
        case "section":
            return t.get_doc_section(args.url, args.section_id, args.max_length, args.start, args.code)
        case "find":
            return t.search_in_doc(args.url, args.query, args.max_sections, args.max_length, args.code)
        case "read":
            return t.get_doc_content(args.url, args.max_length, args.start, args.code)
    raise ValueError(f"not a tool command: {args.command}")


async def run_tool_command(app: App, args: argparse.Namespace, prepare=None) -> int:
    """Print the tool's text on stdout; a tool error goes to stderr (exit 1), as the agent would read it."""
    try:
        if args.command == "search" and prepare is not None:
            await prepare(app)  # site search needs an index: build empty sources first
        try:
            text = await tool_call(app, args)
        except DocsMCPError as exc:
            print(f"{program()}: {exc}", file=sys.stderr)
            return 1
    finally:
        await app.tools.aclose()
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
    return 0
