"""Parse stage: lxml tree, main-content container, noise removal and simplification, all at C speed."""

from __future__ import annotations

import re
from dataclasses import dataclass

import lxml.html
from cssselect import HTMLTranslator
from lxml import etree

from docs_mcp.errors import NotDocumentation
from docs_mcp.settings import MAX_DEPTH, MAX_TITLE_CHARS
from docs_mcp.text.tidy import clip, normalize_space
from docs_mcp.themes import (
    ADMONITION_SELECTORS,
    ADMONITION_TITLE_CLASS_PREFIXES,
    ADMONITION_TITLE_CLASSES,
    CSS_PREFIXES,
    GRAMMAR_ID_PREFIX,
    INDEX_PAGE_SELECTORS,
    KEPT_CODE_CLASSES,
    MAIN_CONTENT_SELECTORS,
    MIN_MAIN_TEXT,
    NOISE_SELECTORS,
    PLAIN_EMPHASIS_SELECTORS,
    PLAIN_TEXT_LANGUAGES,
    PLAIN_TEXT_TAG,
)

HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>", re.I)
#: The deepest nesting libxml2 reads with huge_tree; deeper content would be dropped without a word.
MAX_PARSE_DEPTH = 2_048
#: Tags that pile up in pathological nesting; removed from the raw text when a page nests too deep.
_NESTING_TAGS = re.compile(
    r"</?(?:div|span|section|article|font|b|i|u|em|strong|small|big|a|blockquote|ul|ol|li|dl|dt|dd|table|"
    r"tbody|thead|tr|td|th|center|main|aside|nav|header|footer|p|code|tt|sup|sub|q|cite|mark|details|summary)\b[^>]*>",
    re.I,
)
#: Control characters lxml parses but refuses to set back as text (a code sample holding `\x01`); replaced
#: where simplify() sets text, not in the whole page (a pass over every page for a rare case).
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_LANG = re.compile(r"(?:language|lang|highlight|sourceCode)-([A-Za-z0-9_+#.-]+)")
_NO_LANG = {"default", "notranslate", "console"}
#: Attributes that survive simplification (ids and classes were read before it; bs4 pays for each one).
_KEEP_ATTRS = frozenset({"colspan", "rowspan", "data-lang"})
#: Inline wrappers with no markdown meaning; unwrapping them cuts markdownify's work in half.
_UNWRAP_TAGS = (
    "a",
    "span",
    "font",
    "abbr",
    "small",
    "big",
    "cite",
    "dfn",
    "bdi",
    "bdo",
    "wbr",
    "data",
    "time",
)

_translator = HTMLTranslator()


def _xpath(selectors: tuple[str, ...] | str) -> etree.XPath:
    if isinstance(selectors, str):
        selectors = (selectors,)
    exprs = [_translator.css_to_xpath(part.strip()) for sel in selectors for part in sel.split(",")]
    return etree.XPath(" | ".join(exprs))


@dataclass(frozen=True)
class SimpleSelector:
    """A compound selector (`tag.class#id[attr=value]`), matched in one Python pass over the tree."""

    tag: str | None
    classes: frozenset[str]
    id: str | None
    attrs: tuple[tuple[str, str | None], ...]

    @classmethod
    def parse(cls, text: str) -> SimpleSelector:
        m = _SIMPLE.fullmatch(text.strip())
        if not m:
            raise ValueError(f"not a simple compound selector: {text!r}")
        tag = m.group(1) or None
        classes, ident, attrs = set(), None, []
        for part in _PART.finditer(m.group(2) or ""):
            token = part.group(0)
            if token[0] == ".":
                classes.add(token[1:])
            elif token[0] == "#":
                ident = token[1:]
            else:
                name, _, value = token[1:-1].partition("=")
                attrs.append((name, value.strip("\"'") if value else None))
        return cls(tag, frozenset(classes), ident, tuple(attrs))

    def matches(self, el: etree._Element, el_classes: frozenset[str]) -> bool:
        if self.tag and el.tag != self.tag:
            return False
        if self.classes and not self.classes <= el_classes:
            return False
        if self.id and el.get("id") != self.id:
            return False
        return all(el.get(n) is not None if v is None else el.get(n) == v for n, v in self.attrs)


_SIMPLE = re.compile(r"([a-z][a-z0-9]*)?((?:\.[\w-]+|#[\w-]+|\[[\w-]+(?:=[^\]]+)?\])*)", re.I)
_PART = re.compile(r"\.[\w-]+|#[\w-]+|\[[^\]]+\]")


