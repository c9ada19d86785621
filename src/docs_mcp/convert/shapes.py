"""Entries recognised by shape: runs of sibling blocks that each open on a term, whatever the generator.

A definition list is one shape (definitions.find_groups). Hand-written and generated pages use others: SQLite's
`<a name=x></a><h _id=x>PRAGMA x</h>` followed by its paragraphs, `<p><b>SQLITE_X=N</b></p><blockquote>…`, a
man page's `<p><b>-x</b></p><p>…`. Each is a run of at least SHAPE_MIN_RUN siblings of one kind (tag and class)
that each carry a short term (an anchor, or text that is all bold or code) followed by description blocks.
"""

from __future__ import annotations

from lxml import etree

from docs_mcp.convert.anchors import element_ids, preceding_empty
from docs_mcp.convert.definitions import Group
from docs_mcp.convert.parsing import HEADING_TAGS
from docs_mcp.settings import (
    SHAPE_MIN_RUN,
    SHAPE_TABLE_SHARE,
    SHAPE_TERM_MAX_CHARS,
    SHAPE_TERM_MAX_WORDS,
)
from docs_mcp.text.tidy import normalize_space

#: Blocks that hold structure of their own: never a term line.
_NOT_TERMS = frozenset(
    {
        "pre",
        "table",
        "ul",
        "ol",
        "dl",
        "dt",
        "dd",
        "blockquote",
        "div",
        "section",
        "article",
        "hr",
        "br",
        "li",
    }
    | {
        "main",
        "body",
        "tbody",
        "thead",
        "tfoot",
        "tr",
        "td",
        "th",
        "caption",
        "colgroup",
        "figure",
        "details",
    }
    | {"nav", "header", "footer", "aside", "form", "center", "summary", "x-anchor"}
    | set(HEADING_TAGS)
)
#: Inline elements whose text makes a term: `<b>-x</b>`, `<code>name</code>`.
_TERM_INLINE = frozenset({"b", "strong", "code", "tt", "kbd", "samp", "var"})
#: Phrasing tags: a phrase inside a line, never a line of its own (nor one a paragraph swallowed).
_INLINE = frozenset(
    {"a", "span", "b", "strong", "em", "i", "code", "tt", "kbd", "samp", "var", "sub", "sup", "small", "big"}
    | {"font", "abbr", "cite", "q", "u", "s", "mark", "img", "br"}
)


def _term_text(el: etree._Element) -> str:
    """The term an element carries, "" when it is not a term line (too long, a sentence, or unmarked)."""
    if not isinstance(el.tag, str) or el.tag in _NOT_TERMS or el.tag in _INLINE:
        return ""
    anchored = _anchored(el)
    opens_marked = len(el) and el[0].tag in _TERM_INLINE and not (el.text or "").strip()
    if not (anchored or opens_marked):
        return ""  # cheap tests first: most blocks are prose, and reading their text costs
    text = normalize_space(el.text_content())
    if not text or len(text) > SHAPE_TERM_MAX_CHARS or len(text.split()) > SHAPE_TERM_MAX_WORDS:
        return ""
    if text.endswith((".", ":", "?", "!")) or sum(ch.isalnum() for ch in text) < 2:
        return ""  # a sentence, a label or a bare pattern (`.*`), not a term
    if anchored:
        return text
    marked = sum(len(normalize_space(c.text_content())) for c in el if c.tag in _TERM_INLINE)
    return text if marked >= 0.8 * len(text) else ""


def hoist_swallowed_terms(main: etree._Element) -> None:
    """Repair term lines: one the parser put at the end of an unclosed `<p>` (SQLite: `<p>…<a name=x></a>
    <h _id=x>`) moves, with the anchors before it, to just after that paragraph, where its description is;
    one outside a paragraph loses its leading blanks (it starts a line)."""
    for el in list(main.iter()):
        if not isinstance(el.tag, str) or el.tag in _INLINE or el.tag in _NOT_TERMS:
            continue
        p = el.getparent()
        swallowed = p is not None and p.tag == "p" and el.getnext() is None and not (el.tail or "").strip()
        if not (swallowed or (el.text or "")[:1].isspace()) or not _term_text(el):
            continue  # cheap tests first: _term_text reads the element's whole text
        el.text = (el.text or "").lstrip()
        if not swallowed:
            continue
        moved = [el, *(a for a in preceding_empty(el) if a.getparent() is p)]
        for m in moved:  # nearest first: each goes right after the paragraph, before the one moved last
            p.remove(m)
            m.tail = None
            p.addnext(m)


def _kind(el: etree._Element) -> tuple[str, str]:
    return el.tag, el.get("class") or ""


def _has_text(el: etree._Element) -> bool:
    return any(t.strip() for t in el.itertext()) or bool((el.tail or "").strip())


