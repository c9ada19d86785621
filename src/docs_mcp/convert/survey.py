"""Survey of a page before it is simplified: its headings, their containers, definition groups and every id.

Simplification drops ids and classes; the walker that splits the page reads what it needs from here.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import lxml.html
from lxml import etree

from docs_mcp.convert.anchors import (
    IdRegistry,
    choose,
    element_ids,
    heading_elements,
    id_elements,
    place_anchors,
    slugify,
)
from docs_mcp.convert.definitions import Group, entry_title, find_groups, link_nested
from docs_mcp.convert.parsing import HEADING_TAGS, clean_heading, element_text
from docs_mcp.convert.shapes import find_rows, find_runs, hoist_swallowed_terms
from docs_mcp.settings import mechanism_on
from docs_mcp.themes import SECTION_CONTAINER_CLASSES


@dataclass
class Page:
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


def _entry_slug(name: str) -> str:
    """A generated id for a definition without one: its name slugged, `def` when nothing is left (`.`, `^`)."""
    slug = slugify(name)
    return slug if slug != "section" and sum(ch.isalnum() for ch in slug) >= 2 else "def"


def survey(main: lxml.html.HtmlElement, linked: Counter[str]) -> tuple[Page, IdRegistry]:
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
    hoist_swallowed_terms(main)  # with or without shape entries: the markdown is the same
    if mechanism_on("entries-shape"):
        find_runs(main, in_headings, groups)
        find_rows(main, groups)
    link_nested(main, groups)
    for g in dict.fromkeys(groups.values()):
        g.ids = [i for el in (*g.terms, *g.anchors) for i in element_ids(el)]
        g.name = entry_title(own_text(g.terms[0]))
        claimed.update(g.terms, g.anchors)
    per_group, markers = place_anchors(main, with_ids, claimed, holders, groups)
    group_ids: dict[Group, tuple[str, list[str]]] = {}
    for g in dict.fromkeys(groups.values()):
        candidates = list(dict.fromkeys([*g.ids, *per_group.get(g, ())]))
        primary = choose(g.ids, linked) or choose(candidates, linked)
        sid = registry.claim(primary, real=True) if primary else registry.claim(_entry_slug(g.name))
        group_ids[g] = (sid, [sid, *(c for c in candidates if c != sid)])
    page = Page(heading_ids, holders, containers, groups, group_ids, markers)
    return page, registry


def own_text(el: etree._Element) -> str:
    """Text of an element without its tail, code left out of the default markdown left out (it is not shown)."""
    return element_text(el, skip_code=True)