class SelectorSet:
    """Many simple selectors matched together: elements are bucketed by tag, classes tested as sets."""

    def __init__(self, selectors: tuple[str, ...]):
        parsed = [SimpleSelector.parse(s) for sel in selectors for s in sel.split(",")]
        self.bare_tags = frozenset(p.tag for p in parsed if p.tag and not (p.classes or p.id or p.attrs))
        rest = [p for p in parsed if not (p.tag and not (p.classes or p.id or p.attrs))]
        tags = {p.tag for p in parsed}
        self.tags: tuple[str, ...] = () if None in tags else tuple(sorted(tags))
        # Bucket by one required class, so an element is only tested against selectors naming its classes.
        self.by_class: dict[str, list[SimpleSelector]] = {}
        for p in rest:
            if p.classes:
                self.by_class.setdefault(min(p.classes), []).append(p)
        self.classless = tuple(p for p in rest if not p.classes)
        self.classless_attrs = frozenset(
            {n for p in self.classless for n, _ in p.attrs}
            | ({"id"} if any(p.id for p in self.classless) else set())
        )

    def matches(self, el: etree._Element) -> bool:
        # Hot loop (every element of a page): no allocation unless a class or attribute is a candidate.
        if el.tag in self.bare_tags:
            return True
        cls = el.get("class")
        tokens = cls.split() if cls else ()
        for c in tokens:
            if c in self.by_class:
                classes = frozenset(tokens)
                if any(p.matches(el, classes) for p in self.by_class[c]):
                    return True
        attrib = el.attrib
        if len(attrib) <= (1 if cls is not None else 0):  # only a class (most elements): no class-free match
            return False
        if not any(name in attrib for name in self.classless_attrs):
            return False
        return any(p.matches(el, frozenset(tokens)) for p in self.classless)

    def select(self, root: etree._Element) -> list[etree._Element]:
        """Outermost matches in document order (nothing inside a match is reported)."""
        # When every selector names its tag, lxml filters by tag in C and Python sees only those.
        elements = root.iter(*self.tags) if self.tags else root.iter(tag=etree.Element)
        found = [el for el in elements if el is not root and self.matches(el)]
        chosen = set(found)
        # Few matches, shallow trees: checking each match's ancestors beats testing every element's.
        return [el for el in found if not any(anc in chosen for anc in el.iterancestors())]


_MAIN = [_xpath(sel) for sel in MAIN_CONTENT_SELECTORS]
_NOISE = SelectorSet(NOISE_SELECTORS)
_ADMONITIONS = SelectorSet(ADMONITION_SELECTORS)
_INDEX_PAGES = SelectorSet(INDEX_PAGE_SELECTORS)
# XPath, not SelectorSet: these name rare classes of common tags (span), which lxml filters in C.
_PLAIN_EMPHASIS = _xpath(PLAIN_EMPHASIS_SELECTORS)
_CSS_PREFIXES = [(_xpath(sel), prefix) for sel, prefix in CSS_PREFIXES.items()]

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


def _parse(text: str) -> tuple[lxml.html.HtmlElement, bool]:
    """The tree (huge_tree: 2,048 levels, not 256), and whether the parser still had to drop deeper content."""
    parser = lxml.html.HTMLParser(huge_tree=True)  # one per call: lxml parsers are not thread-safe
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


def page_title(root: lxml.html.HtmlElement) -> str:
    """<title> (minus a ' — Site' suffix when an h1 agrees), else the first h1."""
    h1 = root.find(".//h1")
    h1_text = clean_heading(h1.text_content()) if h1 is not None else ""
    title = normalize_space(root.findtext(".//title") or "")
    if h1_text and (not title or title.startswith(h1_text)):
        title = h1_text
    title = title or h1_text or "(untitled)"
    return clip(title, MAX_TITLE_CHARS)


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


def strip_noise(main: lxml.html.HtmlElement) -> None:
    """Drop navigation, widgets, media and permalink anchors, in place."""
    for el in _NOISE.select(main):
        if el.getparent() is None:
            continue
        # An <header> that carries the page's heading (article > header > h1) is unwrapped, not dropped.
        if el.tag == "header" and _HEADINGS(el):
            el.drop_tag()
            continue
        el.drop_tree()
    for box in _ADMONITIONS.select(main):
        for h in box.iter(*HEADING_TAGS):
            h.tag = "p"
    for el in main.iter(etree.Comment, etree.ProcessingInstruction):
        if el.getparent() is not None:
            el.drop_tree()


