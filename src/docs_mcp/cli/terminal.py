"""Text for the terminal: status lines on stderr, a page's control characters escaped (light: read before any
heavy import, so bad arguments are refused at once)."""

from __future__ import annotations

import sys

from docs_mcp.cli.logs import render
from docs_mcp.text.controls import CONTROLS, escaped


def for_terminal(text: str) -> str:
    """Text for the terminal: a page's or file's control characters escaped (an escape sequence in a title is
    shown, never obeyed), its lines and tabs kept."""
    return escaped(text, keep="\n\t")


def answer_for_terminal(text: str) -> str:
    """A tool's answer for the terminal: only its control characters escaped, the rest as the model reads it.

    Its names and addresses arrive escaped already (titles, headings and ids as data, file names
    percent-encoded); escaping again would show a page's invisible marks (cppreference's U+200E) as `\\u200e`.
    """
    return escaped(text, keep="\n\t", unsafe=CONTROLS)


def say(line: str) -> None:
    """One status line on stderr (the MCP protocol owns stdout)."""
    print(render(for_terminal(line)), file=sys.stderr, flush=True)
