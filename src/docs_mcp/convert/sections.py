"""Section stage: split a cleaned content tree (or a Markdown text) into sections by the heading outline."""

from __future__ import annotations

import html
import time
from collections import Counter
from dataclasses import dataclass, field, replace

import lxml.html
from lxml import etree

from docs_mcp.convert.anchors import (
    ANCHOR_TAG,
    IdRegistry,
    choose,
    element_ids,
    heading_elements,
    id_elements,
    place_anchors,
    slugify,
)
from docs_mcp.convert.definitions import Group, defined_name, entry_title, find_groups, is_label, mark
from docs_mcp.convert.parsing import HEADING_TAGS, clean_heading, element_text, normalize_space, simplify
from docs_mcp.model.document import Entry, Section
from docs_mcp.settings import MAX_TITLE_CHARS, PAGE_SPLIT_SECONDS
from docs_mcp.text.tidy import clip
from docs_mcp.themes import PLAIN_TEXT_TAG, SECTION_CONTAINER_CLASSES

__all__ = ["slugify", "split_html"]

_HEADING_SET = frozenset(HEADING_TAGS)


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


@dataclass
class _Open:
    id: str
    title: str
    level: int
    parent: str | None
    parts: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    anchors: list[str] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    code_words: int = 0
    #: Heading tag level (h2 → 2); `level` above is the level in the outline, at least its parent's + 1.
    tag_level: int = 0
    #: Section-container nesting depth where the heading stood.
    depth: int = 0


@dataclass
class _Page:
    """What the walker needs to know about a page, found before its tree was simplified."""

    #: Heading element → (unit id, every id that resolves to its section).
    headings: dict[etree._Element, tuple[str, list[str]]]
    holders: set[etree._Element]
    containers: set[etree._Element]
    #: dt/dd element → its definition group; group → (unit id, ids).
    groups: dict[etree._Element, Group]
    group_ids: dict[Group, tuple[str, list[str]]]
    #: x-anchor element → the ids found in the block after it.
    markers: dict[etree._Element, list[str]]


class _Walker:
    """Walks the tree in document order; a heading opens a section, a section container closes it."""

    def __init__(self, main: etree._Element, page: _Page, deadline: float):
        self.main = main
        self.page = page
        self.deadline = deadline
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
        sid, anchors = self.page.headings[h]
        self.current = _Open(
            sid,
            clip(clean_heading(h.text_content()), MAX_TITLE_CHARS),
            level,
            parent.id if parent else None,
            anchors=list(anchors),
            tag_level=tag_level,
            depth=self.depth,
        )
        self.sections.append(self.current)
        self.stack.append(self.current)

    def block(self, child: etree._Element) -> None:
        """Emit a block; definition entries in it become units of the current section, marked in its HTML."""
        groups = self.page.groups
        found = [g for dt in child.iter("dt") if (g := groups.get(dt)) is not None and dt is g.terms[0]]
        # Every term names what the section defines (site search weighs these names like headings).
        self.current.names.extend(n for g in found for dt in g.terms if (n := defined_name(_own_text(dt))))
        # A term with no description (Django's `.. method::` followed by unindented text) or a label ending
        # in a colon is part of the section, not a unit: its ids name the section.
        for g in [
            g for g in found if is_label(g.name) or not any(t.strip() for b in g.bodies for t in b.itertext())
        ]:
            found.remove(g)
            self.current.anchors.extend(self.page.group_ids[g][1])
        if not found:
            self.emit(lxml.html.tostring(child, encoding=str, with_tail=False), _own_text(child))
            self.current.code_words += _code_words(child)
            return
        sec = self.current
        index = {g: len(sec.entries) + k for k, g in enumerate(found)}
        for g in found:
            sid, anchors = self.page.group_ids[g]
            sec.entries.append(Entry(sid, g.name, index.get(g.parent, -1), tuple(anchors)))
        text = _own_text(child)
        for g in found:
            mark(g, index[g])
        sec.parts.append(lxml.html.tostring(child, encoding=str, with_tail=False))
        sec.texts.append(text)
        sec.code_words += _code_words(child)

    def visit(self, el: etree._Element) -> None:
        if el.text and el.text.strip():
            self.emit(html.escape(el.text), el.text)
        for child in el:
            if not isinstance(child.tag, str):
                pass
            elif child.tag == ANCHOR_TAG:
                self.current.anchors.extend(self.page.markers.get(child, ()))
            elif child.tag in _HEADING_SET and child in self.page.headings:
                self.open(child)
            elif child in self.page.holders:
                if child in self.page.containers:
                    # Content after a nested section container closes belongs to the enclosing section again.
                    saved_stack, saved_current = list(self.stack), self.current
                    self.depth += 1
                    self.visit(child)
                    self.depth -= 1
                    self.stack, self.current = saved_stack, saved_current
                else:
                    self.visit(child)
            else:
                if time.monotonic() > self.deadline:
                    raise _OverBudget
                self.block(child)
            if child.tail and child.tail.strip():
                self.emit(html.escape(child.tail), child.tail)


