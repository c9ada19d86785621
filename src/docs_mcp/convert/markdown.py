"""Markdown stage: markdownify (subclassed) per section, the code-free variant, and the cleaning pass."""

from __future__ import annotations

import re
import threading
from bisect import bisect_left
from itertools import accumulate

import lxml.html
import markdownify
from bs4 import BeautifulSoup, Tag
from bs4.builder._lxml import LXMLTreeBuilder
from lxml import etree
from markdownify import ATX, MarkdownConverter

from docs_mcp.convert.cleanup import BLANK_RUNS, clean_markdown, code_note, short_literal
from docs_mcp.convert.definitions import CLOSE, END, START
from docs_mcp.convert.parsing import element_text
from docs_mcp.settings import MAX_CONVERT_CHARS
from docs_mcp.themes import PLAIN_TEXT_TAG

# markdownify's `[\t \r\n]*[\r\n][\t \r\n]*` (process_text) rescans a run of blanks without a newline from
# each of its positions: a paragraph of 80,000 spaces took 68 s, holding the GIL in one C call. Anchored at the
# start of a run and possessive, the same matches are found in one pass (0.9 ms).
markdownify.re_newline_whitespace = re.compile(r"(?<![\t \r\n])[\t ]*+[\r\n][\t \r\n]*+")


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


class _FastSoup(BeautifulSoup):
    """The soup's root: markdownify asks every tag, the root too, whether a <pre> holds it; the root has no parent."""

    def find_parent(self, name=None, attrs=None, string=None, **kwargs):  # type: ignore[override]
        if isinstance(name, str) and not attrs and string is None and not kwargs:
            return None
        return super().find_parent(name, attrs or {}, string, **kwargs)


class _Builder(LXMLTreeBuilder):
    """bs4's lxml builder keeping its parser between fragments: making one per fragment inspected the builder's
    signature (inspect.getfullargspec) each time, 15% of converting a page of 5,000 small sections."""

    def __init__(self) -> None:
        super().__init__(multi_valued_attributes=None)
        self._parser: etree.HTMLParser | None = None

    def parser_for(self, encoding):  # type: ignore[override]
        if encoding is not None:
            return super().parser_for(encoding)
        if self._parser is None:
            self._parser = super().parser_for(None)
        return self._parser

    def feed(self, markup) -> None:  # type: ignore[override]
        try:
            super().feed(markup)
        except BaseException:
            self._parser = None  # a parse that stopped half way is never continued by the next fragment
            raise


#: One builder per thread: a builder holds the soup it is building.
_builders = threading.local()


def _soup(fragment: str) -> BeautifulSoup:
    """The fragment as bs4 and lxml parse it (`BeautifulSoup(fragment, "lxml")`), with this thread's builder."""
    builder = getattr(_builders, "builder", None)
    if builder is None:
        builder = _builders.builder = _Builder()
    return _FastSoup(fragment, builder=builder, element_classes={Tag: _FastTag})


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

    def convert_td(self, el, text, parent_tags):  # type: ignore[override]
        # A `|` in a cell (`?|`, `x | y`) would end the cell in a GitHub table.
        return super().convert_td(el, text.replace("|", "\\|"), parent_tags)

    def convert_th(self, el, text, parent_tags):  # type: ignore[override]
        return super().convert_th(el, text.replace("|", "\\|"), parent_tags)

    def convert_fragment(self, fragment: str) -> str:
        return self.convert_soup(_soup(fragment))


class CodeFreeConverter(DocsConverter):
    """Replaces code blocks by a one-line note of their language and size; plain-text and short blocks stay."""

    def convert_pre(self, el, text, parent_tags):  # type: ignore[override]
        lang = el.get("data-lang") or ""
        if lang == PLAIN_TEXT_TAG or short_literal(el.get_text()):
            return super().convert_pre(el, text, parent_tags)
        lines = el.get_text().strip("\n").count("\n") + 1
        return f"\n\n{code_note(lang, lines)}\n\n" if el.get_text().strip() else ""


_converters = {True: DocsConverter(), False: CodeFreeConverter()}


def html_to_markdown(fragment: str, include_code: bool) -> str:
    """Convert a simplified HTML fragment (code blocks are flattened <pre> elements by then)."""
    return convert(fragment, include_code)[0]


