"""Parse stage: lxml tree, main-content container, noise removal, titles and element text, all at C speed."""

from __future__ import annotations

import json
import re

import lxml.html
from lxml import etree

from docs_mcp.convert.hidden import hidden_elements, hidden_within
from docs_mcp.convert.selectors import SelectorSet, xpath
from docs_mcp.convert.texinfo import node_navigation
from docs_mcp.errors import NotDocumentation
from docs_mcp.settings import MAX_DEPTH, MAX_PAGE_SECTIONS, MAX_TITLE_CHARS
from docs_mcp.text.tidy import clip, normalize_space
from docs_mcp.themes import (
    ADMONITION_SELECTORS,
    INDEX_PAGE_SELECTORS,
    MAIN_CONTENT_SELECTORS,
    MIN_MAIN_TEXT,
    NOISE_SELECTORS,
    PLAIN_TEXT_TAG,
)

HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>", re.I)
#: The deepest nesting libxml2 reads with huge_tree; deeper content would be dropped without a word.
MAX_PARSE_DEPTH = 2_048
#: Tags that pile up in pathological nesting; removed from the raw text when a page nests too deep.
_NESTING_TAGS = re.compile(
    r"</?(?:div|span|section|article|font|b|i|u|em|strong|small|big|a|blockquote|ul|ol|li|dl|dt|dd|table|"
    r"tbody|thead|tr|td|th|center|main|aside|nav|header|footer|p|code|tt|sup|sub|q|cite|mark|details|summary)\b[^<>]*>",
    re.I,
)
_MAIN = [xpath(sel) for sel in MAIN_CONTENT_SELECTORS]
_NOISE = SelectorSet(NOISE_SELECTORS)
ADMONITIONS = SelectorSet(ADMONITION_SELECTORS)
_INDEX_PAGES = SelectorSet(INDEX_PAGE_SELECTORS)

_HEADINGS = etree.XPath(" | ".join(f"descendant::{h}" for h in HEADING_TAGS))


def generated_index_chars(main: lxml.html.HtmlElement) -> int:
    """Characters of text inside generated keyword indexes (see INDEX_PAGE_SELECTORS)."""
    return sum(len(normalize_space(el.text_content())) for el in _INDEX_PAGES.select(main))


def parse_html(text: str) -> lxml.html.HtmlElement:
    """Parse a page leniently (malformed markup is repaired, never fatal, and no content is dropped)."""
    text = _XML_DECL.sub("", text, count=1)
    if not text.strip():
        raise NotDocumentation("the page is empty; pick another page")
    root, too_deep = _parse(text)
    if too_deep:
        # libxml2 drops whatever lies deeper than 2,048 elements: read the page with its nesting tags
        # removed instead, and say so on the page.
        root, _ = _parse(_NESTING_TAGS.sub(" ", text))
        _notice(
            root,
            f"this page nests its markup deeper than {MAX_PARSE_DEPTH:,} levels; it was flattened to be read",
        )
    body = root.find("body")
    if body is not None:
        # Content after a stray </body> lands beside <body>; it is still part of the page.
        for el in list(root):
            if el is not body and el.tag not in ("head", "body") and isinstance(el.tag, str):
                body.append(el)
    _limit_depth(root)
    return root


#: Every element an HtmlElement, chosen in C: lxml.html's own lookup calls Python for each element touched
#: (6% of indexing time), to give forms and inputs classes of their own that nothing here uses.
_LOOKUP = etree.ElementDefaultClassLookup(
    element=lxml.html.HtmlElement,
    comment=lxml.html.HtmlComment,
    pi=lxml.html.HtmlProcessingInstruction,
    entity=lxml.html.HtmlEntity,
)


def _parse(text: str) -> tuple[lxml.html.HtmlElement, bool]:
    """The tree (huge_tree: 2,048 levels, not 256), and whether the parser still had to drop deeper content."""
    parser = lxml.html.HTMLParser(huge_tree=True)  # one per call: lxml parsers are not thread-safe
    parser.set_element_class_lookup(_LOOKUP)
    try:
        root = lxml.html.document_fromstring(text, parser=parser)
    except (etree.ParserError, ValueError) as exc:
        raise NotDocumentation(f"the page could not be parsed as HTML ({exc})") from None
    return root, any("Excessive depth" in e.message for e in parser.error_log)


def _notice(root: lxml.html.HtmlElement, text: str) -> None:
    """A line at the top of the page's content telling the reader what was done to it."""
    body = root.find("body")
    host = body if body is not None else root
    para = lxml.html.Element("p")
    para.text = f"[docslice: {text}]"
    host.insert(0, para)


#: Elements MAX_DEPTH levels below the root that have children (a fixed path: one pass in C).
_AT_MAX_DEPTH = etree.XPath("/" + "/".join(["*"] * MAX_DEPTH) + "[*]")


def _limit_depth(root: lxml.html.HtmlElement) -> None:
    """Flatten what is nested deeper than MAX_DEPTH: its text stays, its tags go (converters recurse)."""
    for el in _AT_MAX_DEPTH(root):
        etree.strip_tags(el, "*")


