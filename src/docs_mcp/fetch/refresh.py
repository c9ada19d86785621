"""Pages that only send the reader on, with `<meta http-equiv="refresh" content="0; url=…">` (Texinfo writes one
per node: 150 of zsh's 186 manual pages), followed as a browser follows them."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

import lxml.html

from docs_mcp.errors import DocsMCPError, FetchError, URLNotAllowed, echo
from docs_mcp.settings import MAX_REDIRECTS

if TYPE_CHECKING:
    from docs_mcp.fetch.fetching import Fetcher
    from docs_mcp.fetch.page import RawPage
    from docs_mcp.fetch.sources import Location, Source, SourceSet

#: A refresh is in the page's head: its first characters (zsh's stubs carry 2,500 chars of CSS before it).
REFRESH_SCAN_CHARS = 16_000
_URL = re.compile(r"^\s*\d*(?:\.\d*)?\s*[;,]?\s*url\s*=\s*(['\"]?)(?P<url>[^'\"]+)\1", re.I)


def refresh_target(text: str) -> str | None:
    """The address a page's `<head>` refresh sends the reader to, as written; None without one."""
    head = text[:REFRESH_SCAN_CHARS]
    if "refresh" not in head.lower():
        return None
    try:
        found = lxml.html.fromstring(head).find(".//head")
    except (ValueError, lxml.etree.ParserError):
        return None
    for meta in found.iter("meta") if found is not None else ():
        if (meta.get("http-equiv") or "").strip().lower() == "refresh":
            target = _URL.match(meta.get("content") or "")
            if target and target.group("url").strip():
                return target.group("url").strip()
    return None


def _page_target(raw: RawPage) -> str | None:
    return refresh_target(raw.text) if raw.kind == "html" else None


def refreshes_away(raw: RawPage) -> bool:
    """Whether a fetched page only sends the reader to another page (a refresh to itself or to its own
    #fragment is the page): it then stands in for its target, and is no result of its own."""
    target = _page_target(raw)
    return target is not None and urljoin(raw.location.key, target).split("#")[0] != raw.location.key


def refresh_location(sources: SourceSet, raw: RawPage) -> Location | None:
    """Where an HTML page that only sends the reader on leads (URLNotAllowed off the roots); None otherwise.
    A local page's target is looked up under its own root, not the first root that has the path."""
    target = _page_target(raw)
    if target is None:
        return None
    here = raw.location
    joined = urljoin(here.key, target)
    try:
        if here.source.is_local and not urlsplit(joined).scheme:
            return sources.resolve(f"{here.source.name}:{joined}")
        return sources.resolve(joined)
    except DocsMCPError as exc:
        raise URLNotAllowed(f"{echo(here.key)} redirects elsewhere: {exc}") from None


def refreshed_within(sources: SourceSet, source: Source, raw: RawPage) -> str | None:
    """The key of the page a refresh leads to within `source` (the crawl follows it like an HTTP redirect);
    None for any other page, and for a refresh leading off the source (that page stays, unlisted)."""
    try:
        sent = refresh_location(sources, raw)
    except URLNotAllowed:
        return None
    return sent.key if sent is not None and sent.source is source else None


async def fetch_following(fetcher: Fetcher, sources: SourceSet, loc: Location) -> RawPage:
    """`fetcher.fetch(loc)`, then the page its refresh names, for as long as pages only send the reader on."""
    raw, seen = await fetcher.fetch(loc), {loc.key}
    for _ in range(MAX_REDIRECTS + 1):
        nxt = refresh_location(sources, raw)
        # A page refreshing itself (or its own #fragment) is the page.
        if nxt is None or nxt.key == raw.location.key:
            return raw
        if nxt.key in seen:
            raise FetchError(
                f"{echo(loc.key)} redirects in a loop ({echo(nxt.key)} again); it cannot be read"
            )
        seen.add(nxt.key)
        raw = await fetcher.fetch(nxt)
    raise FetchError(f"{echo(loc.key)}: more than {MAX_REDIRECTS} redirects; the page cannot be read")
