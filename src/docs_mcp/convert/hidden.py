"""What a page hides from its reader (themes.HIDDEN_*): `hidden` and `aria-hidden` elements, templates, closed
dialogs, screen-reader-only text and inline styles that hide (display, visibility, a zero font size, a place
off-screen). Their text is neither served nor indexed, and their links give their target no words."""

from __future__ import annotations

import re

from lxml import etree

from docs_mcp.convert.selectors import SimpleSelector, xpath_classes
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

_SELECTORS = tuple(SimpleSelector.parse(s) for sel in HIDDEN_SELECTORS for s in sel.split(","))
# What can make an element hidden, tested first (most elements have none of it): its tag, an attribute the
# selectors or rules read, a class the selectors name somewhere in its class attribute.
_TAGS = frozenset(
    {s.tag for s in _SELECTORS if s.tag and not (s.classes or s.id or s.attrs)} | SHOWN_WHEN_OPEN
)
_ATTRIBUTES = frozenset(
    {"style", *HIDDEN_ATTRIBUTES}
    | {name for s in _SELECTORS if not s.classes for name, _ in s.attrs}
    | ({"id"} if any(s.id and not s.classes for s in _SELECTORS) else set())
)
_CLASSES = tuple(sorted({c for s in _SELECTORS for c in s.classes}))
#: A CSS length: a number and its unit (anchored, one pass).
_LENGTH = re.compile(r"(-?(?:\d+\.?\d*|\.\d+))([a-z%]*)")
#: CSS pixels per unit, for the off-screen test (a percentage or a viewport unit is left alone).
_PX_PER = {"": 1.0, "px": 1.0, "em": 16.0, "rem": 16.0, "pt": 4 / 3, "cm": 96 / 2.54, "in": 96.0}


def hidden_elements(root: etree._Element) -> list[etree._Element]:
    """The outermost elements under `root` (itself excluded) that the page hides."""
    found = {el for el in _candidates(root) if _selected(el) or _hidden_by_rule(el)}
    found.discard(root)
    return _outermost(found, root)


def hidden_within(main: etree._Element, hidden: list[etree._Element]) -> list[etree._Element] | None:
    """Those of a page's hidden elements (`hidden_elements` of its root) strictly inside `main`, which is the
    page's own scan restricted to it; None when `main` is hidden itself or lies inside a hidden element (its
    own scan then finds what inside it hides)."""
    above = {main, *main.iterancestors()}
    out = []
    for el in hidden:
        if el in above:
            return None
        if any(a is main for a in el.iterancestors()):
            out.append(el)
    return out


def _candidates(root: etree._Element) -> list[etree._Element]:
    """Elements under `root` (and itself) that a selector or rule may hide: one walk, the tree's own order. One
    walk in Python costs a third of one XPath per selector and rule (ten walks of the tree in C)."""
    out = []
    tags, names, classes = _TAGS, _ATTRIBUTES, _CLASSES
    for el in root.iter(etree.Element):
        if el.tag in tags:
            out.append(el)
            continue
        keys = el.keys()
        if not keys:
            continue
        if not names.isdisjoint(keys):
            out.append(el)
        elif "class" in keys:
            cls = el.get("class")
            if any(c in cls for c in classes):
                out.append(el)
    return out


def _selected(el: etree._Element) -> bool:
    """Whether a selector of HIDDEN_SELECTORS matches `el`, classes told as cssselect's XPath tells them."""
    classes = xpath_classes(el)
    return any(s.matches(el, classes) for s in _SELECTORS)


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
