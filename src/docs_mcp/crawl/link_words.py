"""Where a page's links point and the words they say: a link's text is the site's own name for the page it
points at ("see the *walrus operator*"), search evidence for that page its own text may lack
(search/site/scoring.anchor_share; stored per target page by store/*/inbound.py)."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING
from urllib.parse import unquote, urljoin, urlsplit

from docs_mcp.convert.hidden import hidden_elements
from docs_mcp.convert.parsing import normalize_space
from docs_mcp.fetch.discovery import Anchor, Folder, normalize_url, page_anchors, page_folder, resolve_link
from docs_mcp.fetch.sources import Location
from docs_mcp.settings import mechanism_on
from docs_mcp.site_words import GENERIC_LINK_TEXTS, LINK_TEXT_MAX_CHARS
from docs_mcp.text.terms import query_terms

if TYPE_CHECKING:
    from lxml.html import HtmlElement

#: A (target page key, term) pair: one of the words a page's links give another page of its source.
LinkWord = tuple[str, str]
#: Link texts whose terms are kept, at most, between clearings: a site's navigation repeats a few hundred on
#: every page; a Javadoc's class and member names are mostly new (half the JDK: 33,000 texts, 411,000 hits).
TERMS_MEMO_MAX = 8_192
#: A page's link words kept at most, and from it for one target: the most on real pages are 16,465 (JDK 17's
#: index-files/index-7.html, 5 MB) and 453 (an SDL2 header's Doxygen source view); a 9.5 MB page of 69k links
#: gave 972k rows before.
LINK_WORDS_PER_PAGE = 20_000
LINK_WORDS_PER_TARGET = 512


def link_target(loc: Location, key: str, href: str, folder: Folder | None = None) -> str:
    """The key of the page of `loc`'s source that `href` (on the page `key`, in `folder` when the caller has
    it: `page_folder(key)`) points at; '' outside the source."""
    if loc.source.is_local:
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or not parts.path:
            return ""
        rel = posixpath.normpath(posixpath.join(posixpath.dirname(loc.key), unquote(parts.path)))
        # An absolute path ("/etc/passwd.md", another source's folder) or one above the root is not its source's.
        return "" if rel == ".." or rel.startswith(("../", "/")) else Location(loc.source, rel).uid
    if href.startswith("?"):  # the page itself, asked with a query
        return key
    return _http_target(key, folder or page_folder(key), href, loc.source.root)


def _http_target(key: str, folder: Folder, href: str, root: str) -> str:
    """The page key `href` resolves to from the page `key` in `folder` ('' when it is not under `root`)."""
    target = resolve_link(key, folder, href)[1]
    if target is None:  # "https:" and the like, rare: joined with the folder alone, as every other href is
        target = normalize_url(urljoin(key[: key.rfind("/") + 1], href)) or ""
    return target if target.startswith(root) else ""


def link_words(
    root: HtmlElement,
    loc: Location,
    key: str,
    anchors: list[Anchor] | None = None,
    hidden: list[HtmlElement] | None = None,
) -> tuple[LinkWord, ...]:
    """The distinct (target key, term) pairs of a parsed page's visible links to other pages of its source (its
    `page_anchors` and `hidden_elements`, when the caller has them); texts that name a place in the site ("Next", "Index") or are
    whole sentences give none, nor do links the page hides. At most LINK_WORDS_PER_PAGE pairs, and
    LINK_WORDS_PER_TARGET for one target."""
    out: set[LinkWord] = set()
    per_target: dict[str, int] = {}
    folder = None if loc.source.is_local else page_folder(key)
    unseen = {a for el in (hidden_elements(root) if hidden is None else hidden) for a in el.iter("a")}
    addresses = mechanism_on("address-links")
    for href, a in page_anchors(root) if anchors is None else anchors:
        if href.startswith("?") or a in unseen:  # the page itself, asked with a query; a link no reader sees
            continue
        if addresses and not len(a) and spells_address(a.text or "", href):
            continue
        terms = _terms(a)
        if not terms:
            continue
        target = link_target(loc, key, href, folder)
        if not target or target == key:
            continue
        given = per_target.get(target, 0)
        for term in terms[: max(0, LINK_WORDS_PER_TARGET - given)]:
            if (target, term) not in out:
                out.add((target, term))
                given += 1
        per_target[target] = given
        if len(out) >= LINK_WORDS_PER_PAGE:
            break
    return tuple(sorted(out)[:LINK_WORDS_PER_PAGE])


def spells_address(text: str, href: str) -> bool:
    """Whether a link's text is its target's address written out (`releaselog/3_5_4.html`, as SQLite's cross
    references and FFmpeg's "See Also" lists write them): it names nothing the address does not, and the
    address's pieces (`html`, `releaselog`) said of thirty pages were their link words."""
    text = text.strip()
    if not text or text not in href:  # most link texts: not in the address at all, no split needed
        return False
    path = href.split("#", 1)[0].split("?", 1)[0]
    return bool(path) and (path == text or path.endswith("/" + text))


def _terms(a: HtmlElement) -> tuple[str, ...]:
    """A link's content terms, from its text as a query's are made (none for a generic or overlong text)."""
    # Most links are bare text: their .text is their text_content() without an XPath evaluation.
    raw = a.text_content() if len(a) else a.text or ""
    terms = _TERMS.get(raw)
    if terms is None:
        text = normalize_space(raw)
        if not text or len(text) > LINK_TEXT_MAX_CHARS or text.lower() in GENERIC_LINK_TEXTS:
            terms = ()
        else:
            terms = tuple(query_terms(text))
        if len(_TERMS) >= TERMS_MEMO_MAX:
            _TERMS.clear()
        if len(raw) <= 4 * LINK_TEXT_MAX_CHARS:  # a link around a whole section is not navigation
            _TERMS[raw] = terms
    return terms


_TERMS: dict[str, tuple[str, ...]] = {}
