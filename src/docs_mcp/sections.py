"""Section stage: split a cleaned content tree (or a Markdown text) into sections by the heading outline."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

import lxml.html
from lxml import etree

from .config import SECTION_CONTAINER_CLASSES
from .document import Section
from .parsing import HEADING_TAGS, clean_heading, normalize_space, simplify

_HEADING_SET = frozenset(HEADING_TAGS)
_SLUG_DROP = re.compile(r"[^\w\s-]", re.UNICODE)
_SLUG_SPACE = re.compile(r"[\s_-]+")
_MD_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_MD_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_MD_ID = re.compile(r"\s*\{#([A-Za-z0-9_:.-]+)\}\s*$")


def slugify(text: str) -> str:
    """GitHub-style slug, keeping non-ASCII letters (Japanese headings get usable ids)."""
    slug = _SLUG_SPACE.sub("-", _SLUG_DROP.sub("", text.lower())).strip("-")
    return slug or "section"


class _IdRegistry:
    def __init__(self) -> None:
        self.used: set[str] = set()

    def claim(self, wanted: str) -> str:
        candidate, n = wanted, 1
        while candidate in self.used:
            n += 1
            candidate = f"{wanted}-{n}"
        self.used.add(candidate)
        return candidate


def _first_heading(el: etree._Element) -> etree._Element | None:
    return next(el.iter(*HEADING_TAGS), None)


def _is_container(el: etree._Element) -> bool:
    if el.tag == "section":
        return True
    classes = set((el.get("class") or "").split())
    return bool(classes & SECTION_CONTAINER_CLASSES)


def _wraps_only_its_heading(el: etree._Element) -> bool:
    """rustdoc's `summary > section#method.x > h4`: the last thing in its parent, with nothing after its heading.

    Its description follows outside it, so the wrapper marks a heading, not the extent of a section. An empty
    section followed by others (Sphinx's "Summary" before "New Features") is still a section of its own.
    """
    if any(isinstance(sib.tag, str) for sib in el.itersiblings()) or (el.tail or "").strip():
        return False
    h = _first_heading(el)
    node = h
    while node is not None and node is not el:
        if (node.tail or "").strip():
            return False
        for sib in node.itersiblings():
            if isinstance(sib.tag, str) and (
                any(t.strip() for t in sib.itertext()) or (sib.tail or "").strip()
            ):
                return False
        node = node.getparent()
    return h is not None


def heading_anchor(h: etree._Element, main: etree._Element) -> str:
    """A heading's id: its own, an anchor inside it, its section container's, or an anchor just before it."""
    if h.get("id"):
        return h.get("id")
    for a in h.iter("a"):
        if a.get("id") or a.get("name"):
            return a.get("id") or a.get("name")
    anc = h.getparent()
    # Up through the containers this heading opens; the content root counts too (a DocBook chapter page's
    # main container is the chapter div that carries the chapter's id).
    while anc is not None and _first_heading(anc) is h:
        if anc.get("id"):
            return anc.get("id")
        if anc is main:
            break
        anc = anc.getparent()
    prev = h.getprevious()
    if prev is not None and prev.tag == "a" and (prev.get("id") or prev.get("name")) and not len(prev):
        return prev.get("id") or prev.get("name")
    return ""


@dataclass
class _Open:
    id: str
    title: str
    level: int
    parent: str | None
    parts: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    #: Heading tag level (h2 → 2); `level` above is the level in the outline, at least its parent's + 1.
    tag_level: int = 0
    #: Section-container nesting depth where the heading stood.
    depth: int = 0


class _Walker:
    """Walks the tree in document order; a heading opens a section, a section container closes it."""

    def __init__(
        self,
        main: etree._Element,
        ids: dict[etree._Element, str],
        holders: set[etree._Element],
        containers: set[etree._Element],
    ):
        self.main = main
        self.ids = ids
        self.holders = holders
        self.containers = containers
        self.sections: list[_Open] = [_Open("", "", 0, None)]
        self.current = self.sections[0]
        self.stack: list[_Open] = []
        self.depth = 0

    def run(self) -> list[_Open]:
        self.visit(self.main)
        return self.sections

    def emit(self, fragment: str, text: str) -> None:
        self.current.parts.append(fragment)
        self.current.texts.append(text)

    def open(self, h: etree._Element) -> None:
        tag_level = int(h.tag[1])
        # A heading closes same-or-deeper sections, but never one opened outside its own container:
        # DocBook gives a chapter and its sect1s the same <h2>; the divs say which holds which.
        while self.stack and self.stack[-1].tag_level >= tag_level and self.stack[-1].depth >= self.depth:
            self.stack.pop()
        parent = self.stack[-1] if self.stack else None
        level = max(tag_level, parent.level + 1) if parent else tag_level
        self.current = _Open(
            self.ids[h],
            clean_heading(h.text_content()),
            level,
            parent.id if parent else None,
            tag_level=tag_level,
            depth=self.depth,
        )
        self.sections.append(self.current)
        self.stack.append(self.current)

    def visit(self, el: etree._Element) -> None:
        if el.text and el.text.strip():
            self.emit(html.escape(el.text), el.text)
        for child in el:
            if not isinstance(child.tag, str):
                pass
            elif child.tag in _HEADING_SET and child in self.ids:
                self.open(child)
            elif child in self.holders:
                if child in self.containers:
                    # Content after a nested section container closes belongs to the enclosing section again.
                    saved_stack, saved_current = list(self.stack), self.current
                    self.depth += 1
                    self.visit(child)
                    self.depth -= 1
                    self.stack, self.current = saved_stack, saved_current
                else:
                    self.visit(child)
            else:
                self.emit(lxml.html.tostring(child, encoding=str, with_tail=False), _own_text(child))
            if child.tail and child.tail.strip():
                self.emit(html.escape(child.tail), child.tail)


def split_html(main: lxml.html.HtmlElement) -> list[Section]:
    """Sections of a cleaned content tree, in document order; simplifies the tree as a side effect."""
    registry = _IdRegistry()
    headings = [h for h in main.iter(*HEADING_TAGS) if clean_heading(h.text_content())]
    ids: dict[etree._Element, str] = {}
    for h in headings:
        anchor = heading_anchor(h, main)
        ids[h] = registry.claim(anchor or slugify(clean_heading(h.text_content())))
    # Empty headings carry no outline information; they are dropped with their markup.
    for h in main.iter(*HEADING_TAGS):
        if h not in ids and h.getparent() is not None:
            h.drop_tree()
    # Elements that hold headings are walked into; the rest are emitted whole as blocks.
    holders: set[etree._Element] = set()
    for h in ids:
        for anc in h.iterancestors():
            if anc in holders:
                break
            holders.add(anc)
            if anc is main:
                break
    containers = {el for el in holders if _is_container(el) and not _wraps_only_its_heading(el)}
    simplify(main)
    opened = _Walker(main, ids, holders, containers).run()
    out = []
    for sec in opened:
        body = "".join(sec.parts)
        if sec.level == 0 and not body.strip():
            continue
        text = normalize_space(" ".join(sec.texts))
        if sec.level == 0 and not text:
            continue
        sid = sec.id or registry.claim("top")
        out.append(Section(sid, sec.title, sec.level, sec.parent, body_html=body, text=text))
    return out


#: Elements whose boundaries separate words; inline ones (code, em, b, …) do not.
_BLOCK_TAGS = frozenset(
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


def _own_text(el: etree._Element) -> str:
    """Text of an element without its tail; a space at block boundaries only, so words never merge or split."""
    parts: list[str] = []
    for event, node in etree.iterwalk(el, events=("start", "end")):
        if not isinstance(node.tag, str):
            continue
        block = node.tag in _BLOCK_TAGS
        if event == "start":
            if block:
                parts.append(" ")
            if node.text:
                parts.append(node.text)
        else:
            if block:
                parts.append(" ")
            if node is not el and node.tail:
                parts.append(node.tail)
    return "".join(parts)


def split_markdown(text: str) -> tuple[str, list[Section]]:
    """Sections of a Markdown page by ATX headings outside code fences; returns (title, sections)."""
    registry = _IdRegistry()
    sections: list[tuple[str, str, int, list[str]]] = [("", "", 0, [])]
    fence = ""
    for line in text.splitlines():
        m = _MD_FENCE.match(line)
        if m:
            marker = m.group(1)
            if not fence:
                fence = marker
            elif (
                marker[0] == fence[0]
                and len(marker) >= len(fence)
                and not line.strip()[len(marker) :].strip()
            ):
                fence = ""
        h = None if fence or m else _MD_HEADING.match(line)
        if h:
            title = h.group(2)
            explicit = _MD_ID.search(title)
            if explicit:
                title = title[: explicit.start()]
            title = clean_heading(title)
            sid = registry.claim(explicit.group(1) if explicit else slugify(title))
            sections.append((sid, title, len(h.group(1)), []))
        else:
            sections[-1][3].append(line)
    out: list[Section] = []
    stack: list[Section] = []
    for sid, title, level, lines in sections:
        body = "\n".join(lines).strip("\n")
        if level == 0:
            if body.strip():
                out.append(
                    Section(registry.claim("top"), "", 0, None, body_md=body, text=normalize_space(body))
                )
            continue
        while stack and stack[-1].level >= level:
            stack.pop()
        sec = Section(
            sid, title, level, stack[-1].id if stack else None, body_md=body, text=normalize_space(body)
        )
        out.append(sec)
        stack.append(sec)
    first = next((s.title for s in out if s.level == 1), "") or next((s.title for s in out if s.level), "")
    return first, out
