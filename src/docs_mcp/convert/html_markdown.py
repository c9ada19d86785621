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
from docs_mcp.themes import PLAIN_TEXT_TAG

# markdownify's patterns; the newline one anchored at the start of a run and possessive (linear, not quadratic).
NEWLINE_SPACE = re.compile(r"(?<![\t \r\n])[\t ]*+[\r\n][\t \r\n]*+")
_SPACES = re.compile(r"[\t ]+")
_ALL_SPACE = re.compile(r"[\t \r\n]+")
_HEADING = re.compile(r"h(\d+)")
_LINE = re.compile(r"^(.*)", flags=re.MULTILINE)
_EDGE_NEWLINES = re.compile(r"^(\n*)((?:.*[^\n])?)(\n*)$", flags=re.DOTALL)
_BACKTICKS = re.compile(r"`+")
_PRE_LEAD = re.compile(r"^[ \n]*\n")
_PRE_TRAIL = re.compile(r"[ \n]*$")
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
_STRIPPED = frozenset({"a", "img"})  # links reduced to their text, images dropped
_DOCUMENT = "[document]"

Kids = list  # an element's children in bs4's terms: str (text), elements, comments

# What a rule asks of its ancestors (markdownify's parent_tags set), as bits.
INLINE, NOFORMAT, PRE, LI, KEEP_SPACE = 1, 2, 4, 8, 16


def _context(name: str) -> int:
    """The bits a tag adds for its descendants."""
    bits = INLINE if name in ("td", "th") or _HEADING.match(name) else 0
    bits |= NOFORMAT if name in _NOFORMAT else 0
    bits |= (PRE | KEEP_SPACE) if name == "pre" else KEEP_SPACE if name == "textarea" else 0
    return bits | (LI if name == "li" else 0)


def _inside(name: str | None) -> bool:
    """Whitespace just inside this element is dropped (markdownify's should_remove_whitespace_inside)."""
    return bool(name) and (name in _BLOCKS or _HEADING.match(name) is not None)


def _outside(item) -> bool:
    """Whitespace just outside this sibling is dropped: a block or <pre> (never a string or comment)."""
    if isinstance(item, str):
        return False
    name = item.tag
    return isinstance(name, str) and (name == "pre" or _inside(name))


def _name(item) -> str | None:
    """A tag's name; None for text and comments (bs4's strings have no name)."""
    return None if isinstance(item, str) or not isinstance(item.tag, str) else item.tag


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


def _chomp(text: str) -> tuple[str, str, str]:
    return (" " if text[:1] == " " else "", " " if text[-1:] == " " else "", text.strip())


def _colspan(el) -> int:
    span = el.get("colspan")
    return max(1, min(1000, int(span))) if span is not None and span.isdigit() else 1


def _previous_tag(el):
    """The previous sibling that is an element (bs4's find_previous_sibling() skips strings and comments)."""
    node = el.getprevious()
    while node is not None and not isinstance(node.tag, str):
        node = node.getprevious()
    return node


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
            found = self._names[name] = (_inside(name), _context(name), _rule_for(self, name))
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
        text = _PRE_TRAIL.sub("", _PRE_LEAD.sub("", text))
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


def _rule_for(conv: Converter, name: str) -> Callable | None:
    """The rule markdownify would look up for a tag name (convert_<name>, else convert_hN for h<digits>)."""
    if name in _STRIPPED:
        return None
    rule = RULES.get(name)
    if rule is not None:
        return conv.pre if rule == "pre" else rule
    m = _HEADING.match(name)
    return None if m is None else (lambda el, text, tags, sib, at: _heading(int(m.group(1)), text, tags))


def _inline(markup: str) -> Callable:
    def rule(el, text, tags, sib, at) -> str:
        if tags & NOFORMAT:
            return text
        prefix, suffix, text = _chomp(text)
        return f"{prefix}{markup}{text}{markup}{suffix}" if text else ""

    return rule


def _code(el, text, tags, sib, at) -> str:
    if tags & NOFORMAT:
        return text
    prefix, suffix, text = _chomp(text)
    if not text:
        return ""
    ticks = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    if ticks:
        text = f" {text} "
    return f"{prefix}{'`' * (ticks + 1)}{text}{'`' * (ticks + 1)}{suffix}"


def _heading(n: int, text: str, tags: int) -> str:
    if tags & INLINE:
        return text
    return f"\n\n{'#' * max(1, min(6, n))} {_ALL_SPACE.sub(' ', text.strip())}\n\n"


def _div(el, text, tags, sib, at) -> str:
    if tags & INLINE:
        return " " + text.strip() + " "
    text = text.strip()
    return f"\n\n{text}\n\n" if text else ""


def _p(el, text, tags, sib, at) -> str:
    if tags & INLINE:
        return " " + text.strip(" \t\r\n") + " "
    text = text.strip(" \t\r\n")
    return f"\n\n{text}\n\n" if text else ""


