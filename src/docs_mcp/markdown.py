"""Markdown stage: markdownify (subclassed) per section, the code-free variant, and the cleaning pass."""

from __future__ import annotations

import re

import lxml.html
from bs4 import BeautifulSoup, Tag
from lxml import etree
from markdownify import ATX, MarkdownConverter

from .config import CODE_BLOCK_SELECTORS
from .parsing import _xpath

_CODE_BLOCKS = _xpath(CODE_BLOCK_SELECTORS)
_MD_FENCED = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?^[ \t]*\1[ \t]*$\n?", re.S | re.M)


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


_converter = DocsConverter()


def html_to_markdown(fragment: str, include_code: bool) -> str:
    """Convert a simplified HTML fragment; without code, code blocks are removed from the HTML first."""
    if not fragment.strip():
        return ""
    if not include_code and ("<pre" in fragment or "highlight" in fragment):
        fragment = strip_code_blocks(fragment)
    return clean_markdown(_converter.convert_fragment(fragment))


def strip_code_blocks(fragment: str) -> str:
    """Remove <pre> and code-block wrappers at HTML level (markdownify's `strip` would keep their text)."""
    root = lxml.html.fragment_fromstring(fragment, create_parent="div")
    for el in _CODE_BLOCKS(root):
        if el.getparent() is not None:
            el.drop_tree()
    inner = (root.text or "") + "".join(etree.tostring(c, encoding=str, method="html") for c in root)
    return inner


def markdown_without_code(text: str) -> str:
    """Markdown sources: drop fenced blocks."""
    return clean_markdown(_MD_FENCED.sub("", text))


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
