"""The five tools on the command line: each prints exactly the text its tool gives the model (errors in commands)."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Awaitable
from typing import TYPE_CHECKING

from docs_mcp.cli.arguments import program
from docs_mcp.cli.options import cli_dest
from docs_mcp.cli.terminal import answer_for_terminal, for_terminal
from docs_mcp.errors import DocsMCPError
from docs_mcp.tools.specs import TOOLS, tool_for

if TYPE_CHECKING:
    from docs_mcp.cli.app import App


def _people_words() -> list[tuple[re.Pattern[str], str]]:
    """Tool and parameter names as the model reads them → the commands and options a person types."""
    words = [(re.compile(rf"`?\b{t.name}\b`?"), f"`{program()} {t.command}`") for t in TOOLS]
    for p in {p for t in TOOLS for p in t.params if p.flag}:
        if p.type is bool:
            words.append((re.compile(rf"\b{p.name}=true\b"), p.flag))
        words.append((re.compile(rf"\b{p.name}=(?=\S)"), f"{p.flag} "))
        words.append((re.compile(rf"\b{p.name}\b"), p.flag))
    return words


def for_people(text: str) -> str:
    """A tool's message with its advice in commands: `search_docs` → `docslice search`, start_index → --start."""
    for pattern, words in _people_words():
        text = pattern.sub(words, text)
    return text


def tool_call(app: App, args: argparse.Namespace) -> Awaitable[str]:
    """The library call behind a command: the same one the MCP tool makes, with the same arguments."""
    spec = tool_for(args.command)
    return getattr(app.tools, spec.name)(*(getattr(args, cli_dest(p)) for p in spec.params))


async def run_tool_command(app: App, args: argparse.Namespace, prepare=None) -> int:
    """Print the tool's text on stdout; a tool error goes to stderr (exit 1), as the agent would read it."""
    try:
        # Site search needs an index: empty sources are built first; when no source answers, each was said
        # on stderr, and there is nothing to search.
        if args.command == "search" and prepare is not None and not await prepare(app):
            return 1
        try:
            text = await tool_call(app, args)
        except DocsMCPError as exc:
            print(f"{program()}: {for_terminal(for_people(str(exc)))}", file=sys.stderr)
            return 1
    finally:
        await app.tools.aclose()
    sys.stdout.write(answer_for_terminal(text) + "\n")
    sys.stdout.flush()
    return 0
