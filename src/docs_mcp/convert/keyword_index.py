"""A site's own keyword index (Sphinx genindex, DocBook bookindex, Javadoc index-files, Texinfo indexes) read
as term → link entries: the words the authors filed a passage under, which the passage itself may not use."""

from __future__ import annotations

import re
from dataclasses import dataclass

import lxml.html
from lxml import etree

from docs_mcp.convert.selectors import xpath
from docs_mcp.text.tidy import normalize_space
from docs_mcp.themes import KEYWORD_INDEX_SELECTORS

#: Entries read from one page at most: Javadoc's index of the JDK has ~45,000 on one letter's page.
MAX_INDEX_ENTRIES = 50_000
#: Longest term kept (a term is a name or a short phrase; longer is a description).
MAX_TERM_CHARS = 160
_CONTAINERS = xpath(KEYWORD_INDEX_SELECTORS)
_ENTRIES = etree.XPath("descendant::dt | descendant::li | descendant::tr")
#: Sublists of an entry hold its subentries, not its own term or links.
_NESTED = frozenset({"ul", "ol", "dl", "dd"})
#: Sphinx repeats a term's further targets as "[1]", "[2]".
_MORE_TARGETS = re.compile(r"^\[\d+\]$")
#: Sphinx's kind suffix ("(class in django.forms)", "(built-in function)") and DocBook's "see also" lead-in.
_KIND = re.compile(r"(?<!\s)\s*\([^()]*\)\s*$")
_SEE = re.compile(r"\(?\bsee(?:\s+also)?\s*$", re.I)
_PUNCT = " ,:;-–—"


@dataclass(frozen=True)
class KeywordEntry:
    """One index entry: its term (parent terms first) and the link it files the term under, as written."""

    term: str
    href: str


def keyword_entries(root: lxml.html.HtmlElement) -> list[KeywordEntry]:
    """Every term → link entry of the page's keyword indexes; nothing on a page without one."""
    out: list[KeywordEntry] = []
    terms: dict[etree._Element, str] = {}
    for container in _CONTAINERS(root):
        entries = _ENTRIES(container)
        ids = {el.get("id"): el for el in entries if el.get("id")}
        for el in entries:
            own, links = _own(el)
            term = _term(own, links)
            parent = _parent(el, container)
            full = normalize_space(f"{terms.get(parent, '')} {term}") if parent is not None else term
            terms[el] = full
            if not full or len(full) > MAX_TERM_CHARS:
                continue
            out += [KeywordEntry(full, href) for href in _targets(ids, own, links)]
            if len(out) >= MAX_INDEX_ENTRIES:
                return out[:MAX_INDEX_ENTRIES]
    return out


def _own(el: etree._Element) -> tuple[str, list[etree._Element]]:
    """The entry's own text before its first link, and its own links (sublists left out)."""
    before: list[str] = []
    links: list[etree._Element] = []

    def walk(node: etree._Element) -> None:
        if node is not el and node.tag in _NESTED:
            return
        if node.tag == "a" and node.get("href") is not None:
            links.append(node)
        else:
            if not links and isinstance(node.tag, str) and node.text:
                before.append(node.text)
            for child in node:
                walk(child)
                if not links and child.tail:
                    before.append(child.tail)

    walk(el)
    return normalize_space("".join(before)), links


def _term(own: str, links: list[etree._Element]) -> str:
    """The entry's term: its text before the links (DocBook), else its first link's text (Sphinx, Javadoc,
    Texinfo); the kind suffix and a trailing "see also" dropped."""
    text = _SEE.sub("", own).strip(_PUNCT)
    if not text and links and not _SEE.search(own):  # "(see also X)" is filed under its parent's term
        text = normalize_space(links[0].text_content())
    return _KIND.sub("", text).strip(_PUNCT)


def _targets(ids: dict[str, etree._Element], own: str, links: list[etree._Element]) -> list[str]:
    """Where the entry files its term: every link after a written term; else the first link and Sphinx's
    "[n]" repeats. A link to another entry of the index ("see also") stands for that entry's links."""
    if not _SEE.sub("", own).strip(_PUNCT):
        links = links[:1] + [a for a in links[1:] if _MORE_TARGETS.match(normalize_space(a.text_content()))]
    out = []
    for a in links:
        href = a.get("href", "").strip()
        if href.startswith("#"):
            seen = ids.get(href[1:])
            out += [] if seen is None else [b.get("href", "") for b in _own(seen)[1]]
        elif href:
            out.append(href)
    return [h for h in dict.fromkeys(out) if h and not h.startswith("#")]


def _parent(el: etree._Element, container: etree._Element) -> etree._Element | None:
    """The entry this one is a subentry of: the enclosing list item, or the term before the enclosing `dd`."""
    node = el.getparent()
    while node is not None and node is not container:
        if node.tag == "li" and el.tag == "li":
            return node
        if node.tag == "dd" and el.tag == "dt":
            prev = node.getprevious()
            while prev is not None and prev.tag != "dt":
                prev = prev.getprevious()
            return prev
        node = node.getparent()
    return None
