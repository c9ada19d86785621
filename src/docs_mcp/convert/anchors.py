"""Anchors: every id in a page's content resolves to the smallest unit that holds it.

A unit (a section or a definition entry) is named by the id the site's own links use: of all the ids that
resolve to it, the one its pages link to most (`#select-related`, not Django's container `#s-select-related`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from urllib.parse import unquote, urlsplit

import lxml.html
from lxml import etree

from docs_mcp.settings import MAX_ID_CHARS

_SLUG_DROP = re.compile(r"[^\w\s-]", re.UNICODE)
_SLUG_SPACE = re.compile(r"[\s_-]+")
#: The element the walker meets in place of ids found in a block's content (see place_anchors).
ANCHOR_TAG = "x-anchor"


def slugify(text: str) -> str:
    """GitHub-style slug, keeping non-ASCII letters (Japanese headings get usable ids)."""
    slug = _SLUG_SPACE.sub("-", _SLUG_DROP.sub("", text.lower())).strip("-")
    return slug[:MAX_ID_CHARS].rstrip("-") or "section"


class IdRegistry:
    """Unique unit ids: real ids are reserved up front, so a generated slug never takes one of them."""

    def __init__(self, reserved: Iterable[str] = ()) -> None:
        self.used: set[str] = set()
        self.reserved = set(reserved)
        #: Next suffix to try per base: 20,000 units wanting one id cost O(n), not O(n²).
        self._next: dict[str, int] = {}

    def claim(self, wanted: str, real: bool = False) -> str:
        """`wanted` if free (a real id may take its own reserved name), else `wanted-2`, `wanted-3`, …"""
        if wanted not in self.used and (real or wanted not in self.reserved):
            self.used.add(wanted)
            return wanted
        n = self._next.get(wanted, 2)
        candidate = f"{wanted}-{n}"
        while candidate in self.used or candidate in self.reserved:
            n += 1
            candidate = f"{wanted}-{n}"
        self._next[wanted] = n + 1
        self.used.add(candidate)
        return candidate


def element_ids(el: etree._Element) -> list[str]:
    """The anchors an element defines: its id, and an <a>'s name; overlong ones are not link targets."""
    out = []
    for value in (el.get("id"), el.get("name") if el.tag == "a" else None):
        if value and len(value) <= MAX_ID_CHARS and value not in out:
            out.append(value)
    return out


_WITH_ID = etree.XPath("descendant-or-self::*[@id] | descendant::a[@name]")


def id_elements(main: etree._Element) -> list[etree._Element]:
    """The elements that define an anchor, in document order (found in C: most elements have none)."""
    return _WITH_ID(main)


def linked_fragments(root: etree._Element, url: str) -> Counter[str]:
    """How often the page links to each of its own fragments (`#x`, `page.html#x`): the ids its site uses."""
    page = urlsplit(url).path.rsplit("/", 1)[-1]
    counts: Counter[str] = Counter()
    for href in root.xpath("//a/@href"):
        path, sep, frag = str(href).partition("#")
        if sep and frag and (not path or path.rsplit("/", 1)[-1] == page):
            counts[unquote(frag)] += 1
    return counts


def choose(candidates: list[str], linked: Counter[str]) -> str | None:
    """The most linked candidate; ties go to the earliest (the heading's own id before its container's)."""
    if not candidates:
        return None
    return max(enumerate(candidates), key=lambda kv: (linked[kv[1]], -kv[0]))[1]


def preceding_empty(el: etree._Element) -> list[etree._Element]:
    """Empty elements right before `el` (Sphinx and Django label spans, DocBook `<a id>`), nearest first."""
    out = []
    prev = el.getprevious()
    while (
        prev is not None
        and isinstance(prev.tag, str)
        and not len(prev)
        and not (prev.text or "").strip()
        and not (prev.tail or "").strip()
    ):
        out.append(prev)
        prev = prev.getprevious()
    return out


def heading_elements(h: etree._Element, main: etree._Element) -> list[etree._Element]:
    """Elements whose ids name heading `h`'s section, in priority order.

    The heading, the elements inside it, the containers it opens (the content root too: a DocBook chapter
    page's root is the chapter div with the chapter's id), and empty label elements just before it or them.
    """
    first = [h, *h.iterdescendants()]
    opened = []
    anc = h.getparent()
    while anc is not None and next(anc.iter("h1", "h2", "h3", "h4", "h5", "h6"), None) is h:
        opened.append(anc)
        if anc is main:
            break
        anc = anc.getparent()
    labels = preceding_empty(h)
    for c in opened:
        if c is not main:
            labels.extend(preceding_empty(c))
    return first + opened + labels


def place_anchors(
    main: lxml.html.HtmlElement,
    elements: list[etree._Element],
    claimed: set[etree._Element],
    holders: set[etree._Element],
    owner_of: dict[etree._Element, object],
) -> tuple[dict[object, list[str]], dict[etree._Element, list[str]]]:
    """Ids not already naming a unit: to the definition entry holding them, else to the section they are in.

    `elements` are the page's id-bearing elements (see id_elements); `claimed` ones' ids are taken already
    (headings' and entries' own). `owner_of` maps each entry's dt/dd to the
    entry. An id elsewhere in a block becomes an `x-anchor` element placed just before the block, so the
    section walker meets it where the block is (simplification drops the ids themselves, and the span or
    `<a>` that carried one).
    Returns (ids per entry, ids per x-anchor).
    """
    per_owner: dict[object, list[str]] = {}
    per_block: dict[etree._Element, list[str]] = {}
    for el in elements:
        if el in claimed:
            continue
        ids = element_ids(el)
        if not ids:
            continue
        node, owner, block = el, None, el
        while node is not None and node is not main:
            owner = owner_of.get(node)
            if owner is not None:
                break
            parent = node.getparent()
            if parent in holders or parent is main:
                block = node
                break
            node = parent
        if owner is not None:
            per_owner.setdefault(owner, []).extend(ids)
        elif el is not main:
            per_block.setdefault(block, []).extend(ids)
    markers = {}
    for block, ids in per_block.items():
        marker = lxml.html.Element(ANCHOR_TAG)
        block.addprevious(marker)
        markers[marker] = ids
    return per_owner, markers
