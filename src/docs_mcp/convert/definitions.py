"""Definition entries: the terms of definition lists (API signatures, options, settings, glossary terms).

Each `<dt>`… `<dd>` group of a definition list is a unit inside its section: addressable by its ids, scored on
its own, listed in outlines. Its place in the section's markdown is found by markers put around it before
conversion (see markdown.extract_markers), so the markdown itself is the same with or without units.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lxml import etree

from docs_mcp.settings import MAX_TITLE_CHARS
from docs_mcp.text.tidy import clip, fold_space
from docs_mcp.themes import DEFINITION_LIST_SKIP_CLASSES, SIGNATURE_PREFIXES

#: Marker characters (Unicode private use): start, end, close. `\ue000 7 \ue002` opens entry 7.
START, END, CLOSE = "\ue000", "\ue001", "\ue002"
#: A marker in text: an entry that spans several blocks (see shapes.py) ends in a later block than it starts.
_MARKER_TEXT = re.compile(f"[{START}{END}]\\d+{CLOSE}")
#: Where a signature's name ends: its parameters, subscript, type annotation or value.
_NAME_END = re.compile(r"[(\[]|:\s|\s=")
#: A call signature: a name directly followed by its parameters.
_CALL = re.compile(r"\w\(")
#: A definition term longer than this without a call signature is prose, not a name.
DEFINED_TERM_MAX_CHARS = 60
#: A defined name (what a term's signature names) longer than this is no API's: a page's `a.a.a.…(x)` would
#: otherwise be stored and scanned at every search matching its section.
DEFINED_NAME_MAX_CHARS = 200


@dataclass(eq=False)
class Group:
    """A definition list item while the page is split: its terms, descriptions and what it will be called."""

    terms: list[etree._Element]
    bodies: list[etree._Element]
    parent: Group | None = None
    ids: list[str] = field(default_factory=list)
    name: str = ""
    #: Elements outside the entry whose ids name it: empty labels before its term (`<a name=x></a>`), its row.
    anchors: list[etree._Element] = field(default_factory=list)

    @property
    def elements(self) -> list[etree._Element]:
        return self.terms + self.bodies


def defined_name(term: str) -> str:
    """The name a definition-list term defines, "" for a field label or prose: `time.sleep(secs)` → `time.sleep`."""
    term = term.strip()
    if not term or term.endswith(":"):  # "Parameters:" field labels
        return ""
    cut = _NAME_END.search(term)
    words = (term[: cut.start()] if cut else term).split()
    if (len(term) > DEFINED_TERM_MAX_CHARS and not cut) or not words:
        return ""  # a long term without a signature is prose, not a name
    if cut:  # "int PyObject_Str(PyObject *o)" -> "PyObject_Str"
        return words[-1] if len(words[-1]) <= DEFINED_NAME_MAX_CHARS else ""
    while len(words) > 1 and words[0] in SIGNATURE_PREFIXES:
        words = words[1:]
    # "exception pkg.Error" -> "pkg.Error"; "abstract base class" stays a glossary term.
    return words[0] if len(words) == 1 else fold_space(term)


def entry_title(term: str) -> str:
    """How an entry is labelled: a call signature by its name (`re.sub`), anything else by its whole term.

    `shared_buffers (integer)` and `GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY` say more whole than as
    the last word before a parenthesis.
    """
    term = fold_space(term)
    cut = _NAME_END.search(term)
    words = [w for w in (term[: cut.start()] if cut else term).split() if w not in SIGNATURE_PREFIXES]
    named = _CALL.search(term) or len(words) == 1
    title = (defined_name(term) if named else "") or term
    return clip(title, MAX_TITLE_CHARS)


def _items(dl: etree._Element) -> list[etree._Element]:
    """A list's dt/dd children; HTML5 allows them wrapped in <div>s."""
    out = []
    for child in dl:
        if child.tag in ("dt", "dd"):
            out.append(child)
        elif child.tag == "div":
            out.extend(c for c in child if c.tag in ("dt", "dd"))
    return out


def is_label(term: str) -> bool:
    """A term ending in a colon ("For Unicode (str) patterns:", "Parameters:") labels a block; it defines nothing."""
    return term.rstrip().endswith(":")


def find_groups(main: etree._Element, skip: set[etree._Element]) -> dict[etree._Element, Group]:
    """Every definition group under `main`, keyed by its dt and dd elements; lists inside `skip` are ignored."""
    owner: dict[etree._Element, Group] = {}
    for dl in main.iter("dl"):
        if dl in skip or set((dl.get("class") or "").split()) & DEFINITION_LIST_SKIP_CLASSES:
            continue
        group: Group | None = None
        for item in _items(dl):
            if item.tag == "dt" and (group is None or group.bodies):
                group = Group([], [])
            if group is None:  # a <dd> before any <dt>: not a definition
                continue
            (group.terms if item.tag == "dt" else group.bodies).append(item)
            owner[item] = group
    return owner


def link_nested(main: etree._Element, owner: dict[etree._Element, Group]) -> None:
    """Each group's parent: the group whose element holds its first term."""
    for el, group in owner.items():
        if group.parent is None and el is group.terms[0]:
            anc = el.getparent()
            while anc is not None and anc is not main:
                outer = owner.get(anc)
                if outer is not None and outer is not group:
                    group.parent = outer
                    break
                anc = anc.getparent()


def unmarked(text: str) -> str:
    """Text without entry markers (put into the tree by `mark` before later blocks are read)."""
    return _MARKER_TEXT.sub("", text) if START in text or END in text else text


def mark(group: Group, index: int) -> None:
    """Put the start and end markers of entry `index` into the tree (simplified already, about to be serialized).

    A list's term loses its leading blanks (its markdown line starts there); an entry found by shape keeps
    them and ends inside its last block's innermost last text, so its markdown is the same as without it.
    """
    first = group.terms[0]
    listed = first.tag == "dt"
    # A table cell's paragraph: the marker goes inside it, where the cell's leading blanks are trimmed.
    while not listed and not (first.text or "").strip() and len(first) and first[0].tag in ("p", "div"):
        first = first[0]
    first.text = f"{START}{index}{CLOSE}" + ((first.text or "").lstrip() if listed else (first.text or ""))
    last = group.elements[-1]
    tag = f"{END}{index}{CLOSE}"
    while not listed and len(last) and isinstance(last[-1].tag, str) and not (last[-1].tail or "").strip():
        last = last[-1]
    if len(last):
        last[-1].tail = (last[-1].tail or "") + tag
    else:
        last.text = (last.text or "") + tag
