"""What a page hides from its reader (themes.HIDDEN_*): `hidden` and `aria-hidden` elements, templates, closed
dialogs, screen-reader-only text and inline styles that hide (display, visibility, a zero font size, a place
off-screen). Their text is neither served nor indexed, and their links give their target no words."""

from __future__ import annotations

import re
from collections.abc import Iterable
from html.entities import html5

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
#: The elements holding one of `_ATTRIBUTES`, found in C: their attributes' parents.
_ATTRIBUTED = etree.XPath(" | ".join(f"descendant-or-self::*/@{name}" for name in sorted(_ATTRIBUTES)))
#: What a class word is spelled with: a character reference to any other cannot make one (`&#39;`, `&#187;`).
_CLASS_CHARS = frozenset("".join(_CLASSES).lower() + "".join(_CLASSES).upper())
#: Whether a named reference can spell part of a class word (none can: `&fjlig;`, "fj", is the only one to ASCII
#: letters).
_NAMED_SPELL = any(_CLASS_CHARS & set(value) for value in html5.values())
#: A numeric character reference as the parser reads it: all its digits, the semicolon optional.
_CHAR_REF = re.compile(r"&#(?:[xX]([0-9a-fA-F]+)|([0-9]+))")
#: Attributes a selector or rule reads to hide an element (not `style`, whose values are read instead).
_NAMES = sorted(
    {*HIDDEN_ATTRIBUTES}
    | {name for s in _SELECTORS for name, _ in s.attrs}
    | ({"id"} if any(s.id for s in _SELECTORS) else set())
)
#: What an attribute's name is made of, as libxml2 reads one (lower case): a name is read to the first other.
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789:._-")
#: An inline style's value as the text writes it (lower case): quoted either way (an unclosed quote runs on to
#: the end, never tried again from a later start), or bare up to a space or `>`.
_STYLE_VALUE = re.compile(r"""style\s*=\s*("[^"]*"?|'[^']*'?|[^\s>]*)""")
#: A CSS length: a number and its unit (anchored, one pass).
_LENGTH = re.compile(r"(-?(?:\d+\.?\d*|\.\d+))([a-z%]*)")
#: CSS pixels per unit, for the off-screen test (a percentage or a viewport unit is left alone).
_PX_PER = {"": 1.0, "px": 1.0, "em": 16.0, "rem": 16.0, "pt": 4 / 3, "cm": 96 / 2.54, "in": 96.0}


def hidden_elements(root: etree._Element, html: str | None = None) -> list[etree._Element]:
    """The outermost elements under `root` (itself excluded) that the page hides. With `html`, the text `root`
    was parsed from: a page that can hide nothing by attribute, class or style (`may_hide`) is looked at for
    its tags alone, found in C, not walked in Python (a JDK page: 550 elements, 4.5 million instructions)."""
    if html is None:
        return _hidden(root, _candidates(root))
    if not may_hide(html):
        return _hidden(root, root.iter(*_TAGS))
    return walked_hidden_elements(root, html)


def walked_hidden_elements(root: etree._Element, html: str) -> list[etree._Element]:
    """`hidden_elements(root)`, every element looked at, for a tree parsed from `html` or copied out of it: where
    no element can hold a class word the selectors name (`may_spell_class`: Python's Sphinx pages), those that
    have a hiding tag or hold an attribute of `_ATTRIBUTES` are found in C, not walked in Python."""
    if may_spell_class(html):
        return _hidden(root, _candidates(root))
    # `_candidates` less the elements it takes for their class alone, which then hide nothing.
    return _hidden(root, [*root.iter(*_TAGS), *(value.getparent() for value in _ATTRIBUTED(root))])


def _hidden(root: etree._Element, candidates: Iterable[etree._Element]) -> list[etree._Element]:
    found = {el for el in candidates if _selected(el) or _hidden_by_rule(el)}
    found.discard(root)
    return _outermost(found, root)


def may_hide(html: str) -> bool:
    """Whether a page's HTML may hide an element by more than its tag: a class word the selectors name, an
    attribute they or the rules read where a tag can hold it (`_in_a_tag`), or an inline style that hides. A
    character reference could spell a class word (`&#45;`) or a style (`&colon;`), so a page with `&#`, or a
    style value with `&` or a quote left open, may hide too."""
    # Class words are matched with their case; lower-casing (slow on a page that is not ASCII) comes after.
    if "&#" in html or any(word in html for word in _CLASSES):
        return True
    text = html.lower()
    if any(_named_in_a_tag(text, name) for name in _NAMES):
        return True
    for m in _STYLE_VALUE.finditer(text):
        value = m.group(1)
        if value[:1] in ('"', "'") and (len(value) < 2 or value[-1] != value[0]):
            return True  # a quote left open: what the parser makes of it is not read here
        value = value.strip("\"'")
        if "&" in value or hiding_style(value):
            return True
    return False


def may_spell_class(html: str) -> bool:
    """Whether an element of a page's HTML may hold a class word the selectors name: the text holds one, or a
    character reference that may be part of one (`&#45;`; not `&#39;`, a reference to no class word's
    character, the rest of Python's Sphinx pages' `&#`)."""
    if any(word in html for word in _CLASSES):
        return True
    if _NAMED_SPELL and "&" in html:
        return True
    at = html.find("&#")
    while at != -1:
        ref = _CHAR_REF.match(html, at)
        if ref is None or not _other_char(ref.group(1), ref.group(2)):
            return True  # a `&#` the parser may read otherwise (an older libxml2 cuts the value there)
        at = html.find("&#", ref.end())
    return False


def _other_char(hexadecimal: str | None, decimal: str | None) -> bool:
    """Whether a numeric reference names a character XML allows that is in no class word."""
    digits = hexadecimal or decimal or ""
    if len(digits) > 12:  # past any character, and too long to read as a number cheaply
        return False
    code = int(digits, 16 if hexadecimal else 10)
    valid = code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD
    return (valid or 0x10000 <= code <= 0x10FFFF) and chr(code) not in _CLASS_CHARS


def _named_in_a_tag(text: str, name: str) -> bool:
    """Whether the page's text holds `name` as an attribute's whole name where a tag can hold it (found with
    str.find: a regex that looks behind is tried at every character of a 2 MB page)."""
    at = text.find(name)
    while at != -1:
        end = at + len(name)
        whole = (at == 0 or text[at - 1] not in _NAME_CHARS) and text[end : end + 1] not in _NAME_CHARS
        if whole and _in_a_tag(text, at):
            return True
        at = text.find(name, end)
    return False


def _in_a_tag(text: str, at: int) -> bool:
    """Whether position `at` of a page's text may lie inside a tag, outside its quoted values. A `>` ends a tag
    unless a quoted value holds it, and then that value's closing quote follows it: text after the last `>`
    with no `<` and no quote before `at` is a text node's (JDK's "AppHiddenEvent", "is hidden by")."""
    between = text[text.rfind(">", 0, at) + 1 : at]
    return "<" in between or '"' in between or "'" in between


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
