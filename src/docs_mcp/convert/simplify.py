"""Simplify stage: code blocks flattened to text with their language, inline noise unwrapped, attributes dropped.

The markdown is the same, from far fewer nodes: markdownify's work shrinks with them.
"""

from __future__ import annotations

import re

import lxml.html
from lxml import etree

from docs_mcp.convert.parsing import ADMONITIONS
from docs_mcp.convert.selectors import xpath
from docs_mcp.text.tidy import normalize_space
from docs_mcp.themes import (
    ADMONITION_TITLE_CLASS_PREFIXES,
    ADMONITION_TITLE_CLASSES,
    CSS_PREFIXES,
    GRAMMAR_ID_PREFIX,
    KEPT_CODE_CLASSES,
    PLAIN_EMPHASIS_SELECTORS,
    PLAIN_TEXT_LANGUAGES,
    PLAIN_TEXT_TAG,
)

#: Control characters lxml parses but refuses to set back as text (a code sample holding `\x01`); replaced
#: where simplify() sets text, not in the whole page (a pass over every page for a rare case).
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_LANG = re.compile(r"(?:language|lang|highlight|sourceCode)-([A-Za-z0-9_+#.-]+)")
_NO_LANG = {"default", "notranslate", "console"}
#: Attributes that survive simplification (ids and classes were read before it; bs4 pays for each one).
_KEEP_ATTRS = frozenset({"colspan", "rowspan", "data-lang"})
#: Inline wrappers with no markdown meaning; unwrapping them cuts markdownify's work in half.
_UNWRAP_TAGS = (
    "a",
    "span",
    "font",
    "abbr",
    "small",
    "big",
    "cite",
    "dfn",
    "bdi",
    "bdo",
    "wbr",
    "data",
    "time",
)

#: The tag given to elements about to be unwrapped (no HTML tag has this name).
_UNWRAP_MARK = "docslice-unwrap"
# XPath, not SelectorSet: these name rare classes of common tags (span), which lxml filters in C.
_PLAIN_EMPHASIS = xpath(PLAIN_EMPHASIS_SELECTORS)
_CSS_PREFIXES = [(xpath(sel), prefix) for sel, prefix in CSS_PREFIXES.items()]


def simplify(main: lxml.html.HtmlElement) -> None:
    """Flatten code blocks to text, unwrap inline noise and drop attributes: same markdown, far fewer nodes."""
    _label_admonitions(main)
    for pre in list(main.iter("pre")):
        lang = code_language(pre)
        text = pre.text_content()
        for child in list(pre):
            pre.remove(child)
        pre.text = _xml_text(text)
        if lang:
            pre.set("data-lang", lang)
    unwrap(main, _PLAIN_EMPHASIS(main))
    for selector, prefix in _CSS_PREFIXES:
        for el in selector(main):
            el.text = _xml_text(prefix + (el.text or ""))
    etree.strip_tags(main, *_UNWRAP_TAGS)
    _merge_adjacent_emphasis(main)  # after unwrapping: Sphinx links each type name, <a><em>int</em></a>
    # A div that only wraps one element (Sphinx: div.highlight-x > div.highlight > pre) means nothing in
    # markdown; unwrapping it spares markdownify hundreds of nodes on a big page.
    # Whether a div is dropped never depends on dropping another (only its ancestors' children change), so
    # all are chosen first, then unwrapped in one pass.
    unwrap(
        main,
        [
            div
            for div in main.iter("div")
            if div is not main
            and len(div) == 1
            and not (div.text or "").strip()
            and not (div[0].tail or "").strip()
        ],
    )
    names: set[str] = set()
    for el in main.iter():
        names.update(el.attrib)
    drop = names - _KEEP_ATTRS
    if drop:
        etree.strip_attributes(main, *drop)


def unwrap(main: lxml.html.HtmlElement, elements: list[lxml.html.HtmlElement]) -> None:
    """Replace each element by its content (as `drop_tag`), all in one pass: `drop_tag` re-homes the whole
    subtree it moves, so unwrapping nested wrappers one by one was quadratic (60% of a Javadoc page's time)."""
    if not elements:
        return
    for el in elements:
        el.tag = _UNWRAP_MARK
    etree.strip_tags(main, _UNWRAP_MARK)


