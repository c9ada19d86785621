"""Texinfo's navigation (makeinfo, texi2any, texi2html): the Next / Previous / Up bar before each node, and a
node's menu when its rows carry no description.

The bar's words ("Next: Command Substitution, Previous: …") end every section and name the neighbours, not the
section. A menu row without a description is only a subnode's name, which the subnode's own page holds: on
the parent's page it lets the parent outrank the subnode for its own title. A menu whose rows describe their
nodes (`table.menu` with a third cell) stays: a description can be the answer.
"""

from __future__ import annotations

import re

from lxml import etree

from docs_mcp.convert.selectors import SelectorGroups
from docs_mcp.settings import mechanism_on
from docs_mcp.text.tidy import normalize_space

#: makeinfo 6's `div.header` and Texinfo 7's `div.nav-panel`: a bar when its links say rel next / prev / up
#: (Doxygen's `div.header` holds the page's title and summary links, no such rel, and is kept).
LINE_BARS = ("div.header", "div.nav-panel")
BAR_RELS = frozenset({"next", "prev", "previous", "up"})
#: texi2html's and texi2any's `table.header`: the arrow bar [ << ] [ < ] [ Up ] [ > ] [ >> ] [Top] [Contents].
ARROW_BARS = ("table.header",)
#: An arrow bar's text: nothing but bracketed link words (a table.header holding prose is kept).
_ONLY_BRACKETS = re.compile(r"(?:\[[^\[\]]{0,40}\]\s*)+")

#: Menus that never carry descriptions (makeinfo 6's `ul.section-toc`, Texinfo 7's `ul.mini-toc`), and
#: makeinfo's `table.menu`, whose rows hold the node's link, a spacer and the description (often empty).
BARE_MENUS = ("ul.section-toc", "ul.mini-toc")
MENU_TABLES = ("table.menu",)

#: The four kinds, found in one walk of the content.
_KINDS = SelectorGroups((LINE_BARS, ARROW_BARS, BARE_MENUS, MENU_TABLES))
_DESCRIPTIONS = etree.XPath("descendant::tr/td[position() > 2]")
_LINKS = etree.XPath("descendant::a[@rel]")
#: What Texinfo's HTML names as its generator on every page: makeinfo 4-6 (`makeinfo`, `makeinfo 4.13`), Texinfo
#: 7's texi2any and texi2html (`texi2html 1.82`), in a <meta name="Generator"> of the head.
_GENERATORS = re.compile(r"(?:makeinfo|texi2any|texi2html)\b", re.I)


def texinfo_page(root: etree._Element) -> bool:
    """Whether a parsed page says Texinfo wrote it (its <meta name="generator">): only such a page's bars and
    menus are looked for, since other generators' `div.header` (Javadoc's, Doxygen's) match the selectors too."""
    head = root.find("head")
    if head is None:
        return False
    for meta in head.iterchildren("meta"):
        if (meta.get("name") or "").lower() == "generator" and _GENERATORS.match(
            (meta.get("content") or "").lstrip()
        ):
            return True
    return False


def node_navigation(main: etree._Element, texinfo: bool | None = None) -> list[etree._Element]:
    """Texinfo's bars and menus without descriptions inside `main`, on a page Texinfo wrote (`texinfo`: whether
    it did, when the caller knows; else `texinfo_page` of main's document). DOCSLICE_ABLATE=texinfo-nav keeps
    them."""
    if not mechanism_on("texinfo-nav"):
        return []
    if not (texinfo_page(main.getroottree().getroot()) if texinfo is None else texinfo):
        return []
    line_bars, arrow_bars, bare_menus, menu_tables = _KINDS.select(main)
    found = [
        el for el in line_bars if any(set(a.get("rel", "").lower().split()) & BAR_RELS for a in _LINKS(el))
    ]
    for table in arrow_bars:
        text = normalize_space(table.text_content())
        if text and _ONLY_BRACKETS.fullmatch(text):
            found.append(table)
    found += bare_menus
    found += [
        t for t in menu_tables if not any(normalize_space(td.text_content()) for td in _DESCRIPTIONS(t))
    ]
    return found
