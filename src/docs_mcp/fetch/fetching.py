"""Fetch stage: the one guarded path for every request (tool pages, crawl, robots.txt, sitemaps, llms.txt).

Each hop is checked before it is sent, bodies are capped while they stream and while they inflate, every
request has a total deadline, and each origin gets a bounded share of the connection pool.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from email.utils import parsedate_to_datetime
from typing import TypeVar
from urllib.parse import urljoin, urlsplit

import httpx

from docs_mcp.errors import (
    DeadlineExceeded,
    FetchError,
    NotDocumentation,
    PageNotFound,
    PageTooLarge,
    RetryLater,
    URLNotAllowed,
    echo,
)
from docs_mcp.fetch.bodies import BodyTooLarge, CorruptBody, coding_of, decode, read_body
from docs_mcp.fetch.local import read_local
from docs_mcp.fetch.page import RawPage
from docs_mcp.fetch.sources import Location, Source, SourceSet
from docs_mcp.model.failures import failure
from docs_mcp.settings import ACCEPT_ENCODING, HTML_TYPES, MARKDOWN_TYPES, MAX_REDIRECTS, USER_AGENT, Settings
from docs_mcp.text.tidy import clip

__all__ = ["Fetcher", "RawPage", "decode", "kind_for"]

_REDIRECTS = (301, 302, 303, 307, 308)  # httpx counts 304 as one
T = TypeVar("T")
C = TypeVar("C")


def _clip(url: str, limit: int = 300) -> str:
    """A URL for a message: whole when short, else its start (keys can reach 6,144 chars percent-encoded)."""
    return clip(url, limit)


def kind_for(content_type: str, path: str) -> str | None:
    """'html' or 'markdown' from the content type (and the extension for text/plain), else None."""
    ctype = content_type.split(";", 1)[0].strip().lower()
    if ctype in HTML_TYPES:
        return "html"
    if ctype in MARKDOWN_TYPES and (ctype != "text/plain" or path.lower().endswith((".md", ".markdown"))):
        return "markdown"
    if not ctype:
        return "markdown" if path.lower().endswith(".md") else "html"
    return None


class Fetcher:
    """Fetches pages for any source, refusing anything the allow-list, the size limit or the deadline forbids."""

    def __init__(
        self, sources: SourceSet, settings: Settings, transport: httpx.AsyncBaseTransport | None = None
    ):
        self.sources = sources
        self.settings = settings
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._slots: dict[str, asyncio.Semaphore] = {}
        self._slots_loop: asyncio.AbstractEventLoop | None = None

    @property
    def client(self) -> httpx.AsyncClient:
        # Created lazily so it binds to the running event loop, then shared for connection pooling.
        if self._client is None:
            self._client = httpx.AsyncClient(
                headers={
                    "User-Agent": USER_AGENT,
                    "Accept": "text/html,application/xhtml+xml,text/markdown;q=0.9",
                    # Only codings inflated under a limit here (httpx would offer br/zstd when installed).
                    "Accept-Encoding": ACCEPT_ENCODING,
                },
                timeout=httpx.Timeout(self.settings.read_timeout, connect=self.settings.connect_timeout),
                follow_redirects=False,
                transport=self._transport,
                limits=httpx.Limits(max_connections=32, max_keepalive_connections=16),
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def _slot(self, url: str) -> asyncio.Semaphore:
        """The origin's share of the pool: a slow origin holds at most `concurrency` connections."""
        loop = asyncio.get_running_loop()
        if loop is not self._slots_loop:  # semaphores bind to a loop; a new loop starts afresh
            self._slots, self._slots_loop = {}, loop
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        if origin not in self._slots:
            self._slots[origin] = asyncio.Semaphore(max(1, self.settings.concurrency))
        return self._slots[origin]

    # --- pages ------------------------------------------------------------------------------------
    async def fetch(self, loc: Location, etag: str = "", last_modified: str = "") -> RawPage:
        """Fetch a page; with etag/last_modified, a 304 returns `not_modified=True` and no text."""
        if loc.source.is_local:
            return await asyncio.to_thread(read_local, loc, last_modified, self.settings.max_body_bytes)
        headers = {}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        return await self._within_deadline(
            loc.key, self._exchange(loc, loc.key, headers, self._next_page, self._read_page)
        )

    def _next_page(self, loc: Location, target: str) -> Location:
        return self.sources.check_redirect(target)  # URLNotAllowed off the roots, before any request

    async def _read_page(self, loc: Location, url: str, resp: httpx.Response) -> RawPage:
        status = resp.status_code
        if status == 304:
            return RawPage(
                loc,
                "",
                "html",
                resp.headers.get("etag", ""),
                resp.headers.get("last-modified", ""),
                time.time(),
                not_modified=True,
            )
        _check_status(url, resp)
        ctype = resp.headers.get("content-type", "")
        kind = kind_for(ctype, url)
        if kind is None:
            raise NotDocumentation(
                f"{_clip(url)} is {ctype.split(';')[0][:60] or 'an unknown type'}, not HTML or Markdown; "
                "only documentation pages can be read"
            )
        coding = coding_of(resp.headers.get_list("content-encoding"), _clip(url))
        limit = self.settings.max_body_bytes
        declared = resp.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise PageTooLarge(self._too_large(url, int(declared)))
        try:
            body = await read_body(resp.aiter_raw(), coding, limit)
        except BodyTooLarge as exc:
            raise PageTooLarge(self._too_large(url, exc.size, coding)) from None
        except CorruptBody as exc:
            raise FetchError(
                f"{_clip(url)} sent a corrupt {coding} body ({exc}); the page cannot be read"
            ) from None
        return RawPage(
            loc,
            decode(body, resp.charset_encoding),
            kind,
            resp.headers.get("etag", "")[:200],
            resp.headers.get("last-modified", "")[:100],
            time.time(),
        )

    def _too_large(self, url: str, size: int, coding: str = "") -> str:
        what = f"over {size - 1:,} bytes once inflated ({coding})" if coding else f"{size:,} bytes"
        return (
            f"{_clip(url)} is {what}, over the {self.settings.max_body_bytes:,}-byte limit; "
            "raise --max-body-bytes or pick a smaller page"
        )

    # --- discovery files --------------------------------------------------------------------------
    async def fetch_file(self, url: str, source: Source, limit: int | None = None) -> bytes | None:
        """A discovery file (robots.txt, sitemap, llms.txt) on `source`'s own origin, at most `limit` bytes
        (the rest is cut). None when absent (a 4xx answer) or not on the origin (refused, redirects included:
        never obeyed); FetchError when it cannot be read (no answer, a 5xx or 429, the deadline, a corrupt
        body), so discovery can say why it found few pages."""
        try:
            first = self.sources.discovery_url(url, source)
            return await self._within_deadline(
                first,
                self._exchange(
                    first,
                    first,
                    {},
                    lambda _, target: self.sources.discovery_url(target, source),
                    lambda _, u, resp: self._read_file(u, resp, limit or self.settings.max_body_bytes),
                ),
            )
        except URLNotAllowed:
            return None

    async def _read_file(self, url: str, resp: httpx.Response, limit: int) -> bytes | None:
        status = resp.status_code
        if status == 429 or status >= 500:
            raise FetchError(f"HTTP {status}")
        if status != 200:
            return None
        coding = coding_of(resp.headers.get_list("content-encoding"), _clip(url))
        try:
            return await read_body(resp.aiter_raw(), coding, limit, truncate=True)
        except CorruptBody:
            raise FetchError(f"a corrupt {coding} body") from None

    # --- the guarded exchange ---------------------------------------------------------------------
    async def _within_deadline(self, url: str, work: Awaitable[T]) -> T:
        deadline = self.settings.deadline
        try:
            async with asyncio.timeout(deadline):
                return await work
        except TimeoutError:
            raise DeadlineExceeded(
                f"gave up on {_clip(url)} after {deadline:g}s (the total deadline per request, --deadline): the "
                "site answers too slowly; retry later or pick another page"
            ) from None

    async def _exchange(
        self,
        ctx: C,
        url: str,
        headers: dict[str, str],
        next_hop: Callable[[C, str], C | str],
        read: Callable[[C, str, httpx.Response], Awaitable[T]],
    ) -> T:
        """GET `url`, following redirects by hand: each target passes `next_hop` (which raises to refuse it)
        before it is requested, and `read` gets the final response while the origin's slot is held."""
        for _ in range(MAX_REDIRECTS + 1):
            async with self._slot(url):
                try:
                    resp = await self.client.send(
                        self.client.build_request("GET", url, headers=headers), stream=True
                    )
                    try:
                        location = resp.headers.get("location", "")
                        if not (resp.status_code in _REDIRECTS and location):
                            return await read(ctx, url, resp)
                    finally:
                        await resp.aclose()
                except httpx.TimeoutException:
                    raise FetchError(
                        f"timed out fetching {_clip(url)} (connect {self.settings.connect_timeout:g}s, "
                        f"read {self.settings.read_timeout:g}s); retry later or pick another page"
                    ) from None
                except httpx.HTTPError as exc:
                    cause = failure(exc)[0]
                    if cause:  # DNS, refused: in plain words, never the library's
                        raise FetchError(f"could not read {_clip(url)}: {cause}") from None
                    raise FetchError(
                        f"could not read {_clip(url)}: {exc.__class__.__name__}: {str(exc)[:200]}; "
                        "check that the docs site is up"
                    ) from None
            try:
                nxt = next_hop(ctx, urljoin(url, location.strip()))
            except ValueError as exc:  # an unreadable Location header ("Invalid IPv6 URL")
                raise FetchError(f"{_clip(url)} sent an unreadable redirect ({str(exc)[:100]})") from None
            except URLNotAllowed as exc:
                raise URLNotAllowed(f"{_clip(url)} redirects elsewhere: {exc}") from None
            ctx = nxt  # a Location for pages, the URL for discovery files
            url = nxt.key if isinstance(nxt, Location) else nxt
        raise FetchError(f"{echo(url)}: more than {MAX_REDIRECTS} redirects; the page cannot be read")


def _check_status(url: str, resp: httpx.Response) -> None:
    """Raise what a page's non-2xx answer means: gone, slow down, failing, or unreadable."""
    status = resp.status_code
    if status in (404, 410):
        raise PageNotFound(
            f"{_clip(url)} returned HTTP {status} (not found); use search_docs to find the right page"
        )
    if status in (429, 503):
        raise RetryLater(
            f"{_clip(url)} returned HTTP {status}; the site asks to slow down, retry later",
            _retry_after(resp.headers.get("retry-after", "")),
        )
    if status >= 500:
        raise FetchError(f"{_clip(url)} returned HTTP {status}; the site is failing, retry later")
    if status >= 300:
        raise FetchError(f"{_clip(url)} returned HTTP {status}; this page cannot be read")


def _retry_after(value: str) -> float:
    """Retry-After as seconds (delta or HTTP date); 0 when absent or unreadable."""
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, OverflowError):
        return 0.0
