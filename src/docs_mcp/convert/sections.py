"""Section stage: split a cleaned content tree into sections by the heading outline (Markdown: mdsource.py)."""

from __future__ import annotations

import html
import time
from collections import Counter
from dataclasses import dataclass, field, replace

import lxml.html
from lxml import etree

from docs_mcp.convert.anchors import ANCHOR_TAG, element_ids, slugify
from docs_mcp.convert.definitions import defined_name, is_label, mark, unmarked
from docs_mcp.convert.parsing import HEADING_TAGS, cap_headings, clean_heading
from docs_mcp.convert.simplify import simplify
from docs_mcp.convert.survey import Page, own_text, survey
from docs_mcp.model.section import Entry, Section
from docs_mcp.settings import MAX_PAGE_SECTIONS, MAX_TITLE_CHARS, PAGE_SPLIT_SECONDS
from docs_mcp.text.tidy import clip, normalize_space
from docs_mcp.themes import PLAIN_TEXT_TAG

__all__ = ["slugify", "split_html"]

_HEADING_SET = frozenset(HEADING_TAGS)


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
    #: Each entry's own words (normalized), to find its span in the section's text.
    entry_texts: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    code_words: int = 0
    #: Heading tag level (h2 → 2); `level` above is the level in the outline, at least its parent's + 1.
    tag_level: int = 0
    #: Section-container nesting depth where the heading stood.
    depth: int = 0


class _Walker:
    """Walks the tree in document order; a heading opens a section, a section container closes it."""

    def __init__(self, main: etree._Element, page: Page, deadline: float):
        self.main = main
        self.page = page
        self.deadline = deadline
        self.sections: list[_Open] = [_Open("", "", 0, None)]
        self.current = self.sections[0]
        self.stack: list[_Open] = []
        self.depth = 0
        self.noted = False

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
        found = [g for el in child.iter() if (g := groups.get(el)) is not None and el is g.terms[0]]
        # Every term names what the section defines (site search weighs these names like headings).
        self.current.names.extend(n for g in found for dt in g.terms if (n := defined_name(own_text(dt))))
        # A term with no description (Django's `.. method::` followed by unindented text) or a label ending
        # in a colon is part of the section, not a unit: its ids name the section.
        for g in [
            g for g in found if is_label(g.name) or not any(t.strip() for b in g.bodies for t in b.itertext())
        ]:
            found.remove(g)
            self.current.anchors.extend(self.page.group_ids[g][1])
        if not found:
            self.emit(lxml.html.tostring(child, encoding=str, with_tail=False), unmarked(own_text(child)))
            self.current.code_words += _code_words(child)
            return
        sec = self.current
        index = {g: len(sec.entries) + k for k, g in enumerate(found)}
        for g in found:
            sid, anchors = self.page.group_ids[g]
            sec.entries.append(Entry(sid, g.name, index.get(g.parent, -1), tuple(anchors)))
        text = unmarked(own_text(child))
        sec.entry_texts.extend(
            normalize_space(unmarked(" ".join(own_text(e) for e in g.elements))) for g in found
        )
        for g in found:
            mark(g, index[g])
        sec.parts.append(lxml.html.tostring(child, encoding=str, with_tail=False))
        sec.texts.append(text)
        sec.code_words += _code_words(child)

    def full(self) -> bool:
        """Whether the page has MAX_PAGE_SECTIONS units, page-level ones too: what follows is text of the last."""
        if len(self.sections) < MAX_PAGE_SECTIONS:
            return False
        # The preamble is a unit only when it holds text (it usually holds none: the page opens on a heading).
        first = not self.noted and len(self.sections) == MAX_PAGE_SECTIONS
        if first and not any(t.strip() for t in self.sections[0].texts):
            return False
        if not self.noted:
            self.noted = True
            note = f"[docslice: this page has over {MAX_PAGE_SECTIONS:,} units; the rest is text of the last one]"
            self.emit(f"<p>{note}</p>", note)
        return True

    def resume(self, outer: _Open) -> _Open:
        """Where content after a closed section container goes: the section enclosing it, else a page-level unit."""
        # Outside every section the enclosing unit is the preamble, printed first: content there (footnotes, a
        # copyright footer) would jump to the top of the page, so it opens a unit after the sections just closed.
        if outer.level or outer is self.sections[-1]:
            return outer
        if self.full():
            return self.sections[-1]
        unit = _Open("", "", 0, None)
        self.sections.append(unit)
        return unit

    def visit(self, el: etree._Element) -> None:
        if el.text and el.text.strip():
            self.emit(html.escape(el.text), el.text)
        for child in el:
            if not isinstance(child.tag, str):
                pass
            elif child.tag == ANCHOR_TAG:
                self.current.anchors.extend(self.page.markers.get(child, ()))
            elif child.tag in _HEADING_SET and child in self.page.headings:
                if self.full():  # a paragraph of the last unit; its ids lead there
                    self.current.anchors.extend([self.page.headings[child][0], *self.page.headings[child][1]])
                    child.tag = "p"
                    self.block(child)
                else:
                    self.open(child)
            elif child in self.page.holders:
                if child in self.page.containers:
                    # Content after a nested section container closes belongs to the enclosing section again.
                    saved_stack, saved_current = list(self.stack), self.current
                    self.depth += 1
                    self.visit(child)
                    self.depth -= 1
                    self.stack, self.current = saved_stack, self.resume(saved_current)
                else:
                    self.visit(child)
            else:
                if time.thread_time() > self.deadline:
                    raise _OverBudget
                self.block(child)
            if child.tail and child.tail.strip():
                self.emit(html.escape(child.tail), child.tail)


