"""Simplified HTML to markdown straight from an lxml tree: markdownify 1.2's rules as markdown.py configured them.

markdownify walks a BeautifulSoup tree: building that tree and walking it took ~33 ms CPU a section, half of a
page's first read. The same rules over lxml's own tree give the same markdown, character for character (the
differential test holds them to markdownify), at a fraction of the cost. Text and tails become the strings bs4
would hold (whitespace-only runs collapsed to one space or newline outside <pre>/<textarea>, as bs4 does).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

from lxml import etree

from docs_mcp.convert.cleanup import code_note, short_literal
from docs_mcp.convert.markdown_rules import HEADING, INLINE, KEEP_SPACE, LI, NOFORMAT, PRE, rule_for
from docs_mcp.themes import PLAIN_TEXT_TAG

# markdownify's patterns; the newline one anchored at the start of a run and possessive (linear, not quadratic).
NEWLINE_SPACE = re.compile(r"(?<![\t \r\n])[\t ]*+[\r\n][\t \r\n]*+")
_SPACES = re.compile(r"[\t ]+")
_EDGE_NEWLINES = re.compile(r"^(\n*)((?:.*[^\n])?)(\n*)$", flags=re.DOTALL)
_PRE_LEAD = re.compile(r"^[ \n]*\n")
#: Blocks whose inner edges drop whitespace; <pre> drops it only outside (markdownify's two tests).
_BLOCKS = frozenset(
    [
        "p",
        "blockquote",
        "article",
        "div",
        "section",
        "ol",
        "ul",
        "li",
        "dl",
        "dt",
        "dd",
        "table",
        "thead",
        "tbody",
        "tfoot",
        "tr",
        "td",
        "th",
    ]
)
_ASCII_SPACES = " \n\t\x0c\r"
#: Whitespace kept as is inside these (bs4's preserve_whitespace_tags).
_KEEP_SPACE = frozenset({"pre", "textarea"})
_NOFORMAT = frozenset({"pre", "code", "kbd", "samp"})
_DOCUMENT = "[document]"

Kids = list  # an element's children in bs4's terms: str (text), elements, comments


def _context(name: str) -> int:
    """The bits a tag adds for its descendants."""
    bits = INLINE if name in ("td", "th") or HEADING.match(name) else 0
    bits |= NOFORMAT if name in _NOFORMAT else 0
    bits |= (PRE | KEEP_SPACE) if name == "pre" else KEEP_SPACE if name == "textarea" else 0
    return bits | (LI if name == "li" else 0)


def _inside(name: str | None) -> bool:
    """Whitespace just inside this element is dropped (markdownify's should_remove_whitespace_inside)."""
    return bool(name) and (name in _BLOCKS or HEADING.match(name) is not None)


def _outside(item) -> bool:
    """Whitespace just outside this sibling is dropped: a block or <pre> (never a string or comment)."""
    if isinstance(item, str):
        return False
    name = item.tag
    return isinstance(name, str) and (name == "pre" or _inside(name))


def _bs4_string(text: str, keep_space: bool) -> str:
    """The string bs4 holds for a run of text: whitespace-only runs become one newline or space."""
    if keep_space or text.strip(_ASCII_SPACES):
        return text
    return "\n" if "\n" in text else " "


def kids(el, keep_space: bool) -> Kids:
    """The element's children as bs4 lists them: its text, then each child and its tail."""
    out: Kids = [_bs4_string(el.text, keep_space)] if el.text else []
    for child in el:
        out.append(child)
        if child.tail:
            out.append(_bs4_string(child.tail, keep_space))
    return out


class Converter:
    """One conversion's rules: code blocks kept (`include_code`) or replaced by a note of their size."""

    def __init__(self, include_code: bool) -> None:
        self.include_code = include_code
        self._names: dict[str, tuple[bool, int, Callable | None]] = {}

    def document(self, root) -> str:
        """The markdown of a parsed fragment's whole tree (markdownify's convert_soup)."""
        return self._tag(None, _DOCUMENT, [root], 0, (), 0).strip("\n")

    def _tag(self, el, name: str, children: Kids, context: int, siblings: Kids, at: int) -> str:
        """markdownify's process_tag: children converted, newlines at their joins collapsed, then the rule."""
        inside, bits, rule = self._about(name)
        inner = context | bits
        last = len(children) - 1
        strings = []
        for k, item in enumerate(children):
            if isinstance(item, str):
                if not item.strip() and self._ignorable(children, k, last, inside):
                    continue
                s = self._text(item, inner, children, k, last, inside)
            elif isinstance(item.tag, str):
                grand = kids(item, bool(inner & KEEP_SPACE) or item.tag in _KEEP_SPACE)
                s = self._tag(item, item.tag, grand, inner, children, k)
            else:
                continue  # a comment
            if s:
                strings.append(s)
        if len(strings) == 1:
            text = strings[0]  # nothing to collapse between children
        elif name == "pre" or context & PRE:
            text = "".join(strings)
        else:
            text = _joined(strings)
        return text if rule is None else rule(el, text, context, siblings, at)

    @staticmethod
    def _ignorable(children: Kids, k: int, last: int, inside: bool) -> bool:
        """A whitespace-only string at a block's inner edge or beside a block is dropped."""
        if inside and (k == 0 or k == last):
            return True
        return (k > 0 and _outside(children[k - 1])) or (k < last and _outside(children[k + 1]))

    @staticmethod
    def _text(text: str, context: int, children: Kids, k: int, last: int, inside: bool) -> str:
        """markdownify's process_text (escaping is off in markdown.py's options)."""
        if not context & PRE:
            text = _SPACES.sub(" ", NEWLINE_SPACE.sub("\n", text))
        if (k > 0 and _outside(children[k - 1])) or (inside and k == 0):
            text = text.lstrip(" \t\r\n")
        if (k < last and _outside(children[k + 1])) or (inside and k == last):
            text = text.rstrip()
        return text

    def _about(self, name: str) -> tuple[bool, int, Callable | None]:
        """(drops whitespace inside, bits it adds for descendants, its rule), once per tag name."""
        found = self._names.get(name)
        if found is None:
            rule = self.pre if name == "pre" else rule_for(name)
            found = self._names[name] = (_inside(name), _context(name), rule)
        return found

    def pre(self, el, text, tags, sib, at) -> str:
        lang = el.get("data-lang") or ""
        if not self.include_code and lang != PLAIN_TEXT_TAG:
            code = _text_content(el)
            if not short_literal(code):
                lines = code.strip("\n").count("\n") + 1
                return f"\n\n{code_note(lang, lines)}\n\n" if code.strip() else ""
        if not text:
            return ""
        # rstrip: markdownify's `[ \n]*$` searched again from every blank of a run (quadratic); same result.
        text = _PRE_LEAD.sub("", text).rstrip(" \n")
        return f"\n\n```{lang}\n{text}\n```\n\n"


def _joined(strings: list[str]) -> str:
    """Children's strings joined, the newlines where two meet collapsed to the larger run, at most 2."""
    out = [""]
    for s in strings:
        lead, content, trail = _EDGE_NEWLINES.match(s).groups()
        if out[-1] and lead:
            lead = "\n" * min(2, max(len(out.pop()), len(lead)))
        out.extend((lead, content, trail))
    return "".join(out)


def _text_content(el) -> str:
    """bs4's get_text(): the text of the element and its descendants, comments left out."""
    return "".join(
        t
        for node in el.iter()
        for t in ((node.text if isinstance(node.tag, str) else None), node.tail if node is not el else None)
        if t
    )


#: One parser per thread (lxml parsers are not shared across threads).
_local = threading.local()
_converters = {True: Converter(True), False: Converter(False)}


def to_markdown(fragment: str, include_code: bool) -> str:
    """The fragment parsed as bs4's lxml builder parses it (an HTML document around it), then converted."""
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = etree.HTMLParser(recover=True)
    try:
        parser.feed(fragment)
        root = parser.close()
    except BaseException:
        _local.parser = None  # a parse that stopped half way is never continued by the next fragment
        raise
    return "" if root is None else _converters[include_code].document(root)
