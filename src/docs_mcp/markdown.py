"""Markdown stage: markdownify (subclassed) per section, the code-free variant, and the cleaning pass."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Tag
from markdownify import ATX, MarkdownConverter

from .config import PLAIN_TEXT_LANGUAGES, PLAIN_TEXT_TAG

_MD_FENCED = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([^\n]*)\n.*?^[ \t]*\1[ \t]*$\n?", re.S | re.M)


class _FastTag(Tag):
    """bs4 Tag whose plain `find_parent(name)` is a pointer walk (markdownify calls it for every tag)."""

    def find_parent(self, name=None, attrs=None, string=None, **kwargs):  # type: ignore[override]
        if isinstance(name, str) and not attrs and string is None and not kwargs:
            node = self.parent
            while node is not None:
                if node.name == name:
                    return node
                node = node.parent
            return None
        return super().find_parent(name, attrs or {}, string, **kwargs)


class DocsConverter(MarkdownConverter):
    """markdownify with ATX headings, fenced code tagged with its language, and links reduced to text."""

    def __init__(self, **options):
        options.setdefault("heading_style", ATX)
        options.setdefault("bullets", "-")
        options.setdefault("code_language_callback", lambda el: el.get("data-lang") or "")
        options.setdefault("strip", ["a", "img"])
        options.setdefault("escape_underscores", False)
        options.setdefault("escape_asterisks", False)
        options.setdefault("escape_misc", False)
        super().__init__(**options)

    def convert_fragment(self, fragment: str) -> str:
        soup = BeautifulSoup(fragment, "lxml", element_classes={Tag: _FastTag}, multi_valued_attributes=None)
        return self.convert_soup(soup)


class CodeFreeConverter(DocsConverter):
    """Drops code blocks whole (markdownify's `strip` would keep their text); plain-text blocks stay."""

    def convert_pre(self, el, text, parent_tags):  # type: ignore[override]
        if el.get("data-lang") == PLAIN_TEXT_TAG:
            return super().convert_pre(el, text, parent_tags)
        return ""


_converters = {True: DocsConverter(), False: CodeFreeConverter()}


def html_to_markdown(fragment: str, include_code: bool) -> str:
    """Convert a simplified HTML fragment (code blocks are flattened <pre> elements by then)."""
    if not fragment.strip():
        return ""
    return clean_markdown(_converters[include_code].convert_fragment(fragment))


def markdown_without_code(text: str) -> str:
    """Markdown sources: drop fenced blocks, except those declared as plain text."""
    return clean_markdown(_MD_FENCED.sub(_code_fence_dropped, text))


def _code_fence_dropped(m: re.Match[str]) -> str:
    info = m.group(2).split(maxsplit=1)
    return m.group(0) if info and info[0].strip("{}.").lower() in PLAIN_TEXT_LANGUAGES else ""


_PILCROW = re.compile("[¶\uf0c1\u200b\u200c\u200d\ufeff]")
_COPY_LINE = re.compile(r"^[ \t]*(?:Copy(?: to clipboard| code)?|Copied!?)[ \t]*$", re.M | re.I)
_TRAILING_WS = re.compile(r"[ \t]+$", re.M)
_BLANK_RUNS = re.compile(r"\n{3,}")


def clean_markdown(text: str) -> str:
    """Remove pilcrows, 'Copy' residues and trailing blanks; collapse runs of blank lines."""
    text = _PILCROW.sub("", text)
    text = _COPY_LINE.sub("", text)
    text = _TRAILING_WS.sub("", text)
    text = _BLANK_RUNS.sub("\n\n", text)
    return text.strip("\n")


def heading_line(level: int, title: str) -> str:
    return f"{'#' * level} {title}" if level > 0 else ""