class _OverBudget(Exception):
    """Splitting a page took longer than PAGE_SPLIT_SECONDS."""


def split_html(
    main: lxml.html.HtmlElement, linked: Counter[str] | None = None, budget: float = PAGE_SPLIT_SECONDS
) -> list[Section]:
    """Sections of a cleaned content tree, in document order; simplifies the tree as a side effect.

    `linked` counts the page's links to each of its own ids (see anchors.linked_fragments): a unit is named by
    the id its site links to. A page that takes longer than `budget` seconds to split is served as one
    section that says so (this thread's CPU seconds: on a loaded machine, waiting for a core is not splitting).
    """
    started = time.thread_time()
    page, registry = survey(cap_headings(main), linked or Counter())
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
    for k, sec in enumerate(opened):
        body = "".join(sec.parts)
        if sec.level == 0 and not body.strip():
            continue
        text = normalize_space(" ".join(sec.texts))
        if sec.level == 0 and not text:
            continue
        sid = sec.id or registry.claim("end" if k else "top")
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
                entries=_with_spans(sec.entries, sec.entry_texts, text),
                names=tuple(sec.names),
                code_words=sec.code_words,
            )
        )
    if out and root_ids:  # the content root's own id names the page's first unit
        first = out[0]
        extra = tuple(i for i in root_ids if i not in first.anchors)
        out[0] = replace(first, anchors=first.anchors + extra)
    return out


def _with_spans(entries: list[Entry], texts: list[str], text: str) -> tuple[Entry, ...]:
    """Entries with where their words lie in the section's text (in order; a nested one inside its parent)."""
    out, cursor = [], 0
    for entry, words in zip(entries, texts, strict=True):
        at = text.find(words, cursor) if words else -1
        if at < 0:
            out.append(entry)
            continue
        out.append(replace(entry, text_span=(at, at + len(words))))
        cursor = at + 1
    return tuple(out)


def _code_words(el: etree._Element) -> int:
    """Words in the code blocks under `el` that the default markdown leaves out."""
    return sum(
        len((pre.text or "").split()) for pre in el.iter("pre") if pre.get("data-lang") != PLAIN_TEXT_TAG
    )
