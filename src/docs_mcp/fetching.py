"""Fetch stage: one pooled httpx client, allow-listed redirects, a body limit, charset handling, local files."""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from urllib.parse import urljoin

import httpx

from .config import HTML_TYPES, MARKDOWN_TYPES, MAX_REDIRECTS, USER_AGENT, Settings
from .errors import FetchError, NotDocumentation, PageNotFound, PageTooLarge, RetryLater
from .sources import Location, SourceSet

_META_CHARSET = re.compile(rb"""<meta[^>]+charset=["']?([A-Za-z0-9_-]+)""", re.I)


@dataclass(frozen=True)
class RawPage:
    """A fetched body, decoded, with what a conditional refresh needs."""

    location: Location
    text: str
    kind: str  # "html" | "markdown"
    etag: str = ""
    last_modified: str = ""
    fetched_at: float = 0.0
    not_modified: bool = False


def decode(body: bytes, header_charset: str | None) -> str:
    """Decode with the HTTP charset, else the <meta> charset, else UTF-8 (undecodable bytes replaced)."""
    charset = header_charset
    if not charset:
        m = _META_CHARSET.search(body[:4096])
        charset = m.group(1).decode("ascii") if m else "utf-8"
    try:
        return body.decode(charset, errors="replace")
    except LookupError:
        return body.decode("utf-8", errors="replace")


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
    """Fetches pages for any source, refusing anything the allow-list or the size limit forbids."""

    def __init__(
        self, sources: SourceSet, settings: Settings, transport: httpx.AsyncBaseTransport | None = None
    ):
        self.sources = sources
        self.settings = settings
        self._transport = transport
        self._client: httpx.AsyncClient | None = None

    @property
    def client(self) -> httpx.AsyncClient:
        # Created lazily so it binds to the running event loop, then shared for connection pooling.
        if self._client is None:
            self._client = httpx.AsyncClient(
                headers={
                    "User-Agent": USER_AGENT,
                    "Accept": "text/html,application/xhtml+xml,text/markdown;q=0.9",
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

    async def fetch(self, loc: Location, etag: str = "", last_modified: str = "") -> RawPage:
        """Fetch a page; with etag/last_modified, a 304 returns `not_modified=True` and no text."""
        if loc.source.is_local:
            return await asyncio.to_thread(self._read_local, loc, last_modified)
        return await self._fetch_http(loc, etag, last_modified)

    async def fetch_file(self, url: str) -> bytes | None:
        """A discovery file (robots.txt, sitemap, llms.txt) on a root's host; None when absent or failing."""
        try:
            resp = await self.client.get(url, follow_redirects=True)
        except httpx.HTTPError:
            return None
        if resp.status_code != 200 or len(resp.content) > self.settings.max_body_bytes:
            return None
        if resp.url.host != httpx.URL(url).host:  # a discovery file never takes us to another host
            return None
        return resp.content

    def _read_local(self, loc: Location, last_modified: str) -> RawPage:
        path = loc.path
        try:
            stat = path.stat()
        except OSError:
            raise PageNotFound(
                f"{loc.key} does not exist under {loc.source.root}; use get_doc_toc or search_docs "
                "to find existing pages"
            ) from None
        mtime = str(int(stat.st_mtime))
        if last_modified and last_modified == mtime:
            return RawPage(loc, "", "html", last_modified=mtime, fetched_at=time.time(), not_modified=True)
        if stat.st_size > self.settings.max_body_bytes:
            raise PageTooLarge(self._too_large(loc.key, stat.st_size))
        body = path.read_bytes()
        kind = "markdown" if path.suffix.lower() == ".md" else "html"
        return RawPage(loc, decode(body, None), kind, last_modified=mtime, fetched_at=time.time())

    def _too_large(self, url: str, size: int) -> str:
        return (
            f"{url} is {size:,} bytes, over the {self.settings.max_body_bytes:,}-byte limit; "
            "raise --max-body-bytes or pick a smaller page"
        )

    async def _fetch_http(self, loc: Location, etag: str, last_modified: str) -> RawPage:
        headers = {}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        url = loc.key
        for _ in range(MAX_REDIRECTS + 1):
            try:
                async with self.client.stream("GET", url, headers=headers) as resp:
                    if resp.status_code in (301, 302, 303, 307, 308):  # httpx counts 304 as one
                        target = urljoin(url, resp.headers.get("location", ""))
                        loc = self.sources.check_redirect(target)  # raises URLNotAllowed off the roots
                        url = loc.key
                        continue
                    return await self._read_response(loc, url, resp)
            except httpx.TimeoutException:
                raise FetchError(
                    f"timed out fetching {url} (connect {self.settings.connect_timeout:g}s, "
                    f"read {self.settings.read_timeout:g}s); retry later or pick another page"
                ) from None
            except httpx.TransportError as exc:
                raise FetchError(
                    f"could not reach {url}: {exc.__class__.__name__}: {exc}; check that the docs site is up"
                ) from None
        raise FetchError(f"{url}: more than {MAX_REDIRECTS} redirects")

    async def _read_response(self, loc: Location, url: str, resp: httpx.Response) -> RawPage:
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
        if status in (404, 410):
            raise PageNotFound(
                f"{url} returned HTTP {status} (not found); use search_docs to find the right page"
            )
        if status in (429, 503):
            raise RetryLater(
                f"{url} returned HTTP {status}; the site asks to slow down, retry later",
                _retry_after(resp.headers.get("retry-after", "")),
            )
        if status >= 500:
            raise FetchError(f"{url} returned HTTP {status}; the site is failing, retry later")
        if status >= 400:
            raise FetchError(f"{url} returned HTTP {status}; this page cannot be read")
        ctype = resp.headers.get("content-type", "")
        kind = kind_for(ctype, url)
        if kind is None:
            raise NotDocumentation(
                f"{url} is {ctype.split(';')[0] or 'an unknown type'}, not HTML or Markdown; "
                "only documentation pages can be read"
            )
        limit = self.settings.max_body_bytes
        declared = resp.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > limit:
            raise PageTooLarge(self._too_large(url, int(declared)))
        chunks, size = [], 0
        async for chunk in resp.aiter_bytes():
            size += len(chunk)
            if size > limit:
                raise PageTooLarge(self._too_large(url, size))
            chunks.append(chunk)
        return RawPage(
            loc,
            decode(b"".join(chunks), resp.charset_encoding),
            kind,
            resp.headers.get("etag", ""),
            resp.headers.get("last-modified", ""),
            time.time(),
        )


def _retry_after(value: str) -> float:
    """Retry-After as seconds (delta or HTTP date); 0 when absent or unreadable."""
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return 0.0
