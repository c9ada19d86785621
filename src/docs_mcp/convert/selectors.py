"""CSS selectors kept as data, matched fast: XPath for the rare ones, a one-pass matcher for many at once."""

from __future__ import annotations

import re
from dataclasses import dataclass

from cssselect import HTMLTranslator
from lxml import etree

_translator = HTMLTranslator()


def xpath(selectors: tuple[str, ...] | str) -> etree.XPath:
    """One compiled XPath for CSS selectors (each may be a comma-separated group)."""
    if isinstance(selectors, str):
        selectors = (selectors,)
    exprs = [_translator.css_to_xpath(part.strip()) for sel in selectors for part in sel.split(",")]
    return etree.XPath(" | ".join(exprs))


@dataclass(frozen=True)
class SimpleSelector:
    """A compound selector (`tag.class#id[attr=value]`), matched in one Python pass over the tree."""

    tag: str | None
    classes: frozenset[str]
    id: str | None
    attrs: tuple[tuple[str, str | None], ...]

    @classmethod
    def parse(cls, text: str) -> SimpleSelector:
        m = _SIMPLE.fullmatch(text.strip())
        if not m:
            raise ValueError(f"not a simple compound selector: {text!r}")
        tag = m.group(1) or None
        classes, ident, attrs = set(), None, []
        for part in _PART.finditer(m.group(2) or ""):
            token = part.group(0)
            if token[0] == ".":
                classes.add(token[1:])
            elif token[0] == "#":
                ident = token[1:]
            else:
                name, _, value = token[1:-1].partition("=")
                attrs.append((name, value.strip("\"'") if value else None))
        return cls(tag, frozenset(classes), ident, tuple(attrs))

    def matches(self, el: etree._Element, el_classes: frozenset[str]) -> bool:
        if self.tag and el.tag != self.tag:
            return False
        if self.classes and not self.classes <= el_classes:
            return False
        if self.id and el.get("id") != self.id:
            return False
        return all(el.get(n) is not None if v is None else el.get(n) == v for n, v in self.attrs)


_SIMPLE = re.compile(r"([a-z][a-z0-9]*)?((?:\.[\w-]+|#[\w-]+|\[[\w-]+(?:=[^\]]+)?\])*)", re.I)
_PART = re.compile(r"\.[\w-]+|#[\w-]+|\[[^\]]+\]")


class SelectorSet:
    """Many simple selectors matched together: elements are bucketed by tag, classes tested as sets."""

    def __init__(self, selectors: tuple[str, ...]):
        parsed = [SimpleSelector.parse(s) for sel in selectors for s in sel.split(",")]
        self.bare_tags = frozenset(p.tag for p in parsed if p.tag and not (p.classes or p.id or p.attrs))
        rest = [p for p in parsed if not (p.tag and not (p.classes or p.id or p.attrs))]
        tags = {p.tag for p in parsed}
        self.tags: tuple[str, ...] = () if None in tags else tuple(sorted(tags))
        # Bucket by one required class, so an element is only tested against selectors naming its classes.
        self.by_class: dict[str, list[SimpleSelector]] = {}
        for p in rest:
            if p.classes:
                self.by_class.setdefault(min(p.classes), []).append(p)
        self.classless = tuple(p for p in rest if not p.classes)
        self.classless_attrs = frozenset(
            {n for p in self.classless for n, _ in p.attrs}
            | ({"id"} if any(p.id for p in self.classless) else set())
        )

    def matches(self, el: etree._Element) -> bool:
        # Hot loop (every element of a page): no allocation unless a class or attribute is a candidate.
        if el.tag in self.bare_tags:
            return True
        cls = el.get("class")
        tokens = cls.split() if cls else ()
        for c in tokens:
            if c in self.by_class:
                classes = frozenset(tokens)
                if any(p.matches(el, classes) for p in self.by_class[c]):
                    return True
        # Each class-free selector needs one of these attributes: asked by name, no attribute proxy built.
        get = el.get
        for name in self.classless_attrs:
            if get(name) is not None:
                return any(p.matches(el, frozenset(tokens)) for p in self.classless)
        return False

    def select(self, root: etree._Element) -> list[etree._Element]:
        """Outermost matches in document order (nothing inside a match is reported)."""
        # When every selector names its tag, lxml filters by tag in C and Python sees only those.
        elements = root.iter(*self.tags) if self.tags else root.iter(tag=etree.Element)
        found = [el for el in elements if el is not root and self.matches(el)]
        chosen = set(found)
        # Few matches, shallow trees: checking each match's ancestors beats testing every element's.
        return [el for el in found if not any(anc in chosen for anc in el.iterancestors())]


#: The white space XPath's normalize-space() splits a class attribute on: cssselect's `.name` test.
_XML_SPACE = str.maketrans("\t\n\r", "   ")


def xpath_classes(el: etree._Element) -> frozenset[str]:
    """An element's classes as cssselect's XPath tells them (split on XML's white space only)."""
    cls = el.get("class")
    return frozenset(cls.translate(_XML_SPACE).split(" ")) if cls else frozenset()


class SelectorGroups:
    """Groups of compound selectors that each name a class, matched in one walk of the tree: each group's
    matches as `xpath(group)` finds them (itself included, document order, classes split as its XPath splits
    them), where the XPath walks the tree once per selector."""

    def __init__(self, groups: tuple[tuple[str, ...], ...]):
        self.groups = [[SimpleSelector.parse(s) for sel in group for s in sel.split(",")] for group in groups]
        flat = [p for group in self.groups for p in group]
        if not all(p.classes for p in flat):
            raise ValueError("SelectorGroups takes selectors that name a class")
        tags = {p.tag for p in flat}
        self.tags: tuple[str, ...] = () if None in tags else tuple(sorted(tags))  # type: ignore[arg-type]
        # An element is looked at only when its class attribute holds one of the names somewhere.
        self.named = re.compile("|".join(sorted({re.escape(c) for p in flat for c in p.classes})))

    def select(self, root: etree._Element) -> list[list[etree._Element]]:
        """Each group's matches under `root` (itself included), in document order."""
        out: list[list[etree._Element]] = [[] for _ in self.groups]
        for el in root.iter(*self.tags) if self.tags else root.iter(etree.Element):
            cls = el.get("class")
            if cls is None or self.named.search(cls) is None:
                continue
            classes = xpath_classes(el)
            for found, group in zip(out, self.groups, strict=True):
                if any(p.matches(el, classes) for p in group):
                    found.append(el)
        return out