def _blockquote(el, text, tags, sib, at) -> str:
    text = (text or "").strip(" \t\r\n")
    if tags & INLINE:
        return " " + text + " "
    if not text:
        return "\n"
    return "\n" + _LINE.sub(lambda m: "> " + m.group(1) if m.group(1) else ">", text) + "\n\n"


def _br(el, text, tags, sib, at) -> str:
    if tags & INLINE:
        return text + " " if text else " "
    return "  \n" + text


def _dd(el, text, tags, sib, at) -> str:
    text = (text or "").strip()
    if tags & INLINE:
        return " " + text + " "
    if not text:
        return "\n"
    text = _LINE.sub(lambda m: "    " + m.group(1) if m.group(1) else "", text)
    return ":" + text[1:] + "\n"


def _dt(el, text, tags, sib, at) -> str:
    text = _ALL_SPACE.sub(" ", (text or "").strip())
    if tags & INLINE:
        return " " + text + " "
    return f"\n\n{text}\n" if text else "\n"


def _list(el, text, tags, sib, at) -> str:
    after = next((x for x in sib[at + 1 :] if _name(x) or (isinstance(x, str) and x.strip())), None)
    before_paragraph = after is not None and _name(after) not in ("ul", "ol")
    if tags & LI:
        return "\n" + text.rstrip()
    return "\n\n" + text + ("\n" if before_paragraph else "")


def _li(el, text, tags, sib, at) -> str:
    text = (text or "").strip()
    if not text:
        return "\n"
    parent = el.getparent()
    if parent is not None and parent.tag == "ol":
        start = parent.get("start")
        first = int(start) if start and start.isnumeric() else 1
        bullet = f"{first + sum(1 for _ in el.itersiblings('li', preceding=True))}. "
    else:
        bullet = "- "
    pad = " " * len(bullet)
    text = _LINE.sub(lambda m: pad + m.group(1) if m.group(1) else "", text)
    return bullet + text[len(bullet) :] + "\n"


def _cell(el, text, tags, sib, at) -> str:
    # A `|` in a cell (`?|`, `x | y`) would end the cell in a GitHub table.
    return " " + text.replace("|", "\\|").strip().replace("\n", " ") + " |" * _colspan(el)


def _tr(el, text, tags, sib, at) -> str:
    cells = list(el.iterdescendants("td", "th"))
    parent = el.getparent()
    first = _previous_tag(el) is None
    head = all(c.tag == "th" for c in cells) or (
        parent.tag == "thead" and sum(1 for _ in parent.iterdescendants("tr")) == 1
    )
    head_missing = first and (
        parent.tag != "tbody" or not any(True for _ in parent.getparent().iterdescendants("thead"))
    )
    width = sum(_colspan(c) for c in cells)
    if head and first:
        return "|" + text + "\n| " + " | ".join(["---"] * width) + " |\n"
    if head_missing or (
        first and (parent.tag == "table" or (parent.tag == "tbody" and _previous_tag(parent) is None))
    ):
        return f"| {' | '.join([''] * width)} |\n| {' | '.join(['---'] * width)} |\n|{text}\n"
    return "|" + text + "\n"


def _video(el, text, tags, sib, at) -> str:
    if tags & INLINE:
        return text
    src = el.get("src") or ""
    if not src:
        found = next((s for s in el.iterdescendants("source") if s.get("src") is not None), None)
        src = (found.get("src") or "") if found is not None else ""
    poster = el.get("poster") or ""
    if src and poster:
        return f"[![{text}]({poster})]({src})"
    if src:
        return f"[{text}]({src})"
    return f"![{text}]({poster})" if poster else text


RULES: dict[str, Callable | str] = {
    "b": _inline("**"),
    "strong": _inline("**"),
    "em": _inline("*"),
    "i": _inline("*"),
    "del": _inline("~~"),
    "s": _inline("~~"),
    "sub": _inline(""),
    "sup": _inline(""),
    "code": _code,
    "kbd": _code,
    "samp": _code,
    "pre": "pre",
    "div": _div,
    "article": _div,
    "section": _div,
    "dl": _div,
    "p": _p,
    "blockquote": _blockquote,
    "br": _br,
    "dd": _dd,
    "dt": _dt,
    "hr": lambda el, text, tags, sib, at: "\n\n---\n\n",
    "list": _list,
    "ul": _list,
    "ol": _list,
    "li": _li,
    "q": lambda el, text, tags, sib, at: '"' + text + '"',
    "script": lambda el, text, tags, sib, at: "",
    "style": lambda el, text, tags, sib, at: "",
    "table": lambda el, text, tags, sib, at: "\n\n" + text.strip() + "\n\n",
    "caption": lambda el, text, tags, sib, at: text.strip() + "\n\n",
    "figcaption": lambda el, text, tags, sib, at: "\n\n" + text.strip() + "\n\n",
    "td": _cell,
    "th": _cell,
    "tr": _tr,
    "video": _video,
}

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
