"""The five tools on the command line: each command prints exactly the text its tool gives the model."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from . import config as C
from .errors import DocsMCPError

if TYPE_CHECKING:
    from .cli import App

#: command → the MCP tool it prints (README's command table says the same).
TOOL_COMMANDS = {
    "search": "search_docs",
    "toc": "get_doc_toc",
    "section": "get_doc_section",
    "find": "search_in_doc",
    "read": "get_doc_content",
}


def _max_length(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--max-length",
        type=int,
        default=C.DEFAULT_MAX_LENGTH,
        help=f"content chars (default {C.DEFAULT_MAX_LENGTH}; 0 = the hard cap)",
    )


def _start(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--start", type=int, default=0, help="offset to start from (a next_start_index or a passage offset)"
    )


def _code(p: argparse.ArgumentParser) -> None:
    p.add_argument("--code", action="store_true", help="include code blocks (include_code_blocks)")


def add_tool_commands(command: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """search, toc, section, find, read: one parser each, with the tool's own options."""
    p = command("search", "search the documentation site(s), as search_docs")
    p.add_argument("query")
    p.add_argument("--max-results", type=int, default=C.DEFAULT_MAX_RESULTS, help=f"hits, 1-{C.MAX_RESULTS}")
    p.add_argument("--headings", action="store_true", help="add each page's headings (include_headings)")
    p.add_argument("--source-name", metavar="NAME", default=None, help="search only this named source")
    p = command("toc", "a page's outline with section ids and sizes, as get_doc_toc")
    p.add_argument("url", help="page URL or path under a source")
    p = command("section", "one section of a page, as get_doc_section")
    p.add_argument("url", help="page URL or path under a source")
    p.add_argument("section_id", metavar="ID", help="section id (from toc or a url's #fragment) or heading")
    _max_length(p)
    _start(p)
    _code(p)
    p = command("find", "the sections of one page that best match a query, as search_in_doc")
    p.add_argument("url", help="page URL or path under a source")
    p.add_argument("query")
    p.add_argument(
        "--max-sections", type=int, default=C.DEFAULT_MAX_SECTIONS, help=f"sections, 1-{C.MAX_SECTIONS}"
    )
    _max_length(p)
    _code(p)
    p = command("read", "a whole page as markdown, one window at a time, as get_doc_content")
    p.add_argument("url", help="page URL or path under a source")
    _max_length(p)
    _start(p)
    _code(p)


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
    from .arguments import program

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