def find_runs(main: etree._Element, skip: set[etree._Element], owner: dict[etree._Element, Group]) -> None:
    """Add to `owner` each entry of every run of term lines under `main` (elements in `owner` or `skip` are
    left alone): the term line, then the blocks up to the next term line, heading or anchor before one."""
    for parent in main.iter():
        # len() counts comments too, so it only skips what could not hold a run (most elements: leaves).
        if len(parent) < SHAPE_MIN_RUN or not isinstance(parent.tag, str) or parent in skip:
            continue
        if parent.tag in ("dl", "table", "pre"):
            continue
        children = [c for c in parent if isinstance(c.tag, str)]
        terms = [c for c in children if c not in owner and _term_text(c)]
        if len(terms) < SHAPE_MIN_RUN:
            continue
        kinds: dict[tuple[str, str], list[etree._Element]] = {}
        for t in terms:
            kinds.setdefault(_kind(t), []).append(t)
        # Anchored term lines first: an id is stronger evidence than bold text, and an element joins one run.
        for run in sorted(kinds.values(), key=lambda r: -sum(_anchored(t) for t in r) / len(r)):
            run = [t for t in run if t not in owner]
            if len(run) >= SHAPE_MIN_RUN:
                _add_run(children, set(run), owner)


def _anchored(el: etree._Element) -> bool:
    return bool(element_ids(el) or any(element_ids(a) for a in preceding_empty(el)))


def _add_run(
    children: list[etree._Element], run: set[etree._Element], owner: dict[etree._Element, Group]
) -> None:
    """Groups of one run: each term line with the description blocks after it (entries with none are not)."""
    groups: list[Group] = []
    current: Group | None = None
    for k, child in enumerate(children):
        if child in run:
            current = Group([child], [])
            groups.append(current)
            continue
        if current is None:
            continue
        if child.tag in HEADING_TAGS or next(child.iter(*HEADING_TAGS), None) is not None:
            current = None  # a heading ends the run's entry
        elif child in owner:
            current = None
        elif not (_anchor_only(child) and _next_line(children, k) in run):  # else: the next entry's anchor
            current.bodies.append(child)
    for g in groups:  # an entry ends on content: a closing `<hr>` cannot hold its end marker
        while g.bodies and _anchor_only(g.bodies[-1]):
            g.bodies.pop()
    good = [g for g in groups if any(_has_text(b) for b in g.bodies)]
    if len(good) < SHAPE_MIN_RUN:
        return
    for g in good:
        g.anchors = [a for a in reversed(preceding_empty(g.terms[0])) if element_ids(a)]
        for el in g.elements:
            owner[el] = g


def _anchor_only(el: etree._Element) -> bool:
    """An empty element (an `<a name>` or `<span id>` label, an `<hr>`), before an entry's term line."""
    return not len(el) and not (el.text or "").strip() and not (el.tail or "").strip()


def _next_line(children: list[etree._Element], k: int) -> etree._Element | None:
    """The first child from k on that is not an empty label."""
    return next((c for c in children[k:] if not _anchor_only(c)), None)


def find_rows(main: etree._Element, owner: dict[etree._Element, Group]) -> None:
    """Add to `owner` the rows of option tables: tables of at least SHAPE_MIN_RUN rows whose first cell is a
    term (code, bold, an option or one identifier) and whose other cells describe it; each row is an entry."""
    for table in main.iter("table"):
        if table in owner:
            continue
        rows = [
            tr for tr in table.iter("tr") if _own_table(tr) is table and len(tr) >= 2 and tr[0].tag == "td"
        ]
        terms = [tr for tr in rows if _cell_term(tr[0]) and any(_has_text(c) for c in tr[1:])]
        if len(terms) < SHAPE_MIN_RUN or len(terms) < SHAPE_TABLE_SHARE * len(rows):
            continue
        # Terms name different things: a first column that repeats (`enum`, `#define`, `Uint32`) is a type.
        if len({normalize_space(tr[0].text_content()) for tr in terms}) < SHAPE_TABLE_SHARE * len(terms):
            continue
        for tr in terms:
            cells = [c for c in tr if isinstance(c.tag, str)]
            if any(c in owner for c in cells):
                continue
            group = Group(cells[:1], cells[1:], anchors=[tr])
            for el in cells:
                owner[el] = group


def _own_table(tr: etree._Element) -> etree._Element | None:
    return next(tr.iterancestors("table"), None)


def _cell_term(td: etree._Element) -> bool:
    """Whether a table cell holds a term: short, not a sentence, and code, bold, an option or one identifier."""
    text = normalize_space(td.text_content())
    if not text or len(text) > SHAPE_TERM_MAX_CHARS or text.endswith((".", ":", "?", "!")):
        return False
    marked = sum(len(normalize_space(c.text_content())) for c in td if c.tag in _TERM_INLINE)
    one_word = len(text.split()) == 1 and sum(ch.isalnum() for ch in text) >= 2
    return marked >= 0.8 * len(text) or text.startswith("-") or (one_word and not text.isdigit())
