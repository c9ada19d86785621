"""Which pages a remote source has: robots.txt, then sitemaps, then llms.txt; a link crawl from the root when
none of them lists a page."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from docs_mcp.errors import DeadlineExceeded, DocsMCPError, FetchError
from docs_mcp.fetch.discovery import Robots, in_scope, parse_llms_txt, parse_robots, parse_sitemap
from docs_mcp.fetch.fetching import Fetcher
from docs_mcp.fetch.sources import Source, SourceSet
from docs_mcp.model.failures import UNREACHABLE, failure
from docs_mcp.settings import ROBOTS_MAX_BYTES

#: Sitemap files read at most per build (a sitemap index names the others).
MAX_SITEMAPS = 50


@dataclass(frozen=True)
class Discovery:
    """What discovery found: robots.txt's rules (None: none to obey), the pages to start from, and how."""

    robots: Robots | None
    keys: list[str]
    #: "sitemap", "llms.txt", "sitemap+llms.txt", or "crawl" (from the root).
    method: str
    #: Files that could not be read, as opposed to absent: "/robots.txt (connection refused)".
    problems: list[str]
    #: The host never answered (its name does not resolve, or it refuses connections): nothing more is asked.
    unreachable: FetchError | None = None


class _Reader:
    """Reads a source's discovery files, noting each one that fails instead of passing it off as absent."""

    def __init__(self, fetcher: Fetcher, source: Source):
        self.fetcher, self.source = fetcher, source
        self.problems: list[str] = []
        self.unreachable: FetchError | None = None

    async def read(self, url: str, limit: int) -> bytes | None:
        try:
            return await self.fetcher.fetch_file(url, self.source, limit)
        except FetchError as exc:
            cause, detail, _ = failure(exc)
            if cause in UNREACHABLE:
                self.unreachable = exc
            why = "timed out" if isinstance(exc, DeadlineExceeded) else cause or detail
            self.problems.append(f"{urlsplit(url).path} ({why[:100]})")
            return None


async def discover(fetcher: Fetcher, sources: SourceSet, source: Source, limit: int) -> Discovery:
    """robots.txt, sitemaps and llms.txt of a remote source; files are read up to `limit` bytes.

    Every discovery file is fetched on the source's own origin only, redirects included: robots.txt refused
    or failing counts as absent (never obeyed, but noted), and sitemaps named elsewhere are skipped."""
    reader = _Reader(fetcher, source)
    parts = urlsplit(source.root)
    host_root = f"{parts.scheme}://{parts.netloc}/"
    robots = None
    sitemap_urls = [source.root + "sitemap.xml"]
    body = await reader.read(host_root + "robots.txt", ROBOTS_MAX_BYTES)
    if reader.unreachable is not None:  # each further file would wait for the same DNS lookup or refusal
        return Discovery(None, [], "crawl", reader.problems, reader.unreachable)
    if body is not None:
        robots, named = parse_robots(body.decode("utf-8", "replace"))
        sitemap_urls = named + [u for u in sitemap_urls if u not in named]
    pages = await _sitemap_pages(reader, sources, sitemap_urls, limit)
    keys = _unique(k for k in (in_scope(sources, source, u) for u in pages) if k)
    method = "sitemap" if keys else ""
    body = await reader.read(source.root + "llms.txt", limit)
    if body:
        listed = parse_llms_txt(body.decode("utf-8", "replace"), source.root)
        llms = [k for k in (in_scope(sources, source, u) for u in listed) if k]
        if llms:
            keys = _unique([*keys, *llms])
            method = f"{method}+llms.txt" if method else "llms.txt"
    if keys:
        return Discovery(robots, keys, method, reader.problems)
    return Discovery(robots, [source.root], "crawl", reader.problems)


async def _sitemap_pages(reader: _Reader, sources: SourceSet, urls: list[str], limit: int) -> list[str]:
    """The page URLs of the sitemaps (and the sitemap indexes they nest), MAX_SITEMAPS files at most."""
    pages: list[str] = []
    fetched = 0
    while urls and fetched < MAX_SITEMAPS:
        url = urls.pop(0)
        try:
            url = sources.discovery_url(url, reader.source)
        except DocsMCPError:  # on another origin (or unreadable): not fetched
            continue
        body = await reader.read(url, limit)
        fetched += 1
        if body:
            found, nested = parse_sitemap(body, limit)
            pages.extend(found)
            urls.extend(nested)
    return pages


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))
