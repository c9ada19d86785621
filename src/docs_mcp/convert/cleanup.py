"""Markdown text as both converters leave it: notes for left-out code, heading lines, pilcrows and blank runs."""

from __future__ import annotations

import re

from docs_mcp.settings import SHORT_LITERAL_CHARS, SHORT_LITERAL_LINES, mechanism_on

_PILCROW = re.compile("[¶\uf0c1\u200b\u200c\u200d\ufeff]")
_COPY_LINE = re.compile(r"^[ \t]*(?:Copy(?: to clipboard| code)?|Copied!?)[ \t]*$", re.M | re.I)
_TRAILING_WS = re.compile(r"(?<![ \t])[ \t]+$", re.M)  # from a run's first char: linear
BLANK_RUNS = re.compile(r"\n{3,}")


def code_note(lang: str, lines: int) -> str:
    """The line left where a code block was omitted: the model knows something is there, and how big."""
    return f"[code: {lang + ', ' if lang else ''}{lines} line{'s' if lines != 1 else ''}]"


def short_literal(code: str) -> bool:
    """Whether a code block is shown even when code is left out: 1-3 short lines cost less than note + call."""
    code = code.strip("\n")
    return (
        bool(code.strip())
        and code.count("\n") < SHORT_LITERAL_LINES
        and len(code) <= SHORT_LITERAL_CHARS
        and mechanism_on("short-literals")
    )


def clean_markdown(text: str) -> str:
    """Remove pilcrows, 'Copy' residues and trailing blanks; collapse runs of blank lines."""
    text = _PILCROW.sub("", text)
    text = _COPY_LINE.sub("", text)
    text = _TRAILING_WS.sub("", text)
    text = BLANK_RUNS.sub("\n\n", text)
    return text.strip("\n")


def heading_line(level: int, title: str) -> str:
    return f"{'#' * level} {title}" if level > 0 else ""
