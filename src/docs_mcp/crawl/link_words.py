"""Where a page's links point and the words they say: a link's text is the site's own name for the page it
points at ("see the *walrus operator*"), search evidence for that page its own text may lack
(search/site/scoring.anchor_share; stored per target page by store/*/inbound.py)."""

from __future__ import annotations

import posixpath
from functools import lru_cache
from typing import TYPE_CHECKING
from urllib.parse import unquote, urljoin, urlsplit

from docs_mcp.convert.parsing import normalize_space
from docs_mcp.fetch.discovery import normalize_url
from docs_mcp.fetch.sources import Location
from docs_mcp.text.terms import query_terms
from docs_mcp.themes import GENERIC_LINK_TEXTS, LINK_TEXT_MAX_CHARS

if TYPE_CHECKING:
    from lxml.html import HtmlElement

#: A (target page key, term) pair: one of the words a page's links give another page of its source.
LinkWord = tuple[str, str]


def link_target(loc: Location, key: str, href: str) -> str:
    """The key of the page of `loc`'s source that `href` (on the page `key`) points at; '' outside the source."""
    if loc.source.is_local:
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or not parts.path:
            return ""
        rel = posixpath.normpath(posixpath.join(posixpath.dirname(loc.key), unquote(parts.path)))
        return Location(loc.source, rel).uid if not rel.startswith("../") else ""
    if href.startswith("?"):  # the page itself, asked with a query
        return key
    return _http_target(key[: key.rfind("/") + 1], href, loc.source.root)


@lru_cache(maxsize=1 << 16)  # pages of one folder share their resolved links (a Javadoc page has ~150)
def _http_target(folder: str, href: str, root: str) -> str:
    """The page key `href` resolves to from a page in `folder` ('' when it is not under `root`)."""
    target = normalize_url(urljoin(folder, href)) or ""
    return target if target.startswith(root) else ""


def link_words(root: HtmlElement, loc: Location, key: str) -> tuple[LinkWord, ...]:
    """The distinct (target key, term) pairs of a parsed page's links to other pages of its source; texts that
    name a place in the site ("Next", "Index") or are whole sentences give none."""
    out: set[LinkWord] = set()
    for a in root.iter("a"):
        href = (a.get("href") or "").strip()
        if not href or href.startswith(("#", "mailto:", "javascript:", "tel:")):
            continue
        terms = _terms(normalize_space(a.text_content()))
        if not terms:
            continue
        target = link_target(loc, key, href)
        if target and target != key:
            out.update((target, t) for t in terms)
    return tuple(sorted(out))


@lru_cache(maxsize=1 << 14)  # navigation repeats the same link texts on every page of a site
def _terms(text: str) -> tuple[str, ...]:
    """A link text's content terms as a query's are made (none for a generic or overlong text)."""
    if not text or len(text) > LINK_TEXT_MAX_CHARS or text.lower() in GENERIC_LINK_TEXTS:
        return ()
    return tuple(query_terms(text))
