"""Pages that only send the reader on, with `<meta http-equiv="refresh" content="0; url=…">` (Texinfo writes one
per node: 150 of zsh's 186 manual pages), followed as a browser follows them."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urljoin

import lxml.html

from docs_mcp.errors import DocsMCPError, FetchError, URLNotAllowed, echo
from docs_mcp.settings import MAX_REDIRECTS

if TYPE_CHECKING:
    from docs_mcp.fetch.fetching import Fetcher
    from docs_mcp.fetch.page import RawPage
    from docs_mcp.fetch.sources import Location, SourceSet

#: A refresh is in the page's head: its first characters (zsh's stubs carry 2,500 chars of CSS before it).
REFRESH_SCAN_CHARS = 16_000
_URL = re.compile(r"^\s*\d*(?:\.\d*)?\s*[;,]?\s*url\s*=\s*(['\"]?)(?P<url>[^'\"]+)\1", re.I)


def refresh_target(text: str) -> str | None:
    """The address a page's `<meta http-equiv="refresh">` sends the reader to, as written; None without one."""
    head = text[:REFRESH_SCAN_CHARS]
    if "refresh" not in head.lower():
        return None
    try:
        root = lxml.html.fromstring(head)
    except (ValueError, lxml.etree.ParserError):
        return None
    for meta in root.iter("meta"):
        if (meta.get("http-equiv") or "").strip().lower() == "refresh":
            found = _URL.match(meta.get("content") or "")
            if found and found.group("url").strip():
                return found.group("url").strip()
    return None


async def fetch_following(fetcher: Fetcher, sources: SourceSet, loc: Location) -> RawPage:
    """`fetcher.fetch(loc)`, then the page its refresh names, for as long as pages only send the reader on."""
    raw = await fetcher.fetch(loc)
    for _ in range(MAX_REDIRECTS):
        target = refresh_target(raw.text) if raw.kind == "html" else None
        if target is None:
            return raw
        try:
            nxt = sources.resolve(urljoin(raw.location.key, target))
        except DocsMCPError as exc:
            raise URLNotAllowed(f"{echo(raw.location.key)} redirects elsewhere: {exc}") from None
        if nxt.key == raw.location.key:
            return raw  # a page that refreshes itself (or its own #fragment) is the page
        raw = await fetcher.fetch(nxt)
    raise FetchError(f"{echo(loc.key)}: more than {MAX_REDIRECTS} redirects; the page cannot be read")
