"""markdownify 1.2's rule per tag, as markdown.py configured it (ATX headings, `-` bullets, no escaping), over
lxml elements: html_markdown.py walks the tree and hands each element's converted children to its rule.

A rule is called as markdownify calls convert_<tag>: the element, its children's text, and what its ancestors
are (bits), plus its parent's children in bs4's terms and its place among them (lists and rows look at them).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_ALL_SPACE = re.compile(r"[\t \r\n]+")
HEADING = re.compile(r"h(\d+)")
_LINE = re.compile(r"^(.*)", flags=re.MULTILINE)
_BACKTICKS = re.compile(r"`+")

# What a rule asks of its ancestors (markdownify's parent_tags set), as bits.
INLINE, NOFORMAT, PRE, LI, KEEP_SPACE = 1, 2, 4, 8, 16


def tag_name(item) -> str | None:
    """A tag's name; None for text and comments (bs4's strings have no name)."""
    return None if isinstance(item, str) or not isinstance(item.tag, str) else item.tag


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
    after = next((x for x in sib[at + 1 :] if tag_name(x) or (isinstance(x, str) and x.strip())), None)
    before_paragraph = after is not None and tag_name(after) not in ("ul", "ol")
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


RULES: dict[str, Callable] = {
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


def rule_for(name: str) -> Callable | None:
    """The rule markdownify looks up for a tag name: convert_<name>, else convert_hN for h<digits>; none for the
    tags markdown.py strips (links become their text, images go)."""
    if name in ("a", "img"):
        return None
    rule = RULES.get(name)
    if rule is not None:
        return rule
    m = HEADING.match(name)
    return None if m is None else (lambda el, text, tags, sib, at: _heading(int(m.group(1)), text, tags))