def _label_admonitions(main: lxml.html.HtmlElement) -> None:
    """A note box becomes a quote whose first line says its kind: `> **Note:** …`, not a bare "Note" line."""
    for box in ADMONITIONS.select(main):
        first = next((c for c in box if isinstance(c.tag, str)), None)
        if first is None:
            continue
        classes = (first.get("class") or "").split()
        is_title = bool(set(classes) & ADMONITION_TITLE_CLASSES) or any(
            c.startswith(ADMONITION_TITLE_CLASS_PREFIXES) for c in classes
        )
        label = normalize_space(first.text_content()).rstrip(":") if is_title else ""
        if not label or len(label) > 60:
            continue
        box.text = None
        first.drop_tree()
        lead = next((c for c in box.iter("p") if normalize_space(c.text_content())), None)
        strong = lxml.html.Element("strong")
        strong.text = _xml_text(label[:1].upper() + label[1:] + ":")
        strong.tail = " " + (lead.text or "") if lead is not None else None
        if lead is not None:
            lead.text = None
            lead.insert(0, strong)
        else:
            para = lxml.html.Element("p")
            para.append(strong)
            box.insert(0, para)
        box.tag = "blockquote"


def _xml_text(text: str) -> str:
    """Text lxml accepts back: control characters become U+FFFD."""
    return _CONTROL.sub("\ufffd", text)


def _merge_adjacent_emphasis(main: lxml.html.HtmlElement) -> None:
    """`<em>Union</em><em>[</em><em>int</em>…` (Sphinx types) is one emphasis, not `*Union**[**int*`."""
    for em in list(main.iter("em")):
        if em.getparent() is None:
            continue
        nxt = em.getnext()
        while nxt is not None and nxt.tag == "em" and not (em.tail or "").strip():
            if len(em):
                em[-1].tail = _xml_text((em[-1].tail or "") + (em.tail or "") + (nxt.text or ""))
            else:
                em.text = _xml_text((em.text or "") + (em.tail or "") + (nxt.text or ""))
            em.extend(list(nxt))
            em.tail = nxt.tail
            em.getparent().remove(nxt)
            nxt = em.getnext()


def code_language(pre: lxml.html.HtmlElement) -> str:
    """The language a block declares on itself, its <code> (mdBook nests pre > pre > code) or a wrapper
    (Sphinx: highlight-LANG), nearest first.

    Any plain-text declaration comes back as PLAIN_TEXT_TAG, which keeps the block when code is left out.
    """
    declared = pre.get("data-lang", "").strip().lower()
    if declared:
        return PLAIN_TEXT_TAG if declared in PLAIN_TEXT_LANGUAGES else declared
    if _is_api_text(pre):
        return PLAIN_TEXT_TAG
    candidates = [pre.get("class", "")]
    code = pre.find(".//code")
    if code is not None:
        candidates.append(code.get("class", ""))
    parent = pre.getparent()
    for _ in range(2):
        if parent is None:
            break
        candidates.append(parent.get("class", ""))
        parent = parent.getparent()
    for cls in candidates:
        for m in _LANG.finditer(cls):
            lang = m.group(1).lower()
            if lang in PLAIN_TEXT_LANGUAGES:
                return PLAIN_TEXT_TAG
            if lang not in _NO_LANG:
                return lang
    return ""


_GRAMMAR_TOKEN = etree.XPath("descendant-or-self::*[starts-with(@id, $prefix)][1]")


def _is_api_text(pre: lxml.html.HtmlElement) -> bool:
    """Grammar and synopses are the API itself, not an example (see KEPT_CODE_CLASSES)."""
    parent = pre.getparent()
    for el in (pre, parent):
        if el is not None and set((el.get("class") or "").split()) & KEPT_CODE_CLASSES:
            return True
    return bool(_GRAMMAR_TOKEN(pre, prefix=GRAMMAR_ID_PREFIX))