def convert(fragment: str, include_code: bool, entries: int = 0) -> tuple[str, list[tuple[int, int] | None]]:
    """Markdown of a fragment, and where each of its `entries` marked definitions lies in it."""
    if not fragment.strip():
        return "", [None] * entries
    if len(fragment) > MAX_CONVERT_CHARS:
        size = f"{len(fragment) / 1e6:.1f} MB" if len(fragment) >= 1e6 else f"{len(fragment):,} chars"
        note = f"[docslice: this section's HTML is {size}, too large to convert to markdown; shown as plain text]"
        text = note + "\n\n" + clean_markdown(plain_text(fragment))
    else:
        try:
            text = clean_markdown(_converters[include_code].convert_fragment(fragment))
        except RecursionError:  # nesting is limited at parse time; this is the last line of defence
            text = clean_markdown(plain_text(fragment))
    return extract_markers(text, entries)


def plain_text(fragment: str) -> str:
    """The fragment's text with a line break after each block and ` | ` between table cells (no bs4)."""
    return "".join(
        piece if isinstance(piece, str) else element_text(piece, lines=True) + (piece.tail or "")
        for piece in lxml.html.fragments_fromstring(fragment)
    )


_MARKER = re.compile(f"([{START}{END}])(\\d+){CLOSE}")
_MARKER_ONLY = re.compile(f"[ \\t>]*(?:[{START}{END}]\\d+{CLOSE}[ \\t]*)+")


def extract_markers(text: str, entries: int) -> tuple[str, list[tuple[int, int] | None]]:
    """Remove definition markers; returns the text and the span of each entry (None if its markers are lost).

    A line holding only markers (one that closes a definition after a block) is dropped with them: an end
    there falls where the previous content ends, a start where the next line begins.
    """
    if START not in text and END not in text:
        return text, [None] * entries
    starts: dict[int, int] = {}
    ends: dict[int, int] = {}
    out: list[str] = []
    size = content_end = 0
    for line in text.split("\n"):
        if _MARKER_ONLY.fullmatch(line):
            for m in _MARKER.finditer(line):
                if m.group(1) == END:
                    ends[int(m.group(2))] = content_end
                else:
                    starts[int(m.group(2))] = size
            continue
        last = 0
        for m in _MARKER.finditer(line):
            out.append(line[last : m.start()])
            size += m.start() - last
            (ends if m.group(1) == END else starts)[int(m.group(2))] = size
            last = m.end()
        out.append(line[last:] + "\n")
        size += len(line) - last + 1
        if line[last:].strip() or last:
            content_end = size - 1
    clean, shift = _collapse_blank_runs("".join(out))
    spans: list[tuple[int, int] | None] = []
    for k in range(entries):
        if k in starts and k in ends:
            lo = shift(starts[k])
            spans.append((lo, max(lo, shift(ends[k]))))
        else:
            spans.append(None)
    return clean, spans


def _collapse_blank_runs(text: str):
    """Collapse 3+ newlines (left where marker lines went) and trim; returns the text and an offset mapper."""
    cuts: list[tuple[int, int]] = []  # (position in the old text, chars removed there)
    lead = len(text) - len(text.lstrip("\n"))
    if lead:
        cuts.append((0, lead))
    for m in BLANK_RUNS.finditer(text):
        if m.start() >= lead:
            cuts.append((m.start() + 2, m.end() - m.start() - 2))
    body_end = len(text.rstrip("\n"))
    clean = BLANK_RUNS.sub("\n\n", text).strip("\n")

    # Cuts are disjoint and in order: those before p's cut are removed whole (a running sum); a bisection finds
    # p's cut, so a page of 1,600 definitions maps its offsets in linear time, not quadratic (6 s → ms).
    ats = [at for at, _ in cuts]
    before = list(accumulate((n for _, n in cuts), initial=0))

    def shift(p: int) -> int:
        k = bisect_left(ats, p)  # cuts[:k] start before p
        removed = before[k - 1] + min(cuts[k - 1][1], p - ats[k - 1]) if k else 0
        return max(0, min(p, body_end) - removed)

    return clean, shift