def _entry_slug(name: str) -> str:
    """A generated id for a definition without one: its name slugged, `def` when nothing is left (`.`, `^`)."""
    slug = slugify(name)
    return slug if slug != "section" and sum(ch.isalnum() for ch in slug) >= 2 else "def"


def _survey(main: lxml.html.HtmlElement, linked: Counter[str]) -> tuple[_Page, IdRegistry]:
    """Headings, their containers, definition groups and every id, read before simplification drops ids."""
    headings = [h for h in main.iter(*HEADING_TAGS) if clean_heading(h.text_content())]
    keep = set(headings)
    # Empty headings carry no outline information; they are dropped with their markup.
    for h in list(main.iter(*HEADING_TAGS)):
        if h not in keep and h.getparent() is not None:
            h.drop_tree()
    # Elements that hold headings are walked into; the rest are emitted whole as blocks.
    holders: set[etree._Element] = set()
    for h in headings:
        for anc in h.iterancestors():
            if anc in holders:
                break
            holders.add(anc)
            if anc is main:
                break
    containers = {el for el in holders if _is_container(el) and not _wraps_only_its_heading(el)}
    with_ids = id_elements(main)
    registry = IdRegistry(i for el in with_ids for i in element_ids(el))
    claimed: set[etree._Element] = set()
    heading_ids: dict[etree._Element, tuple[str, list[str]]] = {}
    for h in headings:
        elements = [e for e in heading_elements(h, main) if e not in claimed]
        claimed.update(elements)
        candidates = list(dict.fromkeys(i for e in elements for i in element_ids(e)))
        primary = choose(candidates, linked)
        title = clean_heading(h.text_content())
        sid = registry.claim(primary, real=True) if primary else registry.claim(slugify(title))
        heading_ids[h] = (sid, [sid, *(c for c in candidates if c != sid)])
    in_headings = {dl for h in headings for dl in h.iter("dl")}
    groups = find_groups(main, in_headings)
    for g in dict.fromkeys(groups.values()):
        g.ids = [i for dt in g.terms for i in element_ids(dt)]
        g.name = entry_title(_own_text(g.terms[0]))
        claimed.update(g.terms)
    per_group, markers = place_anchors(main, with_ids, claimed, holders, groups)
    group_ids: dict[Group, tuple[str, list[str]]] = {}
    for g in dict.fromkeys(groups.values()):
        candidates = list(dict.fromkeys([*g.ids, *per_group.get(g, ())]))
        primary = choose(g.ids, linked) or choose(candidates, linked)
        sid = registry.claim(primary, real=True) if primary else registry.claim(_entry_slug(g.name))
        group_ids[g] = (sid, [sid, *(c for c in candidates if c != sid)])
    page = _Page(heading_ids, holders, containers, groups, group_ids, markers)
    return page, registry


class _OverBudget(Exception):
    """Splitting a page took longer than PAGE_SPLIT_SECONDS."""


def split_html(
    main: lxml.html.HtmlElement, linked: Counter[str] | None = None, budget: float = PAGE_SPLIT_SECONDS
) -> list[Section]:
    """Sections of a cleaned content tree, in document order; simplifies the tree as a side effect.

    `linked` counts the page's links to each of its own ids (see anchors.linked_fragments): a unit is named by
    the id its site links to. A page that takes longer than `budget` seconds to split is served as one
    section that says so.
    """
    started = time.monotonic()
    page, registry = _survey(main, linked or Counter())
    root_ids = element_ids(main)
    simplify(main)
    try:
        opened = _Walker(main, page, started + budget).run()
    except _OverBudget:
        note = (
            f"<p>[docslice: this page took over {budget:g} s to split into sections; it is one section]</p>"
        )
        body = note + lxml.html.tostring(main, encoding=str, with_tail=False)
        return [Section("top", "", 0, None, body_html=body, text=normalize_space(main.text_content()))]
    out = []
    for sec in opened:
        body = "".join(sec.parts)
        if sec.level == 0 and not body.strip():
            continue
        text = normalize_space(" ".join(sec.texts))
        if sec.level == 0 and not text:
            continue
        sid = sec.id or registry.claim("top")
        anchors = list(dict.fromkeys([sid, *sec.anchors]))
        out.append(
            Section(
                sid,
                sec.title,
                sec.level,
                sec.parent,
                body_html=body,
                text=text,
                anchors=tuple(anchors),
                entries=tuple(sec.entries),
                names=tuple(sec.names),
                code_words=sec.code_words,
            )
        )
    if out and root_ids:  # the content root's own id names the page's first unit
        first = out[0]
        extra = tuple(i for i in root_ids if i not in first.anchors)
        out[0] = replace(first, anchors=first.anchors + extra)
    return out


def _code_words(el: etree._Element) -> int:
    """Words in the code blocks under `el` that the default markdown leaves out."""
    return sum(
        len((pre.text or "").split()) for pre in el.iter("pre") if pre.get("data-lang") != PLAIN_TEXT_TAG
    )


def _own_text(el: etree._Element) -> str:
    """Text of an element without its tail, code left out of the default markdown left out (it is not shown)."""
    return element_text(el, skip_code=True)