def simplify(main: lxml.html.HtmlElement) -> None:
    """Flatten code blocks to text, unwrap inline noise and drop attributes: same markdown, far fewer nodes."""
    _label_admonitions(main)
    for pre in list(main.iter("pre")):
        lang = code_language(pre)
        text = pre.text_content()
        for child in list(pre):
            pre.remove(child)
        pre.text = _xml_text(text)
        if lang:
            pre.set("data-lang", lang)
    for em in _PLAIN_EMPHASIS(main):
        em.drop_tag()
    for selector, prefix in _CSS_PREFIXES:
        for el in selector(main):
            el.text = _xml_text(prefix + (el.text or ""))
    etree.strip_tags(main, *_UNWRAP_TAGS)
    _merge_adjacent_emphasis(main)  # after unwrapping: Sphinx links each type name, <a><em>int</em></a>
    # A div that only wraps one element (Sphinx: div.highlight-x > div.highlight > pre) means nothing in
    # markdown; unwrapping it spares markdownify hundreds of nodes on a big page.
    for div in list(main.iter("div")):
        if (
            div is not main
            and len(div) == 1
            and not (div.text or "").strip()
            and not (div[0].tail or "").strip()
        ):
            div.drop_tag()
    names: set[str] = set()
    for el in main.iter():
        names.update(el.attrib)
    drop = names - _KEEP_ATTRS
    if drop:
        etree.strip_attributes(main, *drop)


def _label_admonitions(main: lxml.html.HtmlElement) -> None:
    """A note box becomes a quote whose first line says its kind: `> **Note:** …`, not a bare "Note" line."""
    for box in _ADMONITIONS.select(main):
        first = next((c for c in box if isinstance(c.tag, str)), None)
        if first is None:
            continue
        classes = (first.get("class") or "").split()
        is_title = bool(set(classes) & ADMONITION_TITLE_CLASSES) or any(
            c.startswith(ADMONITION_TITLE_CLASS_PREFIXES) for c in classes
        )
        label = normalize_space(first.text_content()).rstrip(":") if is_title else ""
        if not label or len(label) > 60:
            continue
        box.text = None
        first.drop_tree()
        lead = next((c for c in box.iter("p") if normalize_space(c.text_content())), None)
        strong = lxml.html.Element("strong")
        strong.text = _xml_text(label[:1].upper() + label[1:] + ":")
        strong.tail = " " + (lead.text or "") if lead is not None else None
        if lead is not None:
            lead.text = None
            lead.insert(0, strong)
        else:
            para = lxml.html.Element("p")
            para.append(strong)
            box.insert(0, para)
        box.tag = "blockquote"


def _xml_text(text: str) -> str:
    """Text lxml accepts back: control characters become U+FFFD."""
    return _CONTROL.sub("\ufffd", text)


def _merge_adjacent_emphasis(main: lxml.html.HtmlElement) -> None:
    """`<em>Union</em><em>[</em><em>int</em>…` (Sphinx types) is one emphasis, not `*Union**[**int*`."""
    for em in list(main.iter("em")):
        if em.getparent() is None:
            continue
        nxt = em.getnext()
        while nxt is not None and nxt.tag == "em" and not (em.tail or "").strip():
            if len(em):
                em[-1].tail = _xml_text((em[-1].tail or "") + (em.tail or "") + (nxt.text or ""))
            else:
                em.text = _xml_text((em.text or "") + (em.tail or "") + (nxt.text or ""))
            em.extend(list(nxt))
            em.tail = nxt.tail
            em.getparent().remove(nxt)
            nxt = em.getnext()


def code_language(pre: lxml.html.HtmlElement) -> str:
    """The language a block declares on itself, its <code> (mdBook nests pre > pre > code) or a wrapper
    (Sphinx: highlight-LANG), nearest first.

    Any plain-text declaration comes back as PLAIN_TEXT_TAG, which keeps the block when code is left out.
    """
    declared = pre.get("data-lang", "").strip().lower()
    if declared:
        return PLAIN_TEXT_TAG if declared in PLAIN_TEXT_LANGUAGES else declared
    if _is_api_text(pre):
        return PLAIN_TEXT_TAG
    candidates = [pre.get("class", "")]
    code = pre.find(".//code")
    if code is not None:
        candidates.append(code.get("class", ""))
    parent = pre.getparent()
    for _ in range(2):
        if parent is None:
            break
        candidates.append(parent.get("class", ""))
        parent = parent.getparent()
    for cls in candidates:
        for m in _LANG.finditer(cls):
            lang = m.group(1).lower()
            if lang in PLAIN_TEXT_LANGUAGES:
                return PLAIN_TEXT_TAG
            if lang not in _NO_LANG:
                return lang
    return ""


_GRAMMAR_TOKEN = etree.XPath("descendant-or-self::*[starts-with(@id, $prefix)][1]")


def _is_api_text(pre: lxml.html.HtmlElement) -> bool:
    """Grammar and synopses are the API itself, not an example (see KEPT_CODE_CLASSES)."""
    parent = pre.getparent()
    for el in (pre, parent):
        if el is not None and set((el.get("class") or "").split()) & KEPT_CODE_CLASSES:
            return True
    return bool(_GRAMMAR_TOKEN(pre, prefix=GRAMMAR_ID_PREFIX))


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
