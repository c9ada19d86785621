"""What a page hides from its reader (themes.HIDDEN_*): `hidden` and `aria-hidden` elements, templates, closed
dialogs, screen-reader-only text and inline styles that hide (display, visibility, a zero font size, a place
off-screen). Their text is neither served nor indexed, and their links give their target no words."""

from __future__ import annotations

import re

from lxml import etree

from docs_mcp.convert.selectors import xpath
from docs_mcp.themes import (
    HIDDEN_ATTRIBUTES,
    HIDDEN_SELECTORS,
    HIDDEN_STYLE_KEPT_TAGS,
    HIDDEN_STYLES,
    OFFSCREEN_PROPERTIES,
    OFFSCREEN_PX,
    SHOWN_WHEN_OPEN,
    ZERO_SIZE_HIDES,
)

_BY_SELECTOR = xpath(HIDDEN_SELECTORS)
# Candidates told by a rule: elements with a style, a hiding attribute, or shown only when open (in C).
_BY_RULE = etree.XPath(
    " | ".join(
        [
            ".//*[@style]",
            *(f".//*[@{a}]" for a in sorted(HIDDEN_ATTRIBUTES)),
            *(f".//{t}" for t in SHOWN_WHEN_OPEN),
        ]
    )
)
#: A CSS length: a number and its unit (anchored, one pass).
_LENGTH = re.compile(r"(-?(?:\d+\.?\d*|\.\d+))([a-z%]*)")
#: CSS pixels per unit, for the off-screen test (a percentage or a viewport unit is left alone).
_PX_PER = {"": 1.0, "px": 1.0, "em": 16.0, "rem": 16.0, "pt": 4 / 3, "cm": 96 / 2.54, "in": 96.0}


def hidden_elements(root: etree._Element) -> list[etree._Element]:
    """The outermost elements under `root` (itself excluded) that the page hides."""
    found = set(_BY_SELECTOR(root))
    found.update(el for el in _BY_RULE(root) if _hidden_by_rule(el))
    found.discard(root)
    return _outermost(found, root)


def _outermost(found: set[etree._Element], root: etree._Element) -> list[etree._Element]:
    """Those of `found` with no ancestor in it below `root`: each ancestor is looked at once, however deep."""
    covered: dict[etree._Element, bool] = {root: False}  # element → whether it or an ancestor is in `found`
    out = []
    for el in found:
        path, node = [], el.getparent()
        while node is not None and node not in covered:
            path.append(node)
            node = node.getparent()
        hit = covered.get(node, False) if node is not None else False
        for above in reversed(path):
            hit = hit or above in found
            covered[above] = hit
        if not hit:
            out.append(el)
    return out


def _hidden_by_rule(el: etree._Element) -> bool:
    if el.tag in SHOWN_WHEN_OPEN and el.get("open") is None:
        return True
    for name, values in HIDDEN_ATTRIBUTES.items():
        if (el.get(name) or "").strip().lower() in values:
            return True
    style = el.get("style")
    return bool(style) and el.tag not in HIDDEN_STYLE_KEPT_TAGS and hiding_style(style)


def hiding_style(style: str) -> bool:
    """Whether an inline style hides its element's text (its declarations, case and spaces evened out)."""
    for declaration in style.lower().split(";"):
        name, _, value = declaration.partition(":")
        name, value = name.strip(), "".join(value.replace("!important", "").split())
        if value in HIDDEN_STYLES.get(name, ()):
            return True
        length = _LENGTH.fullmatch(value)
        if length is None:
            continue
        number, unit = float(length.group(1)), length.group(2)
        if name in ZERO_SIZE_HIDES and number == 0:
            return True
        if name in OFFSCREEN_PROPERTIES and unit in _PX_PER and number * _PX_PER[unit] <= -OFFSCREEN_PX:
            return True
    return False
