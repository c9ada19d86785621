"""Texinfo's node bars (makeinfo, texi2any, texi2html): the Next / Previous / Up line before each node.

The bar is navigation: on a one-page manual its words ("Next: Command Substitution, Previous: …") end every
section and name the neighbours, not the section. A node's menu (`table.menu`, `ul.mini-toc`,
`ul.section-toc`) stays: its rows can carry each subnode's description, which answers.
"""

from __future__ import annotations

import re

from lxml import etree

from docs_mcp.convert.selectors import xpath
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

_LINE_BARS = xpath(LINE_BARS)
_ARROW_BARS = xpath(ARROW_BARS)
_LINKS = etree.XPath("descendant::a[@rel]")


def node_bars(main: etree._Element) -> list[etree._Element]:
    """Texinfo's Next / Previous / Up bars inside `main` (DOCSLICE_ABLATE=texinfo-bars keeps them)."""
    if not mechanism_on("texinfo-bars"):
        return []
    found = [
        el
        for el in _LINE_BARS(main)
        if any(set(a.get("rel", "").lower().split()) & BAR_RELS for a in _LINKS(el))
    ]
    for table in _ARROW_BARS(main):
        text = normalize_space(table.text_content())
        if text and _ONLY_BRACKETS.fullmatch(text):
            found.append(table)
    return found