def cap_headings(main: lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    """Headings past MAX_PAGE_SECTIONS become paragraphs of the last section, with a note where they start: each
    section costs a conversion when the outline is drawn (200,000 headings took minutes, then collapsed)."""
    headings = list(main.iter(*HEADING_TAGS))
    if len(headings) <= MAX_PAGE_SECTIONS:
        return main
    note = etree.Element("p")
    note.text = (
        f"[docslice: this page has {len(headings):,} headings; the first {MAX_PAGE_SECTIONS:,} are sections, "
        f"the other {len(headings) - MAX_PAGE_SECTIONS:,} are paragraphs of the last one]"
    )
    headings[MAX_PAGE_SECTIONS].addprevious(note)
    for h in headings[MAX_PAGE_SECTIONS:]:
        h.tag = "p"
    return main


def page_title(root: lxml.html.HtmlElement) -> str:
    """<title> (minus a ' — Site' suffix when an h1 agrees), else the first h1."""
    h1 = root.find(".//h1")
    h1_text = clean_heading(h1.text_content()) if h1 is not None else ""
    title = normalize_space(root.findtext(".//title") or "")
    if h1_text and (not title or title.startswith(h1_text)):
        title = h1_text
    title = title or h1_text or _comment_title(root) or "(untitled)"
    return clip(title, MAX_TITLE_CHARS)


#: Metadata comments longer than this are not read for a title (Go's are ~100 chars).
COMMENT_TITLE_CHARS = 2_000


def _comment_title(root: lxml.html.HtmlElement) -> str:
    """The "Title" of metadata written as JSON in a comment before the page: Go's documentation pages are
    fragments that open with `<!--{"Title": "The Go Programming Language Specification", …}-->`."""
    for node in root.itersiblings(preceding=True):
        text = (node.text or "").strip() if isinstance(node, etree._Comment) else ""
        if text.startswith("{"):
            try:
                meta = json.loads(text[:COMMENT_TITLE_CHARS])
            except (ValueError, RecursionError):  # not JSON, cut, or nested past the parser's depth
                return ""
            return normalize_space(str(meta.get("Title") or "")) if isinstance(meta, dict) else ""
    return ""


def find_main(root: lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    """The documentation theme's content container, else <body>.

    The selector must match one container with text (nested matches count as one): one that matches
    several, like AsciiDoc's sibling `div.sect1`s or a list of `article`s, does not name the main one.
    It needs MIN_MAIN_TEXT characters, unless it holds an h1 (a short page of Rust's unstable book).
    """
    for xp in _MAIN:
        found = xp(root)
        members = set(found)
        outer = [
            (len(normalize_space(el.text_content())), el)
            for el in found
            if not any(a in members for a in el.iterancestors())
        ]
        texts = [(size, el) for size, el in outer if size]
        # A short page's container still counts when it holds the page's title (rust's unstable book).
        if len(texts) == 1 and (texts[0][0] >= MIN_MAIN_TEXT or texts[0][1].find(".//h1") is not None):
            return texts[0][1]
    body = root.find("body")
    return body if body is not None else root


def strip_noise(
    main: lxml.html.HtmlElement, hidden: list[etree._Element] | None = None, texinfo: bool | None = None
) -> None:
    """Drop what the page hides (`hidden`: its root's `hidden_elements`, when the caller has them), navigation,
    widgets, media and permalink anchors, in place (`texinfo`: whether Texinfo wrote the page, for a `main`
    copied out of it)."""
    inside = None if hidden is None else hidden_within(main, hidden)
    for el in hidden_elements(main) if inside is None else inside:
        if el.getparent() is not None:
            el.drop_tree()
    for el in [*_NOISE.select(main), *node_navigation(main, texinfo)]:
        if el.getparent() is None:
            continue
        # An <header> that carries the page's heading (article > header > h1) is unwrapped, not dropped.
        if el.tag == "header" and _HEADINGS(el):
            el.drop_tag()
            continue
        el.drop_tree()
    for box in ADMONITIONS.select(main):
        for h in box.iter(*HEADING_TAGS):
            h.tag = "p"
    for el in main.iter(etree.Comment, etree.ProcessingInstruction):
        if el.getparent() is not None:
            el.drop_tree()


#: Elements whose boundaries separate words; inline ones (code, em, b, …) do not.
BLOCK_TAGS = frozenset(
    [
        "p",
        "div",
        "li",
        "dt",
        "dd",
        "tr",
        "td",
        "th",
        "table",
        "ul",
        "ol",
        "dl",
        "pre",
        "blockquote",
        "section",
        "article",
        "br",
        "hr",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "figure",
        "figcaption",
        "caption",
        "thead",
        "tbody",
        "details",
        "summary",
    ]
)


def element_text(el: etree._Element, lines: bool = False, skip_code: bool = False) -> str:
    """Text of an element without its tail; words never merge or split across blocks.

    Blocks are set apart by a space, or with `lines` each block ends a line and table cells are separated
    by ` | ` (a plain-text rendering). With `skip_code`, code blocks the default markdown leaves out (a
    `<pre>` not declared plain text) are left out.
    """
    parts: list[str] = []
    skipping: etree._Element | None = None
    for event, node in etree.iterwalk(el, events=("start", "end")):
        if not isinstance(node.tag, str):
            continue
        if skipping is not None:
            if event == "end" and node is skipping:
                skipping = None
                parts.append("\n" if lines else " ")
                if node is not el and node.tail:
                    parts.append(node.tail)
            continue
        block = node.tag in BLOCK_TAGS
        if event == "start":
            if skip_code and node.tag == "pre" and node.get("data-lang") != PLAIN_TEXT_TAG:
                skipping = node
                continue
            if lines and node.tag in ("td", "th") and node.getprevious() is not None:
                parts.append(" | ")
            elif block and not lines:
                parts.append(" ")
            if node.text:
                parts.append(node.text)
        else:
            if block and (not lines or node.tag not in ("td", "th")):
                parts.append("\n" if lines else " ")
            if node is not el and node.tail:
                parts.append(node.tail)
    return "".join(parts)


def clean_heading(text: str) -> str:
    """Heading text without permalink glyphs."""
    return normalize_space(text.replace("¶", "").replace("\uf0c1", "")).strip(" #§").strip()
